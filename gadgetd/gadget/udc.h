/*
 * udc: USB device controllers, from /sys/class/udc and kernel uevents.
 */
#ifndef GADGETD_UDC_H
#define GADGETD_UDC_H

#include <stdbool.h>
#include <stddef.h>

struct loop;
struct udc_monitor;

/* policy "auto": the first UDC in name order that is not a dummy_hcd one,
 * else the first dummy one; otherwise the named UDC if it exists. -ENODEV
 * when there is none. */
int udc_pick(const char *policy, char *buf, size_t size);

/* Ask UDC name to signal remote wakeup (its srp file; Linux's UDC core
 * ignores the driver's answer, so 0 says only that the file took it).
 * 0 or -errno. */
int udc_wakeup(const char *name);

/* /sys/class/udc/NAME/state ("configured", "not attached", ...; "absent"
 * when the UDC is gone) and current_speed ("high-speed", ...); "unknown"
 * when unreadable. */
void udc_state(const char *name, char *buf, size_t size);
/* The names of the UDCs the kernel has, sorted, into names (up to max of
 * size bytes each); returns how many. */
unsigned udc_list(char *names, size_t size, unsigned max);
void udc_speed(const char *name, char *buf, size_t size);
/* The gadget driver bound to the UDC ("function": a ConfigFS gadget's
 * name), "" when none. */
void udc_function(const char *name, char *buf, size_t size);

/* Whether NAME's gadget device has joined the bus: the kernel announces a
 * UDC before it adds its gadget device, and a bind in between is refused
 * as busy. A bind refused once this is true failed for another reason (a
 * function's bind failed) and must not be retried blindly. */
bool udc_registered(const char *name);

/* Call fn whenever a UDC appears or vanishes (kernel uevents). */
typedef void (*udc_change_fn)(void *data);
struct udc_monitor *udc_monitor_new(struct loop *l, udc_change_fn fn, void *data);
void udc_monitor_free(struct udc_monitor *m);

/*
 * Watch NAME's state attribute (/sys/class/udc/NAME/state): fn gets the
 * new state whenever it differs from the last one told, the first time at
 * once (from inside udc_watch_new()). The kernel notifies the attribute
 * (sysfs_notify from usb_gadget_set_state(), a POLLPRI), but not every UDC
 * driver sets every state, so it is read again every UDC_WATCH_POLL_MS as
 * well. A state that cannot be read (the UDC went away) is "not attached".
 */
#define UDC_WATCH_POLL_MS 500
typedef void (*udc_state_fn)(const char *state, void *data);
struct udc_watch;
struct udc_watch *udc_watch_new(struct loop *l, const char *name,
				udc_state_fn fn, void *data);
/* Read the state now (a uevent said the UDC came or went). */
void udc_watch_check(struct udc_watch *w);
/* The UDC watched, and the last state told. */
const char *udc_watch_name(const struct udc_watch *w);
const char *udc_watch_state(const struct udc_watch *w);
void udc_watch_free(struct udc_watch *w);

#endif
