/*
 * dispatch: where a client's request (request.h) runs, waits its turn or
 * is refused as busy, whichever front end it came through (the control
 * socket, control.c; D-Bus, dbus.c). The front ends decode into a struct
 * request, ask dispatch_check() (or polkit) whether the caller may make
 * it, hand it to dispatch_submit() and render the answer.
 *
 * The rule: a request that changes the gadget is refused (-EBUSY, the
 * gadget's words) while a switch, a plugin command or a teardown is in
 * progress, except a switch, a reload or an off, which waits its turn in
 * the clients' queue, at most switch_queue of them, each for at most
 * switch_queue_timeout (then -ETIME). Members of group leave the last
 * DISPATCH_QUEUE_RESERVED places to root and admin_group. An off goes to the
 * head: what waited before it is answered -ECANCELED, not run. The
 * gadget's own pending work (crashed workers, SIGHUP, a plugin's switch
 * request) runs before the clients' queue: the gadget says when it is
 * idle with nothing of its own to do (gadget_set_waiters()).
 *
 * A queued request is judged again by access_check() when it starts, on
 * the gadget as it is then: a member's "switch --profile P" queued while
 * P was active is refused (-EACCES) if an administrator's switch to
 * another profile ran first.
 */
#ifndef GADGETD_DISPATCH_H
#define GADGETD_DISPATCH_H

#include "gadget.h"

#include <stddef.h>
#include <stdio.h>

struct loop;
struct config;
struct access_peer;
struct access_policy;
struct access_view;
struct request;
struct dispatch;

#define DISPATCH_QUEUE_RESERVED 2

/* policy's strings are copied; cfg (switch_queue, switch_queue_timeout)
 * and g must outlive it. NULL when out of memory. */
struct dispatch *dispatch_new(struct loop *l, const struct config *cfg,
			      const struct access_policy *policy, struct gadget *g);
/* Every request still waiting is answered -ECANCELED ("gadgetd is
 * stopping"). Before gadget_free(), after the front ends. */
void dispatch_free(struct dispatch *d);

/* What of the gadget access_check() looks at for req, as it is now. */
void dispatch_view(struct dispatch *d, const struct request *req,
		   struct access_view *view);
/* May peer make req now? access_check() on dispatch_view(): 0, or
 * -EACCES with why saying what is refused and who may do it. */
int dispatch_check(struct dispatch *d, const struct access_peer *peer,
		   const struct request *req, char *why, size_t size);

/*
 * Carry out req (a switch, reload, off, plugin command or storage
 * request; an unknown one is refused, -EBADMSG) for peer, whom dispatch_check() or polkit allowed; a polkit
 * grant is peer as access_grant() makes it. The result, with msg
 * (storage status prints to out), or -EINPROGRESS: fn follows once, from
 * the loop, never from inside this call. req is copied when it waits.
 */
int dispatch_submit(struct dispatch *d, const struct access_peer *peer,
		    const struct request *req, char *msg, size_t size, FILE *out,
		    gadget_done_fn fn, void *data);
/* The caller behind data went away: its waiting requests are dropped,
 * the one that runs goes on, and no fn is called for data. */
void dispatch_cancel(struct dispatch *d, void *data);
/* How many requests wait their turn (status's `queued`). */
unsigned dispatch_queued(const struct dispatch *d);

#endif
