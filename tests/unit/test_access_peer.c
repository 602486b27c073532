/* gadgetd/front/access_peer.c: who a control socket peer is, from the kernel's
 * record (SO_PEERCRED) and its groups, primary and supplementary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "access.h"

#include <errno.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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
		cmocka_unit_test(test_peer_identify),
	};

	return cmocka_run_group_tests_name("access_peer", tests, NULL, NULL);
}
