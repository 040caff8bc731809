/* lower_asm.c — the asm form: raw BPF instructions inside a program or defun.
 *
 *   (asm ((REG EXPR)...) [:out REG] ITEM...)
 *
 * binds each EXPR's value to register REG on entry (r0-r9, at most five), runs the items
 * (an ITEM is an instruction (MNEMONIC OPERAND...) from asm_ops.c's table, or a label, a
 * keyword or symbol, that jumps name) and is the value of the :out register after them (0
 * without one). Whistler's spelling (asm OPCODE DST SRC OFF IMM), one encoded instruction,
 * is read too. Every instruction is checked here (operands, ranges, labels, r10, paths), so
 * what reaches the emitter is exactly what was written: one IR_ASM instruction (asm_block.h)
 * that the passes leave alone and the allocator reads for the registers the block names. */
#include "lower_internal.h"
#include "asm.h"
#include "asm_block.h"
#include "asm_ops.h"
#include "nearest.h"
#include <stdio.h>
#include <string.h>

enum { MAX_INSNS = 4096, MAX_IN = 5 };

struct label_def { const char *name; uint32_t at; };
struct fixup { uint32_t insn; const struct kl_node *label; };

struct as {
	struct lw *l;
	KL_VEC(struct bpf_insn) insns;
	KL_VEC(struct kl_span) spans;
	KL_VEC(struct label_def) labels;
	KL_VEC(struct fixup) fixups;
	uint16_t writes;
	bool calls;
};

/* an error at node n */
#define ERR(s, n, ...) kl_error((s)->l->c->d, (n)->span, __VA_ARGS__)

/* r0..r10 as a number, or -1 */
static int reg_of(const struct kl_node *n)
{
	if (n->kind != KL_N_SYM || n->str[0] != 'r' || !n->str[1])
		return -1;
	int r = 0;
	for (const char *p = n->str + 1; *p; p++) {
		if (*p < '0' || *p > '9' || (p == n->str + 1 && *p == '0' && p[1]) || r > 10)
			return -1;
		r = r * 10 + (*p - '0');
	}
	return r <= 10 ? r : -1;
}

/* An integer operand: a number or a constant's name. */
static bool int_of(struct lw *l, const struct kl_node *n, int64_t *v)
{
	if (n->kind == KL_N_INT) {
		*v = n->ival;
		return true;
	}
	return n->kind == KL_N_SYM && reg_of(n) < 0 && kl_const_lookup(l->c, n->str, v);
}

static bool is_label(const struct kl_node *n)
{
	return (n->kind == KL_N_KEY || n->kind == KL_N_SYM) && reg_of(n) < 0;
}

static const char *const kinds[128] = {
	['d'] = "a register r0-r9", ['r'] = "a register", ['D'] = "a register", ['s'] = "a register",
	['R'] = "a register or an immediate", ['o'] = "an offset", ['i'] = "an immediate",
	['I'] = "an immediate", ['L'] = "a label", ['H'] = "a helper's name or number",
};

static int wrong_kind(struct as *s, const struct kl_asm_op *op, uint32_t k, const struct kl_node *n)
{
	char got[96];
	kl_node_str(n, got, sizeof(got));
	return ERR(s, n, "operand %u of '%s' must be %s, not %s", k + 1, op->name, kinds[(int)op->shape[k]], got);
}

static int out_of_range(struct as *s, const struct kl_node *n, const char *what, int64_t lo, int64_t hi)
{
	return ERR(s, n, "%s out of range: it must be in %lld..%lld", what, (long long)lo, (long long)hi);
}

static int helper_id(struct as *s, const struct kl_node *n, int32_t *id)
{
	int64_t v;
	if (int_of(s->l, n, &v)) {
		if (v < 0 || v > INT32_MAX)
			return out_of_range(s, n, "helper number", 0, INT32_MAX);
		*id = (int32_t)v;
		return 0;
	}
	if (n->kind != KL_N_SYM)
		return 1;
	char name[96];
	const char *h = !strncmp(n->str, "bpf_", 4) || !strncmp(n->str, "bpf-", 4) ? n->str + 4 : n->str;
	snprintf(name, sizeof(name), "%s", h);
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	const struct kl_helper *hp = kl_helper_find(name);
	if (!hp) {
		struct kl_nearest nb;
		char hint[200];
		kl_nearest_init(&nb, name);
		kl_helper_names_near(&nb);
		kl_nearest_hint(&nb, hint, sizeof(hint));
		return ERR(s, n, "unknown helper '%s' in asm%s%s", kl_name(n), hint[0] ? "; " : "", hint);
	}
	*id = (int32_t)hp->id;
	return 0;
}

