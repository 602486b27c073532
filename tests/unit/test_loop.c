/* common/loop.c alone: watches removed during a round (their own and
 * others'), nested dispatch refused, idle callbacks and destroy callbacks.
 * ASan reports a watch freed while a round still holds its event. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static struct loop *test_loop;
static int calls, nested_rc, destroyed;
static struct loop_watch *watches[2];
static char order[64];

static void note(char c)
{
	size_t n = strlen(order);

	order[n] = c;
	order[n + 1] = '\0';
}

static void on_destroy(void *data)
{
	destroyed++;
	if (data)
		note(*(char *)data);
}

static int setup(void **state)
{
	test_loop = loop_new();
	assert_non_null(test_loop);
	calls = nested_rc = destroyed = 0;
	watches[0] = watches[1] = NULL;
	order[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	loop_free(test_loop);
	return 0;
}

/* Two readable pipes; their read ends go to the loop. */
static void two_pipes(int a[2], int b[2], loop_io_fn fn)
{
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "x", 1), 1);
	watches[0] = loop_add_fd(test_loop, a[0], EPOLLIN, fn, NULL);
	watches[1] = loop_add_fd(test_loop, b[0], EPOLLIN, fn, NULL);
	assert_non_null(watches[0]);
	assert_non_null(watches[1]);
}

static void on_nested(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	calls++;
	nested_rc = loop_dispatch(test_loop, 0);
	loop_watch_remove(w);
}

/* A callback cannot run the loop again: the call is refused, and the
 * outer round goes on with both events. */
static void test_nested_dispatch_refused(void **state)
{
	int a[2], b[2];

	two_pipes(a, b, on_nested);
	assert_int_equal(loop_dispatch(test_loop, 100), 2);
	assert_int_equal(calls, 2);
	assert_int_equal(nested_rc, -EDEADLK);
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	close(a[1]);
	close(b[1]);
}

/* Whichever callback runs first removes both watches: the other one's
 * event, already in this round's array, is not dispatched, and its fd is
 * closed at once. */
static void on_remove_both(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	calls++;
	loop_watch_remove(watches[0]);
	loop_watch_remove(watches[1]);
	/* Still valid memory until the round ends. */
	loop_watch_remove(w);
}

static void test_remove_other_during_round(void **state)
{
	int a[2], b[2];

	two_pipes(a, b, on_remove_both);
	loop_watch_set_destroy(watches[0], on_destroy);
	loop_watch_set_destroy(watches[1], on_destroy);
	assert_int_equal(loop_dispatch(test_loop, 100), 1);
	assert_int_equal(calls, 1);
	assert_int_equal(destroyed, 2);
	assert_int_equal(fcntl(a[0], F_GETFD), -1);
	assert_int_equal(fcntl(b[0], F_GETFD), -1);
	close(a[1]);
	close(b[1]);
}

static void on_remove_self(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	calls++;
	loop_watch_remove(w);
	/* The destroy callback waits for the end of the round. */
	assert_int_equal(destroyed, 0);
}

static void test_destroy_after_round(void **state)
{
	static char tag = 'd';
	int a[2], b[2];

	assert_int_equal(pipe(a), 0);
	assert_int_equal(write(a[1], "x", 1), 1);
	watches[0] = loop_add_fd(test_loop, a[0], EPOLLIN, on_remove_self, &tag);
	loop_watch_set_destroy(watches[0], on_destroy);
	assert_int_equal(loop_dispatch(test_loop, 100), 1);
	assert_int_equal(destroyed, 1);
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	assert_int_equal(destroyed, 1);

	/* Removed outside a round: destroyed by the next one. */
	assert_int_equal(pipe(b), 0);
	watches[1] = loop_add_fd(test_loop, b[0], EPOLLIN, on_remove_self, &tag);
	loop_watch_set_destroy(watches[1], on_destroy);
	loop_watch_remove(watches[1]);
	assert_int_equal(destroyed, 1);
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	assert_int_equal(destroyed, 2);
	close(a[1]);
	close(b[1]);
}

static void on_idle(struct loop_watch *w, void *data)
{
	note(*(char *)data);
}

static void on_idle_again(struct loop_watch *w, void *data)
{
	static char tag = 'J';

	note('j');
	loop_add_idle(test_loop, on_idle, &tag);
}

static void on_readable_add_idle(struct loop_watch *w, int fd, uint32_t events,
				 void *data)
{
	static char tag = 'i';
	char c;

	note('r');
	assert_int_equal(read(fd, &c, 1), 1);
	loop_add_idle(test_loop, on_idle, &tag);
}

/* Idle callbacks run after the round's events, once; one added by an idle
 * callback waits for the next round; a due idle callback keeps the loop
 * from waiting for events. */
static void test_idle_order(void **state)
{
	static char tag_j;
	int a[2];
	uint64_t t0;

	assert_int_equal(pipe(a), 0);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_non_null(loop_add_fd(test_loop, a[0], EPOLLIN, on_readable_add_idle, NULL));
	assert_int_equal(loop_dispatch(test_loop, 100), 2);
	assert_string_equal(order, "ri");
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	assert_string_equal(order, "ri");

	assert_non_null(loop_add_idle(test_loop, on_idle_again, &tag_j));
	t0 = loop_now_ms();
	assert_int_equal(loop_dispatch(test_loop, 5000), 1);
	assert_string_equal(order, "rij");
	assert_int_equal(loop_dispatch(test_loop, 5000), 1);
	assert_string_equal(order, "rijJ");
	/* Neither waited its 5 s: one that had would make the two take
	 * 5 s or more. Nothing tighter, so that a stall of the test
	 * (qemu-user on a loaded machine) is no failure. */
	assert_true(loop_now_ms() - t0 < 5000);
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	close(a[1]);
}

/* An idle watch removed before it ran never runs, and is destroyed. */
static void test_idle_cancel(void **state)
{
	static char tag_x = 'x', tag_y = 'y';
	struct loop_watch *w;

	w = loop_add_idle(test_loop, on_idle, &tag_x);
	assert_non_null(w);
	loop_watch_set_destroy(w, on_destroy);
	w = loop_add_idle(test_loop, on_idle, &tag_y);
	loop_watch_set_destroy(w, on_destroy);
	loop_watch_remove(w);
	assert_int_equal(loop_dispatch(test_loop, 0), 1);
	/* x ran, then both were destroyed (the list is newest first). */
	assert_string_equal(order, "xyx");
	assert_int_equal(destroyed, 2);
}

/* loop_free() lets go of what is left: the destroy callbacks run. */
static void test_free_destroys(void **state)
{
	static char tag_f = 'f', tag_g = 'g';
	struct loop_watch *w;
	int a[2];

	assert_int_equal(pipe(a), 0);
	w = loop_add_fd(test_loop, a[0], EPOLLIN, on_remove_self, &tag_f);
	loop_watch_set_destroy(w, on_destroy);
	w = loop_add_idle(test_loop, on_idle, &tag_g);
	loop_watch_set_destroy(w, on_destroy);
	loop_free(test_loop);
	test_loop = loop_new();
	assert_int_equal(destroyed, 2);
	assert_int_equal(fcntl(a[0], F_GETFD), -1);
	close(a[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nested_dispatch_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_other_during_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_after_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_destroys, setup, teardown),
	};

	return cmocka_run_group_tests_name("loop", tests, NULL, NULL);
}
