/* btfdump.c — `kiln btf dump FILE|id:N [--format raw|c]`: the BTF of an object or raw BTF file
 * (btf__parse: an ELF's .BTF, or /sys/kernel/btf/vmlinux), or of a BTF object loaded in the
 * kernel, by id (a module's or a program's, split on vmlinux where it is). raw prints one line
 * per type and one per member, as bpftool's raw format does, so the two compare line for line;
 * c prints the types as C declarations through libbpf's btf_dump. Names come from whoever
 * built the BTF: each is escaped (kl_safe) before it reaches the terminal. A file's bytes are
 * checked (lib/validate.h) before libbpf reads them. */
#define _GNU_SOURCE   /* vasprintf */
#include "cli.h"
#include "compiler/diag.h"
#include "lib/text.h"
#include "lib/validate.h"
#include <bpf/btf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char btf_help[] =
	"usage: kiln btf dump FILE|id:N [--format raw|c]\n"
	"\n"
	"Print the BTF types of FILE (a BPF ELF object's .BTF, or a raw BTF file such as\n"
	"/sys/kernel/btf/vmlinux) or of the BTF object with id N loaded in the kernel (a\n"
	"program's, a map's or a module's; `kiln prog list --json` gives programs' btf_id).\n"
	"\n"
	"options:\n"
	"  --format raw    one line per type, `[ID] KIND 'name' ...`, and one per member,\n"
	"                  parameter, enumerator or section variable, tab-indented: the layout\n"
	"                  of bpftool's raw format (the default)\n"
	"  --format c      the types as C declarations (libbpf's btf_dump), dependencies first\n";

static const char *name_of(const struct btf *btf, uint32_t off)
{
	const char *s = off ? btf__name_by_offset(btf, off) : NULL;
	return s && *s ? kl_safe(s) : "(anon)";
}

static const char *const kind_names[] = {
	[BTF_KIND_INT] = "INT", [BTF_KIND_PTR] = "PTR", [BTF_KIND_ARRAY] = "ARRAY",
	[BTF_KIND_STRUCT] = "STRUCT", [BTF_KIND_UNION] = "UNION", [BTF_KIND_ENUM] = "ENUM",
	[BTF_KIND_FWD] = "FWD", [BTF_KIND_TYPEDEF] = "TYPEDEF", [BTF_KIND_VOLATILE] = "VOLATILE",
	[BTF_KIND_CONST] = "CONST", [BTF_KIND_RESTRICT] = "RESTRICT", [BTF_KIND_FUNC] = "FUNC",
	[BTF_KIND_FUNC_PROTO] = "FUNC_PROTO", [BTF_KIND_VAR] = "VAR", [BTF_KIND_DATASEC] = "DATASEC",
	[BTF_KIND_FLOAT] = "FLOAT", [BTF_KIND_DECL_TAG] = "DECL_TAG", [BTF_KIND_TYPE_TAG] = "TYPE_TAG",
	[BTF_KIND_ENUM64] = "ENUM64",
};

static const char *linkage_name(uint32_t l)
{
	return l == BTF_FUNC_STATIC ? "static" : l == BTF_FUNC_GLOBAL ? "global" : l == BTF_FUNC_EXTERN ? "extern" : "(unknown)";
}

static const char *int_encoding(uint8_t e)
{
	return e & BTF_INT_SIGNED ? "SIGNED" : e & BTF_INT_CHAR ? "CHAR" : e & BTF_INT_BOOL ? "BOOL" : "(none)";
}

