/* probe_file.c — a probe saved and read back: the macros header bpftool writes (`bpftool
 * feature probe macros`, what Cilium's ReadFeatureProbes reads) and bpftool's JSON, both
 * in bpftool's own words so either tool's file reads in the other's place. */
#include "kiln/probe.h"
#include "fail.h"
#include "probe_internal.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The features written as HAVE_/NO_HAVE_ lines (the sysctls are numbers of their own). */
static bool feature_is_flag(enum kiln_probe_feature f)
{
	return f != KILN_FEAT_JIT && f != KILN_FEAT_UNPRIV_DISABLED;
}

/* bpftool's misc features come first in its own section; kiln's others after, in theirs. */
static bool feature_is_bpftools(enum kiln_probe_feature f)
{
	return f == KILN_FEAT_LARGE_INSN_LIMIT || f == KILN_FEAT_BOUNDED_LOOPS;
}

static void put_upper(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(toupper((unsigned char)*s), out);
}

static void macro_have(FILE *out, bool have, const char *name, const char *suffix)
{
	fputs(have ? "#define HAVE_" : "#define NO_HAVE_", out);
	put_upper(out, name);
	put_upper(out, suffix);
	fputc('\n', out);
}

typedef const char *(*namer_fn)(uint32_t, char *, size_t);

int kiln_probe_write_macros(const struct kiln_probe *p, FILE *out)
{
	char a[96], b[96];
	if (p->done & KILN_PROBE_PROG_TYPES) {
		fputs("/*** eBPF program types ***/\n", out);
		for (uint32_t t = 1; t < p->n_prog_types; t++)
			macro_have(out, kiln_probe_has_prog_type(p, t), kiln_probe_prog_type_name(t, a, sizeof(a)), "_prog_type");
		fputc('\n', out);
	}
	if (p->done & KILN_PROBE_MAP_TYPES) {
		fputs("/*** eBPF map types ***/\n", out);
		for (uint32_t t = 1; t < p->n_map_types; t++)
			macro_have(out, kiln_probe_has_map_type(p, t), kiln_probe_map_type_name(t, a, sizeof(a)), "_map_type");
		fputc('\n', out);
	}
	if (p->helpers_done) {
		fputs("/*** eBPF helper functions ***/\n"
		      "/* #if HAVE_PROG_TYPE_HELPER(xdp, bpf_redirect): 1 when programs of that type may\n"
		      " * call that helper, 0 when not; program types not listed were not probed. */\n"
		      "#define HAVE_PROG_TYPE_HELPER(prog_type, helper)\t\\\n"
		      "\tBPF__PROG_TYPE_ ## prog_type ## __HELPER_ ## helper\n", out);
		for (uint32_t t = 1; t < KILN_PROBE_TYPES_MAX; t++) {
			if (!kiln_probe_helpers_known(p, t))
				continue;
			kiln_probe_prog_type_name(t, a, sizeof(a));
			for (uint32_t h = 1; h < p->n_helpers; h++)
				if (!kiln_probe_helper_skipped(p, h))
					fprintf(out, "#define BPF__PROG_TYPE_%s__HELPER_%s %d\n", a,
						kiln_probe_helper_name(h, b, sizeof(b)), kiln_probe_has_helper(p, t, h));
		}
		fputc('\n', out);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool any = false;
		for (int f = 0; f < KILN_FEAT_COUNT; f++) {
			if (feature_is_bpftools(f) != !pass || kiln_probe_feature(p, f) < 0)
				continue;
			if (!any)
				fputs(pass ? "/*** kiln's features ***/\n" : "/*** eBPF misc features ***/\n", out);
			any = true;
			if (feature_is_flag(f))
				macro_have(out, kiln_probe_feature(p, f), kiln_probe_feature_name(f), "");
			else
				fprintf(out, "#define %s %d\n", f == KILN_FEAT_JIT ? "BPF_JIT_ENABLE" : "UNPRIVILEGED_BPF_DISABLED",
					f == KILN_FEAT_JIT ? p->jit_enable : p->unpriv_disabled);
		}
		if (any)
			fputc('\n', out);
	}
	return ferror(out) ? kl_fail(EIO, "writing the probe") : 0;
}

