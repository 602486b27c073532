/*
 * inputfwd: the board's own keyboards and mice forwarded to the host
 * through the bound set's hid functions (forward = "input",
 * gadgetd.conf(5)).
 *
 * While a set with such a function is bound, udev's input devices are
 * followed (a libudev monitor in gadgetd's loop): each evdev device udev
 * calls a keyboard (ID_INPUT_KEYBOARD) goes to the first forwarding
 * keyboard function whose forward_match rules it matches, each mouse
 * (ID_INPUT_MOUSE) to the first such mouse function. gadgetd opens it,
 * grabs it (EVIOCGRAB, so that the board does not act on it too) and
 * hands the worker a duplicate of its fd (supervisor_input_give()); the
 * worker reads the events and sends the reports. gadgetd keeps its own
 * copy, so it can release the grab whatever the worker does, and hand
 * the device to the worker's next run after a crash.
 *
 * Never forwarded, whatever the rules: a device below a USB device with
 * the bound set's vendor and product ids, or below dummy_hcd's host
 * controller: the host side of this gadget, when the board is its own
 * host (the loopback bed, a cable from the board to itself); forwarding
 * it would feed the gadget's output back in.
 *
 * A device is released to the board and closed when it goes, when the
 * set is switched away or off, when the UDC goes, when its function's
 * worker failed (crashed too often), and when gadgetd stops. A worker's
 * request (its hotkey, `gadgetctl FUNCTION forward release`) releases
 * every device of the set at once, or takes them again.
 */
#ifndef GADGETD_INPUTFWD_H
#define GADGETD_INPUTFWD_H

#include <stdbool.h>
#include <stdint.h>

#include "inputmatch.h"

struct inputfwd;
struct loop;
struct supervisor;

#define INPUTFWD_FUNCTION_MAX 32

/* A function of the bound set that forwards. */
struct inputfwd_want {
	char function[INPUTFWD_FUNCTION_MAX];
	bool keys; /* a keyboard (else a mouse) */
	struct inputmatch match;
};

/* NULL with errno set. It takes the supervisor's input requests. */
struct inputfwd *inputfwd_new(struct loop *l, struct supervisor *sup);
/* Every device released and closed. NULL is fine. */
void inputfwd_free(struct inputfwd *f);

/*
 * Forward to want[0..n) now, the bound set's vendor and product ids
 * those of the gadget to leave alone: n == 0 releases and closes every
 * device and stops following udev. The same wants again only hand the
 * devices to a worker that restarted.
 */
void inputfwd_sync(struct inputfwd *f, const struct inputfwd_want *want, unsigned n,
		   uint16_t vendor, uint16_t product);

#endif
