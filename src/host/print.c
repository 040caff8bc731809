/* print.c — printing values as princ/prin1 do, output streams, and format's directives
 * (~a ~s ~d ~x ~o ~b ~c ~% ~& ~~ ~{ ~} ~^ ~* ~newline, with mincol and padchar). */
#include "hv.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void print_to(FILE *f, const struct hv *v, bool readably, int depth)
{
	if (depth > 64) {
		fputs("...", f);
		return;
	}
	switch (v->k) {
	case HV_NIL: fputs("NIL", f); break;
	case HV_T: fputs("T", f); break;
	case HV_INT: fprintf(f, "%lld", (long long)v->u.i); break;
	case HV_STR:
		if (!readably) {
			fwrite(v->u.str.s, 1, v->u.str.len, f);
			break;
		}
		fputc('"', f);
		for (size_t i = 0; i < v->u.str.len; i++) {
			if (v->u.str.s[i] == '"' || v->u.str.s[i] == '\\')
				fputc('\\', f);
			fputc(v->u.str.s[i], f);
		}
		fputc('"', f);
		break;
	case HV_KEY: fputc(':', f); /* fall through */
	case HV_SYM:
		for (const char *s = v->u.name; *s; s++)
			fputc(toupper((unsigned char)*s), f);
		break;
	case HV_CONS:
		fputc('(', f);
		for (const struct hv *l = v;; ) {
			print_to(f, l->u.cons.car, readably, depth + 1);
			l = l->u.cons.cdr;
			if (l->k != HV_CONS) {
				if (l->k != HV_NIL) {
					fputs(" . ", f);
					print_to(f, l, readably, depth + 1);
				}
				break;
			}
			fputc(' ', f);
		}
		fputc(')', f);
		break;
	case HV_VEC:
	case HV_MV:
		fputs(v->k == HV_VEC ? "#(" : "", f);
		for (size_t i = 0; i < v->u.vec.len; i++) {
			if (i)
				fputc(' ', f);
			print_to(f, v->u.vec.items[i], readably, depth + 1);
		}
		fputs(v->k == HV_VEC ? ")" : "", f);
		break;
	case HV_FN: fprintf(f, "#<FUNCTION %s>", v->u.fn.name ? v->u.fn.name : "LAMBDA"); break;
	case HV_BUILTIN: fprintf(f, "#<FUNCTION %s>", v->u.bi.name); break;
	case HV_MAP: fprintf(f, "#<BPF-MAP %s>", v->u.map.name); break;
	case HV_OBJ: fputs("#<BPF-OBJECT>", f); break;
	case HV_STREAM: fputs("#<STREAM>", f); break;
	case HV_RECORD:
		fprintf(f, "#S(%s-RECORD", v->u.rec.st->name);
		for (uint32_t i = 0; i < v->u.rec.st->nfields; i++) {
			fprintf(f, " :%s ", v->u.rec.st->fields[i].name);
			print_to(f, v->u.rec.fields[i], readably, depth + 1);
		}
		fputc(')', f);
		break;
	case HV_COND: fputs(v->u.cond.msg, f); break;
	}
}

void hv_print(struct host *h, FILE *f, const struct hv *v, bool readably)
{
	(void)h;
	print_to(f, v, readably, 0);
}

char *hv_to_text(struct host *h, const struct hv *v, bool readably)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return "?";
	print_to(f, v, readably, 0);
	fclose(f);
	char *s = kl_arena_strndup(&h->a, buf ? buf : "", len);
	free(buf);
	return s;
}

/* ---- streams ---------------------------------------------------------------------- */

void hv_stream_put(struct host *h, struct hv *s, const char *p, size_t len)
{
	if (!len)
		return;
	if (s->u.stream.string) {
		char *nb = kl_arena_alloc(&h->a, s->u.stream.len + len + 1);
		if (s->u.stream.len)
			memcpy(nb, s->u.stream.buf, s->u.stream.len);
		memcpy(nb + s->u.stream.len, p, len);
		s->u.stream.buf = nb;
		s->u.stream.len += len;
		return;
	}
	fwrite(p, 1, len, s->u.stream.f);
	*s->u.stream.bol = p[len - 1] == '\n';
	if (s->u.stream.f == stderr)
		fflush(stderr);
}

static bool stream_bol(struct hv *s)
{
	if (s->u.stream.string)
		return !s->u.stream.len || s->u.stream.buf[s->u.stream.len - 1] == '\n';
	return *s->u.stream.bol;
}

