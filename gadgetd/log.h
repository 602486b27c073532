/* log: one place where gadgetd, its workers and plugins report. */
#ifndef GADGETD_LOG_H
#define GADGETD_LOG_H

#include <stdbool.h>

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

/* Log to stderr when to_stderr, else to syslog(3) as ident. */
void log_init(const char *ident, bool to_stderr, enum log_level level);
void log_set_level(enum log_level level);

/* log_warn appends ": strerror(errno)"; log_warnx does not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
