/*
 * The monotonic clock in milliseconds, for deadlines and durations, in
 * one place for every program (gadgetd, gadgetctl, the worker and its
 * plugins) without linking the event loop: loop_now_ms() is this too.
 * 64 bits everywhere: a 32-bit long holds the clock's ms for 24 days
 * only (armhf).
 */
#ifndef GADGETD_MONOTIME_H
#define GADGETD_MONOTIME_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif
