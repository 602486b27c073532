/* gadgetd/loop.c: a watch removed in a nested loop_dispatch() while the
 * outer round still holds its event is neither freed under the outer
 * round nor dispatched (ASan reports the first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "loop.h"

#include <unistd.h>

static struct loop *test_loop;
static int depth, calls;

/* Outermost call: run one nested round. Nested calls: remove the watch,
 * so that whichever watch the outer round has not reached yet is dead. */
static void on_readable(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	calls++;
	if (depth == 0) {
		depth++;
		loop_dispatch(test_loop, 0);
		depth--;
		return;
	}
	loop_watch_remove(w);
}

static void test_nested_remove(void **state)
{
	int a[2], b[2];

	test_loop = loop_new();
	assert_non_null(test_loop);
	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	assert_int_equal(write(a[1], "x", 1), 1);
	assert_int_equal(write(b[1], "x", 1), 1);
	assert_non_null(loop_add_fd(test_loop, a[0], EPOLLIN, on_readable, NULL));
	assert_non_null(loop_add_fd(test_loop, b[0], EPOLLIN, on_readable, NULL));
	assert_int_equal(loop_dispatch(test_loop, 100), 2);
	/* The outer call and two nested ones; the dead watch is skipped. */
	assert_int_equal(calls, 3);
	/* Both watches are gone now: nothing more to dispatch. */
	assert_int_equal(loop_dispatch(test_loop, 0), 0);
	close(a[1]);
	close(b[1]);
	loop_free(test_loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_remove),
	};

	return cmocka_run_group_tests_name("loop", tests, NULL, NULL);
}
