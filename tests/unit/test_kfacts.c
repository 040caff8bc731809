/* test_kfacts.c — the lists of kernel facts (src/kfacts/map_types.def, prog_types.def) walked
 * row by row: each row's constant comes back through every layer's lookup (the compiler's
 * keyword, libkiln's and `kiln probe`'s names), its sections resolve back to it, and its
 * columns agree with one another (what `kiln map` shows, how libkiln empties and makes it).
 * The test expands the lists with macros of its own, as any consumer may. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include "compiler/tables.h"
#include "kfacts/map_types.h"
#include "kfacts/prog_types.h"
#include "kiln/map.h"
#include "kiln/probe.h"
#include "check.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct row {
	const char *keyword;
	uint32_t constant;
};

static const struct row map_rows[] = {
#define MAP_TYPE(kw, constant, ...) { kw, constant },
#include "kfacts/map_types.def"
#undef MAP_TYPE
};

static const struct row prog_rows[] = {
#define KERNEL_PROG(constant, ...)
#define PROG_TYPE(kw, constant, ...) { kw, constant },
#define ATTACH_SECTION(pattern, ...)
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
};

static const uint32_t kernel_progs[] = {
#define KERNEL_PROG(constant, ...) constant,
#define PROG_TYPE(kw, constant, ...)
#define ATTACH_SECTION(pattern, ...)
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
};

/* libbpf's (and so libkiln's) name of a map type is kiln's keyword with '_' for '-'. */
static void check_map_names(const struct row *r, const struct kl_map_type *t)
{
	char name[96], want[64], got[64];
	size_t i;
	for (i = 0; r->keyword[i] && i < sizeof(want) - 1; i++)
		want[i] = r->keyword[i] == '-' ? '_' : r->keyword[i];
	want[i] = 0;
	snprintf(name, sizeof name, "map %s: compiler's keyword", r->keyword);
	CHECK(name, t && t->map_type == r->constant && kl_map_type_by_id(r->constant) == t &&
	      kl_map_type_facts(r->constant) == t, "row %p type %u", (const void *)t, t ? t->map_type : 0);
	/* libbpf 1.1 (Debian 12) is older than cgrp-storage: libkiln then says "unknown" and
	 * takes no name; `kiln probe` names it from the kernel's BTF, or by number */
	const char *lib = kiln_map_type_name((enum bpf_map_type)r->constant);
	bool newer = !strcmp(lib, "unknown");
	snprintf(name, sizeof name, "map %s: libkiln's name", r->keyword);
	CHECK(name, newer ? r->constant >= KILN_MAP_TYPE_CGRP_STORAGE && kiln_map_type_from_name(r->keyword) == -1
			  : !strcmp(lib, want) && kiln_map_type_from_name(r->keyword) == (int)r->constant &&
			    kiln_map_type_from_name(want) == (int)r->constant,
	      "'%s' for %u, want '%s'", lib, r->constant, want);
	snprintf(name, sizeof name, "map %s: kiln probe lists it", r->keyword);
	const char *probed = kiln_probe_map_type_name(r->constant, got, sizeof got);
	uint32_t back = 0;
	CHECK(name, r->constant < KILN_PROBE_TYPES_MAX && (newer || !strcmp(probed, want)) &&
	      !kiln_probe_map_type_by_name(probed, &back) && back == r->constant,
	      "probe names %u '%s' (back %u)", r->constant, probed, back);
}

