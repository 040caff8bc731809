/* gen_lisp.c — `kiln gen lisp FILE`: for every struct and union of an object's BTF (its maps'
 * keys and values, its events, its data sections: gen_c.h's roots, and the types they hold),
 * Lisp that kiln's host (a session file, `kiln run`, the REPL) loads: a record type as a
 * list (NAME-record :FIELD VALUE ...), make-NAME-record with a keyword per field,
 * NAME-record-FIELD accessors, decode-NAME (bytes, from an offset, to a record) and encode-NAME
 * (a record to bytes), and +NAME-size+, in the names Whistler's defstruct gives a session.
 * The code uses only what the host's Lisp has (defun, aref, ash, logand, dotimes...), through
 * a few helpers (%kiln-...: no generated name has a %). Names come from the object: they are
 * written only as gen_names.h makes them (letters, digits, _ and -), strings escaped. */
#include "gen_lisp.h"
#include "gen_names.h"
#include <kiln/object.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The helpers every generated file starts with (the same in each: loading two is harmless). */
static const char helpers[] =
	"(defun %kiln-int (b o size signed)\n"
	"  (let ((v 0))\n"
	"    (dotimes (i size) (setf v (logior v (ash (aref b (+ o i)) (* 8 i)))))\n"
	"    (if (and signed (< size 8) (>= v (ash 1 (- (* 8 size) 1)))) (- v (ash 1 (* 8 size))) v)))\n"
	"(defun %kiln-put (b o size v)\n"
	"  (dotimes (i size) (setf (aref b (+ o i)) (logand (ash v (- (* 8 i))) 255))))\n"
	"(defun %kiln-bits (b o shift nbits signed)\n"
	"  (let ((v 0))\n"
	"    (dotimes (i nbits)\n"
	"      (let ((p (+ shift i)))\n"
	"        (setf v (logior v (ash (logand (ash (aref b (+ o (ash p -3))) (- (logand p 7))) 1) i)))))\n"
	"    (if (and signed (< nbits 64) (>= v (ash 1 (- nbits 1)))) (- v (ash 1 nbits)) v)))\n"
	"(defun %kiln-put-bits (b o shift nbits v)\n"
	"  (dotimes (i nbits)\n"
	"    (let* ((p (+ shift i)) (at (+ o (ash p -3))) (m (ash 1 (logand p 7))))\n"
	"      (setf (aref b at) (if (= 1 (logand (ash v (- i)) 1)) (logior (aref b at) m)\n"
	"                            (logand (aref b at) (logxor m 255)))))))\n"
	"(defun %kiln-vec (b o n size f)\n"
	"  (let ((v (make-array n)))\n"
	"    (dotimes (i n) (setf (aref v i) (funcall f b (+ o (* i size)))))\n"
	"    v))\n"
	"(defun %kiln-put-vec (b o n size f x)\n"
	"  (dotimes (i (min n (length x)))\n"
	"    (let ((e (elt x i))) (when e (funcall f b (+ o (* i size)) e)))))\n"
	"(defun %kiln-zero (size f) (funcall f (make-array size :initial-element 0) 0))\n"
	"(defun %kiln-need (b o size who)\n"
	"  (unless (and (vectorp b) (<= (+ o size) (length b)))\n"
	"    (error \"~a needs ~a bytes from offset ~a, not ~s\" who size o (if (vectorp b) (length b) b))))\n"
	"(defun %kiln-record (r tag)\n"
	"  (unless (and (consp r) (eq (car r) tag)) (error \"~s is not a ~a\" r tag)))\n"
	"(defun %kiln-field (r tag i) (%kiln-record r tag) (nth i r))\n"
	"(defun %kiln-arg (kv key dflt)\n"
	"  (loop (when (null kv) (return (if (functionp dflt) (funcall dflt) dflt)))\n"
	"        (when (eq (car kv) key) (return (second kv)))\n"
	"        (setf kv (nthcdr 2 kv))))\n"
	"(defun %kiln-keys (kv keys who)\n"
	"  (loop (when (null kv) (return nil))\n"
	"        (unless (and (keywordp (car kv)) (consp (cdr kv)) (member (car kv) keys))\n"
	"          (error \"~a: ~s is not one of ~s with a value\" who (car kv) keys))\n"
	"        (setf kv (nthcdr 2 kv))))\n";

