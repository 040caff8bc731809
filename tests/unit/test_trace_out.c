/* test_trace_out.c — kiln trace's printers (src/cli/trace_out.c, trace_val.c, trace_user.c)
 * keep a running script's output in its struct trace_out, not in statics: two scripts' outputs
 * at once, one text on a terminal and one JSON lines into a file, each with its own probes,
 * print the same records interleaved, each in its own way. */
#include "check.h"
#include "cli/trace.h"
#include "trace/sema.h"
#include <string.h>

/* What trace_user_record writes for rec, malloc'd. */
static char *record(struct trace_out *o, const struct kt_site *site, const uint8_t *rec, size_t size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	trace_user_record(f, site, o, rec, size);
	fclose(f);
	return buf;
}

static bool same(const char *got, const char *want)
{
	return got && !strcmp(got, want);
}

int main(void)
{
	struct kt_target ta = { .probe = "BEGIN" }, tb = { .probe = "END" };
	struct kt_sema sa = { .targets = &ta, .ntargets = 1 }, sb = { .targets = &tb, .ntargets = 1 };
	struct trace_out a = { .s = &sa, .terminal = true }, b = { .s = &sb, .json = true };

	/* print(str): a comm with an escape byte, 8 bytes after the record's id */
	struct kt_arg str = { .type = { .kind = KTT_STR, .size = 8 }, .offset = 8 };
	struct kt_site value = { .kind = KT_EV_VALUE, .nargs = 1, .args = &str };
	uint8_t rec[16] = { 0 };
	memcpy(rec + 8, "a\033b", 3);
	char *ta1 = record(&a, &value, rec, sizeof(rec));
	char *tb1 = record(&b, &value, rec, sizeof(rec));
	char *ta2 = record(&a, &value, rec, sizeof(rec));
	CHECK("trace-out/text-terminal", same(ta1, "a\\x1bb\n") && same(ta2, ta1), "[%s] then [%s]", ta1, ta2);
	CHECK("trace-out/json-file", same(tb1, "{\"type\": \"value\", \"data\": \"a\\u001bb\"}\n"), "[%s]", tb1);

	/* print(probe): each output's own script's probes */
	struct kt_arg probe = { .type = { .kind = KTT_PROBE, .size = 8 }, .offset = 8 };
	struct kt_site pv = { .kind = KT_EV_VALUE, .nargs = 1, .args = &probe };
	memset(rec + 8, 0, 8);
	char *pa = record(&a, &pv, rec, sizeof(rec)), *pb = record(&b, &pv, rec, sizeof(rec));
	CHECK("trace-out/probes", same(pa, "BEGIN\n") && same(pb, "{\"type\": \"value\", \"data\": \"END\"}\n"),
	      "[%s] [%s]", pa, pb);

	/* printf's formatted text: escaped for the terminal only */
	char *fa = trace_for_terminal(&a, strdup("x\ry")), *fb = trace_for_terminal(&b, strdup("x\ry"));
	CHECK("trace-out/for-terminal", same(fa, "x\\x0dy") && same(fb, "x\ry"), "[%s] [%s]", fa, fb);

	char *made[] = { ta1, tb1, ta2, pa, pb, fa, fb };
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		free(made[i]);
	trace_out_free(&a);
	trace_out_free(&b);
	return check_failures != 0;
}
