/* stack.c — stack traces: the addresses of a :stack-trace map entry, and a symbolizer for
 * them. Kernel addresses through /proc/kallsyms (read once, sorted, binary search); user
 * addresses through /proc/PID/maps (read once per pid) and the ELF symbol tables of the mapped
 * files (libelf, read once per file, sorted), with file:line from DWARF through libdwfl where
 * the file (or its separate debug file) has it. Everything lives in the symbolizer: no global
 * state, and files are open only while read, except those libdwfl keeps for line lookups. */
#define _GNU_SOURCE
#include "kiln/stack.h"
#include "fail.h"
#include "text.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A kernel address this far past the nearest symbol belongs to none (past the end of the
 * text, or JIT code kallsyms does not list). */
#define KSYM_MAX_OFFSET (1u << 20)

int kiln_stack_read(struct kiln_map *stacks, uint32_t id, uint64_t *ips, size_t max)
{
	if (!stacks)
		return kl_fail_msg(EINVAL, "kiln_stack_read: no map");
	const struct kiln_map_info *info = kiln_map_info(stacks);
	if (info->type != BPF_MAP_TYPE_STACK_TRACE)
		return kl_fail_msg(EINVAL, "map '%s' is a %s map, not a stack_trace map", kiln_map_name(stacks),
				   kiln_map_type_name(info->type));
	if (info->flags & BPF_F_STACK_BUILD_ID)
		return kl_fail_msg(EOPNOTSUPP, "map '%s' holds build ids and file offsets (BPF_F_STACK_BUILD_ID), not addresses",
				   kiln_map_name(stacks));
	if (!info->value_size || info->value_size % 8)
		return kl_fail_msg(EINVAL, "map '%s' has value size %u, not a multiple of 8", kiln_map_name(stacks),
				   info->value_size);
	uint64_t *v = malloc(info->value_size);
	if (!v)
		return kl_fail(ENOMEM, "reading stack %u of map '%s'", id, kiln_map_name(stacks));
	int err = kiln_map_lookup(stacks, &id, v);
	if (err == -ENOENT)
		err = kl_fail_msg(ENOENT, "map '%s' has no stack id %u", kiln_map_name(stacks), id);
	size_t n = 0;
	if (!err) {
		size_t slots = info->value_size / 8;
		while (n < slots && n < max && v[n])
			n++;
		if (ips)
			memcpy(ips, v, n * sizeof(*v));
	}
	free(v);
	return err ? err : (int)n;
}

/* ---- the symbolizer's state ----------------------------------------------------------- */

struct ksym {
	uint64_t addr;
	const char *name, *module;   /* into kallsyms text */
	uint32_t rank;               /* among symbols at one address, the lowest is named */
};

struct fsym {
	uint64_t addr, size;
	const char *name;            /* into the file's names */
	int global;
};

struct src_path {
	struct src_path *next;
	const char *key;             /* the name as libdw has it */
	char *path;                  /* made absolute */
};

struct load_seg {
	uint64_t offset, vaddr, filesz;
};

/* One mapped ELF file, by device and inode (several processes, several mappings). */
struct elf_file {
	struct elf_file *next;
	unsigned long dev_major, dev_minor;
	uint64_t inode;
	char *path;                  /* as the first process maps it */
	int err;                     /* 0, or why the file could not be read (kept) */
	struct load_seg *segs;
	size_t nsegs;
	struct fsym *syms;
	size_t nsyms;
	char *names;
	Dwfl *dwfl;                  /* line lookups, created at the first one */
	Dwfl_Module *dwmod;
	uint64_t dwbias;
	bool dw_tried;
	struct src_path *srcs;
};

struct mapping {
	uint64_t start, end, offset, inode;
	unsigned long dev_major, dev_minor;
	char *path;                  /* NULL for anonymous memory */
	char *shown;                 /* path escaped for printing (text.h), when it needs it */
	struct elf_file *file;       /* found at first use */
};

/* An address in no mapping makes the maps be read again, this many times per process at
 * most (a stack may hold garbage). */
#define PROC_MAX_RELOADS 8

