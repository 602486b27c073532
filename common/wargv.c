#include "wargv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* argv[0], eight flags with values, the options, arguments and
 * variables, -v, -l, NULL. */
#define WARGV_MAX_ARGC (1 + 2 * 8 + 2 * WARGV_MAX_OPTS + 4 * WARGV_MAX_ARGS + 3)

static const char *wargv_root_name(enum wargv_root root)
{
	switch (root) {
	case WARGV_ROOT_NONE:
		return NULL;
	case WARGV_ROOT_ALLOWED:
		return "allowed";
	case WARGV_ROOT_ACTIVE:
		return "active";
	}
	return NULL;
}

static bool wargv_opt_ok(const char *kv)
{
	const char *eq = kv ? strchr(kv, '=') : NULL;

	return eq && eq != kv;
}

void wargv_argv_free(char **argv)
{
	unsigned i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* Append a copy of s to argv; false when out of memory. */
static bool wargv_push(char **argv, unsigned *n, const char *s)
{
	argv[*n] = strdup(s);
	return argv[(*n)++] != NULL;
}

static bool wargv_push_flag(char **argv, unsigned *n, const char *flag,
			    const char *value)
{
	return !value || (wargv_push(argv, n, flag) && wargv_push(argv, n, value));
}

/* What decoding would refuse of a: the two forms mixed, a field
 * missing, too many or malformed entries. */
static bool wargv_valid(const struct wargv *a)
{
	unsigned i;

	if (!a->worker || !a->instance || !a->dir || !a->plugin == !a->exec ||
	    a->n_opts > WARGV_MAX_OPTS || a->n_args > WARGV_MAX_ARGS ||
	    a->n_env > WARGV_MAX_ARGS)
		return false;
	if (a->plugin && (a->n_args || a->n_env || a->bind || a->no_aio_guard))
		return false;
	if (a->exec && (a->n_opts || a->root != WARGV_ROOT_NONE))
		return false;
	for (i = 0; i < a->n_opts; i++)
		if (!wargv_opt_ok(a->opts[i]))
			return false;
	for (i = 0; i < a->n_args; i++)
		if (!a->args[i])
			return false;
	for (i = 0; i < a->n_env; i++)
		if (!wargv_opt_ok(a->env[i]))
			return false;
	return true;
}

int wargv_encode(const struct wargv *a, char ***out)
{
	const char *root = wargv_root_name(a->root);
	char caps[32], **argv;
	unsigned i, n = 0;
	bool ok;

	*out = NULL;
	if (!wargv_valid(a))
		return -EINVAL;
	argv = calloc(WARGV_MAX_ARGC, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	snprintf(caps, sizeof(caps), "%llx", (unsigned long long)a->caps);
	ok = wargv_push(argv, &n, a->worker) &&
	     wargv_push_flag(argv, &n, "-P", a->plugin) &&
	     wargv_push_flag(argv, &n, "-x", a->exec) &&
	     wargv_push_flag(argv, &n, "-m", a->bind) &&
	     wargv_push_flag(argv, &n, "-i", a->instance) &&
	     wargv_push_flag(argv, &n, "-d", a->dir) &&
	     wargv_push_flag(argv, &n, "-u", a->user) &&
	     wargv_push_flag(argv, &n, "-g", a->group) &&
	     wargv_push_flag(argv, &n, "-c", a->have_caps ? caps : NULL) &&
	     wargv_push_flag(argv, &n, "-r", root);
	for (i = 0; ok && i < a->n_opts; i++)
		ok = wargv_push_flag(argv, &n, "-o", a->opts[i]);
	for (i = 0; ok && i < a->n_args; i++)
		ok = wargv_push_flag(argv, &n, "-a", a->args[i]);
	for (i = 0; ok && i < a->n_env; i++)
		ok = wargv_push_flag(argv, &n, "-e", a->env[i]);
	if (ok && a->verbose)
		ok = wargv_push(argv, &n, "-v");
	if (ok && a->locked)
		ok = wargv_push(argv, &n, "-l");
	if (ok && a->no_aio_guard)
		ok = wargv_push(argv, &n, "-G");
	if (!ok) {
		wargv_argv_free(argv);
		return -ENOMEM;
	}
	*out = argv;
	return 0;
}

/* The value of flag at argv[*i], which *slot must not have yet. */
static int wargv_value(int argc, char *const *argv, int *i, const char **slot,
		       char *err, size_t size)
{
	const char *flag = argv[*i];

	if (*i + 1 >= argc) {
		snprintf(err, size, "%s needs a value", flag);
		return -EINVAL;
	}
	if (*slot) {
		snprintf(err, size, "%s given twice", flag);
		return -EINVAL;
	}
	*slot = argv[++*i];
	return 0;
}

static int wargv_parse_caps(const char *s, struct wargv *out, char *err, size_t size)
{
	char *end;

	errno = 0;
	out->caps = strtoull(s, &end, 16);
	/* strtoull takes leading blanks and a sign; a mask has neither. */
	if (errno || *end || !isxdigit((unsigned char)s[0])) {
		snprintf(err, size, "-c takes a hex capability mask, not \"%s\"", s);
		return -EINVAL;
	}
	out->have_caps = true;
	return 0;
}

static int wargv_parse_root(const char *s, struct wargv *out, char *err, size_t size)
{
	if (!strcmp(s, "allowed")) {
		out->root = WARGV_ROOT_ALLOWED;
	} else if (!strcmp(s, "active")) {
		out->root = WARGV_ROOT_ACTIVE;
	} else {
		snprintf(err, size, "-r takes allowed or active, not \"%s\"", s);
		return -EINVAL;
	}
	return 0;
}

static int wargv_parse_opt(const char *s, struct wargv *out, char *err, size_t size)
{
	if (out->n_opts == WARGV_MAX_OPTS || !wargv_opt_ok(s)) {
		snprintf(err, size, "bad or too many options at \"%s\"", s);
		return -EINVAL;
	}
	out->opts[out->n_opts++] = s;
	return 0;
}

/* -a or -e: one more entry of list (n of WARGV_MAX_ARGS). */
static int wargv_parse_list(const char *flag, const char *s, const char **list,
			    unsigned *n, bool kv, char *err, size_t size)
{
	if (*n == WARGV_MAX_ARGS || (kv && !wargv_opt_ok(s))) {
		snprintf(err, size, "bad or too many %s at \"%s\"", flag, s);
		return -EINVAL;
	}
	list[(*n)++] = s;
	return 0;
}

/* One flag at argv[*i] and its value. */
static int wargv_flag(int argc, char *const *argv, int *i, struct wargv *out,
		      const char **caps, const char **root, char *err,
		      size_t size)
{
	const char *a = argv[*i], *v = NULL;

	if (!strcmp(a, "-v")) {
		out->verbose = true;
		return 0;
	}
	if (!strcmp(a, "-l")) {
		out->locked = true;
		return 0;
	}
	if (!strcmp(a, "-G")) {
		out->no_aio_guard = true;
		return 0;
	}
	if (a[0] != '-' || !a[1] || a[2]) {
		snprintf(err, size, "unexpected argument \"%s\"", a);
		return -EINVAL;
	}
	switch (a[1]) {
	case 'P':
		return wargv_value(argc, argv, i, &out->plugin, err, size);
	case 'i':
		return wargv_value(argc, argv, i, &out->instance, err, size);
	case 'd':
		return wargv_value(argc, argv, i, &out->dir, err, size);
	case 'u':
		return wargv_value(argc, argv, i, &out->user, err, size);
	case 'g':
		return wargv_value(argc, argv, i, &out->group, err, size);
	case 'c':
		return wargv_value(argc, argv, i, caps, err, size) ?:
		       wargv_parse_caps(*caps, out, err, size);
	case 'r':
		return wargv_value(argc, argv, i, root, err, size) ?:
		       wargv_parse_root(*root, out, err, size);
	case 'o':
		return wargv_value(argc, argv, i, &v, err, size) ?:
		       wargv_parse_opt(v, out, err, size);
	case 'x':
		return wargv_value(argc, argv, i, &out->exec, err, size);
	case 'm':
		return wargv_value(argc, argv, i, &out->bind, err, size);
	case 'a':
		return wargv_value(argc, argv, i, &v, err, size) ?:
		       wargv_parse_list("-a", v, out->args, &out->n_args,
					false, err, size);
	case 'e':
		return wargv_value(argc, argv, i, &v, err, size) ?:
		       wargv_parse_list("-e", v, out->env, &out->n_env, true,
					err, size);
	}
	snprintf(err, size, "unknown flag \"%s\"", a);
	return -EINVAL;
}

int wargv_decode(int argc, char *const *argv, struct wargv *out, char *err,
		 size_t size)
{
	const char *caps = NULL, *root = NULL;
	int i, r;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	if (argc < 1 || !argv[0]) {
		snprintf(err, size, "no argv[0]");
		return -EINVAL;
	}
	out->worker = argv[0];
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			out->help = true;
			return 0;
		}
		r = wargv_flag(argc, argv, &i, out, &caps, &root, err, size);
		if (r < 0)
			return r;
	}
	if (!out->instance || !out->dir || !out->plugin == !out->exec) {
		snprintf(err, size, "-i, -d and one of -P and -x are required");
		return -EINVAL;
	}
	if (!wargv_valid(out)) {
		snprintf(err, size, out->plugin ? "-a, -e, -m and -G go with -x only" :
			 "-o and -r go with -P only");
		return -EINVAL;
	}
	return 0;
}
