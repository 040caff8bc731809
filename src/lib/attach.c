/* attach.c — attaching a loaded object's programs by their section (xdp, tc through tcx or a
 * clsact filter, tracepoints, raw tracepoints, uprobes, kprobes, tracing and lsm programs,
 * cgroups, sockmaps, network namespaces), and the links that keep them attached: pin, detach, destroy. */
#define _GNU_SOURCE
#include "object_internal.h"
#include "compiler/tracefs.h"
#include "kiln/error.h"
#include "fail.h"
#include "compiler/mounts.h"
#include <bpf/bpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- attaching ---------------------------------------------------------------------------- */

#define KL_ENOTSUPP 524   /* the kernel's ENOTSUPP (include/linux/errno.h), not in uapi */
#define KL_LSM_LIST "/sys/kernel/security/lsm"   /* the active LSMs, "lockdown,capability,bpf" */

struct attach_ctx {
	struct kiln_prog *p;
	const struct kl_attach_section *row;
	struct kiln_attach_opts o;
	struct kiln_link *l;
	int prog_fd;
};

static int attach_fail(struct attach_ctx *c, int err, bool with_libbpf, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int attach_fail(struct attach_ctx *c, int err, bool with_libbpf, const char *fmt, ...)
{
	char step[PATH_MAX + 128], what[PATH_MAX + 256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(step, sizeof(step), fmt, ap);
	va_end(ap);
	snprintf(what, sizeof(what), "attach program '%s' of %s: %s", kiln_prog_name(c->p), c->p->obj->name, step);
	return with_libbpf ? kl_fail_libbpf(err, what) : kl_fail(err, "%s", what);
}

/* The section after its first '/', or "" */
static const char *section_target(const struct attach_ctx *c)
{
	const char *s = strchr(kiln_prog_section(c->p), '/');
	return s ? s + 1 : "";
}

static int resolve_iface(struct attach_ctx *c, int *ifindex, char *name)
{
	if (c->o.iface) {
		unsigned idx = if_nametoindex(c->o.iface);
		if (!idx)
			return attach_fail(c, errno ? errno : ENODEV, false, "interface %s", c->o.iface);
		*ifindex = (int)idx;
		snprintf(name, IF_NAMESIZE, "%s", c->o.iface);
		return 0;
	}
	if (c->o.ifindex > 0) {
		*ifindex = c->o.ifindex;
		if (!if_indextoname((unsigned)c->o.ifindex, name))
			return attach_fail(c, errno ? errno : ENODEV, false, "interface index %d", c->o.ifindex);
		return 0;
	}
	return attach_fail(c, EINVAL, false, "%s programs need an interface (iface or ifindex)",
			   kiln_attach_kind_name(c->row->kind));
}

static int attach_xdp(struct attach_ctx *c)
{
	int ifindex;
	char ifname[IF_NAMESIZE];
	int err = resolve_iface(c, &ifindex, ifname);
	if (err)
		return err;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .flags = c->o.xdp_flags);
	int fd = bpf_link_create(c->prog_fd, ifindex, BPF_XDP, &lo);
	if (fd < 0)
		return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for xdp on %s", ifname);
	c->l->fd = fd;
	snprintf(c->l->desc, sizeof(c->l->desc), "xdp on %s", ifname);
	return 0;
}

/* How many tc filters hang under parent on ifindex (a netlink dump), or a negative errno. */
static int tc_filter_count(int ifindex, uint32_t parent)
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -errno;
	struct {
		struct nlmsghdr n;
		struct tcmsg t;
	} req = {
		.n = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETTFILTER,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent },
	};
	int count = 0;
	if (send(s, &req, req.n.nlmsg_len, 0) < 0) {
		count = -errno;
		goto out;
	}
	static _Thread_local char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			count = n < 0 ? -errno : -EIO;
			goto out;
		}
		unsigned int left = (unsigned int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				count = e ? e : count;
				goto out;
			}
			count += h->nlmsg_type == RTM_NEWTFILTER;
		}
	}
out:
	close(s);
	return count;
}

/* The clsact qdiscs this process added, with how many of our filters hang in each: the last
 * of them to go removes the qdisc, if no one else's filter went in meanwhile. */
static struct clsact_added {
	int ifindex, filters;
} *clsacts;
static size_t nclsacts;
static pthread_mutex_t clsact_lock = PTHREAD_MUTEX_INITIALIZER;

