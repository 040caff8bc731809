/* compile.c — the pipeline in one place: read, collect the top-level forms, expand the
 * macro calls in their bodies (expand_stage.c), lower each function to IR, optimize,
 * allocate registers, emit instructions, write the ELF object with BTF. */
#include "compile.h"
#include "elf.h"
#include "emit.h"
#include "forms.h"
#include "lower.h"
#include "regalloc.h"
#include "opt/inline.h"
#include "core.h"
#include "expand_stage.h"
#include "globals.h"
#include "ksyms.h"
#include "opt.h"
#include "prelude.h"
#include "struct_ops.h"
#include <errno.h>
#include <setjmp.h>
#include <string.h>

/* BPF has no recursion: find a cycle among defuns through their calls. */
static int check_recursion(struct kl_comp *c, uint32_t fi, uint32_t *stack, uint32_t depth)
{
	struct kl_fundef *fd = &c->funs.items[fi];
	if (fd->state == 2)
		return 0;
	if (fd->state == 1) {
		const char *via = depth > 1 ? c->funs.items[stack[depth - 1]].name : fd->name;
		return kl_error(c->d, fd->form->span, "function '%s' is recursive (through '%s'); BPF has no recursion",
				fd->name, via);
	}
	fd->state = 1;
	stack[depth] = fi;
	const struct kl_ir_func *f = c->ir.items[fi];
	for (uint32_t i = 0; i < f->nins; i++)
		if ((f->ins[i].op == IR_CALLF || f->ins[i].op == IR_LDFUNC) && (size_t)f->ins[i].imm < c->funs.len &&
		    check_recursion(c, (uint32_t)f->ins[i].imm, stack, depth + 1))
			return -1;
	fd->state = 2;
	return 0;
}

static uint32_t chain_stack(struct kl_comp *c, const uint32_t *frame, uint32_t *chain, uint32_t fi);

/* The stack of the deepest chain of functions f calls (0: none). */
static uint32_t callees_stack(struct kl_comp *c, const uint32_t *frame, uint32_t *chain, const struct kl_ir_func *f)
{
	uint32_t deepest = 0;
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_CALLF || f->ins[i].op == IR_LDFUNC) {   /* a callback runs below its caller too */
			uint32_t d = chain_stack(c, frame, chain, (uint32_t)f->ins[i].imm);
			if (d > deepest)
				deepest = d;
		}
	return deepest;
}

/* Stack of f and the deepest chain of functions it calls, each frame rounded up to 32
 * bytes as the kernel counts them. Remembered per function in chain (0: not yet), so that
 * functions called from many places are walked once. */
static uint32_t chain_stack(struct kl_comp *c, const uint32_t *frame, uint32_t *chain, uint32_t fi)
{
	if (chain[fi])
		return chain[fi];
	uint32_t deepest = callees_stack(c, frame, chain, c->ir.items[fi]);
	return chain[fi] = ((frame[fi] ? frame[fi] : 1) + 31) / 32 * 32 + deepest;
}

/* f's instructions and slots copied: the defun as the optimizer left it, to allocate again. */
static struct kl_ir_func *ir_copy(struct kl_arena *a, const struct kl_ir_func *f)
{
	struct kl_ir_func *g = kl_arena_new(a, struct kl_ir_func);
	*g = *f;
	g->ins_ext = NULL;   /* (f's own array stays f's) */
	g->cap = f->nins + 1;
	g->ins = kl_arena_array(a, struct kl_ir_ins, g->cap);
	memcpy(g->ins, f->ins, f->nins * sizeof(*f->ins));
	g->slotcap = f->nslots + 2;
	g->slots = kl_arena_array(a, struct kl_slot, g->slotcap);
	if (f->slots)
		memcpy(g->slots, f->slots, (f->nslots + 1) * sizeof(*f->slots));
	return g;
}

/* Whether f looks a map element up: what a second allocation with aligned keys can change. */
static bool looks_up(const struct kl_ir_func *f)
{
	for (uint32_t k = 0; k < f->nins; k++)
		if (f->ins[k].op == IR_CALL && f->ins[k].imm == BPF_FUNC_map_lookup_elem)
			return true;
	return false;
}

static bool tail_calls(const struct kl_comp *c)
{
	for (size_t i = 0; i < c->ir.len; i++)
		for (uint32_t k = 0; k < c->ir.items[i]->nins; k++)
			if (c->ir.items[i]->ins[k].op == IR_CALL && c->ir.items[i]->ins[k].imm == BPF_FUNC_tail_call)
				return true;
	return false;
}

