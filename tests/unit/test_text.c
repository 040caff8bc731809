/* test_text.c — untrusted names made safe for terminals (src/lib/text.c): control bytes and
 * invalid UTF-8 as \xHH, printable ASCII and valid UTF-8 kept, long names cut with "...",
 * eight names at once through kl_safe, and every libkiln error message escaped the same way
 * (kiln_errmsg() never holds a byte that drives a terminal). */
#include "check.h"
#include "lib/fail.h"
#include "lib/text.h"
#include <kiln/error.h>
#include <errno.h>
#include <string.h>

static void expect(const char *name, const char *in, const char *want)
{
	char buf[256];
	kl_text_escape(buf, sizeof(buf), in);
	CHECK(name, !strcmp(buf, want), "'%s' gave '%s', want '%s'", in, buf, want);
}

int main(void)
{
	expect("text: plain ASCII is kept", "xdp_prog.v2", "xdp_prog.v2");
	expect("text: ESC, BEL and newline escaped", "a\x1b]0;t\x07\nb", "a\\x1b]0;t\\x07\\x0ab");
	expect("text: DEL and CR escaped", "x\x7fy\rz", "x\\x7fy\\x0dz");
	expect("text: valid UTF-8 kept", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x9d");
	expect("text: a lone continuation byte escaped", "a\x80z", "a\\x80z");
	expect("text: a cut sequence escaped", "a\xe2\x82", "a\\xe2\\x82");
	expect("text: an overlong form escaped", "\xc0\xaf", "\\xc0\\xaf");
	expect("text: a surrogate escaped", "\xed\xa0\x80", "\\xed\\xa0\\x80");
	expect("text: past U+10FFFF escaped", "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	expect("text: a backslash stays (escaping twice changes nothing)", "a\\x1bb", "a\\x1bb");

	char small[12];
	kl_text_escape(small, sizeof(small), "abcdefghijklmnop");
	CHECK("text: a long name is cut with ...", !strcmp(small, "abcdefgh...") && strlen(small) < sizeof(small),
	      "'%s'", small);
	kl_text_escape(small, sizeof(small), "ab\x1b\x1b\x1b\x1b");
	CHECK("text: an escape is never cut in half", !strcmp(small, "ab\\x1b..."), "'%s'", small);
	CHECK("text: kl_text_plain", kl_text_plain("ok_name") && kl_text_plain("\xc3\xa9") && !kl_text_plain("a\nb") &&
	      !kl_text_plain("\xff"), "wrong verdict");

	const char *s[9];
	for (int i = 0; i < 8; i++) {
		char in[8] = { 'n', (char)('0' + i), '\x1b', 0 };
		s[i] = kl_safe(in);
	}
	bool all = true;
	for (int i = 0; i < 8; i++) {
		char want[16];
		snprintf(want, sizeof(want), "n%d\\x1b", i);
		all = all && !strcmp(s[i], want);
	}
	CHECK("text: eight kl_safe names at once", all, "one was overwritten: %s %s", s[0], s[7]);
	CHECK("text: kl_safe(NULL)", !strcmp(kl_safe(NULL), "(null)"), "%s", kl_safe(NULL));

	int rc = kl_fail_msg(EINVAL, "load x.o: map '%s': failed", "m\x1b[31mRED\n");
	CHECK("text: error messages are escaped", rc == -EINVAL &&
	      !strcmp(kiln_errmsg(), "load x.o: map 'm\\x1b[31mRED\\x0a': failed"), "%s", kiln_errmsg());
	kl_fail(ENOENT, "open '%s'", "\x9b" "2J");
	CHECK("text: with the errno's text too", !strcmp(kiln_errmsg(), "open '\\x9b2J': No such file or directory"),
	      "%s", kiln_errmsg());
	return check_failures != 0;
}