static void json_bool(FILE *out, bool *first, const char *pre, const char *name, const char *post, bool v)
{
	fprintf(out, "%s\"%s%s%s\":%s", *first ? "" : ",", pre, name, post, v ? "true" : "false");
	*first = false;
}

int kiln_probe_write_json(const struct kiln_probe *p, FILE *out)
{
	char a[96];
	bool first, sect = true;
	fputc('{', out);
	if (p->feat_known & (1u << KILN_FEAT_JIT | 1u << KILN_FEAT_UNPRIV_DISABLED)) {
		fputs("\"system_config\":{", out);
		first = true;
		if (kiln_probe_feature(p, KILN_FEAT_UNPRIV_DISABLED) >= 0)
			fprintf(out, "\"unprivileged_bpf_disabled\":%d", p->unpriv_disabled), first = false;
		if (kiln_probe_feature(p, KILN_FEAT_JIT) >= 0)
			fprintf(out, "%s\"bpf_jit_enable\":%d", first ? "" : ",", p->jit_enable);
		fputc('}', out);
		sect = false;
	}
	static const struct {
		unsigned part;
		const char *key, *suffix;
		uint32_t off;                      /* of n_prog_types or n_map_types */
		bool (*has)(const struct kiln_probe *, uint32_t);
		namer_fn name;
	} kinds[] = {
		{ KILN_PROBE_PROG_TYPES, "program_types", "_prog_type", offsetof(struct kiln_probe, n_prog_types),
		  kiln_probe_has_prog_type, kiln_probe_prog_type_name },
		{ KILN_PROBE_MAP_TYPES, "map_types", "_map_type", offsetof(struct kiln_probe, n_map_types),
		  kiln_probe_has_map_type, kiln_probe_map_type_name },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (!(p->done & kinds[k].part))
			continue;
		fprintf(out, "%s\"%s\":{", sect ? "" : ",", kinds[k].key);
		sect = false;
		first = true;
		uint32_t n = *(const uint32_t *)((const char *)p + kinds[k].off);
		for (uint32_t t = 1; t < n; t++)
			json_bool(out, &first, "have_", kinds[k].name(t, a, sizeof(a)), kinds[k].suffix, kinds[k].has(p, t));
		fputc('}', out);
	}
	if (p->helpers_done) {
		fprintf(out, "%s\"helpers\":{", sect ? "" : ",");
		sect = false;
		first = true;
		for (uint32_t t = 1; t < KILN_PROBE_TYPES_MAX; t++) {
			if (!kiln_probe_helpers_known(p, t))
				continue;
			fprintf(out, "%s\"%s_available_helpers\":[", first ? "" : ",", kiln_probe_prog_type_name(t, a, sizeof(a)));
			first = false;
			bool f1 = true;
			for (uint32_t h = 1; h < p->n_helpers; h++)
				if (kiln_probe_has_helper(p, t, h)) {
					fprintf(out, "%s\"%s\"", f1 ? "" : ",", kiln_probe_helper_name(h, a, sizeof(a)));
					f1 = false;
				}
			fputc(']', out);
		}
		fputc('}', out);
		first = true;
		for (uint32_t h = 1; h < p->n_helpers; h++)
			if (kiln_probe_helper_skipped(p, h)) {
				fprintf(out, "%s\"%s\"", first ? ",\"helpers_not_probed\":[" : ",",
					kiln_probe_helper_name(h, a, sizeof(a)));
				first = false;
			}
		if (!first)
			fputc(']', out);
	}
	first = true;
	for (int f = 0; f < KILN_FEAT_COUNT; f++) {
		if (!feature_is_flag(f) || kiln_probe_feature(p, f) < 0)
			continue;
		if (first)
			fprintf(out, "%s\"misc\":{", sect ? "" : ",");
		json_bool(out, &first, "have_", kiln_probe_feature_name(f), "", kiln_probe_feature(p, f));
		sect = false;
	}
	if (!first)
		fputc('}', out);
	fputs("}\n", out);
	return ferror(out) ? kl_fail(EIO, "writing the probe") : 0;
}

