/* verifier.c — a verifier log read for the user: the final message, the failing instruction,
 * its source position from the object's .BTF.ext line info (with the column the kernel's
 * log leaves out), and a hint from a table of the common causes. */
#define _GNU_SOURCE
#include "kiln/verifier.h"
#include "fail.h"
#include "verifier_internal.h"
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the causes -------------------------------------------------------------------------- */

/* Matched in order against the message and the lines before it (the first row any of whose
 * patterns occurs wins, so the specific rows come first). insn_key, when the message names
 * the instruction that matters more than the one the verifier stopped at, is the text before
 * its index ("alloc_insn=" points at the reservation an exit left open). */
static const struct cause_row {
	const char *cause;
	const char *patterns[4];
	const char *insn_key;
	const char *hint;
} causes[] = {
	{ "packet-bounds", { "outside of the packet", "invalid access to packet" }, NULL,
	  "the program reads packet bytes it has not proven are there: compare (+ data N) with (ctx "
	  "data-end) first and touch the packet only where that check holds, e.g. (when (<= (+ data 34) "
	  "(ctx data-end)) ...) (with-packet does it for you)" },
	{ "packet-offset", { "math between pkt pointer and register with unbounded" }, NULL,
	  "a packet offset computed at run time has no bounds the verifier knows: clamp it first, "
	  "e.g. (logand off #xff) or (when (< off 64) ...), then check the packet's length again" },
	{ "map-null", { "map_value_or_null", "ringbuf_mem_or_null", "_or_null'" }, NULL,
	  "a map-lookup (or ringbuf-reserve) result may be 0: test it before using it, e.g. "
	  "(when-let ((v (map-lookup m key))) ...) or (getmap m key), which gives 0 when absent" },
	{ "scalar-deref", { "invalid mem access 'scalar'", "invalid mem access 'inv'" }, NULL,
	  "a plain number is used as a pointer: load and store only through pointers the verifier "
	  "knows (packet data, map values, stack-buffer, the context), not through arithmetic on "
	  "integers read from memory" },
	{ "map-value-bounds", { "invalid access to map value", "invalid access to memory" }, NULL,
	  "the access goes past the end of the map value (or the memory block): check the offset "
	  "against the value's size, and bound any index before adding it" },
	{ "unbounded-access", { "unbounded memory access", "min value is negative", "min value is outside",
				"max value is outside" }, NULL,
	  "an offset or size computed at run time has no bounds the verifier can see: clamp it "
	  "(logand, or a comparison that guards the access) before using it" },
	{ "unbounded-loop", { "infinite loop detected", "back-edge from insn", "BPF program is too large",
			      "jumps is too complex" }, "insn ",
	  "a loop the verifier cannot prove ends (or too many paths to explore): use (dotimes (i N) ...) "
	  "with a constant N, or give a (loop :while ...) a counter it compares against a constant" },
	{ "stack-size", { "combined stack size", "stack depth", "invalid write to stack", "invalid stack off" }, NULL,
	  "more than 512 bytes of stack: use a per-CPU array map as scratch space for large buffers, "
	  "or fewer/smaller stack-buffers along a call chain" },
	{ "gpl-only", { "cannot call GPL-restricted function" }, NULL,
	  "this helper is for GPL-compatible programs only: give the program (:license \"GPL\") (or "
	  "\"Dual MIT/GPL\", \"Dual BSD/GPL\") or do without the helper" },
	{ "helper-not-allowed", { "unknown func", "invalid func", "cannot use helper", "helper call is not allowed" }, NULL,
	  "this helper does not exist for this program type (or this kernel): use one the type "
	  "has (packet programs cannot use tracing helpers, nor XDP the socket-buffer ones), or "
	  "another program type" },
	{ "unreleased-ref", { "Unreleased reference", "would lead to reference leak" }, "alloc_insn=",
	  "a ringbuf-reserve (or another acquired reference) is still open at exit: every path must "
	  "ringbuf-submit or ringbuf-discard it (a return inside with-event leaves it open)" },
	{ "double-release", { "release kernel function", "reference has not been acquired",
			      "must be referenced" }, NULL,
	  "a reference released twice or not acquired: submit or discard each reservation exactly once" },
	{ "no-return-value", { "R0 !read_ok" }, NULL,
	  "the program (or a function) exits without a return value: make the last form of the "
	  "body its result (e.g. XDP_PASS)" },
	{ "uninit-register", { "!read_ok" }, NULL,
	  "a register is read before anything was written to it: this is a code generation bug "
	  "if the source is kiln; please report it" },
	{ "uninit-stack", { "invalid indirect read from stack", "invalid read from stack" }, NULL,
	  "a helper reads stack bytes that were never written (a key or value struct left partly "
	  "unset): fill every byte first, e.g. start from (stack-buffer N), which is zeroed" },
	{ "return-range", { "At program exit the register R0" }, NULL,
	  "the program returns a value this program type does not allow (cgroup programs return "
	  "0 or 1; see the message for the range)" },
	{ "ctx-access", { "invalid bpf_context access", "dereference of modified ctx ptr" }, NULL,
	  "the program reads or writes a context field this program type (or attach point) does not "
	  "allow, at that size or offset: use (ctx FIELD) by name, read-only fields with no setf" },
	{ "misaligned", { "misaligned" }, NULL,
	  "an access is not aligned to its size: keep stack and context accesses at offsets that "
	  "are a multiple of the size (e.g. u32 at offsets divisible by 4)" },
	{ "helper-arg", { "type=scalar expected=", "expected=map_ptr", "expected=fp", "expected pointer" },
	  NULL,
	  "a helper got an argument of the wrong kind (e.g. a number where it takes a pointer to "
	  "a key or a map): pass a defmap name, a stack-buffer or a map-lookup result" },
	{ "pointer-math", { "pointer arithmetic on", "pointer comparison prohibited", "leaks addr" }, NULL,
	  "arithmetic or comparisons on a pointer of a kind that does not allow them (context, map "
	  "pointer), or a pointer stored where user space could read it" },
	{ "read-only", { "cannot write into", "write into map forbidden", "is read-only" }, NULL,
	  "a write to memory this program may only read (a read-only context field, rodata, or the "
	  "packet in a program type that cannot change it)" },
	{ "div-by-zero", { "div by zero" }, NULL,
	  "a division by the constant 0 in the instruction: BPF gives 0 for a register divisor "
	  "that is 0, but refuses an immediate 0" },
	{ "ksym-address", { "failed to find the address for kernel symbol" }, NULL,
	  "the verifier takes a typed defksym's address from the kernel's kallsyms, which lacks it: a "
	  "kernel built without CONFIG_KALLSYMS_ALL lists no variables there (functions only); a "
	  "typeless (defksym NAME) of a function still loads" },
	{ "bad-code", { "jump out of range", "unreachable insn", "last insn is not an exit", "invalid BPF_" },
	  "insn ",
	  "the instructions themselves are malformed: if the object comes from kiln, this is a "
	  "compiler bug; please report it with the source" },
};

