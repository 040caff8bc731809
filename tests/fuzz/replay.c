/* replay.c — the main() of a fuzz harness built without libFuzzer (plain gcc, the suite's own
 * flags): each file named, or each file of each directory named, goes once through the
 * harness's LLVMFuzzerTestOneInput. tests/suites/fuzz-regress.sh runs it over the committed
 * crash inputs (tests/fuzz/regress/NAME/), so a fixed crash stays fixed in every `make test`;
 * a crash ends the process (a signal, or a sanitizer's report in an ASan build). Prints
 * "ran N inputs" and exits 0, or 2 when a file cannot be read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path, int verbose)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, n = 0, r;
	uint8_t *buf = malloc(cap);
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	/* an exact-size copy, as libFuzzer passes it, so a read past the end is caught */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	if (verbose)
		fprintf(stderr, "running %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int verbose = getenv("FUZZ_REPLAY_VERBOSE") != NULL, bad = 0;
	long ran = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			struct dirent **ents;
			int n = scandir(argv[i], &ents, NULL, NULL);
			if (n < 0) {
				perror(argv[i]);
				bad = 1;
				continue;
			}
			char **names = calloc((size_t)n + 1, sizeof(*names));
			int k = 0;
			for (int j = 0; j < n; j++) {
				char path[4096];
				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
				if (ents[j]->d_name[0] != '.' && names && stat(path, &st) == 0 && S_ISREG(st.st_mode))
					names[k++] = strdup(path);
				free(ents[j]);
			}
			free(ents);
			if (names)
				qsort(names, (size_t)k, sizeof(*names), cmp);
			for (int j = 0; names && j < k; j++) {
				if (!names[j] || one(names[j], verbose))
					bad = 1;
				else
					ran++;
				free(names[j]);
			}
			free(names);
		} else if (one(argv[i], verbose)) {
			bad = 1;
		} else {
			ran++;
		}
	}
	printf("ran %ld inputs\n", ran);
	return bad ? 2 : 0;
}
