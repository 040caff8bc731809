/* lower_internal.h — what the lowering files above the floor share: each form file's table
 * and calls, and the recursion into lower.c (the types and the floor's calls are lower_ir.h's,
 * included here). The files stand in floors, and calls run down:
 *   top     lower.c: the form lookup over every table, kl_lw_lower (one form), kl_lw_lower_body,
 *           the entry points (kl_lower_prog, kl_lower_fun, kl_lower_shape)
 *   forms   lower_control.c, lower_arith.c, lower_builtin.c, lower_place.c, lower_map.c,
 *           lower_mem.c, lower_core.c, lower_queue.c, lower_event.c, lower_func.c,
 *           lower_loop.c, lower_switch.c, lower_args.c, lower_assigned.c: one subject each,
 *           each with its form table; a form file calls only files beside it that stand
 *           lower (place, builtin -> map -> mem; control -> switch; core, loop, event,
 *           queue -> map, mem)
 *   bottom  lower_ir.c (lower_ir.h): IR building, values, errors, scopes
 * The one call that goes back up is the recursion: a form lowers its arguments through
 * kl_lw_lower (and kl_lw_lower_body), the dispatcher in lower.c. */
#ifndef KL_LOWER_INTERNAL_H
#define KL_LOWER_INTERNAL_H
#include "lower_ir.h"

/* Each form file's table (lower.c walks them in a fixed order). */
extern const struct kl_lw_form kl_lw_control_forms[];  /* lower_control.c: if, cond, let... */
extern const size_t kl_lw_ncontrol_forms;
extern const struct kl_lw_form kl_lw_arith_forms[];    /* lower_arith.c: lognot, cast */
extern const size_t kl_lw_narith_forms;
extern const struct kl_lw_form kl_lw_builtin_forms[];  /* lower_builtin.c: memset, with-event... */
extern const size_t kl_lw_nbuiltin_forms;
extern const struct kl_lw_form kl_lw_place_forms[];    /* lower_place.c: setf, incf... */
extern const size_t kl_lw_nplace_forms;
extern const struct kl_lw_form kl_lw_mem_forms[];      /* lower_mem.c: load, store, ctx... */
extern const size_t kl_lw_nmem_forms;
extern const struct kl_lw_form kl_lw_map_forms[];      /* lower_map.c: getmap, map-update... */
extern const size_t kl_lw_nmap_forms;
/* lower_core.c's forms: kernel types and CO-RE. */
extern const struct kl_lw_form kl_lw_core_forms[];
extern const size_t kl_lw_ncore_forms;
/* lower_event.c's forms: clj-ebpf's stores into events. */
extern const struct kl_lw_form kl_lw_event_forms[];
extern const size_t kl_lw_nevent_forms;
/* lower_queue.c's forms: queue, stack and bloom-filter maps. */
extern const struct kl_lw_form kl_lw_queue_forms[];
extern const size_t kl_lw_nqueue_forms;
extern const struct kl_lw_form kl_lw_func_forms[];     /* lower_func.c */
extern const size_t kl_lw_nfunc_forms;
extern const struct kl_lw_form kl_lw_loop_forms[];     /* lower_loop.c: dotimes */
extern const size_t kl_lw_nloop_forms;
extern const struct kl_lw_form kl_lw_asm_forms[];      /* lower_asm.c: asm */
extern const size_t kl_lw_nasm_forms;
/* lower_ksym.c's forms: per-cpu-ptr, this-cpu-ptr on kernel symbols; and a symbol's address
 * read by name (the index kl_ksym_lookup gave). */
extern const struct kl_lw_form kl_lw_ksym_forms[];
extern const size_t kl_lw_nksym_forms;
struct kl_ksymdef;
struct val kl_lw_ksym_read(struct lw *l, struct kl_ksymdef *k, uint32_t index);
/* lower_args.c's forms: (arg N), (retval). */
extern const struct kl_lw_form kl_lw_args_forms[];
extern const size_t kl_lw_nargs_forms;
/* lower_args.c: at the start of a program, its typed arguments found (an error for a tp_btf
 * or fentry target the kernel lacks); -1 on error. */
int kl_lw_args_start(struct lw *l);
/* lower_args.c: symbol n as an argument of the program by name (and ret in fexit); 1 if it is
 * not one (nothing done), else 0 or -1. */
int kl_lw_arg_var(struct lw *l, struct kl_node *n, struct val *out);
/* lower_args.c: is name one of the program's arguments (by name, or ret)? */
bool kl_lw_is_arg(struct lw *l, const char *name);
/* lower_core.c: (STRUCT-FIELD p) and (as-STRUCT p) made by import-kernel-struct; 1 if h is
 * not one (nothing done), else 0 or -1. */
int kl_lw_kernel_accessor(struct lw *l, struct kl_node *n, struct val *out);

/* lower_assigned.c: add to set every variable forms assign (setf, setq, incf, decf of the bare
 * name), macro calls looked at through their expansions. */
void kl_lw_assigned(struct lw *l, struct kl_node **forms, uint32_t n, struct kl_names *set);

