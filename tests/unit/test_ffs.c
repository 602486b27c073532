/*
 * Unit tests for functions/runtime/ffs.c: the exact bytes of the descriptor and
 * strings blobs, and the ep0 event reader driven through a socketpair
 * (SOCK_SEQPACKET keeps the record boundaries that ep0 has).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ffs.h"
#include "log.h"
#include "run_until.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A log double that keeps the last message, so tests can check it. */
static char last_log[1024];

static void fake_log(const char *fmt, va_list ap)
{
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
}

#define FAKE_LOG(name)                                                         \
	void name(const char *fmt, ...)                                        \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		fake_log(fmt, ap);                                             \
		va_end(ap);                                                    \
	}
FAKE_LOG(log_warn)
FAKE_LOG(log_warnx)
FAKE_LOG(log_info)
FAKE_LOG(log_debug)

static unsigned burst_calls;

bool log_burst_ok(struct log_burst *b)
{
	burst_calls++;
	return true;
}

static uint8_t blob[FFS_DESCS_MAX];
static size_t blob_len;

static void assert_blob(const uint8_t *want, size_t want_len)
{
	size_t i;

	for (i = 0; i < want_len && i < blob_len; i++)
		if (blob[i] != want[i])
			fail_msg("byte %zu: got %02x, want %02x", i, blob[i], want[i]);
	assert_int_equal(blob_len, want_len);
}

static struct plugin_desc echo_desc(void)
{
	struct plugin_desc d = {
		.cls = 0xff, .subcls = 0xff, .proto = 0xff,
		.interface_string = "gadgetd echo",
		.n_eps = 2,
		.eps = { { .type = PLUGIN_EP_BULK_IN }, { .type = PLUGIN_EP_BULK_OUT } },
	};
	return d;
}

#define INTF_FF2 0x09, 0x04, 0x00, 0x00, 0x02, 0xff, 0xff, 0xff, 0x01
#define SS_BULK_COMP 0x06, 0x30, 0x04, 0x00, 0x00, 0x00

static void test_descs_bulk_pair(void **state)
{
	struct plugin_desc d = echo_desc();
	static const uint8_t want[] = {
		0x03, 0, 0, 0, 105, 0, 0, 0, 0x07, 0, 0, 0, /* V2, len, FS|HS|SS */
		3, 0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0,         /* counts */
		INTF_FF2,                                   /* full speed */
		0x07, 0x05, 0x81, 0x02, 0x40, 0x00, 0x00,
		0x07, 0x05, 0x02, 0x02, 0x40, 0x00, 0x00,
		INTF_FF2,                                   /* high speed */
		0x07, 0x05, 0x81, 0x02, 0x00, 0x02, 0x00,
		0x07, 0x05, 0x02, 0x02, 0x00, 0x02, 0x00,
		INTF_FF2,                                   /* super speed */
		0x07, 0x05, 0x81, 0x02, 0x00, 0x04, 0x00, SS_BULK_COMP,
		0x07, 0x05, 0x02, 0x02, 0x00, 0x04, 0x00, SS_BULK_COMP,
	};

	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	assert_blob(want, sizeof(want));
}

