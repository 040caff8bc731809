/* maps.c — `kiln map dump|get|set|delete|list`: maps by pinned path, id or name, keys and
 * values typed in by the map's BTF (kiln_map_parse_key/_value: JSON objects for structs,
 * addresses, strings, integers), decoded by BTF out, as text or JSON lines. */
#define _GNU_SOURCE   /* qsort_r */
#include "cli.h"
#include "kfacts/map_types.h"
#include <bpf/btf.h>
#include <bpf/bpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char map_help[] =
	"usage: kiln map dump TARGET [--json] [--all]\n"
	"       kiln map get TARGET KEY [--json]\n"
	"       kiln map set TARGET KEY VALUE [--any|--noexist|--exist]\n"
	"       kiln map delete TARGET KEY\n"
	"       kiln map push TARGET VALUE [--exist]\n"
	"       kiln map pop TARGET [--json]\n"
	"       kiln map peek TARGET [VALUE] [--json]\n"
	"       kiln map list [--json]\n"
	"\n"
	"TARGET is a pinned path (/sys/fs/bpf/...), id:N or name:NAME. Keys and values are typed\n"
	"by the map's BTF: integers (decimal, 0x hex, negative; checked against the type's width\n"
	"and sign), structs as JSON objects of their fields ('{\"saddr\": \"10.0.0.1\", \"dport\": 80}';\n"
	"fields left out are zero), arrays as JSON arrays, char arrays as strings, :ipv4 and :ipv6\n"
	"fields as addresses. An lpm-trie key may be written ADDRESS/PREFIXLEN (10.0.0.0/8,\n"
	"fd00::/16). Without BTF, and for a struct too, a key or value is an integer or 0x and\n"
	"every byte in hex. Output is decoded by the map's BTF when it has one (addresses as\n"
	"addresses, so what get prints can be typed back); per-CPU maps show\n"
	"one value per possible CPU, and `set` writes one value to every CPU, or a JSON list of one\n"
	"per CPU ('[1,2]'). dump lists every entry (arrays: their non-zero slots, or all with\n"
	"--all; a queue or stack shows its next element).\n"
	"push, pop and peek work on queues, stacks and bloom filters, which have no keys: push\n"
	"adds VALUE (--exist lets a full queue or stack drop its oldest element), pop takes the\n"
	"next element, peek shows it; `peek TARGET VALUE` asks a bloom filter whether VALUE may\n"
	"be in it (exit status 0) or certainly is not (1). push also writes a record into a user\n"
	"ring buffer, for its programs to drain: an integer (8 bytes) or 0x and every byte.\n"
	"A data section's map (an object's global variables: OBJ.rodata, OBJ.data, OBJ.bss) dumps\n"
	"its variables by name, and its KEY may be a variable's name: `get TARGET hits` prints\n"
	"`hits => 3`, `set TARGET hits 0` writes that variable alone (.rodata refuses once loaded:\n"
	"set a defparameter before load with --set).\n"
	"\n"
	"Maps of kernel objects are set to what they hold: a prog-array to a program, a map of\n"
	"maps to a map (pinned path, id:N, name:NAME), a cgroup-array to a cgroup v2 directory,\n"
	"a sockmap, sockhash or reuseport sockarray to PID:FD (the socket process PID holds as\n"
	"its fd FD); dump lists the ids, devmaps' ifindexes, cpumaps' queue sizes and socket\n"
	"cookies the kernel gives back. Local storage is keyed by what owns the value: a PID\n"
	"(task storage), PID:FD (sk storage), a file (inode storage), a cgroup v2 directory\n"
	"(cgrp storage).\n";

void cli_fail(const char *cmd)
{
	fprintf(stderr, "kiln %s: %s\n", cmd, kiln_errmsg());
	/* a refusal for want of privilege says so, whatever call met it first */
	if (strstr(kiln_errmsg(), strerror(EPERM)) && kiln_bpf_privileged())
		fprintf(stderr, "kiln %s: %s\n", cmd, kiln_errmsg());
}

int cli_map_open_target(const char *cmd, const char *target, struct kiln_map **out)
{
	int err;
	if (!strncmp(target, "id:", 3)) {
		char *end;
		unsigned long id = strtoul(target + 3, &end, 10);
		if (!target[3] || *end || id > UINT32_MAX) {
			fprintf(stderr, "kiln %s: '%s' is not id:NUMBER\n", cmd, target);
			return -EINVAL;
		}
		err = kiln_map_open_id((uint32_t)id, out);
	} else if (!strncmp(target, "name:", 5)) {
		err = kiln_map_open_name(target + 5, out);
	} else {
		err = kiln_map_open_pinned(target, out);
	}
	if (err)
		cli_fail(cmd);
	return err;
}

