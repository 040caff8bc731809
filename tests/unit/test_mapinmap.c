/* test_mapinmap.c — maps of maps used from a program (tests/lib/map-in-map.lisp): user space
 * puts inner maps made like the template into an :array-of-maps slot and a :hash-of-maps key,
 * runs the program with BPF_PROG_TEST_RUN, and reads in the inner maps what the program wrote
 * through them (getmap, incf, setf, map-update on the map the lookup gave). */
#include "check.h"
#include <kiln/kiln.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static uint64_t at(struct kiln_map *m, uint32_t k)
{
	uint64_t v = 0;
	kiln_map_lookup(m, &k, &v);
	return v;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *root = getenv("ROOT") ? getenv("ROOT") : ".";
	if (geteuid() != 0) {
		printf("FAIL test_mapinmap: needs root\n");
		return 1;
	}
	int fds_before = check_open_fds();
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/tests/lib/map-in-map.lisp", root);
	struct kiln_object *obj = NULL;
	int err = kiln_object_open(path, NULL, &obj);
	err = err ? err : kiln_object_load(obj);
	CHECK("map-in-map: open and load (the verifier takes the inner map as a map)", !err, "%d %s", err,
	      kiln_errmsg());
	if (err) {
		kiln_object_close(obj);
		return CHECK_DONE();
	}
	struct kiln_map_spec spec = { .sz = sizeof(spec), .type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
				      .value_size = 8, .max_entries = 4 };
	struct kiln_map *a = NULL, *h = NULL;
	err = kiln_map_create(&spec, &a);
	err = err ? err : kiln_map_create(&spec, &h);
	CHECK("map-in-map: two inner maps like the template", !err, "%s", kiln_errmsg());
	if (err)
		goto out;
	uint32_t slot = 1, fd = (uint32_t)kiln_map_fd(a);
	uint16_t port = 80;
	uint32_t hfd = (uint32_t)kiln_map_fd(h);
	err = kiln_map_update(kiln_object_find_map(obj, "by_slot"), &slot, &fd, BPF_ANY);
	err = err ? err : kiln_map_update(kiln_object_find_map(obj, "by_port"), &port, &hfd, BPF_ANY);
	CHECK("map-in-map: inner maps put in slot 1 and key 80", !err, "%s", kiln_errmsg());

	unsigned char pkt[64] = { 0 };
	struct kiln_test_run run = { .sz = sizeof(run), .data_in = pkt, .data_size_in = sizeof(pkt), .repeat = 1 };
	int pfd = kiln_prog_fd(kiln_object_find_prog(obj, "use_inner"));
	for (int i = 0; i < 3 && !err; i++)
		err = kiln_prog_test_run(pfd, &run);
	CHECK("map-in-map: three runs", !err && run.retval == XDP_PASS, "%d %s retval %u", err, kiln_errmsg(),
	      run.retval);
	CHECK("map-in-map: incf through the array's inner map", at(a, 0) == 3, "%llu", (unsigned long long)at(a, 0));
	CHECK("map-in-map: incf by the length", at(a, 1) == 3 * 64, "%llu", (unsigned long long)at(a, 1));
	CHECK("map-in-map: setf of a getmap", at(a, 2) == 3 * 64 + 1, "%llu", (unsigned long long)at(a, 2));
	CHECK("map-in-map: map-update through the hash's inner map", at(h, 3) == 128 && at(a, 3) == 0,
	      "hash inner %llu, array inner %llu", (unsigned long long)at(h, 3), (unsigned long long)at(a, 3));
	struct kiln_map *tmpl = kiln_object_find_map(obj, "counts");
	CHECK("map-in-map: the template itself untouched", at(tmpl, 0) == 0 && at(tmpl, 1) == 0, "%llu %llu",
	      (unsigned long long)at(tmpl, 0), (unsigned long long)at(tmpl, 1));
out:
	kiln_map_close(a);
	kiln_map_close(h);
	kiln_object_close(obj);
	CHECK("map-in-map: no fd leaks", check_open_fds() == fds_before, "%d before, %d after", fds_before,
	      check_open_fds());
	return CHECK_DONE();
}
