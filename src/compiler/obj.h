/* obj.h — a compiled BPF object before it becomes an ELF file: programs and subprograms
 * as encoded instructions with their relocations and source lines, maps, types, license.
 * The back end fills it; elf.c and btf.c turn it into the file libbpf and bpftool read. */
#ifndef KL_OBJ_H
#define KL_OBJ_H
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include "types.h"

struct kl_sops;

enum kl_reloc_kind {
	KL_RELOC_MAP,  /* ld_imm64 (BPF_PSEUDO_MAP_FD) of maps[target]: R_BPF_64_64 */
	KL_RELOC_CALL, /* call (BPF_PSEUDO_CALL) of funcs[target], a .text subprogram */
	KL_RELOC_FUNC, /* ld_imm64 (BPF_PSEUDO_FUNC) of funcs[target]'s address, a callback */
	KL_RELOC_DATA, /* ld_imm64 of globals[target]'s address: R_BPF_64_64 against its symbol */
	KL_RELOC_KSYM, /* ld_imm64 of kernel symbol ksyms[target]: R_BPF_64_64 against its
			* undefined symbol (libbpf: BPF_PSEUDO_BTF_ID, or kallsyms' address) */
};

struct kl_reloc {
	uint32_t insn;        /* index of the instruction in its function */
	enum kl_reloc_kind kind;
	uint32_t target;      /* index into obj->maps, obj->funcs, obj->globals or obj->ksyms */
};

/* The global data sections, libbpf's: each becomes a one-element array map whose value is
 * the section (its BTF DATASEC); .rodata is frozen before the programs load, so the verifier
 * reads its values as constants. */
enum kl_data_sec { KL_DATA_RODATA, KL_DATA_DATA, KL_DATA_BSS, KL_NDATA };

/* A global variable (defparameter: .rodata; defvar: .data, or .bss when it starts at 0). */
struct kl_global {
	const char *name;             /* mangled: its ELF symbol and BTF VAR */
	const struct kl_type *type;
	enum kl_data_sec sec;
	uint32_t off;                 /* in its section */
	int64_t init;                 /* an integer's first value (.rodata, .data); else 0 */
};

/* A kernel symbol (defksym), an extern in .ksyms: typed, resolved by libbpf through the
 * kernel's BTF (its VAR, e.g. the per-CPU runqueues), or typeless (type NULL: its address,
 * from /proc/kallsyms). */
struct kl_ksym {
	const char *name;             /* the kernel's: its ELF symbol (undefined) and BTF VAR */
	const struct kl_type *type;   /* a projection of the kernel variable's type; NULL: typeless */
};

/* A CO-RE relocation (.BTF.ext core_relo): the instruction's imm (or a load's offset) is
 * patched by libbpf to what `kind` (enum bpf_core_relo_kind) of the access means in the target
 * kernel. access: "0:i:j" indexes through local types from `type`; one enumerator index for
 * enum kinds; "0" for type kinds. */
struct kl_core_reloc {
	uint32_t insn;
	const struct kl_type *type;
	const uint32_t *access;
	uint32_t naccess;
	uint32_t kind;
};

struct kl_line {
	uint32_t insn;        /* first instruction of this source position */
	uint32_t line, col;   /* 1-based, in obj->source_path */
};

/* What the program's context argument is in its BTF FUNC_PROTO. */
enum kl_ctx_btf {
	KL_CTX_VOID,      /* void *ctx */
	KL_CTX_XDP_MD,    /* struct xdp_md *ctx */
	KL_CTX_SK_BUFF,   /* struct __sk_buff *ctx */
	KL_CTX_U64_ARRAY, /* unsigned long long *ctx (fentry/fexit/raw tracepoints) */
	KL_CTX_PT_REGS,   /* struct pt_regs *ctx (kprobe/uprobe) */
};

struct kl_func {
	const char *name;      /* ELF/BTF name, already mangled (dashes -> underscores) */
	const char *section;   /* program section ("xdp", "tc", ...); NULL: a .text subprogram */
	enum kl_ctx_btf ctx;   /* programs only */
	uint32_t nargs;        /* subprograms: number of u64 arguments (<= 5) */
	bool global;           /* subprograms: a global function (globals.h), checked alone */
	uint32_t line, col;    /* where the defprog/defun starts */
	struct bpf_insn *insns;
	uint32_t ninsns;
	struct kl_reloc *relocs;
	uint32_t nrelocs;
	struct kl_line *lines; /* sorted by insn */
	uint32_t nlines;
	struct kl_core_reloc *core; /* sorted by insn */
	uint32_t ncore;
	uint32_t text_off;     /* filled by the ELF writer: byte offset within its section */
	uint32_t sec;          /* filled by the ELF writer: its code section, in file order */
};

struct kl_map {
	const char *name;      /* mangled */
	uint32_t type;         /* enum bpf_map_type */
	struct kl_type *key;   /* NULL when the map has no key (ringbuf) */
	struct kl_type *value; /* NULL when the map has no value (ringbuf) */
	bool sizes_only;       /* describe key/value as key_size/value_size (types the kernel
				* cannot attach BTF to: prog-array, perf-event-array, ...) */
	uint32_t max_entries;
	uint32_t map_flags;
	uint32_t pinning;      /* 0 none, 1 LIBBPF_PIN_BY_NAME */
	int inner;             /* index of the inner map template for map-in-map, or -1 */
	const struct kl_type *event; /* ringbuf/perf-event-array: the layout of its records, told
				      * to user space by a BTF decl tag "kiln.event:NAME" */
	const char *display;   /* :display: "log2-hist" or "linear-hist:LO:HI:STEP", told to user
				* space by a BTF decl tag "kiln.display:..." (kiln run draws it) */
};

struct kl_obj {
	const char *source_path;  /* for BTF line info */
	const char *source;       /* the whole source text (line info carries line text) */
	const char *license;
	struct kl_func *funcs;
	uint32_t nfuncs;
	struct kl_map *maps;
	uint32_t nmaps;
	struct kl_type **structs; /* defstruct/defevent types to describe in BTF by name */
	uint32_t nstructs;
	struct kl_global *globals; /* as defined: within a section, in offset order */
	uint32_t nglobals;
	uint32_t data_size[KL_NDATA]; /* each data section's bytes (0: no such section) */
	struct kl_ksym *ksyms;     /* defksym's, as defined */
	uint32_t nksyms;
	const struct kl_sops *sops;   /* defstruct-ops: .struct_ops's variables (struct_ops.h) */
	uint32_t nsops, sops_size;
};

#endif