const char *kiln_verifier_cause(const char *message, const char **hint)
{
	for (size_t i = 0; message && i < sizeof(causes) / sizeof(causes[0]); i++)
		for (size_t k = 0; k < 4 && causes[i].patterns[k]; k++)
			if (strstr(message, causes[i].patterns[k])) {
				if (hint)
					*hint = causes[i].hint;
				return causes[i].cause;
			}
	if (hint)
		*hint = "";
	return "";
}

static const struct cause_row *cause_row(const char *text)
{
	const char *hint, *cause = kiln_verifier_cause(text, &hint);
	for (size_t i = 0; *cause && i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].cause == cause)
			return &causes[i];
	return NULL;
}

/* ---- the log ----------------------------------------------------------------------------- */

struct line {
	const char *s;
	size_t n;
};

/* "N: (xx) ..." is an instruction the verifier is about to check; its index in *idx. */
static bool insn_line(struct line l, long *idx)
{
	size_t i = 0;
	while (i < l.n && isdigit((unsigned char)l.s[i]))
		i++;
	if (!i || i + 6 > l.n || l.s[i] != ':' || l.s[i + 1] != ' ' || l.s[i + 2] != '(' ||
	    !isxdigit((unsigned char)l.s[i + 3]) || !isxdigit((unsigned char)l.s[i + 4]) || l.s[i + 5] != ')')
		return false;
	if (idx)
		*idx = strtol(l.s, NULL, 10);
	return true;
}