/* MTP's shape: bulk pair, interrupt IN, compat id only, no string. */
static void test_descs_intr_and_compat(void **state)
{
	struct plugin_desc d = {
		.cls = 6, .subcls = 1, .proto = 1,
		.n_eps = 3,
		.eps = { { .type = PLUGIN_EP_BULK_IN }, { .type = PLUGIN_EP_BULK_OUT },
			 { .type = PLUGIN_EP_INTR_IN, .intr_max_packet = 28,
			   .intr_interval = 6 } },
		.ms_compat_id = "MTP",
	};
	static const uint8_t want[] = {
		0x03, 0, 0, 0, 171, 0, 0, 0, 0x0f, 0, 0, 0, /* + MS OS */
		4, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0,
		0x09, 0x04, 0x00, 0x00, 0x03, 0x06, 0x01, 0x01, 0x00,
		0x07, 0x05, 0x81, 0x02, 0x40, 0x00, 0x00,
		0x07, 0x05, 0x02, 0x02, 0x40, 0x00, 0x00,
		0x07, 0x05, 0x83, 0x03, 0x1c, 0x00, 0x04, /* 2^5 µframes = 4 ms */
		0x09, 0x04, 0x00, 0x00, 0x03, 0x06, 0x01, 0x01, 0x00,
		0x07, 0x05, 0x81, 0x02, 0x00, 0x02, 0x00,
		0x07, 0x05, 0x02, 0x02, 0x00, 0x02, 0x00,
		0x07, 0x05, 0x83, 0x03, 0x1c, 0x00, 0x06,
		0x09, 0x04, 0x00, 0x00, 0x03, 0x06, 0x01, 0x01, 0x00,
		0x07, 0x05, 0x81, 0x02, 0x00, 0x04, 0x00, SS_BULK_COMP,
		0x07, 0x05, 0x02, 0x02, 0x00, 0x04, 0x00, SS_BULK_COMP,
		0x07, 0x05, 0x83, 0x03, 0x1c, 0x00, 0x06,
		0x06, 0x30, 0x00, 0x00, 0x1c, 0x00,        /* wBytesPerInterval */
		/* extended compat ID: header, then one function block */
		0x00, 35, 0, 0, 0, 0x00, 0x01, 0x04, 0x00, 0x01, 0x00,
		0x00, 0x01, 'M', 'T', 'P', 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};

	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	assert_blob(want, sizeof(want));
}

/* HID's shape: the class descriptor follows the interface at each
 * speed and counts as a descriptor; a length that lies is refused. */
static void test_descs_class_desc(void **state)
{
	static const uint8_t hid[9] = { 9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0 };
	struct plugin_desc d = {
		.cls = 3, .subcls = 1, .proto = 1,
		.n_eps = 1,
		.eps = { { .type = PLUGIN_EP_INTR_IN, .intr_max_packet = 8,
			   .intr_interval = 4 } },
		.class_desc = hid, .class_desc_len = sizeof(hid),
	};
	static const uint8_t want[] = {
		0x03, 0, 0, 0, 105, 0, 0, 0, 0x07, 0, 0, 0,
		3, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0,
		0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x01, 0x00,
		9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0,
		0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x01,
		0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x01, 0x00,
		9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0,
		0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x04,
		0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x01, 0x00,
		9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0,
		0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x04,
		0x06, 0x30, 0x00, 0x00, 0x08, 0x00,
	};

	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	assert_blob(want, sizeof(want));
	d.class_desc_len = 8;
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), -EINVAL);
}

/* Interrupt intervals at full speed: 1 ms floor, 255 ms ceiling. */
static void test_descs_fs_interval(void **state)
{
	struct plugin_desc d = {
		.n_eps = 1,
		.eps = { { .type = PLUGIN_EP_INTR_IN, .intr_max_packet = 512,
			   .intr_interval = 1 } },
	};

	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	/* FS endpoint after 24-byte header and 9-byte interface. */
	assert_int_equal(blob[33 + 4], 64);  /* FS max packet capped at 64 */
	assert_int_equal(blob[33 + 5], 0);
	assert_int_equal(blob[33 + 6], 1);
	d.eps[0].intr_interval = 16;         /* 2^15 µframes = 4096 ms */
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	assert_int_equal(blob[33 + 6], 255);
	assert_int_equal(blob[33 + 16 + 4], 0x00); /* HS keeps 512 */
	assert_int_equal(blob[33 + 16 + 5], 0x02);
}