/* ---- reading ---------------------------------------------------------------------------- */

static void set_bit(uint64_t *bits, uint32_t i, bool v)
{
	if (v)
		bits[i / 64] |= 1ull << (i % 64);
	else
		bits[i / 64] &= ~(1ull << (i % 64));
}

static void set_sysctl(struct kiln_probe *p, enum kiln_probe_feature f, int v)
{
	*(f == KILN_FEAT_JIT ? &p->jit_enable : &p->unpriv_disabled) = v;
	kl_probe_feat_set(p, f, v != 0);
}

/* "<name><suffix>" (name any case): the type it names, via by_name, into *t. */
static bool type_named(const char *s, size_t len, const char *suffix, bool lower,
		       int (*by_name)(const char *, uint32_t *), uint32_t *t)
{
	size_t sl = strlen(suffix);
	char name[96];
	if (len <= sl || len - sl >= sizeof(name) || strncasecmp(s + len - sl, suffix, sl))
		return false;
	for (size_t i = 0; i < len - sl; i++)
		name[i] = lower ? (char)tolower((unsigned char)s[i]) : s[i];
	name[len - sl] = 0;
	return by_name(name, t) == 0;
}

static void note_type(struct kiln_probe *p, bool prog, uint32_t t, bool have)
{
	if (prog) {
		set_bit(&p->prog_types, t, have);
		p->done |= KILN_PROBE_PROG_TYPES;
		if (t >= p->n_prog_types)
			p->n_prog_types = t + 1;
	} else {
		set_bit(&p->map_types, t, have);
		p->done |= KILN_PROBE_MAP_TYPES;
		if (t >= p->n_map_types)
			p->n_map_types = t + 1;
	}
}

/* While reading, helpers_skipped marks the helper ids the file names at all; at the end
 * (finish_read) it is turned into what it means after. */
static void note_helper(struct kiln_probe *p, uint32_t t, uint32_t h, bool have)
{
	p->helpers_skipped[h / 64] |= 1ull << (h % 64);
	if (!kiln_probe_helpers_known(p, t)) {
		memset(p->helpers[t], 0, sizeof(p->helpers[t]));
		p->helpers_done |= 1ull << t;
	}
	set_bit(p->helpers[t], h, have);
	if (h >= p->n_helpers)
		p->n_helpers = h + 1;
}

/* A HAVE_X / NO_HAVE_X name (without the prefix): a type, or a feature. */
static void macro_have_line(struct kiln_probe *p, const char *s, size_t len, bool have)
{
	uint32_t t;
	if (type_named(s, len, "_PROG_TYPE", true, kiln_probe_prog_type_by_name, &t))
		note_type(p, true, t, have);
	else if (type_named(s, len, "_MAP_TYPE", true, kiln_probe_map_type_by_name, &t))
		note_type(p, false, t, have);
	else
		for (int f = 0; f < KILN_FEAT_COUNT; f++)
			if (feature_is_flag(f) && strlen(kiln_probe_feature_name(f)) == len &&
			    !strncasecmp(kiln_probe_feature_name(f), s, len))
				kl_probe_feat_set(p, f, have);
}

