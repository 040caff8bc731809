/* text.c — untrusted names escaped for terminals and messages (text.h). */
#include "text.h"
#include "utf8.h"
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

bool kl_text_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0, k; i < n; i += k) {
		k = p[i] >= 0x80 ? kl_utf8_len(p + i, n - i) : p[i] >= 0x20 && p[i] != 0x7f;
		if (!k)
			return false;
	}
	return true;
}

char *kl_text_escape(char *buf, size_t len, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	for (size_t i = 0, k; i < n; i += k) {
		unsigned char c = p[i];
		k = c >= 0x80 ? kl_utf8_len(p + i, n - i) : 1;
		bool plain = c >= 0x80 ? k > 0 : c >= 0x20 && c != 0x7f;
		size_t need = plain ? k : 4;
		if (!plain)
			k = 1;
		if (o + need + 4 > len) {              /* room for "..." and the NUL */
			if (len >= 4) {
				memcpy(buf + (o + 4 <= len ? o : len - 4), "...", 4);
			} else {
				buf[0] = 0;
			}
			return buf;
		}
		if (plain) {
			memcpy(buf + o, p + i, k);
		} else {
			buf[o] = '\\';
			buf[o + 1] = 'x';
			buf[o + 2] = hex[c >> 4];
			buf[o + 3] = hex[c & 15];
		}
		o += need;
	}
	buf[o] = 0;
	return buf;
}

const char *kl_safe(const char *s)
{
	static _Thread_local char ring[8][1024];
	static _Thread_local unsigned next;
	if (!s)
		return "(null)";
	char *b = ring[next++ % 8];
	return kl_text_escape(b, sizeof(ring[0]), s);
}
