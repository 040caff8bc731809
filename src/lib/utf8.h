/* utf8.h — the one UTF-8 validator and string escaper behind every string kiln writes for a
 * machine or a person: JSON strings (events, maps, `kiln trace -f json`), Prometheus label
 * values (`kiln run --metrics`) and the quoted strings of text lines. Names that come from the
 * system (a process's comm, which any user sets with prctl(PR_SET_NAME)) may hold any bytes:
 * each style turns the bytes that are not UTF-8 into text its reader accepts, so one name never
 * breaks a whole output. */
#ifndef KL_LIB_UTF8_H
#define KL_LIB_UTF8_H
#include <stdbool.h>
#include <stddef.h>

enum kl_esc {
	/* inside a JSON string: \" \\ \n \t \r \b \f, other control characters \u00XX, a byte
	 * that is not UTF-8 U+FFFD (\ufffd) */
	KL_ESC_JSON,
	/* inside a Prometheus label value: \" \\ \n as the text format escapes them; other
	 * control characters and a byte that is not UTF-8 become the four characters \xHH (the
	 * backslash escaped, \\xHH, so the value holds a backslash, x and two hex digits) */
	KL_ESC_PROM,
	/* C-style, inside "...": \" \\ \n \t, other control characters and bytes that are not
	 * UTF-8 \xHH */
	KL_ESC_TEXT,
};

/* The length of the valid UTF-8 sequence at p (n bytes readable, n >= 1), or 0 when it is
 * not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut
 * short). ASCII is 1. */
size_t kl_utf8_len(const unsigned char *p, size_t n);
bool kl_utf8_valid(const char *s, size_t n);

/* The n bytes at s (NULs included: stop at one first if the string ends there) escaped in
 * style, without the surrounding quotes, into buf: at most len bytes written, no NUL added;
 * the whole length is returned. At most 6 * n bytes. */
size_t kl_escape(char *buf, size_t len, const char *s, size_t n, enum kl_esc style);

/* s (at most n bytes, up to its first NUL) as a quoted JSON string into buf, with
 * snprintf's convention. At most 6 * n + 2 bytes. */
size_t kl_json_string(char *buf, size_t len, const char *s, size_t n);

#endif