static void test_descs_props_and_recip(void **state)
{
	struct plugin_desc d = echo_desc();
	static const char name[] = "DeviceInterfaceGUID";
	static const char value[] = "{9a3c2f1e-5b7d-4e8a-9c06-2d1f4b8e7a55}";
	static uint8_t want[FFS_DESCS_MAX];
	const uint8_t *os, *p;
	size_t len;
	uint32_t v;

	d.ms_compat_id = "WINUSB";
	d.n_props = 1;
	d.props[0].name = name;
	d.props[0].value = value;
	d.all_ctrl_recip = true;
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), 0);
	memcpy(&v, blob + 8, 4);
	assert_int_equal(v, 0x01 | 0x02 | 0x04 | 0x08 | 0x40 | 0x80);
	memcpy(&v, blob + 24, 4);
	assert_int_equal(v, 2);                  /* os_count */
	os = blob + 28 + 23 + 23 + 35;           /* after SS descriptors */
	assert_memory_equal(os, "\x00\x23\x00\x00\x00\x00\x01\x04\x00\x01\x00", 11);
	assert_memory_equal(os + 11 + 2, "WINUSB\0\0", 8);
	p = os + 35;
	/* properties header: dwLength covers header and the property */
	memcpy(&v, p + 1, 4);
	assert_int_equal(v, 11 + 14 + sizeof(name) + sizeof(value));
	assert_memory_equal(p + 5, "\x00\x01\x05\x00\x01\x00", 6);
	p += 11;
	memcpy(&v, p, 4);
	assert_int_equal(v, 14 + sizeof(name) + sizeof(value));
	assert_memory_equal(p + 4, "\x01\x00\x00\x00", 4);  /* REG_SZ */
	assert_int_equal(p[8] | p[9] << 8, sizeof(name));
	assert_memory_equal(p + 10, name, sizeof(name));
	memcpy(&v, p + 10 + sizeof(name), 4);
	assert_int_equal(v, sizeof(value));
	assert_memory_equal(p + 14 + sizeof(name), value, sizeof(value));
	assert_int_equal(p + 14 + sizeof(name) + sizeof(value) - blob, blob_len);
	memcpy(&v, blob + 4, 4);
	assert_int_equal(v, blob_len);
	/* The same with the bcdVersion Debian 12's f_fs takes: only the two
	 * headers' version differs. */
	memcpy(want, blob, blob_len);
	len = blob_len;
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD_OLD, blob, sizeof(blob), &blob_len), 0);
	assert_int_equal(blob_len, len);
	assert_memory_equal(os + 5, "\x01\x00", 2);
	assert_memory_equal(os + 35 + 5, "\x01\x00", 2);
	memcpy(blob + (os + 5 - blob), "\x00\x01", 2);
	memcpy(blob + (os + 35 + 5 - blob), "\x00\x01", 2);
	assert_memory_equal(blob, want, len);
}

static void expect_invalid(struct plugin_desc *d, const char *words)
{
	last_log[0] = '\0';
	assert_int_equal(ffs_descs_build(d, FFS_OS_BCD, blob, sizeof(blob), &blob_len), -EINVAL);
	if (!strstr(last_log, words))
		fail_msg("log \"%s\" lacks \"%s\"", last_log, words);
}

static void test_descs_malformed(void **state)
{
	char long_str[FFS_STRING_MAX_LEN + 2];
	struct plugin_desc d;

	d = echo_desc();
	d.n_eps = PLUGIN_MAX_EPS + 1;
	expect_invalid(&d, "endpoints, at most");
	d = echo_desc();
	d.eps[1].type = (enum plugin_ep_type)7;
	expect_invalid(&d, "unknown type");
	d = echo_desc();
	d.eps[1] = (struct plugin_ep){ .type = PLUGIN_EP_INTR_IN, .intr_interval = 4 };
	expect_invalid(&d, "interrupt max packet 0");
	d.eps[1].intr_max_packet = 1025;
	expect_invalid(&d, "out of range");
	d.eps[1].intr_max_packet = 8;
	d.eps[1].intr_interval = 17;
	expect_invalid(&d, "interval 17");
	d.eps[1].intr_interval = 0;
	expect_invalid(&d, "interval 0");
	d = echo_desc();
	d.ms_compat_id = "WINUSB_TOO_LONG";
	expect_invalid(&d, "longer than 8");
	d = echo_desc();
	d.n_props = 1;
	d.props[0] = (struct plugin_ms_prop){ "a", "b" };
	expect_invalid(&d, "need ms_compat_id");
	d.ms_compat_id = "WINUSB";
	d.props[0].value = NULL;
	expect_invalid(&d, "property 0");
	d.props[0].value = "";
	d.props[0].name = "";
	expect_invalid(&d, "property 0");
	d = echo_desc();
	d.ms_compat_id = "WINUSB";
	d.n_props = PLUGIN_MAX_PROPS + 1;
	expect_invalid(&d, "properties, at most");
	d = echo_desc();
	memset(long_str, 'x', sizeof(long_str) - 1);
	long_str[sizeof(long_str) - 1] = '\0';
	d.interface_string = long_str;
	expect_invalid(&d, "interface string");
	d = echo_desc();
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, 104, &blob_len), -ENOSPC);
	assert_int_equal(ffs_descs_build(&d, FFS_OS_BCD, blob, 105, &blob_len), 0);
}