static void macros_line(struct kiln_probe *p, char *line)
{
	char *s = line;
	while (isblank((unsigned char)*s))
		s++;
	if (strncmp(s, "#define ", 8))
		return;
	s += 8;
	while (isblank((unsigned char)*s))
		s++;
	size_t len = strcspn(s, " \t\r\n(");
	char *val = s + len;
	while (isblank((unsigned char)*val))
		val++;
	if (!strncmp(s, "NO_HAVE_", 8))
		macro_have_line(p, s + 8, len - 8, false);
	else if (!strncmp(s, "HAVE_", 5))
		macro_have_line(p, s + 5, len - 5, true);
	else if (!strncmp(s, "BPF__PROG_TYPE_", 15)) {
		/* BPF__PROG_TYPE_<type>__HELPER_<helper> 0|1 */
		s[len] = 0;
		char *sep = strstr(s + 15, "__HELPER_");
		uint32_t t, h;
		if (!sep)
			return;
		*sep = 0;
		if (!kiln_probe_prog_type_by_name(s + 15, &t) && !kiln_probe_helper_by_name(sep + 9, &h) &&
		    (*val == '0' || *val == '1'))
			note_helper(p, t, h, *val == '1');
	} else if ((len == 14 && !strncmp(s, "BPF_JIT_ENABLE", 14)) ||
		   (len == 25 && !strncmp(s, "UNPRIVILEGED_BPF_DISABLED", 25))) {
		if (isdigit((unsigned char)*val))
			set_sysctl(p, len == 14 ? KILN_FEAT_JIT : KILN_FEAT_UNPRIV_DISABLED, atoi(val));
	}
}

/* JSON, read as a stream of tokens: what matters is a key's name and its section (the key it
 * is inside at the top level), and for helper lists the key the array belongs to. */
struct jscan {
	const char *s, *path;
	int depth;
	char section[128], key[128];
	uint64_t not_probed[KILN_PROBE_HELPERS_MAX / 64];   /* "helpers_not_probed" */
};

static int json_string(struct jscan *j, char *buf, size_t size)
{
	size_t n = 0;
	for (j->s++; *j->s && *j->s != '"'; j->s++) {
		if (*j->s == '\\' && j->s[1])
			j->s++;       /* names hold no escapes that matter: keep the character */
		if (n + 1 < size)
			buf[n++] = *j->s;
	}
	buf[n] = 0;
	if (*j->s != '"')
		return kl_fail_msg(-EINVAL, "%s: a JSON string does not end", j->path);
	j->s++;
	return 0;
}

static void json_value(struct kiln_probe *p, struct jscan *j, const char *tok, size_t len)
{
	bool tru = len == 4 && !strncmp(tok, "true", 4), fals = len == 5 && !strncmp(tok, "false", 5);
	uint32_t t;
	size_t kl = strlen(j->key);
	if (j->depth != 2)
		return;
	if (!strcmp(j->section, "system_config") && isdigit((unsigned char)*tok)) {
		if (!strcmp(j->key, "bpf_jit_enable"))
			set_sysctl(p, KILN_FEAT_JIT, atoi(tok));
		else if (!strcmp(j->key, "unprivileged_bpf_disabled"))
			set_sysctl(p, KILN_FEAT_UNPRIV_DISABLED, atoi(tok));
	}
	if ((!tru && !fals) || strncmp(j->key, "have_", 5))
		return;
	if (!strcmp(j->section, "program_types") && type_named(j->key + 5, kl - 5, "_prog_type", false,
							       kiln_probe_prog_type_by_name, &t))
		note_type(p, true, t, tru);
	else if (!strcmp(j->section, "map_types") && type_named(j->key + 5, kl - 5, "_map_type", false,
								kiln_probe_map_type_by_name, &t))
		note_type(p, false, t, tru);
	else if (!strcmp(j->section, "misc"))
		for (int f = 0; f < KILN_FEAT_COUNT; f++)
			if (feature_is_flag(f) && !strcmp(kiln_probe_feature_name(f), j->key + 5))
				kl_probe_feat_set(p, f, tru);
}

/* helpers_of while reading the list of helpers left out */
#define NOT_PROBED_LIST (UINT32_MAX - 1)