static struct hv *std_stream(struct host *h, FILE *f)
{
	struct hv *s = kl_arena_new(&h->a, struct hv);
	s->k = HV_STREAM;
	s->u.stream.f = f;
	s->u.stream.bol = f == stderr ? &h->err_bol : &h->out_bol;
	return s;
}

/* format's and print's destination: t (standard output), a stream (*error-output*, or one
 * with-output-to-string made) */
struct hv *hv_stream_of(struct host *h, const struct kl_node *at, struct hv *dest)
{
	if (dest->k == HV_STREAM)
		return dest;
	if (dest->k == HV_T) {
		struct hv_global *g = hv_global(h, "*standard-output*", true);
		if (!g->val)
			g->val = std_stream(h, stdout);
		return g->val;
	}
	return hv_err(h, at, "%s is not an output stream", hv_to_text(h, dest, true));
}

/* ---- format ------------------------------------------------------------------------ */

struct fmt {
	struct host *h;
	const struct kl_node *at;
	FILE *out;
	bool bol;              /* the destination's state before, for ~& at the start */
	size_t start;          /* out's length when this format began */
	char **buf;
	size_t *len;
};

static const char *find_close(const char *p, const char *end)
{
	int depth = 0;
	for (; p < end; p++) {
		if (*p != '~' || p + 1 >= end)
			continue;
		const char *q = p + 1;
		while (q < end && (isdigit((unsigned char)*q) || *q == ',' || *q == ':' || *q == '@' || *q == '\'' ||
				   *q == 'v' || *q == 'V' || *q == '#'))
			q += *q == '\'' ? 2 : 1;
		if (q < end && *q == '{')
			depth++;
		if (q < end && *q == '}' && depth-- == 0)
			return p;
		p = q;
	}
	return NULL;
}

static void pad(FILE *out, const char *s, size_t len, long mincol, char padc, bool left)
{
	long n = mincol > (long)len ? mincol - (long)len : 0;
	if (left)
		for (long i = 0; i < n; i++)
			fputc(padc, out);
	fwrite(s, 1, len, out);
	if (!left)
		for (long i = 0; i < n; i++)
			fputc(padc, out);
}

static bool at_bol(struct fmt *f)
{
	fflush(f->out);
	if (*f->len == f->start)
		return f->bol;
	return (*f->buf)[*f->len - 1] == '\n';
}

