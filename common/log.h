/* log: one place where gadgetd, its workers and plugins report. */
#ifndef GADGETD_LOG_H
#define GADGETD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* Log to stderr when to_stderr, else to syslog(3) as ident. */
void log_init(const char *ident, bool to_stderr, enum log_level level);

/* log_warn appends ": strerror(errno)"; log_warnx does not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Copy len bytes of untrusted text (a USB host's banner, an MTP object
 * name, an accessory string) into dst as something safe to show on a
 * terminal or in a log: control characters (NUL included), DEL, C1
 * controls, bidirectional overrides, line separators and bytes that are
 * not UTF-8 become \xNN escapes; other UTF-8 text is kept. Never cuts an
 * escape or a character in two; dst is always NUL-terminated when size is
 * not 0. Returns the length written. Every log message goes through it.
 */
size_t log_printable(char *dst, size_t size, const void *src, size_t len);

/* log_printable() for text of several lines, such as a plugin command's
 * reply on its way to an admin's terminal: newlines and tabs are kept,
 * everything else is escaped the same way. */
size_t log_printable_lines(char *dst, size_t size, const void *src, size_t len);

/*
 * A limit on the lines a peer (a USB host, a socket client) can make us
 * log at will: at most burst lines in each window of window_s seconds.
 * When a window that dropped lines ends, the next call logs once how many
 * were dropped, naming what. Initialise with LOG_BURST_INIT.
 */
struct log_burst {
	const char *what;   /* "messages about the host's behaviour" */
	unsigned burst, window_s;
	time_t window;      /* start of the current window (monotonic s) */
	unsigned lines;     /* lines logged in it */
	unsigned dropped;   /* lines not logged in it */
};
#define LOG_BURST_INIT(what_, burst_, window_s_) \
	{ .what = (what_), .burst = (burst_), .window_s = (window_s_) }

/* Whether to log one more line now. */
bool log_burst_ok(struct log_burst *b);

/*
 * fn sees the printable text (without the ident) of every message at
 * LOG_LEVEL_WARN or above, after it is logged; NULL stops it. Whatever fn
 * logs itself does not reach fn again. The worker keeps its last error
 * this way, to hand it to gadgetd when it exits.
 */
typedef void (*log_tap_fn)(enum log_level level, const char *msg);
void log_set_tap(log_tap_fn fn);

#endif