/* An immediate of a register-or-immediate operand, by the operation's width; shifts and
 * divisions by a constant checked as the verifier would. */
static int alu_imm(struct as *s, const struct kl_asm_op *op, const struct kl_node *n, int64_t v, int32_t *imm)
{
	int64_t hi = op->width == 32 ? UINT32_MAX : INT32_MAX;
	if (v < INT32_MIN || v > hi)
		return out_of_range(s, n, "immediate", INT32_MIN, hi);
	uint8_t o = BPF_OP(op->code), cls = BPF_CLASS(op->code);
	bool alu = cls == BPF_ALU || cls == BPF_ALU64;
	if (alu && (o == BPF_LSH || o == BPF_RSH || o == BPF_ARSH) && (v < 0 || v >= op->width))
		return out_of_range(s, n, "shift count", 0, op->width - 1);
	if (alu && (o == BPF_DIV || o == BPF_MOD) && v == 0)
		return ERR(s, n, "%s by the constant 0 in '%s' (the kernel refuses it)",
			   o == BPF_DIV ? "division" : "modulo", op->name);
	*imm = (int32_t)(uint32_t)(uint64_t)v;
	return 0;
}

/* Operand k (letter c) of instruction x into i (and its second slot hi). */
static int operand(struct as *s, const struct kl_asm_op *op, uint32_t k, const struct kl_node *n,
		   struct bpf_insn *i, struct bpf_insn *hi)
{
	char c = op->shape[k];
	int r = reg_of(n);
	int64_t v = 0;
	bool num = c != 'L' && c != 'H' && int_of(s->l, n, &v);
	switch (c) {
	case 'd': case 'r': case 'D': case 's':
		if (r < 0)
			return wrong_kind(s, op, k, n);
		if (c == 'd' && r == KL_FP)
			return ERR(s, n, "'%s' writes r10, the read-only frame pointer", op->name);
		if (c == 'd')
			s->writes |= (uint16_t)(1u << r);
		if (c == 's')
			i->src_reg = (uint8_t)r;
		else
			i->dst_reg = (uint8_t)r;
		return 0;
	case 'R':
		if (r >= 0) {
			i->code |= BPF_X;
			i->src_reg = (uint8_t)r;
			return 0;
		}
		return num ? alu_imm(s, op, n, v, &i->imm) : wrong_kind(s, op, k, n);
	case 'o':
		if (!num)
			return wrong_kind(s, op, k, n);
		if (v < INT16_MIN || v > INT16_MAX)
			return out_of_range(s, n, "offset", INT16_MIN, INT16_MAX);
		i->off = (int16_t)v;
		return 0;
	case 'i':
		if (!num)
			return wrong_kind(s, op, k, n);
		if (v < INT32_MIN || v > INT32_MAX)
			return out_of_range(s, n, "immediate", INT32_MIN, INT32_MAX);
		i->imm = (int32_t)v;
		return 0;
	case 'I':
		if (!num)
			return wrong_kind(s, op, k, n);
		i->imm = (int32_t)(uint32_t)(uint64_t)v;
		hi->imm = (int32_t)(uint32_t)((uint64_t)v >> 32);
		return 0;
	case 'L':
		if (!is_label(n))
			return wrong_kind(s, op, k, n);
		kl_vec_push(s->l->c->a, &s->fixups, ((struct fixup){ (uint32_t)s->insns.len, n }));
		return 0;
	default:   /* 'H' */
		s->calls = true;
		r = helper_id(s, n, &i->imm);
		return r > 0 ? wrong_kind(s, op, k, n) : r;
	}
}

static void push(struct as *s, struct bpf_insn i, struct kl_span span)
{
	kl_vec_push(s->l->c->a, &s->insns, i);
	kl_vec_push(s->l->c->a, &s->spans, span);
}

