/* map_types.c — the map-type table, expanded from map_types.def, and its lookups. */
#include "kfacts/map_types.h"
#include <string.h>

static const struct kl_map_type map_types[] = {
#define MAP_TYPE(kw, constant, ...) { .keyword = kw, .map_type = constant, __VA_ARGS__ },
#include "kfacts/map_types.def"
#undef MAP_TYPE
};

#define NTYPES (sizeof(map_types) / sizeof(map_types[0]))

const struct kl_map_type *kl_map_type_find(const char *keyword)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (strcmp(map_types[i].keyword, keyword) == 0)
			return &map_types[i];
	return NULL;
}

const struct kl_map_type *kl_map_type_by_id(uint32_t map_type)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (map_types[i].map_type == map_type)
			return &map_types[i];
	return NULL;
}

const struct kl_map_type *kl_map_type_facts(uint32_t map_type)
{
	static const struct kl_map_type unknown;
	const struct kl_map_type *t = kl_map_type_by_id(map_type);
	return t ? t : &unknown;
}

const struct kl_map_type *kl_map_types(size_t *n)
{
	*n = NTYPES;
	return map_types;
}