static int json_read(struct kiln_probe *p, const char *text, const char *path)
{
	struct jscan j = { .s = text, .path = path };
	uint32_t helpers_of = UINT32_MAX;     /* the program type of the list being read */
	char str[128];
	while (*j.s) {
		char c = *j.s;
		if (isspace((unsigned char)c) || c == ',' || c == ':') {
			j.s++;
		} else if (c == '{' || c == '[') {
			j.depth++, j.s++;
			if (c == '[' && j.depth == 3 && !strcmp(j.section, "helpers")) {
				uint32_t t;
				size_t kl = strlen(j.key);
				helpers_of = type_named(j.key, kl, "_available_helpers", false, kiln_probe_prog_type_by_name, &t)
						     ? t : UINT32_MAX;
				if (helpers_of != UINT32_MAX && !kiln_probe_helpers_known(p, t))
					note_helper(p, t, 0, false);
			} else if (c == '[' && j.depth == 2 && !strcmp(j.section, "helpers_not_probed")) {
				helpers_of = NOT_PROBED_LIST;
			}
		} else if (c == '}' || c == ']') {
			if (--j.depth < 0)
				return kl_fail_msg(-EINVAL, "%s: unbalanced JSON", path);
			if (j.depth < 3 && helpers_of != NOT_PROBED_LIST)
				helpers_of = UINT32_MAX;
			if (j.depth < 2)
				helpers_of = UINT32_MAX;
			j.s++;
		} else if (c == '"') {
			int r = json_string(&j, str, sizeof(str));
			if (r)
				return r;
			const char *q = j.s;
			while (isspace((unsigned char)*q))
				q++;
			if (*q == ':') {
				snprintf(j.key, sizeof(j.key), "%s", str);
				if (j.depth == 1)
					snprintf(j.section, sizeof(j.section), "%s", str);
			} else if (helpers_of != UINT32_MAX) {
				uint32_t h;
				if (kiln_probe_helper_by_name(str, &h))
					;
				else if (helpers_of == NOT_PROBED_LIST) {
					j.not_probed[h / 64] |= 1ull << (h % 64);
					if (h >= p->n_helpers)
						p->n_helpers = h + 1;
				} else
					note_helper(p, helpers_of, h, true);
			}
		} else {
			size_t len = strcspn(j.s, " \t\r\n,:]}");
			if (!len)
				return kl_fail_msg(-EINVAL, "%s: unexpected '%c' in JSON", path, c);
			json_value(p, &j, j.s, len);
			j.s += len;
		}
	}
	if (j.depth)
		return kl_fail_msg(-EINVAL, "%s: the JSON ends early", path);
	/* JSON lists the helpers a type has, not those it lacks: only the list says what was
	 * left out */
	memcpy(p->helpers_skipped, j.not_probed, sizeof(j.not_probed));
	return 0;
}

int kiln_probe_read_file(const char *path, struct kiln_probe *p)
{
	memset(p, 0, sizeof(*p));
	FILE *f = fopen(path, "re");
	if (!f)
		return kl_fail(errno, "open %s", path);
	char *text = NULL;
	size_t cap = 0, len = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *n = realloc(text, cap = cap * 2 + 8192);
			if (!n) {
				free(text);
				fclose(f);
				return kl_fail(ENOMEM, "reading %s", path);
			}
			text = n;
		}
		size_t got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (!got)
			break;
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(text);
		return kl_fail(EIO, "reading %s", path);
	}
	text[len] = 0;
	int r = 0;
	const char *s = text + strspn(text, " \t\r\n");
	if (*s == '{') {
		r = json_read(p, s, path);
	} else {
		for (char *line = text, *nl; line && *line; line = nl) {
			nl = strchr(line, '\n');
			if (nl)
				*nl++ = 0;
			macros_line(p, line);
		}
		/* a macros header names every helper it probed, with 0 or 1 */
		for (uint32_t h = 1; h < p->n_helpers; h++)
			p->helpers_skipped[h / 64] ^= 1ull << (h % 64);
		p->helpers_skipped[0] &= ~1ull;
	}
	free(text);
	/* the file says which types' helpers it probed: those are all there is */
	if (p->helpers_done)
		p->done |= KILN_PROBE_HELPERS;
	if (!r && !p->done && !p->helpers_done && !p->feat_known)
		r = kl_fail_msg(-EINVAL, "%s: no probe results in it (neither bpftool's or kiln's macros nor their JSON)", path);
	return r;
}
