/* trace_config.c — bpftrace 0.26's `config = { KEY = VALUE; ... }` block: each key kiln
 * trace has a BPFTRACE_* setting for is set as that environment variable sets it (the
 * environment wins, as in 0.26: a variable already set is left alone), then the settings
 * are read again (trace_env). Keys 0.26 knows that change nothing kiln does are read and
 * checked; those whose other values kiln cannot honour yet take only the value kiln has;
 * an unknown key is refused, as 0.26 refuses it. */
#define _GNU_SOURCE
#include "trace.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct config_key {
	const char *key;            /* the lower-case name, without BPFTRACE_ */
	const char *env;            /* the setting it is, NULL: none */
	const char *values;         /* without env: the values read, '|'-separated; NULL any */
	bool number;                /* a non-negative integer */
};

static const struct config_key keys[] = {
	{ "max_strlen", "BPFTRACE_STRLEN", NULL, true },
	{ "max_map_keys", "BPFTRACE_MAP_KEYS_MAX", NULL, true },
	{ "max_probes", "BPFTRACE_MAX_PROBES", NULL, true },
	{ "max_bpf_progs", "BPFTRACE_MAX_BPF_PROGS", NULL, true },
	{ "perf_rb_pages", "BPFTRACE_PERF_RB_PAGES", NULL, true },
	{ "max_cat_bytes", "BPFTRACE_CAT_BYTES_MAX", NULL, true },
	/* what kiln does whatever the value: symbols are looked up per process, demangled or
	 * not as they are, the verifier's log is kiln's own size, objects go where they fit */
	{ "cache_user_symbols", NULL, "PER_PROGRAM|PER_PID|NONE", false },
	{ "cpp_demangle", NULL, "true|false", false },
	{ "lazy_symbolication", NULL, "true|false", false },
	{ "show_debug_info", NULL, "true|false", false },
	{ "log_size", NULL, NULL, true },
	{ "on_stack_limit", NULL, NULL, true },
	/* a probe that cannot attach is an error in kiln trace whatever this says (docs/trace.md) */
	{ "missing_probes", NULL, "error|warn|ignore", false },
	{ "unstable_tseries", NULL, "error|warn|enable", false },
	{ "unstable_dw_ustack", NULL, "error|warn|enable", false },
	/* only kiln's behaviour, 0.26's default */
	{ "license", NULL, "GPL|GPL v2|GPL and additional rights|Dual BSD/GPL|Dual MIT/GPL|Dual MPL/GPL", false },
	{ "stack_mode", NULL, "bpftrace", false },
	{ "print_maps_on_exit", NULL, "true", false },
};

/* Whether v is one of the '|'-separated values. */
static bool one_of(const char *values, const char *v)
{
	size_t n = strlen(v);
	for (const char *p = values; p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* KEY, BPFTRACE_KEY or key: the row, NULL unknown. */
static const struct config_key *find_key(const char *name)
{
	char low[64];
	size_t n = 0;
	if (!strncasecmp(name, "BPFTRACE_", 9))
		name += 9;
	for (; *name && n + 1 < sizeof(low); name++)
		low[n++] = (char)tolower((unsigned char)*name);
	low[n] = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].key, low))
			return &keys[i];
	return NULL;
}

int trace_config(const struct kt_program *prog, struct kt_sema *s, struct kl_diag *d)
{
	bool set = false;
	for (uint32_t i = 0; i < prog->nconfig; i++) {
		const struct kt_config *c = &prog->config[i];
		const struct config_key *k = find_key(c->key);
		if (!k)
			return kl_error(d, c->span, "unrecognized config variable: %s", c->key);
		if (k->number && (!*c->value || strspn(c->value, "0123456789") != strlen(c->value)))
			return kl_error(d, c->span, "config %s: expected a non-negative integer, not '%s'", c->key, c->value);
		if (!k->env && k->values && !one_of(k->values, c->value))
			return kl_error(d, c->span, strchr(k->values, '|') ? "config %s: '%s' is not one of its values" :
					"config %s = %s is not supported yet by kiln trace", c->key, c->value);
		if (k->env && !getenv(k->env)) {
			setenv(k->env, c->value, 0);
			set = true;
		}
	}
	return set ? trace_env(s, stderr) : 0;
}