static void test_strings(void **state)
{
	struct plugin_desc d = echo_desc();
	static const uint8_t want[] = {
		0x02, 0, 0, 0, 31, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0,
		0x09, 0x04, 'g', 'a', 'd', 'g', 'e', 't', 'd', ' ', 'e', 'c', 'h', 'o', 0,
	};
	static const uint8_t none[] = {
		0x02, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	char long_str[FFS_STRING_MAX_LEN + 2];

	assert_int_equal(ffs_strings_build(&d, blob, sizeof(blob), &blob_len), 0);
	assert_blob(want, sizeof(want));
	d.interface_string = NULL;
	assert_int_equal(ffs_strings_build(&d, blob, sizeof(blob), &blob_len), 0);
	assert_blob(none, sizeof(none));
	d.interface_string = "gadgetd echo";
	assert_int_equal(ffs_strings_build(&d, blob, 30, &blob_len), -ENOSPC);
	memset(long_str, 'x', sizeof(long_str) - 1);
	long_str[sizeof(long_str) - 1] = '\0';
	d.interface_string = long_str;
	assert_int_equal(ffs_strings_build(&d, blob, sizeof(blob), &blob_len), -EINVAL);
}

/* One raw 12-byte event record as f_fs writes it. */
static void make_event(uint8_t *rec, uint8_t type, uint8_t rt, uint8_t req,
		       uint16_t value, uint16_t index, uint16_t length)
{
	memset(rec, 0, 12);
	rec[0] = rt;
	rec[1] = req;
	rec[2] = value & 0xff;
	rec[3] = value >> 8;
	rec[4] = index & 0xff;
	rec[5] = index >> 8;
	rec[6] = length & 0xff;
	rec[7] = length >> 8;
	rec[8] = type;
}

static void test_event_parse(void **state)
{
	struct ffs_event ev;
	uint8_t rec[13];

	make_event(rec, FUNCTIONFS_SETUP, 0xc1, 5, 0x0102, 0x0304, 0x0506);
	assert_int_equal(ffs_event_parse(rec, 12, &ev), 0);
	assert_int_equal(ev.type, FUNCTIONFS_SETUP);
	assert_int_equal(ev.setup.bRequestType, 0xc1);
	assert_int_equal(ev.setup.bRequest, 5);
	assert_int_equal(ev.setup.wValue, 0x0102);
	assert_int_equal(ev.setup.wIndex, 0x0304);
	assert_int_equal(ev.setup.wLength, 0x0506);
	make_event(rec, FUNCTIONFS_RESUME, 0, 0, 0, 0, 0);
	assert_int_equal(ffs_event_parse(rec, 12, &ev), 0);
	assert_int_equal(ev.type, FUNCTIONFS_RESUME);
	assert_int_equal(ffs_event_parse(rec, 11, &ev), -EINVAL);
	assert_int_equal(ffs_event_parse(rec, 13, &ev), -EINVAL);
	assert_int_equal(ffs_event_parse(rec, 0, &ev), -EINVAL);
	make_event(rec, 7, 0, 0, 0, 0, 0);
	assert_int_equal(ffs_event_parse(rec, 12, &ev), -EBADMSG);
	make_event(rec, 0xff, 0, 0, 0, 0, 0);
	assert_int_equal(ffs_event_parse(rec, 12, &ev), -EBADMSG);
}

/* A recording ep0 handler. */
struct rec {
	int events[16];
	unsigned n_events;
	int setup_ret;
	const char *answer;
	unsigned setups;
	uint8_t data[64];
	size_t data_len;
	unsigned data_calls;
};

static void rec_event(void *data, enum usb_functionfs_event_type type)
{
	struct rec *r = data;

	if (r->n_events < 16)
		r->events[r->n_events++] = type;
}

static int rec_setup(void *data, const struct usb_ctrlrequest *req, uint8_t *in)
{
	struct rec *r = data;

	r->setups++;
	if (r->setup_ret > 0 && r->answer)
		memcpy(in, r->answer, strlen(r->answer));
	return r->setup_ret;
}

static void rec_setup_data(void *data, const struct usb_ctrlrequest *req,
			   const uint8_t *buf, size_t len)
{
	struct rec *r = data;

	r->data_calls++;
	r->data_len = len < sizeof(r->data) ? len : sizeof(r->data);
	memcpy(r->data, buf, r->data_len);
}

static const struct ffs_ep0_ops rec_ops = {
	.event = rec_event,
	.setup = rec_setup,
	.setup_data = rec_setup_data,
};

struct ep0_fixture {
	int sv[2]; /* sv[0]: the worker's "ep0", sv[1]: the test's kernel */
	struct rec rec;
	struct ffs_ep0 *e;
};

static int ep0_setup(void **state)
{
	struct ep0_fixture *f = calloc(1, sizeof(*f));

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, f->sv) < 0)
		return -1;
	f->e = ffs_ep0_new(f->sv[0], &rec_ops, &f->rec);
	*state = f;
	return f->e ? 0 : -1;
}

