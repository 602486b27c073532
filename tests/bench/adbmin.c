/*
 * adbmin: the device side of b-adb's and b-net's "least daemon" bound.
 * It answers Debian's own adb 29 (client and server, unchanged) as an
 * adb daemon that does, for the bytes, only what any daemon must: a
 * push's data is written to its file as it comes off the bus or link,
 * a pull's data read from its file. No event loop, no auth, no checks,
 * no other service. What adb 29 reaches against it is about the most
 * any daemon can give adb 29's own transfer pattern on this bus or link,
 * its client-server hop and its server's own cost included, which the
 * two-program bounds (usbsync.c's adbhop, adbtcp.c) leave out.
 *
 * It speaks as little ADB as a push or pull of one file needs:
 *   CNXN answered at once (no AUTH), version 0x01000001 (no checksums),
 *     max payload 1 MiB, the adb plugin's features that adb 29 knows;
 *   OPEN "sync:" accepted (one stream at a time), anything else CLSEd;
 *   the host's WRTE acknowledged with OKAY at its header, before its
 *     payload is read, as the adb plugin does; the device's own WRTEs
 *     one at a time, each after the host's OKAY of the one before;
 *   sync: STAT, STA2 and LST2 answered from the real file (so that adb
 *     decides push or pull targets as it would), LIST and LIS2 as
 *     empty, SEND's DATA written to the file (created or truncated,
 *     mode 0644) to its DONE, answered OKAY; RECV answered with the
 *     file in DATA messages of 64 KiB, one readv() filling as many as
 *     the max payload of one WRTE holds, then DONE; QUIT (the stream then closed from here, as
 *     adbd and the adb plugin do: adb's client waits for that).
 * Anything else ends the connection; adb 29 sends nothing else for
 * `adb push FILE PATH` and `adb pull PATH FILE`.
 *
 * usage: adbmin [-n] ffs FFSDIR     (prints "ready" once the descriptors
 *                                   are in; serves each bus session in turn)
 *        adbmin [-n | -s] tcp PORT  (serves each connection in turn)
 * -n: no work for the bytes at all, the ceiling rather than the least
 * daemon: a push's data is written to /dev/null, a pull sends as many
 * bytes as the file has without reading them (the host gets whatever
 * the buffer holds).
 * -s: a push's DATA bytes go from the socket into their file with
 * splice(2), through one pipe made at the start (1 MiB where the system
 * allows it), never through the buffer: the socket's pages go into the
 * pipe by reference where the kernel can (a packet whose data is not in
 * a page fragment is copied), then are copied into the file, where the
 * least daemon copies twice (issue 39's question whether that copy is
 * what keeps a push below the link). A host WRTE's payload is read as it
 * is parsed: adb's headers, the sync headers (DATA/DONE and a length)
 * and paths into the buffer by read(), only as far as each needs, so
 * that the DATA after them stays in the socket for splice(). Everything
 * else as without -s.
 * It runs until killed; exit 1 on a setup error.
 */
#define _GNU_SOURCE /* splice, F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ffsdescs.h"

#define HDR 24
#define MAXDATA (1024 * 1024)
#define SYNC_DATA 65536
/* f_fs allocates each request's buffer in the kernel: at most this much
 * a read or write, as the adb plugin's requests are. */
#define XFER (256 * 1024)
#define A_CNXN 0x4e584e43
#define A_OPEN 0x4e45504f
#define A_OKAY 0x59414b4f
#define A_CLSE 0x45534c43
#define A_WRTE 0x45545257
#define FEATURES "shell_v2,stat_v2,ls_v2,fixed_push_mkdir,fixed_push_symlink_timestamp"

struct adbmin {
	int in, out;  /* to the host, from the host (the same socket for tcp) */
	bool usb;
	uint32_t remote; /* the host's id of the open sync stream, 0 if none */
	bool awaiting;   /* a WRTE of ours not yet OKAYed */
	bool quit;       /* QUIT: the stream is closed from here, as adbd does */
	unsigned char reply[256]; /* sync replies not yet sent */
	size_t reply_len;
	/* the sync request being parsed across WRTE payloads */
	unsigned char req[8];
	size_t req_have;
	uint32_t req_len;
	char path[1024];
	size_t path_have;
	enum { SY_HEAD, SY_PATH, SY_DATA } sy;
	uint32_t left; /* bytes of the current DATA (or path) still to come */
	int send_fd;  /* the file a SEND writes, -1 if none */
	int recv_fd;  /* the file a RECV reads, -1 if none */
	bool drop;    /* -n: no work for the bytes at all */
	long long recv_left; /* -n: a RECV's bytes not yet sent */
	bool splice;  /* -s: a push's DATA spliced from the socket to the file */
	int pipe[2];  /* -s: the pipe it goes through, empty between splices */
	size_t pipe_size;
	bool failed;  /* a file error: the connection ends */
	unsigned char buf[MAXDATA];
};

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

