/*
 * The gadget as dispatch.c sees it in fuzz_control and fuzz_dbus: never
 * busy, so that every request runs at once (each fuzzer fakes the calls
 * that run it). Nothing waits, so the queue's calls are never made.
 */
#include "gadget.h"
#include "profile.h"

#include <stdlib.h>

bool gadget_busy(const struct gadget *g)
{
	return false;
}

int gadget_refuse_busy(const struct gadget *g, char *msg, size_t size)
{
	abort();
}

void gadget_set_waiters(struct gadget *g, const struct gadget_waiters *w, void *data)
{
}

void gadget_kick_waiters(struct gadget *g)
{
	abort();
}

const struct profile *gadget_target_profile(const struct gadget *g)
{
	abort();
}

int profile_set_find(const struct profile *p, const char *request, char *err,
		     size_t size)
{
	abort();
}