static int run(struct fmt *f, const char *p, const char *end, struct hv **args, int nargs, int *ai)
{
	struct host *h = f->h;
	while (p < end) {
		if (*p != '~') {
			fputc(*p++, f->out);
			continue;
		}
		if (++p >= end) {
			hv_err(h, f->at, "format: the control string ends with ~");
			return -1;
		}
		long params[4] = { -1, -1, -1, -1 };
		int np = 0;
		bool colon = false, atsign = false;
		char padc = ' ';
		for (;;) {
			if (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))) {
				params[np] = strtol(p, (char **)&p, 10);
			} else if (*p == '\'' && p + 1 < end) {
				params[np] = (unsigned char)p[1];
				if (np == 1 || np == 3)
					padc = p[1];
				p += 2;
			} else if (*p == 'v' || *p == 'V') {
				if (*ai < nargs && args[*ai]->k == HV_INT)
					params[np] = (long)args[(*ai)++]->u.i;
				p++;
			} else if (*p == '#') {
				params[np] = nargs - *ai;
				p++;
			}
			if (*p == ',' && np < 3) {
				np++;
				p++;
				continue;
			}
			break;
		}
		while (p < end && (*p == ':' || *p == '@')) {
			colon |= *p == ':';
			atsign |= *p == '@';
			p++;
		}
		if (p >= end) {
			hv_err(h, f->at, "format: a directive is cut off at the end");
			return -1;
		}
		char d = (char)tolower((unsigned char)*p++);
		if (strchr("asdxobc*", d) && !(d == '*') && *ai >= nargs) {
			hv_err(h, f->at, "format: ~%c has no argument left", d);
			return -1;
		}
		switch (d) {
		case 'a':
		case 's': {
			char *t = hv_to_text(h, args[(*ai)++], d == 's');
			pad(f->out, t, strlen(t), params[0], params[3] >= 0 ? (char)params[3] : ' ', atsign);
			break;
		}
		case 'd': case 'x': case 'o': case 'b': {
			struct hv *v = args[(*ai)++];
			if (v->k != HV_INT) {
				char *t = hv_to_text(h, v, false);
				pad(f->out, t, strlen(t), params[0], ' ', true);
				break;
			}
			char tmp[80], *q = tmp + sizeof(tmp);
			*--q = 0;
			int base = d == 'd' ? 10 : d == 'x' ? 16 : d == 'o' ? 8 : 2;
			uint64_t u = v->u.i < 0 ? -(uint64_t)v->u.i : (uint64_t)v->u.i;
			int digits = 0;
			do {
				if (colon && digits && digits % 3 == 0)
					*--q = ',';
				*--q = "0123456789ABCDEF"[u % (unsigned)base];
				u /= (unsigned)base;
				digits++;
			} while (u);
			if (v->u.i < 0)
				*--q = '-';
			else if (atsign)
				*--q = '+';
			pad(f->out, q, strlen(q), params[0], params[1] >= 0 ? padc : ' ', true);
			break;
		}
		case 'c': {
			struct hv *v = args[(*ai)++];
			fputc(v->k == HV_INT ? (int)v->u.i : '?', f->out);
			break;
		}
		case '%':
			for (long i = 0; i < (params[0] >= 0 ? params[0] : 1); i++)
				fputc('\n', f->out);
			break;
		case '&':
			if (!at_bol(f))
				fputc('\n', f->out);
			for (long i = 1; i < params[0]; i++)
				fputc('\n', f->out);
			break;
		case '~': fputc('~', f->out); break;
		case '\n':
			while (p < end && isspace((unsigned char)*p))
				p++;
			break;
		case '*':
			*ai += atsign ? -*ai : (int)(params[0] >= 0 ? params[0] : 1) * (colon ? -1 : 1);
			if (*ai < 0 || *ai > nargs) {
				hv_err(h, f->at, "format: ~* moves past the arguments");
				return -1;
			}
			break;
		case '^':
			if (*ai >= nargs)
				return 1;
			break;
		case '{': {
			const char *close = find_close(p, end);
			if (!close) {
				hv_err(h, f->at, "format: ~{ without ~}");
				return -1;
			}
			struct hv **items = args + *ai;
			int nitems = nargs - *ai, ii = 0;
			if (!atsign) {
				if (*ai >= nargs) {
					hv_err(h, f->at, "format: ~{ has no argument left");
					return -1;
				}
				struct hv *l = args[(*ai)++];
				nitems = (int)hv_list_len(l);
				items = kl_arena_array(&h->a, struct hv *, (size_t)nitems + 1);
				for (int i = 0; l->k == HV_CONS; l = l->u.cons.cdr)
					items[i++] = l->u.cons.car;
			}
			while (ii < nitems) {
				int before = ii, r = run(f, p, close, items, nitems, &ii);
				if (r < 0)
					return -1;
				if (r > 0 || ii == before)
					break;
			}
			if (atsign)
				*ai = nargs;
			p = close + 2;
			break;
		}
		default:
			hv_err(h, f->at, "format: ~%c is not supported (kiln's host side has ~a ~s ~d ~x ~o ~b ~c ~%% "
			       "~& ~~ ~{~} ~^ ~*)", d);
			return -1;
		}
	}
	return 0;
}

/* (format DEST CONTROL ARGS...): DEST nil gives a string; t, a stream, *error-output* print */
struct hv *hv_format(struct host *h, const struct kl_node *call, struct hv **args, int n)
{
	if (n < 2 || args[1]->k != HV_STR)
		return hv_err(h, call, "format needs a destination and a control string");
	struct hv *dest = args[0], *s = NULL;
	if (dest->k != HV_NIL && !(s = hv_stream_of(h, call, dest)))
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	struct fmt f = { h, call, open_memstream(&buf, &len), s ? stream_bol(s) : true, 0, &buf, &len };
	if (!f.out)
		return hv_err(h, call, "format: out of memory");
	int ai = 0;
	int r = run(&f, args[1]->u.str.s, args[1]->u.str.s + args[1]->u.str.len, args + 2, n - 2, &ai);
	fclose(f.out);
	struct hv *v = NULL;
	if (r >= 0) {
		if (s) {
			hv_stream_put(h, s, buf ? buf : "", len);
			v = HNIL;
		} else {
			v = hv_str(h, buf ? buf : "", len);
		}
	}
	free(buf);
	return v;
}

void host_std_streams(struct host *h)
{
	hv_global(h, "*standard-output*", true)->val = std_stream(h, stdout);
	hv_global(h, "*error-output*", true)->val = std_stream(h, stderr);
	hv_global(h, "*trace-output*", true)->val = hv_global(h, "*error-output*", false)->val;
}
