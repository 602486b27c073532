#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

static bool log_stderr = true;
static enum log_level log_max = LOG_LEVEL_INFO;
static const char *log_ident = "gadgetd";
static log_tap_fn log_tap;

void log_set_tap(log_tap_fn fn)
{
	log_tap = fn;
}

void log_init(const char *ident, bool to_stderr, enum log_level level)
{
	log_ident = ident;
	log_stderr = to_stderr;
	log_max = level;
	if (!to_stderr)
		openlog(ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

bool log_burst_ok(struct log_burst *b)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!b->window || now.tv_sec - b->window >= (time_t)b->window_s) {
		if (b->dropped)
			log_warnx("%u more %s were not logged", b->dropped,
				  b->what);
		b->window = now.tv_sec;
		b->lines = 0;
		b->dropped = 0;
	}
	if (b->lines < b->burst) {
		b->lines++;
		return true;
	}
	b->dropped++;
	return false;
}

/* Length of the UTF-8 character at s (at most n bytes) if it is valid
 * and safe to show, else 0. */
static size_t log_utf8_ok(const unsigned char *s, size_t n)
{
	unsigned cp, need, min;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1, min = 0x80, cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2, min = 0x800, cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3, min = 0x10000, cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < need + 1)
		return 0;
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls (0x9b is a CSI on some terminals), line and paragraph
	 * separators, and the bidi controls that make text read backwards. */
	if (cp <= 0x9f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f)
		return 0;
	return need + 1;
}

/* lines: keep newlines and tabs (text of several lines, not a log line). */
static size_t log_printable_as(char *dst, size_t size, const void *src,
			       size_t len, bool lines)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = src;
	size_t in = 0, out = 0;

	if (size == 0)
		return 0;
	while (in < len) {
		size_t n = (s[in] >= 0x20 && s[in] < 0x7f) ||
				   (lines && (s[in] == '\n' || s[in] == '\t'))
				   ? 1 : 0;

		if (n == 0 && s[in] >= 0x80)
			n = log_utf8_ok(s + in, len - in);
		if (n == 0) {
			if (out + 4 >= size)
				break;
			dst[out++] = '\\';
			dst[out++] = 'x';
			dst[out++] = hex[s[in] >> 4];
			dst[out++] = hex[s[in] & 15];
			in++;
			continue;
		}
		if (out + n >= size)
			break;
		memcpy(dst + out, s + in, n);
		out += n;
		in += n;
	}
	dst[out] = '\0';
	return out;
}

size_t log_printable(char *dst, size_t size, const void *src, size_t len)
{
	return log_printable_as(dst, size, src, len, false);
}

size_t log_printable_lines(char *dst, size_t size, const void *src, size_t len)
{
	return log_printable_as(dst, size, src, len, true);
}

static void log_emit(enum log_level level, const char *fmt, va_list ap, int err)
{
	static const int prio[] = {
		[LOG_LEVEL_ERROR] = LOG_ERR,
		[LOG_LEVEL_WARN] = LOG_WARNING,
		[LOG_LEVEL_INFO] = LOG_INFO,
		[LOG_LEVEL_DEBUG] = LOG_DEBUG,
	};
	char msg[1024], safe[1024];
	int n;

	if (level > log_max)
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(err));
	/* Messages quote what hosts and peers sent: a name with "\n" or an
	 * escape sequence must not forge a log line or drive a terminal. */
	log_printable(safe, sizeof(safe), msg, strlen(msg));
	if (log_stderr)
		fprintf(stderr, "%s: %s\n", log_ident, safe);
	else
		syslog(prio[level], "%s", safe);
	if (log_tap && level <= LOG_LEVEL_WARN) {
		log_tap_fn tap = log_tap;

		log_tap = NULL;
		tap(level, safe);
		log_tap = tap;
	}
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
