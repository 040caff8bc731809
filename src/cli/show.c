/* show.c — the command line's way to read and write map keys and values: integers or hex in,
 * and out as text for people or JSON for programs through libkiln's one value printer
 * (kiln/value.h), decoded by the map's BTF when it has one. */
#include "cli.h"
#include <kiln/value.h>
#include <stdlib.h>
#include <string.h>

/* Through libkiln's escaper (lib/utf8.c), the one the event decoder and the metrics use. */
void cli_escape(FILE *out, const char *s, size_t n, enum kl_esc style)
{
	char small[512], *buf = small;
	size_t need = kl_escape(small, sizeof(small), s, n, style);
	if (need > sizeof(small) && (buf = malloc(need)))
		kl_escape(buf, need, s, n, style);
	if (buf)
		fwrite(buf, 1, need, out);   /* out of memory: nothing, the quotes still match */
	if (buf != small)
		free(buf);
}

/* UTF-8 text passes through (source lines and comm may hold any); invalid bytes become
 * U+FFFD so that the output always parses. */
void cli_json_str(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	cli_escape(out, s, strnlen(s, n), KL_ESC_JSON);
	fputc('"', out);
}

void cli_show(FILE *out, const struct btf *btf, uint32_t type_id, const void *data, size_t size, bool json)
{
	const struct kiln_value_fmt fmt = { .sz = sizeof(fmt), .json = json, .style = KILN_VALUE_C };
	kiln_value_print(out, btf, type_id, data, size, &fmt);
}

int cli_parse_value(const char *s, void *out, size_t size)
{
	return kiln_map_parse_raw(s, out, size);
}