struct proc {
	struct proc *next;           /* the newest reading of a pid comes first */
	int pid;
	int reloads;
	struct mapping *maps;
	size_t nmaps;
};

struct kiln_syms {
	/* kallsyms */
	bool k_loaded, k_hidden;
	char *ktext;
	struct ksym *ksyms;
	size_t nksyms;
	/* processes and files */
	struct proc *procs;
	struct elf_file *files;
};

int kiln_syms_new(struct kiln_syms **out)
{
	if (!out)
		return kl_fail_msg(EINVAL, "kiln_syms_new: nowhere to put the symbolizer");
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return kl_fail(ENOMEM, "creating a symbolizer");
	return 0;
}

static void file_free(struct elf_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	for (struct src_path *p = f->srcs, *next; p; p = next) {
		next = p->next;
		free(p->path);
		free(p);
	}
	free(f->path);
	free(f->segs);
	free(f->syms);
	free(f->names);
	free(f);
}

void kiln_syms_free(struct kiln_syms *s)
{
	if (!s)
		return;
	free(s->ktext);
	free(s->ksyms);
	for (struct proc *p = s->procs, *next; p; p = next) {
		next = p->next;
		for (size_t i = 0; i < p->nmaps; i++)
			free(p->maps[i].path), free(p->maps[i].shown);
		free(p->maps);
		free(p);
	}
	for (struct elf_file *f = s->files, *next; f; f = next) {
		next = f->next;
		file_free(f);
	}
	free(s);
}

/* A whole file (of /proc, whose size stat does not know) into a malloc'd, NUL-terminated
 * buffer; -errno. */
