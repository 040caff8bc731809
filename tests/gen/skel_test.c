/* skel_test.c — a user of `kiln gen skeleton`'s header for tests/gen/shapes.{lisp,c}: opens and
 * loads the embedded object, attaches its tracepoint, makes three getpid() calls, and reads
 * this process's entry through the typed accessor; prints "calls=N delta=D total=T" for
 * tests/suites/gen.sh to check, then deletes the entry, finds it gone, and destroys. */
#include "shapes.skel.h"
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct shapes *s = shapes__open_and_load();
	if (!s) {
		fprintf(stderr, "open_and_load: %s\n", kiln_errmsg());
		return 1;
	}
	int err = shapes__attach(s);
	if (err) {
		fprintf(stderr, "attach: %s\n", kiln_errmsg());
		shapes__destroy(s);
		return 1;
	}
	for (int i = 0; i < 3; i++)
		syscall(SYS_getpid);
	shapes__detach(s);
	struct pid_key k;
	memset(&k, 0, sizeof(k));   /* the padding is part of the key */
	k.pid = (__u32)getpid();
	k.kind = 1;
	struct stats v;
	__u32 zero = 0;
	__u64 total = 0;
	err = shapes__by_pid__lookup(s, &k, &v);
	if (!err)
		err = shapes__total__lookup(s, &zero, &total);
	if (err) {
		fprintf(stderr, "lookup: %s\n", kiln_errmsg());
		shapes__destroy(s);
		return 1;
	}
	printf("calls=%llu delta=%d total=%s\n", (unsigned long long)v.calls, v.delta,
	       total >= 3 ? "at-least-3" : "short");
	err = shapes__by_pid__delete(s, &k);
	printf("deleted=%d again=%d\n", err, shapes__by_pid__lookup(s, &k, &v));
	shapes__destroy(s);
	return 0;
}
