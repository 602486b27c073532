/*
 * libFuzzer target: gadgetd.conf (config_parse). Byte 0 picks the size of
 * the error buffer, so the paths that report many problems are tried with
 * room to spare and with almost none; the rest is the file's text.
 *
 * A file that parses gives a config whose every field holds a valid
 * value; one that does not gives a NUL-terminated error that starts with
 * the file's name, as "FILE:LINE: ...".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* libconfig 1.7.3 itself leaks a string buffer on some syntax errors
 * (e.g. `udc "auto";";`): not ours to fix, and not a daemon's worry, as
 * gadgetd.conf is read once at start. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libconfig.so\n";
}

#define FUZZ_PATH "/etc/gadgetd/gadgetd.conf"

static void check_name(const char *s, const char *more)
{
	size_t n;

	if (!s)
		abort();
	n = strlen(s);
	if (n == 0 || n >= 64 ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_-") + strspn(s, more) < n)
		abort();
}

static void check_path(const char *s)
{
	if (!s || !*s)
		abort();
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			abort();
}

static void check_config(const struct config *c)
{
	check_name(c->profile, "");
	check_path(c->profile_dir);
	check_path(c->udc);
	check_path(c->state_file);
	if (c->group)
		check_path(c->group);
	check_path(c->gadget_name);
	check_path(c->ffs_dir);
	check_path(c->plugin_dir);
	check_path(c->worker);
	if (strchr(c->udc, '/') || strchr(c->gadget_name, '/') ||
	    (c->group && strchr(c->group, '/')))
		abort(); /* these end up as one path component */
	if (c->ready_timeout_ms < 1 || c->ready_timeout_ms > 600000 ||
	    c->restart_delay_ms < 1 || c->restart_delay_ms > 600000 ||
	    c->heartbeat_interval_ms < 1 ||
	    c->heartbeat_timeout_ms < c->heartbeat_interval_ms ||
	    c->heartbeat_timeout_ms > 600000 || c->restart_limit < 1 ||
	    c->restart_limit > CONFIG_RESTART_LIMIT_MAX ||
	    c->restart_window_ms < 1 || c->restart_window_ms > 600000)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t err_sizes[] = { 1, 2, 16, 40, 64, 256, 4096, 4096 };
	struct config *c;
	size_t err_size;
	char *text, *err;
	int rc;

	if (size == 0)
		return 0;
	err_size = err_sizes[data[0] & 7];
	text = malloc(size);
	err = malloc(err_size);
	if (!text || !err)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rc = config_parse(FUZZ_PATH, text, &c, err, err_size);
	if (rc == 0) {
		check_config(c);
		config_free(c);
	} else {
		if (c || !memchr(err, '\0', err_size))
			abort();
		if (err_size > sizeof(FUZZ_PATH) &&
		    strncmp(err, FUZZ_PATH ":", sizeof(FUZZ_PATH)))
			abort(); /* every error names the file */
	}
	free(text);
	free(err);
	return 0;
}
