/* gen_names.c — the names `kiln gen` writes (gen_names.h): one table of reserved words per
 * target language, the rename rule that keeps identifiers unique in their scope, and the
 * escapes for string literals, comments and messages. */
#include "gen_names.h"
#include <bpf/btf.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reserved words, a row per language ---- */

static const char *const c_all[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
	"extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
	"short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
	"volatile", "while", "_Alignas", "_Alignof", "_Atomic", "_Bool", "_Complex", "_Generic",
	"_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "bool",
	"true", "false", "nullptr", "constexpr", "static_assert", "thread_local", "typeof",
	"typeof_unqual", "asm", "__asm__", "__attribute__", "__extension__", "__inline__", "__restrict",
	"__typeof__", "__int128",
	/* macros of the headers a generated file includes (stddef, stdint, stdlib, errno) */
	"NULL", "errno", "offsetof", "EOF", "stdin", "stdout", "stderr", "assert", NULL,
};
static const char *const c_types[] = {   /* the typedefs of those headers (glibc's) */
	"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
	"int_least8_t", "int_least16_t", "int_least32_t", "int_least64_t", "uint_least8_t",
	"uint_least16_t", "uint_least32_t", "uint_least64_t", "int_fast8_t", "int_fast16_t",
	"int_fast32_t", "int_fast64_t", "uint_fast8_t", "uint_fast16_t", "uint_fast32_t", "uint_fast64_t",
	"intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "size_t", "ssize_t", "ptrdiff_t", "wchar_t",
	"max_align_t", "FILE", "fpos_t", "va_list", "blkcnt_t", "blksize_t", "caddr_t", "clock_t",
	"clockid_t", "daddr_t", "dev_t", "fd_mask", "fd_set", "fsblkcnt_t", "fsfilcnt_t", "fsid_t", "gid_t",
	"id_t", "ino_t", "key_t", "loff_t", "mode_t", "nlink_t", "off_t", "pid_t", "quad_t", "sigset_t",
	"suseconds_t", "time_t", "timer_t", "uid_t", "u_char", "u_short", "u_int", "u_long", "u_quad_t",
	"u_int8_t", "u_int16_t", "u_int32_t", "u_int64_t", "uint", "ulong", "ushort", "pthread_t",
	"pthread_attr_t", "pthread_key_t", "pthread_once_t", "pthread_spinlock_t", "pthread_mutex_t",
	"pthread_cond_t", "pthread_rwlock_t", "pthread_barrier_t", "div_t", "ldiv_t", "lldiv_t",
	"register_t", NULL,
};

static const char *const py_all[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
	"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
	"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
	"yield", NULL,
};
static const char *const py_types[] = { "ctypes", "MAPS", "EVENTS", NULL };   /* the module's own */
static const char *const py_members[] = {   /* what ctypes reads on a Structure */
	"_fields_", "_pack_", "_anonymous_", "_align_", "_swappedbytes_", "_layout_", "_objects",
	"_b_base_", "_b_needsfree_", "from_buffer", "from_buffer_copy", "from_address", "from_param",
	"in_dll", NULL,
};

static const char *const rust_all[] = {
	"as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
	"false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
	"ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "union",
	"unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "gen", "macro",
	"override", "priv", "try", "typeof", "unsized", "virtual", "yield", "_", NULL,
};
static const char *const rust_types[] = {   /* primitives, and the prelude and crates it uses */
	"bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
	"i128", "isize", "f32", "f64", "core", "std", "alloc", "Option", "Some", "None", "Result", "Ok",
	"Err", "Vec", "String", "Box", "Clone", "Copy", "Send", "Sync", "Sized", "Drop", "Fn", "FnMut",
	"FnOnce", "Default", "Debug", "Eq", "PartialEq", "Ord", "PartialOrd", "Hash", "Iterator",
	"IntoIterator", "ToString", "ToOwned", "AsRef", "AsMut", "Into", "From", "Extend", "Unpin", NULL,
};

static const char *const go_all[] = {
	"break", "case", "chan", "const", "continue", "default", "defer", "else", "fallthrough", "for",
	"func", "go", "goto", "if", "import", "interface", "map", "package", "range", "return", "select",
	"struct", "switch", "type", "var", "_", NULL,
};
static const char *const go_types[] = {   /* the predeclared identifiers */
	"any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64",
	"int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32",
	"uint64", "uintptr", "true", "false", "iota", "nil", "append", "cap", "clear", "close", "complex",
	"copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real",
	"recover", NULL,
};
/* Lisp: a type T gives decode-T and encode-T, which must not take the host's own
 * (decode-int-value, encode-int-key) */
static const char *const lisp_types[] = { "int-key", "int-value", NULL };