struct lw {
	FILE *out;
	const struct gen_input *in;
	char **names;                     /* by type id: a struct's or union's Lisp name */
	uint8_t *queued;                  /* by type id: on the list to write */
	uint32_t *todo;                   /* the composite types to write, in order */
	size_t ntodo;
};

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	while (t && (btf_is_typedef(t) || btf_is_mod(t) || btf_is_type_tag(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

/* type id (a composite, else nothing) onto the list to write */
static void queue(struct lw *w, uint32_t id)
{
	const struct btf_type *t = skip_mods(w->in->btf, &id);
	while (t && btf_is_array(t)) {
		id = btf_array(t)->type;
		t = skip_mods(w->in->btf, &id);
	}
	if (t && btf_is_composite(t) && !w->queued[id]) {
		w->queued[id] = 1;
		w->todo[w->ntodo++] = id;
	}
}

enum { DEC, ENC };

/* whether type id has a value (a function or a forward declaration has none) */
static bool has_value(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = skip_mods(btf, &id);
	return t && !btf_is_func(t) && !btf_is_func_proto(t) && !btf_is_fwd(t) && !btf_is_void(t) &&
	       btf__resolve_size(btf, id) >= 0;
}

/* How type id is read (DEC: an expression of b and o, the bytes and the offset of its
 * start, plus off) or written (ENC: of b, o and x, the value). Arrays of arrays deeper than
 * 8 are read as their bytes. false: a type with no value (a function). */
static bool value_expr(struct lw *w, uint32_t id, uint32_t off, int how, int depth)
{
	FILE *out = w->out;
	const struct btf *btf = w->in->btf;
	if (!has_value(btf, id))
		return false;
	const struct btf_type *t = skip_mods(btf, &id);
	int64_t size = btf__resolve_size(btf, id);
	if (btf_is_array(t) && depth < 8) {
		const struct btf_array *a = btf_array(t);
		int64_t es = btf__resolve_size(btf, a->type);
		if (es < 0)
			return false;
		fprintf(out, how == DEC ? "(%%kiln-vec b (+ o %u) %u %lld (lambda (b o) " :
					  "(%%kiln-put-vec b (+ o %u) %u %lld (lambda (b o x) ",
			off, a->nelems, (long long)es);
		if (!value_expr(w, a->type, 0, how, depth + 1))
			fputs(how == DEC ? "nil" : "x", out);
		fputs(how == DEC ? "))" : ") x)", out);
		return true;
	}
	if (btf_is_composite(t)) {
		fprintf(out, how == DEC ? "(decode-%s b (+ o %u))" : "(encode-%s x b (+ o %u))", w->names[id], off);
		return true;
	}
	bool sign = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) &&
				     strcmp(btf__name_by_offset(btf, t->name_off), "char")
		  : btf_is_any_enum(t) ? btf_kflag(t) : false;
	if (btf_is_array(t) || size > 8 || !(btf_is_int(t) || btf_is_any_enum(t) || btf_is_ptr(t) || btf_is_float(t)))
		fprintf(out, how == DEC ? "(%%kiln-vec b (+ o %u) %lld 1 (lambda (b o) (aref b o)))" :
					  "(%%kiln-put-vec b (+ o %u) %lld 1 (lambda (b o x) (setf (aref b o) x)) x)",
			off, (long long)size);
	else if (how == DEC)
		fprintf(out, "(%%kiln-int b (+ o %u) %lld %s)", off, (long long)size, sign ? "t" : "nil");
	else
		fprintf(out, "(%%kiln-put b (+ o %u) %lld x)", off, (long long)size);
	return true;
}

/* A member's read or write: a bitfield's bits, else its type's */
static bool member_expr(struct lw *w, const struct btf_type *t, uint16_t i, int how)
{
	const struct btf_member *m = btf_members(t) + i;
	uint32_t bits = btf_member_bitfield_size(t, i), at = btf_member_bit_offset(t, i);
	if (!bits)
		return value_expr(w, m->type, at / 8, how, 0);
	uint32_t id = m->type;
	const struct btf_type *mt = skip_mods(w->in->btf, &id);
	bool sign = mt && (btf_is_int(mt) ? !!(btf_int_encoding(mt) & BTF_INT_SIGNED) : btf_is_any_enum(mt) && btf_kflag(mt));
	if (how == DEC)
		fprintf(w->out, "(%%kiln-bits b (+ o %u) %u %u %s)", at / 8, at % 8, bits, sign ? "t" : "nil");
	else
		fprintf(w->out, "(%%kiln-put-bits b (+ o %u) %u %u x)", at / 8, at % 8, bits);
	return true;
}

/* ---- an anonymous member's fields, read as the struct's own (C's o.x for o's struct { x }) ---- */

struct cand {
	char *name;
	uint16_t member;                  /* the anonymous member's index, or own: a field's */
	bool own;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (int)y->own - (int)x->own;
}

/* The names of the fields of member m's type (a composite), as its own emit_type gives them,
 * into names (n of them); 0 or -ENOMEM. */
static int field_names(struct lw *w, uint32_t tid, char ***names, uint16_t *n)
{
	const struct btf_type *t = btf__type_by_id(w->in->btf, tid);
	uint16_t vlen = btf_vlen(t);
	const char **raw = calloc(vlen ? vlen : 1, sizeof(*raw));
	char (*anon)[16] = calloc(vlen ? vlen : 1, sizeof(*anon));
	*names = calloc(vlen ? vlen : 1, sizeof(**names));
	*n = vlen;
	int err = raw && anon && *names ? 0 : -ENOMEM;
	for (uint16_t i = 0; i < vlen && !err; i++) {
		raw[i] = btf__name_by_offset(w->in->btf, btf_members(t)[i].name_off);
		if (!raw[i] || !*raw[i]) {
			snprintf(anon[i], sizeof(anon[i]), "anon%u", i);
			raw[i] = anon[i];
		}
	}
	if (!err)
		err = gen_names_assign(GEN_LISP, GEN_MEMBER, NULL, raw, NULL, vlen, *names);
	free(raw);
	free(anon);
	return err;
}

/* NAME-record-FIELD for each field of each anonymous struct or union member of type id whose
 * name no field of id's and no other such field has: a sort of all the names, O(n log n). */
static int emit_promoted(struct lw *w, uint32_t id, char **f, const bool *has)
{
	const struct btf *btf = w->in->btf;
	const struct btf_type *t = btf__type_by_id(btf, id);
	uint16_t vlen = btf_vlen(t);
	size_t n = 0, cap = vlen;
	struct cand *c = malloc((cap ? cap : 1) * sizeof(*c));
	char ***sub = calloc(vlen ? vlen : 1, sizeof(*sub));
	uint16_t *nsub = calloc(vlen ? vlen : 1, sizeof(*nsub));
	int err = c && sub && nsub ? 0 : -ENOMEM;
	for (uint16_t i = 0; i < vlen && !err; i++) {
		uint32_t mid = btf_members(t)[i].type;
		const struct btf_type *mt = skip_mods(btf, &mid);
		if (has[i])
			c[n++] = (struct cand){ f[i], i, true };
		if (!has[i] || *btf__name_by_offset(btf, btf_members(t)[i].name_off) || !btf_is_composite(mt) ||
		    (err = field_names(w, mid, &sub[i], &nsub[i])))
			continue;
		struct cand *g = realloc(c, (cap += nsub[i]) * sizeof(*c));
		if (!g) {
			err = -ENOMEM;
			break;
		}
		c = g;
		for (uint16_t j = 0; j < nsub[i]; j++)
			if (has_value(btf, btf_members(mt)[j].type))
				c[n++] = (struct cand){ sub[i][j], i, false };
	}
	if (!err)
		qsort(c, n, sizeof(*c), cand_cmp);
	/* a member one of whose fields clashes keeps them all under its own name, as Python's
	 * _anonymous_ would */
	bool *bad = err ? NULL : calloc(vlen ? vlen : 1, sizeof(*bad));
	if (!err && !bad)
		err = -ENOMEM;
	for (size_t k = 0; k < n && !err; k++)
		if (!c[k].own && ((k && !strcmp(c[k - 1].name, c[k].name)) || (k + 1 < n && !strcmp(c[k + 1].name, c[k].name))))
			bad[c[k].member] = true;
	for (uint16_t i = 0; i < vlen && !err; i++)
		if (bad[i])
			fprintf(stderr, "kiln gen: warning: the fields of %s.%s would hide others: they stay under %s\n",
				w->names[id], f[i], f[i]);
	for (size_t k = 0; k < n && !err; k++) {
		uint32_t mid = btf_members(t)[c[k].member].type;
		skip_mods(btf, &mid);
		if (!c[k].own && !bad[c[k].member])
			fprintf(w->out, "(defun %s-record-%s (r) (%s-record-%s (%s-record-%s r)))\n", w->names[id],
				c[k].name, w->names[mid], c[k].name, w->names[id], f[c[k].member]);
	}
	free(bad);
	for (uint16_t i = 0; sub && i < vlen; i++)
		if (sub[i]) {
			gen_names_free(sub[i], nsub[i]);
			free(sub[i]);
		}
	free(sub);
	free(nsub);
	free(c);
	return err;
}

/* One struct or union: its size, make-, accessors, decode- and encode-. */
static int emit_type(struct lw *w, uint32_t id)
{
	FILE *out = w->out;
	const struct btf *btf = w->in->btf;
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = w->names[id];
	uint16_t vlen = btf_vlen(t);
	const char **raw = calloc(vlen ? vlen : 1, sizeof(*raw));
	char **f = calloc(vlen ? vlen : 1, sizeof(*f)), (*anon)[16] = calloc(vlen ? vlen : 1, sizeof(*anon)), what[160];
	bool *has = calloc(vlen ? vlen : 1, sizeof(*has));
	int err = raw && f && anon && has ? 0 : -ENOMEM;
	for (uint16_t i = 0; i < vlen && !err; i++) {
		raw[i] = btf__name_by_offset(btf, btf_members(t)[i].name_off);
		if (!raw[i] || !*raw[i]) {
			snprintf(anon[i], sizeof(anon[i]), "anon%u", i);
			raw[i] = anon[i];
		}
		queue(w, btf_members(t)[i].type);
	}
	snprintf(what, sizeof(what), "member of %s", name);
	if (!err)
		err = gen_names_assign(GEN_LISP, GEN_MEMBER, what, raw, NULL, vlen, f);
	if (err)
		goto out;
	bool un = btf_is_union(t);
	fprintf(out, "\n;; %s %s: %u bytes\n(defparameter +%s-size+ %u)\n(defun make-%s-record (&rest kv)\n  (%%kiln-keys kv '(",
		un ? "union" : "struct", name, t->size, name, t->size, name);
	for (uint16_t i = 0; i < vlen; i++)
		if ((has[i] = has_value(btf, btf_members(t)[i].type)))
			fprintf(out, "%s:%s", i ? " " : "", f[i]);
	fprintf(out, ") 'make-%s-record)\n  (list '%s-record", name, name);
	/* each field as given, else a struct's zero (its decoding of zero bytes), a union's nil
	 * (the fields are keywords only: no name of the object is bound as a variable) */
	for (uint16_t i = 0; i < vlen; i++) {
		if (!has[i])
			continue;
		uint32_t mid = btf_members(t)[i].type;
		const struct btf_type *mt = skip_mods(btf, &mid);
		bool scalar = btf_member_bitfield_size(t, i) || !(btf_is_array(mt) || btf_is_composite(mt) ||
								   btf__resolve_size(btf, mid) > 8);
		fprintf(out, "\n    :%s (%%kiln-arg kv :%s ", f[i], f[i]);
		if (un || scalar) {
			fputs(un ? "nil)" : "0)", out);
			continue;
		}
		fprintf(out, "(lambda () (%%kiln-zero %lld (lambda (b o) ", (long long)btf__resolve_size(btf, mid));
		value_expr(w, mid, 0, DEC, 0);
		fputs("))))", out);
	}
	fputs("))\n", out);
	unsigned at = 2;
	for (uint16_t i = 0; i < vlen; i++)
		if (has[i]) {
			fprintf(out, "(defun %s-record-%s (r) (%%kiln-field r '%s-record %u))\n", name, f[i], name, at);
			at += 2;
		}
	if (!err)
		err = emit_promoted(w, id, f, has);
	fprintf(out, "(defun decode-%s (b &optional (o 0))\n  (if (consp b) (progn (%%kiln-record b '%s-record) b)\n"
		     "    (progn (%%kiln-need b o %u 'decode-%s)\n      (list '%s-record",
		name, name, t->size, name, name);
	for (uint16_t i = 0; i < vlen; i++)
		if (has[i]) {
			fprintf(out, "\n        :%s ", f[i]);
			member_expr(w, t, i, DEC);
		}
	fprintf(out, "))))\n(defun encode-%s (r &optional (b (make-array %u :initial-element 0)) (o 0))\n"
		     "  (%%kiln-record r '%s-record)\n  (%%kiln-need b o %u 'encode-%s)",
		name, t->size, name, t->size, name);
	at = 2;
	for (uint16_t i = 0; i < vlen; i++)
		if (has[i]) {
			fprintf(out, "\n  (let ((x (nth %u r))) (when x ", at);
			member_expr(w, t, i, ENC);
			fputs("))", out);
			at += 2;
		}
	fputs("\n  b)\n", out);
out:
	if (f)
		gen_names_free(f, vlen);
	free(f);
	free(raw);
	free(anon);
	free(has);
	return err;
}

/* type id as kiln spells it in a defmap (u32, (array u8 16), a struct's name), for the list
 * of maps; nil where it has none */
static void kiln_type(struct lw *w, uint32_t id, int depth)
{
	const struct btf *btf = w->in->btf;
	const struct btf_type *t = id ? skip_mods(btf, &id) : NULL;
	if (!t || !has_value(btf, id) || depth > 8) {
		fputs("nil", w->out);
	} else if (btf_is_array(t)) {
		fputs("(array ", w->out);
		kiln_type(w, btf_array(t)->type, depth + 1);
		fprintf(w->out, " %u)", btf_array(t)->nelems);
	} else if (btf_is_composite(t)) {
		fputs(w->names[id], w->out);
	} else if (btf_is_float(t)) {
		fprintf(w->out, "f%u", 8 * t->size);
	} else if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_ptr(t)) {
		bool sign = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) &&
					     strcmp(btf__name_by_offset(btf, t->name_off), "char")
			  : btf_is_any_enum(t) && btf_kflag(t);
		fprintf(w->out, "%c%u", sign ? 'i' : 'u', 8 * (btf_is_ptr(t) ? 8 : t->size));
	} else {
		fputs("nil", w->out);
	}
}