/* Defuns allocated again, their array maps' constant keys in 8-aligned slots of their own
 * (regalloc.c's align_keys, up to DEFUN_KEY_ROOM bytes more each), where the verifier knows
 * them: the lookup is not null, and the test after it decided. A defun is walked at every
 * call, so that is a path less per call (call-in-expr's tick, 7 calls: 686 -> 587
 * processed). before[i]: defun i as the optimizer left it, NULL when it looks nothing up
 * (its allocation would be the same). Programs were allocated first against the defuns'
 * frames as they were; when a program's stack, or a tail call's 256 bytes, no longer fits
 * with the larger frames, every defun keeps its first allocation. */
#define DEFUN_KEY_ROOM 32
static void realign_defuns(struct kl_comp *c, struct kl_ir_func **before, struct kl_func *funcs, uint32_t *frame,
			   uint32_t *chain, uint32_t nfun, uint32_t nprog, const bool *known_elems)
{
	uint32_t nf = (uint32_t)c->ir.len;
	struct kl_func *was = kl_arena_array(c->a, struct kl_func, nfun);
	uint32_t *was_frame = kl_arena_array(c->a, uint32_t, nfun);
	bool fits = !tail_calls(c);
	for (uint32_t i = 0; i < nfun && fits; i++) {
		struct kl_ir_func *f = before[i];
		struct kl_alloc al;
		was[i] = funcs[i];
		was_frame[i] = frame[i];
		if (!f)
			continue;   /* no lookup: the same allocation again */
		f->known_elems = known_elems;
		f->nmaps = (uint32_t)c->maps.len;
		f->key_frame = frame[i] + DEFUN_KEY_ROOM <= 512 ? frame[i] + DEFUN_KEY_ROOM : 0;
		struct kl_func o = { 0 };
		if (!f->key_frame || kl_regalloc(c->a, c->d, f, &al) || kl_emit(c, f, &al, &o)) {
			nfun = i;   /* (no error: the first allocation of this one succeeded) */
			fits = false;
			break;
		}
		o.line = was[i].line, o.col = was[i].col, o.name = was[i].name, o.nargs = was[i].nargs;
		funcs[i] = o;
		frame[i] = al.frame;
	}
	memset(chain, 0, (nf + 1) * sizeof(*chain));
	for (uint32_t i = nfun; fits && i < nfun + nprog; i++)
		fits = chain_stack(c, frame, chain, i) <= 512;
	if (fits)
		return;
	for (uint32_t i = 0; i < nfun; i++)
		funcs[i] = was[i], frame[i] = was_frame[i];
	memset(chain, 0, (nf + 1) * sizeof(*chain));
}

/* The program's top-level forms when they are given as nodes (kl_compile_forms), not read. */
struct given {
	struct kl_node **forms;
	uint32_t nforms;
};

/* The prelude's macros and constants (as the program needs them), then the program's forms:
 * those given, or else read from c->src. */
static int front(struct kl_comp *c, const struct given *given)
{
	struct kl_node **forms = given ? given->forms : NULL;
	uint32_t nforms = given ? given->nforms : 0;
	if (kl_prelude_start(c) || (!given && kl_read(c->a, c->d, c->src, &forms, &nforms)) ||
	    kl_forms_collect(c, forms, nforms))
		return -1;
	return kl_add_drop_counters(c);
}

int kl_compile_front(struct kl_comp *c)
{
	return front(c, NULL);
}

/* lower: every defun (each checked for recursion once all are lowered), then every program,
 * then the bpf_loop callbacks lowering made, in c->ir in that order */
static int lower_all(struct kl_comp *c)
{
	for (size_t i = 0; i < c->funs.len; i++) {
		struct kl_ir_func *f = kl_lower_fun(c, &c->funs.items[i]);
		if (!f)
			return -1;
		kl_vec_push(c->a, &c->ir, f);
	}
	uint32_t *stack = kl_arena_array(c->a, uint32_t, c->funs.len + 1);
	for (size_t i = 0; i < c->funs.len; i++)
		if (check_recursion(c, (uint32_t)i, stack, 0))
			return -1;
	for (size_t i = 0; i < c->progs.len; i++) {
		struct kl_ir_func *f = kl_lower_prog(c, &c->progs.items[i]);
		if (!f)
			return -1;
		kl_vec_push(c->a, &c->ir, f);
	}
	for (size_t i = 0; i < c->loops.len; i++)   /* lower_loop.c's callbacks, after the programs */
		kl_vec_push(c->a, &c->ir, c->loops.items[i]);
	kl_warn_unused_maps(c);
	kl_core_finish(c);
	return 0;
}

