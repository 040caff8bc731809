/* objects.c — what several subcommands do with an object: open it (compiling a kiln source
 * in memory), load it, and on a verifier rejection point at the source line the log names. */
#include "cli.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cli_object_open(const char *cmd, const char *path, const struct kiln_object_opts *opts,
		    struct kiln_object **out)
{
	int err = kiln_object_open(path, opts, out);
	if (err) {
		const char *log = kiln_errlog();
		/* a compile error is complete as the compiler prints it (file:line:col, caret) */
		if (*log)
			fprintf(stderr, "%s\n", log);
		else
			cli_fail(cmd);
	} else if ((err = kiln_bpf_privileged())) {   /* every caller loads it next */
		cli_fail(cmd);
		kiln_object_close(*out);
		*out = NULL;
	}
	return err;
}

/* The last "@ FILE:LINE" the kernel printed from the line info before the error. */
static bool log_source_line(const char *log, char *file, size_t flen, unsigned *line)
{
	bool found = false;
	for (const char *p = log; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (n > 1 && p[0] == ';') {
			const char *at = NULL;
			for (const char *q = p; q + 3 < p + n; q++)
				if (q[0] == ' ' && q[1] == '@' && q[2] == ' ')
					at = q + 3;
			const char *colon = at ? memchr(at, ':', (size_t)(p + n - at)) : NULL;
			for (const char *c = colon; c && c + 1 < p + n;) {   /* the last colon: file names may have some */
				const char *next = memchr(c + 1, ':', (size_t)(p + n - c - 1));
				if (!next)
					break;
				c = colon = next;
			}
			if (colon && (size_t)(colon - at) < flen) {
				memcpy(file, at, (size_t)(colon - at));
				file[colon - at] = 0;
				*line = (unsigned)strtoul(colon + 1, NULL, 10);
				found = *line > 0;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return found;
}

/* The verifier's reason: the last line before the "processed N insns" statistics. */
static void log_reason(const char *log, char *out, size_t len)
{
	out[0] = 0;
	for (const char *p = log; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (!strncmp(p, "processed ", 10) || !strncmp(p, "verification time", 17))
			break;
		if (n && p[0] != ';' && n < len) {
			memcpy(out, p, n);
			out[n] = 0;
		}
		p = eol ? eol + 1 : NULL;
	}
}

void cli_put_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

int cli_verifier_report(FILE *out, const char *log, bool tail)
{
	char file[256], reason[256];
	unsigned line = 0;
	log_reason(log, reason, sizeof(reason));
	if (log_source_line(log, file, sizeof(file), &line))
		fprintf(out, "%s:%u: the verifier refused this line: %s\n", file, line, reason);
	else if (reason[0])
		fprintf(out, "the verifier says: %s\n", reason);
	if (!tail)
		return 0;
	/* the last 24 lines of the log, which hold the failing path */
	size_t n = strlen(log);
	int lines = 0;
	const char *start = log + n;
	while (start > log && lines <= 24)
		if (*--start == '\n')
			lines++;
	if (start > log)
		start++;
	fprintf(out, "verifier log (end):\n");
	for (const char *p = start; *p;) {
		const char *eol = strchr(p, '\n');
		int len = eol ? (int)(eol - p) : (int)strlen(p);
		fputs("  ", out);
		cli_put_text(out, p, (size_t)len);
		fputc('\n', out);
		p = eol ? eol + 1 : p + len;
	}
	return 0;
}

int cli_object_load(const char *cmd, struct kiln_object *obj, const char *path)
{
	int err = kiln_object_load(obj);
	if (!err)
		return 0;
	cli_fail(cmd);
	const char *log = kiln_object_log(obj);
	if (log && *log)
		cli_verifier_report(stderr, log, true);
	return err;
}

int cli_parse_duration(const char *s, double *secs)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		v /= 1000;
	else if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	*secs = v;
	return 0;
}