static int ep0_teardown(void **state)
{
	struct ep0_fixture *f = *state;

	ffs_ep0_free(f->e);
	close(f->sv[0]);
	if (f->sv[1] >= 0)
		close(f->sv[1]);
	free(f);
	return 0;
}

static void kernel_send(struct ep0_fixture *f, const void *buf, size_t len)
{
	assert_int_equal(send(f->sv[1], buf, len, 0), (ssize_t)len);
}

/* The stage thread's end, as the loop sees it: done_fd readable (within
 * RUN_UNTIL_MS: a thread under qemu-user on a loaded machine may take
 * seconds), then ffs_ep0_finish(). Returns what finish returns, or
 * -ETIMEDOUT. */
static int stage_wait(struct ep0_fixture *f)
{
	struct pollfd pfd = { .fd = ffs_ep0_done_fd(f->e), .events = POLLIN };

	if (poll(&pfd, 1, RUN_UNTIL_MS) != 1)
		return -ETIMEDOUT;
	return ffs_ep0_finish(f->e);
}

/* Milliseconds from t0 to now (CLOCK_MONOTONIC). */
static int64_t ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)(t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void test_ep0_events(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t recs[36];

	assert_int_equal(ffs_ep0_dispatch(f->e), -EAGAIN);
	make_event(recs, FUNCTIONFS_BIND, 0, 0, 0, 0, 0);
	make_event(recs + 12, FUNCTIONFS_ENABLE, 0, 0, 0, 0, 0);
	make_event(recs + 24, FUNCTIONFS_DISABLE, 0, 0, 0, 0, 0);
	kernel_send(f, recs, 36);
	assert_int_equal(ffs_ep0_dispatch(f->e), 3);
	assert_int_equal(f->rec.n_events, 3);
	assert_int_equal(f->rec.events[0], FUNCTIONFS_BIND);
	assert_int_equal(f->rec.events[1], FUNCTIONFS_ENABLE);
	assert_int_equal(f->rec.events[2], FUNCTIONFS_DISABLE);
	assert_int_equal(ffs_ep0_dispatch(f->e), -EAGAIN);
}

static void test_ep0_unknown_type_skipped(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t recs[36];

	make_event(recs, FUNCTIONFS_ENABLE, 0, 0, 0, 0, 0);
	make_event(recs + 12, 42, 0, 0, 0, 0, 0);
	make_event(recs + 24, FUNCTIONFS_SUSPEND, 0, 0, 0, 0, 0);
	kernel_send(f, recs, 36);
	assert_int_equal(ffs_ep0_dispatch(f->e), 2);
	assert_int_equal(ffs_ep0_skipped(f->e), 1);
	assert_non_null(strstr(last_log, "unknown ep0 event type 42"));
	assert_int_equal(f->rec.events[0], FUNCTIONFS_ENABLE);
	assert_int_equal(f->rec.events[1], FUNCTIONFS_SUSPEND);
}

/* A record split over two reads is put back together. */
static void test_ep0_split_record(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12];

	make_event(rec, FUNCTIONFS_RESUME, 0, 0, 0, 0, 0);
	kernel_send(f, rec, 5);
	assert_int_equal(ffs_ep0_dispatch(f->e), 0);
	assert_int_equal(f->rec.n_events, 0);
	kernel_send(f, rec + 5, 7);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(f->rec.events[0], FUNCTIONFS_RESUME);
}

