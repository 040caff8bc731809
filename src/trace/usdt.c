/* usdt.c — USDT probes of an ELF file and their arguments (usdt.h). */
#include "trace/usdt.h"
#include "trace/elfsyms.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file offset of virtual address va (0 when no section of the file holds it). */
static uint64_t file_offset(Elf *e, uint64_t va)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && (sh.sh_flags & SHF_ALLOC) && va >= sh.sh_addr &&
		    va < sh.sh_addr + sh.sh_size)
			return va - sh.sh_addr + sh.sh_offset;
	}
	return 0;
}

/* The address of section name (0 when there is none). */
static uint64_t section_addr(Elf *e, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, name))
			return sh.sh_addr;
	}
	return 0;
}

/* One stapsdt note's descriptor: pc, base, semaphore (8 bytes each on 64-bit), then
 * provider, name and arguments as strings. */
static int usdt_note(struct kl_arena *a, Elf *e, const uint8_t *d, size_t len, uint64_t base_now, struct kt_usdt *u)
{
	uint64_t pc, base, sema;
	if (len < 24 + 3)
		return -1;
	memcpy(&pc, d, 8);
	memcpy(&base, d + 8, 8);
	memcpy(&sema, d + 16, 8);
	const char *s = (const char *)d + 24, *end = (const char *)d + len;
	const char *str[3];
	for (int i = 0; i < 3; i++) {
		const char *z = memchr(s, 0, (size_t)(end - s));
		if (!z)
			return -1;
		str[i] = s;
		s = z + 1;
	}
	if (base_now && base) {   /* prelinked: everything moved by as much as .stapsdt.base */
		pc += base_now - base;
		if (sema)
			sema += base_now - base;
	}
	*u = (struct kt_usdt){ kl_arena_strdup(a, str[0]), kl_arena_strdup(a, str[1]), kl_arena_strdup(a, str[2]),
		file_offset(e, pc), sema ? file_offset(e, sema) : 0 };
	return u->offset ? 0 : -1;
}

int kt_elf_usdt(struct kl_arena *a, const char *path, struct kt_usdt **out, uint32_t *n, char *msg, size_t len)
{
	*out = NULL;
	*n = 0;
	int fd;
	Elf *e = kt_elf_open(path, &fd, msg, len);
	if (!e)
		return -1;
	KL_VEC(struct kt_usdt) v = { 0 };
	uint64_t base_now = section_addr(e, ".stapsdt.base");
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off, next;
		while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			struct kt_usdt u;
			if (nh.n_type == 3 && nh.n_namesz == 8 && !memcmp((const char *)d->d_buf + name_off, "stapsdt", 8) &&
			    !usdt_note(a, e, (const uint8_t *)d->d_buf + desc_off, nh.n_descsz, base_now, &u))
				kl_vec_push(a, &v, u);
			off = next;
		}
	}
	kt_elf_close(e, fd);
	*out = v.items;
	*n = (uint32_t)v.len;
	return 0;
}

uint32_t kt_usdt_nargs(const char *args)
{
	uint32_t n = 0;
	for (const char *s = args; *s;) {
		s += strspn(s, " ");
		if (!*s)
			break;
		n++;
		s += strcspn(s, " ");
	}
	return n;
}

/* x86-64's registers by every name of their parts, at their offset in struct pt_regs. */
static const struct { const char *names[4]; uint32_t off; } regs[] = {
	{ { "r15", "r15d", "r15w", "r15b" }, 0 }, { { "r14", "r14d", "r14w", "r14b" }, 8 },
	{ { "r13", "r13d", "r13w", "r13b" }, 16 }, { { "r12", "r12d", "r12w", "r12b" }, 24 },
	{ { "rbp", "ebp", "bp", "bpl" }, 32 }, { { "rbx", "ebx", "bx", "bl" }, 40 },
	{ { "r11", "r11d", "r11w", "r11b" }, 48 }, { { "r10", "r10d", "r10w", "r10b" }, 56 },
	{ { "r9", "r9d", "r9w", "r9b" }, 64 }, { { "r8", "r8d", "r8w", "r8b" }, 72 },
	{ { "rax", "eax", "ax", "al" }, 80 }, { { "rcx", "ecx", "cx", "cl" }, 88 },
	{ { "rdx", "edx", "dx", "dl" }, 96 }, { { "rsi", "esi", "si", "sil" }, 104 },
	{ { "rdi", "edi", "di", "dil" }, 112 }, { { "rsp", "esp", "sp", "spl" }, 152 },
};

static int reg_offset(const char *name, size_t len, uint32_t *off)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (int k = 0; k < 4; k++)
			if (strlen(regs[i].names[k]) == len && !strncmp(regs[i].names[k], name, len)) {
				*off = regs[i].off;
				return 0;
			}
	return -1;
}

int kt_usdt_arg(const char *args, uint32_t i, struct kt_usdt_arg *out, char *msg, size_t len)
{
	const char *s = args;
	for (uint32_t k = 0;; k++) {
		s += strspn(s, " ");
		if (!*s) {
			snprintf(msg, len, "the probe has %u arguments", kt_usdt_nargs(args));
			return -1;
		}
		if (k == i)
			break;
		s += strcspn(s, " ");
	}
	char op[128];
	snprintf(op, sizeof(op), "%.*s", (int)strcspn(s, " "), s);
	*out = (struct kt_usdt_arg){ 0 };
	char *p = op, *end;
	long size = strtol(p, &end, 10);
	if (*end != '@' || !size || labs(size) > 8 || (labs(size) & (labs(size) - 1))) {
		snprintf(msg, len, "argument %u '%s': no SIZE@ before the operand", i, op);
		return -1;
	}
	out->size = (uint32_t)labs(size);
	out->is_signed = size < 0;
	p = end + 1;
	if (*p == '$') {
		out->kind = KT_UA_IMM;
		errno = 0;
		out->value = strtoll(p + 1, &end, 0);
		if (!*end && !errno)
			return 0;
	} else if (*p == '%') {
		out->kind = KT_UA_REG;
		if (!reg_offset(p + 1, strlen(p + 1), &out->reg))
			return 0;
	} else {
		out->kind = KT_UA_MEM;
		out->value = *p == '(' ? 0 : strtoll(p, &end, 0);
		char *open = *p == '(' ? p : end;
		char *close = *open == '(' ? strchr(open, ')') : NULL;
		if (close && open[1] == '%' && !close[1] && !memchr(open, ',', (size_t)(close - open)) &&
		    !reg_offset(open + 2, (size_t)(close - open - 2), &out->reg))
			return 0;
	}
	snprintf(msg, len, "argument %u '%s' is an operand kiln trace does not read yet", i, op);
	return -1;
}
