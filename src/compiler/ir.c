/* ir.c — the IR's home (ir.h): building a function (instructions, vregs, labels, slots),
 * the one enumeration of an instruction's operands that every pass uses, the IR as text,
 * and the small facts about conditions and byte swaps the passes share. */
#include "ir.h"
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>

struct kl_ir_ins *kl_ir_emit(struct kl_arena *a, struct kl_ir_func *f, uint8_t op, struct kl_span span)
{
	if (f->nins == f->cap) {
		uint32_t nc = f->cap ? f->cap * 2 : 64;
		if (f->ins && f->ins == f->ins_ext) {
			f->ins = kl_arena_ext_grow(a, f->ins, f->cap * sizeof(*f->ins), nc * sizeof(*f->ins));
		} else {   /* an array a pass made (in the arena): copied out once */
			struct kl_ir_ins *n = kl_arena_ext_grow(a, NULL, 0, nc * sizeof(*f->ins));
			if (f->nins)
				memcpy(n, f->ins, f->nins * sizeof(*f->ins));
			kl_arena_ext_free(a, f->ins_ext);
			f->ins = n;
		}
		f->ins_ext = f->ins;
		f->cap = nc;
	}
	struct kl_ir_ins *i = &f->ins[f->nins++];
	memset(i, 0, sizeof(*i));
	i->op = op;
	i->span = span;
	return i;
}

uint32_t kl_ir_use_ptrs(struct kl_ir_ins *i, kl_vreg *p[6], kl_vreg **def)
{
	uint32_t n = 0;
	*def = NULL;
	switch (i->op) {
	case IR_MOVI: case IR_ADDR: case IR_LDMAP: case IR_ENTRY: case IR_LDFUNC: case IR_LDDATA:
		*def = &i->d;
		break;
	case IR_MOV: case IR_ALU32: case IR_NEG: case IR_END:
		p[n++] = &i->a;
		*def = &i->d;
		break;
	case IR_ALU:
		p[n++] = &i->a;
		if (!i->has_imm)
			p[n++] = &i->b;
		*def = &i->d;
		break;
	case IR_LOAD:
		if (i->a)
			p[n++] = &i->a;
		*def = &i->d;
		break;
	case IR_STORE: case IR_XADD: case IR_BR:
		if (i->a)
			p[n++] = &i->a;
		if (!i->has_imm && i->b)
			p[n++] = &i->b;
		break;
	case IR_CALL: case IR_CALLF: case IR_ASM:
		for (uint32_t k = 0; k < i->nargs; k++)
			p[n++] = &i->args[k];
		*def = &i->d;
		break;
	case IR_RET:
		if (!i->has_imm && i->a)
			p[n++] = &i->a;
		break;
	default:
		break;
	}
	return n;
}

void kl_ir_operands(const struct kl_ir_ins *i, struct kl_ir_operands *u)
{
	kl_vreg *p[6], *def;
	u->nuses = kl_ir_use_ptrs((struct kl_ir_ins *)i, p, &def);   /* read only here */
	for (uint32_t k = 0; k < u->nuses; k++)
		u->uses[k] = *p[k];
	u->def = def ? *def : 0;
}

int64_t kl_fold(uint8_t alu, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (alu) {
	case BPF_ADD: return (int64_t)(x + y);
	case BPF_SUB: return (int64_t)(x - y);
	case BPF_MUL: return (int64_t)(x * y);
	case BPF_DIV: return y ? (int64_t)(x / y) : 0;       /* as the BPF machine divides */
	case BPF_MOD: return y ? (int64_t)(x % y) : a;
	case BPF_AND: return a & b;
	case BPF_OR: return a | b;
	case BPF_XOR: return a ^ b;
	case BPF_LSH: return (int64_t)(x << (y & 63));       /* shift counts masked to 0..63 */
	case BPF_RSH: return (int64_t)(x >> (y & 63));
	default: return a >> (y & 63);                       /* BPF_ARSH */
	}
}

