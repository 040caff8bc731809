/* pin_name.c — what may name a pin: a name that stays in its directory and that a file can
 * have, with bpffs's dots made underscores (kiln_pin_name, kiln/pin.h). Below both the
 * objects (object.c checks a map pinned by name before libbpf tries) and the pins (pin.c). */
#include "kiln/pin.h"
#include "fail.h"
#include "pin_name.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* name for a message: bytes outside printable ASCII as \xNN, cut at 120 bytes */
const char *kl_pin_shown(const char *name, char *buf, size_t size)
{
	size_t n = 0;
	for (const char *p = name; *p && n + 5 < size && p - name < 120; p++) {
		unsigned char c = (unsigned char)*p;
		n += (size_t)snprintf(buf + n, size - n, c < 0x20 || c >= 0x7f ? "\\x%02x" : "%c", c);
	}
	buf[n] = 0;
	return buf;
}

/* Why name cannot name a pin (it could leave its directory, or no file has it), or NULL. */
const char *kl_pin_name_why(const char *name)
{
	if (!name || !*name)
		return "it is empty";
	if (strchr(name, '/'))
		return "it holds a '/'";
	if (strstr(name, ".."))
		return "it holds \"..\"";
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "it holds a control byte";
	return strlen(name) > NAME_MAX ? "it is longer than a file name can be" : NULL;
}

int kiln_pin_name(const char *name, char *out, size_t outsz)
{
	char buf[512];
	const char *why = kl_pin_name_why(name);
	if (why)
		return kl_fail_msg(-EINVAL, "'%s' cannot name a pin: %s, and a pin stays in its directory",
				   name ? kl_pin_shown(name, buf, sizeof(buf)) : "", why);
	size_t len = strlen(name);
	if (len >= outsz)
		return kl_fail_msg(-ENAMETOOLONG, "pin name '%s': %zu bytes, more than the %zu given",
				   kl_pin_shown(name, buf, sizeof(buf)), len, outsz);
	for (size_t i = 0; i <= len; i++)
		out[i] = name[i] == '.' ? '_' : name[i];     /* bpffs refuses dots: glob.rodata */
	return 0;
}