static int read_all(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int err = 0;
	while (buf) {
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!buf)
		return -ENOMEM;
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = 0;
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

/* ---- kernel ---------------------------------------------------------------------------- */

static uint32_t ksym_rank(char type, const char *name)
{
	/* global text first, then local, then weak; names without a leading '_' first (the
	 * aliases _text, _stext and __pi_* share addresses with real functions) */
	uint32_t r = type == 'T' ? 0 : type == 't' ? 2 : 4;
	return r + (name[0] == '_');
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;   /* file order: stable */
}

static int kallsyms_load(struct kiln_syms *s)
{
	char *text;
	size_t len;
	int err = read_all("/proc/kallsyms", &text, &len);
	if (err)
		return kl_fail(err, "reading /proc/kallsyms");
	size_t lines = 0;
	for (char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		lines++;
	struct ksym *syms = malloc((lines + 1) * sizeof(*syms));
	if (!syms) {
		free(text);
		return kl_fail(ENOMEM, "reading /proc/kallsyms");
	}
	size_t n = 0;
	bool any_addr = false;
	for (char *line = text, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = 0;
		/* "ffffffff81000000 T _stext" or "... t name\t[module]" */
		char *end;
		uint64_t addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		char type = end[1];
		char *name = end + 3;
		if (addr)
			any_addr = true;
		/* text only: stacks hold code addresses, and data or absolute symbols (per-CPU
		 * offsets) would name what lies between functions */
		if (!addr || !(type == 't' || type == 'T' || type == 'w' || type == 'W'))
			continue;
		const char *module = "kernel";
		char *tab = strchr(name, '\t');
		if (tab) {
			*tab = 0;
			char *m = tab + 1;
			if (*m == '[') {
				m++;
				char *close = strchr(m, ']');
				if (close)
					*close = 0;
				module = m;
			}
		}
		syms[n++] = (struct ksym){ .addr = addr, .name = name, .module = module,
					   .rank = ksym_rank(type, name) };
	}
	if (!any_addr) {
		free(syms);
		free(text);
		s->k_loaded = s->k_hidden = true;
		return 0;
	}
	qsort(syms, n, sizeof(*syms), ksym_cmp);
	s->ktext = text;
	s->ksyms = syms;
	s->nksyms = n;
	s->k_loaded = true;
	return 0;
}

/* The kernel's symbols, a process's mappings and a file's symbols are tables sorted by the
 * address each entry starts with: how many entries start at or below addr (so the last of
 * them, if any, is at that count minus one). */
static size_t count_at_or_below(const void *table, size_t n, size_t stride, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t start;
		memcpy(&start, (const char *)table + mid * stride, sizeof(start));
		if (start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
_Static_assert(offsetof(struct ksym, addr) == 0 && offsetof(struct fsym, addr) == 0 &&
	       offsetof(struct mapping, start) == 0, "count_at_or_below reads the address at offset 0");

int kiln_syms_kernel(struct kiln_syms *s, uint64_t addr, struct kiln_frame *f)
{
	if (!s || !f)
		return kl_fail_msg(EINVAL, "kiln_syms_kernel: no symbolizer or frame");
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	if (!s->k_loaded) {
		int err = kallsyms_load(s);
		if (err)
			return err;
	}
	if (s->k_hidden)
		return kl_fail_msg(ENOENT, "/proc/kallsyms shows no addresses (kernel.kptr_restrict, or not root)");
	/* the last symbol at or below addr, then the first (best ranked) at its address */
	size_t lo = count_at_or_below(s->ksyms, s->nksyms, sizeof(*s->ksyms), addr);
	if (!lo || addr - s->ksyms[lo - 1].addr >= KSYM_MAX_OFFSET)
		return kl_fail_msg(ENOENT, "no kernel symbol for 0x%" PRIx64, addr);
	size_t i = lo - 1;
	while (i && s->ksyms[i - 1].addr == s->ksyms[i].addr)
		i--;
	f->symbol = s->ksyms[i].name;
	f->offset = addr - s->ksyms[i].addr;
	f->module = s->ksyms[i].module;
	return 0;
}

/* ---- user: /proc/PID/maps ---------------------------------------------------------------- */

static int proc_load(struct kiln_syms *s, int pid, struct proc **out)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	int err = read_all(path, &text, NULL);
	if (err == -ENOENT || err == -ESRCH)
		return kl_fail_msg(ESRCH, "process %d: no such process", pid);
	if (err)
		return kl_fail(err, "reading %s", path);
	struct proc *p = calloc(1, sizeof(*p));
	size_t cap = 0;
	if (!p)
		goto oom;
	p->pid = pid;
	for (char *line = text, *next; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = 0;
		/* "55d0c2a4c000-55d0c2a4e000 r-xp 00002000 fd:01 1234   /usr/bin/cat" */
		unsigned long long start, end, offset, inode;
		unsigned int major, minor;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset, &major, &minor,
			   &inode, &pos) < 7)
			continue;
		const char *name = line + pos;
		if (p->nmaps == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct mapping *nm = realloc(p->maps, ncap * sizeof(*nm));
			if (!nm)
				goto oom;
			p->maps = nm;
			cap = ncap;
		}
		struct mapping *m = &p->maps[p->nmaps];
		*m = (struct mapping){ .start = start, .end = end, .offset = offset, .inode = inode,
				       .dev_major = major, .dev_minor = minor };
		if (*name && !(m->path = strdup(name)))
			goto oom;
		if (*name && !kl_text_plain(name)) {
			size_t sl = strlen(name) * 4 + 4;
			if (!(m->shown = malloc(sl))) {
				free(m->path);
				goto oom;
			}
			kl_text_escape(m->shown, sl, name);
		}
		p->nmaps++;
	}
	free(text);
	p->next = s->procs;
	s->procs = p;
	*out = p;
	return 0;
oom:
	free(text);
	if (p) {
		for (size_t i = 0; i < p->nmaps; i++)
			free(p->maps[i].path), free(p->maps[i].shown);
		free(p->maps);
		free(p);
	}
	return kl_fail(ENOMEM, "reading %s", path);
}

/* The mapping of p holding addr (/proc/PID/maps is sorted), or NULL. */
static struct mapping *proc_find(struct proc *p, uint64_t addr)
{
	size_t lo = count_at_or_below(p->maps, p->nmaps, sizeof(*p->maps), addr);
	return lo && addr < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

/* ---- user: ELF files ---------------------------------------------------------------------- */

/* The file a mapping shows, checked against the mapping's inode: by its path, through the
 * process's root (another mount namespace), or through map_files (deleted or replaced since).
 * The fd, or -1; *via is a path that names the same file for as long as fd is open. */
static int mapping_open(int pid, const struct mapping *m, char *via, size_t vlen)
{
	for (int i = 0; i < 3; i++) {
		if (i == 0)
			snprintf(via, vlen, "%s", m->path);
		else if (i == 1)
			snprintf(via, vlen, "/proc/%d/root%s", pid, m->path);
		else
			snprintf(via, vlen, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
		int fd = open(via, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (!fstat(fd, &st) && (uint64_t)st.st_ino == m->inode && S_ISREG(st.st_mode)) {
			if (i == 2)   /* the process may go: our own descriptor's link stays */
				snprintf(via, vlen, "/proc/self/fd/%d", fd);
			return fd;
		}
		close(fd);
	}
	return -1;
}

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return y->global - x->global;          /* global names first */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;               /* sized first */
	return strcmp(x->name, y->name);
}

/* Program headers and function symbols of the file at fd. */
static int elf_read(struct elf_file *f, int fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return kl_fail_msg(EINVAL, "libelf: %s", elf_errmsg(-1));
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return kl_fail_msg(EINVAL, "%s: not an ELF file (%s)", f->path, elf_errmsg(-1));
	int err = 0;
	GElf_Ehdr eh;
	size_t nph = 0;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &nph)) {
		err = kl_fail_msg(ENOEXEC, "%s: not an executable or shared object", f->path);
		goto out;
	}
	f->segs = calloc(nph ? nph : 1, sizeof(*f->segs));
	if (!f->segs)
		goto oom;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->segs[f->nsegs++] = (struct load_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	/* .symtab, or .dynsym when the file is stripped */
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	memset(&symsh, 0, sizeof(symsh));
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !symscn)) {
			symscn = scn;
			symsh = sh;
		}
	}
	if (!symscn || !symsh.sh_entsize)
		goto out;   /* no symbols: addresses stay unnamed */
	Elf_Data *data = elf_getdata(symscn, NULL);
	size_t count = data ? symsh.sh_size / symsh.sh_entsize : 0;
	size_t names_len = 0, n = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			f->syms = malloc((n ? n : 1) * sizeof(*f->syms));
			f->names = malloc(names_len ? names_len : 1);
			if (!f->syms || !f->names)
				goto oom;
			n = names_len = 0;
		}
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			int type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			const char *name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			/* any binary's names: escaped once here for every printer (text.h) */
			char esc[4096];
			if (!kl_text_plain(name))
				name = kl_text_escape(esc, sizeof(esc), name);
			size_t len = strlen(name) + 1;
			if (pass) {
				memcpy(f->names + names_len, name, len);
				f->syms[n] = (struct fsym){ sym.st_value, sym.st_size, f->names + names_len,
							    GELF_ST_BIND(sym.st_info) != STB_LOCAL };
			}
			names_len += len;
			n++;
		}
	}
	f->nsyms = n;
	qsort(f->syms, n, sizeof(*f->syms), fsym_cmp);
	goto out;