static struct btf *map_btf(const struct kiln_map_info *info)
{
	if (!info->btf_id)
		return NULL;
	struct btf *btf = btf__load_from_kernel_by_id(info->btf_id);
	return btf;   /* libbpf 1.x: NULL on failure */
}

/* What the kernel gives user space for the maps that hold fds: ids, ifindexes, queue sizes,
 * socket cookies (the held column of kfacts/map_types.def); a devmap's or cpumap's 8-byte
 * value adds the id of the program run on it. */
static bool show_held(FILE *out, const struct kiln_map_info *info, const uint8_t *v, bool json)
{
	const struct kl_map_type *t = kl_map_type_facts(info->type);
	if (!t->held)
		return false;
	uint64_t x = 0;
	uint32_t y = 0;
	memcpy(&x, v, t->held_width);
	bool second = info->value_size >= 8 && t->held_prog;
	if (second)
		memcpy(&y, v + 4, 4);
	fprintf(out, json ? "{\"%s\":%llu" : "%s %llu", t->held, (unsigned long long)x);
	if (second)
		fprintf(out, json ? ",\"prog_id\":%u" : " prog_id %u", y);
	if (json)
		fputc('}', out);
	return true;
}

/* The value of one entry: plain, or per CPU as a list. */
/* Per-CPU integers summed over the CPUs (kiln run's default): one count, as people read it.
 * false when the value is not an integer of at most 8 bytes (those keep one value a CPU). */
static bool show_sum(FILE *out, const struct kiln_map *m, const struct btf *btf, const uint8_t *v)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	int id = btf && info->btf_value_type_id ? btf__resolve_type(btf, info->btf_value_type_id) : -1;
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	bool sign = t && btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);
	if ((btf && info->btf_value_type_id && !(t && btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL))) ||
	    info->value_size > 8 || (info->value_size & (info->value_size - 1)))
		return false;
	size_t stride = kiln_map_value_stride(m), n = info->value_size;
	uint64_t sum = 0;
	for (size_t c = 0; c < kiln_map_value_buf_size(m) / stride; c++) {
		uint64_t x = 0;
		memcpy(&x, v + c * stride, n);
		if (sign && n < 8 && (x >> (8 * n - 1)) & 1)
			x |= ~(uint64_t)0 << (8 * n);
		sum += x;
	}
	if (sign)
		fprintf(out, "%lld", (long long)sum);
	else
		fprintf(out, "%llu", (unsigned long long)sum);
	return true;
}

static void show_value(FILE *out, const struct kiln_map *m, const struct btf *btf, const uint8_t *v, bool json,
		       bool sum)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	if (show_held(out, info, v, json))
		return;
	if (!kiln_map_is_percpu(m)) {
		cli_show(out, btf, info->btf_value_type_id, v, info->value_size, json);
		return;
	}
	if (sum && show_sum(out, m, btf, v))
		return;
	size_t stride = kiln_map_value_stride(m);
	int ncpu = (int)(kiln_map_value_buf_size(m) / stride);
	fputc('[', out);
	for (int c = 0; c < ncpu; c++) {
		if (c)
			fputs(json ? "," : " ", out);
		cli_show(out, btf, info->btf_value_type_id, v + (size_t)c * stride, info->value_size, json);
	}
	fputc(']', out);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct print_ctx {
	FILE *out;
	struct kiln_map *m;
	struct btf *btf;
	bool json, skip_zero;
	bool sum;                  /* per-CPU integers summed (kiln run without --per-cpu) */
	uint32_t shown;
	const char *key_text;      /* local storage: the key as given, not the fd it became */
};

static int print_entry(const void *key, const void *value, void *arg)
{
	struct print_ctx *pc = arg;
	const struct kiln_map_info *info = kiln_map_info(pc->m);
	if (pc->skip_zero && all_zero(value, kiln_map_value_buf_size(pc->m)))
		return 0;
	pc->shown++;
	if (pc->json) {
		fputs("{\"map\":", pc->out);
		cli_json_str(pc->out, kiln_map_name(pc->m), 64);
		fputs(",\"key\":", pc->out);
		if (pc->key_text)
			cli_json_str(pc->out, pc->key_text, 4096);
		else
			cli_show(pc->out, pc->btf, info->btf_key_type_id, key, info->key_size, true);
		fputs(",\"value\":", pc->out);
		show_value(pc->out, pc->m, pc->btf, value, true, pc->sum);
		fputs("}\n", pc->out);
	} else {
		fputs("  ", pc->out);
		if (pc->key_text)
			fputs(pc->key_text, pc->out);
		else
			cli_show(pc->out, pc->btf, info->btf_key_type_id, key, info->key_size, false);
		fputs(" => ", pc->out);
		show_value(pc->out, pc->m, pc->btf, value, false, pc->sum);
		fputc('\n', pc->out);
	}
	return 0;
}