/* The states the verifier prints after some messages ("infinite loop detected" compares two). */
static bool state_dump(struct line l)
{
	return (l.n > 10 && !strncmp(l.s, "cur state:", 10)) || (l.n > 10 && !strncmp(l.s, "old state:", 10));
}

/* Whether the path ends in a callback: the last register state printed before instruction
 * line `last` is a frame's the verifier marks " cb" (frame 0's has no "frameN:"). */
static bool in_callback(const struct line *ls, size_t last)
{
	for (size_t i = last; i-- > 0 && last - i <= 64;) {
		const char *s = ls[i].s;
		size_t n = ls[i].n;
		const char *fr = memmem(s, n, "frame", 5);
		if (fr && fr + 6 < s + n && isdigit((unsigned char)fr[5]) && fr[6] == ':')
			return n > 3 && !memcmp(s + n - 3, " cb", 3);
		if (memmem(s, n, "; R", 3) || memmem(s, n, ": R", 3))
			return false;
	}
	return false;
}

static bool stats_line(struct line l)
{
	static const char *const stats[] = { "processed ", "verification time", "stack depth " };
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (l.n >= strlen(stats[i]) && !strncmp(l.s, stats[i], strlen(stats[i])))
			return true;
	return false;
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

/* Lines a..b (exclusive) joined by '\n', trailing spaces of each dropped. */
static char *join(const struct line *ls, size_t a, size_t b)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (size_t i = a; i < b; i++) {
		size_t n = ls[i].n;
		while (n && isspace((unsigned char)ls[i].s[n - 1]))
			n--;
		fprintf(f, "%s%.*s", i > a ? "\n" : "", (int)n, ls[i].s);
	}
	fclose(f);
	return out;
}

/* The instruction as printed, without the state the verifier appends after " ; ". */
static char *insn_text(struct line l)
{
	const char *p = memchr(l.s, '(', l.n);
	size_t n = l.n - (size_t)(p - l.s);
	for (size_t i = 0; i + 2 < n; i++)
		if (p[i] == ' ' && p[i + 1] == ';' && p[i + 2] == ' ') {
			n = i;
			break;
		}
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	return dup_n(p, n);
}

/* "; TEXT @ FILE:LINE" before instruction lines: the last one before line `end`. */
static bool log_position(const struct line *ls, size_t end, char **file, unsigned *line, char **text)
{
	for (size_t i = end; i-- > 0;) {
		struct line l = ls[i];
		if (l.n < 2 || l.s[0] != ';')
			continue;
		const char *at = NULL;
		for (size_t k = 0; k + 3 <= l.n; k++)
			if (l.s[k] == ' ' && l.s[k + 1] == '@' && l.s[k + 2] == ' ')
				at = l.s + k + 3;
		if (!at)
			continue;
		const char *colon = NULL;   /* the last one: file names may have colons */
		for (const char *c = at; c < l.s + l.n; c++)
			if (*c == ':')
				colon = c;
		if (!colon)
			continue;
		unsigned ln = (unsigned)strtoul(colon + 1, NULL, 10);
		if (!ln)
			continue;
		*file = dup_n(at, (size_t)(colon - at));
		*line = ln;
		const char *t = l.s + 1;
		while (t < at - 3 && *t == ' ')
			t++;
		*text = dup_n(t, (size_t)(at - 3 - t));
		return true;
	}
	return false;
}

