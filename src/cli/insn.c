/* insn.c — BPF instructions as text: tables indexed by the opcode's fields (class, operation,
 * source, size, mode) rather than a switch per opcode, in the kernel verifier's syntax. */
#include "insn.h"
#include "compiler/tables.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Encodings newer than linux 6.1's uapi header (cpu v4 and later). */
#define KL_MEMSX          0x80     /* ldx mode: sign-extending load */
#define KL_JCOND          0xe0     /* jmp op: may_goto */
#define KL_LOAD_ACQ       0x100    /* atomic imm: load-acquire */
#define KL_STORE_REL      0x110    /* atomic imm: store-release */
#define KL_ADDR_SPACE_CAST 1       /* alu64 mov X off: arena pointer cast */

struct out {
	char *p;
	size_t len, n;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	if (o->n + 1 >= o->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(o->p + o->n, o->len - o->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n = o->n + (size_t)r < o->len ? o->n + (size_t)r : o->len - 1;
}

/* Indexed by BPF_OP >> 4; NULL where the operation is not a plain "dst op= src". */
static const char *const alu_ops[16] = {
	"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=", NULL, "%=", "^=", "=", "s>>=",
};
/* Indexed by BPF_OP >> 4: the comparison of a conditional jump. */
static const char *const jmp_ops[16] = {
	[0x1] = "==", [0x2] = ">", [0x3] = ">=", [0x4] = "&", [0x5] = "!=", [0x6] = "s>",
	[0x7] = "s>=", [0xa] = "<", [0xb] = "<=", [0xc] = "s<", [0xd] = "s<=",
};
/* Indexed by BPF_SIZE >> 3. */
static const char *const size_names[4] = { "u32", "u16", "u8", "u64" };
static const char *const ssize_names[4] = { "s32", "s16", "s8", NULL };

/* The read-modify-write atomics (BPF_STX | BPF_ATOMIC, op in imm): "lock ... op= src", or
 * with BPF_FETCH added the form that returns the old value in src. */
static const struct {
	int32_t op;
	const char *assign, *name;
} atomic_ops[] = {
	{ BPF_ADD, "+=", "fetch_add" }, { BPF_OR, "|=", "fetch_or" }, { BPF_AND, "&=", "fetch_and" },
	{ BPF_XOR, "^=", "fetch_xor" }, { BPF_XCHG & ~BPF_FETCH, NULL, "xchg" },
};

static char reg_prefix(bool wide)
{
	return wide ? 'r' : 'w';
}

/* "*(u32 *)(r10 - 4)" */
static void mem(struct out *o, const char *size, unsigned reg, int16_t off)
{
	if (off < 0)
		put(o, "*(%s *)(r%u - %d)", size, reg, -(int)off);
	else
		put(o, "*(%s *)(r%u + %d)", size, reg, (int)off);
}

static void invalid(struct out *o, const struct bpf_insn *in)
{
	put(o, "<invalid opcode 0x%02x>", in->code);
}

/* "+3 <LBB0_2>" or "+3 <31>": the offset, then where it lands */
static void target(struct out *o, const struct kl_insn_env *env, int64_t rel)
{
	put(o, "%+lld", (long long)rel);
	if (!env || env->pc < 0)
		return;
	long pc = (long)(env->pc + 1 + rel);
	const char *name = env->label ? env->label(env->label_arg, pc) : NULL;
	if (name)
		put(o, " <%s>", name);
	else
		put(o, " <%ld>", pc);
}

/* Jump immediates in hex as the verifier prints them, negative ones with a sign since a
 * 64-bit comparison sign-extends them. */
static void jmp_imm(struct out *o, int32_t imm)
{
	if (imm < 0)
		put(o, "-0x%llx", -(long long)imm);
	else
		put(o, "0x%x", (unsigned)imm);
}

static void fmt_alu(struct out *o, const struct bpf_insn *in)
{
	bool wide = BPF_CLASS(in->code) == BPF_ALU64, x = BPF_SRC(in->code) == BPF_X;
	unsigned op = BPF_OP(in->code) >> 4;
	char r = reg_prefix(wide);

	if (BPF_OP(in->code) == BPF_NEG) {
		put(o, "%c%u = -%c%u", r, in->dst_reg, r, in->dst_reg);
	} else if (BPF_OP(in->code) == BPF_END) {
		/* alu: to little/big endian by the source bit; alu64 (cpu v4): unconditional swap */
		if ((in->imm != 16 && in->imm != 32 && in->imm != 64) || (wide && x)) {
			invalid(o, in);
			return;
		}
		const char *how = wide ? "bswap" : x ? "be" : "le";
		put(o, "r%u = %s%d r%u", in->dst_reg, how, in->imm, in->dst_reg);
	} else if (!alu_ops[op]) {
		invalid(o, in);
	} else if (BPF_OP(in->code) == BPF_MOV && in->off) {
		/* cpu v4 movsx (off = source width) and the arena address-space cast */
		if (x && wide && in->off == KL_ADDR_SPACE_CAST)
			put(o, "r%u = addr_space_cast(r%u, %d, %d)", in->dst_reg, in->src_reg,
			    (int)((uint32_t)in->imm >> 16), in->imm & 0xffff);
		else if (x && (in->off == 8 || in->off == 16 || (wide && in->off == 32)))
			put(o, "%c%u = (s%d)%c%u", r, in->dst_reg, in->off, r, in->src_reg);
		else
			invalid(o, in);
	} else {
		const char *sym = alu_ops[op];
		if (BPF_OP(in->code) == BPF_DIV || BPF_OP(in->code) == BPF_MOD) {
			/* cpu v4: off 1 makes division and modulo signed */
			if (in->off != 0 && in->off != 1) {
				invalid(o, in);
				return;
			}
			if (in->off)
				sym = BPF_OP(in->code) == BPF_DIV ? "s/=" : "s%=";
		}
		if (x)
			put(o, "%c%u %s %c%u", r, in->dst_reg, sym, r, in->src_reg);
		else
			put(o, "%c%u %s %d", r, in->dst_reg, sym, in->imm);
	}
}

/* "bpf_map_lookup_elem#1" from kiln's helper table ("map-lookup-elem"). */
static void helper(struct out *o, int32_t id)
{
	const struct kl_helper *h = id >= 0 ? kl_helper_by_id((uint32_t)id) : NULL;
	if (!h) {
		put(o, "call unknown#%d", id);
		return;
	}
	put(o, "call bpf_");
	for (const char *s = h->name; *s; s++)
		put(o, "%c", *s == '-' ? '_' : *s);
	put(o, "#%d", id);
}

static void fmt_jmp(struct out *o, const struct bpf_insn *in, const struct kl_insn_env *env)
{
	bool wide = BPF_CLASS(in->code) == BPF_JMP, x = BPF_SRC(in->code) == BPF_X;
	unsigned op = BPF_OP(in->code);
	char r = reg_prefix(wide);
	const char *callee = env ? env->call_target : NULL;

	if (op == BPF_JA) {
		/* jmp32 ja is cpu v4's gotol, whose 32-bit offset is in imm */
		put(o, wide ? "goto " : "gotol ");
		target(o, env, wide ? in->off : in->imm);
	} else if (op == BPF_CALL && wide) {
		if (x)
			put(o, "callx r%u", in->dst_reg);
		else if ((in->src_reg == BPF_PSEUDO_CALL || in->src_reg == BPF_PSEUDO_KFUNC_CALL) && callee)
			put(o, "call %s", callee);
		else if (in->src_reg == BPF_PSEUDO_CALL) {
			put(o, "call pc");
			target(o, env, in->imm);
		} else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
			put(o, "call kfunc#%d", in->imm);
		else if (in->src_reg == 0)
			helper(o, in->imm);
		else
			invalid(o, in);
	} else if (op == BPF_EXIT && wide && !x) {
		put(o, "exit");
	} else if (op == KL_JCOND && wide && !x) {
		put(o, "may_goto ");
		target(o, env, in->off);
	} else if (jmp_ops[op >> 4]) {
		put(o, "if %c%u %s ", r, in->dst_reg, jmp_ops[op >> 4]);
		if (x)
			put(o, "%c%u", r, in->src_reg);
		else
			jmp_imm(o, in->imm);
		put(o, " goto ");
		target(o, env, in->off);
	} else {
		invalid(o, in);
	}
}

/* ld_imm64 by its src_reg (the BPF_PSEUDO_* kinds); a relocation's name wins. */
static void fmt_imm64(struct out *o, const struct bpf_insn *in, const struct kl_insn_env *env)
{
	uint64_t v = (uint32_t)in[0].imm | (uint64_t)(uint32_t)in[1].imm << 32;
	const char *ref = env ? env->imm64_ref : NULL;

	put(o, "r%u = ", in->dst_reg);
	if (ref)
		put(o, "%s", ref);
	else if (in->src_reg == 0)
		put(o, "0x%llx", (unsigned long long)v);
	else if (in->src_reg == BPF_PSEUDO_MAP_FD)
		put(o, "map[fd:%d]", in[0].imm);
	else if (in->src_reg == BPF_PSEUDO_MAP_IDX)
		put(o, "map[idx:%d]", in[0].imm);
	else if (in->src_reg == BPF_PSEUDO_MAP_VALUE)
		put(o, "map[fd:%d][0]+%u", in[0].imm, (uint32_t)in[1].imm);
	else if (in->src_reg == BPF_PSEUDO_MAP_IDX_VALUE)
		put(o, "map[idx:%d][0]+%u", in[0].imm, (uint32_t)in[1].imm);
	else if (in->src_reg == BPF_PSEUDO_BTF_ID)
		put(o, "btf_id[%d]", in[0].imm);
	else if (in->src_reg == BPF_PSEUDO_FUNC) {
		put(o, "func[pc");
		target(o, env, in[0].imm);
		put(o, "]");
	} else
		put(o, "<invalid src_reg %u> 0x%llx", in->src_reg, (unsigned long long)v);
	put(o, " ll");
}

static void fmt_ld(struct out *o, const struct bpf_insn *in, size_t nslots, const struct kl_insn_env *env)
{
	unsigned mode = BPF_MODE(in->code), size = BPF_SIZE(in->code) >> 3;
	if (mode == BPF_IMM && BPF_SIZE(in->code) == BPF_DW) {
		if (nslots < 2)
			put(o, "(truncated ld_imm64)");
		else
			fmt_imm64(o, in, env);
	} else if (mode == BPF_ABS && BPF_SIZE(in->code) != BPF_DW) {
		put(o, "r0 = *(%s *)skb[%d]", size_names[size], in->imm);
	} else if (mode == BPF_IND && BPF_SIZE(in->code) != BPF_DW) {
		put(o, "r0 = *(%s *)skb[r%u %c %lld]", size_names[size], in->src_reg,
		    in->imm < 0 ? '-' : '+', in->imm < 0 ? -(long long)in->imm : (long long)in->imm);
	} else {
		invalid(o, in);
	}
}

/* "(u64 *)(r1 + 8)": the operand of the atomics' function-call syntax */
static void ptr(char *m, size_t len, const char *size, unsigned reg, int16_t off)
{
	snprintf(m, len, "(%s *)(r%u %c %d)", size, reg, off < 0 ? '-' : '+', off < 0 ? -(int)off : (int)off);
}

static void fmt_atomic(struct out *o, const struct bpf_insn *in)
{
	const char *size = size_names[BPF_SIZE(in->code) >> 3];
	bool dw = BPF_SIZE(in->code) == BPF_DW;
	char r = 'r', m[48];     /* r even for 32-bit values, as the verifier prints them */

	if (in->imm == KL_LOAD_ACQ) {
		ptr(m, sizeof(m), size, in->src_reg, in->off);
		put(o, "r%u = load_acquire(%s)", in->dst_reg, m);
		return;
	}
	ptr(m, sizeof(m), size, in->dst_reg, in->off);
	if (in->imm == KL_STORE_REL) {
		put(o, "store_release(%s, r%u)", m, in->src_reg);
		return;
	}
	if (!dw && BPF_SIZE(in->code) != BPF_W) {
		invalid(o, in);
		return;
	}
	const char *w = dw ? "64" : "";
	if (in->imm == BPF_CMPXCHG) {
		/* compares with r0, which receives the old value */
		put(o, "%c0 = atomic%s_cmpxchg(%s, %c0, %c%u)", r, w, m, r, r, in->src_reg);
		return;
	}
	for (size_t i = 0; i < sizeof(atomic_ops) / sizeof(atomic_ops[0]); i++) {
		if (in->imm == atomic_ops[i].op && atomic_ops[i].assign) {
			put(o, "lock ");
			mem(o, size, in->dst_reg, in->off);
			put(o, " %s %c%u", atomic_ops[i].assign, r, in->src_reg);
			return;
		}
		if (in->imm == (atomic_ops[i].op | BPF_FETCH)) {
			put(o, "%c%u = atomic%s_%s(%s, %c%u)", r, in->src_reg, w, atomic_ops[i].name, m, r,
			    in->src_reg);
			return;
		}
	}
	invalid(o, in);
}

static void fmt_mem(struct out *o, const struct bpf_insn *in)
{
	unsigned cls = BPF_CLASS(in->code), mode = BPF_MODE(in->code), size = BPF_SIZE(in->code) >> 3;

	if (cls == BPF_LDX && (mode == BPF_MEM || (mode == KL_MEMSX && ssize_names[size]))) {
		put(o, "r%u = ", in->dst_reg);
		mem(o, mode == BPF_MEM ? size_names[size] : ssize_names[size], in->src_reg, in->off);
	} else if (cls == BPF_ST && mode == BPF_MEM) {
		mem(o, size_names[size], in->dst_reg, in->off);
		put(o, " = %d", in->imm);
	} else if (cls == BPF_STX && mode == BPF_MEM) {
		mem(o, size_names[size], in->dst_reg, in->off);
		put(o, " = r%u", in->src_reg);
	} else if (cls == BPF_STX && mode == BPF_ATOMIC) {
		fmt_atomic(o, in);
	} else {
		invalid(o, in);
	}
}

int kl_insn_format(const struct bpf_insn *insn, size_t nslots, const struct kl_insn_env *env,
		   char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (len)
		buf[0] = 0;
	if (!nslots)
		return 0;
	switch (BPF_CLASS(insn->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		fmt_alu(&o, insn);
		break;
	case BPF_JMP:
	case BPF_JMP32:
		fmt_jmp(&o, insn, env);
		break;
	case BPF_LD:
		fmt_ld(&o, insn, nslots, env);
		break;
	default:
		fmt_mem(&o, insn);
		break;
	}
	return insn->code == (BPF_LD | BPF_IMM | BPF_DW) && nslots >= 2 ? 2 : 1;
}
