/* userrb.c — writing into a user ring buffer (BPF_MAP_TYPE_USER_RINGBUF), the one map whose
 * records go from user space to programs, which take them with user-ringbuf-drain. libbpf's
 * user_ring_buffer does the producer side; this is one record at a time, for the CLI and for
 * callers that write rarely (a steady producer keeps its own user_ring_buffer). */
#include "kiln/map.h"
#include "kiln/ringbuf.h"
#include "fail.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>

int kiln_user_ringbuf_write(struct kiln_map *m, const void *data, size_t size)
{
	const struct kiln_map_info *info = m ? kiln_map_info(m) : NULL;
	if (!info || info->type != BPF_MAP_TYPE_USER_RINGBUF)
		return kl_fail_msg(-EINVAL, "%s is not a user ring buffer", m ? kiln_map_name(m) : "(null)");
	if (!size || size > info->max_entries / 2)
		return kl_fail_msg(-E2BIG, "a record of %zu bytes does not fit %s (%u bytes)", size,
				   kiln_map_name(m), info->max_entries);
	struct user_ring_buffer *rb = user_ring_buffer__new(kiln_map_fd(m), NULL);
	if (!rb)
		return kl_fail(-errno, "opening the user ring buffer %s", kiln_map_name(m));
	void *rec = user_ring_buffer__reserve(rb, (uint32_t)size);
	int err = rec ? 0 : -errno;
	if (rec) {
		memcpy(rec, data, size);
		user_ring_buffer__submit(rb, rec);
	}
	user_ring_buffer__free(rb);
	return err ? kl_fail(err, "writing %zu bytes into %s%s", size, kiln_map_name(m),
			     err == -ENOSPC ? " (full: a program has not drained it)" : "") : 0;
}
