#include "accessory_ctrl.h"
#include "log.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ACCESSORY_CTRL_IN (USB_DIR_IN | USB_TYPE_VENDOR | USB_RECIP_DEVICE)
#define ACCESSORY_CTRL_OUT (USB_DIR_OUT | USB_TYPE_VENDOR | USB_RECIP_DEVICE)

struct accessory_ctrl_hid {
	bool used;
	uint16_t id;
	uint16_t desc_len;
	uint16_t desc_got;
};

struct accessory_ctrl {
	const struct accessory_ctrl_ops *ops;
	void *data;
	struct accessory_info info;
	bool started;
	/* A SEND_STRING was rejected after its data stage: stall START. */
	bool bad_string;
	unsigned audio_mode;
	struct accessory_ctrl_hid hids[ACCESSORY_CTRL_MAX_HID];
	/* The OUT request whose data stage is due, if any. */
	bool pending;
	struct usb_ctrlrequest pending_req;
	unsigned long accepted, stalled;
	/* Every line here is the host's doing: a hostile one sends
	 * thousands of requests a second, the log must not carry them. */
	struct log_burst host_log;
};

struct accessory_ctrl *accessory_ctrl_new(const struct accessory_ctrl_ops *ops,
					  void *data)
{
	struct accessory_ctrl *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ops = ops;
	c->data = data;
	c->host_log = (struct log_burst)LOG_BURST_INIT(
		"lines about the host's accessory requests",
		ACCESSORY_CTRL_LOG_BURST, ACCESSORY_CTRL_LOG_WINDOW_S);
	return c;
}

void accessory_ctrl_free(struct accessory_ctrl *c)
{
	free(c);
}

static struct accessory_ctrl_hid *accessory_ctrl_hid_find(struct accessory_ctrl *c,
							  uint16_t id)
{
	unsigned i;

	for (i = 0; i < ACCESSORY_CTRL_MAX_HID; i++)
		if (c->hids[i].used && c->hids[i].id == id)
			return &c->hids[i];
	return NULL;
}

static int accessory_ctrl_get_protocol(struct accessory_ctrl *c,
				       uint16_t w_length, uint8_t *in)
{
	uint8_t v[2] = { ACCESSORY_PROTOCOL_VERSION & 0xff,
			 ACCESSORY_PROTOCOL_VERSION >> 8 };
	size_t n = w_length < 2 ? w_length : 2;

	if (!w_length)
		return -EINVAL;
	/* A host starts every handshake with GET_PROTOCOL, so it is where
	 * leftovers of an earlier, abandoned handshake are dropped. */
	accessory_info_clear(&c->info);
	c->started = false;
	c->bad_string = false;
	memcpy(in, v, n);
	return (int)n;
}

static int accessory_ctrl_start(struct accessory_ctrl *c)
{
	int r;

	if (c->bad_string) {
		if (log_burst_ok(&c->host_log))
			log_warnx("accessory: START refused: a string without NUL was sent");
		return -EBADMSG;
	}
	r = c->ops && c->ops->start ? c->ops->start(c->data) : 0;
	if (r < 0)
		return r;
	c->started = true;
	return 0;
}

static int accessory_ctrl_register_hid(struct accessory_ctrl *c, uint16_t id,
				       uint16_t desc_len)
{
	struct accessory_ctrl_hid *h = accessory_ctrl_hid_find(c, id);
	unsigned i;

	if (!desc_len || desc_len > ACCESSORY_CTRL_HID_DESC_MAX)
		return -EINVAL;
	for (i = 0; !h && i < ACCESSORY_CTRL_MAX_HID; i++)
		if (!c->hids[i].used)
			h = &c->hids[i];
	if (!h)
		return -ENOSPC;
	*h = (struct accessory_ctrl_hid){ .used = true, .id = id,
					  .desc_len = desc_len };
	return 0;
}

static int accessory_ctrl_unregister_hid(struct accessory_ctrl *c, uint16_t id)
{
	struct accessory_ctrl_hid *h = accessory_ctrl_hid_find(c, id);

	if (!h)
		return -ENOENT;
	h->used = false;
	return 0;
}

/* Checks of a HID request with a data stage, before accepting it. */
static int accessory_ctrl_hid_out(struct accessory_ctrl *c,
				  const struct usb_ctrlrequest *req)
{
	struct accessory_ctrl_hid *h = accessory_ctrl_hid_find(c, le16toh(req->wValue));
	uint16_t w_index = le16toh(req->wIndex), w_length = le16toh(req->wLength);

	if (!h || !w_length)
		return -EINVAL;
	if (req->bRequest == ACCESSORY_SET_HID_REPORT_DESC)
		/* Chunks must come in order and stay inside the length the
		 * host registered, as f_accessory requires. */
		return w_index == h->desc_got &&
		       (unsigned)w_index + w_length <= h->desc_len ? 0 : -EINVAL;
	return h->desc_got == h->desc_len &&
	       w_length <= ACCESSORY_CTRL_HID_EVENT_MAX ? 0 : -EINVAL;
}