static const char *const go_unit[] = { "main", NULL };   /* a package main wants a func main */

static bool all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

#define UPPER_DIGITS "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* errno's macros (E...), and the limits' (..._MAX, ..._MIN) */
static bool c_pattern(enum gen_space sp, const char *s)
{
	size_t n = strlen(s);
	if (s[0] == 'E' && all_of(s + 1, UPPER_DIGITS))
		return true;
	return n > 4 && all_of(s, UPPER_DIGITS "_") && (!strcmp(s + n - 4, "_MAX") || !strcmp(s + n - 4, "_MIN"));
}

/* the names kiln writes for padding: _pad0, _pad1... */
static bool is_pad(enum gen_space sp, const char *s)
{
	return sp == GEN_MEMBER && !strncmp(s, "_pad", 4) && all_of(s + 4, "0123456789");
}

/* Python's special names (__name__, __init__...) and the padding */
static bool py_pattern(enum gen_space sp, const char *s)
{
	size_t n = strlen(s);
	return (n > 4 && !strncmp(s, "__", 2) && !strcmp(s + n - 2, "__")) || is_pad(sp, s);
}

struct lang_words {
	const char *const *all;           /* reserved in every space */
	const char *const *space[3];      /* and in one: [GEN_TYPE], [GEN_MEMBER], [GEN_UNIT] */
	bool (*pattern)(enum gen_space sp, const char *s);
	bool camel[3];                    /* written CamelCase, by space */
	bool one_underscore[3];           /* no name begins with __, by space: Python mangles
					   * such a name in a class body (a type's _fields_) */
	const char *companion;            /* GEN_TYPE: each name N also takes N + this (Go's NSize) */
	bool lisp;                        /* lower case, - for each _ but leading ones */
};

static const struct lang_words words[GEN_NLANGS] = {
	[GEN_C] = { .all = c_all, .space = { c_types, NULL, c_types }, .pattern = c_pattern },
	[GEN_PY] = { .all = py_all, .space = { py_types, py_members, py_types }, .pattern = py_pattern,
		     .one_underscore = { true, false, true } },
	[GEN_RUST] = { .all = rust_all, .space = { rust_types, NULL, rust_types }, .pattern = is_pad },
	[GEN_GO] = { .all = go_all, .space = { go_types, NULL, go_unit }, .camel = { true, true, false },
		     .companion = "Size" },
	[GEN_LISP] = { .space = { lisp_types, NULL, NULL }, .lisp = true },
};

static bool in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static bool is_reserved(enum gen_target lang, enum gen_space sp, const char *s)
{
	const struct lang_words *w = &words[lang];
	return in_list(w->all, s) || in_list(w->space[sp], s) || (w->pattern && w->pattern(sp, s));
}

/* ---- a set of strings, each with a value (open addressing, FNV-1a) ---- */

struct strmap {
	char **key;
	char **val;
	size_t cap, n;
};

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

static size_t slot(const struct strmap *m, const char *k)
{
	size_t i = hash(k) & (m->cap - 1);
	while (m->key[i] && strcmp(m->key[i], k))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static char *map_get(const struct strmap *m, const char *k)
{
	if (!m->cap)
		return NULL;
	size_t i = slot(m, k);
	return m->key[i] ? m->val[i] : NULL;
}

static int map_grow(struct strmap *m)
{
	struct strmap g = { calloc(m->cap ? 2 * m->cap : 64, sizeof(char *)),
			    calloc(m->cap ? 2 * m->cap : 64, sizeof(char *)), m->cap ? 2 * m->cap : 64, m->n };
	if (!g.key || !g.val) {
		free(g.key);
		free(g.val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i]) {
			size_t j = slot(&g, m->key[i]);
			g.key[j] = m->key[i];
			g.val[j] = m->val[i];
		}
	free(m->key);
	free(m->val);
	*m = g;
	return 0;
}

/* k -> v (both copied); an existing k keeps its value */
static int map_put(struct strmap *m, const char *k, const char *v)
{
	if (2 * (m->n + 1) > m->cap && map_grow(m))
		return -ENOMEM;
	size_t i = slot(m, k);
	if (m->key[i])
		return 0;
	m->key[i] = strdup(k);
	m->val[i] = strdup(v);
	if (!m->key[i] || !m->val[i]) {
		free(m->key[i]);
		free(m->val[i]);
		m->key[i] = m->val[i] = NULL;
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

static void map_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->key[i]);
		free(m->val[i]);
	}
	free(m->key);
	free(m->val);
}

/* ---- the rename rule ---- */

void gen_ident(char *dst, size_t n, const char *name)
{
	size_t i = 0;
	if (!n)
		return;
	if (isdigit((unsigned char)name[0]) && n > 1)
		dst[i++] = '_';
	for (; *name && i + 1 < n; name++)
		dst[i++] = isalnum((unsigned char)*name) && !((unsigned char)*name & 0x80) ? *name : '_';
	dst[i] = 0;
}