oom:
	err = kl_fail(ENOMEM, "reading the symbols of %s", f->path);
out:
	elf_end(elf);
	return err;
}

/* The file of mapping m of pid, read at its first use (shared by dev and inode). */
static int file_get(struct kiln_syms *s, int pid, struct mapping *m, struct elf_file **out)
{
	if (m->file) {
		*out = m->file;
		return m->file->err;
	}
	struct elf_file *f;
	for (f = s->files; f; f = f->next)
		if (f->inode == m->inode && f->dev_major == m->dev_major && f->dev_minor == m->dev_minor)
			break;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f || !(f->path = strdup(m->path))) {
			free(f);
			return kl_fail(ENOMEM, "reading the symbols of %s", m->path);
		}
		f->inode = m->inode;
		f->dev_major = m->dev_major;
		f->dev_minor = m->dev_minor;
		char via[4200];
		int fd = mapping_open(pid, m, via, sizeof(via));
		if (fd < 0)
			f->err = kl_fail_msg(ENOENT, "%s (mapped by process %d): cannot open it", m->path, pid);
		else {
			f->err = elf_read(f, fd);
			close(fd);
		}
		if (f->err == -ENOMEM) {   /* not kept: another try may do better */
			file_free(f);
			return -ENOMEM;
		}
		/* a file that cannot be read is kept with its error: it is tried once */
		f->next = s->files;
		s->files = f;
	}
	m->file = f;
	*out = f;
	return f->err;
}

