/*
 * adbtcp: adb 29's pattern over TCP between two small programs, the
 * bound of adb over TCP that b-net.sh prints beside adb's own rate and
 * iperf3's. Debian's adb 29 moves a push or pull over TCP as one stream
 * with one WRTE in flight (no delayed_ack): each WRTE is a 24-byte header
 * written alone, then its payload (1 MiB, the max payload adb 29 and the
 * adb plugin agree on) written alone, and the next one waits for the
 * device's 24-byte OKAY. That wait is adb's protocol, not any device's.
 *
 * adbtcp serve PORT SRC DST (the board): answers one connection after
 * the other. The first 24 bytes say what the host wants: "PUSH" (each
 * WRTE's payload read whole, the OKAY sent, the payload written to DST)
 * or "PULL" (SRC read a chunk at a time, each sent as a header and its
 * payload in one writev, then the OKAY awaited), arg0 the chunk, arg1 the
 * bytes. TCP_NODELAY, as the adb plugin sets.
 *
 * adbtcp push|pull|hoppush|hoppull HOST PORT BYTES CHUNK FILE (the host):
 * BYTES from FILE to the board, or from the board to FILE, with adb 29's
 * pattern (TCP_NODELAY, as adb 29 sets on its connection). hoppush and
 * hoppull add what adb 29's own design adds on the host: the bytes pass
 * between the adb client, which reads or writes the file 64 KiB at a
 * time, and the adb server, which does the device side, through TCP over
 * the loopback (here a child process and a TCP connection), as
 * usbsync.c's adbhop. Prints MB/s (10^6 bytes of payload); exit 1 on any
 * error.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adbhop.h"

#define HDR 24

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A 24-byte header: cmd, arg0, arg1, payload length; the rest as adb's
 * magic would be, unchecked. */
static void hdr(unsigned char *h, const char *cmd, uint32_t a0, uint32_t a1,
		uint32_t len)
{
	memset(h, 0, HDR);
	memcpy(h, cmd, 4);
	put32(h + 4, a0);
	put32(h + 8, a1);
	put32(h + 12, len);
	put32(h + 20, ~get32(h));
}

static void nodelay(int fd)
{
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
}

/* The board's half of a push: each WRTE read whole, acknowledged, then
 * written to the file (the plugin's sync queues its OKAY first too). */
static int serve_push(int c, const char *dst, unsigned char *buf,
		      size_t chunk, uint64_t total)
{
	int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	unsigned char h[HDR], ok[HDR];
	uint64_t done = 0;

	if (fd < 0)
		return -1;
	hdr(ok, "OKAY", 1, 1, 0);
	while (done < total) {
		uint32_t len;

		if (adbhop_read_full(c, h, HDR) != HDR)
			break;
		len = get32(h + 12);
		if (len > chunk || adbhop_read_full(c, buf, len) != (ssize_t)len ||
		    adbhop_write_all(c, ok, HDR) < 0 || adbhop_write_all(fd, buf, len) < 0)
			break;
		done += len;
	}
	close(fd);
	return done == total ? 0 : -1;
}

/* The board's half of a pull: a header and its payload in one writev,
 * as the plugin's sendmsg, then the wait for the OKAY. */
static int serve_pull(int c, const char *src, unsigned char *buf,
		      size_t chunk, uint64_t total)
{
	int fd = open(src, O_RDONLY);
	unsigned char h[HDR], ok[HDR];
	uint64_t done = 0;

	if (fd < 0)
		return -1;
	while (done < total) {
		size_t want = total - done < chunk ? total - done : chunk;
		struct iovec iov[2] = { { h, HDR }, { buf, want } };
		ssize_t n = adbhop_read_full(fd, buf, want);

		if (n != (ssize_t)want)
			break;
		hdr(h, "WRTE", 1, 1, want);
		if (writev(c, iov, 2) != (ssize_t)(HDR + want) ||
		    adbhop_read_full(c, ok, HDR) != HDR)
			break;
		done += want;
	}
	close(fd);
	return done == total ? 0 : -1;
}

