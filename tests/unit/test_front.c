/* test_front.c — the reader and the top-level forms: spans, number syntax, reader errors,
 * constant evaluation with BPF semantics, C and packed struct layout (seed 002's event). */
#include "check.h"
#include "compiler/compile.h"
#include "compiler/forms.h"
#include <string.h>

static struct kl_arena arena;

static int read_src(const char *text, struct kl_diag *d, struct kl_node ***forms, uint32_t *n)
{
	static struct kl_source src;
	src = (struct kl_source){ "t.lisp", text, strlen(text) };
	memset(d, 0, sizeof(*d));
	return kl_read(&arena, d, &src, forms, n);
}

static int compile_forms(const char *text, struct kl_comp *c, struct kl_diag *d)
{
	static struct kl_source src;
	src = (struct kl_source){ "t.lisp", text, strlen(text) };
	memset(d, 0, sizeof(*d));
	memset(c, 0, sizeof(*c));
	c->a = &arena;
	c->d = d;
	c->src = &src;
	struct kl_node **forms;
	uint32_t n;
	if (kl_read(&arena, d, &src, &forms, &n))
		return -1;
	return kl_forms_collect(c, forms, n);
}

int main(void)
{
	struct kl_diag d;
	struct kl_node **f;
	uint32_t n;

	CHECK("reader/atoms", !read_src("42 -7 #x1f 0x10 #b101 #o17 #\\a #\\space foo :key \"s\\n\"", &d, &f, &n) &&
	      n == 11 && f[0]->ival == 42 && f[1]->ival == -7 && f[2]->ival == 31 && f[3]->ival == 16 &&
	      f[4]->ival == 5 && f[5]->ival == 15 && f[6]->ival == 'a' && f[7]->ival == ' ' &&
	      f[8]->kind == KL_N_SYM && f[9]->kind == KL_N_KEY && !strcmp(f[9]->str, "key") && !strcmp(f[10]->str, "s\n"),
	      "n=%u", n);
	CHECK("reader/u64-max", !read_src("#xffffffffffffffff", &d, &f, &n) && f[0]->ival == -1, "bad");
	/* negated as the machine does, without overflowing (a fuzzer's find under UBSan) */
	CHECK("reader/neg-int64-min", !read_src("#x-8000000000000000 -9223372036854775808", &d, &f, &n) && n == 2 &&
	      f[0]->ival == INT64_MIN && f[1]->ival == INT64_MIN, "bad");
	CHECK("reader/spans", !read_src("; c\n  (a\n   (b c) [d])", &d, &f, &n) && n == 1 &&
	      f[0]->span.line == 2 && f[0]->span.col == 3 && f[0]->items[1]->span.line == 3 &&
	      f[0]->items[1]->span.col == 4 && f[0]->items[2]->vector, "line %u col %u",
	      n ? f[0]->span.line : 0, n ? f[0]->span.col : 0);
	CHECK("reader/block-comment", !read_src("#| a #| nested |# b |# x", &d, &f, &n) && n == 1, "n=%u", n);
	CHECK("reader/quote", !read_src("'x `(a ,b ,@c)", &d, &f, &n) && n == 2 && !strcmp(kl_head(f[0]), "quote") &&
	      !strcmp(kl_head(f[1]), "quasiquote"), "bad");
	CHECK("reader/unbalanced", read_src("(a (b c)", &d, &f, &n) && d.span.line == 1 && d.span.col == 1 &&
	      strstr(d.msg, "unbalanced"), "%s", d.msg);
	CHECK("reader/stray-close", read_src("(a))", &d, &f, &n) && d.span.col == 4, "%s", d.msg);
	CHECK("reader/mismatch", read_src("(a]", &d, &f, &n) && d.span.col == 3, "%s", d.msg);
	CHECK("reader/string", read_src("\"abc", &d, &f, &n) && strstr(d.msg, "unterminated string"), "%s", d.msg);

	struct kl_comp c;
	int64_t v;
	CHECK("forms/constants", !compile_forms("(defconstant a (* 256 1024)) (defconstant b (+ a 1))", &c, &d) &&
	      kl_const_lookup(&c, "b", &v) && v == 262145, "%s", d.msg);
	CHECK("forms/bpf-semantics", !compile_forms("(defconstant q (/ 7 0)) (defconstant r (mod 7 0)) "
						    "(defconstant s (<< 1 65))", &c, &d) &&
	      kl_const_lookup(&c, "q", &v) && v == 0 && kl_const_lookup(&c, "r", &v) && v == 7 &&
	      kl_const_lookup(&c, "s", &v) && v == 2, "%s", d.msg);
	CHECK("forms/uapi", !compile_forms("(defconstant p XDP_PASS)", &c, &d) && kl_const_lookup(&c, "p", &v) &&
	      v == 2, "%s", d.msg);

	const char *ev = "(defevent ConnectionEvent [:timestamp :u64] [:pid :u32] [:saddr :u32] [:daddr :u32]"
			 " [:sport :u16] [:dport :u16] [:protocol :u8] [:direction :u8] [:padding :u8 2]"
			 " [:comm :char 16])"
			 "(defconstant sz (event-size ConnectionEvent))"
			 "(defconstant pid (event-field-offset ConnectionEvent :pid))"
			 "(defconstant comm (event-field-size ConnectionEvent :comm))";
	int64_t sz = 0, pid = 0, comm = 0;
	CHECK("forms/defevent-seed-002", !compile_forms(ev, &c, &d) && kl_const_lookup(&c, "sz", &sz) && sz == 44 &&
	      kl_const_lookup(&c, "pid", &pid) && pid == 8 && kl_const_lookup(&c, "comm", &comm) && comm == 16,
	      "size %lld pid %lld comm %lld %s", (long long)sz, (long long)pid, (long long)comm, d.msg);

	/* clj-ebpf's make-event-def at compile time (in eval-when, in a macro at the top level) and
	 * the event-* forms given the event unquoted (macros, constants) or quoted */
	const char *mk = "(eval-when (:compile-toplevel) (make-event-def 'Conn '([:ts :u64] [:pid :u32] [:comm :char 16])))"
			 "(defmacro defev (n &rest specs) (make-event-def n specs) `(defconstant ,n ,(event-size n)))"
			 "(defev small [:a :u8] [:b :u16])"
			 "(defmacro ty (n) `(defconstant ,n ,(if (equal (mapcar (lambda (f) (event-field-type Conn f))"
			 " (event-fields Conn)) '(:u64 :u32 :char)) (event-field-offset Conn :comm) 0)))"
			 "(ty m1) (defconstant m2 (event-field-size 'Conn :comm))"
			 "(make-event-def 'top '[[:x :u16] [:y :u64]]) (defconstant m3 (event-field-offset top :y))";
	int64_t m1 = 0, m2 = 0, sm = 0, m3 = 0;
	CHECK("forms/make-event-def", !compile_forms(mk, &c, &d) && kl_const_lookup(&c, "m1", &m1) && m1 == 12 &&
	      kl_const_lookup(&c, "m3", &m3) && m3 == 2 &&
	      kl_const_lookup(&c, "m2", &m2) && m2 == 16 && kl_const_lookup(&c, "small", &sm) && sm == 3 &&
	      kl_struct_lookup(&c, "Conn") && kl_struct_lookup(&c, "Conn")->event && kl_accessor_lookup(&c, "small-b"),
	      "m1 %lld m2 %lld small %lld %s", (long long)m1, (long long)m2, (long long)sm, d.msg);

	const char *st = "(defstruct flow (proto u8) (port u16) (addr u32) (bytes u64) (tag (array u8 3)))"
			 "(defconstant s (sizeof flow)) (defconstant o (offsetof flow bytes))"
			 "(defconstant t2 (offsetof flow tag))";
	int64_t s = 0, o = 0, t2 = 0;
	CHECK("forms/defstruct-c-layout", !compile_forms(st, &c, &d) && kl_const_lookup(&c, "s", &s) && s == 24 &&
	      kl_const_lookup(&c, "o", &o) && o == 8 && kl_const_lookup(&c, "t2", &t2) && t2 == 16,
	      "size %lld bytes@%lld tag@%lld %s", (long long)s, (long long)o, (long long)t2, d.msg);
	CHECK("forms/accessor", kl_accessor_lookup(&c, "flow-port") &&
	      kl_accessor_lookup(&c, "flow-port")->field->offset == 2, "missing");

	/* C's and the kernel's integer names, laid out as C does; i32 is the kernel's s32 */
	const char *ci = "(defstruct cints (a char) (b long) (c unsigned-short) (d bool) (e __be32) (f size_t)"
			 " (g long-long) (h s16) (i unsigned))"
			 "(defconstant cs (sizeof cints)) (defconstant ce (offsetof cints e))"
			 "(defconstant ci (offsetof cints i))";
	int64_t cs = 0, ce = 0, cio = 0;
	CHECK("forms/c-int-names", !compile_forms(ci, &c, &d) && kl_const_lookup(&c, "cs", &cs) && cs == 48 &&
	      kl_const_lookup(&c, "ce", &ce) && ce == 20 && kl_const_lookup(&c, "ci", &cio) && cio == 42 + 2,
	      "size %lld e@%lld i@%lld %s", (long long)cs, (long long)ce, (long long)cio, d.msg);
	const struct kl_type *i32 = kl_type_builtin("i32"), *lng = kl_type_builtin("long");
	CHECK("types/i32-is-s32-chain", i32 && i32->is_signed && i32->size == 4 && !strcmp(i32->typedef_name, "s32") &&
	      i32->under && !strcmp(i32->under->typedef_name, "__s32") && i32->under->under &&
	      !strcmp(i32->under->under->cname, "int") && !i32->under->under->typedef_name, "bad chain");
	CHECK("types/long", lng && lng->size == 8 && lng->is_signed && !lng->typedef_name && !strcmp(lng->cname, "long") &&
	      kl_type_builtin("s32") == i32 && !kl_type_builtin("unsigned long"), "bad");
	/* the macro evaluator tells integer type names from others (do-user-array's choice) */
	CHECK("forms/integer-type-p", !compile_forms("(defmacro k (name x) `(defconstant ,name ,(if (%integer-type-p x) 1 2)))"
						     "(defstruct pair (a u32) (b u32))"
						     "(k k1 long) (k k2 __be16) (k k3 pair) (k k4 ptr)", &c, &d) &&
	      kl_const_lookup(&c, "k1", &v) && v == 1 && kl_const_lookup(&c, "k2", &v) && v == 1 &&
	      kl_const_lookup(&c, "k3", &v) && v == 2 && kl_const_lookup(&c, "k4", &v) && v == 2, "%s", d.msg);
	CHECK("forms/defmap-sizes", !compile_forms("(defmap m :type :hash :key-size 16 :value-size 8 :max-entries 64)",
						   &c, &d) && c.maps.len == 1 && c.maps.items[0].key_size == 16 &&
	      c.maps.items[0].m.key->kind == KL_T_ARRAY && c.maps.items[0].m.value->size == 8, "%s", d.msg);
	CHECK("forms/ringbuf-pow2", compile_forms("(defmap r :type :ringbuf :max-entries 12288)", &c, &d) &&
	      strstr(d.msg, "power of two"), "%s", d.msg);
	CHECK("forms/mangle", !strcmp(kl_mangle(&arena, "pkt-count"), "pkt_count"), "bad");

	/* case: the reader folds a symbol's or keyword's name for comparisons (str) and keeps it
	 * as written (kl_name); a lower-case name is not copied; strings and #\A keep their case */
	CHECK("case/reader", !read_src("Foo :TYPE bar \"Str\" #\\A", &d, &f, &n) && n == 5 &&
	      !strcmp(f[0]->str, "foo") && !strcmp(kl_name(f[0]), "Foo") && !strcmp(f[1]->str, "type") &&
	      !strcmp(kl_name(f[1]), "TYPE") && f[2]->str == f[2]->name && !strcmp(f[3]->str, "Str") &&
	      !strcmp(kl_name(f[3]), "Str") && f[4]->ival == 'A', "n=%u %s", n, n ? f[0]->str : "");
	const char *uev = "(DEFEVENT ConnectionEvent [:TIMESTAMP :U64] [:Pid :U32] [:COMM :CHAR 16])"
			  "(DEFCONSTANT PID (EVENT-FIELD-OFFSET CONNECTIONEVENT :pid))"
			  "(DEFCONSTANT SZ (EVENT-SIZE connectionevent))";
	struct kl_structdef *sd = NULL;
	pid = sz = 0;
	CHECK("case/defevent-upper", !compile_forms(uev, &c, &d) && kl_const_lookup(&c, "pid", &pid) && pid == 8 &&
	      kl_const_lookup(&c, "Sz", &sz) && sz == 28 && (sd = kl_struct_lookup(&c, "CONNECTIONEVENT")) &&
	      !strcmp(sd->name, "ConnectionEvent") && !strcmp(sd->type->fields[1].name, "Pid") &&
	      kl_type_field(sd->type, "PID") == &sd->type->fields[1],
	      "pid %lld size %lld %s %s", (long long)pid, (long long)sz, sd ? sd->name : "-", d.msg);
	CHECK("case/clash", compile_forms("(defun f (x) x) (defun F (x) x)", &c, &d) &&
	      strstr(d.msg, "'F' differs only in case from 'f' at t.lisp:1:8"), "%s", d.msg);
	kl_arena_free(&arena);
	return CHECK_DONE();
}