/* The members, parameters, enumerators and variables under type t, one a line. */
static void raw_children(FILE *out, const struct btf *btf, const struct btf_type *t)
{
	uint16_t vlen = btf_vlen(t);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		for (uint16_t i = 0; i < vlen; i++, m++) {
			fprintf(out, "\t'%s' type_id=%u bits_offset=%u", name_of(btf, m->name_off), m->type,
				btf_member_bit_offset(t, i));
			if (btf_member_bitfield_size(t, i))
				fprintf(out, " bitfield_size=%u", btf_member_bitfield_size(t, i));
			fputc('\n', out);
		}
		break;
	}
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);
		for (uint16_t i = 0; i < vlen; i++, e++)
			if (btf_kflag(t))
				fprintf(out, "\t'%s' val=%d\n", name_of(btf, e->name_off), e->val);
			else
				fprintf(out, "\t'%s' val=%u\n", name_of(btf, e->name_off), (uint32_t)e->val);
		break;
	}
	case BTF_KIND_ENUM64: {
		const struct btf_enum64 *e = btf_enum64(t);
		for (uint16_t i = 0; i < vlen; i++, e++) {
			uint64_t v = btf_enum64_value(e);
			if (btf_kflag(t))
				fprintf(out, "\t'%s' val=%lldLL\n", name_of(btf, e->name_off), (long long)v);
			else
				fprintf(out, "\t'%s' val=%lluULL\n", name_of(btf, e->name_off), (unsigned long long)v);
		}
		break;
	}
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *p = btf_params(t);
		for (uint16_t i = 0; i < vlen; i++, p++)
			fprintf(out, "\t'%s' type_id=%u\n", name_of(btf, p->name_off), p->type);
		break;
	}
	case BTF_KIND_DATASEC: {
		const struct btf_var_secinfo *v = btf_var_secinfos(t);
		for (uint16_t i = 0; i < vlen; i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);
			fprintf(out, "\ttype_id=%u offset=%u size=%u (%s '%s')\n", v->type, v->offset, v->size,
				var && btf_kind(var) < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[btf_kind(var)]
					? kind_names[btf_kind(var)] : "UNKNOWN",
				var ? name_of(btf, var->name_off) : "(anon)");
		}
		break;
	}
	default:
		break;
	}
}