/* The public struct and the strings it owns (its pointers are these or ""). */
struct verr {
	struct kiln_verifier_error pub;
	char *owned[16];
	size_t nowned;
};

static const char *own(struct verr *v, char *s)
{
	if (!s)
		return "";
	if (v->nowned == sizeof(v->owned) / sizeof(v->owned[0])) {
		free(s);
		return "";
	}
	return v->owned[v->nowned++] = s;
}

void kiln_verifier_error_free(struct kiln_verifier_error *e)
{
	struct verr *v = (struct verr *)e;
	if (!v)
		return;
	for (size_t i = 0; i < v->nowned; i++)
		free(v->owned[i]);
	free(v);
}

int kiln_verifier_explain(const char *log, const char *prog, struct kiln_verifier_error **out)
{
	if (!log || !out)
		return kl_fail_msg(EINVAL, "kiln_verifier_explain: no log or no place for the result");
	*out = NULL;
	size_t nl = 1;
	for (const char *p = log; *p; p++)
		nl += *p == '\n';
	struct line *ls = calloc(nl, sizeof(*ls));
	struct verr *v = calloc(1, sizeof(*v));
	if (!ls || !v) {
		free(ls);
		free(v);
		return kl_fail(ENOMEM, "verifier log");
	}
	size_t n = 0;
	for (const char *p = log; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (len)
			ls[n++] = (struct line){ p, len };
		p += len + (eol != NULL);
	}
	/* The message ends where the statistics begin; it starts after the last instruction
	 * (or at the top when the verifier stopped before walking any: a bad CFG). */
	size_t end = 0, last = SIZE_MAX;
	while (end < n && !stats_line(ls[end]))
		end++;
	for (size_t i = 0; i < end; i++)
		if (insn_line(ls[i], NULL))
			last = i;
	size_t from = last == SIZE_MAX ? 0 : last + 1;
	while (from < end && ls[from].s[0] == ';')
		from++;
	size_t at = end;      /* the final message: the last line that is no source line or state */
	while (at > from && (ls[at - 1].s[0] == ';' || state_dump(ls[at - 1])))
		at--;
	at = at > from ? at - 1 : end;

	struct kiln_verifier_error *e = &v->pub;
	char *insn = NULL, *file = NULL, *text = NULL;
	unsigned line = 0;
	e->insn = -1;
	if (last != SIZE_MAX) {
		insn_line(ls[last], &e->insn);
		insn = insn_text(ls[last]);
		log_position(ls, last, &file, &line, &text);
	}
	char *message = at < end ? dup_n(ls[at].s, ls[at].n) : NULL;
	char *all = at < end ? join(ls, from, end) : NULL;
	const struct cause_row *row = cause_row(all);
	/* the instruction the message names, when it names one that matters more */
	const char *k = row && row->insn_key && all ? strstr(all, row->insn_key) : NULL;
	if (k && isdigit((unsigned char)k[strlen(row->insn_key)])) {
		long idx = strtol(k + strlen(row->insn_key), NULL, 10);
		if (idx != e->insn) {
			e->insn = idx;
			free(insn);
			free(file);
			free(text);
			insn = file = text = NULL;
			line = 0;
			for (size_t i = 0; i < end; i++) {   /* the log's own line for it, if any */
				long l;
				if (insn_line(ls[i], &l) && l == idx) {
					insn = insn_text(ls[i]);
					log_position(ls, i, &file, &line, &text);
					break;
				}
			}
		}
	}
	free(all);
	size_t ex_from = at > 8 ? at - 8 : 0;
	e->prog = own(v, prog ? strdup(prog) : NULL);
	e->message = own(v, message);
	e->detail = own(v, at < end && at > from ? join(ls, from, at) : NULL);
	e->insn_text = own(v, insn);
	e->file = own(v, file);
	e->line = line;
	e->source = own(v, text);
	e->cause = row ? row->cause : "";
	e->hint = row ? row->hint : "";
	if (last != SIZE_MAX && in_callback(ls, last)) {
		char *h = NULL;
		if (asprintf(&h, "%s%sthe instruction is in a bpf_loop callback: kiln lowers a long dotimes as one "
			     "(the pass bpf-loop), where the verifier knows the index only as a range; "
			     "-fno-bpf-loop keeps the loop", e->hint, e->hint[0] ? "; " : "") >= 0)
			e->hint = own(v, h);
	}
	e->excerpt = own(v, at < end && at > ex_from ? join(ls, ex_from, at) : NULL);
	free(ls);
	*out = e;
	return 0;
}