static int serve(const char *port, const char *src, const char *dst)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(atoi(port)) };
	int l = socket(AF_INET, SOCK_STREAM, 0);
	unsigned char *buf = NULL;
	size_t have = 0;

	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 4) < 0) {
		perror("adbtcp: listen");
		return 1;
	}
	for (;;) {
		int c = accept(l, NULL, NULL);
		unsigned char h[HDR];
		size_t chunk;
		uint64_t total;

		if (c < 0)
			continue;
		nodelay(c);
		if (adbhop_read_full(c, h, HDR) != HDR) {
			close(c);
			continue;
		}
		chunk = get32(h + 4);
		total = get32(h + 8);
		if (chunk > have) {
			free(buf);
			buf = malloc(chunk);
			have = buf ? chunk : 0;
		}
		if (!buf || !chunk)
			fprintf(stderr, "adbtcp: no buffer for %zu\n", chunk);
		else if (!memcmp(h, "PUSH", 4))
			serve_push(c, dst, buf, chunk, total);
		else if (!memcmp(h, "PULL", 4))
			serve_pull(c, src, buf, chunk, total);
		close(c);
	}
}

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int s;

	if (getaddrinfo(host, port, &hints, &ai))
		return -1;
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen) < 0) {
		close(s);
		s = -1;
	}
	freeaddrinfo(ai);
	if (s >= 0)
		nodelay(s);
	return s;
}

int main(int argc, char **argv)
{
	unsigned char h[HDR], *buf;
	uint64_t total, done = 0;
	bool push, via_hop;
	pid_t child = -1;
	int s, fd, status = 0;
	size_t chunk;
	double t0;

	if (argc == 5 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3], argv[4]);
	if (argc != 7 || (strcmp(argv[1], "push") && strcmp(argv[1], "pull") &&
			  strcmp(argv[1], "hoppush") &&
			  strcmp(argv[1], "hoppull"))) {
		fprintf(stderr, "usage: adbtcp serve PORT SRC DST\n"
				"       adbtcp push|pull|hoppush|hoppull HOST "
				"PORT BYTES CHUNK FILE\n");
		return 2;
	}
	via_hop = !strncmp(argv[1], "hop", 3);
	push = !strcmp(argv[1] + (via_hop ? 3 : 0), "push");
	total = strtoull(argv[4], NULL, 0);
	chunk = strtoul(argv[5], NULL, 0);
	buf = malloc(chunk ? chunk : 1);
	fd = push ? open(argv[6], O_RDONLY)
		  : open(argv[6], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!buf || fd < 0 || !total || total > UINT32_MAX || !chunk ||
	    chunk > UINT32_MAX) {
		perror("adbtcp");
		return 1;
	}
	if (via_hop && (fd = adbhop_start(fd, !push, &child)) < 0) {
		perror("adbtcp: hop");
		return 1;
	}
	s = dial(argv[2], argv[3]);
	if (s < 0) {
		fprintf(stderr, "adbtcp: cannot connect to %s:%s\n", argv[2],
			argv[3]);
		return 1;
	}
	t0 = adbhop_now();
	hdr(h, push ? "PUSH" : "PULL", chunk, total, 0);
	if (adbhop_write_all(s, h, HDR) < 0)
		return 1;
	while (done < total) {
		size_t want = total - done < chunk ? total - done : chunk;
		uint32_t len;

		if (push) {
			/* adb 29's server: the header, then the payload,
			 * each in a write of its own; then the OKAY. */
			if (adbhop_read_full(fd, buf, want) != (ssize_t)want)
				break;
			hdr(h, "WRTE", 1, 1, want);
			if (adbhop_write_all(s, h, HDR) < 0 ||
			    adbhop_write_all(s, buf, want) < 0 ||
			    adbhop_read_full(s, h, HDR) != HDR)
				break;
			len = want;
		} else {
			if (adbhop_read_full(s, h, HDR) != HDR)
				break;
			len = get32(h + 12);
			if (len > want || adbhop_read_full(s, buf, len) != (ssize_t)len ||
			    adbhop_write_all(fd, buf, len) < 0)
				break;
			hdr(h, "OKAY", 1, 1, 0);
			if (adbhop_write_all(s, h, HDR) < 0)
				break;
		}
		done += len;
	}
	if (done < total) {
		fprintf(stderr, "adbtcp: stopped after %llu bytes\n",
			(unsigned long long)done);
		return 1;
	}
	close(fd);
	if (via_hop && (waitpid(child, &status, 0) < 0 || status)) {
		fprintf(stderr, "adbtcp: the client half failed\n");
		return 1;
	}
	printf("%.1f\n", total / 1e6 / (adbhop_now() - t0));
	close(s);
	return 0;
}
