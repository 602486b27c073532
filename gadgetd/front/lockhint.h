/*
 * lockhint: gadgetd.conf's lock_follow = "logind". The lock
 * (gadget_lock()) follows the LockedHint of seat0's active session, as
 * systemd-logind tells it on the system bus: a desktop's or phone
 * shell's locker sets the hint (Session.SetLockedHint).
 *
 * All of it is asynchronous, on a system bus connection of its own
 * served from gadgetd's loop. It listens for PropertiesChanged of
 * /org/freedesktop/login1/seat/seat0 (ActiveSession) and of the active
 * session (LockedHint), and for NameOwnerChanged of
 * org.freedesktop.login1.
 *
 *   - The hint is applied when it changes, and when the active session
 *     changes (the new session's hint); between two changes a manual
 *     gadgetctl lock or unlock stands: the last change wins.
 *   - No active session on seat0 (no one logged in, or seat0 unknown),
 *     or a greeter's (Class "greeter", a login screen; its hint is not
 *     followed): locked, as a phone is before its first unlock.
 *   - logind not on the bus: logged once, the lock left as it is, and
 *     followed again when logind takes its name.
 *   - No system bus: logged; tried again every 10 s.
 */
#ifndef GADGETD_LOCKHINT_H
#define GADGETD_LOCKHINT_H

struct gadget;
struct lockhint;
struct loop;

/* NULL with errno (memory only: a missing bus is retried). */
struct lockhint *lockhint_new(struct loop *l, struct gadget *g);
void lockhint_free(struct lockhint *h);

#endif
