/*
 * What the bench's adb-pattern programs share (usbsync.c over USB,
 * adbtcp.c over TCP): a clock, whole reads and writes, and adb's
 * client-server hop, a child moving the bytes through a loopback TCP
 * socket as the adb client does to its server.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "adbhop.h"

double adbhop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int adbhop_write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k <= 0)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

ssize_t adbhop_read_full(int fd, unsigned char *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);

		if (k <= 0)
			return k < 0 ? -1 : (ssize_t)got;
		got += k;
	}
	return got;
}

/* A connected pair of TCP sockets over the loopback, as between the adb
 * client and its server (localhost:5037). */
static int adbhop_pair(int sv[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(l, 1) < 0 || getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return -1;
	sv[1] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[1] < 0 || connect(sv[1], (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	sv[0] = accept(l, NULL, NULL);
	close(l);
	return sv[0] < 0 ? -1 : 0;
}

/* The adb client's half: a child moving the file through a TCP socket
 * 64 KiB at a time. Returns our end of the socket, which replaces fd. */
int adbhop_start(int fd, bool to_host, pid_t *child)
{
	int sv[2];

	if (adbhop_pair(sv) < 0 || (*child = fork()) < 0)
		return -1;
	if (*child == 0) {
		static unsigned char b[65536];
		int from = to_host ? sv[1] : fd, to = to_host ? fd : sv[1];
		ssize_t k;

		close(sv[0]);
		while ((k = read(from, b, sizeof(b))) > 0)
			if (adbhop_write_all(to, b, k) < 0)
				_exit(1);
		_exit(k < 0);
	}
	close(sv[1]);
	close(fd);
	return sv[0];
}
