/* btf_ext.c — .BTF.ext of a kiln object, written by hand (libbpf has no writer for it): a
 * func_info record per function, a line_info record per instruction that starts a new source
 * position (file, line text, line and column), and CO-RE relocation records, each grouped by
 * code section as clang lays them out. The strings (source lines, access strings) go into .BTF,
 * so this runs before .BTF is taken. */
#include "btf_internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_split_lines(struct bb *b)
{
	const char *src = b->obj->source;
	if (!src)
		return 0;
	uint32_t n = 1;
	for (const char *p = src; *p; p++)
		n += *p == '\n';
	b->line_at = calloc(n + 1, sizeof(*b->line_at));
	if (!b->line_at)
		return bb_fail(b, ENOMEM, "out of memory");
	b->line_at[1] = src;
	b->nlines = 1;
	for (const char *p = src; *p; p++)
		if (*p == '\n')
			b->line_at[++b->nlines] = p + 1;
	return 0;
}

/* The string offset of source line `line`'s text, without its newline. */
static int line_text(struct bb *b, uint32_t line)
{
	if (!line || line > b->nlines)
		return 0;
	const char *s = b->line_at[line];
	size_t n = strcspn(s, "\n");
	if (n && s[n - 1] == '\r')
		n--;
	char *t = bb_scratch(b, n);
	if (!t)
		return bb_fail(b, ENOMEM, "out of memory");
	memcpy(t, s, n);
	t[n] = 0;
	return bb_check(b, btf__add_str(b->btf, t), "line text");
}

/* A growable u32 stream for .BTF.ext, in host order like the BTF libbpf writes (kiln
 * targets little-endian BPF from little-endian hosts). */
struct words {
	uint32_t *w;
	size_t n, cap;
};

static int put(struct bb *b, struct words *v, uint32_t x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		uint32_t *w = realloc(v->w, cap * sizeof(*w));
		if (!w)
			return bb_fail(b, ENOMEM, "out of memory");
		v->w = w;
		v->cap = cap;
	}
	v->w[v->n++] = x;
	return 0;
}

static uint32_t line_col(uint32_t line, uint32_t col)
{
	if (line > (1u << 22) - 1)
		line = (1u << 22) - 1;
	return line << 10 | (col > 1023 ? 1023 : col);
}

/* One line_info record per instruction that starts a new source position. The kernel
 * wants one at each function's first instruction, offsets strictly increasing, and none
 * on the second half of an ld_imm64. */
