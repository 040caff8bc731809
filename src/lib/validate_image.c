/* validate_image.c — the helpers validate.c and validate_btf.c share (validate_image.h). */
#include "validate_image.h"
#include "fail.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int kv_fail(const struct kv *v, const char *where, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return kl_fail_msg(EINVAL, "object '%s': %s: %s", v->obj, where, msg);
}

size_t kv_sec_by_name(const struct kv *v, const char *name)
{
	for (size_t i = 1; i < v->nsecs; i++)
		if (!strcmp(v->secs[i].name, name))
			return i;
	return 0;
}