static struct clsact_added *clsact_find(int ifindex)
{
	for (size_t i = 0; i < nclsacts; i++)
		if (clsacts[i].ifindex == ifindex)
			return &clsacts[i];
	return NULL;
}

/* A filter of ours goes into the clsact qdisc of ifindex; created: we just added the qdisc.
 * Whether the link shares in removing it. */
static bool clsact_hold(int ifindex, bool created)
{
	pthread_mutex_lock(&clsact_lock);
	struct clsact_added *c = clsact_find(ifindex);
	if (c && created)
		c->filters = 0;         /* the qdisc we added went, and this is a new one */
	if (!c && created) {
		struct clsact_added *n = realloc(clsacts, (nclsacts + 1) * sizeof(*n));
		if (n) {
			clsacts = n;
			c = &clsacts[nclsacts++];
			*c = (struct clsact_added){ ifindex, 0 };
		}
	}
	if (c)
		c->filters++;
	pthread_mutex_unlock(&clsact_lock);
	return c != NULL;
}

static void clsact_release(struct kiln_link *l)
{
	if (!l->hook_created)
		return;
	l->hook_created = false;
	pthread_mutex_lock(&clsact_lock);
	struct clsact_added *c = clsact_find(l->hook.ifindex);
	bool last = c && --c->filters <= 0;
	if (last)
		*c = clsacts[--nclsacts];
	if (last && !nclsacts) {
		free(clsacts);
		clsacts = NULL;
	}
	pthread_mutex_unlock(&clsact_lock);
	if (!last)
		return;
	int in = tc_filter_count(l->hook.ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS));
	int eg = tc_filter_count(l->hook.ifindex, TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS));
	if (in == 0 && eg == 0) {
		struct bpf_tc_hook h = l->hook;
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
}

static int attach_tc_legacy(struct attach_ctx *c, int ifindex, const char *ifname, int dir)
{
	struct kiln_link *l = c->l;
	const char *dname = dir == KILN_TC_EGRESS ? "egress" : "ingress";
	l->hook = (struct bpf_tc_hook){ .sz = sizeof(struct bpf_tc_hook), .ifindex = ifindex,
					.attach_point = dir == KILN_TC_EGRESS ? BPF_TC_EGRESS : BPF_TC_INGRESS };
	int err = KL_LIBBPF(bpf_tc_hook_create(&l->hook));
	if (err && err != -EEXIST)
		return attach_fail(c, err, true, "add a clsact qdisc to %s", ifname);
	l->hook_created = clsact_hold(ifindex, !err);
	LIBBPF_OPTS(bpf_tc_opts, to, .prog_fd = c->prog_fd);
	if ((err = bpf_tc_attach(&l->hook, &to))) {
		clsact_release(l);
		return attach_fail(c, err, true, "add a tc %s filter on %s", dname, ifname);
	}
	l->tc_legacy = true;
	l->tc_handle = to.handle;
	l->tc_priority = to.priority;
	snprintf(l->desc, sizeof(l->desc), "tc %s on %s (clsact filter)", dname, ifname);
	return 0;
}

static int attach_tc(struct attach_ctx *c)
{
	int ifindex;
	char ifname[IF_NAMESIZE];
	int err = resolve_iface(c, &ifindex, ifname);
	if (err)
		return err;
	int dir = c->row->tc_fixed ? (int)c->row->tc_dir : c->o.tc_dir;
	if (dir != KILN_TC_INGRESS && dir != KILN_TC_EGRESS)
		return attach_fail(c, EINVAL, false, "tc_dir %d is neither KILN_TC_INGRESS nor KILN_TC_EGRESS", dir);
	const char *dname = dir == KILN_TC_EGRESS ? "egress" : "ingress";
	if (c->o.tc_legacy && c->row->tcx_only)
		return attach_fail(c, EINVAL, false, "section %s asks for a tcx link, not a legacy filter",
				   kiln_prog_section(c->p));
	if (!c->o.tc_legacy) {
		int fd = bpf_link_create(c->prog_fd, ifindex, dir == KILN_TC_EGRESS ? KL_TCX_EGRESS : KL_TCX_INGRESS,
					 NULL);
		if (fd >= 0) {
			c->l->fd = fd;
			snprintf(c->l->desc, sizeof(c->l->desc), "tc %s on %s (tcx)", dname, ifname);
			return 0;
		}
		/* a kernel before 6.6 does not know the attach type: EINVAL */
		if (fd != -EINVAL || c->row->tcx_only)
			return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for tcx %s on %s%s", dname, ifname,
					   fd == -EINVAL ? " (tcx links need kernel 6.6)" : "");
	}
	return attach_tc_legacy(c, ifindex, ifname, dir);
}