/* ---- the source position from .BTF.ext --------------------------------------------------- */

struct image {
	Elf *elf;
	const uint8_t *btf_str;   /* .BTF's strings */
	size_t btf_str_len;
	const uint8_t *ext;       /* .BTF.ext's line_info */
	size_t ext_len;
	Elf_Data *symtab;
	size_t nsyms, symtab_link;
};

static Elf_Data *section(Elf *elf, const char *name, size_t *index)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, name)) {
			if (index)
				*index = elf_ndxscn(scn);
			return sh.sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
		}
	}
	return NULL;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static const char *btf_str(const struct image *im, uint32_t off)
{
	if (off >= im->btf_str_len || !memchr(im->btf_str + off, 0, im->btf_str_len - off))
		return NULL;
	return (const char *)im->btf_str + off;
}

static bool image_open(struct image *im, const void *data, size_t size)
{
	memset(im, 0, sizeof(*im));
	elf_version(EV_CURRENT);
	if (!(im->elf = elf_memory((char *)data, size)))
		return false;
	Elf_Data *btf = section(im->elf, ".BTF", NULL), *ext = section(im->elf, ".BTF.ext", NULL);
	size_t symidx = 0;
	im->symtab = section(im->elf, ".symtab", &symidx);
	if (!btf || !ext || btf->d_size < 24 || ext->d_size < 32)
		return false;
	const uint8_t *b = btf->d_buf, *x = ext->d_buf;
	uint32_t hlen = u32_at(b + 4), str_off = u32_at(b + 16), str_len = u32_at(b + 20);
	if (b[0] != 0x9f || b[1] != 0xeb || (uint64_t)hlen + str_off + str_len > btf->d_size)
		return false;
	im->btf_str = b + hlen + str_off;
	im->btf_str_len = str_len;
	uint32_t xhlen = u32_at(x + 4), li_off = u32_at(x + 16), li_len = u32_at(x + 20);
	if (x[0] != 0x9f || x[1] != 0xeb || xhlen < 24 || (uint64_t)xhlen + li_off + li_len > ext->d_size)
		return false;
	im->ext = x + xhlen + li_off;
	im->ext_len = li_len;
	if (im->symtab) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(im->elf, symidx);
		if (scn && gelf_getshdr(scn, &sh) && sh.sh_entsize)
			im->nsyms = sh.sh_size / sh.sh_entsize;
	}
	return true;
}