/* Type id as one line (and its children). */
static void raw_type(FILE *out, const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint32_t k = btf_kind(t);
	const char *kn = k < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[k] ? kind_names[k] : "UNKNOWN";
	fprintf(out, "[%u] %s '%s'", id, kn, name_of(btf, t->name_off));
	switch (k) {
	case BTF_KIND_INT:
		fprintf(out, " size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size, btf_int_offset(t), btf_int_bits(t),
			int_encoding(btf_int_encoding(t)));
		break;
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		fprintf(out, " type_id=%u", t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		fprintf(out, " type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type, a->nelems);
		break;
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		fprintf(out, " size=%u vlen=%u", t->size, btf_vlen(t));
		break;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		fprintf(out, " encoding=%s size=%u vlen=%u", btf_kflag(t) ? "SIGNED" : "UNSIGNED", t->size, btf_vlen(t));
		break;
	case BTF_KIND_FWD:
		fprintf(out, " fwd_kind=%s", btf_kflag(t) ? "union" : "struct");
		break;
	case BTF_KIND_FUNC:
		fprintf(out, " type_id=%u linkage=%s", t->type, linkage_name(btf_vlen(t)));
		break;
	case BTF_KIND_FUNC_PROTO:
		fprintf(out, " ret_type_id=%u vlen=%u", t->type, btf_vlen(t));
		break;
	case BTF_KIND_VAR:
		fprintf(out, " type_id=%u, linkage=%s", t->type, linkage_name(btf_var(t)->linkage));
		break;
	case BTF_KIND_DATASEC:
		fprintf(out, " size=%u vlen=%u", t->size, btf_vlen(t));
		break;
	case BTF_KIND_FLOAT:
		fprintf(out, " size=%u", t->size);
		break;
	case BTF_KIND_DECL_TAG:
		fprintf(out, " type_id=%u component_idx=%d", t->type, btf_decl_tag(t)->component_idx);
		break;
	default:
		break;
	}
	fputc('\n', out);
	raw_children(out, btf, t);
}

/* btf_dump's text, its names' control bytes (other than \n and \t) written as \xHH */
static void c_printf(void *ctx, const char *fmt, va_list args)
{
	char *text = NULL;
	int n = vasprintf(&text, fmt, args);
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fprintf(ctx, "\\x%02x", c);
		else
			fputc(c, ctx);
	}
	free(text);
}

/* Every type of btf's own (not its base's) as C, each declaration once, dependencies first,
 * inside the guard and the CO-RE attribute a vmlinux.h has (so the output is one). */
static int dump_c(FILE *out, const struct btf *btf, uint32_t first)
{
	struct btf_dump *d = btf_dump__new(btf, c_printf, out, NULL);
	if (!d)
		return -errno;
	fputs("#ifndef __VMLINUX_H__\n#define __VMLINUX_H__\n\n#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n"
	      "#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)\n#endif\n\n", out);
	int err = 0;
	for (uint32_t id = first; id < btf__type_cnt(btf) && !err; id++)
		err = btf_dump__dump_type(d, id);
	fputs("#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop\n#endif\n\n#endif /* __VMLINUX_H__ */\n", out);
	btf_dump__free(d);
	return err;
}

/* A file's BTF: its bytes checked before libbpf reads any (an ELF object whole, as libkiln
 * checks one it opens; a raw blob as its .BTF would be), then parsed from those same bytes. */
static struct btf *file_btf(const char *path)
{
	size_t len;
	char *data = kl_read_file(path, &len);
	if (!data)
		return NULL;
	struct btf *btf = NULL;
	bool elf = len >= 4 && !memcmp(data, "\x7f" "ELF", 4);
	int err = elf ? kl_object_validate(data, len, path) : kl_btf_raw_validate(data, len, path);
	if (err) {
		fprintf(stderr, "kiln btf dump: %s\n", kiln_errmsg());
		errno = 0;   /* (said) */
	} else if (!elf) {
		btf = btf__new(data, (uint32_t)len);
	} else {   /* libbpf reads an ELF's .BTF from a path: these bytes, through a memfd */
		int fd = memfd_create("kiln-btf", MFD_CLOEXEC);
		char fdpath[64];
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		if (fd >= 0 && write(fd, data, len) == (ssize_t)len)
			btf = btf__parse_elf(fdpath, NULL);
		int e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
	}
	int e = errno;
	free(data);
	errno = e;
	return btf;
}

/* WHAT as BTF: id:N from the kernel (split on vmlinux's when it is a module's), else a file. */
static struct btf *open_btf(const char *what, struct btf **base)
{
	*base = NULL;
	if (strncmp(what, "id:", 3))
		return file_btf(what);
	char *end;
	errno = 0;
	unsigned long id = strtoul(what + 3, &end, 10);
	if (!what[3] || *end || errno || id == 0 || id > UINT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	struct btf *btf = btf__load_from_kernel_by_id((uint32_t)id);
	if (btf || errno != EINVAL)
		return btf;
	/* a module's BTF refers to vmlinux's types: split on them */
	*base = btf__load_vmlinux_btf();
	return *base ? btf__load_from_kernel_by_id_split((uint32_t)id, *base) : NULL;
}

int cmd_btf(int argc, char **argv)
{
	const char *format = "raw", *pos[2] = { 0 };
	const struct cli_opt opts[] = { { "--format", CLI_STR, &format, "raw|c" }, { 0 } };
	int npos, r = cli_parse("btf", btf_help, argc, argv, opts, pos, 2, &npos);
	if (r != CLI_OK)
		return r;
	if (npos != 2 || strcmp(pos[0], "dump")) {
		if (npos && strcmp(pos[0], "dump"))
			fprintf(stderr, "kiln btf: unknown subcommand '%s'\n", kl_safe(pos[0]));
		fputs(btf_help, stderr);
		return 2;
	}
	if (strcmp(format, "raw") && strcmp(format, "c")) {
		fprintf(stderr, "kiln btf: --format takes raw or c, not '%s'\n", kl_safe(format));
		return 2;
	}
	struct btf *base, *btf = open_btf(pos[1], &base);
	if (!btf && !errno) {   /* refused, and said */
		btf__free(base);
		return 1;
	}
	if (!btf) {
		int e = errno;
		fprintf(stderr, "kiln btf dump: %s: %s%s\n", kl_safe(pos[1]), strerror(e),
			e == EINVAL && !strncmp(pos[1], "id:", 3) ? " (id:N takes a BTF object's id, a number)" : "");
		btf__free(base);
		return 1;
	}
	uint32_t first = base ? btf__type_cnt(base) : 1;
	int err = 0;
	if (!strcmp(format, "c"))
		err = dump_c(stdout, btf, first);
	else
		for (uint32_t id = first; id < btf__type_cnt(btf); id++)
			raw_type(stdout, btf, id);
	if (err)
		fprintf(stderr, "kiln btf dump: %s: %s\n", kl_safe(pos[1]), strerror(-err));
	btf__free(btf);
	btf__free(base);
	return err ? 1 : 0;
}
