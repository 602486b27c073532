#ifndef FFSDESCS_H
#define FFSDESCS_H
/* The bench's FunctionFS functions' descriptors (ffsdesc, ffsfile,
 * adbnull): one interface, full and high speed, as the plugins write. */

#define FFSDESC_MAX_EPS 4

/* ffsdesc_write: writes to DIR/ep0 the descriptors of one interface of
 * class CLS[0], subclass CLS[1], protocol CLS[2] with the endpoints EPS,
 * one letter each in order (i bulk IN, o bulk OUT, n interrupt IN of 28
 * bytes, bInterval 6 at high speed: the mtp plugin's event endpoint),
 * then STR as its string. Returns the ep0 fd, or -1 with errno set. */
int ffsdesc_write(const char *dir, const long cls[3], const char *eps, const char *str);

/* ffsdesc_wait_enable: reads ep0's events until FUNCTIONFS_ENABLE (the
 * host has configured the function); 0, or -1 when ep0 fails. */
int ffsdesc_wait_enable(int ep0);

/* ffsdesc_open_ep: DIR/epN opened read-write; the fd or -1. */
int ffsdesc_open_ep(const char *dir, int n);
#endif