static int accessory_ctrl_out(struct accessory_ctrl *c,
			      const struct usb_ctrlrequest *req)
{
	uint16_t w_value = le16toh(req->wValue), w_index = le16toh(req->wIndex);
	uint16_t w_length = le16toh(req->wLength);

	switch (req->bRequest) {
	case ACCESSORY_SEND_STRING:
		return w_index < ACCESSORY_INFO_N && w_length >= 1 &&
		       w_length <= ACCESSORY_INFO_MAX ? 0 : -EINVAL;
	case ACCESSORY_SET_HID_REPORT_DESC:
	case ACCESSORY_SEND_HID_EVENT:
		return accessory_ctrl_hid_out(c, req);
	}
	/* The rest have no data stage. */
	if (w_length)
		return -EINVAL;
	switch (req->bRequest) {
	case ACCESSORY_START:
		return accessory_ctrl_start(c);
	case ACCESSORY_REGISTER_HID:
		return accessory_ctrl_register_hid(c, w_value, w_index);
	case ACCESSORY_UNREGISTER_HID:
		return accessory_ctrl_unregister_hid(c, w_value);
	case ACCESSORY_SET_AUDIO_MODE:
		if (w_value > 1)
			return -EINVAL;
		c->audio_mode = w_value;
		return 0;
	}
	return -EOPNOTSUPP;
}

static int accessory_ctrl_dispatch(struct accessory_ctrl *c,
				   const struct usb_ctrlrequest *req, uint8_t *in)
{
	if (req->bRequestType == ACCESSORY_CTRL_IN &&
	    req->bRequest == ACCESSORY_GET_PROTOCOL)
		return accessory_ctrl_get_protocol(c, le16toh(req->wLength), in);
	if (req->bRequestType == ACCESSORY_CTRL_OUT)
		return accessory_ctrl_out(c, req);
	return -EOPNOTSUPP;
}

int accessory_ctrl_setup(struct accessory_ctrl *c,
			 const struct usb_ctrlrequest *req, uint8_t *in)
{
	int r;

	/* A new SETUP always ends the previous one, also if its data stage
	 * never came. */
	c->pending = false;
	r = accessory_ctrl_dispatch(c, req, in);
	if (r < 0) {
		c->stalled++;
		if (log_burst_ok(&c->host_log))
			log_debug("accessory: stall %02x/%u wValue %u wIndex %u "
				  "wLength %u: %s", req->bRequestType,
				  req->bRequest, le16toh(req->wValue),
				  le16toh(req->wIndex), le16toh(req->wLength),
				  strerror(-r));
		return r;
	}
	c->accepted++;
	if (!(req->bRequestType & USB_DIR_IN) && le16toh(req->wLength)) {
		c->pending = true;
		c->pending_req = *req;
	}
	return r;
}

static int accessory_ctrl_hid_data(struct accessory_ctrl *c,
				   const struct usb_ctrlrequest *req, size_t len)
{
	struct accessory_ctrl_hid *h = accessory_ctrl_hid_find(c, le16toh(req->wValue));

	if (!h)
		return -ENOENT;
	if (req->bRequest == ACCESSORY_SET_HID_REPORT_DESC) {
		/* setup checked offset + wLength, and len <= wLength. */
		h->desc_got += len;
		return 0;
	}
	/* The event itself is dropped: no uhid device is made for it. */
	return 0;
}

int accessory_ctrl_data(struct accessory_ctrl *c,
			const struct usb_ctrlrequest *req, const uint8_t *data,
			size_t len)
{
	int r;

	if (!c->pending || memcmp(req, &c->pending_req, sizeof(*req)) ||
	    len > le16toh(req->wLength))
		return -EPROTO;
	c->pending = false;
	if (req->bRequest != ACCESSORY_SEND_STRING)
		return accessory_ctrl_hid_data(c, req, len);
	r = accessory_info_set(&c->info, le16toh(req->wIndex), data, len);
	if (r < 0) {
		if (log_burst_ok(&c->host_log))
			log_warnx("accessory: SEND_STRING %u rejected: %s",
				  le16toh(req->wIndex), strerror(-r));
		c->bad_string = true;
	}
	return r;
}

const struct accessory_info *accessory_ctrl_info(const struct accessory_ctrl *c)
{
	return &c->info;
}

bool accessory_ctrl_started(const struct accessory_ctrl *c)
{
	return c->started;
}

unsigned accessory_ctrl_hid_count(const struct accessory_ctrl *c)
{
	unsigned i, n = 0;

	for (i = 0; i < ACCESSORY_CTRL_MAX_HID; i++)
		n += c->hids[i].used;
	return n;
}

unsigned accessory_ctrl_audio_mode(const struct accessory_ctrl *c)
{
	return c->audio_mode;
}

unsigned long accessory_ctrl_accepted(const struct accessory_ctrl *c)
{
	return c->accepted;
}

unsigned long accessory_ctrl_stalled(const struct accessory_ctrl *c)
{
	return c->stalled;
}