/* The columns that must agree within a row. */
static void check_map_columns(const struct kl_map_type *t)
{
	char name[96];
	bool held = t->dump == KF_DUMP_HELD || t->dump == KF_DUMP_COOKIES;
	snprintf(name, sizeof name, "map %s: dump", t->keyword);
	CHECK(name, held == (t->held != NULL) && (!held || t->held_width == 4 || t->held_width == 8) &&
	      ((t->dump == KF_DUMP_NONE || t->dump == KF_DUMP_COOKIES) == (t->hint != NULL)) &&
	      (!held || t->sizes_only) && (t->dump == KF_DUMP_NEXT) == (t->clear == KF_CLEAR_POP) &&
	      (t->dump != KF_DUMP_NEXT || t->no_key) && (!t->no_key_value || t->dump == KF_DUMP_NONE),
	      "dump %d held %s width %u hint %s", t->dump, t->held ? t->held : "NULL", t->held_width,
	      t->hint ? t->hint : "NULL");
	snprintf(name, sizeof name, "map %s: key and value names", t->keyword);
	CHECK(name, (t->value_names == KF_NAMES_DATA || t->sizes_only) &&
	      (t->key_names == KF_NAMES_DATA || t->storage_per) && (!t->storage_per || t->key_size),
	      "key %d value %d", t->key_names, t->value_names);
	snprintf(name, sizeof name, "map %s: how it is kept and emptied", t->keyword);
	CHECK(name, (t->prealloc == KF_PREALLOC_REFUSED) == !!(t->required_flags & BPF_F_NO_PREALLOC) &&
	      (t->clear == KF_CLEAR_ZERO) == t->array && (!t->array || t->index_keyed) &&
	      (!t->index_keyed || t->key_size == 4) && (t->clear != KF_CLEAR_SLOTS || t->index_keyed) &&
	      (!t->no_key || !t->key_size) && (!t->events || t->no_key_value || t->sizes_only),
	      "prealloc %d flags %#x clear %d array %d index %d", t->prealloc, t->required_flags, t->clear,
	      t->array, t->index_keyed);
	snprintf(name, sizeof name, "map %s: libkiln's pre-allocation", t->keyword);
	uint32_t off = kiln_map_prealloc_flags((enum bpf_map_type)t->map_type, false);
	uint32_t on = kiln_map_prealloc_flags((enum bpf_map_type)t->map_type, true);
	CHECK(name, on == (t->prealloc == KF_PREALLOC_REFUSED ? BPF_F_NO_PREALLOC : 0) &&
	      off == (t->prealloc == KF_PREALLOC_FIXED ? 0 : BPF_F_NO_PREALLOC), "on %#x off %#x", on, off);
}

static void check_map_types(void)
{
	size_t n;
	const struct kl_map_type *all = kl_map_types(&n);
	CHECK("map list: one row each", n == COUNT(map_rows) && n >= 30, "%zu rows, %zu expanded", n,
	      COUNT(map_rows));
	for (size_t i = 0; i < COUNT(map_rows); i++) {
		for (size_t j = 0; j < i; j++)
			if (!strcmp(map_rows[i].keyword, map_rows[j].keyword) || map_rows[i].constant == map_rows[j].constant)
				CHECK("map list: keywords and constants are unique", false, "%s and %s",
				      map_rows[j].keyword, map_rows[i].keyword);
		const struct kl_map_type *t = kl_map_type_find(map_rows[i].keyword);
		check_map_names(&map_rows[i], t);
		if (t)
			check_map_columns(t);
		CHECK("map list: the table is the list", i < n && &all[i] == t, "row %zu", i);
	}
	CHECK("map list: an unknown type has no facts", !kl_map_type_by_id(BPF_MAP_TYPE_UNSPEC) &&
	      !kl_map_type_facts(BPF_MAP_TYPE_UNSPEC)->keyword && !kl_map_type_facts(200)->percpu, "found");
}

/* A section each pattern stands for: "name/" with a target, "name+" both ways, "name" itself. */
static int pattern_samples(const char *p, char out[2][96])
{
	size_t len = strlen(p);
	if (p[len - 1] == '/') {
		snprintf(out[0], 96, "%starget", p);
		return 1;
	}
	if (p[len - 1] == '+') {
		snprintf(out[0], 96, "%.*s", (int)len - 1, p);
		snprintf(out[1], 96, "%.*s/bin:fn", (int)len - 1, p);
		return 2;
	}
	snprintf(out[0], 96, "%s", p);
	return 1;
}

/* Every pattern of a row resolves back to it, and no row of another kernel type takes it. */
static void check_prog_sections(const struct kl_prog_type *pt)
{
	char name[256], sec[2][96];
	for (const char *const *p = pt->patterns; *p; p++) {
		int ns = pattern_samples(*p, sec);
		for (int s = 0; s < ns; s++) {
			bool ok = false;
			const struct kl_prog_type *back = kl_prog_type_resolve(pt->keyword, sec[s], &ok);
			snprintf(name, sizeof name, "prog %s: section %s resolves to it", pt->keyword, sec[s]);
			CHECK(name, back == pt && ok, "%s (ok %d)", back ? back->keyword : "NULL", ok);
			for (size_t j = 0; j < COUNT(prog_rows); j++) {
				const struct kl_prog_type *o = kl_prog_type_find(prog_rows[j].keyword);
				if (o && o->prog_type != pt->prog_type && kl_prog_type_section_ok(o, sec[s]))
					CHECK(name, false, "%s takes it too", o->keyword);
			}
		}
	}
	snprintf(name, sizeof name, "prog %s: default section and prefix", pt->keyword);
	CHECK(name, pt->patterns[0] && pt->section_prefix && (!pt->section || kl_prog_type_section_ok(pt, pt->section)) &&
	      !strncmp(pt->patterns[0], pt->section_prefix, strlen(pt->section_prefix)),
	      "section %s prefix %s first pattern %s", pt->section ? pt->section : "NULL", pt->section_prefix,
	      pt->patterns[0] ? pt->patterns[0] : "NULL");
}

