/*
 * adbhost: a raw-ADB host in C for the bench, so that the figures measure
 * the device and not the host (the Python host of tests/loopback/adb_wire.py
 * tops out near 9 MB/s). It speaks what a current adb does and Debian's
 * adb 29 cannot: CNXN with delayed_ack and sendrecv_v2, AUTH with a key
 * made by `adb keygen` (-k), OPEN sync: with a byte window, then SND2 of
 * MIB mebibytes of random data to DEVPATH and RCV2 of it back (no
 * compression), compared byte for byte in the first run (the later ones
 * only count the bytes, so that comparing costs the timing nothing).
 *
 * The host copies each byte once, as adb does (file to WRTE, URB to
 * where it is parsed): on the single-CPU bed every copy on this side
 * would count against the device.
 *
 * The USB side keeps the bus busy the way adb's libusb backend does:
 * several IN transfers always queued (what arrives is parsed as a byte
 * stream), and under delayed_ack the WRTEs that fit the device's window
 * go out without waiting for each OKAY. Each header goes in a transfer
 * of its own; a payload that is a multiple of maxpacket ends with a ZLP.
 *
 * usage: adbhost [-k ADBKEY] [-r RUNS] [-c] [-P] VID:PID DEVPATH MIB
 *   -c: classic, no delayed_ack (one WRTE in flight, as adb 29).
 *   -P: pushes only (for a profile of the push alone).
 * Prints "push MB/s" and "pull MB/s" lines (best of RUNS, 10^6 bytes of
 * file per second, from SND2 to the device's OKAY, from RCV2 to DONE).
 * Exit 1 on any error, with a line on stderr saying which.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libusb-1.0/libusb.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "usbfind.h"

#define A_CNXN 0x4e584e43u
#define A_AUTH 0x48545541u
#define A_OPEN 0x4e45504fu
#define A_OKAY 0x59414b4fu
#define A_CLSE 0x45534c43u
#define A_WRTE 0x45545257u
#define A_VERSION 0x01000001u
#define AUTH_TOKEN 1
#define AUTH_SIGNATURE 2
#define HOST_MAXDATA (1024u * 1024)
#define SYNC_DATA_MAX (64u * 1024)
/* The receive window we grant, as AOSP's adb does. */
#define HOST_WINDOW (32u * 1024 * 1024)
#define RX_XFERS 4
#define RX_SIZE (1024u * 1024)
#define TX_MAX_INFLIGHT 16
#define TIMEOUT_S 20

#define FEATURES                                                             \
	"host::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,"  \
	"fixed_push_symlink_timestamp,abb_exec,remount_shell,track_app,"        \
	"sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,sendrecv_v2_zstd,"      \
	"sendrecv_v2_dry_run_send,openscreen_mdns,delayed_ack"
#define FEATURES_CLASSIC "host::features=shell_v2,stat_v2,ls_v2,sendrecv_v2"

struct msg {
	uint32_t cmd, arg0, arg1, len;
	const uint8_t *data;
};