/* A keyless map's element: "  VALUE" or {"map":NAME,"WHAT":VALUE}. */
static void print_element(FILE *out, struct kiln_map *m, const uint8_t *v, const char *what, bool json)
{
	struct btf *btf = map_btf(kiln_map_info(m));
	if (json) {
		fputs("{\"map\":", out);
		cli_json_str(out, kiln_map_name(m), 64);
		fprintf(out, ",\"%s\":", what);
		show_value(out, m, btf, v, true, false);
		fputs("}\n", out);
	} else {
		fprintf(out, "  %s => ", what);
		show_value(out, m, btf, v, false, false);
		fputc('\n', out);
	}
	btf__free(btf);
}

/* Whether `kiln map` leaves a map's entries out: NULL if it lists them, else a hint (maybe "")
 * at what to do instead. Prog-arrays, maps of maps, devmaps and cpumaps list what the kernel
 * gives back (ids, ifindexes, queue sizes); the maps of dump KF_DUMP_NONE hold what user space
 * cannot read, or (local storage) cannot walk. */
static const char *unlisted(const struct kiln_map_info *info)
{
	const struct kl_map_type *t = kl_map_type_facts(info->type);
	/* maps of sockets give back socket cookies, and only into 8-byte values */
	if (t->dump == KF_DUMP_COOKIES && info->value_size == 8)
		return NULL;
	if (t->dump == KF_DUMP_COOKIES || t->dump == KF_DUMP_NONE)
		return t->hint;
	return info->key_size > 0 ? NULL : "";
}

/* A socket another process holds, written PID:FD: a copy of it (pidfd_getfd), -1 with errno
 * set, or -2 (said) when s is not of that shape. */
static int peer_socket(const char *what, const char *s)
{
	int pid, fd, n = -1;
	if (sscanf(s, "%d:%d%n", &pid, &fd, &n) != 2 || s[n] || pid <= 0 || fd < 0) {
		fprintf(stderr, "kiln map: %s is PID:FD, the socket process PID holds as its fd FD, not '%s'\n",
			what, s);
		return -2;
	}
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return -1;
	int sfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	int e = errno;
	close(pfd);
	errno = e;
	return sfd;
}

/* Local storage is keyed by an fd of the object whose value it is: opened from what names
 * that object. 1 if the map is not local storage, 0 with *fd set, -1 (said) on failure. */
static int storage_key(const struct kiln_map_info *info, const char *s, int *fd)
{
	int pid, n = -1;
	switch (kl_map_type_facts(info->type)->key_names) {
	case KF_NAMES_TASK:
		if (sscanf(s, "%d%n", &pid, &n) != 1 || s[n] || pid <= 0) {
			fprintf(stderr, "kiln map: a task storage's key is a PID, not '%s'\n", s);
			return -1;
		}
		*fd = (int)syscall(SYS_pidfd_open, pid, 0);
		break;
	case KF_NAMES_SOCKET:
		if ((*fd = peer_socket("an sk storage's key", s)) == -2)
			return -1;
		break;
	case KF_NAMES_FILE:
		*fd = open(s, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		break;
	case KF_NAMES_CGROUP:
		*fd = open(s, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	default:
		return 1;
	}
	if (*fd < 0) {
		fprintf(stderr, "kiln map: %s: %s\n", s, strerror(errno));
		return -1;
	}
	return 0;
}

static int map_print(FILE *out, struct kiln_map *m, bool json, bool all, bool sum);

/* ---- sorted and cut views (kiln run --sort/--top) ---- */

struct kv {
	uint8_t *key, *value;
	uint64_t sum;           /* the value as a u64, summed over CPUs: what --top and --sort value rank */
};

struct kv_list {
	struct kv *e;
	size_t n, cap, ksize, vsize, stride, ncpu;
	bool skip_zero;
	int err;
};

static int kv_collect(const void *key, const void *value, void *arg)
{
	struct kv_list *l = arg;
	if (l->skip_zero && all_zero(value, l->vsize))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct kv *p = realloc(l->e, cap * sizeof(*p));
		if (!p)
			return l->err = -ENOMEM;
		l->e = p;
		l->cap = cap;
	}
	struct kv *e = &l->e[l->n];
	e->key = malloc(l->ksize ? l->ksize : 1);
	e->value = malloc(l->vsize);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return l->err = -ENOMEM;
	}
	memcpy(e->key, key, l->ksize);
	memcpy(e->value, value, l->vsize);
	e->sum = 0;
	for (size_t c = 0; c < l->ncpu; c++) {
		uint64_t v = 0;
		memcpy(&v, e->value + c * l->stride, l->stride < 8 ? l->stride : 8);
		e->sum += v;
	}
	l->n++;
	return 0;
}

