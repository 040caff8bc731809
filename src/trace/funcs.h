/* funcs.h — bpftrace's functions as a table: one row per name says how sema types a call
 * and how gen writes it (as a statement, an integer, a string, a record layout). The rows
 * live with their code in fn_*.c, one table per file, gathered by funcs.c; a name whose
 * row has no check is parsed and refused as not supported yet. Aggregations (count, hist..)
 * are not here: they write maps, and sema's assign_map types them. */
#ifndef KT_FUNCS_H
#define KT_FUNCS_H
#include "trace/sema_priv.h"
#include "trace/gen_priv.h"

struct kt_fn {
	const char *name;
	/* Types call n (n->type) or rewrites it (kaddr becomes an integer). Its arguments are
	 * typed before, except maps and unless own_args. NULL: not supported yet. */
	int (*check)(struct sm *m, struct kt_node *n);
	bool own_args;
	void (*stmt)(struct g *g, const struct kt_node *n);     /* NULL: as an integer, dropped */
	void (*value)(struct g *g, const struct kt_node *n);    /* as an integer */
	void (*str)(struct g *g, const struct kt_node *n, const char *dest, uint32_t size);
	void (*site)(struct g *g, const struct kt_node *n);     /* pushes the call's record layout */
};

struct kt_fn_table {
	const struct kt_fn *fns;
	size_t n;
};

/* One table per file of functions. */
extern const struct kt_fn_table kt_fns_core;     /* fn_core.c: printf print clear zero delete exit time join str ksym kaddr kstack ustack */
extern const struct kt_fn_table kt_fns_user;     /* fn_user.c: usym uaddr strftime cat system signal reg override cgroup_path */

/* Shared by the files (fn_core.c): records laid out as printf's, of arguments first.. */
/* Checks that n's arguments from first on can go in a record (integers, strings, ...). */
int kt_check_record_args(struct sm *m, struct kt_node *n, uint32_t first);
/* printf(FMT, ...)'s check: a literal format and as many arguments as it converts. */
int kt_check_format(struct sm *m, struct kt_node *n);
/* Pushes the record layout of n's arguments from first on, as a site of kind with fmt. */
void kt_push_record_site(struct g *g, const struct kt_node *n, uint32_t first, enum kt_ev kind, const char *fmt);
/* Writes the record of the next site: its id, then n's arguments from first on. */
void kt_gen_record(struct g *g, const struct kt_node *n, uint32_t first);

extern const struct kt_fn_table kt_fns_v017;    /* fn_v017.c: uptr kptr strerror */
extern const struct kt_fn_table kt_fns_watch;    /* fn_watch.c: unwatch */
extern const struct kt_fn_table kt_fns_net;      /* fn_net.c: ntop pton macaddr buf bswap strncmp strcontains cgroupid sizeof offsetof */

/* buf() == buf() (or !=), n a KT_BINOP: the same length and bytes. */
void kt_buf_compare(struct g *g, const struct kt_node *n);

extern const struct kt_fn_table kt_fns_names;     /* fn_names.c: syscall_name signal_name */
extern const struct kt_fn_table kt_fns_v026;     /* fn_v026.c: has_key len getopt ppid ncpus */
/* ppid and ncpus without parentheses (sema's ident()): 0 typed, -1 an error, 1 not theirs. */
int kt_fn_ident(struct sm *m, struct kt_node *n);
/* f(@m, key) (delete, has_key): the key moved into the map node, as f(@m[key]), and typed. */
int kt_map_key_arg(struct sm *m, struct kt_node *n);
/* Where bpftrace 0.26's meaning differs from 0.17's (m->s->dialect): a builtin's type (ident()
 * after typing it) and a binary operator's result (binop(), after pointer arithmetic). */
void kt_dialect_builtin(const struct sm *m, struct kt_node *n);
void kt_dialect_binop(struct sm *m, struct kt_node *n);
/* $N's text that is no number (sema's posparam): 0 when n became it as a string (0.26), 1 not. */
int kt_dialect_posparam(const struct sm *m, struct kt_node *n, const char *text);
/* The defuns the functions of fn_v026.c call (sema sets their bits in kt_sema.defuns): len's
 * empty callback, syscall_name's and signal_name's tables; kt_fn_defuns writes them (gen_prog.c). */
enum { KT_DEFUN_LEN = 1, KT_DEFUN_SYSCALL = 2, KT_DEFUN_SIGNAL = 4 };
void kt_fn_defuns(struct g *g);

/* The row for name, or NULL when bpftrace has no such function. */
const struct kt_fn *kt_fn_find(const char *name);
/* Every table, the pending one last (for tests: no name twice, none both done and pending). */
size_t kt_fn_tables(const struct kt_fn_table *const **out);
#endif