/* All n bytes from the host; a zero-length read (a ZLP ending the host's
 * last payload on USB) is skipped. 0, or -1 when the session ended. */
static int an_read(struct adbmin *a, unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = read(a->out, p, a->usb && n > XFER ? XFER : n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == 0 && !a->usb))
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

/* All n bytes to fd, at most max a write(). */
static int write_all(int fd, const unsigned char *p, size_t n, size_t max)
{
	while (n) {
		ssize_t r = write(fd, p, n > max ? max : n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= r;
	}
	return 0;
}

static int an_write(struct adbmin *a, const unsigned char *p, size_t n)
{
	return write_all(a->in, p, n, a->usb ? XFER : n);
}

/* One message: on USB the header and the payload are transfers of their
 * own, as adb's hosts read them; over TCP one writev. */
static int an_send(struct adbmin *a, uint32_t cmd, uint32_t a0, uint32_t a1,
		   const unsigned char *data, size_t len)
{
	unsigned char h[HDR] = { 0 };

	put32(h, cmd);
	put32(h + 4, a0);
	put32(h + 8, a1);
	put32(h + 12, len);
	put32(h + 20, ~cmd);
	if (!a->usb) {
		struct iovec iov[2] = { { h, HDR }, { (void *)data, len } };
		size_t want = HDR + len;
		ssize_t r = writev(a->in, iov, len ? 2 : 1);

		if (r == (ssize_t)want)
			return 0;
		if (r < HDR)
			return -1;
		return an_write(a, data + (r - HDR), want - r);
	}
	if (an_write(a, h, HDR) < 0)
		return -1;
	return len ? an_write(a, data, len) : 0;
}

static void an_reply(struct adbmin *a, const unsigned char *p, size_t n)
{
	if (a->reply_len + n <= sizeof(a->reply)) {
		memcpy(a->reply + a->reply_len, p, n);
		a->reply_len += n;
	}
}

/* STAT (v1) or STA2/LST2 of the real path. */
static void an_stat(struct adbmin *a)
{
	struct stat st;
	int rc = memcmp(a->req, "LST2", 4) ? stat(a->path, &st) : lstat(a->path, &st);
	unsigned char r[72] = { 0 };

	memcpy(r, a->req, 4);
	if (!memcmp(a->req, "STAT", 4)) {
		if (rc == 0) {
			put32(r + 4, st.st_mode);
			put32(r + 8, st.st_size);
			put32(r + 12, st.st_mtime);
		}
		an_reply(a, r, 16);
		return;
	}
	if (rc < 0) {
		put32(r + 4, errno);
	} else {
		put64(r + 8, st.st_dev);
		put64(r + 16, st.st_ino);
		put32(r + 24, st.st_mode);
		put32(r + 28, st.st_nlink);
		put32(r + 32, st.st_uid);
		put32(r + 36, st.st_gid);
		put64(r + 40, st.st_size);
		put64(r + 48, st.st_atime);
		put64(r + 56, st.st_mtime);
		put64(r + 64, st.st_ctime);
	}
	an_reply(a, r, sizeof(r));
}

static void an_status(struct adbmin *a, const char *id)
{
	unsigned char r[8] = { 0 };

	memcpy(r, id, 4);
	an_reply(a, r, sizeof(r));
}

/* A request whose path is whole. */
static int an_request(struct adbmin *a)
{
	a->path[a->path_have] = 0;
	if (!memcmp(a->req, "STAT", 4) || !memcmp(a->req, "STA2", 4) ||
	    !memcmp(a->req, "LST2", 4)) {
		an_stat(a);
	} else if (!memcmp(a->req, "LIST", 4) || !memcmp(a->req, "LIS2", 4)) {
		an_status(a, "DONE");
	} else if (!memcmp(a->req, "SEND", 4)) {
		char *comma = strrchr(a->path, ',');

		if (comma)
			*comma = 0;
		a->send_fd = open(a->drop ? "/dev/null" : a->path,
				  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (a->send_fd < 0)
			return -1;
		/* DATA and DONE follow. */
	} else if (!memcmp(a->req, "RECV", 4)) {
		struct stat st;

		a->recv_fd = open(a->path, O_RDONLY | O_CLOEXEC);
		if (a->recv_fd < 0 || fstat(a->recv_fd, &st) < 0)
			return -1;
		a->recv_left = st.st_size;
	} else {
		return -1;
	}
	return 0;
}

/* The sync bytes of one host WRTE. */
static int an_sync(struct adbmin *a, const unsigned char *p, size_t n)
{
	while (n) {
		size_t k;

		switch (a->sy) {
		case SY_HEAD:
			k = sizeof(a->req) - a->req_have < n ? sizeof(a->req) - a->req_have : n;
			memcpy(a->req + a->req_have, p, k);
			a->req_have += k;
			p += k;
			n -= k;
			if (a->req_have < sizeof(a->req))
				break;
			a->req_have = 0;
			a->req_len = get32(a->req + 4);
			if (!memcmp(a->req, "DATA", 4)) {
				a->left = a->req_len;
				a->sy = a->left ? SY_DATA : SY_HEAD;
			} else if (!memcmp(a->req, "DONE", 4)) {
				if (a->send_fd < 0 || close(a->send_fd) < 0)
					return -1;
				a->send_fd = -1;
				an_status(a, "OKAY");
			} else if (!memcmp(a->req, "QUIT", 4)) {
				a->quit = true;
				return 0;
			} else if (a->req_len >= sizeof(a->path)) {
				return -1;
			} else {
				a->path_have = 0;
				a->left = a->req_len;
				a->sy = SY_PATH;
				if (!a->left && an_request(a) < 0)
					return -1;
			}
			break;
		case SY_PATH:
			k = a->left < n ? a->left : n;
			memcpy(a->path + a->path_have, p, k);
			a->path_have += k;
			a->left -= k;
			p += k;
			n -= k;
			if (!a->left) {
				a->sy = SY_HEAD;
				if (an_request(a) < 0)
					return -1;
			}
			break;
		case SY_DATA:
			/* A push's bytes, into its file. */
			k = a->left < n ? a->left : n;
			if (a->send_fd < 0 || write_all(a->send_fd, p, k, k) < 0)
				return -1;
			a->left -= k;
			p += k;
			n -= k;
			if (!a->left)
				a->sy = SY_HEAD;
			break;
		}
	}
	return 0;
}

/* -s: n bytes left in the pipe by a failed write to the file, read and
 * dropped, so that the next connection's push starts with it empty. */
static void an_pipe_drop(struct adbmin *a, size_t n)
{
	while (n) {
		ssize_t r = read(a->pipe[0], a->buf, n < MAXDATA ? n : MAXDATA);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		n -= r;
	}
}

/* -s: the next n bytes of the socket, a push's DATA, into its file:
 * socket to pipe, then pipe to file, at most the pipe's size at a time.
 * SPLICE_F_MOVE is a hint only (a no-op since Linux 2.6.21, splice(2));
 * SPLICE_F_MORE is left out, as it hints a socket written to, and the
 * file is the only thing written here. */
static int an_splice(struct adbmin *a, size_t n)
{
	if (a->send_fd < 0)
		return -1;
	while (n) {
		ssize_t in = splice(a->out, NULL, a->pipe[1], NULL,
				    n < a->pipe_size ? n : a->pipe_size, SPLICE_F_MOVE);

		if (in < 0 && errno == EINTR)
			continue;
		if (in <= 0)
			return -1;
		n -= in;
		while (in) {
			ssize_t r = splice(a->pipe[0], NULL, a->send_fd, NULL, in, SPLICE_F_MOVE);

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				an_pipe_drop(a, in);
				return -1;
			}
			in -= r;
		}
	}
	return 0;
}

/* -s: the len payload bytes of one host WRTE, still in the socket, read
 * as an_sync parses them: a push's DATA bytes spliced into the file, and
 * everything else (a sync header, a path; a sync message may span two
 * WRTEs, a WRTE may hold several) read into buf, only as far as the part
 * being parsed needs, and handed to an_sync. */
static int an_sync_spliced(struct adbmin *a, uint32_t len)
{
	while (len) {
		uint32_t k;

		if (a->quit) {
			/* Bytes after a QUIT: read and dropped, as an_sync does. */
			return an_read(a, a->buf, len);
		}
		if (a->sy == SY_DATA) {
			k = a->left < len ? a->left : len;
			if (an_splice(a, k) < 0)
				return -1;
			a->left -= k;
			if (!a->left)
				a->sy = SY_HEAD;
		} else {
			k = a->sy == SY_HEAD ? sizeof(a->req) - a->req_have : a->left;
			if (k > len)
				k = len;
			if (an_read(a, a->buf, k) < 0 || an_sync(a, a->buf, k) < 0)
				return -1;
		}
		len -= k;
	}
	return 0;
}

/* DATA messages read straight from the RECV's file into buf, as many 64
 * KiB ones as room holds, by one readv(); at its end, DONE. Returns the
 * bytes put in buf, or -1 on a read error. */
static ssize_t an_recv_more(struct adbmin *a, unsigned char *buf, size_t room)
{
	struct iovec iov[MAXDATA / SYNC_DATA];
	size_t n = 0, off = 0;
	int cnt = 0;
	ssize_t r;

	while (cnt < (int)(sizeof(iov) / sizeof(iov[0])) && room - off >= 8 + SYNC_DATA) {
		iov[cnt].iov_base = buf + off + 8;
		iov[cnt++].iov_len = SYNC_DATA;
		off += 8 + SYNC_DATA;
	}
	if (cnt == 0)
		return 0;
	if (a->drop) {
		/* -n: whatever the buffer holds, as much as the file has. */
		r = a->recv_left < (long long)(cnt * SYNC_DATA) ? a->recv_left : cnt * SYNC_DATA;
		a->recv_left -= r;
	} else {
		do {
			r = readv(a->recv_fd, iov, cnt);
		} while (r < 0 && errno == EINTR);
	}
	if (r < 0)
		return -1;
	for (int i = 0; i < cnt && r > 0; i++) {
		size_t k = (size_t)r < SYNC_DATA ? (size_t)r : SYNC_DATA;

		memcpy(buf + n, "DATA", 4);
		put32(buf + n + 4, k);
		n += 8 + k;
		r -= k;
	}
	if (n < off || n == 0) {
		/* Short: the end of the file (tmpfs reads whole otherwise). */
		memcpy(buf + n, "DONE", 4);
		put32(buf + n + 4, 0);
		n += 8;
		close(a->recv_fd);
		a->recv_fd = -1;
	}
	return n;
}

/* The next WRTE of ours, if one is due and the last was OKAYed: queued
 * replies first, then a RECV's DATA (and its DONE) up to the max
 * payload. */
static int an_flush(struct adbmin *a)
{
	size_t n = 0;

	if (a->awaiting || !a->remote)
		return 0;
	if (a->reply_len) {
		memcpy(a->buf, a->reply, a->reply_len);
		n = a->reply_len;
		a->reply_len = 0;
	}
	if (a->recv_fd >= 0) {
		ssize_t r = an_recv_more(a, a->buf + n, MAXDATA - n);

		if (r < 0)
			return -1;
		n += r;
	}
	if (!n)
		return 0;
	a->awaiting = true;
	return an_send(a, A_WRTE, 1, a->remote, a->buf, n);
}

/* One connection (a bus session or a TCP connection), until it ends. */
static void an_serve(struct adbmin *a)
{
	static const char banner[] = "device::ro.product.name=adbmin;"
				     "ro.product.model=adbmin;ro.product.device=adbmin;"
				     "features=" FEATURES;
	unsigned char h[HDR];

	a->remote = 0;
	a->awaiting = false;
	a->quit = false;
	a->reply_len = 0;
	if (a->send_fd >= 0)
		close(a->send_fd);
	if (a->recv_fd >= 0)
		close(a->recv_fd);
	a->send_fd = a->recv_fd = -1;
	for (;;) {
		uint32_t cmd, a0, len;

		if (an_read(a, h, HDR) < 0)
			return;
		cmd = get32(h);
		a0 = get32(h + 4);
		len = get32(h + 12);
		if (len > MAXDATA)
			return;
		if (cmd == A_WRTE && an_send(a, A_OKAY, 1, a0, NULL, 0) < 0)
			return;
		if (cmd == A_WRTE && a->splice) {
			if (an_sync_spliced(a, len) < 0)
				return;
		} else if (len && an_read(a, a->buf, len) < 0) {
			return;
		}
		switch (cmd) {
		case A_CNXN:
			if (an_send(a, A_CNXN, 0x01000001, MAXDATA,
				    (const unsigned char *)banner, sizeof(banner) - 1) < 0)
				return;
			a->remote = 0;
			break;
		case A_OPEN:
			if (a->remote || len < 5 || memcmp(a->buf, "sync:", 5)) {
				if (an_send(a, A_CLSE, 0, a0, NULL, 0) < 0)
					return;
				break;
			}
			a->remote = a0;
			a->awaiting = false;
			a->sy = SY_HEAD;
			a->req_have = 0;
			if (an_send(a, A_OKAY, 1, a0, NULL, 0) < 0)
				return;
			break;
		case A_WRTE:
			if (!a->splice && an_sync(a, a->buf, len) < 0)
				return;
			break;
		case A_OKAY:
			a->awaiting = false;
			break;
		case A_CLSE:
			if (a->remote && an_send(a, A_CLSE, 1, a->remote, NULL, 0) < 0)
				return;
			a->remote = 0;
			a->reply_len = 0;
			break;
		default:
			return;
		}
		if (an_flush(a) < 0)
			return;
		if (a->quit) {
			if (an_send(a, A_CLSE, 1, a->remote, NULL, 0) < 0)
				return;
			a->quit = false;
			a->remote = 0;
		}
	}
}

static int an_ffs(struct adbmin *a, const char *dir)
{
	int ep0 = ffsdesc_write(dir, (const long[3]){ 0xff, 0x42, 0x01 }, "io",
				"ADB Interface");

	if (ep0 < 0) {
		perror("adbmin: descriptors");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	a->usb = true;
	for (;;) {
		if (ffsdesc_wait_enable(ep0) < 0) {
			perror("adbmin: ep0");
			return 1;
		}
		a->in = ffsdesc_open_ep(dir, 1);
		a->out = ffsdesc_open_ep(dir, 2);
		if (a->in < 0 || a->out < 0) {
			perror("adbmin: endpoints");
			return 1;
		}
		an_serve(a);
		close(a->in);
		close(a->out);
	}
}

static int an_tcp(struct adbmin *a, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) < 0 ||
	    bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 4) < 0) {
		perror("adbmin: listen");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept(l, NULL, NULL);

		if (c < 0)
			continue;
		/* As the adb plugin sets. */
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		a->in = a->out = c;
		an_serve(a);
		close(c);
	}
}