/* A perf event made into a BPF link. The link keeps the event, so our perf fd goes at once
 * and the link fd alone stands for the attachment: closing it detaches, pinning it keeps it
 * (libbpf 1.1's perf links would leak the perf fd when disconnected for a pin). */
static int perf_link(struct attach_ctx *c, struct perf_event_attr *attr, int pid, const char *what)
{
	int pfd = (int)syscall(__NR_perf_event_open, attr, pid, pid == -1 ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return attach_fail(c, errno, false, "perf_event_open for %s", what);
	int fd = bpf_link_create(c->prog_fd, pfd, BPF_PERF_EVENT, NULL);
	close(pfd);
	if (fd < 0)
		return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for %s", what);
	c->l->fd = fd;
	snprintf(c->l->desc, sizeof(c->l->desc), "%s", what);
	return 0;
}

/* The tracepoint's id from tracefs, by the one check the compiler and `kiln trace` use too:
 * an object's section name is no path, and cannot lead out of tracefs's events directory. */
static int attach_tracepoint(struct attach_ctx *c)
{
	const char *t = section_target(c);
	char what[512], path[PATH_MAX], msg[1024], buf[32];
	snprintf(what, sizeof(what), "tracepoint %s", t);
	int err = kl_tracepoint_file(NULL, t, "id", path, sizeof(path), msg, sizeof(msg));
	if (err)
		return attach_fail(c, err, false, "section tracepoint/...: %s", msg);
	if ((err = kl_read_sysfs(path, buf, sizeof(buf))))
		return attach_fail(c, err, false, "no tracepoint %s in tracefs (%s)", t, path);
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .config = strtoull(buf, NULL, 10) };
	return perf_link(c, &a, -1, what);
}

/* The PMU of dynamic probes ("uprobe", "kprobe"): its type and the config bit for a return
 * probe. */
static int probe_pmu(struct attach_ctx *c, const char *pmu, uint32_t *type, int *ret_bit)
{
	char path[128], buf[64];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	int err = kl_read_sysfs(path, buf, sizeof(buf));
	if (err == -ENOENT)   /* the PMU is there (since 4.17) wherever the kernel has the events */
		return attach_fail(c, err, false, "no %s PMU, %s (this kernel has no %s events: CONFIG_%s_EVENTS "
				   "is off)", pmu, path, pmu, pmu[0] == 'k' ? "KPROBE" : "UPROBE");
	if (err)
		return attach_fail(c, err, false, "the %s PMU's type (%s)", pmu, path);
	*type = (uint32_t)strtoul(buf, NULL, 10);
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
	*ret_bit = 0;
	if (!kl_read_sysfs(path, buf, sizeof(buf)))
		sscanf(buf, "config:%d", ret_bit);
	return 0;
}

