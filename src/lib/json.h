/* json.h — a small JSON reader for what people type on a command line: objects, arrays,
 * strings (escapes and \u sequences decoded to UTF-8), numbers, true, false, null. Numbers
 * are kept as their text, so that the caller reads them at the width it needs (and a 0x hex
 * number, which JSON lacks, reads too). Used by kiln_map_parse_key/_value (map_parse.c). */
#ifndef KL_LIB_JSON_H
#define KL_LIB_JSON_H
#include <stdbool.h>
#include <stddef.h>

enum kl_json_kind { KL_JSON_NULL, KL_JSON_BOOL, KL_JSON_NUMBER, KL_JSON_STRING, KL_JSON_ARRAY, KL_JSON_OBJECT };

struct kl_json {
	enum kl_json_kind kind;
	char *text;                 /* STRING: decoded, NUL-terminated (len bytes, may hold NULs);
				     * NUMBER: as written; BOOL: "true" or "false" */
	size_t len;
	char *key;                  /* a member of an OBJECT: its name */
	struct kl_json *items;      /* ARRAY elements, OBJECT members, in order */
	size_t n;
};

/* Parse all of text (surrounding white space allowed). 0 with *out set, or -EINVAL with a
 * message naming the offset and what was wanted in err. Nesting deeper than 32 is refused. */
int kl_json_parse(const char *text, struct kl_json **out, char *err, size_t errlen);
void kl_json_free(struct kl_json *j);
const char *kl_json_kind_name(enum kl_json_kind k);

#endif
