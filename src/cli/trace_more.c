/* trace_more.c — bpftrace 0.26's options that kiln trace added (trace_more.h). */
#include "cli/trace_more.h"
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int mode; } buf_modes[] = {
	{ "none", _IONBF }, { "line", _IOLBF }, { "full", _IOFBF },
};

/* -B MODE */
static int buf_arg(struct trace_more *m, const char *v)
{
	for (size_t k = 0; k < sizeof(buf_modes) / sizeof(buf_modes[0]); k++)
		if (v && !strcmp(v, buf_modes[k].name)) {
			m->buf_mode = buf_modes[k].mode + 1;
			return 1;
		}
	fprintf(stderr, "kiln trace: -B takes none, line or full\n");
	return -1;
}

int trace_more_arg(struct trace_more *m, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (!strcmp(a, "--no-warnings")) {
		m->no_warnings = true;
		return 1;
	}
	if (strcmp(a, "-B") && strcmp(a, "-I") && strcmp(a, "--probe-filter"))
		return 0;
	if (!v) {
		fprintf(stderr, "kiln trace: %s needs an argument\n", a);
		return -1;
	}
	++*i;
	if (!strcmp(a, "-B"))
		return buf_arg(m, v);
	if (!strcmp(a, "--probe-filter")) {
		m->probe_filter = v;
		return 1;
	}
	const char **d = realloc(m->idirs, sizeof(*d) * (size_t)(m->nidirs + 2));
	if (!d)
		return -1;
	m->idirs = d;
	m->idirs[m->nidirs++] = v;
	m->idirs[m->nidirs] = NULL;
	return 1;
}

int trace_more_filter(const struct trace_more *m, struct kt_sema *s)
{
	if (!m->probe_filter)
		return 0;
	regex_t re;
	int e = regcomp(&re, m->probe_filter, REG_EXTENDED | REG_NOSUB);
	if (e) {
		char why[256];
		regerror(e, &re, why, sizeof(why));
		fprintf(stderr, "ERROR: Invalid --probe-filter regex '%s': %s\n", m->probe_filter, why);
		return 1;
	}
	uint32_t kept = 0, matched = 0;
	for (uint32_t t = 0; t < s->ntargets; t++) {
		const struct kt_target *tg = &s->targets[t];
		bool special = tg->kind == KP_BEGIN || tg->kind == KP_END;
		bool hit = !special && !regexec(&re, tg->probe, 0, NULL, 0);
		if (special || hit)
			s->targets[kept++] = *tg;
		matched += hit;
	}
	regfree(&re);
	s->ntargets = kept;
	if (!matched) {
		fprintf(stderr, "ERROR: No probes matched --probe-filter '%s'\n", m->probe_filter);
		return 1;
	}
	return 0;
}

void trace_more_out(const struct trace_more *m, FILE *out)
{
	if (m->buf_mode)
		setvbuf(out, NULL, m->buf_mode - 1, m->buf_mode - 1 == _IONBF ? 0 : BUFSIZ);
}