/* qsort_r's comparators; ksize points to the key size */
static int kv_by_key(const void *pa, const void *pb, void *ksize)
{
	const struct kv *a = pa, *b = pb;
	size_t n = *(const size_t *)ksize;
	if (n <= 8) {
		uint64_t x = 0, y = 0;
		memcpy(&x, a->key, n);
		memcpy(&y, b->key, n);
		return (x > y) - (x < y);
	}
	return memcmp(a->key, b->key, n);
}

static int kv_by_value(const void *pa, const void *pb, void *ksize)
{
	const struct kv *a = pa, *b = pb;
	int r = (a->sum > b->sum) - (a->sum < b->sum);
	return r ? r : kv_by_key(pa, pb, ksize);   /* ties by key: the same output for the same map */
}

int cli_map_print_view(FILE *out, struct kiln_map *m, bool json, const struct cli_map_view *v)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	const struct kl_map_type *facts = kl_map_type_facts(info->type);
	int err = 0;
	if (!v->sort && !v->top) {
		err = map_print(out, m, json, false, !v->per_cpu);
	} else if (facts->dump == KF_DUMP_NEXT || unlisted(info)) {
		err = map_print(out, m, json, false, !v->per_cpu);   /* nothing to sort: one element or none listed */
	} else {
		bool array = facts->array;
		size_t stride = kiln_map_value_stride(m);
		struct kv_list l = { .ksize = info->key_size, .vsize = kiln_map_value_buf_size(m), .stride = stride,
				     .skip_zero = array };
		l.ncpu = kiln_map_is_percpu(m) ? l.vsize / stride : 1;
		if (!kiln_map_is_percpu(m))
			l.stride = info->value_size;
		struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
		err = kiln_map_dump(m, kv_collect, &l, &o, NULL);
		if (!err)
			err = l.err;
		size_t from = 0, n = l.n;
		if (!err) {
			/* the top N by value, then in the order asked (by value when none was) */
			if (l.n)          /* an empty map has no array: qsort takes no NULL */
				qsort_r(l.e, l.n, sizeof(*l.e), kv_by_value, &l.ksize);
			if (v->top && l.n > v->top)
				from = l.n - v->top;
			if (l.n && v->sort && !strcmp(v->sort, "key"))
				qsort_r(l.e + from, n - from, sizeof(*l.e), kv_by_key, &l.ksize);
			if (!json)
				fprintf(out, "map %s (%s, id %u, key %u, value %u, max %u)", kiln_map_name(m),
					kiln_map_type_name(info->type), info->id, info->key_size, info->value_size,
					info->max_entries);
			if (!json && from)
				fprintf(out, ", the top %zu of %zu by value", n - from, n);
			if (!json)
				fputs(":\n", out);
			struct print_ctx pc = { .out = out, .m = m, .btf = map_btf(info), .json = json, .sum = !v->per_cpu };
			for (size_t i = from; i < n; i++)
				print_entry(l.e[i].key, l.e[i].value, &pc);
			btf__free(pc.btf);
			if (!json && !pc.shown)
				fprintf(out, "  (empty)\n");
		}
		for (size_t i = 0; i < l.n; i++) {
			free(l.e[i].key);
			free(l.e[i].value);
		}
		free(l.e);
	}
	if (!err && v->clear && facts->dump != KF_DUMP_NEXT && !unlisted(info))
		err = kiln_map_delete_all(m, NULL);
	return err;
}

int cli_map_print(FILE *out, struct kiln_map *m, bool json, bool all)
{
	return map_print(out, m, json, all, false);
}

