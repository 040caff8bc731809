/* core_relos.c — test tool: the CO-RE relocation records of a BPF object's .BTF.ext, as libbpf
 * reads them, and the size of each program section (in 8-byte instruction slots).
 * usage: core_relos [--verifier] OBJ
 * Prints "insns SECTION N" per executable section, then one line per record,
 * "relo SECTION INSN_OFF KIND TYPE ACCESS" (TYPE: kind and name of the local BTF type the
 * record points at; ACCESS: the access string), then "kinds KIND=COUNT ..." over all records.
 * Exits 1 when the object or its BTF cannot be read or a record is malformed (a type id or
 * string offset out of range, an unknown kind, an instruction offset outside its section).
 * --verifier also loads OBJ with libbpf (root) and prints "processed SECTION N", the verifier's
 * count of instructions processed for each program (BPF_LOG_STATS). */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const kinds[] = {
	"field_byte_offset", "field_byte_size", "field_exists", "field_signed", "field_lshift_u64",
	"field_rshift_u64", "type_id_local", "type_id_target", "type_exists", "type_size",
	"enumval_exists", "enumval_value", "type_matches",
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

struct btf_ext_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

static int fail(const char *what)
{
	fprintf(stderr, "core_relos: %s\n", what);
	return 1;
}

/* Load PATH with libbpf, each program with a stats log: its "processed N insns". */
static int verifier(const char *path)
{
	static char logs[16][64 * 1024];
	libbpf_set_print(NULL);          /* a refused .BTF is the tests' business, not the bench's */
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_program *p;
	int n = 0;
	if (!obj)
		return fail("libbpf cannot open the object");
	bpf_object__for_each_program(p, obj) {
		if (n == 16)
			break;
		bpf_program__set_log_buf(p, logs[n++], sizeof(logs[0]));
		bpf_program__set_log_level(p, 4 /* BPF_LOG_STATS */);
	}
	if (bpf_object__load(obj)) {
		bpf_object__close(obj);
		return fail("libbpf cannot load the object");
	}
	n = 0;
	bpf_object__for_each_program(p, obj) {
		const char *q = n < 16 ? strstr(logs[n++], "processed ") : NULL;
		printf("processed %s %ld\n", bpf_program__section_name(p), q ? atol(q + 10) : -1L);
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	bool load = argc == 3 && !strcmp(argv[1], "--verifier");
	if (load) {
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: core_relos [--verifier] OBJ\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	int fd = open(argv[1], O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t shstrndx;
	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return fail("not an ELF file");
	Elf_Data *btf_data = NULL, *ext_data = NULL;
	size_t nsecs = 0;
	elf_getshdrnum(e, &nsecs);
	uint64_t *sec_size = calloc(nsecs + 1, sizeof(*sec_size));
	char **sec_name = calloc(nsecs + 1, sizeof(*sec_name));
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		gelf_getshdr(s, &sh);
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".BTF"))
			btf_data = elf_getdata(s, NULL);
		else if (!strcmp(name, ".BTF.ext"))
			ext_data = elf_getdata(s, NULL);
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			size_t i = elf_ndxscn(s);
			if (i < nsecs) {
				sec_size[i] = sh.sh_size;
				sec_name[i] = strdup(name);
			}
			printf("insns %s %llu\n", name, (unsigned long long)(sh.sh_size / 8));
		}
	}
	if (!btf_data)
		return fail("no .BTF section");
	struct btf *btf = btf__new(btf_data->d_buf, btf_data->d_size);
	if (!btf)
		return fail("libbpf cannot parse .BTF");
	unsigned counts[NKINDS] = { 0 };
	if (ext_data) {
		const uint8_t *p = ext_data->d_buf;
		size_t len = ext_data->d_size;
		struct btf_ext_hdr h = { 0 };
		if (len < 8)
			return fail(".BTF.ext too short");
		memcpy(&h, p, len < sizeof(h) ? len : sizeof(h));
		if (h.magic != 0xeB9F)
			return fail(".BTF.ext: bad magic");
		if (h.hdr_len >= 32 && h.core_relo_len) {
			const uint8_t *c = p + h.hdr_len + h.core_relo_off, *end = c + h.core_relo_len;
			if (h.hdr_len + h.core_relo_off + (size_t)h.core_relo_len > len || h.core_relo_len < 4)
				return fail(".BTF.ext: core_relo outside the section");
			uint32_t rec_size;
			memcpy(&rec_size, c, 4);
			c += 4;
			if (rec_size < 16)
				return fail(".BTF.ext: core_relo record size below 16");
			while (c + 8 <= end) {
				uint32_t sec_off, n;
				memcpy(&sec_off, c, 4);
				memcpy(&n, c + 4, 4);
				c += 8;
				const char *sec = btf__str_by_offset(btf, sec_off);
				if (!sec || (size_t)(end - c) < (size_t)n * rec_size)
					return fail(".BTF.ext: bad core_relo section header");
				uint64_t size = 0;
				for (size_t i = 0; i < nsecs; i++)
					if (sec_name[i] && !strcmp(sec_name[i], sec))
						size = sec_size[i];
				for (uint32_t i = 0; i < n; i++, c += rec_size) {
					uint32_t r[4];
					memcpy(r, c, 16);
					const struct btf_type *t = btf__type_by_id(btf, r[1]);
					const char *acc = btf__str_by_offset(btf, r[2]);
					if (!t || !acc || r[3] >= NKINDS || r[0] >= size || r[0] % 8) {
						fprintf(stderr, "core_relos: bad record in %s: insn_off %u type %u access %u kind %u\n",
							sec, r[0], r[1], r[2], r[3]);
						return 1;
					}
					const char *tname = btf__name_by_offset(btf, t->name_off);
					static const char *const tk[] = { "unknown", "int", "ptr", "array", "struct", "union",
						"enum", "fwd", "typedef", "volatile", "const", "restrict", "func",
						"func_proto", "var", "datasec", "float", "decl_tag", "type_tag", "enum64" };
					unsigned k = btf_kind(t);
					printf("relo %s %u %s %s:%s %s\n", sec, r[0] / 8, kinds[r[3]],
					       k < sizeof(tk) / sizeof(tk[0]) ? tk[k] : "?", tname && *tname ? tname : "(anon)",
					       acc);
					counts[r[3]]++;
				}
			}
		}
	}
	printf("kinds");
	for (size_t k = 0; k < NKINDS; k++)
		if (counts[k])
			printf(" %s=%u", kinds[k], counts[k]);
	printf("\n");
	btf__free(btf);
	elf_end(e);
	close(fd);
	for (size_t i = 0; i < nsecs; i++)
		free(sec_name[i]);
	free(sec_name);
	free(sec_size);
	return load ? verifier(argv[1]) : 0;
}
