/*
 * The worker's end of the spawner (functions/runtime/spawner.c) against a
 * spawner played by the test on the other end of the socket, which answers
 * when the test says: the loop goes on serving while a spawn waits, replies
 * reach their callers in order, a cancelled call's late program is ended,
 * a silent spawner times out and a vanished one fails every call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"
#include "run_until.h"
#include "spawner.h"

struct fx {
	struct loop *loop;
	struct spawner *sp;
	int peer; /* the played spawner's end */
};

struct result {
	int calls;
	int err;
	struct spawner_child ch;
	unsigned order; /* ticks seen when done ran */
};

static unsigned ticks;

static void on_done(void *data, int err, const struct spawner_child *ch)
{
	struct result *r = data;

	r->calls++;
	r->err = err;
	r->order = ticks;
	if (ch)
		r->ch = *ch;
}

static void on_tick(struct loop_watch *w, void *data)
{
	ticks++;
	loop_timer_rearm(w, 10);
}

static int setup(void **state)
{
	static struct fx f;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
				    sv), 0);
	f.loop = loop_new();
	assert_non_null(f.loop);
	f.sp = spawner_new(f.loop, sv[0]);
	assert_non_null(f.sp);
	f.peer = sv[1];
	ticks = 0;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	spawner_free(f->sp);
	if (f->peer >= 0)
		close(f->peer);
	loop_free(f->loop);
	return 0;
}

static const struct spawner_cmd cmd_true = { .cmd = "true" };

/* The played spawner takes one request: it must be cmd's. */
static void peer_take(struct fx *f, const char *cmd)
{
	uint8_t buf[SPAWNER_MSG_MAX];
	struct spawner_cmd c;
	ssize_t n = recv(f->peer, buf, sizeof(buf), MSG_DONTWAIT);

	assert_true(n > 0);
	assert_int_equal(spawner_req_parse(buf, n, &c), 0);
	assert_string_equal(c.cmd, cmd);
}

/* The played spawner answers with pid and four pipes' worker ends; keep[]
 * gets the other ends. */
static void peer_answer(struct fx *f, pid_t pid, int keep[4])
{
	struct spawner_rep rep = { .err = 0, .pid = pid };
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = &rep, .iov_len = sizeof(rep) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int give[4], p[2], i;

	for (i = 0; i < 4; i++) {
		assert_int_equal(pipe2(p, O_CLOEXEC), 0);
		give[i] = p[0];
		keep[i] = p[1];
	}
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(give));
	memcpy(CMSG_DATA(cm), give, sizeof(give));
	assert_int_equal(sendmsg(f->peer, &mh, 0), sizeof(rep));
	for (i = 0; i < 4; i++)
		close(give[i]);
}

static void peer_refuse(struct fx *f, int err)
{
	struct spawner_rep rep = { .err = err };

	assert_int_equal(send(f->peer, &rep, sizeof(rep), 0), sizeof(rep));
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Dispatch until r has its answer (at most RUN_UNTIL_MS). */
static void wait_done(struct fx *f, struct result *r)
{
	RUN_UNTIL(f->loop, r->calls);
}

/*
 * The point of it all: spawner_spawn() returns at once, and while the
 * spawner takes its time the loop runs its other watches (for the worker,
 * gadgetd's heartbeats and the host's bytes).
 */
static void test_loop_serves_during_slow_spawn(void **state)
{
	struct fx *f = *state;
	struct loop_watch *tick = loop_add_timer(f->loop, 10, on_tick, NULL);
	struct spawner_call *call;
	struct result r = { 0 };
	uint64_t t0 = loop_now_ms();
	int keep[4];

	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r, &call),
			 0);
	/* At once: a call that waited for the answer would not return
	 * before the played spawner gives it, below. 3 s leaves room for a
	 * stall of the test (qemu-user on a loaded machine). */
	assert_true(loop_now_ms() - t0 < 3000);
	assert_int_equal(r.calls, 0); /* never from spawner_spawn itself */
	/* A spawner that does not answer: the loop ticks on. Five ticks,
	 * not a fixed 300 ms, which a slow round could fill with fewer. */
	RUN_UNTIL(f->loop, ticks >= 5);
	assert_true(ticks >= 5);
	assert_int_equal(r.calls, 0);
	peer_take(f, "true");
	peer_answer(f, 4242, keep);
	wait_done(f, &r);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, 0);
	assert_true(r.order >= 5);
	assert_int_equal(r.ch.pid, 4242);
	assert_true(r.ch.in >= 0 && r.ch.out >= 0 && r.ch.err >= 0 &&
		    r.ch.status >= 0);
	/* The fds are the caller's: the status pipe works. */
	assert_int_equal(write(keep[3], "x", 1), 1);
	{
		char c;

		assert_int_equal(read(r.ch.status, &c, 1), 1);
	}
	close(r.ch.in);
	close(r.ch.out);
	close(r.ch.err);
	close(r.ch.status);
	close_all(keep, 4);
	loop_watch_remove(tick);
}

