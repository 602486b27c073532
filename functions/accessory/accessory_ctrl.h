/*
 * accessory_ctrl: the Android Open Accessory control requests (AOA 1 and
 * 2), as a state machine with no I/O of its own. The plugin feeds it what
 * the runtime hands to plugin_ops.setup and .setup_data.
 *
 * Accepted (all vendor requests to the device, as in Android's
 * f_accessory.c); anything else, any other bRequestType, or a wrong
 * wLength/wIndex/wValue is stalled:
 *
 *   51 GET_PROTOCOL   0xC0, wLength >= 1: answers u16 LE 2 (cut to
 *                     wLength). Also forgets the strings, the START flag
 *                     and a failed SEND_STRING.
 *   52 SEND_STRING    0x40, wIndex 0..5, wLength 1..256. The data stage
 *                     must hold a NUL. A control OUT data stage cannot be
 *                     stalled after it arrived (f_fs acknowledges it), so
 *                     a string without NUL is dropped and remembered: the
 *                     next START is stalled until GET_PROTOCOL starts over.
 *   53 START          0x40, wLength 0: calls ops->start, whose error
 *                     stalls the request.
 *   54 REGISTER_HID   0x40, wValue id, wIndex descriptor length
 *                     1..ACCESSORY_CTRL_HID_DESC_MAX, wLength 0; at most
 *                     ACCESSORY_CTRL_MAX_HID devices (re-registering an id
 *                     replaces it).
 *   55 UNREGISTER_HID 0x40, wValue a registered id, wLength 0.
 *   56 SET_HID_REPORT_DESC 0x40, wValue a registered id, wIndex the offset
 *                     already received, offset + wLength within the length.
 *   57 SEND_HID_EVENT 0x40, wValue an id whose descriptor is complete,
 *                     wLength 1..ACCESSORY_CTRL_HID_EVENT_MAX.
 *   58 SET_AUDIO_MODE 0x40, wValue 0 (off) or 1 (2ch 16-bit PCM 44.1 kHz),
 *                     wLength 0.
 *
 * HID devices and the audio mode are accounted for and reported, but no
 * HID device or audio function is created on the board: events are
 * acknowledged and dropped.
 */
#ifndef GADGETD_ACCESSORY_CTRL_H
#define GADGETD_ACCESSORY_CTRL_H

#include <linux/usb/ch9.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accessory_info.h"

#define ACCESSORY_GET_PROTOCOL 51
#define ACCESSORY_SEND_STRING 52
#define ACCESSORY_START 53
#define ACCESSORY_REGISTER_HID 54
#define ACCESSORY_UNREGISTER_HID 55
#define ACCESSORY_SET_HID_REPORT_DESC 56
#define ACCESSORY_SEND_HID_EVENT 57
#define ACCESSORY_SET_AUDIO_MODE 58

#define ACCESSORY_PROTOCOL_VERSION 2

/* What a host's requests may make us log: at most this many lines in each
 * window of that many seconds (then one line counting the rest). */
#define ACCESSORY_CTRL_LOG_BURST 10
#define ACCESSORY_CTRL_LOG_WINDOW_S 60
#define ACCESSORY_CTRL_MAX_HID 4
#define ACCESSORY_CTRL_HID_DESC_MAX 4096
#define ACCESSORY_CTRL_HID_EVENT_MAX 64

struct accessory_ctrl;

struct accessory_ctrl_ops {
	/* START arrived (strings as received so far are in
	 * accessory_ctrl_info()). Return 0 or -errno to stall it. */
	int (*start)(void *data);
};

struct accessory_ctrl *accessory_ctrl_new(const struct accessory_ctrl_ops *ops,
					  void *data);
void accessory_ctrl_free(struct accessory_ctrl *c);

/*
 * A control request, with plugin_ops.setup's contract: for an IN request
 * fill in[0 .. wLength) and return the length, for an OUT request return
 * 0 (its data stage then comes through accessory_ctrl_data), a negative
 * errno stalls.
 */
int accessory_ctrl_setup(struct accessory_ctrl *c,
			 const struct usb_ctrlrequest *req, uint8_t *in);
/* The data stage of the OUT request accepted last. Returns 0, or -errno
 * when the data was rejected (it cannot be stalled any more). */
int accessory_ctrl_data(struct accessory_ctrl *c,
			const struct usb_ctrlrequest *req, const uint8_t *data,
			size_t len);

const struct accessory_info *accessory_ctrl_info(const struct accessory_ctrl *c);
/* START was received since the last GET_PROTOCOL. */
bool accessory_ctrl_started(const struct accessory_ctrl *c);
unsigned accessory_ctrl_hid_count(const struct accessory_ctrl *c);
/* 0 off, 1 on. */
unsigned accessory_ctrl_audio_mode(const struct accessory_ctrl *c);
/* Requests accepted and stalled since creation. */
unsigned long accessory_ctrl_accepted(const struct accessory_ctrl *c);
unsigned long accessory_ctrl_stalled(const struct accessory_ctrl *c);

#endif