static int map_print(FILE *out, struct kiln_map *m, bool json, bool all, bool sum)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	const struct kl_map_type *facts = kl_map_type_facts(info->type);
	bool array = facts->array;
	if (!json)
		fprintf(out, "map %s (%s, id %u, key %u, value %u, max %u):\n", kiln_map_name(m),
			kiln_map_type_name(info->type), info->id, info->key_size, info->value_size,
			info->max_entries);
	if (facts->dump == KF_DUMP_NEXT) {
		/* only the next element can be read without taking it */
		uint8_t *v = calloc(1, info->value_size + 8);
		int err = v ? kiln_map_peek(m, v) : -ENOMEM;
		if (!err)
			print_element(out, m, v, "next", json);
		else if (!json && err == -ENOENT)
			fprintf(out, "  (empty)\n");
		free(v);
		return err == -ENOENT ? 0 : err;
	}
	const char *hint = unlisted(info);
	if (hint) {
		if (!json)
			fprintf(out, "  (%s: entries are not listed%s)\n", kiln_map_type_name(info->type), hint);
		return 0;
	}
	struct print_ctx pc = { .out = out, .m = m, .btf = map_btf(info), .json = json, .skip_zero = array && !all, .sum = sum };
	struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = true };
	int err = kiln_map_dump(m, print_entry, &pc, &o, NULL);
	btf__free(pc.btf);
	if (err < 0)
		return err;
	if (!json && !pc.shown)
		fprintf(out, "  (empty)\n");
	return 0;
}

static int parse_arg(const char *what, const char *s, void *buf, size_t size);

/* Maps of values without keys: push, pop and peek rather than get, set and delete. */
static bool keyless(enum bpf_map_type t)
{
	return kl_map_type_facts(t)->no_key;
}

/* A program named as a pinned path, id:N or name:NAME: an fd, or -1 (said). */
static int prog_target_fd(const char *s)
{
	if (!strncmp(s, "id:", 3))
		return kiln_prog_fd_by_id((uint32_t)strtoul(s + 3, NULL, 10));
	if (!strncmp(s, "name:", 5)) {
		int fd = -1, found = 0;
		for (uint32_t id = 0; !kiln_prog_next_id(id, &id);) {
			struct kiln_prog_info pi;
			if (!kiln_prog_info_id(id, &pi) && !strncmp(pi.name, s + 5, sizeof(pi.name) - 1)) {
				if (found++)
					close(fd);
				fd = kiln_prog_fd_by_id(id);
			}
		}
		if (found > 1) {
			fprintf(stderr, "kiln map set: %d programs are named %s; give id:N or a pinned path\n", found, s + 5);
			close(fd);
			return -1;
		}
		return found ? fd : -1;
	}
	return bpf_obj_get(s);
}

/* The value of an fd-valued map, from what it holds: a program for a prog-array, a map for a
 * map of maps, a cgroup directory for a cgroup-array, a socket another process holds for a
 * sockmap or sockhash. 1 if the map is none of those, 0 with
 * *fd set, -1 (said) on failure. */