static void test_ep0_eof(void **state)
{
	struct ep0_fixture *f = *state;

	close(f->sv[1]);
	f->sv[1] = -1;
	assert_int_equal(ffs_ep0_dispatch(f->e), -ESHUTDOWN);
}

static void test_ep0_eof_mid_record(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12];

	make_event(rec, FUNCTIONFS_ENABLE, 0, 0, 0, 0, 0);
	kernel_send(f, rec, 12);
	kernel_send(f, rec, 7);
	close(f->sv[1]);
	f->sv[1] = -1;
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(ffs_ep0_dispatch(f->e), 0);
	assert_int_equal(ffs_ep0_dispatch(f->e), -EPROTO);
	assert_int_equal(f->rec.n_events, 1);
}

static void test_ep0_setup_in(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12], got[64];

	f->rec.setup_ret = 5;
	f->rec.answer = "hello";
	make_event(rec, FUNCTIONFS_SETUP, 0xc1, 1, 0, 0, 64);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(stage_wait(f), 0);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), 5);
	assert_memory_equal(got, "hello", 5);
	/* An answer longer than wLength is cut to wLength. */
	f->rec.setup_ret = 60;
	make_event(rec, FUNCTIONFS_SETUP, 0xc1, 1, 0, 0, 3);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(stage_wait(f), 0);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), 3);
	assert_memory_equal(got, "hel", 3);
	assert_int_equal(ffs_ep0_stalls(f->e), 0);
}

/* IN stall: a read on ep0, so nothing is written back. */
static void test_ep0_setup_in_stall(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12], got[8];

	f->rec.setup_ret = -EOPNOTSUPP;
	make_event(rec, FUNCTIONFS_SETUP, 0xc0, 9, 0, 0, 8);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(ffs_ep0_stalls(f->e), 1);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static void test_ep0_setup_out_data(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12], got[8];

	make_event(rec, FUNCTIONFS_SETUP, 0x41, 2, 0, 0, 4);
	kernel_send(f, rec, 12);
	kernel_send(f, "abcd", 4);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(stage_wait(f), 0);
	assert_int_equal(f->rec.setups, 1);
	assert_int_equal(f->rec.data_calls, 1);
	assert_int_equal(f->rec.data_len, 4);
	assert_memory_equal(f->rec.data, "abcd", 4);
	assert_int_equal(ffs_ep0_stalls(f->e), 0);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), -1);
}

/* No data stage: a 0-byte read acks it; no setup_data, nothing sent. */
static void test_ep0_setup_out_nodata(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12], got[8];

	make_event(rec, FUNCTIONFS_SETUP, 0x41, 3, 7, 0, 0);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(stage_wait(f), 0);
	assert_int_equal(f->rec.setups, 1);
	assert_int_equal(f->rec.data_calls, 0);
	assert_int_equal(ffs_ep0_stalls(f->e), 0);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(ffs_ep0_dispatch(f->e), -EAGAIN);
}

/* OUT stall: a write on ep0 (here a 0-byte datagram), no data read. */
static void test_ep0_setup_out_stall(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12], got[8];

	f->rec.setup_ret = -EINVAL;
	make_event(rec, FUNCTIONFS_SETUP, 0x41, 9, 0, 0, 4);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(ffs_ep0_stalls(f->e), 1);
	assert_int_equal(f->rec.data_calls, 0);
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), 0);
}

static void test_ep0_no_setup_handler_stalls(void **state)
{
	struct ep0_fixture *f = *state;
	static const struct ffs_ep0_ops bare = { .event = rec_event };
	struct ffs_ep0 *e = ffs_ep0_new(f->sv[0], &bare, &f->rec);
	uint8_t rec[12];

	make_event(rec, FUNCTIONFS_SETUP, 0xc1, 1, 0, 0, 8);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(e), 1);
	assert_int_equal(ffs_ep0_stalls(e), 1);
	ffs_ep0_free(e);
}

/*
 * A host that sends a SETUP and never its data stage: the dispatch
 * returns at once (the loop goes on), ep0 is left alone meanwhile, and
 * the abort stalls the request; then events flow again.
 */