/* What the back end keeps per function while it runs: the output functions, each one's frame
 * and the deepest chain of frames below it, and the defuns as they were before allocation
 * (realign_defuns allocates them again). */
struct back {
	struct kl_opt_config cfg;
	struct kl_func *funcs;
	uint32_t *frame, *chain;
	bool *known_elems;
	struct kl_ir_func **before;
	uint32_t nf, nfun, nprog;
};

/* optimize, allocate and emit function i of c->ir */
static int back_end_one(struct kl_comp *c, struct back *b, uint32_t i)
{
	struct kl_ir_func *f = c->ir.items[i];
	struct kl_func *o = &b->funcs[i];
	bool prog = i >= b->nfun && i < b->nfun + b->nprog;
	struct kl_alloc al;
	if (kl_opt(c->a, f, &b->cfg))
		return kl_error(c->d, f->span, "internal error: %s", b->cfg.why);
	if (c->opts.dump_ir)
		kl_ir_dump(f, stderr);
	if (i < b->nfun && looks_up(f))
		b->before[i] = ir_copy(c->a, f);
	if (prog) {   /* its callees' frames are known by now */
		uint32_t deepest = callees_stack(c, b->frame, b->chain, f);
		f->key_frame = deepest < 512 ? 512 - deepest : 0;
		/* a tail call from a function this one calls is refused when the frames
		 * before it exceed 256 bytes: keys stay within that where there are callees */
		if (deepest && f->key_frame > 256)
			f->key_frame = 256;
		f->known_elems = b->known_elems;
		f->nmaps = (uint32_t)c->maps.len;
	}
	if (kl_regalloc(c->a, c->d, f, &al) || kl_emit(c, f, &al, o))
		return -1;
	b->frame[i] = al.frame;
	o->line = f->span.line;
	o->col = f->span.col;
	o->name = kl_mangle(c->a, f->name);
	if (i < b->nfun) {
		o->nargs = c->funs.items[i].nparams;
	} else if (!prog) {
		o->nargs = 2;   /* a loop's callback: the index and the context */
	} else {
		const struct kl_progdef *p = &c->progs.items[i - b->nfun];
		o->section = p->section;
		o->ctx = p->pt->ctx;
	}
	return 0;
}

/* optimize -> allocate -> emit: inlining across functions first, then each function, defuns,
 * then the loops' callbacks (which may call defuns and the callbacks made before them), then
 * the programs: each after what it calls, whose frames it needs */
static int back_end(struct kl_comp *c, struct back *b)
{
	b->nf = (uint32_t)c->ir.len;
	b->nfun = (uint32_t)c->funs.len;
	b->nprog = (uint32_t)c->progs.len;
	b->cfg = (struct kl_opt_config){ c->opts.opt_level, c->opts.no_passes, c->opts.print_after, NULL,
					 c->opts.verify_ir, "" };
	if (kl_opt_pass_on(&b->cfg, "inline"))
		kl_inline(c->a, c->ir.items, b->nfun, b->nf);
	b->funcs = kl_arena_array(c->a, struct kl_func, b->nf + 1);
	b->frame = kl_arena_array(c->a, uint32_t, b->nf + 1);
	b->chain = kl_arena_array(c->a, uint32_t, b->nf + 1);
	b->known_elems = kl_arena_array(c->a, bool, c->maps.len + 1);
	for (size_t m = 0; m < c->maps.len; m++)
		b->known_elems[m] = c->maps.items[m].mt->array;
	b->before = kl_arena_array(c->a, struct kl_ir_func *, b->nfun + 1);
	uint32_t nf = b->nf, nfun = b->nfun, nprog = b->nprog;
	for (uint32_t at = 0; at < nf; at++) {
		uint32_t i = at < nfun ? at : at < nf - nprog ? at + nprog : at - (nf - nprog - nfun);
		if (back_end_one(c, b, i))
			return -1;
	}
	/* the kernel limits the stack of a program and all the functions it calls together */
	for (uint32_t i = nfun; i < nfun + nprog; i++) {
		uint32_t need = chain_stack(c, b->frame, b->chain, i);
		if (need > 512)
			return kl_error(c->d, c->ir.items[i]->span, "'%s' needs %u bytes of stack; BPF allows 512 (use a "
					"per-CPU array map as scratch space for large buffers)", c->ir.items[i]->name, need);
	}
	if (nfun)
		realign_defuns(c, b->before, b->funcs, b->frame, b->chain, nfun, nprog, b->known_elems);
	if (nfun && kl_opt_pass_on(&b->cfg, "globals")) {
		bool *global = kl_arena_array(c->a, bool, nfun + 1), *any_return = kl_arena_array(c->a, bool, nf + 1);
		for (uint32_t i = nfun; i < nfun + nprog; i++) {   /* XDP's devmap and cpumap sections check it */
			const struct kl_progdef *p = &c->progs.items[i - nfun];
			any_return[i] = p->pt->any_return && p->section && !strchr(p->section, '/');
		}
		kl_globals(c->a, c->ir.items, nf, nfun, any_return, global);
		for (uint32_t i = 0; i < nfun; i++)
			b->funcs[i].global = global[i];
	}
	return 0;
}

