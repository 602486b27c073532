/* common/ctl.c: the control socket's codec, as gadgetctl builds a
 * request and control.c parses it (its arguments too), and back for the
 * reply and the monitor's events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctl.h"

#include <errno.h>
#include <string.h>

static char buf[CTL_MSG_MAX + 64];

static void test_request_roundtrip(void **state)
{
	char *in[] = { "adb", "allow", "" };
	char *argv[8];
	struct ctl_hdr t;
	int n;

	n = ctl_build_request(buf, sizeof(buf), CTL_FUNCTION, 3, in);
	assert_int_equal(n, sizeof(struct ctl_hdr) + 4 + 6 + 1);
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 8), 3);
	assert_int_equal(t.type, CTL_FUNCTION);
	assert_string_equal(argv[0], "adb");
	assert_string_equal(argv[1], "allow");
	assert_string_equal(argv[2], "");
	n = ctl_build_request(buf, sizeof(buf), CTL_OFF, 0, NULL);
	assert_int_equal(n, sizeof(struct ctl_hdr));
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 8), 0);
	assert_int_equal(t.type, CTL_OFF);
}

static void test_request_malformed(void **state)
{
	char *in[] = { "a", "b", "c" };
	struct ctl_hdr h;
	char *argv[2];
	struct ctl_hdr t;
	int n;

	n = ctl_build_request(buf, sizeof(buf), CTL_SWITCH, 2, in);
	/* short header */
	assert_int_equal(ctl_parse_request(buf, 0, &t, argv, 2), -EBADMSG);
	assert_int_equal(ctl_parse_request(buf, sizeof(h) - 1, &t, argv, 2), -EBADMSG);
	/* the header's length past the end, and short of it */
	assert_int_equal(ctl_parse_request(buf, n - 1, &t, argv, 2), -EBADMSG);
	memcpy(&h, buf, sizeof(h));
	h.len = 0xffffffff;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 2), -EBADMSG);
	h.len = 1;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 2), -EBADMSG);
	/* argv without its last NUL */
	n = ctl_build_request(buf, sizeof(buf), CTL_SWITCH, 2, in);
	buf[n - 1] = 'x';
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 2), -EINVAL);
	/* too many arguments */
	n = ctl_build_request(buf, sizeof(buf), CTL_SWITCH, 3, in);
	assert_int_equal(ctl_parse_request(buf, n, &t, argv, 2), -EINVAL);
}

static void test_request_too_big(void **state)
{
	static char big[CTL_MSG_MAX];
	char *in[] = { big };

	memset(big, 'x', sizeof(big) - 1);
	/* A larger buffer does not lift the datagram's limit. */
	assert_int_equal(ctl_build_request(buf, sizeof(buf), CTL_SWITCH, 1, in), -E2BIG);
	assert_int_equal(ctl_build_request(buf, 3, CTL_OFF, 0, NULL), -E2BIG);
}

static void test_reply_roundtrip(void **state)
{
	static char big[CTL_MSG_MAX + 10];
	const char *text;
	int32_t status;
	int n;

	n = ctl_build_reply(buf, sizeof(buf), -EBUSY, "busy", 4);
	assert_int_equal(ctl_parse_reply(buf, n, &status, &text), 0);
	assert_int_equal(status, -EBUSY);
	assert_string_equal(text, "busy");
	/* Text longer than a datagram is cut and stays NUL-terminated. */
	memset(big, 'y', sizeof(big));
	n = ctl_build_reply(buf, sizeof(buf), 0, big, sizeof(big));
	assert_int_equal(n, CTL_MSG_MAX);
	assert_int_equal(ctl_parse_reply(buf, n, &status, &text), 0);
	assert_int_equal(strlen(text), CTL_MSG_MAX - sizeof(struct ctl_hdr) -
			 sizeof(struct ctl_reply_body) - 1);
	assert_int_equal(ctl_build_reply(buf, 8, 0, "", 0), -EMSGSIZE);
}

