/* lexer.h — tokens of a bpftrace program with their line:col. Probe headers are read raw
 * (kt_lex_attach) because attach points are not expression tokens: paths, wildcards and
 * colons run together ("uprobe:/bin/bash:readline", "tracepoint:syscalls:sys_enter_*"). */
#ifndef KT_LEXER_H
#define KT_LEXER_H
#include "trace/ast.h"

enum {
	KT_TOK_EOF = 0,             /* 1..255: the character itself; 256..: KT_OP_* */
	KT_TOK_IDENT = 400, KT_TOK_INT, KT_TOK_STR, KT_TOK_MAP, KT_TOK_VAR, KT_TOK_PARAM,
	KT_TOK_ERROR,
};

struct kt_tok {
	int kind;
	struct kl_span span;
	uint32_t len;               /* characters in the source */
	const char *s;              /* IDENT/MAP/VAR name, STR's decoded bytes (arena) */
	uint32_t n;                 /* STR's length */
	int64_t num;                /* INT; PARAM's index (0 for $#) */
};

struct kt_lexer {
	const struct kl_source *src;
	struct kl_arena *a;
	struct kl_diag *d;
	size_t pos;
	uint32_t line, col;
	struct kt_cdefs *cdefs;         /* where the script's #define lines go (cdefine.h) */
};

void kt_lex_init(struct kt_lexer *lx, const struct kl_source *src, struct kl_arena *a, struct kl_diag *d);
/* The next token; KT_TOK_ERROR after recording an error in the diag. */
struct kt_tok kt_lex_next(struct kt_lexer *lx);
/* Skip blanks, comments and the lines and C definitions the top level may hold between
 * probes (#include, #define, #if..., `struct X { ... };`). 0 at the end of the input. */
int kt_lex_top(struct kt_lexer *lx);
/* One attach point as written, up to a blank, ',', '{' or a predicate's '/'. NULL (with an
 * error recorded) when there is none. */
const char *kt_lex_attach(struct kt_lexer *lx, struct kl_span *span);
/* The printable name of a token kind for messages: "'{'", "identifier", ... */
const char *kt_tok_name(int kind);

#endif