/* raw as an exported Go name: "conn_event" -> "ConnEvent" */
static void camel(const char *raw, char *dst, size_t n)
{
	size_t j = 0;
	for (const char *p = raw; *p && j + 1 < n; p++) {
		if (*p == '_' && p[1] && p != raw)
			continue;
		dst[j++] = (char)(p == raw || p[-1] == '_' ? toupper((unsigned char)*p) : *p);
	}
	dst[j] = 0;
}

/* raw as a Lisp name: "Conn_Event" -> "conn-event"; leading _ stay (a name like -1 would
 * read as a number) */
static void lisp_case(const char *raw, char *dst, size_t n)
{
	size_t j = 0, lead = strspn(raw, "_");
	for (const char *p = raw; *p && j + 1 < n; p++)
		dst[j++] = (char)(*p == '_' ? (p - raw < (ptrdiff_t)lead ? '_' : '-') : tolower((unsigned char)*p));
	dst[j] = 0;
}

struct scope {
	enum gen_target lang;
	enum gen_space space;
	struct strmap taken;              /* name -> "" */
	struct strmap shared;             /* key -> name */
};

static bool is_free(const struct scope *s, const char *name)
{
	const char *comp = s->space == GEN_TYPE ? words[s->lang].companion : NULL;
	char with[160];
	if (map_get(&s->taken, name) || is_reserved(s->lang, s->space, name))
		return false;
	if (!comp)
		return true;
	snprintf(with, sizeof(with), "%s%s", name, comp);
	return !map_get(&s->taken, with) && !is_reserved(s->lang, s->space, with);
}

static int take(struct scope *s, const char *name)
{
	const char *comp = s->space == GEN_TYPE ? words[s->lang].companion : NULL;
	char with[160];
	int err = map_put(&s->taken, name, "");
	if (!err && comp) {
		snprintf(with, sizeof(with), "%s%s", name, comp);
		err = map_put(&s->taken, with, "");
	}
	return err;
}

/* raw's spelling before the scope is asked: an identifier (CamelCase where the language
 * exports); *clean: raw was an identifier already */
static void spell(const struct scope *s, const char *raw, char *dst, size_t n, bool *clean)
{
	char id[GEN_NAME_MAX + 1];
	gen_ident(id, sizeof(id), raw);
	*clean = !strcmp(id, raw) && *raw;
	if (!*id)
		snprintf(id, sizeof(id), "_");
	if (words[s->lang].one_underscore[s->space] && !strncmp(id, "__", 2)) {
		size_t skip = strspn(id, "_") - 1;
		memmove(id, id + skip, strlen(id + skip) + 1);
		*clean = false;
	}
	if (words[s->lang].lisp)
		lisp_case(id, dst, n);
	else if (words[s->lang].camel[s->space])
		camel(id, dst, n);
	else
		snprintf(dst, n, "%s", id);
}

static int name_one(struct scope *s, const char *what, const char *raw, const char *key, char **out)
{
	char base[GEN_NAME_MAX + 1], name[GEN_NAME_MAX + 16];
	bool clean;
	const char *had = key ? map_get(&s->shared, key) : NULL;
	if (had)
		return (*out = strdup(had)) ? 0 : -ENOMEM;
	spell(s, raw, base, sizeof(base), &clean);
	snprintf(name, sizeof(name), "%s", base);
	for (unsigned k = 1; !is_free(s, name); k++)
		snprintf(name, sizeof(name), k == 1 ? "%s_" : "%s_%u", base, k);
	int err = take(s, name);
	if (!err && key)
		err = map_put(&s->shared, key, name);
	if (!err && !(*out = strdup(name)))
		err = -ENOMEM;
	if (!err && what && (!clean || strcmp(name, base))) {
		char esc[4 * GEN_NAME_MAX];
		gen_escape(esc, sizeof(esc), raw);
		fprintf(stderr, "kiln gen: warning: %s '%s' written as %s\n", what, esc, name);
	}
	return err;
}

int gen_names_assign(enum gen_target lang, enum gen_space space, const char *what, const char *const *raw,
		     const char *const *keys, size_t n, char **names)
{
	struct scope s = { .lang = lang, .space = space };
	int err = 0;
	memset(names, 0, n * sizeof(*names));
	/* the clean names first, so that a sanitised one never takes a clean one's name */
	for (int pass = 0; pass < 2 && !err; pass++)
		for (size_t i = 0; i < n && !err; i++) {
			char id[GEN_NAME_MAX + 1];
			if (!raw[i] || names[i])
				continue;
			gen_ident(id, sizeof(id), raw[i]);
			if ((pass == 0) == (!strcmp(id, raw[i]) && *raw[i]))
				err = name_one(&s, what, raw[i], keys ? keys[i] : NULL, &names[i]);
		}
	map_free(&s.taken);
	map_free(&s.shared);
	if (err)
		gen_names_free(names, n);
	return err;
}