/* The file offset of function sym in the ELF file at path: what a uprobe takes. */
static int elf_func_offset(const char *path, const char *sym, uint64_t *off)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int err = e && elf_kind(e) == ELF_K_ELF ? -ENOENT : -ENOEXEC;
	for (Elf_Scn *scn = NULL; err == -ENOENT && (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			GElf_Shdr ss;
			if (!gelf_getsym(d, (int)i, &s) || !s.st_value || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
				continue;
			const char *name = elf_strptr(e, sh.sh_link, s.st_name);
			if (!name || strcmp(name, sym) || !gelf_getshdr(elf_getscn(e, s.st_shndx), &ss))
				continue;
			*off = s.st_value - ss.sh_addr + ss.sh_offset;
			err = 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* "NAME+OFF" or "NAME" or "0xADDR" into name (maybe "") and offset. */
static void split_func(const char *s, char *name, size_t len, uint64_t *off)
{
	const char *plus = strchr(s, '+');
	size_t n = plus ? (size_t)(plus - s) : strlen(s);
	snprintf(name, len, "%.*s", (int)n, s);
	*off = plus ? strtoull(plus + 1, NULL, 0) : 0;
	char *end;
	if (isdigit((unsigned char)name[0])) {
		*off += strtoull(name, &end, 0);
		if (!*end)
			name[0] = 0;
	}
}

static int attach_uprobe(struct attach_ctx *c)
{
	const char *sec = kiln_prog_section(c->p), *t = section_target(c);
	bool ret = !strncmp(sec, "uretprobe", 9);
	char bin[PATH_MAX] = "", func[256] = "", what[PATH_MAX + 320];
	uint64_t off = 0, sym_off = 0;
	const char *colon = strrchr(t, ':');
	if (colon) {
		snprintf(bin, sizeof(bin), "%.*s", (int)(colon - t), t);
		split_func(colon + 1, func, sizeof(func), &off);
	}
	const char *binary = c->o.binary ? c->o.binary : bin[0] ? bin : NULL;
	const char *symbol = c->o.symbol ? c->o.symbol : func[0] ? func : NULL;
	off += c->o.offset;
	if (!binary)
		return attach_fail(c, EINVAL, false, "%s needs a binary and a symbol (options, or section %s/BINARY:FUNC)",
				   ret ? "uretprobe" : "uprobe", ret ? "uretprobe" : "uprobe");
	if (symbol) {
		int err = elf_func_offset(binary, symbol, &sym_off);
		if (err)
			return attach_fail(c, err, false, "function %s in %s", symbol, binary);
		snprintf(what, sizeof(what), "%s %s:%s", ret ? "uretprobe" : "uprobe", binary, symbol);
		if (off)
			snprintf(what + strlen(what), sizeof(what) - strlen(what), "+%#llx", (unsigned long long)off);
	} else {
		snprintf(what, sizeof(what), "%s %s:%#llx", ret ? "uretprobe" : "uprobe", binary, (unsigned long long)off);
	}
	uint32_t type;
	int bit, err = probe_pmu(c, "uprobe", &type, &bit);
	if (err)
		return err;
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = ret ? 1ull << bit : 0,
				     .config1 = (uint64_t)(uintptr_t)binary, .config2 = sym_off + off };
	if (c->o.ref_ctr_offset) {   /* the PMU says where: "config:32-63" */
		char buf[64];
		int lo = 32;
		if (!kl_read_sysfs("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset", buf, sizeof(buf)))
			sscanf(buf, "config:%d", &lo);
		a.config |= c->o.ref_ctr_offset << lo;
	}
	return perf_link(c, &a, c->o.pid > 0 ? c->o.pid : -1, what);
}

static int attach_kprobe(struct attach_ctx *c)
{
	bool ret = !strncmp(kiln_prog_section(c->p), "kretprobe", 9);
	char func[256], what[320];
	uint64_t off;
	split_func(section_target(c), func, sizeof(func), &off);
	const char *symbol = c->o.symbol ? c->o.symbol : func;
	off += c->o.offset;
	if (!symbol[0])
		return attach_fail(c, EINVAL, false, "a kprobe needs a function (section kprobe/FUNC or symbol)");
	snprintf(what, sizeof(what), "%s %s", ret ? "kretprobe" : "kprobe", symbol);
	if (off)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "+%#llx", (unsigned long long)off);
	uint32_t type;
	int bit, err = probe_pmu(c, "kprobe", &type, &bit);
	if (err)
		return err;
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = ret ? 1ull << bit : 0,
				     .config1 = (uint64_t)(uintptr_t)symbol, .config2 = off };
	return perf_link(c, &a, -1, what);
}

static int attach_libbpf_done(struct attach_ctx *c, struct bpf_link *bl, const char *step)
{
	if (!bl)
		return attach_fail(c, errno ? -errno : -EINVAL, true, "%s", step);
	c->l->bl = bl;
	c->l->fd = bpf_link__fd(bl);
	return 0;
}

static int attach_raw_tracepoint(struct attach_ctx *c)
{
	const char *t = section_target(c);
	snprintf(c->l->desc, sizeof(c->l->desc), "raw_tracepoint %s", t);
	return attach_libbpf_done(c, bpf_program__attach_raw_tracepoint(c->p->bp, t), c->l->desc);
}