/* write: the object to out_fd or out_path (neither: compiled only). A writer's failure is
 * not the source's: its errno goes with the message. */
static int write_object(struct kl_comp *c, const char *out_path, struct kl_func *funcs, uint32_t nf)
{
	struct kl_obj obj = {
		.source_path = c->src->path,
		.source = c->src->text,
		.license = c->license,
		.funcs = funcs,
		.nfuncs = nf,
	};
	obj.nmaps = (uint32_t)c->maps.len;
	obj.maps = kl_arena_array(c->a, struct kl_map, obj.nmaps + 1);
	for (uint32_t i = 0; i < obj.nmaps; i++)
		obj.maps[i] = c->maps.items[i].m;
	obj.nglobals = (uint32_t)c->globals.len;
	obj.globals = kl_arena_array(c->a, struct kl_global, obj.nglobals + 1);
	for (uint32_t i = 0; i < obj.nglobals; i++)
		obj.globals[i] = c->globals.items[i].g;
	memcpy(obj.data_size, c->data_size, sizeof(obj.data_size));
	kl_ksyms_export(c, &obj);
	obj.nstructs = (uint32_t)c->structs.len;
	obj.structs = kl_arena_array(c->a, struct kl_type *, obj.nstructs + 1);
	for (uint32_t i = 0; i < obj.nstructs; i++)
		obj.structs[i] = c->structs.items[i].type;
	if (kl_struct_ops_obj(c, &obj, funcs, nf))
		return -1;
	char err[256] = "";
	if (c->opts.write_fd) {
		int r = kl_elf_write_fd(&obj, c->opts.out_fd, err, sizeof(err));
		if (r) {
			c->d->err = -r;
			return kl_error(c->d, (struct kl_span){ 0 }, "cannot write the object: %s", err);
		}
		return 0;
	}
	if (!out_path)
		return 0;
	int r = kl_elf_write(&obj, out_path, err, sizeof(err));
	if (r) {
		c->d->err = -r;
		/* the writer's message may already start with the path */
		size_t n = strlen(out_path);
		const char *why = !err[0] ? strerror(-r) : !strncmp(err, out_path, n) && !strncmp(err + n, ": ", 2)
			? err + n + 2 : err;
		return kl_error(c->d, (struct kl_span){ 0 }, "cannot write %s: %s", out_path, why);
	}
	return 0;
}

/* The pipeline, each stage once and in this order: read and collect (front), expand, lower,
 * optimize -> allocate -> emit (back_end), write. */
static int compile(struct kl_comp *c, const char *out_path, const struct given *given)
{
	if (front(c, given))
		return -1;
	if (!c->license)
		c->license = "GPL";
	if (!c->progs.len && !c->maps.len)
		return kl_error(c->d, (struct kl_span){ c->src, 1, 1 }, "no defprog or defmap in this file");
	struct back b = { 0 };
	if (kl_expand_program(c) || lower_all(c) || back_end(c, &b))
		return -1;
	return write_object(c, out_path, b.funcs, b.nf);
}

/* The recovery point for the arena running out of memory (see arena.h): everything the
 * passes allocated is in the arena, which the caller frees. */
static int run(struct kl_comp *c, const char *out_path, const struct given *given)
{
	jmp_buf oom;
	jmp_buf *outer = c->a->oom;
	if (setjmp(oom)) {
		c->a->oom = outer;
		c->d->err = ENOMEM;
		c->d->nerrors = 0;
		return kl_error(c->d, (struct kl_span){ 0 }, "out of memory");
	}
	c->a->oom = &oom;
	int r = compile(c, out_path, given);
	c->a->oom = outer;
	return r;
}

int kl_compile(struct kl_comp *c, const char *out_path)
{
	return run(c, out_path, NULL);
}

int kl_compile_forms(struct kl_comp *c, struct kl_node **forms, uint32_t nforms, const char *out_path)
{
	return run(c, out_path, &(struct given){ forms, nforms });
}