/* Set up line lookups for f (once): libdwfl opens the file itself, and finds DWARF in it or in
 * a separate debug file (build id, .gnu_debuglink). */
static void file_dwfl(struct elf_file *f, int pid, const struct mapping *m)
{
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	if (f->dw_tried)
		return;
	f->dw_tried = true;
	char path[4200];
	int fd = mapping_open(pid, m, path, sizeof(path));
	if (fd < 0)
		return;
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod = NULL;
	if (dwfl) {
		dwfl_report_begin(dwfl);
		mod = dwfl_report_offline(dwfl, f->path, path, -1);
		if (dwfl_report_end(dwfl, NULL, NULL))
			mod = NULL;
	}
	close(fd);
	GElf_Addr bias = 0;
	if (!mod || !dwfl_module_getelf(mod, &bias)) {
		if (dwfl)
			dwfl_end(dwfl);
		return;
	}
	f->dwfl = dwfl;
	f->dwmod = mod;
	f->dwbias = bias;
}

/* src made absolute with the unit's compilation directory when it is relative (gcc records
 * "tests/x.c" under DW_AT_comp_dir), kept in ef; src itself when absolute or on failure. */
static const char *dw_abs(struct elf_file *ef, Dwarf_Die *cudie, const char *src)
{
	if (!src)
		return NULL;
	for (struct src_path *p = ef->srcs; p; p = p->next)
		if (p->key == src)
			return p->path;
	Dwarf_Attribute attr;
	const char *dir = src[0] == '/' || !cudie ? NULL : dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	if (dir && dir[0] != '/')    /* a relative one is already joined by libdw */
		dir = NULL;
	if (!dir && kl_text_plain(src))
		return src;
	/* joined, and escaped: the file's DWARF is untrusted, and its names reach terminals */
	char *joined = NULL;
	struct src_path *p = malloc(sizeof(*p));
	if (!p || asprintf(&joined, "%s%s%s", dir ? dir : "", dir && dir[strlen(dir) - 1] != '/' ? "/" : "", src) < 0 ||
	    !(p->path = malloc(strlen(joined) * 4 + 4))) {
		free(p);
		free(joined);
		return kl_text_plain(src) ? src : NULL;
	}
	kl_text_escape(p->path, strlen(joined) * 4 + 4, joined);
	free(joined);
	p->key = src;
	p->next = ef->srcs;
	ef->srcs = p;
	return p->path;
}

/* The source file and line of vaddr (an address of the file as it is linked), or NULL.
 * libdwfl finds the unit through .debug_aranges; files without them (clang does not emit them
 * by default, and libdw 0.188 does not fall back) are searched unit by unit. */
static const char *dw_line(struct elf_file *ef, uint64_t vaddr, int *lineno)
{
	Dwfl_Line *line = dwfl_module_getsrc(ef->dwmod, vaddr + ef->dwbias);
	if (line) {
		const char *src = dwfl_lineinfo(line, NULL, lineno, NULL, NULL, NULL);
		return dw_abs(ef, dwfl_linecu(line), src);
	}
	Dwarf_Addr dbias;
	Dwarf *dw = dwfl_module_getdwarf(ef->dwmod, &dbias);
	if (!dw)
		return NULL;
	Dwarf_Addr pc = vaddr + ef->dwbias - dbias;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	while (!dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		if ((unit_type != DW_UT_compile && unit_type != DW_UT_partial) || dwarf_haspc(&cudie, pc) <= 0)
			continue;
		Dwarf_Line *l = dwarf_getsrc_die(&cudie, pc);
		const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		if (src && !dwarf_lineno(l, lineno))
			return dw_abs(ef, &cudie, src);
		return NULL;
	}
	return NULL;
}