/* One instruction (MNEMONIC OPERAND...). */
static int instruction(struct as *s, const struct kl_node *x)
{
	const char *h = kl_head(x);
	if (!h) {
		char buf[96];
		kl_node_str(x, buf, sizeof(buf));
		return ERR(s, x, "expected an instruction (MNEMONIC OPERAND...) or a label in asm, not %s", buf);
	}
	const struct kl_asm_op *op = kl_asm_op_find(h);
	if (!op) {
		struct kl_nearest nb;
		char hint[200];
		kl_nearest_init(&nb, h);
		kl_asm_op_names(&nb);
		kl_nearest_hint(&nb, hint, sizeof(hint));
		return kl_error(s->l->c->d, x->items[0]->span, "unknown instruction '%s' in asm%s%s", kl_name(x->items[0]),
				hint[0] ? "; " : "", hint);
	}
	uint32_t want = (uint32_t)strlen(op->shape);
	if (x->nitems - 1 != want) {
		char buf[96];
		kl_node_str(x, buf, sizeof(buf));
		return kl_error(s->l->c->d, x->span, "'%s' takes %u operand%s: %s", op->name, want, want == 1 ? "" : "s", buf);
	}
	struct bpf_insn i = kl_insn(op->code, 0, 0, 0, op->fixed ? op->imm : 0), hi = kl_insn(0, 0, 0, 0, 0);
	for (uint32_t k = 0; k < want; k++)
		if (operand(s, op, k, x->items[k + 1], &i, &hi))
			return -1;
	if (s->insns.len + 2 > MAX_INSNS)
		return kl_error(s->l->c->d, x->span, "an asm block takes at most %d instructions", MAX_INSNS);
	push(s, i, x->span);
	if (op->shape[0] == 'd' && op->shape[1] == 'I')   /* ld_imm64's second slot */
		push(s, hi, x->span);
	return 0;
}

static int define_label(struct as *s, const struct kl_node *n)
{
	if (n->kind == KL_N_SYM && kl_asm_op_find(n->str))
		return ERR(s, n, "'%s' alone is a label; the instruction is written (%s), a label so named :%s",
			   kl_name(n), kl_name(n), kl_name(n));
	for (size_t k = 0; k < s->labels.len; k++)
		if (!strcmp(s->labels.items[k].name, n->str))
			return ERR(s, n, "label '%s%s' is defined twice in this asm", n->kind == KL_N_KEY ? ":" : "", kl_name(n));
	kl_vec_push(s->l->c->a, &s->labels, ((struct label_def){ n->str, (uint32_t)s->insns.len }));
	return 0;
}

/* Each jump's offset from its label. */
static int resolve(struct as *s)
{
	for (size_t k = 0; k < s->fixups.len; k++) {
		const struct fixup *fx = &s->fixups.items[k];
		const struct label_def *d = NULL;
		for (size_t j = 0; j < s->labels.len && !d; j++)
			if (!strcmp(s->labels.items[j].name, fx->label->str))
				d = &s->labels.items[j];
		if (!d)
			return ERR(s, fx->label, "label '%s%s' is not defined in this asm (a jump may not leave it)",
				   fx->label->kind == KL_N_KEY ? ":" : "", kl_name(fx->label));
		s->insns.items[fx->insn].off = (int16_t)((int64_t)d->at - (int64_t)fx->insn - 1);
	}
	return 0;
}

static bool is_ld64(const struct bpf_insn *i) { return i->code == (BPF_LD | BPF_IMM | BPF_DW); }

/* Every instruction reached from the first, and the end reached: the kernel refuses code no
 * path reaches, and the code after the block must be entered from it. */
static int paths(struct as *s, const struct kl_node *form)
{
	uint32_t n = (uint32_t)s->insns.len, nwork = 0;
	bool *seen = kl_arena_array(s->l->c->a, bool, n + 1);
	uint32_t *work = kl_arena_array(s->l->c->a, uint32_t, n + 2);
	seen[0] = true;
	work[nwork++] = 0;
	while (nwork) {
		uint32_t p = work[--nwork];
		if (p == n)
			continue;
		const struct bpf_insn *i = &s->insns.items[p];
		uint8_t cls = BPF_CLASS(i->code), o = BPF_OP(i->code);
		bool jmp = (cls == BPF_JMP || cls == BPF_JMP32) && o != BPF_CALL;
		uint32_t next[2], nn = 0;
		if (!jmp || (o != BPF_JA && o != BPF_EXIT))
			next[nn++] = p + (is_ld64(i) ? 2 : 1);
		if (jmp && o != BPF_EXIT)
			next[nn++] = (uint32_t)((int64_t)p + 1 + i->off);
		for (uint32_t k = 0; k < nn; k++)
			if (next[k] <= n && !seen[next[k]])
				seen[next[k]] = true, work[nwork++] = next[k];
	}
	for (uint32_t p = 0; p < n; p += is_ld64(&s->insns.items[p]) ? 2 : 1)
		if (!seen[p])
			return kl_error(s->l->c->d, s->spans.items[p], "no path reaches this instruction of the asm "
					"(the kernel refuses unreachable code)");
	if (!seen[n])
		return kl_error(s->l->c->d, form->span, "no path leaves this asm at its end (each ends in exit or "
				"loops); the code after it would be unreachable");
	return 0;
}