/* Whether the bpf LSM is among the active ones: the kernel links an lsm program without it,
 * and the program never runs. Unknown (no securityfs) counts as active. */
static bool bpf_lsm_active(char *list, size_t len)
{
	if (kl_read_sysfs(KL_LSM_LIST, list, len))
		return true;
	list[strcspn(list, "\n")] = 0;
	for (const char *s = list; *s; s += strcspn(s, ","), s += *s == ',')
		if (strcspn(s, ",") == 3 && !strncmp(s, "bpf", 3))
			return true;
	return false;
}

/* fentry/F, fexit/F, tp_btf/T, lsm/H: the target went into the program at load. */
static int attach_trampoline(struct attach_ctx *c)
{
	const char *sec = kiln_prog_section(c->p);
	char lsms[256];
	snprintf(c->l->desc, sizeof(c->l->desc), "%.*s %s", (int)strcspn(sec, "/"), sec, section_target(c));
	if (c->row->kind == KILN_ATTACH_LSM && !bpf_lsm_active(lsms, sizeof(lsms)))
		return attach_fail(c, EOPNOTSUPP, false, "%s: the bpf LSM is not active, so an lsm program would never "
				   "run (%s: %s; \"bpf\" in the kernel's lsm= boot option makes it active)",
				   c->l->desc, KL_LSM_LIST, lsms);
	struct bpf_link *bl = c->row->kind == KILN_ATTACH_LSM ? bpf_program__attach_lsm(c->p->bp)
							      : bpf_program__attach_trace(c->p->bp);
	if (!bl && errno == KL_ENOTSUPP)   /* the kernel's errno that user space has no name for */
		return kl_fail_msg(KL_ENOTSUPP, "attach program '%s' of %s: %s: the kernel answers ENOTSUPP (524): "
				   "it cannot attach BPF trampolines, which fentry, fexit, fmod_ret, tp_btf and lsm "
				   "programs need (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS and the architecture's support)",
				   kiln_prog_name(c->p), c->p->obj->name, c->l->desc);
	return attach_libbpf_done(c, bl, c->l->desc);
}

static int attach_cgroup(struct attach_ctx *c)
{
	if (!c->o.cgroup)
		return attach_fail(c, EINVAL, false, "cgroup programs need a cgroup (a cgroup v2 directory)");
	int cg = open(c->o.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0)
		return attach_fail(c, errno, false, "open cgroup %s", c->o.cgroup);
	snprintf(c->l->desc, sizeof(c->l->desc), "%s on %s", kiln_prog_section(c->p), c->o.cgroup);
	struct bpf_link *bl = bpf_program__attach_cgroup(c->p->bp, cg);
	int err = bl ? 0 : -errno;
	close(cg);
	errno = -err;
	return attach_libbpf_done(c, bl, c->l->desc);
}

/* The online CPUs ("0-3,6"), into cpus (at most max); their count, or -errno. */
static int online_cpus(int *cpus, int max)
{
	char buf[256];
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		return -ENOENT;
	buf[len] = 0;
	for (char *s = buf; *s && *s != '\n';) {
		char *e;
		long a = strtol(s, &e, 10), b = a;
		if (e == s)
			return -EINVAL;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long c = a; c <= b && n < max; c++)
			cpus[n++] = (int)c;
		s = *e == ',' ? e + 1 : e;
	}
	return n;
}

static void link_close(struct kiln_link *l);