int kiln_syms_user(struct kiln_syms *s, int pid, uint64_t addr, struct kiln_frame *f)
{
	if (!s || !f)
		return kl_fail_msg(EINVAL, "kiln_syms_user: no symbolizer or frame");
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	if (pid <= 0)
		return kl_fail_msg(EINVAL, "kiln_syms_user: pid %d", pid);
	struct proc *p;
	for (p = s->procs; p && p->pid != pid; p = p->next)
		;
	if (!p) {
		int err = proc_load(s, pid, &p);
		if (err)
			return err;
	}
	struct mapping *m = proc_find(p, addr);
	if (!m && p->reloads < PROC_MAX_RELOADS) {
		/* mapped since the maps were read (dlopen, JIT)? read them again; the old ones stay,
		 * for the strings already handed out */
		struct proc *fresh;
		if (!proc_load(s, pid, &fresh)) {
			fresh->reloads = p->reloads + 1;
			p = fresh;
			m = proc_find(p, addr);
		}
	}
	if (!m || !m->path)
		return kl_fail_msg(ENOENT, "0x%" PRIx64 " is in no file mapped by process %d", addr, pid);
	f->module = m->shown ? m->shown : m->path;
	if (m->path[0] == '[' || !m->inode)
		return 0;   /* [vdso], [stack], ...: known, unnamed */
	struct elf_file *ef;
	int err = file_get(s, pid, m, &ef);
	if (err == -ENOMEM)
		return err;
	if (err)
		return 0;   /* the mapping is known; its file could not be read */
	/* the file offset, then the virtual address of the segment that loads it */
	uint64_t off = addr - m->start + m->offset, vaddr = 0;
	bool found = false;
	for (size_t i = 0; i < ef->nsegs && !found; i++) {
		const struct load_seg *sg = &ef->segs[i];
		if (off >= sg->offset && off < sg->offset + sg->filesz) {
			vaddr = off - sg->offset + sg->vaddr;
			found = true;
		}
	}
	if (!found)
		return 0;
	size_t lo = count_at_or_below(ef->syms, ef->nsyms, sizeof(*ef->syms), vaddr);
	/* the nearest start at or below; a sized symbol must contain vaddr (looking a few back
	 * for one that encloses it), an unsized one is taken as it is */
	const struct fsym *best = NULL;
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++) {
		const struct fsym *y = &ef->syms[i - 1];
		if (y->size ? vaddr < y->addr + y->size : k == 0) {
			best = y;
			/* the best ranked of those at this address */
			while (best > ef->syms && best[-1].addr == best->addr &&
			       (!best[-1].size || vaddr < best[-1].addr + best[-1].size))
				best--;
			break;
		}
	}
	if (best) {
		f->symbol = best->name;
		f->offset = vaddr - best->addr;
	}
	file_dwfl(ef, pid, m);
	if (ef->dwmod) {
		f->file = dw_line(ef, vaddr, &f->line);
		if (!f->symbol) {
			/* a local function a stripped file lists only in its separate debug file */
			GElf_Off off;
			GElf_Sym sym;
			const char *name = dwfl_module_addrinfo(ef->dwmod, vaddr + ef->dwbias, &off, &sym, NULL,
								NULL, NULL);
			if (name && (GELF_ST_TYPE(sym.st_info) == STT_FUNC || GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC)) {
				f->symbol = name;
				f->offset = off;
			}
		}
	}
	return 0;
}

const char *kiln_frame_format(const struct kiln_frame *f, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	size_t n;
	if (f->symbol)
		n = (size_t)snprintf(buf, len, "%s+0x%" PRIx64, f->symbol, f->offset);
	else
		n = (size_t)snprintf(buf, len, "0x%" PRIx64, f->addr);
	if (n >= len)
		return buf;
	if (f->file) {
		const char *base = strrchr(f->file, '/');
		snprintf(buf + n, len - n, " (%s:%d)", base ? base + 1 : f->file, f->line);
	} else if (f->module) {
		snprintf(buf + n, len - n, " [%s]", f->module);
	}
	return buf;
}
