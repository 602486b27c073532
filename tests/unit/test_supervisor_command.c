/*
 * gadgetd/supervisor/supervisor_command.c alone: the keys file gadgetd
 * appends to for a worker's `allow` (WORKER_KEY, issue 37: the file is root's
 * so that an adb shell, running as the worker's user, cannot write it). Only
 * an `allow` in flight opens it, for one line of text; never through a
 * symbolic link or into a file of several links. Over a real socketpair, in a
 * temporary folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "loop.h"
#include "supervisor.h"
#include "supervisor_int.h"
#include "wmsg.h"

static struct supervisor sup;
static const struct config sup_cfg = { .command_timeout_ms = 5000 };
static struct sup_worker wk;
static int worker_end = -1;
static char dir[64], keys[128];
static unsigned replies;

/* supervisor.c's, for the one worker here. */
struct sup_worker *supervisor_find(struct supervisor *s, const char *name)
{
	return strcmp(name, wk.name) ? NULL : &wk;
}

static void on_reply(int rc, const char *reply, void *data)
{
	replies++;
}

/* A ready worker of function "adb", plugin plugin, with the keys option
 * (NULL: none given). */
static void setup_worker(const char *plugin, const char *keys_opt)
{
	static struct profile_function f;
	static char key[] = "keys", value[256];
	int sv[2];

	memset(&f, 0, sizeof(f));
	if (keys_opt) {
		snprintf(value, sizeof(value), "%s", keys_opt);
		f.options[0] = (struct profile_option){ .key = key, .value = value };
		f.n_options = 1;
	}
	memset(&sup, 0, sizeof(sup));
	sup.loop = loop_new();
	sup.cfg = &sup_cfg;
	memset(&wk, 0, sizeof(wk));
	wk.sup = &sup;
	strcpy(wk.name, "adb");
	snprintf(wk.plugin, sizeof(wk.plugin), "%s", plugin);
	wk.gid = 65534;
	wk.ready = true;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	wk.sock = loop_add_fd(sup.loop, sv[0], EPOLLIN, NULL, NULL);
	worker_end = sv[1];
	supervisor_command_init(&wk, &f);
	replies = 0;
}

static void teardown_worker(void)
{
	supervisor_command_free_all(&sup);
	loop_watch_remove(wk.sock);
	loop_free(sup.loop);
	close(worker_end);
}