/* Sampling: a cpu-clock perf event per CPU, each made into a link. */
static int attach_perf_event(struct attach_ctx *c)
{
	int cpus[1024], n = c->o.on_one_cpu ? 1 : online_cpus(cpus, 1024);
	if (c->o.on_one_cpu)
		cpus[0] = c->o.cpu;
	if (n <= 0)
		return attach_fail(c, n ? -n : ENOENT, false, "the online CPUs (/sys/devices/system/cpu/online)");
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK };
	const char *ev = c->o.event_name ? c->o.event_name : "cpu-clock";
	if (c->o.event_name) {
		a.type = c->o.event_type;
		a.config = c->o.event_config;
	}
	if (c->o.period || c->o.event_name) {
		a.sample_period = c->o.period ? c->o.period : 1;
	} else {
		a.freq = 1;
		a.sample_freq = c->o.freq ? c->o.freq : 99;
	}
	int pid = c->o.pid > 0 ? c->o.pid : -1;
	if (c->o.event_name && c->o.event_type == PERF_TYPE_BREAKPOINT) {   /* a watchpoint */
		a.config = 0;
		a.bp_addr = c->o.bp_addr;
		a.bp_len = c->o.bp_len;
		a.bp_type = c->o.bp_type;
		if (pid > 0) {   /* the process, wherever it runs */
			n = 1;
			cpus[0] = -1;
		}
	}
	if (n > 1 && !(c->l->more = calloc((size_t)n - 1, sizeof(int))))
		return attach_fail(c, ENOMEM, false, "perf links");
	for (int i = 0; i < n; i++) {
		int pfd = (int)syscall(__NR_perf_event_open, &a, pid, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		int err = pfd < 0 ? -errno : 0, fd = -1;
		if (!err) {
			fd = bpf_link_create(c->prog_fd, pfd, BPF_PERF_EVENT, NULL);
			err = fd < 0 ? fd : 0;
			close(pfd);
		}
		if (err) {
			link_close(c->l);     /* the CPUs linked so far */
			return attach_fail(c, -err, false, "perf_event_open (%s) on CPU %d", ev, cpus[i]);
		}
		if (i)
			c->l->more[c->l->nmore++] = fd;
		else
			c->l->fd = fd;
	}
	if (c->o.event_name)
		snprintf(c->l->desc, sizeof(c->l->desc), "%s every %llu on %d CPU%s", ev,
			 (unsigned long long)a.sample_period, n, n > 1 ? "s" : "");
	else if (c->o.period)
		snprintf(c->l->desc, sizeof(c->l->desc), "cpu-clock every %llu ns on %d CPU%s",
			 (unsigned long long)c->o.period, n, n > 1 ? "s" : "");
	else
		snprintf(c->l->desc, sizeof(c->l->desc), "cpu-clock at %llu Hz on %d CPU%s",
			 (unsigned long long)a.sample_freq, n, n > 1 ? "s" : "");
	return 0;
}

/* sk_skb/stream_parser, sk_skb/stream_verdict, sk_msg: attached to a sockmap or sockhash of
 * the object, opts.map by name or else the only one. The kernel here has no links for these
 * (6.10 has): the attachment is the map's, so the link keeps the program and map fds to
 * detach it with. */
static int find_sockmap(struct attach_ctx *c, struct bpf_map **out)
{
	struct bpf_map *m, *found = NULL;
	int n = 0;
	bpf_object__for_each_map(m, kiln_object_libbpf(c->p->obj)) {
		enum bpf_map_type t = bpf_map__type(m);
		if (t != BPF_MAP_TYPE_SOCKMAP && t != BPF_MAP_TYPE_SOCKHASH)
			continue;
		if (c->o.map && !strcmp(bpf_map__name(m), c->o.map)) {
			*out = m;
			return 0;
		}
		found = m;
		n++;
	}
	if (c->o.map)
		return attach_fail(c, ENOENT, false, "no sockmap or sockhash named %s in the object", c->o.map);
	if (n != 1)
		return attach_fail(c, n ? EINVAL : ENOENT, false, "%s: name the sockmap or sockhash to attach to "
				   "(the object has %d)", kiln_prog_section(c->p), n);
	*out = found;
	return 0;
}

static int attach_sockmap(struct attach_ctx *c)
{
	struct bpf_map *m = NULL;
	int err = find_sockmap(c, &m);
	if (err)
		return err;
	enum bpf_attach_type t = kiln_prog_expected_attach_type(c->p);
	if (t != BPF_SK_SKB_STREAM_PARSER && t != BPF_SK_SKB_STREAM_VERDICT && t != BPF_SK_MSG_VERDICT)
		return attach_fail(c, EINVAL, false, "section %s names no sockmap attach point "
				   "(sk_skb/stream_parser, sk_skb/stream_verdict, sk_msg)", kiln_prog_section(c->p));
	int pfd = fcntl(c->prog_fd, F_DUPFD_CLOEXEC, 3), mfd = fcntl(bpf_map__fd(m), F_DUPFD_CLOEXEC, 3);
	if (pfd < 0 || mfd < 0) {
		err = errno;
		if (pfd >= 0)
			close(pfd);
		if (mfd >= 0)
			close(mfd);
		return attach_fail(c, err, false, "dup the program and map fds");
	}
	if ((err = bpf_prog_attach(pfd, mfd, t, 0))) {
		close(pfd);
		close(mfd);
		return attach_fail(c, err, false, "bpf(BPF_PROG_ATTACH) to map %s", bpf_map__name(m));
	}
	c->l->prog_attached = true;
	c->l->att_prog_fd = pfd;
	c->l->att_target_fd = mfd;
	c->l->att_type = t;
	snprintf(c->l->desc, sizeof(c->l->desc), "%s on map %s", kiln_prog_section(c->p), bpf_map__name(m));
	return 0;
}