static void test_ep0_stage_never_comes(void **state)
{
	struct ep0_fixture *f = *state;
	struct pollfd pfd = { .fd = ffs_ep0_done_fd(f->e), .events = POLLIN };
	uint8_t rec[12], got[8];
	struct timespec t0;

	make_event(rec, FUNCTIONFS_SETUP, 0x40, 52, 0, 1, 8);
	kernel_send(f, rec, 12);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	/* At once: a dispatch that waited for the data stage would not
	 * return at all here. In milliseconds, with room for a stall of the
	 * test (the seconds fields alone differ by 1 across a second's
	 * boundary, however short the call). */
	assert_true(ms_since(&t0) < 3000);
	assert_int_equal(f->rec.setups, 1);
	assert_true(ffs_ep0_busy(f->e));
	assert_int_equal(ffs_ep0_dispatch(f->e), -EBUSY);
	assert_int_equal(poll(&pfd, 1, 200), 0);
	ffs_ep0_abort(f->e);
	assert_int_equal(stage_wait(f), 0);
	assert_false(ffs_ep0_busy(f->e));
	assert_int_equal(ffs_ep0_timeouts(f->e), 1);
	assert_int_equal(ffs_ep0_stalls(f->e), 1);
	assert_int_equal(f->rec.data_calls, 0);
	assert_non_null(strstr(last_log, "without its data stage"));
	/* The stall: a write on ep0 (a 0-byte datagram here). */
	assert_int_equal(recv(f->sv[1], got, sizeof(got), MSG_DONTWAIT), 0);
	/* ep0 is read again (here a socket stands for both the events and
	 * the data stage, so the event comes only now). */
	make_event(rec, FUNCTIONFS_DISABLE, 0, 0, 0, 0, 0);
	kernel_send(f, rec, 12);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(f->rec.events[0], FUNCTIONFS_DISABLE);
}

/* Events read together with the SETUP are dispatched after its stage. */
static void test_ep0_events_after_stage(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t recs[24];

	make_event(recs, FUNCTIONFS_SETUP, 0x41, 2, 0, 0, 4);
	make_event(recs + 12, FUNCTIONFS_ENABLE, 0, 0, 0, 0, 0);
	kernel_send(f, recs, 24);
	kernel_send(f, "wxyz", 4);
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_int_equal(f->rec.n_events, 0);
	assert_int_equal(stage_wait(f), 1);
	assert_int_equal(f->rec.data_calls, 1);
	assert_memory_equal(f->rec.data, "wxyz", 4);
	assert_int_equal(f->rec.n_events, 1);
	assert_int_equal(f->rec.events[0], FUNCTIONFS_ENABLE);
	assert_int_equal(ffs_ep0_timeouts(f->e), 0);
}

/* Freeing with a stage in flight does not wait for the host. */
static void test_ep0_free_while_waiting(void **state)
{
	struct ep0_fixture *f = *state;
	uint8_t rec[12];
	struct timespec t0;

	make_event(rec, FUNCTIONFS_SETUP, 0xc0, 51, 0, 0, 2);
	f->rec.setup_ret = 2;
	f->rec.answer = "\x02";
	kernel_send(f, rec, 12);
	/* The "host" never reads: fill the socket so the IN stage waits. */
	while (send(f->sv[0], rec, 12, MSG_DONTWAIT) == 12)
		;
	assert_int_equal(ffs_ep0_dispatch(f->e), 1);
	assert_true(ffs_ep0_busy(f->e));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ffs_ep0_free(f->e);
	f->e = NULL;
	/* As above: a free that waited for the host would not return. */
	assert_true(ms_since(&t0) < 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descs_bulk_pair),
		cmocka_unit_test(test_descs_intr_and_compat),
		cmocka_unit_test(test_descs_fs_interval),
		cmocka_unit_test(test_descs_class_desc),
		cmocka_unit_test(test_descs_props_and_recip),
		cmocka_unit_test(test_descs_malformed),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_event_parse),
		cmocka_unit_test_setup_teardown(test_ep0_events, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_unknown_type_skipped, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_split_record, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_eof, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_eof_mid_record, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_setup_in, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_setup_in_stall, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_setup_out_data, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_setup_out_nodata, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_setup_out_stall, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_no_setup_handler_stalls, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_stage_never_comes, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_events_after_stage, ep0_setup, ep0_teardown),
		cmocka_unit_test_setup_teardown(test_ep0_free_while_waiting, ep0_setup, ep0_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