/* The block, its registers and the IR_ASM instruction; *out its value. */
static void finish(struct as *s, const kl_vreg *in, const uint8_t *in_reg, uint32_t nin, int out_reg, struct val *out)
{
	struct kl_asm_block *b = kl_arena_new(s->l->c->a, struct kl_asm_block);
	b->insns = s->insns.items;
	b->spans = s->spans.items;
	b->ninsns = (uint32_t)s->insns.len;
	b->nin = (uint8_t)nin;
	b->out_reg = (int8_t)out_reg;
	uint16_t inmask = 0;
	for (uint32_t k = 0; k < nin; k++) {
		b->in_reg[k] = in_reg[k];
		inmask |= (uint16_t)(1u << in_reg[k]);
	}
	uint16_t cl = s->writes | inmask | (s->calls ? 0x3f : 0) | (out_reg >= 0 ? 1u << out_reg : 0);
	/* one register besides the inputs, through which emit.c breaks a cycle of moves into them */
	for (int r = 0; r < 10 && nin > 1 && !(cl & ~inmask); r++)
		if (!(inmask >> r & 1))
			cl |= (uint16_t)(1u << r);
	b->clobbers = cl;
	struct kl_ir_ins *i = emit(s->l, IR_ASM);
	i->asmb = b;
	i->nargs = (uint8_t)nin;
	for (uint32_t k = 0; k < nin; k++)
		i->args[k] = in[k];
	i->d = out_reg >= 0 ? vreg(s->l) : 0;
	*out = i->d ? rval(i->d) : cval(0);
}

/* The bindings ((REG EXPR)...): each EXPR lowered (a map's name: the map), in order. */
static int inputs(struct as *s, const struct kl_node *bs, kl_vreg *in, uint8_t *in_reg, uint32_t *nin)
{
	struct lw *l = s->l;
	if (kl_is_sym(bs, "nil"))
		return 0;
	if (bs->kind != KL_N_LIST)
		return ERR(s, bs, "asm's first argument must be its inputs, ((REG EXPR)...), or ()");
	if (bs->nitems > MAX_IN)
		return kl_error(l->c->d, bs->items[MAX_IN]->span, "asm takes at most %d inputs", MAX_IN);
	for (uint32_t k = 0; k < bs->nitems; k++) {
		const struct kl_node *b = bs->items[k];
		int r = b->kind == KL_N_LIST && b->nitems == 2 ? reg_of(b->items[0]) : -2;
		if (r == -2)
			return ERR(s, b, "an asm input is (REG EXPR), as (r1 x)");
		if (r < 0 || r == KL_FP)
			return ERR(s, b->items[0], "an asm input goes into a register r0-r9, not %s", kl_name(b->items[0]));
		for (uint32_t j = 0; j < k; j++)
			if (in_reg[j] == r)
				return ERR(s, b->items[0], "register %s is bound twice in this asm", kl_name(b->items[0]));
		struct kl_node *e = b->items[1];
		struct kl_mapdef *m = e->kind == KL_N_SYM && !kl_lw_find_var(l, e->str) ? kl_map_lookup(l->c, e->str) : NULL;
		struct val v;
		if (m)
			v = rval(kl_lw_map_ref(l, m));
		else if (kl_lw_lower(l, e, &v))
			return -1;
		in[k] = kl_lw_reg_of(l, v);
		in_reg[k] = (uint8_t)r;
	}
	*nin = bs->nitems;
	return 0;
}

/* Whistler's (asm OPCODE DST SRC OFF IMM): one encoded instruction, checked against the
 * table; its value is the register it writes (r0 for a call), or 0. */