/* *UNIT-maps*: each map's name, key and value type; *UNIT-events*: each ring or perf
 * buffer's record type */
static void emit_maps(struct lw *w, const char *unit)
{
	struct bpf_map *m;
	struct bpf_object *o = kiln_object_libbpf(w->in->obj);
	fprintf(w->out, "\n;; each map's key and value type (nil: no BTF type)\n(defparameter *%s-maps*\n  '(", unit);
	bpf_object__for_each_map(m, o) {
		fputs("\n    (", w->out);
		gen_lisp_string(w->out, bpf_map__name(m));
		fputs(" :key ", w->out);
		kiln_type(w, bpf_map__btf_key_type_id(m), 0);
		fputs(" :value ", w->out);
		kiln_type(w, gen_value_type(w->in, m), 0);
		fputs(")", w->out);
	}
	fprintf(w->out, "))\n;; the record type of each ring or perf buffer that says it\n(defparameter *%s-events*\n  '(", unit);
	bpf_object__for_each_map(m, o) {
		uint32_t ev = gen_event_type(w->in->btf, bpf_map__name(m));
		if (!ev)
			continue;
		fputs("\n    (", w->out);
		gen_lisp_string(w->out, bpf_map__name(m));
		fputs(" . ", w->out);
		kiln_type(w, ev, 0);
		fputs(")", w->out);
	}
	fputs("))\n", w->out);
}

