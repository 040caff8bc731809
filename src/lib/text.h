/* text.h — untrusted names made safe for a terminal or a one-line message.
 *
 * A name that comes from an object (a symbol, a section, a BTF type or field, a map) or from
 * the system (a comm, a path) may hold any bytes: an escape sequence would drive the user's
 * terminal, a newline would forge a line of output. Everything libkiln and the CLI print of
 * such a name goes through here: control bytes (below 0x20, and 0x7f) and bytes that are not
 * valid UTF-8 (as utf8.h judges them) become \xHH; the rest, printable ASCII and valid UTF-8,
 * stays as it is. utf8.h escapes strings for JSON, Prometheus label values and quoted text. */
#ifndef KL_LIB_TEXT_H
#define KL_LIB_TEXT_H
#include <stdbool.h>
#include <stddef.h>

/* Whether s needs no escape: printable ASCII and valid UTF-8 only. */
bool kl_text_plain(const char *s);
/* s (to its NUL) escaped into buf of len bytes (len > 0), cut with "..." if it does not fit;
 * returns buf. */
char *kl_text_escape(char *buf, size_t len, const char *s);
/* The same into one of eight rotating thread-local buffers of 1 KiB, so that up to eight
 * names can be printed in one printf; NULL prints as "(null)". */
const char *kl_safe(const char *s);

#endif
