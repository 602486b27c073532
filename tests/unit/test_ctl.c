/* Control socket protocol (common/ctl.c) and the peer's identity on the
 * control socket (access_peer.c); the state file is test_state's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"
#include "ctl.h"

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
		cmocka_unit_test(test_peer_identify),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
