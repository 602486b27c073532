/*
 * run_until: how a unit test waits for what its loop brings about (a
 * child's start or exit, a reply over a socket, a timer's work).
 *
 * A test waits for the condition, never for a fixed time: under qemu-user
 * on a loaded CI machine (make check-cross) a child's start, a reply or an
 * exit takes many times what it takes natively, seconds at times, and a
 * fixed wait then ends before what it waited for. Even in one process, a
 * fixed time can end after fewer rounds of the loop than the work needs
 * when one round is slow. The bound of 30 s is only there so that a broken
 * test fails instead of hanging; the caller asserts the condition after
 * the wait, which says what did not happen.
 *
 * test_supervisor.c, test_control.c and the others use it alike.
 */
#ifndef GADGETD_RUN_UNTIL_H
#define GADGETD_RUN_UNTIL_H

#include <stdint.h>
#include <time.h>

#include "loop.h"

/* How long a test waits for a condition before it gives up. */
#define RUN_UNTIL_MS 30000

/* The monotonic clock in ms, for tests that have no loop (loop_now_ms()
 * reads the same clock). */
static inline uint64_t run_until_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Do step (a statement: turning a loop, pumping a bus, a short sleep)
 * until cond holds, for at most RUN_UNTIL_MS. */
#define WAIT_UNTIL(cond, step)                                                 \
	for (uint64_t until_ = run_until_now_ms() + RUN_UNTIL_MS;              \
	     !(cond) && run_until_now_ms() < until_;)                          \
		step

/* Run loop until cond holds, for at most RUN_UNTIL_MS. */
#define RUN_UNTIL(loop, cond) WAIT_UNTIL(cond, loop_dispatch((loop), 20))

#endif