/* flow_dissector, sk_lookup: a link on a network namespace, opts.netns or the caller's. */
static int attach_netns(struct attach_ctx *c)
{
	const char *path = c->o.netns ? c->o.netns : "/proc/self/ns/net";
	int ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return attach_fail(c, errno, false, "open network namespace %s", path);
	int fd = bpf_link_create(c->prog_fd, ns, kiln_prog_expected_attach_type(c->p), NULL);
	close(ns);
	if (fd < 0)
		return attach_fail(c, fd, false, "bpf(BPF_LINK_CREATE) for %s on netns %s", kiln_prog_section(c->p),
				   c->o.netns ? c->o.netns : "(this process's)");
	c->l->fd = fd;
	snprintf(c->l->desc, sizeof(c->l->desc), "%s on netns %s", kiln_prog_section(c->p),
		 c->o.netns ? c->o.netns : "(this process's)");
	return 0;
}

static int (*const attachers[])(struct attach_ctx *) = {
	[KILN_ATTACH_SOCKMAP] = attach_sockmap,
	[KILN_ATTACH_NETNS] = attach_netns,
	[KILN_ATTACH_PERF_EVENT] = attach_perf_event,
	[KILN_ATTACH_XDP] = attach_xdp,
	[KILN_ATTACH_TC] = attach_tc,
	[KILN_ATTACH_TRACEPOINT] = attach_tracepoint,
	[KILN_ATTACH_RAW_TRACEPOINT] = attach_raw_tracepoint,
	[KILN_ATTACH_TRACING] = attach_trampoline,
	[KILN_ATTACH_LSM] = attach_trampoline,
	[KILN_ATTACH_UPROBE] = attach_uprobe,
	[KILN_ATTACH_KPROBE] = attach_kprobe,
	[KILN_ATTACH_CGROUP] = attach_cgroup,
};

int kiln_prog_attach(struct kiln_prog *p, const struct kiln_attach_opts *opts, struct kiln_link **out)
{
	if (!p || !out)
		return kl_fail_msg(EINVAL, "kiln_prog_attach: no program or no place for the link");
	*out = NULL;
	struct attach_ctx c = { .p = p, .row = kl_attach_section_find(kiln_prog_section(p)), .prog_fd = kiln_prog_fd(p) };
	int err = kl_copy_opts(&c.o, sizeof(c.o), opts, "struct kiln_attach_opts");
	if (err)
		return err;
	enum kiln_attach_kind kind = c.row ? c.row->kind : KILN_ATTACH_NONE;
	int (*attach)(struct attach_ctx *) =
		(size_t)kind < sizeof(attachers) / sizeof(attachers[0]) ? attachers[kind] : NULL;
	if (!attach)
		return kl_fail_msg(EOPNOTSUPP, "attach program '%s' of %s: section %s (%s) has no hook kiln attaches to",
				   kiln_prog_name(p), p->obj->name, kiln_prog_section(p), kiln_attach_kind_name(kind));
	if (c.prog_fd < 0)
		return kl_fail_msg(EINVAL, "attach program '%s' of %s: not loaded (kiln_object_load first)",
				   kiln_prog_name(p), p->obj->name);
	if (!(c.l = calloc(1, sizeof(*c.l))))
		return kl_fail(ENOMEM, "attach program '%s' of %s", kiln_prog_name(p), p->obj->name);
	c.l->kind = kind;
	c.l->fd = -1;
	if ((err = KL_LIBBPF(attach(&c)))) {
		free(c.l);
		return err;
	}
	*out = c.l;
	return 0;
}

/* ---- links -------------------------------------------------------------------------------- */

static void mkdir_parents(const char *path)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(dir, 0700);
		*s = '/';
	}
}