int gen_lisp(FILE *out, const struct gen_input *in)
{
	uint32_t n = btf__type_cnt(in->btf);
	struct gen_roots r = { 0 };
	struct lw w = { out, in, gen_type_names(in->btf, GEN_LISP), calloc(n, 1), calloc(n, sizeof(uint32_t)), 0 };
	const char *raw[1] = { in->name };
	char *unit[1] = { NULL }, path[256];
	int err = w.names && w.queued && w.todo ? gen_roots(in, false, &r) : -ENOMEM;
	if (!err)
		err = gen_names_assign(GEN_LISP, GEN_UNIT, "unit name", raw, NULL, 1, unit);
	if (!err) {
		gen_comment_text(path, sizeof(path), in->path);
		fprintf(out, ";;; %s types, generated by `kiln gen lisp` from the BTF of %s.\n", in->name, path);
		gen_list_maps(out, in, ";;;");
		fputs(";;; A record is a list (NAME-record :FIELD VALUE ...): make-NAME-record, NAME-record-FIELD,\n"
		      ";;; decode-NAME (bytes [offset]) and encode-NAME (record [bytes offset]).\n\n", out);
		fputs(helpers, out);
		for (size_t i = 0; i < r.n; i++)
			queue(&w, r.ids[i]);
		/* the list grows as the types' members are queued: each type once */
		for (size_t i = 0; i < w.ntodo && !err; i++)
			err = emit_type(&w, w.todo[i]);
		if (!err)
			emit_maps(&w, unit[0]);
	}
	gen_names_free(unit, 1);
	if (w.names)
		gen_names_free(w.names, n);
	free(w.names);
	free(w.queued);
	free(w.todo);
	free(r.ids);
	return err;
}