/* ---- lower.c, the top: the recursion every form file makes ---- */
int kl_lw_lower(struct lw *l, struct kl_node *n, struct val *out);
int kl_lw_lower_body(struct lw *l, struct kl_node **body, uint32_t n, struct val *out);

/* ---- the form files' calls ---- */
/* lower_control.c: a comparison (= < s>= ...) as a 0/1 value; 1 if n is not one. */
int kl_lw_cmp_op(struct lw *l, struct kl_node *n, struct val *out);
void kl_lw_cmp_names(struct kl_nearest *nb);
/* lower_arith.c: an arithmetic operator or a byte swap; 1 if n is neither. */
int kl_lw_arith_op(struct lw *l, struct kl_node *n, struct val *out);
void kl_lw_swap_names(struct kl_nearest *nb);
/* lower_switch.c: a cond of tests that compare one variable with constants (what case
 * makes) lowered as a switch, the default walked first by the verifier: 0 or -1; 1 if n is
 * not such a cond (nothing done). */
int kl_lw_switch(struct lw *l, struct kl_node *n, struct val *out);
/* A cond clause whose test always holds: t, else, :else. */
bool kl_lw_always_clause(const struct kl_node *cl);
/* A cond clause's value: its body's, or its test's when it has none ((cond (x)) yields x). */
int kl_lw_clause_value(struct lw *l, struct kl_node *cl, struct val *v);

/* lower_mem.c: memory and the context */
/* *(size *)(base + off) = v, as the struct accessors store. */
void kl_lw_store_at(struct lw *l, struct val base, int64_t off, uint32_t size, struct val v);
/* *(size *)(base + off) = v, base a register or (0) stack slot slot. */
/* (setf (-> PTR FIELD ...) v): a direct store through a trusted kernel pointer (lower_core.c). */
int kl_lw_arrow_store(struct lw *l, struct kl_node *n, struct val v);
void kl_lw_store_to(struct lw *l, kl_vreg base, uint32_t slot, int32_t off, uint32_t size, struct val v);
/* The value of type t at base + off. */
struct val kl_lw_load_at(struct lw *l, struct val base, int64_t off, const struct kl_type *t);
/* The base register of an access at base + *off (an offset past 16 bits added first). */
kl_vreg kl_lw_access_base(struct lw *l, struct val base, int64_t *off);
/* v in a new stack slot of size bytes: the slot. */
uint32_t kl_lw_spill_value(struct lw *l, struct val v, uint32_t size);
/* The address of stack slot s. */
kl_vreg kl_lw_slot_addr(struct lw *l, uint32_t s);
/* The type argument of load and store. */
int kl_lw_mem_type(struct lw *l, struct kl_node *n, struct kl_type **t);
/* POINTER [OFFSET] arguments as a base and a constant offset. */
int kl_lw_address(struct lw *l, struct kl_node *pn, struct kl_node *on, struct val *base, int64_t *off);
/* A zeroed stack buffer of size bytes, as a pointer. */
int kl_lw_stack_alloc(struct lw *l, struct kl_node *at, int64_t size, struct val *out);
/* (setf (ctx ...) v). */
int kl_lw_ctx_store(struct lw *l, struct kl_node *p, struct val v);
/* lower_mem.c: global variables. A read by name (an integer's value, else the address); a
 * store into a defvar (the stored value back in *v); (incf g delta). -1 with an error at at. */
struct val kl_lw_global_read(struct lw *l, struct kl_globaldef *g);
int kl_lw_global_store(struct lw *l, struct kl_globaldef *g, const struct kl_node *at, struct val *v);
int kl_lw_global_add(struct lw *l, struct kl_globaldef *g, const struct kl_node *at, struct val delta,
		     struct val *out);

/* lower_map.c: maps, helper calls and defun calls */
struct kl_mapdef *kl_lw_map_arg(struct lw *l, struct kl_node *n);
kl_vreg kl_lw_map_ref(struct lw *l, struct kl_mapdef *m);
/* A map value argument as a pointer: an integer stored at the map's value size, a pointer as
 * it is. *err on a lowering error. */
kl_vreg kl_lw_map_value_ptr(struct lw *l, struct kl_node *n, uint32_t size, bool *err);
/* map-update of key kn and value vn (or the value *vv already lowered), with flags. */
int kl_lw_map_update(struct lw *l, struct kl_mapdef *m, struct kl_node *kn, struct kl_node *vn,
		     struct val *vv, struct val flags, bool by_ptr, struct val *out);
/* incf/decf/atomic add on (getmap M K): add in place when present, insert when absent. */
int kl_lw_getmap_add(struct lw *l, struct kl_node *place_n, struct val delta, struct val *out);
int kl_lw_helper(struct lw *l, struct kl_node *n, const struct kl_helper *h, struct val *out);
int kl_lw_funcall(struct lw *l, struct kl_node *n, struct kl_fundef *fd, struct val *out);

/* lower_place.c: the accessors defstruct makes */
int kl_lw_field_ptr(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
int kl_lw_make_struct(struct lw *l, struct kl_node *n, struct kl_structdef *sd, struct val *out);
int kl_lw_accessor(struct lw *l, struct kl_node *n, const struct kl_accessor *acc, struct val *out);
#endif