static void test_reply_malformed(void **state)
{
	struct ctl_hdr h;
	const char *text;
	int32_t status;
	int n;

	n = ctl_build_reply(buf, sizeof(buf), 0, "ok", 2);
	/* short: no status, or no text */
	assert_int_equal(ctl_parse_reply(buf, 3, &status, &text), -EBADMSG);
	assert_int_equal(ctl_parse_reply(buf, sizeof(h) + 4, &status, &text), -EBADMSG);
	/* length past the end */
	assert_int_equal(ctl_parse_reply(buf, n - 1, &status, &text), -EBADMSG);
	/* text without its NUL */
	buf[n - 1] = '!';
	assert_int_equal(ctl_parse_reply(buf, n, &status, &text), -EBADMSG);
	/* not a reply */
	n = ctl_build_reply(buf, sizeof(buf), 0, "ok", 2);
	memcpy(&h, buf, sizeof(h));
	h.type = CTL_STATUS;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(ctl_parse_reply(buf, n, &status, &text), -EBADMSG);
}

static void test_event_roundtrip(void **state)
{
	struct ctl_event in = { .kind = "switch-done", .function = "",
				.detail = "switched to mtp,adb", .code = -5,
				.time_ms = 1796464000123LL }, out;
	int n = ctl_build_event(buf, sizeof(buf), &in);

	assert_true(n > 0);
	assert_int_equal(ctl_parse_event(buf, n, &out), 0);
	assert_string_equal(out.kind, "switch-done");
	assert_string_equal(out.function, "");
	assert_string_equal(out.detail, "switched to mtp,adb");
	assert_int_equal(out.code, -5);
	assert_true(out.time_ms == 1796464000123LL);
	/* A reply is no event, and a cut datagram no event either. */
	assert_int_equal(ctl_parse_event(buf, n - 1, &out), -EBADMSG);
	n = ctl_build_reply(buf, sizeof(buf), 0, "x", 1);
	assert_int_equal(ctl_parse_event(buf, n, &out), -EBADMSG);
	assert_int_equal(ctl_build_event(buf, 4, &in), -E2BIG);
}

/* Codes and times that are not plain decimal numbers in range. */
static void test_event_malformed(void **state)
{
	static const char *bad[][2] = {
		{ "x", "1" }, { "", "1" }, { "1", "-1" }, { "2147483648", "1" },
		{ "1", "99999999999999999999" }, { "1 ", "1" },
	};
	struct ctl_event out;
	struct ctl_hdr h = { .type = CTL_EVENT };
	unsigned i;
	int n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[5] = { "host", "", "configured", (char *)bad[i][0],
				  (char *)bad[i][1] };

		n = ctl_build_request(buf, sizeof(buf), CTL_EVENT, 5, argv);
		assert_true(n > 0);
		assert_int_equal(ctl_parse_event(buf, n, &out), -EBADMSG);
	}
	/* Four strings only. */
	n = ctl_build_request(buf, sizeof(buf), CTL_EVENT, 4,
			      (char *[]){ "host", "", "x", "0" });
	assert_int_equal(ctl_parse_event(buf, n, &out), -EBADMSG);
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(ctl_parse_event(buf, sizeof(h), &out), -EBADMSG);
}

static void test_args_ok(void **state)
{
	static const char payload[] = "--profile\0lab\0mtp,adb";
	char *argv[8];

	assert_int_equal(ctl_parse_args(payload, sizeof(payload), argv, 8), 3);
	assert_string_equal(argv[0], "--profile");
	assert_string_equal(argv[1], "lab");
	assert_string_equal(argv[2], "mtp,adb");
	assert_int_equal(ctl_parse_args(payload, 0, argv, 8), 0);
}

static void test_args_malformed(void **state)
{
	static const char unterminated[] = { 'a', 'b', '\0', 'c' };
	char *argv[2];

	/* The last string runs past the datagram. */
	assert_int_equal(ctl_parse_args(unterminated, sizeof(unterminated), argv, 8),
			 -EINVAL);
	/* More arguments than the caller takes. */
	assert_int_equal(ctl_parse_args("a\0b\0c", 6, argv, 2), -EINVAL);
	/* One byte, no terminator. */
	assert_int_equal(ctl_parse_args("x", 1, argv, 2), -EINVAL);
	/* Empty strings are still strings. */
	assert_int_equal(ctl_parse_args("\0\0", 2, argv, 2), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_ok),
		cmocka_unit_test(test_args_malformed),
		cmocka_unit_test(test_request_roundtrip),
		cmocka_unit_test(test_request_malformed),
		cmocka_unit_test(test_request_too_big),
		cmocka_unit_test(test_reply_roundtrip),
		cmocka_unit_test(test_reply_malformed),
		cmocka_unit_test(test_event_roundtrip),
		cmocka_unit_test(test_event_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