static int setup(void **state)
{
	strcpy(dir, "/tmp/test_supervisor_command.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(keys, sizeof(keys), "%s/adb_keys", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Relay `argv0 FP` to the worker; returns the command's id as the worker
 * reads it. */
static uint32_t relay(const char *argv0)
{
	char *argv[] = { (char *)argv0, "AA:BB", NULL };
	char *got[WMSG_MAX_ARGS + 1];
	uint8_t buf[WORKER_MSG_MAX], *payload;
	char reply[256];
	uint16_t type;
	uint32_t id;
	size_t len;
	ssize_t n;
	int argc;

	assert_int_equal(supervisor_command(&sup, "adb", 2, argv, reply,
					    sizeof(reply), on_reply, NULL),
			 -EINPROGRESS);
	n = recv(worker_end, buf, sizeof(buf), MSG_DONTWAIT);
	assert_true(n > 0);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_COMMAND);
	assert_int_equal(wmsg_parse_command(payload, len, &id, got, &argc), 0);
	assert_string_equal(got[0], argv0);
	return id;
}

/* The worker asks to add line for command id: gadgetd's answer. */
static int ask_key(uint32_t id, const char *line)
{
	uint8_t buf[WORKER_MSG_MAX], *payload;
	uint16_t type;
	uint32_t got;
	int32_t rc;
	size_t len;
	ssize_t n = wmsg_build_key(buf, sizeof(buf), id, line);

	assert_true(n > 0);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	supervisor_command_key(&wk, payload, len);
	n = recv(worker_end, buf, sizeof(buf), MSG_DONTWAIT);
	assert_true(n > 0);
	assert_int_equal(wmsg_parse(buf, n, &type, &payload, &len), 0);
	assert_int_equal(type, WORKER_KEY_DONE);
	assert_int_equal(wmsg_parse_key_done(payload, len, &got, &rc), 0);
	assert_int_equal(got, id);
	return rc;
}

static void assert_file(const char *path, const char *want)
{
	char buf[256] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* During an `allow`: one line, in a file made root's for the worker's
 * group to read; a second line for the same command is refused. */
static void test_key_added_during_allow(void **state)
{
	struct stat st;
	uint32_t id;

	setup_worker("adb", keys);
	id = relay("allow");
	assert_int_equal(ask_key(id, "QUJD user@host"), 0);
	assert_file(keys, "QUJD user@host\n");
	assert_int_equal(stat(keys, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	if (geteuid() == 0) {
		assert_int_equal(st.st_uid, 0);
		assert_int_equal(st.st_gid, 65534);
	}
	assert_int_equal(ask_key(id, "REVG other@host"), -EPERM);
	assert_file(keys, "QUJD user@host\n");
	/* The next allow adds its line after the first. */
	id = relay("allow");
	assert_int_equal(ask_key(id, "REVG other@host"), 0);
	assert_file(keys, "QUJD user@host\nREVG other@host\n");
	assert_int_equal(replies, 0); /* the commands still wait for the worker */
	teardown_worker();
}

/* A subverted worker asks on its own, or during a command that reads. */
static void test_key_refused_outside_allow(void **state)
{
	uint32_t id;

	setup_worker("adb", keys);
	assert_int_equal(ask_key(77, "QUJD user@host"), -EPERM);
	id = relay("keys");
	assert_int_equal(ask_key(id, "QUJD user@host"), -EPERM);
	assert_int_equal(access(keys, F_OK), -1);
	/* A malformed request gets no answer and changes nothing. */
	supervisor_command_key(&wk, (uint8_t *)"\1\0\0\0QUJD", 8);
	assert_int_equal(recv(worker_end, &id, sizeof(id), MSG_DONTWAIT), -1);
	assert_int_equal(access(keys, F_OK), -1);
	teardown_worker();
}

/* One line of text: a newline would add a key nobody was shown. */
static void test_key_line_checked(void **state)
{
	char long_line[2100];

	setup_worker("adb", keys);
	assert_int_equal(ask_key(relay("allow"), "QUJD a\nREVG b"), -EINVAL);
	assert_int_equal(ask_key(relay("allow"), "QUJD \x1b[2J"), -EINVAL);
	assert_int_equal(ask_key(relay("allow"), "QUJD \x7f"), -EINVAL);
	memset(long_line, 'A', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	assert_int_equal(ask_key(relay("allow"), long_line), -EINVAL);
	assert_int_equal(access(keys, F_OK), -1);
	assert_int_equal(ask_key(relay("allow"), "QUJD tab\there"), 0);
	assert_file(keys, "QUJD tab\there\n");
	teardown_worker();
}

/* An adb_keys made by copying adbkey.pub has no final newline: the line
 * added goes on a line of its own, or the next reload loses it in the
 * first key's comment. */
static void test_key_after_unterminated_line(void **state)
{
	int fd = open(keys, O_WRONLY | O_CREAT, 0640);

	assert_int_equal(write(fd, "QUJD first", 10), 10);
	close(fd);
	setup_worker("adb", keys);
	assert_int_equal(ask_key(relay("allow"), "REVG second"), 0);
	assert_file(keys, "QUJD first\nREVG second\n");
	teardown_worker();
}

/* The folder may be one the worker's user can write: no symbolic link is
 * followed, no file of several links written. */
static void test_key_no_link(void **state)
{
	char target[160], hard[160];
	int fd;

	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	close(fd);
	assert_int_equal(symlink(target, keys), 0);
	setup_worker("adb", keys);
	assert_int_equal(ask_key(relay("allow"), "QUJD user@host"), -ELOOP);
	assert_file(target, "");
	assert_int_equal(unlink(keys), 0);
	snprintf(hard, sizeof(hard), "%s/hard", dir);
	assert_int_equal(link(target, hard), 0);
	assert_int_equal(rename(hard, keys), 0);
	assert_int_equal(ask_key(relay("allow"), "QUJD user@host"), -EMLINK);
	assert_file(target, "");
	teardown_worker();
}

/* Without the option, the plugin's default; a plugin without keys has
 * no file to add to. */
static void test_key_file_of_plugin(void **state)
{
	setup_worker("adb", NULL);
	assert_string_equal(wk.keys, SYSCONFDIR "/gadgetd/adb_keys");
	teardown_worker();
	setup_worker("mtp", NULL);
	assert_string_equal(wk.keys, "");
	assert_int_equal(ask_key(relay("allow"), "QUJD user@host"), -ENOENT);
	teardown_worker();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_key_added_during_allow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_refused_outside_allow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_line_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_after_unterminated_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_no_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_key_file_of_plugin, setup, teardown),
	};

	log_init("test_supervisor_command", true, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