static int func_lines(struct bb *b, const struct kl_func *f, uint32_t file_off,
		      struct words *out, uint32_t *count)
{
	bool *second = calloc(f->ninsns, sizeof(*second));
	if (!second)
		return bb_fail(b, ENOMEM, "out of memory");
	for (uint32_t i = 0; i + 1 < f->ninsns; i++)
		if (f->insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			second[++i] = true;

	int err = 0;
	int64_t prev = -1;
	for (uint32_t k = 0; k <= f->nlines && !err; k++) {
		uint32_t insn, line, col;
		if (k == 0) {
			/* the defprog/defun form, unless a record for insn 0 replaces it */
			insn = 0, line = f->line, col = f->col;
		} else {
			const struct kl_line *l = &f->lines[k - 1];
			insn = l->insn, line = l->line, col = l->col;
			if (insn >= f->ninsns || second[insn] || (int64_t)insn < prev || !line)
				continue;
		}
		int text = line_text(b, line);
		if (text < 0) {
			err = text;
			break;
		}
		if ((int64_t)insn == prev)
			out->n -= 4;    /* the innermost position of an instruction wins */
		else
			++*count;
		prev = insn;
		err = put(b, out, f->text_off + insn * 8);
		err = err ? err : put(b, out, file_off);
		err = err ? err : put(b, out, (uint32_t)text);
		err = err ? err : put(b, out, line_col(line, col));
	}
	free(second);
	return err;
}

/* CO-RE relocation records, grouped by section (only sections that have some: libbpf refuses a
 * group of none), each pointing at its local type and an access string "0:3:1". A type id
 * relocation's instruction carries the local id, known only now. */
static int core_relos(struct bb *b, const char **secs, uint32_t nsecs, struct words *out)
{
	const struct kl_obj *obj = b->obj;
	uint32_t total = 0;
	for (uint32_t i = 0; i < obj->nfuncs; i++)
		total += obj->funcs[i].ncore;
	if (!total)
		return 0;
	int err = put(b, out, 16);
	for (uint32_t s = 0; s < nsecs && !err; s++) {
		size_t head = out->n;
		uint32_t n = 0;
		for (uint32_t k = b->sec_start[s]; k < b->sec_start[s + 1] && !err; k++) {
			const struct kl_func *f = &obj->funcs[b->by_sec[k]];
			if (!f->ncore)
				continue;
			if (!n) {
				int name = bb_check(b, btf__add_str(b->btf, secs[s]), "section name");
				err = name < 0 ? name : put(b, out, (uint32_t)name);
				err = err ? err : put(b, out, 0);
			}
			for (uint32_t k = 0; k < f->ncore && !err; k++) {
				const struct kl_core_reloc *r = &f->core[k];
				int tid = bb_type_id(b, r->type);
				if (tid < 0) {
					err = tid;
					break;
				}
				char acc[256];
				size_t len = 0;
				acc[0] = 0;
				for (uint32_t a = 0; a < r->naccess && len < sizeof(acc) - 12; a++)
					len += (size_t)snprintf(acc + len, sizeof(acc) - len, a ? ":%u" : "%u", r->access[a]);
				int str = bb_check(b, btf__add_str(b->btf, acc), "access string");
				if (str < 0) {
					err = str;
					break;
				}
				if (r->kind == BPF_CORE_TYPE_ID_LOCAL || r->kind == BPF_CORE_TYPE_ID_TARGET)
					f->insns[r->insn].imm = tid;
				err = put(b, out, f->text_off + r->insn * 8);
				err = err ? err : put(b, out, (uint32_t)tid);
				err = err ? err : put(b, out, (uint32_t)str);
				err = err ? err : put(b, out, r->kind);
				n++;
			}
		}
		if (n)
			out->w[head + 1] = n;
	}
	return err;
}

/* .BTF.ext: func_info and line_info, each grouped by ELF section; none (NULL, 0) for an
 * object without functions. */
int bb_build_ext(struct bb *b, const char **secs, uint32_t nsecs, void **ext,
		     uint32_t *ext_len)
{
	const struct kl_obj *obj = b->obj;
	struct words fi = { 0 }, li = { 0 };
	int file_off = bb_check(b, btf__add_str(b->btf, obj->source_path ? obj->source_path : ""),
			     "file name");
	int err = file_off < 0 ? file_off : 0;

	err = err ? err : put(b, &fi, 8);
	err = err ? err : put(b, &li, 16);
	for (uint32_t s = 0; s < nsecs && !err; s++) {
		int name = bb_check(b, btf__add_str(b->btf, secs[s]), "section name");
		if (name < 0) {
			err = name;
			break;
		}
		size_t fhead = fi.n, lhead = li.n;
		uint32_t nf = 0, nl = 0;
		err = put(b, &fi, (uint32_t)name);
		err = err ? err : put(b, &fi, 0);
		err = err ? err : put(b, &li, (uint32_t)name);
		err = err ? err : put(b, &li, 0);
		for (uint32_t k = b->sec_start[s]; k < b->sec_start[s + 1] && !err; k++) {
			uint32_t i = b->by_sec[k];
			const struct kl_func *f = &obj->funcs[i];
			err = put(b, &fi, f->text_off);
			err = err ? err : put(b, &fi, (uint32_t)b->func_id[i]);
			nf++;
			err = err ? err : func_lines(b, f, (uint32_t)file_off, &li, &nl);
		}
		if (err)
			break;
		fi.w[fhead + 1] = nf;
		li.w[lhead + 1] = nl;
	}

	struct words cr = { 0 };
	err = err ? err : core_relos(b, secs, nsecs, &cr);

	uint32_t flen = fi.n > 1 ? (uint32_t)(fi.n * 4) : 0;
	uint32_t llen = li.n > 1 ? (uint32_t)(li.n * 4) : 0;
	uint32_t clen = cr.n > 1 ? (uint32_t)(cr.n * 4) : 0;
	uint8_t *buf = NULL;
	if (!err && !flen && !llen)
		goto out;       /* no functions: libbpf refuses a .BTF.ext without records */
	if (!err && !(buf = malloc(32 + flen + llen + clen)))
		err = bb_fail(b, ENOMEM, "out of memory");
	if (!err) {
		struct {
			uint16_t magic;
			uint8_t version, flags;
			uint32_t hdr_len;
			uint32_t func_info_off, func_info_len;
			uint32_t line_info_off, line_info_len;
			uint32_t core_relo_off, core_relo_len;
		} hdr = { 0xeB9F, 1, 0, 32, 0, flen, flen, llen, flen + llen, clen };
		_Static_assert(sizeof(hdr) == 32, ".BTF.ext header is 32 bytes");
		memcpy(buf, &hdr, 32);
		if (flen)
			memcpy(buf + 32, fi.w, flen);
		if (llen)
			memcpy(buf + 32 + flen, li.w, llen);
		if (clen)
			memcpy(buf + 32 + flen + llen, cr.w, clen);
		*ext = buf;
		*ext_len = 32 + flen + llen + clen;
	}
out:
	free(fi.w);
	free(li.w);
	free(cr.w);
	return err;
}

