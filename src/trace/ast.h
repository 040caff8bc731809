/* ast.h — the tree kiln trace's parser builds from a bpftrace program: probes with their
 * attach points, predicate and block; statements and expressions as one node type whose
 * kind says which children mean what. Every node keeps its line:col in the .bt text, so
 * sema and gen report errors where the user wrote the construct. */
#ifndef KT_AST_H
#define KT_AST_H
#include <stdbool.h>
#include <stdint.h>
#include "compiler/arena.h"
#include "compiler/diag.h"

enum kt_kind {
	/* expressions */
	KT_INT, KT_STR, KT_BUILTIN, KT_VAR, KT_MAP, KT_POSPARAM, KT_CALL, KT_BINOP, KT_UNOP,
	KT_TERNARY, KT_CAST, KT_TUPLE, KT_FIELD, KT_ARROW, KT_INDEX, KT_INCDEC, KT_SIZEOF,
	KT_OFFSETOF, KT_IDENT,
	/* statements */
	KT_EXPRSTMT, KT_ASSIGN, KT_IF, KT_UNROLL, KT_WHILE, KT_BREAK, KT_CONTINUE, KT_RETURN,
	KT_BLOCK,
	/* 0.26's statements: `let $x;` (a: the variable; `let $x = e` is an ASSIGN with is_let) */
	KT_LET,
	/* for ($i : START..END) BODY: a the variable, b BODY, kids START and END; for ($kv : @m)
	 * BODY: c the map */
	KT_FOR,
};

/* Value types, as sema gives them. */
/* KTT_KSTACK/KTT_USTACK: a stack id (ustack: the pid above it) in 8 bytes, printed as its
 * symbolized frames; their size is the most frames printed. */
/* KTT_STRUCT: a kernel struct embedded in another (tname), only the base of `.field`. */
enum kt_tkind { KTT_NONE, KTT_INT, KTT_STR, KTT_TUPLE, KTT_PROBE, KTT_PTR, KTT_KSTACK, KTT_USTACK, KTT_STRUCT,
	KTT_KSYM,     /* KTT_KSYM: a kernel address, printed as its function's name (ksym()) */
	/* bytes written where they go, as strings are (kt_is_bytes), each printed its own way:
	 * KTT_INET (ntop()): a u64 address family then 16 address bytes (size 24);
	 * KTT_BUF (buf()): a u64 length then the bytes (size 8 + the most bytes, rounded to 8);
	 * KTT_MAC (macaddr()): 6 bytes (size 8); KTT_BYTES (pton()): nelems bytes in size
	 * (rounded to 8), printed as bpftrace prints an array, [1,2,3,4] */
	KTT_INET, KTT_BUF, KTT_MAC, KTT_BYTES,
	/* fn_user.c's: */
	KTT_USYM,     /* usym(): 16 bytes, a user address and its pid, printed as the function's name */
	KTT_TIMESTAMP,/* strftime(): nanoseconds since boot in 8 bytes, printed with the type's fmt */
	KTT_USERNAME, /* username: a uid in 8 bytes, printed as its name */
	KTT_CGROUP_PATH, /* cgroup_path(): a cgroup id in 8 bytes, printed as its paths (fmt: the filter) */
	KTT_STRERROR, /* strerror(): an errno value in 8 bytes, printed as its message */
};
struct kt_type {
	enum kt_tkind kind;
	uint32_t size;              /* bytes: 1, 2, 4, 8 for ints; the buffer for strings */
	bool is_signed;
	uint32_t nelems;            /* tuples */
	struct kt_type *elems;
	const char *tname;          /* an integer that points at this kernel struct (curtask, ->) */
	bool user;                  /* ... in user memory (a syscall tracepoint's argument) */
	bool perf;                  /* a stack printed in perf's mode (kstack(perf)) */
	struct kt_type *pointee;    /* an integer that points at an integer of this type (*p, p[i]) */
	const char *fmt;            /* KTT_TIMESTAMP: strftime's format; KTT_CGROUP_PATH: the filter */
};

struct kt_node {
	enum kt_kind kind;
	struct kl_span span;        /* where it starts */
	uint32_t len;               /* characters it spans on its line (for carets), 0: one */
	int op;                     /* operator token for BINOP, UNOP, INCDEC (prefix: op < 0), ASSIGN */
	const char *name;           /* builtin, variable, map (without @), call, field, cast type */
	int64_t num;                /* INT, POSPARAM index */
	const char *str;            /* STR's bytes (escapes decoded) */
	uint32_t strlen;
	struct kt_node *a, *b, *c;  /* children: binop a b; ternary/if a b c; map key a; cast a */
	struct kt_node **kids;      /* call arguments, tuple elements, block statements */
	uint32_t nkids;
	bool is_ptr_cast;           /* (type *) */
	uint8_t ptr_stars;          /* (type **): 2, the levels of pointer */
	bool is_let;                /* ASSIGN: `let $x = e`, a declaration in the block's scope */
	struct kt_type type;        /* sema */
	int map_id;                 /* sema: index into the program's maps, -1 none */
	int var_id;                 /* sema: $variable slot */
};

/* A new node of kind at `at` from the arena, all else zero and no map or variable (-1). */
static inline struct kt_node *kt_node_new(struct kl_arena *a, enum kt_kind kind, struct kl_span at)
{
	struct kt_node *n = kl_arena_new(a, struct kt_node);
	n->kind = kind;
	n->span = at;
	n->map_id = n->var_id = -1;
	return n;
}

struct kt_attach {
	struct kl_span span;
	const char *text;           /* as written: "tracepoint:syscalls:sys_enter_*" */
	const char *provider;       /* normalized: "tracepoint", "BEGIN", "interval", ... */
	const char *target, *func;  /* the rest, split at ':' (NULL when absent) */
	const char *extra;
};

struct kt_probe {
	struct kl_span span;
	struct kt_attach *attach;
	uint32_t nattach;
	struct kt_node *pred;       /* NULL: none */
	struct kt_node *block;      /* KT_BLOCK */
};

struct kt_cdefs;

/* 0.26's top-level items: `config = { KEY = VALUE; ... }` and `let @m = lruhash(N);`. */
struct kt_config {
	struct kl_span span;        /* the key */
	const char *key, *value;    /* as written (an integer in decimal) */
};
struct kt_mapdecl {
	struct kl_span span;
	const char *name;           /* without '@' */
	const char *type;           /* hash, lruhash, percpuhash, percpulruhash */
	int64_t max;
};

struct kt_program {
	struct kt_probe *probes;
	uint32_t nprobes;
	struct kt_cdefs *cdefs;         /* the script's #defines (cdefine.h): the caller's, set
					 * before kt_parse, whose lexer fills it; sema reads it */
	struct kt_config *config;
	uint32_t nconfig;
	struct kt_mapdecl *mapdecls;
	uint32_t nmapdecls;
};

/* Operator tokens beyond single characters, shared by lexer, parser and gen. */
enum {
	KT_OP_EQ = 256, KT_OP_NE, KT_OP_LE, KT_OP_GE, KT_OP_AND, KT_OP_OR, KT_OP_SHL, KT_OP_SHR,
	KT_OP_INC, KT_OP_DEC, KT_OP_ARROW, KT_OP_ADDEQ, KT_OP_SUBEQ, KT_OP_MULEQ, KT_OP_DIVEQ,
	KT_OP_MODEQ, KT_OP_ANDEQ, KT_OP_OREQ, KT_OP_XOREQ, KT_OP_SHLEQ, KT_OP_SHREQ,
	KT_OP_RANGE,                /* `..` of a for's range (0.26) */
};

#endif