int kiln_link_pin(struct kiln_link *l, const char *path)
{
	if (!l || !path)
		return kl_fail_msg(EINVAL, "kiln_link_pin: no link or no path");
	if (l->tc_legacy)
		return kl_fail_msg(EOPNOTSUPP, "pin %s at %s: a legacy tc filter is no link (it stays in the qdisc "
				   "until detached)", l->desc, path);
	if (l->prog_attached)
		return kl_fail_msg(EOPNOTSUPP, "pin %s at %s: a program attached to a sockmap is no link (it stays "
				   "while the map lives, or until detached)", l->desc, path);
	if (l->nmore)
		return kl_fail_msg(EOPNOTSUPP, "pin %s at %s: sampling on several CPUs is a link per CPU; pinning "
				   "them is not supported", l->desc, path);
	if (l->detached)
		return kl_fail_msg(EINVAL, "pin %s at %s: the link was detached", l->desc, path);
	if (l->pin_path)
		return kl_fail_msg(EBUSY, "pin %s at %s: already pinned at %s", l->desc, path, l->pin_path);
	char *copy = strdup(path);
	if (!copy)
		return kl_fail(ENOMEM, "pin %s at %s", l->desc, path);
	mkdir_parents(path);
	int err = bpf_obj_pin(l->fd, path);
	if (err) {
		free(copy);
		return kl_fail(err, "bpf(BPF_OBJ_PIN) for %s at %s", l->desc, path);
	}
	l->pin_path = copy;
	return 0;
}

/* Let go of our fd: the attachment ends unless something else (a pin) holds the link. */
static void link_close(struct kiln_link *l)
{
	if (l->bl)
		bpf_link__destroy(l->bl);
	else if (l->fd >= 0)
		close(l->fd);
	l->bl = NULL;
	l->fd = -1;
	for (size_t k = 0; k < l->nmore; k++)
		close(l->more[k]);
	free(l->more);
	l->more = NULL;
	l->nmore = 0;
}

int kiln_link_detach(struct kiln_link *l)
{
	if (!l)
		return kl_fail_msg(EINVAL, "kiln_link_detach: no link");
	if (l->detached)
		return 0;
	int err = 0;
	if (l->tc_legacy) {
		LIBBPF_OPTS(bpf_tc_opts, to, .handle = l->tc_handle, .priority = l->tc_priority);
		err = KL_LIBBPF(bpf_tc_detach(&l->hook, &to));
		/* gone already: the filter deleted by hand, or the interface */
		if (err == -ENOENT || err == -ENODEV)
			err = 0;
		if (err)
			return kl_fail_libbpf(err, l->desc);
		clsact_release(l);
	} else if (l->prog_attached) {
		if (bpf_prog_detach2(l->att_prog_fd, l->att_target_fd, l->att_type) && errno != ENOENT)
			err = kl_fail(errno, "detach %s", l->desc);
		close(l->att_prog_fd);
		close(l->att_target_fd);
		l->prog_attached = false;
	} else {
		if (l->pin_path && unlink(l->pin_path) && errno != ENOENT)
			err = kl_fail(errno, "detach %s: unpin %s", l->desc, l->pin_path);
		free(l->pin_path);
		l->pin_path = NULL;
		/* ends it even where another process holds the link; perf links cannot, and
		 * closing the last fd ends those */
		bpf_link_detach(l->fd);
		link_close(l);
	}
	l->detached = true;
	return err;
}

void kiln_link_destroy(struct kiln_link *l)
{
	if (!l)
		return;
	if (l->pin_path && !l->detached) {
		/* the pin keeps it attached; libbpf 1.1's disconnect would leave its fd open */
		if (l->bl) {
			close(bpf_link__fd(l->bl));
			bpf_link__disconnect(l->bl);
			bpf_link__destroy(l->bl);
		} else {
			close(l->fd);
		}
	} else {
		kiln_link_detach(l);
	}
	free(l->pin_path);
	free(l);
}

enum kiln_attach_kind kiln_link_kind(const struct kiln_link *l)
{
	return l->kind;
}

const char *kiln_link_describe(const struct kiln_link *l)
{
	return l->desc;
}

int kiln_link_fd(const struct kiln_link *l)
{
	return l->tc_legacy || l->detached ? -1 : l->fd;   /* -1 too for a sockmap attachment */
}