/* A FUNC symbol in section shndx: by name, or (name NULL) the n-th. */
static bool func_sym(const struct image *im, size_t shndx, const char *name, size_t nth, GElf_Sym *out)
{
	size_t seen = 0;
	for (size_t i = 0; i < im->nsyms; i++) {
		GElf_Sym s;
		if (!gelf_getsym(im->symtab, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx != shndx)
			continue;
		if (name) {
			size_t strndx = 0;
			for (Elf_Scn *scn = NULL; !strndx && (scn = elf_nextscn(im->elf, scn));) {
				GElf_Shdr sh;
				if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
					strndx = sh.sh_link;
			}
			const char *n = elf_strptr(im->elf, strndx, s.st_name);
			if (n && !strcmp(n, name)) {
				*out = s;
				return true;
			}
		} else if (seen++ == nth) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* Which .text function an appended subprogram at final[start, start+len) is: same length
 * and the same opcodes (relocations change immediates and source registers only). */
static bool match_subprog(const struct image *im, const struct bpf_insn *final, size_t start, size_t len,
			  GElf_Sym *out)
{
	size_t text_idx;
	Elf_Data *text = section(im->elf, ".text", &text_idx);
	if (!text)
		return false;
	GElf_Sym s;
	for (size_t k = 0; func_sym(im, text_idx, NULL, k, &s); k++) {
		if (s.st_size != len * 8 || s.st_value % 8 || s.st_value + s.st_size > text->d_size)
			continue;
		const struct bpf_insn *orig = (const struct bpf_insn *)((const uint8_t *)text->d_buf + s.st_value);
		size_t i = 0;
		while (i < len && orig[i].code == final[start + i].code && orig[i].dst_reg == final[start + i].dst_reg)
			i++;
		if (i == len) {
			*out = s;
			return true;
		}
	}
	return false;
}

/* The section and byte offset in it that final instruction `insn` of program bp came from. */
static bool insn_origin(const struct image *im, const struct bpf_program *bp, long insn, const char **sec,
			uint64_t *off)
{
	size_t idx;
	*sec = bpf_program__section_name(bp);
	if (!section(im->elf, *sec, &idx))
		return false;
	GElf_Sym main;
	if (!func_sym(im, idx, bpf_program__name(bp), 0, &main))
		return false;
	size_t main_len = main.st_size / 8;
	if ((size_t)insn < main_len) {
		*off = main.st_value + (uint64_t)insn * 8;
		return true;
	}
	/* Past the program's own code: a subprogram libbpf appended. The appended ones start
	 * where calls (and callback addresses) point. */
	const struct bpf_insn *fin = bpf_program__insns(bp);
	size_t nfin = bpf_program__insn_cnt(bp);
	if (!fin || (size_t)insn >= nfin)
		return false;
	size_t start = main_len, next = nfin;
	for (size_t i = 0; i < nfin; i++) {
		bool call = fin[i].code == (BPF_JMP | BPF_CALL) && fin[i].src_reg == BPF_PSEUDO_CALL;
		bool func = fin[i].code == (BPF_LD | BPF_IMM | BPF_DW) && fin[i].src_reg == BPF_PSEUDO_FUNC;
		if (!call && !func)
			continue;
		long t = (long)i + fin[i].imm + 1;
		if (t <= insn && (size_t)t > start)
			start = (size_t)t;
		if (t > insn && (size_t)t < next)
			next = (size_t)t;
	}
	GElf_Sym sub;
	if (!match_subprog(im, fin, start, next - start, &sub))
		return false;
	*sec = ".text";
	*off = sub.st_value + (uint64_t)(insn - (long)start) * 8;
	return true;
}

/* The line_info record of section sec covering byte offset off. */
static bool line_record(const struct image *im, const char *sec, uint64_t off, uint32_t rec[4])
{
	if (im->ext_len < 4)
		return false;
	uint32_t rec_size = u32_at(im->ext);
	if (rec_size < 16)
		return false;
	bool found = false;
	for (size_t p = 4; p + 8 <= im->ext_len;) {
		const char *name = btf_str(im, u32_at(im->ext + p));
		uint32_t count = u32_at(im->ext + p + 4);
		p += 8;
		if ((uint64_t)count * rec_size > im->ext_len - p)
			return false;
		bool mine = name && !strcmp(name, sec);
		for (uint32_t i = 0; mine && i < count; i++) {
			const uint8_t *r = im->ext + p + (size_t)i * rec_size;
			if (u32_at(r) > off)
				continue;
			if (!found || u32_at(r) >= rec[0]) {
				for (int k = 0; k < 4; k++)
					rec[k] = u32_at(r + 4 * k);
				found = true;
			}
		}
		p += (size_t)count * rec_size;
	}
	return found;
}

/* The instruction whose source line says where e happened. For "infinite loop detected at
 * insn N", N is the loop's first instruction (the head of its body, once the optimizer put
 * the loop's test at the bottom): the line is that of the last jump back to N, the loop's
 * test, whose condition nothing in the body changed. Otherwise e's own instruction. */
static long loop_test(const struct bpf_program *bp, const struct kiln_verifier_error *e)
{
	const struct bpf_insn *fin = bpf_program__insns(bp);
	size_t n = bpf_program__insn_cnt(bp);
	if (!e->message || !strstr(e->message, "infinite loop detected") || !fin || (size_t)e->insn >= n)
		return e->insn;
	long best = e->insn;
	for (size_t j = (size_t)e->insn + 1; j < n; j++) {
		uint8_t cls = BPF_CLASS(fin[j].code), op = BPF_OP(fin[j].code);
		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
		    (long)j + fin[j].off + 1 == e->insn)
			best = (long)j;
	}
	return best;
}

int kl_verifier_analyze(const char *log, const struct bpf_program *bp, const void *image, size_t size,
			struct kiln_verifier_error **out)
{
	int err = kiln_verifier_explain(log, bp ? bpf_program__name(bp) : NULL, out);
	if (err || !bp || !image || (*out)->insn < 0)
		return err;
	struct kiln_verifier_error *e = *out;
	struct image im;
	const char *sec;
	uint64_t off;
	uint32_t rec[4];
	if (image_open(&im, image, size) && insn_origin(&im, bp, loop_test(bp, e), &sec, &off) &&
	    line_record(&im, sec, off, rec)) {
		const char *file = btf_str(&im, rec[1]), *text = btf_str(&im, rec[2]);
		if (file && text) {
			struct verr *v = (struct verr *)e;
			e->file = own(v, strdup(file));
			e->source = own(v, strdup(text));
			e->line = rec[3] >> 10;
			e->col = rec[3] & 0x3ff;
		}
	}
	if (im.elf)
		elf_end(im.elf);
	return 0;
}

/* ---- printing ---------------------------------------------------------------------------- */

/* Whether byte c of the log or the source is shown as \xHH: control bytes (ESC, NUL...) and
 * DEL, so that a source cannot drive the terminal; tabs kept. */
static bool escaped(unsigned char c)
{
	return (c < 0x20 && c != '\t') || c == 0x7f;
}

static void put_safe(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (escaped(c))
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

void kiln_verifier_error_print(const struct kiln_verifier_error *e, FILE *out, int excerpt)
{
	if (!e || !out)
		return;
	const char *msg = e->message[0] ? e->message : "(no message in the log)";
	if (e->file[0] && e->line) {
		put_safe(out, e->file, strlen(e->file));
		if (e->col)
			fprintf(out, ":%u:%u: the verifier refused this: ", e->line, e->col);
		else
			fprintf(out, ":%u: the verifier refused this line: ", e->line);
	} else {
		fputs("the verifier says: ", out);
	}
	put_safe(out, msg, strlen(msg));
	fputc('\n', out);
	if (e->source[0]) {
		size_t len = strlen(e->source);
		fputs("  ", out);
		put_safe(out, e->source, len);
		fputc('\n', out);
		if (e->col) {
			fputs("  ", out);
			for (unsigned i = 1; i < e->col && i <= len; i++)
				for (int k = 0; k < (escaped((unsigned char)e->source[i - 1]) ? 4 : 1); k++)
					fputc(e->source[i - 1] == '\t' ? '\t' : ' ', out);
			fputs("^\n", out);
		}
	}
	if (e->insn >= 0)
		fprintf(out, "  at instruction %ld%s%s\n", e->insn, e->insn_text[0] ? ": " : "", e->insn_text);
	if (e->hint[0])
		fprintf(out, "  hint: %s\n", e->hint);
	if (excerpt && e->excerpt[0]) {
		fputs("  the verifier's last steps:\n", out);
		for (const char *p = e->excerpt; *p;) {
			const char *eol = strchr(p, '\n');
			size_t len = eol ? (size_t)(eol - p) : strlen(p);
			fputs("    ", out);
			put_safe(out, p, len);
			fputc('\n', out);
			p += len + (eol != NULL);
		}
	}
}
