/*
 * strv: a list of NUL-terminated strings back to back, the argument
 * lists of both wire formats (ctl.h, wmsg.h).
 */
#ifndef GADGETD_STRV_H
#define GADGETD_STRV_H

#include <stddef.h>

/*
 * Copy argc strings, each with its NUL, to buf. Returns the bytes
 * written, or -E2BIG when they do not fit in size (buf is then undefined).
 */
int strv_pack(char *buf, size_t size, int argc, char *const *argv);

/*
 * Split len bytes at p into at most max strings (pointing into p). Every
 * string, the last one included, must end with a NUL inside len. Returns
 * the count, -EBADMSG when the last string is not terminated, -E2BIG when
 * there are more than max.
 */
int strv_split(char *p, size_t len, char **argv, int max);

#endif
