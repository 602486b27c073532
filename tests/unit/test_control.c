/* The control socket server (control.c) against a faked gadget: every
 * malformed request gets a clear refusal and nothing reaches the gadget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control.h"
#include "gadget.h"
#include "loop.h"
#include "protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char last_switch[256];
static int gadget_calls;
static bool fake_busy;

int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size)
{
	gadget_calls++;
	snprintf(last_switch, sizeof(last_switch), "%s|%s", profile ? profile : "-",
		 set ? set : "-");
	if (set && !strcmp(set, "nosuch")) {
		snprintf(msg, size, "unknown function \"nosuch\"");
		return -ENOENT;
	}
	snprintf(msg, size, "switched to %s", set ? set : "default");
	return 0;
}

int gadget_off(struct gadget *g, char *msg, size_t size)
{
	gadget_calls++;
	snprintf(msg, size, "gadget is off");
	return 0;
}

int gadget_reload(struct gadget *g, char *msg, size_t size)
{
	gadget_calls++;
	return 0;
}

void gadget_status(struct gadget *g, FILE *out, bool json)
{
	fprintf(out, json ? "{\"set\":\"acm\"}\n" : "set: acm\n");
}

void gadget_list(struct gadget *g, FILE *out)
{
	fprintf(out, "sets:\n");
}

int gadget_function_command(struct gadget *g, int argc, char **argv,
			    char *reply, size_t size)
{
	gadget_calls++;
	snprintf(reply, size, "%s said %s", argv[0], argc > 1 ? argv[1] : "");
	return 0;
}

bool gadget_busy(const struct gadget *g)
{
	return fake_busy;
}

struct fixture {
	struct loop *loop;
	struct control *ctl;
	char path[108];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->loop = loop_new();
	snprintf(f->path, sizeof(f->path), "/tmp/test_control.%d", getpid());
	f->ctl = control_new(f->loop, f->path, NULL, (struct gadget *)f);
	assert_non_null(f->ctl);
	gadget_calls = 0;
	fake_busy = false;
	last_switch[0] = '\0';
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	control_free(f->ctl);
	loop_free(f->loop);
	assert_int_equal(access(f->path, F_OK), -1);
	free(f);
	return 0;
}

/* Send raw bytes, run the loop until the reply comes, return its status
 * and copy its text. */
static int32_t roundtrip(struct fixture *f, const void *req, size_t len,
			 char *text, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[CTL_MSG_MAX];
	struct ctl_hdr h;
	struct ctl_reply_body b;
	ssize_t n = -1;
	int fd, i;

	strcpy(sa.sun_path, f->path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(fd, req, len, 0), (ssize_t)len);
	for (i = 0; i < 20 && n < 0; i++) {
		loop_dispatch(f->loop, 50);
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	}
	close(fd);
	loop_dispatch(f->loop, 10); /* let the server see the hang-up */
	assert_true(n >= (ssize_t)(sizeof(h) + sizeof(b) + 1));
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(h.type, CTL_REPLY);
	assert_int_equal(h.len, n - sizeof(h));
	assert_int_equal(buf[n - 1], '\0');
	memcpy(&b, buf + sizeof(h), sizeof(b));
	snprintf(text, size, "%s", buf + sizeof(h) + sizeof(b));
	return b.status;
}

static size_t request(char *buf, uint16_t type, const char *args, size_t args_len)
{
	struct ctl_hdr h = { .type = type, .len = args_len };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), args, args_len);
	return sizeof(h) + args_len;
}

static void test_switch_ok(void **state)
{
	struct fixture *f = *state;
	char req[256], text[256];
	size_t n = request(req, CTL_SWITCH, "--profile\0lab\0mtp,adb", 22);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), 0);
	assert_string_equal(last_switch, "lab|mtp,adb");
	assert_string_equal(text, "switched to mtp,adb\n");
}

static void test_switch_error_passes_through(void **state)
{
	struct fixture *f = *state;
	char req[256], text[256];
	size_t n = request(req, CTL_SWITCH, "nosuch", 7);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -ENOENT);
	assert_non_null(strstr(text, "nosuch"));
}

static void test_status_json(void **state)
{
	struct fixture *f = *state;
	char req[256], text[256];
	size_t n = request(req, CTL_STATUS, "json", 5);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), 0);
	assert_string_equal(text, "{\"set\":\"acm\"}\n");
}

static void test_short_header(void **state)
{
	struct fixture *f = *state;
	char text[256];

	assert_int_equal(roundtrip(f, "\x01\x00", 2, text, sizeof(text)), -EBADMSG);
	assert_non_null(strstr(text, "malformed request"));
	assert_int_equal(gadget_calls, 0);
}

static void test_length_mismatch(void **state)
{
	struct fixture *f = *state;
	struct ctl_hdr h = { .type = CTL_SWITCH, .len = 100 };
	char req[64], text[256];

	memcpy(req, &h, sizeof(h));
	memcpy(req + sizeof(h), "acm", 4);
	assert_int_equal(roundtrip(f, req, sizeof(h) + 4, text, sizeof(text)), -EBADMSG);
	assert_non_null(strstr(text, "length 100"));
	assert_int_equal(gadget_calls, 0);
}

static void test_unterminated_args(void **state)
{
	struct fixture *f = *state;
	char req[64], text[256];
	size_t n = request(req, CTL_SWITCH, "acm,ecm", 7); /* no NUL */

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -EBADMSG);
	assert_non_null(strstr(text, "NUL-terminated"));
	assert_int_equal(gadget_calls, 0);
}

static void test_unknown_type(void **state)
{
	struct fixture *f = *state;
	char req[64], text[256];
	size_t n = request(req, 77, "", 0);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -EBADMSG);
	assert_non_null(strstr(text, "unknown request type 77"));
	assert_int_equal(gadget_calls, 0);
}

static void test_switch_arity(void **state)
{
	struct fixture *f = *state;
	char req[64], text[256];
	size_t n = request(req, CTL_SWITCH, "a\0b", 4);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -EINVAL);
	assert_non_null(strstr(text, "one set"));
	n = request(req, CTL_SWITCH, "", 0);
	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -EINVAL);
	assert_int_equal(gadget_calls, 0);
}

static void test_busy_refuses_changes_not_status(void **state)
{
	struct fixture *f = *state;
	char req[64], text[256];
	size_t n = request(req, CTL_OFF, "", 0);

	fake_busy = true;
	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), -EBUSY);
	assert_non_null(strstr(text, "in progress"));
	n = request(req, CTL_STATUS, "", 0);
	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), 0);
	assert_int_equal(gadget_calls, 0);
}

static void test_function_command(void **state)
{
	struct fixture *f = *state;
	char req[64], text[256];
	size_t n = request(req, CTL_FUNCTION, "adb\0keys", 9);

	assert_int_equal(roundtrip(f, req, n, text, sizeof(text)), 0);
	assert_string_equal(text, "adb said keys\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_error_passes_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_length_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unterminated_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_switch_arity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_refuses_changes_not_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_function_command, setup, teardown),
	};

	return cmocka_run_group_tests_name("control", tests, NULL, NULL);
}
