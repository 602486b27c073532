#ifndef ADBHOP_H
#define ADBHOP_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* CLOCK_MONOTONIC in seconds. */
double adbhop_now(void);
/* All n bytes, or -1. */
int adbhop_write_all(int fd, const unsigned char *p, size_t n);
/* Up to n bytes, fewer only at EOF; -1 on an error. */
ssize_t adbhop_read_full(int fd, unsigned char *p, size_t n);
/* Puts a child between fd and the caller, moving the bytes 64 KiB at a
 * time through a loopback TCP socket (to the host: from the socket into
 * fd). Returns the caller's end of the socket, which replaces fd (closed
 * here), and the child's pid in *child; -1 on an error. */
int adbhop_start(int fd, bool to_host, pid_t *child);
#endif
