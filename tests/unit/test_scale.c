/* test_scale.c — the compiler on large inputs, and the tables that keep it linear: the name
 * table (put keeps the first, set the last, any case finds either), then generated programs
 * (thousands of map increments in one program, a thousand programs each in its own section,
 * a call graph of 2^40 paths) compiled and read back by libbpf: every program there, in its
 * section, with the instructions and the symbols it should have. Times and memory are
 * bench/scale.sh's business; this checks the results are right at that size. */
#include "check.h"
#include "compiler/names.h"
#include <kiln/compile.h>
#include <kiln/error.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

/* Write the source printf makes to a fresh .lisp file, compile it, open the image. */

static struct bpf_object *compile_text(const char *text, void **elf)
{
	snprintf(path, sizeof(path), "/tmp/kiln-scale-%d.lisp", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	size_t size;
	int rc = kiln_compile(path, elf, &size, NULL);
	unlink(path);
	if (rc)
		return NULL;
	struct bpf_object *o = bpf_object__open_mem(*elf, size, NULL);
	return libbpf_get_error(o) ? NULL : o;
}

/* A growing string: the generated source. */
struct buf {
	char *s;
	size_t len, cap;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void test_names(void)
{
	struct kl_arena a = { 0 };
	struct kl_names t = { 0 };
	enum { N = 50000 };
	static char names[N][16];
	for (uint32_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "name-%u", i);
		kl_names_put(&a, &t, names[i], i);
	}
	bool all = t.len == N;
	for (uint32_t i = 0; i < N && all; i++)
		all = kl_names_get(&t, names[i]) == i;
	CHECK("names/many", all && t.cap >= 2 * t.len, "len %u cap %u", t.len, t.cap);
	kl_names_put(&a, &t, "NAME-7", 1);
	CHECK("names/put-keeps-first", kl_names_get(&t, "name-7") == 7 && t.len == N, "%lld",
	      (long long)kl_names_get(&t, "name-7"));
	kl_names_set(&a, &t, "Name-7", 99);
	kl_names_set(&a, &t, "new-one", 5);
	CHECK("names/set-replaces", kl_names_get(&t, "NAME-7") == 99 && kl_names_get(&t, "New-One") == 5 &&
	      t.len == N + 1 && kl_names_get(&t, "absent") == -1, "%lld len %u",
	      (long long)kl_names_get(&t, "name-7"), t.len);
	kl_arena_free(&a);
}

/* Each map increment is a lookup, a branch and an update: thousands of them make thousands of
 * blocks and tens of thousands of virtual registers for the allocator. */
static void test_increments(void)
{
	enum { N = 5000 };
	struct buf b = { 0 };
	add(&b, "(defmap m :type :hash :key u32 :value u64 :max-entries 1024)\n(defprog p (:type :xdp)\n");
	for (int i = 0; i < N; i++)
		add(&b, "  (incf-map m %d)\n", i % 1000);
	add(&b, "  XDP_PASS)\n");
	void *elf = NULL;
	struct bpf_object *o = compile_text(b.s, &elf);
	struct bpf_program *p = o ? bpf_object__find_program_by_name(o, "p") : NULL;
	size_t n = p ? bpf_program__insn_cnt(p) : 0;
	/* each increment at least loads the map, calls lookup and update, and adds */
	CHECK("scale/increments", p && n >= 6 * N && n < 60 * N, "%s, %zu instructions", o ? "opened" : "did not compile",
	      n);
	bpf_object__close(o);
	free(elf);
	free(b.s);
}

/* Thousands of loops in one program: rotate once read past its table of loops when the
 * labels it made outnumbered the loops (a crash), and unroll-fold tried each loop that
 * cannot fold (seconds). */
static void test_loops(void)
{
	enum { N = 2000 };
	struct buf b = { 0 };
	add(&b, "(defmap m :type :array :key u32 :value u64 :max-entries 4)\n(defprog p (:type :xdp)\n"
		"  (let ((data (ctx data)) (s 0) (x (ctx data-end)))\n    (when (> (+ data 1) x) (return XDP_PASS))\n");
	for (int i = 0; i < N; i++)   /* loops that read the packet, and loops of arithmetic alone */
		if (i % 2)
			add(&b, "    (dotimes (i %d) (setf s (+ s (load u8 data 0))))\n", 17 + i % 5);
		else
			add(&b, "    (dotimes (i %d) (setf s (+ s (logxor x i))))\n", 17 + i % 5);
	add(&b, "    (incf (getmap m 0) s) XDP_PASS))\n");
	void *elf = NULL;
	struct bpf_object *o = compile_text(b.s, &elf);
	struct bpf_program *p = o ? bpf_object__find_program_by_name(o, "p") : NULL;
	size_t n = p ? bpf_program__insn_cnt(p) : 0;
	CHECK("scale/loops", p && n >= 3 * N, "%s, %zu instructions", o ? "opened" : "did not compile", n);
	bpf_object__close(o);
	free(elf);
	free(b.s);
}

static void test_sections(void)
{
	enum { N = 1000 };
	struct buf b = { 0 };
	add(&b, "(defmap m :type :array :key u32 :value u64 :max-entries 1024)\n");
	for (int i = 0; i < N; i++) {
		add(&b, "(defun f%d (x) (+ x %d))\n", i, i);
		add(&b, "(defprog p%d (:type :xdp :section \"xdp/p%d\") (incf (getmap m (f%d %d))) XDP_PASS)\n",
		    i, i, i, i % 1024);
	}
	void *elf = NULL;
	struct bpf_object *o = compile_text(b.s, &elf);
	int progs = 0, right = 0;
	struct bpf_program *p;
	bpf_object__for_each_program(p, o) {
		int k;
		progs++;
		/* libbpf lists subprograms too only if they were programs: each pN in xdp/pN */
		if (sscanf(bpf_program__name(p), "p%d", &k) == 1) {
			char sec[32];
			snprintf(sec, sizeof(sec), "xdp/p%d", k);
			right += !strcmp(bpf_program__section_name(p), sec);
		}
	}
	CHECK("scale/sections", o && progs == N && right == N, "%s: %d programs, %d in their own section",
	      o ? "opened" : "did not compile", progs, right);
	bpf_object__close(o);
	free(elf);
	free(b.s);
}

/* Functions calling the next one twice, 40 deep: 2^40 call paths, whose stack is each
 * function's worked out once (walking every path never ended). Too deep for the stack,
 * which is the error expected. */
static void test_call_dag(void)
{
	struct buf b = { 0 };
	add(&b, "(defmap m :type :array :key u32 :value u64 :max-entries 1)\n(defun f40 (x) (+ x 1))\n");
	for (int i = 39; i >= 0; i--)
		add(&b, "(defun f%d (x) (+ (f%d x) (f%d 1)))\n", i, i + 1, i + 1);
	add(&b, "(defprog p (:type :xdp) (setf (getmap m 0) (f0 1)) XDP_PASS)\n");
	void *elf = NULL;
	struct bpf_object *o = compile_text(b.s, &elf);
	CHECK("scale/call-dag", !o && strstr(kiln_errmsg(), "bytes of stack"), "%s", o ? "compiled" : kiln_errmsg());
	bpf_object__close(o);
	free(elf);
	free(b.s);
}

int main(void)
{
	libbpf_set_print(NULL);
	test_names();
	test_increments();
	test_loops();
	test_sections();
	test_call_dag();
	return check_failures ? 1 : 0;
}