static int fd_value(const struct kiln_map_info *info, const char *s, int *fd)
{
	const char *holds = "maps: a pinned path, id:N or name:NAME";
	switch (kl_map_type_facts(info->type)->value_names) {
	case KF_NAMES_PROG:
		holds = "programs: a pinned path, id:N or name:NAME";
		*fd = prog_target_fd(s);
		break;
	case KF_NAMES_MAP: {
		struct kiln_map *in;
		if (cli_map_open_target("map set", s, &in))
			return -1;
		*fd = dup(kiln_map_fd(in));
		kiln_map_close(in);
		break;
	}
	case KF_NAMES_SOCKET:
		holds = "sockets: PID:FD, a TCP socket listening or connected, or a UDP socket";
		if ((*fd = peer_socket("a sockmap's value", s)) == -2)
			return -1;
		break;
	case KF_NAMES_CGROUP: {
		struct statfs sf;
		holds = "cgroups: a cgroup v2 directory";
		*fd = open(s, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (*fd >= 0 && (fstatfs(*fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC)) {
			close(*fd);
			fprintf(stderr, "kiln map set: %s is not a cgroup v2 directory (a cgroup-array holds those)\n", s);
			return -1;
		}
		break;
	}
	default:
		return 1;
	}
	if (*fd < 0) {
		fprintf(stderr, "kiln map set: %s: %s (a %s holds %s)\n", s, strerror(errno ? errno : ENOENT),
			kiln_map_type_name(info->type), holds);
		return -1;
	}
	return 0;
}

/* push VALUE, pop, peek [VALUE] on a queue, stack or bloom filter. */
/* A record into a user ring buffer: an integer (8 bytes), or 0x and every byte in hex. */
static int user_ringbuf_push(struct kiln_map *m, const char *arg)
{
	uint8_t rec[4096];
	size_t n = 8, hex = !strncmp(arg, "0x", 2) ? strlen(arg + 2) : 0;
	if (hex > 16 && hex % 2 == 0 && hex / 2 <= sizeof(rec))
		n = hex / 2;
	if (parse_arg("value", arg, rec, n))
		return 2;
	if (kiln_user_ringbuf_write(m, rec, n)) {
		cli_fail("map push");
		return 1;
	}
	return 0;
}

static int keyless_verb(struct kiln_map *m, const char *verb, const char *arg, uint8_t *val, uint64_t flags,
			bool json)
{
	const struct kiln_map_info *info = kiln_map_info(m);
	bool bloom = info->type == BPF_MAP_TYPE_BLOOM_FILTER;
	char cmd[16];
	snprintf(cmd, sizeof(cmd), "map %s", verb);
	if (info->type == BPF_MAP_TYPE_USER_RINGBUF && !strcmp(verb, "push") && arg)
		return user_ringbuf_push(m, arg);
	if (!keyless(info->type)) {
		fprintf(stderr, "kiln %s: %s (%s) has keys: push, pop and peek are for queues, stacks and bloom "
			"filters; use get, set and delete\n", cmd, kiln_map_name(m), kiln_map_type_name(info->type));
		return 2;
	}
	if (!strcmp(verb, "push") || (bloom && !strcmp(verb, "peek"))) {
		if (!arg) {
			fprintf(stderr, "kiln %s: a bloom filter is asked about a VALUE\n", cmd);
			return 2;
		}
		if (kiln_map_parse_value(m, arg, val, kiln_map_value_buf_size(m))) {
			fprintf(stderr, "kiln %s: %s\n", cmd, kiln_errmsg());
			return 2;
		}
		if (!strcmp(verb, "push")) {
			int err = kiln_map_push(m, val, flags);
			if (err)
				cli_fail(cmd);
			if (err == -E2BIG)
				fprintf(stderr, "kiln %s: %s is full (%u elements); --exist drops the oldest to make room\n",
					cmd, kiln_map_name(m), info->max_entries);
			return err ? 1 : 0;
		}
		int err = kiln_map_peek(m, val);
		if (err && err != -ENOENT) {
			cli_fail(cmd);
			return 1;
		}
		if (json)
			printf("{\"map\":\"%s\",\"maybe\":%s}\n", kiln_map_name(m), err ? "false" : "true");
		else
			printf("  %s\n", err ? "not in the filter" : "maybe in the filter");
		return err ? 1 : 0;
	}
	if (bloom || arg) {
		fprintf(stderr, "kiln %s: %s\n", cmd, bloom ? "a bloom filter's values cannot be taken out"
							  : "a queue or stack is popped or peeked without a value");
		return 2;
	}
	int err = !strcmp(verb, "pop") ? kiln_map_pop(m, val) : kiln_map_peek(m, val);
	if (err == -ENOENT) {
		fprintf(stderr, "kiln %s: %s is empty\n", cmd, kiln_map_name(m));
		return 1;
	}
	if (err) {
		cli_fail(cmd);
		return 1;
	}
	print_element(stdout, m, val, "value", json);
	return 0;
}

static int parse_arg(const char *what, const char *s, void *buf, size_t size)
{
	int err = cli_parse_value(s, buf, size);
	if (err)
		fprintf(stderr, "kiln map: %s '%s' is not %s\n", what, s,
			err == -ERANGE ? "in range for its size" :
			size > 8 ? "an integer or 0x with two hex digits per byte" : "an integer");
	return err;
}

static int map_list(bool json)
{
	uint32_t id = 0;
	int err;
	if (!json)
		printf("%6s  %-16s %-16s %5s %6s %8s %6s\n", "id", "name", "type", "key", "value", "max", "flags");
	while (!(err = kiln_map_next_id(id, &id))) {
		struct kiln_map *m;
		if (kiln_map_open_id(id, &m))
			continue;   /* freed meanwhile */
		const struct kiln_map_info *i = kiln_map_info(m);
		if (json) {
			printf("{\"id\":%u,\"name\":", i->id);
			cli_json_str(stdout, i->name, sizeof(i->name));
			printf(",\"type\":\"%s\",\"key_size\":%u,\"value_size\":%u,\"max_entries\":%u,"
			       "\"flags\":%u,\"btf_id\":%u}\n", kiln_map_type_name(i->type), i->key_size,
			       i->value_size, i->max_entries, i->flags, i->btf_id);
		} else {
			printf("%6u  %-16s %-16s %5u %6u %8u 0x%-4x\n", i->id, i->name, kiln_map_type_name(i->type),
			       i->key_size, i->value_size, i->max_entries, i->flags);
		}
		kiln_map_close(m);
	}
	if (err != -ENOENT) {
		cli_fail("map list");
		return 1;
	}
	return 0;
}

/* One `kiln map VERB TARGET [KEY [VALUE]]` on its open map. */
struct map_cmd {
	const char *const *pos;     /* the verb, the target, then the verb's arguments */
	int npos;
	uint64_t flags;             /* BPF_ANY, BPF_NOEXIST (--noexist), BPF_EXIST (--exist) */
	bool json, all;
	struct kiln_map *m;
	const struct kiln_map_info *info;
	uint8_t *key, *val;         /* buffers of the map's key and value sizes */
	int kfd;                    /* a storage map's key: the fd its text opened, -1: none */
	const char *key_text;       /* ... and the text, as printed */
	const char *var;            /* a data section's (.data...): the variable the key names */
};

/* pos[2] into c->key: a storage map's fd, or the key's text parsed. 0, or the exit status
 * (said). */
static int read_key(struct map_cmd *c)
{
	if (keyless(c->info->type)) {
		fprintf(stderr, "kiln map %s: %s (%s) has no keys: use push, pop and peek\n", c->pos[0],
			kiln_map_name(c->m), kiln_map_type_name(c->info->type));
		return 2;
	}
	const char *k = c->pos[2];
	if ((isalpha((unsigned char)k[0]) || k[0] == '_') && kiln_map_is_data_section(c->m)) {
		c->var = k;          /* a global variable by name */
		return 0;
	}
	int sk = storage_key(c->info, c->pos[2], &c->kfd);
	if (sk < 0)
		return 1;
	if (!sk) {
		uint32_t u = (uint32_t)c->kfd;
		memcpy(c->key, &u, 4);
		c->key_text = c->pos[2];
	} else if (kiln_map_parse_key(c->m, c->pos[2], c->key, c->info->key_size)) {
		fprintf(stderr, "kiln map %s: %s\n", c->pos[0], kiln_errmsg());
		return 2;
	}
	return 0;
}

static int verb_dump(struct map_cmd *c)
{
	if (cli_map_print(stdout, c->m, c->json, c->all)) {
		cli_fail("map dump");
		return 1;
	}
	return 0;
}

static int verb_get(struct map_cmd *c)
{
	if (c->var) {
		char buf[4096];
		if (kiln_map_get_var(c->m, c->var, c->json, buf, sizeof(buf)) < 0) {
			cli_fail("map get");
			return 1;
		}
		if (c->json) {
			printf("{\"map\":");
			cli_json_str(stdout, kiln_map_name(c->m), 256);
			printf(",\"var\":");
			cli_json_str(stdout, c->var, strlen(c->var));
			printf(",\"value\":%s}\n", buf);
		} else {
			printf("%s => %s\n", c->var, buf);
		}
		return 0;
	}
	if (kiln_map_lookup(c->m, c->key, c->val)) {
		cli_fail("map get");
		return 1;
	}
	struct btf *btf = map_btf(c->info);
	struct print_ctx pc = { .out = stdout, .m = c->m, .btf = btf, .json = c->json, .key_text = c->key_text };
	print_entry(c->key, c->val, &pc);
	btf__free(btf);
	return 0;
}

static int verb_delete(struct map_cmd *c)
{
	if (c->var) {
		fprintf(stderr, "kiln map delete: %s is a global variable; set it instead\n", c->var);
		return 2;
	}
	if (kiln_map_delete(c->m, c->key)) {
		cli_fail("map delete");
		return 1;
	}
	return 0;
}

/* set: the value an fd (program arrays, maps of maps, ...) or its text parsed. */
static int verb_set(struct map_cmd *c)
{
	if (c->var) {
		if (kiln_map_set_var(c->m, c->var, c->pos[3])) {
			fprintf(stderr, "kiln map set: %s\n", kiln_errmsg());
			return 1;
		}
		return 0;
	}
	int vfd = -1, fv = fd_value(c->info, c->pos[3], &vfd);
	if (fv < 0)
		return 1;
	if (!fv) {
		uint32_t u = (uint32_t)vfd;
		memcpy(c->val, &u, 4);
		int rc = kiln_map_update(c->m, c->key, c->val, c->flags) ? (cli_fail("map set"), 1) : 0;
		close(vfd);
		return rc;
	}
	if (kiln_map_parse_value(c->m, c->pos[3], c->val, kiln_map_value_buf_size(c->m))) {
		fprintf(stderr, "kiln map set: %s\n", kiln_errmsg());
		return 2;
	}
	if (kiln_map_update(c->m, c->key, c->val, c->flags)) {
		cli_fail("map set");
		return 1;
	}
	return 0;
}

/* push, pop and peek (queues, stacks, bloom filters, user ring buffers); --noexist is --any. */
static int verb_keyless(struct map_cmd *c)
{
	return keyless_verb(c->m, c->pos[0], c->npos > 2 ? c->pos[2] : NULL, c->val,
			    c->flags == BPF_EXIST ? BPF_EXIST : BPF_ANY, c->json);
}

/* The verbs, with the arguments after the verb each takes (at least, at most); list opens no
 * map, and the keyed ones read their key before they run. */
static const struct map_verb {
	const char *verb;
	int nargs, most;
	bool keyed;
	int (*run)(struct map_cmd *c);
} map_verbs[] = {
	{ "list", 0, 0, false, NULL }, { "dump", 1, 1, false, verb_dump }, { "get", 2, 2, true, verb_get },
	{ "delete", 2, 2, true, verb_delete }, { "set", 3, 3, true, verb_set }, { "push", 2, 2, false, verb_keyless },
	{ "pop", 1, 1, false, verb_keyless }, { "peek", 1, 2, false, verb_keyless },
};

/* pos[0]'s row, if its arguments are as many as it takes; else NULL, the usage said. */
static const struct map_verb *find_verb(const char *const *pos, int npos)
{
	const struct map_verb *vb = NULL;
	for (size_t i = 0; npos && i < sizeof(map_verbs) / sizeof(map_verbs[0]); i++)
		if (!strcmp(pos[0], map_verbs[i].verb))
			vb = &map_verbs[i];
	if (!vb || npos - 1 < vb->nargs || npos - 1 > vb->most) {
		if (!vb && npos)
			fprintf(stderr, "kiln map: unknown subcommand '%s'\n", pos[0]);
		fputs(map_help, stderr);
		return NULL;
	}
	return vb;
}

/* The verb run on the map pos[1] names, with buffers for its key and value. */
static int run_verb(const struct map_verb *vb, struct map_cmd *c)
{
	if (cli_map_open_target("map", c->pos[1], &c->m))
		return 1;
	c->info = kiln_map_info(c->m);
	int rc = 1;
	c->key = calloc(1, c->info->key_size ? c->info->key_size : 1);
	c->val = calloc(1, kiln_map_value_buf_size(c->m) + 8);
	if (!c->key || !c->val) {
		fprintf(stderr, "kiln map: out of memory\n");
	} else {
		rc = vb->keyed ? read_key(c) : 0;
		if (!rc)
			rc = vb->run(c);
	}
	if (c->kfd >= 0)
		close(c->kfd);
	free(c->key);
	free(c->val);
	kiln_map_close(c->m);
	return rc;
}

int cmd_map(int argc, char **argv)
{
	const char *pos[4] = { 0 };
	bool json = false, all = false, noexist = false, exist = false, any = false;
	const struct cli_opt opts[] = {
		{ "--json", CLI_FLAG, &json, NULL }, { "--all", CLI_FLAG, &all, NULL },
		{ "--any", CLI_FLAG, &any, NULL }, { "--noexist", CLI_FLAG, &noexist, NULL },
		{ "--exist", CLI_FLAG, &exist, NULL }, { 0 },
	};
	int npos, r = cli_parse("map", map_help, argc, argv, opts, pos, 4, &npos);
	if (r != CLI_OK)
		return r;
	if (any + noexist + exist > 1) {
		fprintf(stderr, "kiln map: one of --any, --noexist, --exist\n");
		return 2;
	}
	const struct map_verb *vb = find_verb(pos, npos);
	if (!vb)
		return 2;
	if (!vb->run)
		return map_list(json);
	struct map_cmd c = { .pos = pos, .npos = npos, .flags = noexist ? BPF_NOEXIST : exist ? BPF_EXIST : BPF_ANY,
			     .json = json, .all = all, .kfd = -1 };
	return run_verb(vb, &c);
}