/* Replies come back in order, each to its caller, errors included. */
static void test_replies_in_order(void **state)
{
	struct fx *f = *state;
	struct spawner_call *c1, *c2;
	struct result r1 = { 0 }, r2 = { 0 };
	int keep[4];

	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r1, &c1),
			 0);
	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r2, &c2),
			 0);
	peer_take(f, "true");
	peer_take(f, "true");
	peer_refuse(f, -EAGAIN);
	peer_answer(f, 77, keep);
	wait_done(f, &r2);
	assert_int_equal(r1.calls, 1);
	assert_int_equal(r1.err, -EAGAIN);
	assert_int_equal(r2.calls, 1);
	assert_int_equal(r2.err, 0);
	assert_int_equal(r2.ch.pid, 77);
	close(r2.ch.in);
	close(r2.ch.out);
	close(r2.ch.err);
	close(r2.ch.status);
	close_all(keep, 4);
}

/* A cancelled call: no callback, and what its late reply carries is
 * closed (and its program killed). */
static void test_cancelled_call(void **state)
{
	struct fx *f = *state;
	struct spawner_call *call;
	struct result r = { 0 };
	int keep[4], i, ready[2];
	pid_t kid;
	char c;

	/* The child says when it is in its own session (a fixed 50 ms
	 * sleep was not enough for an arm64 child under qemu-user on the
	 * loaded CI machine: it was not yet, was not ended, and waitpid()
	 * below waited for ever). */
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		setsid();
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r, &call),
			 0);
	spawner_cancel(call);
	peer_take(f, "true");
	peer_answer(f, kid, keep);
	for (i = 0; i < 10; i++)
		loop_dispatch(f->loop, 20);
	assert_int_equal(r.calls, 0);
	/* Our ends were closed: writing to them fails. */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < 4; i++)
		assert_int_equal(write(keep[i], "x", 1), -1);
	close_all(keep, 4);
	/* ... and its program ended. */
	{
		int st;

		assert_int_equal(waitpid(kid, &st, 0), kid);
		assert_true(WIFSIGNALED(st));
	}
}

/* A request the spawner would refuse as malformed fails at once. */
static void test_malformed_refused_now(void **state)
{
	struct fx *f = *state;
	struct spawner_cmd c = { .reboot = true, .cmd = "/sbin/x" };
	struct spawner_call *call;
	struct result r = { 0 };
	char b;

	assert_int_equal(spawner_spawn(f->sp, &c, on_done, &r, &call),
			 -EBADMSG);
	assert_int_equal(recv(f->peer, &b, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

/* The spawner goes away: the call in flight and every later one fail. */
static void test_spawner_gone(void **state)
{
	struct fx *f = *state;
	struct spawner_call *call;
	struct result r = { 0 };

	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r, &call),
			 0);
	close(f->peer);
	f->peer = -1;
	wait_done(f, &r);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, -EPIPE);
	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r, &call),
			 -EPIPE);
}

/* A spawner that never answers: -ETIMEDOUT after 5 s, the loop serving
 * meanwhile; its late answer is then matched, not given to the next. */
static void test_timeout(void **state)
{
	struct fx *f = *state;
	struct loop_watch *tick = loop_add_timer(f->loop, 10, on_tick, NULL);
	struct spawner_call *call;
	struct result r = { 0 }, r2 = { 0 };
	uint64_t t0 = loop_now_ms();
	int keep[4];

	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r, &call),
			 0);
	wait_done(f, &r);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.err, -ETIMEDOUT);
	assert_true(loop_now_ms() - t0 >= 4900);
	/* The loop served during the wait: the tick is one-shot, armed
	 * again by on_tick, so a loop blocked for the 5 s would tick once.
	 * Not "100 ticks of 10 ms": that counts the CPU the process got,
	 * and arm64 under qemu-user, niced beside two VMs, got fewer
	 * (2026-12-07). */
	if (r.order < 5)
		fail_msg("%u ticks before the time-out's answer", r.order);
	/* The next call gets its own answer, not the late one. */
	assert_int_equal(spawner_spawn(f->sp, &cmd_true, on_done, &r2, &call),
			 0);
	peer_take(f, "true");
	peer_take(f, "true");
	peer_refuse(f, -EAGAIN); /* the late one */
	peer_answer(f, 99, keep);
	wait_done(f, &r2);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r2.err, 0);
	assert_int_equal(r2.ch.pid, 99);
	close(r2.ch.in);
	close(r2.ch.out);
	close(r2.ch.err);
	close(r2.ch.status);
	close_all(keep, 4);
	loop_watch_remove(tick);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_loop_serves_during_slow_spawn,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_replies_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cancelled_call, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed_refused_now,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawner_gone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
	};

	log_init("test_spawner", false, LOG_LEVEL_ERROR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