static void check_prog_types(void)
{
	char name[96], got[64];
	for (size_t i = 0; i < COUNT(prog_rows); i++) {
		const struct kl_prog_type *pt = kl_prog_type_find(prog_rows[i].keyword);
		snprintf(name, sizeof name, "prog %s: compiler's keyword", prog_rows[i].keyword);
		CHECK(name, pt && pt->prog_type == prog_rows[i].constant, "type %u", pt ? pt->prog_type : 0);
		if (!pt)
			continue;
		check_prog_sections(pt);
		if (pt->alias_as) {
			bool ok;
			snprintf(name, sizeof name, "prog %s: alias", pt->keyword);
			CHECK(name, kl_prog_type_resolve(pt->keyword, pt->alias_section, &ok) ==
			      kl_prog_type_find(pt->alias_as) && kl_prog_type_find(pt->alias_as), "not %s", pt->alias_as);
		}
		snprintf(name, sizeof name, "prog %s: kiln probe lists it", pt->keyword);
		uint32_t back = 0;
		const char *probed = kiln_probe_prog_type_name(pt->prog_type, got, sizeof got);
		CHECK(name, pt->prog_type < KILN_PROBE_TYPES_MAX && strncmp(probed, "prog_type_", 10) &&
		      !kiln_probe_prog_type_by_name(probed, &back) && back == pt->prog_type,
		      "probe names %u '%s' (back %u)", pt->prog_type, probed, back);
	}
	size_t n;
	const struct kl_prog_kind *kinds = kl_prog_kinds(&n);
	CHECK("prog kinds: the table is the list", n == COUNT(kernel_progs), "%zu rows, %zu expanded", n,
	      COUNT(kernel_progs));
	for (size_t i = 0; i < n && i < COUNT(kernel_progs); i++) {
		const struct kl_prog_kind *k = &kinds[i];
		snprintf(name, sizeof name, "prog kind %u: one row, probed", k->prog_type);
		CHECK(name, k->prog_type == kernel_progs[i] && kl_prog_kind_facts(k->prog_type) == k &&
		      k->prog_type < KILN_PROBE_TYPES_MAX,
		      "type %u", k->prog_type);
	}
	CHECK("prog kinds: packet programs pass", kl_prog_kind_facts(BPF_PROG_TYPE_XDP)->pass == XDP_PASS &&
	      kl_prog_kind_facts(BPF_PROG_TYPE_SOCKET_FILTER)->pass == -1 &&
	      !kl_prog_kind_facts(BPF_PROG_TYPE_KPROBE)->has_pass && !kl_prog_kind_facts(200)->has_pass, "wrong");
}

static const char *const attach_rows[] = {
#define KERNEL_PROG(constant, ...)
#define PROG_TYPE(kw, constant, ...)
#define ATTACH_SECTION(pattern, ...) pattern,
#include "kfacts/prog_types.def"
#undef KERNEL_PROG
#undef PROG_TYPE
#undef ATTACH_SECTION
};

/* Each attach row is the first to take its own sections (no earlier row hides it), and a row
 * that sets a program's type names one the compiler's rows give those sections. */
static void check_attach_sections(void)
{
	char name[320], sec[2][96];
	for (size_t i = 0; i < COUNT(attach_rows); i++) {
		int ns = pattern_samples(attach_rows[i], sec);
		for (int s = 0; s < ns; s++) {
			const struct kl_attach_section *a = kl_attach_section_find(sec[s]);
			snprintf(name, sizeof name, "attach %s: %s finds it", attach_rows[i], sec[s]);
			CHECK(name, a && !strcmp(a->pattern, attach_rows[i]), "found %s", a ? a->pattern : "NULL");
			if (!a || !a->type)
				continue;
			bool typed = false;
			for (size_t j = 0; j < COUNT(prog_rows); j++) {
				const struct kl_prog_type *pt = kl_prog_type_find(prog_rows[j].keyword);
				typed |= pt && pt->prog_type == a->type && kl_prog_type_section_ok(pt, sec[s]);
			}
			snprintf(name, sizeof name, "attach %s: %s is a type the compiler gives it", attach_rows[i], sec[s]);
			CHECK(name, typed, "type %u", a->type);
		}
	}
	CHECK("attach: no section, no row", !kl_attach_section_find(NULL) && !kl_attach_section_find("nothing"), "found");
}

int main(void)
{
	check_map_types();
	check_prog_types();
	check_attach_sections();
	return CHECK_DONE();
}