uint8_t kl_cond_swap(uint8_t c)
{
	static const uint8_t sw[][2] = {
		{ BPF_JGT, BPF_JLT }, { BPF_JGE, BPF_JLE }, { BPF_JSGT, BPF_JSLT }, { BPF_JSGE, BPF_JSLE },
	};
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		if (sw[i][0] == c) return sw[i][1];
		if (sw[i][1] == c) return sw[i][0];
	}
	return c;   /* JEQ, JNE, JSET: symmetric */
}

int kl_cond_holds(uint8_t cond, int64_t a, int64_t b)
{
	uint64_t x = (uint64_t)a, y = (uint64_t)b;
	switch (cond) {
	case BPF_JEQ: return x == y;
	case BPF_JNE: return x != y;
	case BPF_JGT: return x > y;
	case BPF_JGE: return x >= y;
	case BPF_JLT: return x < y;
	case BPF_JLE: return x <= y;
	case BPF_JSGT: return a > b;
	case BPF_JSGE: return a >= b;
	case BPF_JSLT: return a < b;
	case BPF_JSLE: return a <= b;
	case BPF_JSET: return (x & y) != 0;
	default: return -1;
	}
}

uint8_t kl_cond_invert(uint8_t cond)
{
	static const uint8_t inv[][2] = {
		{ BPF_JEQ, BPF_JNE }, { BPF_JGT, BPF_JLE }, { BPF_JGE, BPF_JLT },
		{ BPF_JSGT, BPF_JSLE }, { BPF_JSGE, BPF_JSLT },
	};
	for (size_t i = 0; i < sizeof(inv) / sizeof(inv[0]); i++) {
		if (inv[i][0] == cond) return inv[i][1];
		if (inv[i][1] == cond) return inv[i][0];
	}
	return 0;
}

uint64_t kl_bswap(uint64_t v, int bits)
{
	uint64_t r = 0;
	for (int i = 0; i < bits / 8; i++)
		r = (r << 8) | ((v >> (8 * i)) & 0xff);
	return r;
}

uint32_t *kl_ir_labels(struct kl_arena *a, const struct kl_ir_func *f)
{
	uint32_t *at = kl_arena_array(a, uint32_t, f->nlabels + 1);
	for (uint32_t i = 0; i < f->nins; i++)
		if (f->ins[i].op == IR_LABEL && f->ins[i].label && f->ins[i].label <= f->nlabels)
			at[f->ins[i].label] = i + 1;
	return at;
}

uint32_t kl_ir_slot(struct kl_arena *a, struct kl_ir_func *f, uint32_t size, uint32_t align)
{
	if (f->nslots + 1 >= f->slotcap) {
		uint32_t nc = f->slotcap ? f->slotcap * 2 : 16;
		f->slots = kl_arena_grow(a, f->slots, f->slotcap * sizeof(*f->slots), nc * sizeof(*f->slots));
		f->slotcap = nc;
	}
	uint32_t s = ++f->nslots;
	f->slots[s] = (struct kl_slot){ .size = size, .align = align < 1 ? 1 : align };
	return s;
}

static const char *const op_names[] = {
	"movi", "mov", "alu", "alu32", "neg", "end", "load", "store", "xadd", "addr", "ldmap",
	"call", "callf", "jmp", "br", "label", "ret", "entry", "ldfunc", "lddata", "asm",
};

void kl_ir_dump(const struct kl_ir_func *f, FILE *out)
{
	fprintf(out, "func %s (%u vregs)\n", f->name, f->nvregs);
	for (uint32_t i = 0; i < f->nins; i++) {
		const struct kl_ir_ins *in = &f->ins[i];
		if (in->op == IR_LABEL) {
			fprintf(out, "L%u:\n", in->label);
			continue;
		}
		fprintf(out, "  %-5s d=v%u a=v%u b=v%u imm=%lld off=%d slot=%u L%u sz=%u op=%#x",
			op_names[in->op], in->d, in->a, in->b, (long long)in->imm, in->off, in->slot, in->label,
			in->size, in->alu);
		for (uint32_t k = 0; k < in->nargs; k++)
			fprintf(out, " v%u", in->args[k]);
		fprintf(out, "  ; %u:%u\n", in->span.line, in->span.col);
	}
}
