/* gen_names.h — the names `kiln gen` writes, made safe: an object's names (ELF symbols,
 * sections, BTF types and members) are data from whoever built it, so every generator writes
 * them only through this module — as identifiers that are not a keyword or a built-in name of
 * the target language and are unique in their scope, as properly escaped string literals, or
 * reduced to a harmless character set in comments. */
#ifndef KL_CLI_GEN_NAMES_H
#define KL_CLI_GEN_NAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum gen_target { GEN_C, GEN_PY, GEN_RUST, GEN_GO, GEN_LISP, GEN_NLANGS };

/* Where a name is declared, which decides the words it must not be: a type (or C's
 * typedefs and enumerators), a member of a struct, or the unit (the skeleton's or Go
 * package's name). Go's types and members are written exported (CamelCase); Lisp's in
 * lower case with each _ after the first character a - (the reader folds case). */
enum gen_space { GEN_TYPE, GEN_MEMBER, GEN_UNIT };

/* The identifier for each raw[i] (NULL: none wanted, names[i] stays NULL) into names[i]
 * (malloc'd): raw reduced to letters, digits and _ (a leading digit gets a _ first; at most
 * GEN_NAME_MAX characters), then made unique in the scope and not reserved in lang: first
 * the names already clean claim themselves in order, then the others in order; a name
 * reserved or taken gets _ appended, then _2, _3, ... instead of it. Entries with equal
 * keys[i] (keys may be NULL: none do) share one name. Each name written other than raw is
 * said on stderr as "kiln gen: warning: WHAT 'RAW' written as NAME" (RAW escaped; what
 * NULL: nothing said). 0 or -ENOMEM (names freed). */
#define GEN_NAME_MAX 100
int gen_names_assign(enum gen_target lang, enum gen_space space, const char *what, const char *const *raw,
		     const char *const *keys, size_t n, char **names);
/* Every struct's and union's name in lang, by type id (anon_ID for the anonymous ones),
 * unique and not reserved: NULL or btf__type_cnt(btf) names, for gen_names_free. */
struct btf;
char **gen_type_names(const struct btf *btf, enum gen_target lang);
void gen_names_free(char **names, size_t n);

/* NAME made an identifier into dst: every character not an ASCII letter, digit or _
 * becomes _, a leading digit gets a _ before it ("" stays ""). No reserved-word check. */
void gen_ident(char *dst, size_t n, const char *name);
/* raw for a comment or a message: ASCII letters, digits, space and _.-/:+,@= as
 * themselves, every other byte _ (so no comment end, line break or escape gets through). */
void gen_comment_text(char *dst, size_t n, const char *raw);
/* raw for a warning: printable ASCII as itself (\ and ' escaped), other bytes as \xNN. */
void gen_escape(char *dst, size_t n, const char *raw);
/* raw as a C string literal ("..." with \", \\ and \ooo escapes) */
void gen_c_string(FILE *out, const char *raw);
/* raw as a Python str literal: valid UTF-8 as its code points, any other byte b as the
 * lone surrogate U+DC00+b (what os.fsdecode() gives for it) */
void gen_py_string(FILE *out, const char *raw);
/* raw as a Lisp string literal: \" and \\ escaped, every other byte as itself */
void gen_lisp_string(FILE *out, const char *raw);

#endif
