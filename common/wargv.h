/*
 * wargv: the command line gadgetd starts gadgetd-worker with, as one struct
 * and one codec. gadgetd encodes it (gadgetd/supervisor/supervisor_exec.c),
 * the worker decodes it (functions/runtime/worker.c); both sides share this
 * file, so a flag cannot be spelled two ways.
 *
 *   WORKER -P PLUGIN.so -i INSTANCE -d FFS_DIR [-u USER] [-g GROUP]
 *          [-c CAPS] [-r allowed|active] [-o KEY=VALUE]... [-v] [-l]
 *   WORKER -x PROGRAM -i INSTANCE -d FFS_DIR [-u USER] [-g GROUP]
 *          [-c CAPS] [-m PATH] [-a ARG]... [-e KEY=VALUE]... [-G] [-v]
 *
 * The second form runs an existing FunctionFS program instead of a
 * plugin (type = "ffs"; exec = ...): -a its arguments after argv[0], -e
 * its environment, -m where its instance is bound in its own mount
 * namespace, -G no AIO guard preloaded into it (aiopreload.c). -l: the device is locked as the worker starts (WORKER_LOCK,
 * wmsg.h, tells it of every change after). Each flag and its value are
 * separate arguments; each flag but -o, -a and -e comes at most once.
 * CAPS is a hex capability mask.
 */
#ifndef COMMON_WARGV_H
#define COMMON_WARGV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most -o options a worker takes (a profile allows fewer). */
#define WARGV_MAX_OPTS 64
/* The most -a arguments and -e variables of a program (the same bound in
 * a profile: profile_exec.h). */
#define WARGV_MAX_ARGS 32

/* -r: whether the profile lets the plugin ask for root, and whether this
 * run is root after such a request. */
enum wargv_root {
	WARGV_ROOT_NONE,    /* no -r */
	WARGV_ROOT_ALLOWED, /* -r allowed */
	WARGV_ROOT_ACTIVE,  /* -r active */
};

/* Strings are borrowed: from the caller for wargv_encode(), from argv
 * for wargv_decode(). */
struct wargv {
	const char *worker;    /* argv[0]: the gadgetd-worker binary */
	const char *plugin;    /* -P: the plugin's .so (or exec) */
	const char *exec;      /* -x: the program to run (or plugin) */
	const char *bind;      /* -m, NULL: none */
	const char *instance;  /* -i: the function's name in the profile */
	const char *dir;       /* -d: its FunctionFS mount */
	const char *user;      /* -u, NULL: none */
	const char *group;     /* -g, NULL: none */
	bool have_caps;        /* -c given */
	uint64_t caps;         /* -c */
	enum wargv_root root;  /* -r */
	bool verbose;          /* -v */
	bool locked;           /* -l */
	bool no_aio_guard;     /* -G (exec only) */
	bool help;             /* -h or --help (decode only; what follows is not read) */
	unsigned n_opts;
	const char *opts[WARGV_MAX_OPTS]; /* -o, "KEY=VALUE", KEY not empty */
	unsigned n_args;
	const char *args[WARGV_MAX_ARGS]; /* -a, any text */
	unsigned n_env;
	const char *env[WARGV_MAX_ARGS];  /* -e, "KEY=VALUE", KEY not empty */
};

/*
 * A's command line as a NULL-terminated argv in *out, every string a copy
 * (free with wargv_argv_free()). -EINVAL when a could not be decoded
 * again (a required field missing, both or neither of plugin and exec,
 * an option or variable without "KEY=", -o with exec or -a, -e, -m
 * without), -ENOMEM.
 */
int wargv_encode(const struct wargv *a, char ***out);
void wargv_argv_free(char **argv);

/*
 * argv (argc entries) into *out. 0, or -EINVAL with err saying what is
 * wrong (an unknown flag, a missing value or required flag, a bad CAPS or
 * -r, a repeated flag, too many options, arguments or variables, -P with
 * -x, or a flag of one form in the other). out->help set: nothing else is
 * read.
 */
int wargv_decode(int argc, char *const *argv, struct wargv *out, char *err,
		 size_t size);

#endif