static struct {
	libusb_device_handle *h;
	unsigned char ep_in, ep_out;
	int maxpkt;
	struct libusb_transfer *rx[RX_XFERS];
	uint8_t *acc; /* what came from the device, not parsed yet */
	size_t acc_off, acc_len, acc_cap;
	size_t consumed; /* of the message handed out last */
	int tx_inflight;
	bool failed;
	bool delayed_ack;
	uint32_t maxdata;
} H;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("adbhost: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void rx_done(struct libusb_transfer *x)
{
	size_t n = x->actual_length;

	if (x->status != LIBUSB_TRANSFER_COMPLETED) {
		H.failed = true;
		return;
	}
	if (H.acc_off && H.acc_len + n > H.acc_cap) {
		memmove(H.acc, H.acc + H.acc_off, H.acc_len - H.acc_off);
		H.acc_len -= H.acc_off;
		H.acc_off = 0;
	}
	if (H.acc_len + n > H.acc_cap) {
		H.acc_cap = (H.acc_len + n) * 2;
		H.acc = realloc(H.acc, H.acc_cap);
		if (!H.acc)
			die("out of memory");
	}
	memcpy(H.acc + H.acc_len, x->buffer, n);
	H.acc_len += n;
	if (libusb_submit_transfer(x) < 0)
		H.failed = true;
}

static void tx_done(struct libusb_transfer *x)
{
	if (x->status != LIBUSB_TRANSFER_COMPLETED)
		H.failed = true;
	H.tx_inflight--;
	free(x->buffer);
	libusb_free_transfer(x);
}

static void pump(void)
{
	struct timeval tv = { .tv_sec = TIMEOUT_S };
	int r = libusb_handle_events_timeout(NULL, &tv);

	if (r < 0)
		die("libusb: %s", libusb_error_name(r));
	if (H.failed)
		die("a USB transfer failed");
}

/* Queue buf (malloc'd, taken) on the OUT endpoint. */
static void tx_queue(uint8_t *buf, size_t len, bool zlp)
{
	struct libusb_transfer *x = libusb_alloc_transfer(0);

	while (H.tx_inflight >= TX_MAX_INFLIGHT)
		pump();
	if (!x)
		die("out of memory");
	libusb_fill_bulk_transfer(x, H.h, H.ep_out, buf, len, tx_done, NULL,
				  TIMEOUT_S * 1000);
	if (zlp)
		x->flags |= LIBUSB_TRANSFER_ADD_ZERO_PACKET;
	if (libusb_submit_transfer(x) < 0)
		die("cannot submit an OUT transfer");
	H.tx_inflight++;
}

/* One message: its header in a transfer of its own, then the payload
 * (taken: malloc'd, or NULL when len is 0). */
static void send_msg(uint32_t cmd, uint32_t a0, uint32_t a1, uint8_t *data,
		     size_t len)
{
	uint8_t *hdr = malloc(24);

	if (!hdr)
		die("out of memory");
	put32(hdr, cmd);
	put32(hdr + 4, a0);
	put32(hdr + 8, a1);
	put32(hdr + 12, len);
	put32(hdr + 16, 0); /* no data check from version 0x01000001 on */
	put32(hdr + 20, cmd ^ 0xffffffffu);
	tx_queue(hdr, 24, false);
	if (len)
		tx_queue(data, len, len % H.maxpkt == 0);
	else
		free(data);
}

static uint8_t *dup_bytes(const void *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (!d)
		die("out of memory");
	memcpy(d, p, n);
	return d;
}

/* The next whole message from the device; its data stays valid until the
 * next call. */
static void next_msg(struct msg *m)
{
	double end = now() + TIMEOUT_S;

	H.acc_off += H.consumed;
	H.consumed = 0;
	for (;;) {
		size_t have = H.acc_len - H.acc_off;
		const uint8_t *p = H.acc + H.acc_off;

		if (have >= 24) {
			m->cmd = get32(p);
			m->arg0 = get32(p + 4);
			m->arg1 = get32(p + 8);
			m->len = get32(p + 12);
			if (get32(p + 20) != (m->cmd ^ 0xffffffffu) ||
			    m->len > HOST_MAXDATA)
				die("bad message header from the device");
			if (have >= 24 + (size_t)m->len) {
				m->data = p + 24;
				H.consumed = 24 + m->len;
				return;
			}
		}
		if (now() > end)
			die("the device said nothing for %d s", TIMEOUT_S);
		pump();
	}
}

static void sign_token(const char *keyfile, const uint8_t *tok, size_t n)
{
	FILE *f = fopen(keyfile, "r");
	EVP_PKEY *k = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
	EVP_PKEY_CTX *c = k ? EVP_PKEY_CTX_new(k, NULL) : NULL;
	uint8_t sig[1024];
	size_t len = sizeof(sig);

	if (f)
		fclose(f);
	/* adb signs the raw token as if it were a SHA-1 digest. */
	if (!c || EVP_PKEY_sign_init(c) <= 0 ||
	    EVP_PKEY_CTX_set_signature_md(c, EVP_sha1()) <= 0 ||
	    EVP_PKEY_sign(c, sig, &len, tok, n) <= 0)
		die("cannot sign the token with %s", keyfile);
	EVP_PKEY_CTX_free(c);
	EVP_PKEY_free(k);
	send_msg(A_AUTH, AUTH_SIGNATURE, 0, dup_bytes(sig, len), len);
}

static void connect_device(const char *keyfile, bool classic)
{
	const char *banner = classic ? FEATURES_CLASSIC : FEATURES;
	struct msg m;
	bool signed_once = false;

	send_msg(A_CNXN, A_VERSION, HOST_MAXDATA,
		 dup_bytes(banner, strlen(banner) + 1), strlen(banner) + 1);
	for (;;) {
		next_msg(&m);
		if (m.cmd == A_CNXN)
			break;
		if (m.cmd != A_AUTH || m.arg0 != AUTH_TOKEN)
			continue;
		if (!keyfile || signed_once)
			die(keyfile ? "the device refused the key"
				    : "the device wants AUTH: give -k ADBKEY");
		sign_token(keyfile, m.data, m.len);
		signed_once = true;
	}
	H.maxdata = m.arg1 < HOST_MAXDATA ? m.arg1 : HOST_MAXDATA;
	H.delayed_ack = !classic && memmem(m.data, m.len, "delayed_ack", 11);
	if (!classic && !H.delayed_ack)
		die("the device does not announce delayed_ack");
}

/*
 * A sync stream. The WRTE being read is left where it arrived (H.acc) and
 * parsed in place: pay_rel is its offset from H.acc_off, which stays
 * right when the buffer is compacted or grown, and it stays there until
 * consumed, since next_msg() is only called again once pay_len is 0.
 */
struct stream {
	uint32_t local, remote;
	int64_t tx_avail; /* delayed_ack: bytes we may send; else 1 or 0 */
	size_t pay_rel, pay_len;
};

static void stream_open(struct stream *s, uint32_t id)
{
	struct msg m;

	memset(s, 0, sizeof(*s));
	s->local = id;
	send_msg(A_OPEN, id, H.delayed_ack ? HOST_WINDOW : 0,
		 dup_bytes("sync:", 6), 6);
	do
		next_msg(&m);
	while (m.arg1 != id);
	if (m.cmd != A_OKAY)
		die("OPEN sync: refused");
	s->remote = m.arg0;
	if (H.delayed_ack && m.len != 4)
		die("OKAY without a window under delayed_ack");
	s->tx_avail = H.delayed_ack ? (int32_t)get32(m.data) : 1;
}

static void stream_okay(struct stream *s, uint32_t n)
{
	uint8_t v[4];

	put32(v, n);
	send_msg(A_OKAY, s->local, s->remote,
		 H.delayed_ack ? dup_bytes(v, 4) : NULL, H.delayed_ack ? 4 : 0);
}

/* Handle one message for s: OKAYs open the window; a WRTE becomes the
 * payload being read and is acknowledged at once (a host that consumes
 * as fast as it comes). */
static void stream_step(struct stream *s)
{
	struct msg m;

	if (s->pay_len)
		die("internal: a WRTE is still being read");
	next_msg(&m);
	if (m.arg1 != s->local)
		return;
	switch (m.cmd) {
	case A_OKAY:
		s->tx_avail = H.delayed_ack ? s->tx_avail +
					      (int32_t)get32(m.data) : 1;
		return;
	case A_WRTE:
		s->pay_rel = m.data - (H.acc + H.acc_off);
		s->pay_len = m.len;
		stream_okay(s, m.len);
		return;
	case A_CLSE:
		die("the device closed the sync stream");
	}
}

/* Queue a WRTE of buf[0..k) (malloc'd, taken) within the window. */
static void stream_wrte(struct stream *s, uint8_t *buf, size_t k)
{
	while (s->tx_avail <= 0)
		stream_step(s);
	send_msg(A_WRTE, s->local, s->remote, buf, k);
	s->tx_avail = H.delayed_ack ? s->tx_avail - (int64_t)k : 0;
}

/* Up to n bytes of the stream: a pointer to them, *got set. */
static const uint8_t *sync_peek(struct stream *s, size_t n, size_t *got)
{
	while (!s->pay_len)
		stream_step(s);
	*got = n < s->pay_len ? n : s->pay_len;
	return H.acc + H.acc_off + s->pay_rel;
}

static void sync_skip(struct stream *s, size_t n)
{
	s->pay_rel += n;
	s->pay_len -= n;
}

/* The next n bytes of the stream into out. */
static void sync_take(struct stream *s, uint8_t *out, size_t n)
{
	while (n) {
		size_t k;
		const uint8_t *p = sync_peek(s, n, &k);

		memcpy(out, p, k);
		sync_skip(s, k);
		out += k;
		n -= k;
	}
}

static void sync_put(uint8_t *p, const char *id, uint32_t v)
{
	memcpy(p, id, 4);
	put32(p + 4, v);
}

static uint8_t *wrte_buf(void)
{
	uint8_t *b = malloc(H.maxdata);

	if (!b)
		die("out of memory");
	return b;
}

/* SND2 of data[0..size) to path: the sync messages are written straight
 * into WRTE payloads of maxdata bytes (a DATA message may straddle two),
 * the one copy a host makes of what it reads from a file. */
static void push(struct stream *s, const char *path, const uint8_t *data,
		 size_t size)
{
	size_t plen = strlen(path), off = 0, n, msg_left = 0;
	uint8_t *buf = wrte_buf(), hdr[8], reply[8];

	if (plen > 4096)
		die("path too long");
	sync_put(buf, "SND2", plen);
	memcpy(buf + 8, path, plen);
	sync_put(buf + 8 + plen, "SND2", 0100644);
	put32(buf + 16 + plen, 0); /* flags: no compression */
	n = 20 + plen;
	while (off < size || msg_left) {
		size_t k, room = H.maxdata - n;

		if (!msg_left) {
			/* Headers never straddle: 8 bytes or a new WRTE. */
			if (room < 8) {
				stream_wrte(s, buf, n);
				buf = wrte_buf();
				n = 0;
			}
			msg_left = size - off < SYNC_DATA_MAX ? size - off
							      : SYNC_DATA_MAX;
			sync_put(hdr, "DATA", msg_left);
			memcpy(buf + n, hdr, 8);
			n += 8;
			room = H.maxdata - n;
		}
		k = msg_left < room ? msg_left : room;
		memcpy(buf + n, data + off, k);
		n += k;
		off += k;
		msg_left -= k;
		if (n == H.maxdata) {
			stream_wrte(s, buf, n);
			buf = wrte_buf();
			n = 0;
		}
	}
	if (H.maxdata - n < 8) {
		stream_wrte(s, buf, n);
		buf = wrte_buf();
		n = 0;
	}
	sync_put(buf + n, "DONE", 1600000000);
	stream_wrte(s, buf, n + 8);
	sync_take(s, reply, 8);
	if (memcmp(reply, "OKAY", 4))
		die("push: the device answered %.4s", reply);
}

/* RCV2 of path: the DATA is read where it arrived, and compared with
 * data[0..size) when verify is set. */
static void pull(struct stream *s, const char *path, const uint8_t *data,
		 size_t size, bool verify)
{
	size_t plen = strlen(path), off = 0;
	uint8_t *req = wrte_buf(), h[8];

	if (plen > 4096)
		die("path too long");
	sync_put(req, "RCV2", plen);
	memcpy(req + 8, path, plen);
	sync_put(req + 8 + plen, "RCV2", 0); /* flags: no compression */
	stream_wrte(s, req, 16 + plen);
	for (;;) {
		uint32_t n;

		sync_take(s, h, 8);
		n = get32(h + 4);
		if (!memcmp(h, "DONE", 4))
			break;
		if (memcmp(h, "DATA", 4) || n > SYNC_DATA_MAX || n > size - off)
			die("pull: bad sync message %.4s %u", h, n);
		while (n) {
			size_t k;
			const uint8_t *p = sync_peek(s, n, &k);

			if (verify && memcmp(p, data + off, k))
				die("pull: bytes differ at %zu", off);
			sync_skip(s, k);
			off += k;
			n -= k;
		}
	}
	if (off != size)
		die("pull: %zu bytes of %zu", off, size);
}


static void usb_open(unsigned vid, unsigned pid)
{
	/* adb's interface: vendor class, subclass 0x42, protocol 1. */
	struct usbfind f = { .cls = 0xff, .subclass = 0x42, .protocol = 1 };

	if (libusb_init(NULL) < 0 ||
	    !(H.h = libusb_open_device_with_vid_pid(NULL, vid, pid)))
		die("no device %04x:%04x", vid, pid);
	if (usbfind_bulk(libusb_get_device(H.h), &f) < 0 ||
	    libusb_claim_interface(H.h, f.intf) < 0)
		die("no adb interface to claim");
	H.ep_in = f.in;
	H.ep_out = f.out;
	H.maxpkt = f.maxpkt;
	for (int i = 0; i < RX_XFERS; i++) {
		H.rx[i] = libusb_alloc_transfer(0);
		uint8_t *b = malloc(RX_SIZE);

		if (!H.rx[i] || !b)
			die("out of memory");
		libusb_fill_bulk_transfer(H.rx[i], H.h, H.ep_in, b, RX_SIZE,
					  rx_done, NULL, 0);
		if (libusb_submit_transfer(H.rx[i]) < 0)
			die("cannot submit an IN transfer");
	}
}

int main(int argc, char **argv)
{
	const char *keyfile = NULL;
	unsigned vid, pid, runs = 3;
	double best_push = 1e9, best_pull = 1e9;
	bool classic = false, push_only = false;
	struct stream s;
	uint8_t *data;
	size_t size;
	int o;

	while ((o = getopt(argc, argv, "k:r:cP")) != -1) {
		switch (o) {
		case 'k': keyfile = optarg; break;
		case 'r': runs = atoi(optarg); break;
		case 'c': classic = true; break;
		case 'P': push_only = true; break;
		default: goto usage;
		}
	}
	if (argc - optind != 3 ||
	    sscanf(argv[optind], "%x:%x", &vid, &pid) != 2 || !runs ||
	    (size = strtoull(argv[optind + 2], NULL, 0) << 20) == 0)
		goto usage;
	data = malloc(size);
	if (!data)
		die("out of memory");
	/* xorshift64, 8 bytes a step: rand() a byte took seconds under TCG,
	 * which a profile of the run then mostly showed. */
	for (uint64_t x = (uint64_t)time(NULL) | 1, i = 0; i < size; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(data + i, &x, size - i < 8 ? size - i : 8);
	}
	usb_open(vid, pid);
	connect_device(keyfile, classic);
	stream_open(&s, 1);
	for (unsigned i = 0; i < runs; i++) {
		double t = now();

		push(&s, argv[optind + 1], data, size);
		if (now() - t < best_push)
			best_push = now() - t;
		if (push_only)
			continue;
		t = now();
		pull(&s, argv[optind + 1], data, size, i == 0);
		if (now() - t < best_pull)
			best_pull = now() - t;
	}
	send_msg(A_CLSE, s.local, s.remote, NULL, 0);
	while (H.tx_inflight)
		pump();
	printf("push %.1f\n", size / 1e6 / best_push);
	if (!push_only)
		printf("pull %.1f\n", size / 1e6 / best_pull);
	return 0;
usage:
	fprintf(stderr, "usage: adbhost [-k ADBKEY] [-r RUNS] [-c] [-P] VID:PID "
			"DEVPATH MIB\n");
	return 2;
}
