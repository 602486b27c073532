#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

static bool log_stderr = true;
static enum log_level log_max = LOG_LEVEL_INFO;
static const char *log_ident = "gadgetd";

void log_init(const char *ident, bool to_stderr, enum log_level level)
{
	log_ident = ident;
	log_stderr = to_stderr;
	log_max = level;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void log_set_level(enum log_level level)
{
	log_max = level;
}

static void log_emit(enum log_level level, const char *fmt, va_list ap, int err)
{
	static const int prio[] = {
		[LOG_LEVEL_ERROR] = LOG_ERR,
		[LOG_LEVEL_WARN] = LOG_WARNING,
		[LOG_LEVEL_INFO] = LOG_INFO,
		[LOG_LEVEL_DEBUG] = LOG_DEBUG,
	};
	char msg[1024];
	int n;

	if (level > log_max)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	if (log_stderr)
		fprintf(stderr, "%s: %s\n", log_ident, msg);
	else
		syslog(prio[level], "%s", msg);
}

#define LOG_FN(name, level, with_errno)                                        \
	void name(const char *fmt, ...)                                        \
	{                                                                      \
		int err = with_errno ? errno : 0;                              \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		log_emit(level, fmt, ap, err);                                 \
		va_end(ap);                                                    \
		errno = err;                                                   \
	}

LOG_FN(log_warn, LOG_LEVEL_WARN, 1)
LOG_FN(log_warnx, LOG_LEVEL_WARN, 0)
LOG_FN(log_info, LOG_LEVEL_INFO, 0)
LOG_FN(log_debug, LOG_LEVEL_DEBUG, 0)
