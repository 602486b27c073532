/*
 * control: the control socket. The socket is 0660 root:group (group from
 * gadgetd.conf; 0600 without one) and every request is checked against
 * the peer's credentials as the kernel recorded them (see access.h).
 *
 * At most max_clients connections are served at once; a further one gets
 * a "too many clients" reply and is closed. No user but root holds more
 * than per_uid of them, and the last `reserved` are kept for root and
 * admin_group, so that members of group cannot lock an administrator out;
 * a client refused so is told why (-EBUSY) and closed. A client that says
 * nothing for idle_ms is closed. When accept() runs out of file descriptors the socket
 * is not watched until a client leaves or a second has passed, so the
 * loop never spins on it.
 *
 * A request that goes on after it was read (a switch waiting for its
 * plugins, a plugin command) keeps its client pending: nothing more is
 * read from it until the reply is sent, and a client that hangs up
 * meanwhile is forgotten (dispatch_cancel()).
 *
 * A monitor (CTL_MONITOR, `gadgetctl monitor`) stays connected, takes one
 * of the max_clients slots and is never idle; it gets one CTL_EVENT per
 * event (event.h). What its socket does not take at once waits in a
 * queue of at most CONTROL_MONITOR_QUEUE datagrams; a monitor that falls
 * further behind is sent a last reply (-ENOBUFS) and closed. When
 * gadgetd stops, each monitor gets a last reply 0.
 */
#ifndef GADGETD_CONTROL_H
#define GADGETD_CONTROL_H

struct loop;
struct gadget;
struct dispatch;
struct control;
struct access_policy;

#define CONTROL_MAX_CLIENTS 16
#define CONTROL_MAX_PER_UID 4
#define CONTROL_RESERVED_CLIENTS 4
#define CONTROL_IDLE_MS 10000
#define CONTROL_RETRY_MS 1000
#define CONTROL_MONITOR_QUEUE 64
/* At most one log line per this many seconds for each kind of refusal a
 * peer can provoke at will; the next line after such a window says how
 * many were not logged. */
#define CONTROL_LOG_S 10

/* policy's strings are copied. What changes the gadget goes through d
 * (dispatch.h), which judges it; what only reads (status, list, monitor,
 * wait) is asked of g. */
struct control *control_new(struct loop *l, const char *path,
			    const struct access_policy *policy, struct gadget *g,
			    struct dispatch *d);
void control_free(struct control *c);

/* Other limits than the defaults above (tests, small boards). */
void control_set_limits(struct control *c, unsigned max_clients,
			unsigned idle_ms, unsigned retry_ms);

/* Other shares than CONTROL_MAX_PER_UID and CONTROL_RESERVED_CLIENTS. */
void control_set_shares(struct control *c, unsigned per_uid, unsigned reserved);

#endif
