/*
 * cfgtext: the one libconfig front end of gadgetd, for profiles and for
 * gadgetd.conf alike. It reads a file whole (at most CFGTEXT_MAX bytes,
 * no NUL), refuses what libconfig would accept but gadgetd must not
 * (@include, integers libconfig would truncate, a string where libconfig
 * 1.5 leaks), parses it, and collects the callers' own problems as
 * "FILE:LINE: text" lines.
 */
#ifndef GADGETD_CFGTEXT_H
#define GADGETD_CFGTEXT_H

#include <libconfig.h>
#include <stddef.h>

/* Real files are a few KiB. The cap also bounds libconfig's duplicate
 * name check, which is quadratic in the number of settings of a group. */
#define CFGTEXT_MAX (64 * 1024)

/* Collects every problem as "FILE:LINE: text" lines into buf (always
 * NUL-terminated, truncated to size). */
struct cfgtext_err {
	const char *file;
	char *buf;
	size_t size, len;
	unsigned count;
	unsigned line; /* used when there is no setting to take it from */
};

/* One problem at s's line (or e->line when s is NULL; none when 0). */
void __attribute__((format(printf, 3, 4)))
cfgtext_error(struct cfgtext_err *e, const config_setting_t *s, const char *fmt, ...);

/*
 * Check text and read it into cfg (config_init()ed by the caller, who
 * destroys it). 0, -EFBIG (larger than CFGTEXT_MAX) or -EINVAL, with one
 * "FILE:LINE: text" line per problem in err; file names the text.
 */
int cfgtext_parse(config_t *cfg, const char *file, const char *text, char *err,
		  size_t err_size);

/*
 * The whole file behind fd, or path opened here (cfgtext_load), into
 * *text (malloc'd, NUL-terminated): -EFBIG beyond CFGTEXT_MAX, -EINVAL for
 * a NUL byte (libconfig would stop reading there), else -errno; err says
 * which, naming path.
 */
int cfgtext_read_fd(int fd, const char *path, char **text, char *err, size_t err_size);
int cfgtext_load(const char *path, char **text, char *err, size_t err_size);

#endif
