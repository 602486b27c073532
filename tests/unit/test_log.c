/* log_printable() and the log itself: what a host sends comes out as text
 * that cannot drive a terminal or forge a log line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "log.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Nothing below 0x20, no DEL, and no byte 0x80..0x9f right after 0xc2. */
static void assert_printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		assert_true(*p >= 0x20);
		assert_true(*p != 0x7f);
		if (p[0] == 0xc2)
			assert_false(p[1] >= 0x80 && p[1] <= 0x9f);
	}
}

static void check(const char *src, size_t len, const char *want)
{
	char out[256];
	size_t n = log_printable(out, sizeof(out), src, len);

	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	assert_printable(out);
}

/* For literals: their length without the final NUL. */
#define CHECK(lit, want) check(lit, sizeof(lit) - 1, want)

static void test_host_name_with_controls(void **state)
{
	/* An MTP name or adb banner a hostile host might send. */
	static const char name[] = "evil\x1b[2J\rname\n\0tail";

	check(name, sizeof(name) - 1,
	      "evil\\x1b[2J\\x0dname\\x0a\\x00tail");
}

static void test_plain_and_utf8_kept(void **state)
{
	CHECK("host::features=shell_v2", "host::features=shell_v2");
	CHECK("M\xc3\xbcller \xe2\x98\x83 \xf0\x9f\x98\x80.jpg",
	      "M\xc3\xbcller \xe2\x98\x83 \xf0\x9f\x98\x80.jpg");
	CHECK("", "");
}

static void test_del_c1_bidi_escaped(void **state)
{
	CHECK("a\x7f" "b", "a\\x7fb");
	/* U+009B, a CSI for terminals that take C1 controls from UTF-8. */
	CHECK("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	/* U+202E RIGHT-TO-LEFT OVERRIDE makes "gpj.exe" read "exe.jpg". */
	CHECK("x\xe2\x80\xaegpj.exe", "x\\xe2\\x80\\xaegpj.exe");
	/* U+2028 LINE SEPARATOR. */
	CHECK("\xe2\x80\xa8", "\\xe2\\x80\\xa8");
}

static void test_invalid_utf8_escaped(void **state)
{
	CHECK("\xc0\xaf", "\\xc0\\xaf");          /* overlong '/' */
	CHECK("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
	CHECK("\x80", "\\x80");                   /* lone continuation */
	CHECK("a\xe2\x82", "a\\xe2\\x82");        /* cut short */
	CHECK("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
}

static void test_truncation_keeps_whole_units(void **state)
{
	char out[8];

	memset(out, 'Z', sizeof(out));
	/* "ab" + an escape would need 7 bytes with the NUL: the escape goes. */
	assert_int_equal(log_printable(out, 6, "ab\x01", 3), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(log_printable(out, 7, "ab\x01", 3), 6);
	assert_string_equal(out, "ab\\x01");
	/* A two-byte character is not cut. */
	assert_int_equal(log_printable(out, 2, "\xc3\xa9", 2), 0);
	assert_string_equal(out, "");
	assert_int_equal(log_printable(out, 1, "abc", 3), 0);
	assert_string_equal(out, "");
	out[0] = 'Z';
	assert_int_equal(log_printable(out, 0, "abc", 3), 0);
	assert_int_equal(out[0], 'Z');
}

/* Text of several lines keeps its newlines and tabs; the rest is
 * escaped as in a log line. */
static void test_lines_keep_newlines(void **state)
{
	static const char raw[] = "k1\tuser@host\nk2 \x7f\r\x1b\xc2\x9b\xe2\x80\xae\xe2\x81\xa7\n";
	char out[256];

	size_t n = log_printable_lines(out, sizeof(out), raw, sizeof(raw) - 1);

	assert_int_equal(n, strlen(out));
	assert_string_equal(out, "k1\tuser@host\nk2 \\x7f\\x0d\\x1b\\xc2\\x9b"
				 "\\xe2\\x80\\xae\\xe2\\x81\\xa7\n");
	log_printable(out, sizeof(out), raw, sizeof(raw) - 1);
	assert_non_null(strstr(out, "k1\\x09user@host\\x0ak2"));
}

/* The log itself: a message quoting host bytes stays one clean line. */
static void test_log_line_is_clean(void **state)
{
	char buf[512];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(f);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(f), 2) >= 0);
	log_init("test", true, LOG_LEVEL_INFO);
	log_info("adb: host connected: %s", "x\nfake: line\x1b[2J");
	fflush(stderr);
	assert_true(dup2(saved, 2) >= 0);
	close(saved);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	assert_string_equal(buf, "test: adb: host connected: "
				 "x\\x0afake: line\\x1b[2J\n");
}

static char tap_seen[256];
static unsigned tap_calls;

static void tap(enum log_level level, const char *msg)
{
	tap_calls++;
	snprintf(tap_seen, sizeof(tap_seen), "%d %s", (int)level, msg);
	/* Logged from inside the tap: not seen by it again. */
	log_warnx("from the tap");
}

/* The tap sees warnings as they were logged (printable), not info. */
static void test_tap_sees_warnings(void **state)
{
	log_init("test", true, LOG_LEVEL_DEBUG);
	log_set_tap(tap);
	log_info("an info line");
	assert_int_equal(tap_calls, 0);
	errno = ENOENT;
	log_warn("storage0_path: %s", "/srv/\x1b");
	assert_int_equal(tap_calls, 1);
	assert_string_equal(tap_seen, "1 storage0_path: /srv/\\x1b: No such file or directory");
	log_set_tap(NULL);
	log_warnx("after");
	assert_int_equal(tap_calls, 1);
}

/* A burst passes, the rest of the window is dropped, and the next window
 * says how many were dropped (through the tap, as a warning). */
static void test_burst_limits_and_counts(void **state)
{
	struct log_burst b = LOG_BURST_INIT("lines about the host", 3, 1);
	struct timespec t;
	unsigned i, ok = 0;

	log_init("test", true, LOG_LEVEL_DEBUG);
	tap_calls = 0;
	log_set_tap(tap);
	for (i = 0; i < 100; i++)
		ok += log_burst_ok(&b);
	assert_int_equal(ok, 3);
	assert_int_equal(tap_calls, 0);
	/* Start the next window by moving its start back. */
	clock_gettime(CLOCK_MONOTONIC, &t);
	b.window = t.tv_sec - 1;
	assert_true(log_burst_ok(&b));
	assert_int_equal(tap_calls, 1);
	assert_string_equal(tap_seen, "1 97 more lines about the host were not logged");
	log_set_tap(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_name_with_controls),
		cmocka_unit_test(test_plain_and_utf8_kept),
		cmocka_unit_test(test_del_c1_bidi_escaped),
		cmocka_unit_test(test_invalid_utf8_escaped),
		cmocka_unit_test(test_truncation_keeps_whole_units),
		cmocka_unit_test(test_lines_keep_newlines),
		cmocka_unit_test(test_log_line_is_clean),
		cmocka_unit_test(test_tap_sees_warnings),
		cmocka_unit_test(test_burst_limits_and_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