/* -s: the pipe a push's DATA goes through, 1 MiB if the system allows
 * (pipe-max-size; root may pass it), else the default. */
static int an_pipe(struct adbmin *a)
{
	int size;

	if (pipe2(a->pipe, O_CLOEXEC) < 0) {
		perror("adbmin: pipe");
		return -1;
	}
	fcntl(a->pipe[1], F_SETPIPE_SZ, MAXDATA);
	size = fcntl(a->pipe[1], F_GETPIPE_SZ);
	if (size <= 0) {
		perror("adbmin: F_GETPIPE_SZ");
		return -1;
	}
	a->pipe_size = size;
	fprintf(stderr, "adbmin: splicing through a pipe of %d bytes\n", size);
	return 0;
}

int main(int argc, char **argv)
{
	static struct adbmin a = { .send_fd = -1, .recv_fd = -1 };

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		a.drop = true;
		argc--;
		argv++;
	} else if (argc > 1 && !strcmp(argv[1], "-s")) {
		a.splice = true;
		argc--;
		argv++;
	}
	if (argc == 3 && !strcmp(argv[1], "ffs") && !a.splice)
		return an_ffs(&a, argv[2]);
	if (argc == 3 && !strcmp(argv[1], "tcp") && atoi(argv[2]) > 0) {
		if (a.splice && an_pipe(&a) < 0)
			return 1;
		return an_tcp(&a, atoi(argv[2]));
	}
	fprintf(stderr, "usage: adbmin [-n] ffs FFSDIR | adbmin [-n | -s] tcp PORT\n");
	return 2;
}
