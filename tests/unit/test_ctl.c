/* Control socket protocol (protocol.c), the state file (state.c) and the
 * peer's identity on the control socket (access_peer.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"
#include "protocol.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

static void test_state_round_trip(void **state)
{
	char dir[] = "/tmp/test_state.XXXXXX", path[128], prof[64], set[64];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/state", dir);
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), -ENOENT);
	assert_int_equal(state_save(path, "lab", "mtp,adb"), 0);
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), 0);
	assert_string_equal(prof, "lab");
	assert_string_equal(set, "mtp,adb");
	assert_int_equal(state_save(path, "lab", ""), 0);
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), 0);
	assert_string_equal(set, "");
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_state_malformed(void **state)
{
	char path[] = "/tmp/test_state_bad.XXXXXX", prof[8], set[8];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "profile=lab\n", 12), 12);
	close(fd);
	/* No set= line: not a state file gadgetd wrote. */
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), -EINVAL);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "garbage\n\n\x01\x02\nset=verylongname,another\nprofile=x\n", 47), 47);
	close(fd);
	/* Truncated to the buffer, never overflowing it. */
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), 0);
	assert_string_equal(set, "verylon");
	unlink(path);
}

/* The remembered profile never reaches a path unchecked: a state file
 * naming "../../tmp/x" (or a name too long for the buffer) is no state. */
static void test_state_profile_name(void **state)
{
	static const char *const bad[] = {
		"profile=../../tmp/x\nset=acm\n", "profile=Lab\nset=acm\n",
		"profile=\nset=acm\n", "profile=a/b\nset=acm\n",
		"profile=abcdefghijk\nset=acm\n",
	};
	char path[] = "/tmp/test_state_name.XXXXXX", prof[8], set[8];
	size_t i;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		fd = open(path, O_WRONLY | O_TRUNC);
		assert_int_equal(write(fd, bad[i], strlen(bad[i])), (ssize_t)strlen(bad[i]));
		close(fd);
		if (state_load(path, prof, sizeof(prof), set, sizeof(set)) != -EINVAL)
			fail_msg("state \"%s\" accepted", bad[i]);
	}
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "profile=lab_2-x\nset=acm\n", 24), 24);
	close(fd);
	assert_int_equal(state_load(path, prof, sizeof(prof), set, sizeof(set)), 0);
	assert_string_equal(prof, "lab_2-x");
	unlink(path);
}

/* The kernel's record of a real peer: ourselves, over a socketpair. */
static void test_peer_identify(void **state)
{
	struct access_policy p = { .group = "g", .group_gid = getgid(),
				   .admin_group = "a", .admin_gid = 4242 };
	struct access_peer peer;
	int sv[2], status;
	pid_t pid;

	/* Never our group: not a member of anything. */
	while (p.admin_gid == getgid())
		p.admin_gid++;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(access_peer_identify(sv[0], &p, &peer), 0);
	assert_int_equal(peer.uid, getuid());
	assert_int_equal(peer.pid, getpid());
	assert_true(peer.in_group);
	assert_int_equal(peer.in_admin, false);
	/* A supplementary group counts like the primary one: a child with
	 * group 4242 added (we run as root) is admin. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int cv[2];
		gid_t g = 4242;

		if (setgroups(1, &g) < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, cv) < 0 ||
		    access_peer_identify(cv[0], &p, &peer) < 0)
			_exit(2);
		_exit(peer.in_admin && peer.in_group ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* No group configured: a gid of 0 in the policy matches nothing. */
	p.group = NULL;
	p.admin_group = NULL;
	assert_int_equal(access_peer_identify(sv[0], &p, &peer), 0);
	assert_false(peer.in_group);
	assert_false(peer.in_admin);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(access_peer_identify(sv[0], &p, &peer), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_ok),
		cmocka_unit_test(test_args_malformed),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_malformed),
		cmocka_unit_test(test_state_profile_name),
		cmocka_unit_test(test_peer_identify),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
