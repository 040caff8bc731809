/* test_ktypes.c — kiln trace's kernel types (src/trace/ktypes.c) on the running kernel's BTF:
 * a member whose type is an anonymous struct or union (struct in6_addr's in6_u) is typed as
 * the struct "#ID", and `.field` reads on through it. Every such member of every named struct
 * is tried (hundreds: the names were once 64 static slots that then ran out without a word),
 * each found under its own id, and each "#ID" found again (sizeof, as the BTF says). */
#include "check.h"
#include "trace/ktypes.h"
#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>

static uint32_t strip(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;
	while ((t = btf__type_by_id(btf, id)) && (btf_is_typedef(t) || btf_is_mod(t)))
		id = t->type;
	return id;
}

int main(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	if (!btf) {
		printf("SKIP ktypes: this kernel has no BTF\n");
		return 0;
	}
	char msg[512];
	size_t tried = 0, typed = 0, reopened = 0;
	char bad[256] = "";
	for (uint32_t id = 1; id < btf__type_cnt(btf) && tried < 400; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_struct(t) || !t->name_off)
			continue;
		const struct btf_member *mb = btf_members(t);
		for (uint16_t i = 0; i < btf_vlen(t) && tried < 400; i++) {
			uint32_t mt = strip(btf, mb[i].type);
			const struct btf_type *m = btf__type_by_id(btf, mt);
			if (!mb[i].name_off || !m || m->name_off || !(btf_is_struct(m) || btf_is_union(m)) || !btf_vlen(m))
				continue;
			const char *sname = btf__name_by_offset(btf, t->name_off);
			const char *field = btf__name_by_offset(btf, mb[i].name_off);
			/* a struct whose name another type shares (a union of that name) is found by
			 * kind first: only structs that are the one of their name */
			if (btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT) != (int)id)
				continue;
			tried++;
			struct kt_type out;
			char want[16];
			snprintf(want, sizeof(want), "#%u", mt);
			if (kt_kfield(sname, field, &out, msg, sizeof(msg)) || out.kind != KTT_STRUCT || !out.tname ||
			    strcmp(out.tname, want)) {
				if (!bad[0])
					snprintf(bad, sizeof(bad), "%.60s.%.60s: %.100s (want %s)", sname, field,
						 out.tname ? out.tname : msg, want);
				continue;
			}
			typed++;
			uint32_t size = 0;
			if (!kt_ksizeof(out.tname, &size, msg, sizeof(msg)) && size == m->size)
				reopened++;
		}
	}
	CHECK("ktypes: more anonymous members than the old 64 slots", tried > 64, "%zu found", tried);
	CHECK("ktypes: every anonymous member typed as its own #ID", typed == tried && tried, "%zu of %zu: %s", typed,
	      tried, bad);
	CHECK("ktypes: each #ID found again, at its size", reopened == typed, "%zu of %zu", reopened, typed);
	btf__free(btf);
	return check_failures != 0;
}
