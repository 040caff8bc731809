/* limits.h — the sizes kiln trace takes from a script, each refused with an error at the
 * script's line:col past it (docs/trace.md lists them). They keep every recursive walk (the
 * parser, sema, gen, kiln's compiler over the generated Lisp) within its stack, and what is
 * generated within what kiln's compiler and the kernel take. */
#ifndef KT_LIMITS_H
#define KT_LIMITS_H

/* Levels of nesting: parentheses, unary operators, casts, ternaries, tuples, calls' and
 * keys' arguments, blocks and else-if chains as the parser descends, and the height of the
 * tree it builds (a chain of binary operators, a + b + c ..., is as deep as it is long). */
#define KT_MAX_NEST 128
/* Bytes of one string literal. */
#define KT_MAX_STRLIT 4096
/* Arguments of one printf(), system() or cat() (each a field of one record). */
#define KT_MAX_RECORD_ARGS 64
/* $variables of one probe (a probe's are looked up by a scan: bounded, it stays linear in
 * the script). */
#define KT_MAX_VARS 256
/* @maps of a script (each a BPF map the kernel creates, of BPFTRACE_MAP_KEYS_MAX entries). */
#define KT_MAX_MAPS 1024
/* Typing passes that learn maps' types before the one that reports errors: a map typed
 * only through a longer chain of maps (`@a = @b; @b = @c; ...` with the last assigned
 * last) is reported as not typed. Each pass is linear in the script. */
#define KT_MAX_PASSES 16
/* Macros (0.26's `macro NAME(...) { ... }`) expanded within macros' bodies, and the nodes
 * all expansions of a script may make (a macro calling another twice, and so on, doubles). */
#define KT_MAX_MACRO_DEPTH 16
#define KT_MAX_MACRO_NODES 1000000

#endif