static int whistler(struct as *s, struct kl_node *n, struct val *out)
{
	int64_t f[5];
	for (uint32_t k = 0; k < 5; k++)
		if (!int_of(s->l, n->items[k + 1], &f[k]))
			return ERR(s, n->items[k + 1], "Whistler's asm takes five integers: OPCODE DST SRC OFF IMM");
	const struct kl_asm_op *op = f[0] >= 0 && f[0] <= 255 && f[4] >= INT32_MIN && f[4] <= INT32_MAX
					     ? kl_asm_op_by_code((uint8_t)f[0], (int32_t)f[4]) : NULL;
	if (!op) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%#llx", (long long)f[0]);
		return ERR(s, n->items[1], "unknown or unsupported opcode %s in asm", buf);
	}
	if (strchr(op->shape, 'I'))
		return ERR(s, n->items[1], "'%s' takes two instruction slots; write (asm () (lddw REG VALUE))", op->name);
	if (f[1] < 0 || f[1] > 10 || f[2] < 0 || f[2] > 10)
		return out_of_range(s, n->items[f[1] < 0 || f[1] > 10 ? 2 : 3], "register", 0, 10);
	if (f[3] < INT16_MIN || f[3] > INT16_MAX)
		return out_of_range(s, n->items[4], "offset", INT16_MIN, INT16_MAX);
	if (f[4] < INT32_MIN || f[4] > INT32_MAX)
		return out_of_range(s, n->items[5], "immediate", INT32_MIN, INT32_MAX);
	if (strchr(op->shape, 'd') && f[1] == KL_FP)
		return ERR(s, n->items[2], "'%s' writes r10, the read-only frame pointer", op->name);
	int32_t imm;
	if (strchr(op->shape, 'R') && !(f[0] & BPF_X) && alu_imm(s, op, n->items[5], f[4], &imm))
		return -1;
	if (strchr(op->shape, 'L') && f[3] != 0)
		return ERR(s, n->items[4], "a jump in Whistler's asm leaves the instruction: the offset must be 0");
	struct bpf_insn i = kl_insn((uint8_t)f[0], (uint8_t)f[1], (uint8_t)f[2], (int16_t)f[3], (int32_t)f[4]);
	push(s, i, n->span);
	int written = op->shape[0] == 'd' ? (int)f[1] : op->shape[0] == 'H' ? 0 : -1;
	if (op->shape[0] == 'd')
		s->writes |= (uint16_t)(1u << f[1]);
	s->calls = op->shape[0] == 'H';
	if (paths(s, n))
		return -1;
	finish(s, NULL, NULL, 0, written, out);
	return 0;
}

static int f_asm(struct lw *l, struct kl_node *n, struct val *out)
{
	struct as s = { .l = l };
	if (n->nitems == 6 && n->items[1]->kind != KL_N_LIST && !kl_is_sym(n->items[1], "nil"))
		return whistler(&s, n, out);
	if (n->nitems < 2)
		return kl_error(l->c->d, n->span, "asm needs its inputs, ((REG EXPR)...) or (), then instructions");
	kl_vreg in[MAX_IN];
	uint8_t in_reg[MAX_IN];
	uint32_t nin = 0, k = 2;
	int out_reg = -1;
	if (inputs(&s, n->items[1], in, in_reg, &nin))
		return -1;
	if (k + 1 < n->nitems && kl_is_key(n->items[k], "out")) {
		out_reg = reg_of(n->items[k + 1]);
		if (out_reg < 0 || out_reg == KL_FP)
			return ERR(&s, n->items[k + 1], "asm's :out names a register r0-r9, not %s", kl_name(n->items[k + 1]));
		k += 2;
	}
	for (; k < n->nitems; k++) {
		const struct kl_node *x = n->items[k];
		if (is_label(x) ? define_label(&s, x) : instruction(&s, x))
			return -1;
	}
	if (resolve(&s) || paths(&s, n))
		return -1;
	uint16_t set = s.writes | (s.calls ? 1 : 0);
	for (uint32_t j = 0; j < nin; j++)
		set |= (uint16_t)(1u << in_reg[j]);
	if (out_reg >= 0 && !(set >> out_reg & 1))
		return ERR(&s, n->items[3], "asm's :out r%d is neither an input nor written by the block", out_reg);
	finish(&s, in, in_reg, nin, out_reg, out);
	return 0;
}

const struct kl_lw_form kl_lw_asm_forms[] = {
	{ "asm", f_asm, "bd" },
};
const size_t kl_lw_nasm_forms = sizeof(kl_lw_asm_forms) / sizeof(kl_lw_asm_forms[0]);