void gen_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++) {
		free(names[i]);
		names[i] = NULL;
	}
}

/* ---- escapes ---- */

void gen_comment_text(char *dst, size_t n, const char *raw)
{
	size_t i = 0;
	if (!n)
		return;
	for (; *raw && i + 1 < n; raw++) {
		unsigned char c = (unsigned char)*raw;
		dst[i++] = c < 0x80 && (isalnum(c) || strchr(" _.-/:+,@=", c)) ? (char)c : '_';
	}
	dst[i] = 0;
}

void gen_escape(char *dst, size_t n, const char *raw)
{
	size_t i = 0;
	if (!n)
		return;
	for (; *raw && i + 5 < n; raw++) {
		unsigned char c = (unsigned char)*raw;
		if (c == '\\' || c == '\'')
			i += (size_t)snprintf(dst + i, n - i, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			dst[i++] = (char)c;
		else
			i += (size_t)snprintf(dst + i, n - i, "\\x%02x", c);
	}
	dst[i] = 0;
}

void gen_c_string(FILE *out, const char *raw)
{
	fputc('"', out);
	for (; *raw; raw++) {
		unsigned char c = (unsigned char)*raw;
		/* ? too: no trigraph (??/ is a backslash) under -std=c11 */
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?')
			fputc(c, out);
		else
			fprintf(out, "\\%03o", c);
	}
	fputc('"', out);
}

/* The code point of the UTF-8 sequence at s (its length into *len), or -1 if s holds none:
 * no overlong forms, surrogates or values past U+10FFFF. */
static long utf8_at(const unsigned char *s, int *len)
{
	static const struct { unsigned char mask, lead; int n; long min; } forms[] = {
		{ 0xe0, 0xc0, 2, 0x80 }, { 0xf0, 0xe0, 3, 0x800 }, { 0xf8, 0xf0, 4, 0x10000 },
	};
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		if ((s[0] & forms[f].mask) != forms[f].lead)
			continue;
		long cp = s[0] & (0x7f >> forms[f].n);
		for (int i = 1; i < forms[f].n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return -1;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if (cp < forms[f].min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
			return -1;
		*len = forms[f].n;
		return cp;
	}
	return -1;
}

void gen_py_string(FILE *out, const char *raw)
{
	const unsigned char *s = (const unsigned char *)raw;
	fputc('"', out);
	while (*s) {
		int len = 1;
		long cp = *s < 0x80 ? *s : utf8_at(s, &len);
		if (cp >= 0x20 && cp < 0x7f && cp != '"' && cp != '\\')
			fputc((int)cp, out);
		else if (cp < 0)
			fprintf(out, "\\udc%02x", *s);   /* PEP 383's surrogateescape */
		else if (cp < 0x100)
			fprintf(out, "\\x%02lx", cp);
		else if (cp < 0x10000)
			fprintf(out, "\\u%04lx", cp);
		else
			fprintf(out, "\\U%08lx", cp);
		s += len;
	}
	fputc('"', out);
}

void gen_lisp_string(FILE *out, const char *raw)
{
	fputc('"', out);
	for (; *raw; raw++) {
		if (*raw == '"' || *raw == '\\')
			fputc('\\', out);
		fputc(*raw, out);
	}
	fputc('"', out);
}

/* Every struct's and union's name in language lang, by type id (anon_ID for the anonymous
 * ones), unique and not reserved: NULL or n names, for gen_names_free. */
char **gen_type_names(const struct btf *btf, enum gen_target lang)
{
	uint32_t n = btf__type_cnt(btf);
	const char **raw = calloc(n, sizeof(*raw));
	char **names = calloc(n, sizeof(*names)), (*anon)[16] = calloc(n, sizeof(*anon));
	bool ok = raw && names && anon;
	for (uint32_t id = 1; id < n && ok; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_composite(t))
			continue;
		raw[id] = t->name_off ? btf__name_by_offset(btf, t->name_off) : "";
		if (!raw[id] || !*raw[id]) {
			snprintf(anon[id], sizeof(anon[id]), "anon_%u", id);
			raw[id] = anon[id];
		}
	}
	if (ok && gen_names_assign(lang, GEN_TYPE, "type", raw, NULL, n, names))
		ok = false;
	free(raw);
	free(anon);
	if (!ok) {
		free(names);
		return NULL;
	}
	return names;
}
