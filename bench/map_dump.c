/* map_dump.c — bench/map_dump.sh's helper: fills a hash map (u32 key, u64 value), pins it, and
 * times kiln_map_dump in kernel batches and per key. Prints "name value" lines for the script. */
#include "kiln/error.h"
#include "kiln/map.h"
#include "kiln/pin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sum {
	uint64_t entries, total;
};

static int add(const void *key, const void *value, void *ctx)
{
	struct sum *s = ctx;
	uint64_t v;
	memcpy(&v, value, 8);
	s->entries++;
	s->total += v;
	(void)key;
	return 0;
}

/* The best of rounds runs, in ms. */
static double time_dump(struct kiln_map *m, bool batch, int rounds, struct sum *s,
			struct kiln_map_dump_stats *st)
{
	double best = -1;
	for (int r = 0; r < rounds; r++) {
		struct kiln_map_dump_opts o = { .sz = sizeof(o), .batch = batch };
		memset(s, 0, sizeof(*s));
		int err = kiln_map_dump(m, add, s, &o, st);
		if (err) {
			fprintf(stderr, "map_dump: %s\n", kiln_errmsg());
			exit(1);
		}
		double ms = (double)(st->finished_ns - st->started_ns) / 1e6;
		if (best < 0 || ms < best)
			best = ms;
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: map_dump PIN-PATH ENTRIES [ROUNDS]\n");
		return 2;
	}
	const char *path = argv[1];
	uint32_t n = (uint32_t)strtoul(argv[2], NULL, 0);
	int rounds = argc > 3 ? atoi(argv[3]) : 3;
	struct kiln_map_spec spec = {
		.sz = sizeof(spec), .name = "kl_bench_dump", .type = BPF_MAP_TYPE_HASH,
		.key_size = 4, .value_size = 8, .max_entries = n,
	};
	struct kiln_map *m;
	if (kiln_map_create(&spec, &m)) {
		fprintf(stderr, "map_dump: %s\n", kiln_errmsg());
		return 1;
	}
	enum { CHUNK = 65536 };
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	uint64_t *vals = malloc(CHUNK * sizeof(*vals));
	uint64_t want = 0;
	for (uint32_t at = 0; at < n; at += CHUNK) {
		uint32_t c = n - at < CHUNK ? n - at : CHUNK;
		for (uint32_t i = 0; i < c; i++) {
			keys[i] = at + i;
			vals[i] = (uint64_t)(at + i) * 3;
			want += vals[i];
		}
		if (kiln_map_update_batch(m, keys, vals, &c, BPF_ANY)) {
			fprintf(stderr, "map_dump: %s\n", kiln_errmsg());
			return 1;
		}
	}
	free(keys);
	free(vals);
	if (kiln_map_pin(m, path)) {
		fprintf(stderr, "map_dump: %s\n", kiln_errmsg());
		return 1;
	}
	struct sum s;
	struct kiln_map_dump_stats st;
	double batch = time_dump(m, true, rounds, &s, &st);
	printf("batch_ms %.1f\nbatch_entries %llu\nbatch_calls %u\n", batch,
	       (unsigned long long)s.entries, st.lookups);
	if (s.entries != n || s.total != want)
		printf("warning batched dump saw %llu of %u entries\n", (unsigned long long)s.entries, n);
	double perkey = time_dump(m, false, rounds, &s, &st);
	printf("perkey_ms %.1f\nperkey_entries %llu\nperkey_rounds %u\n", perkey,
	       (unsigned long long)s.entries, st.lookups);
	if (s.entries != n || s.total != want)
		printf("warning per-key dump saw %llu of %u entries\n", (unsigned long long)s.entries, n);
	kiln_map_close(m);
	return 0;
}
