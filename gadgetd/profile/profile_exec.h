/*
 * profile_exec: a function that runs an existing FunctionFS program
 * instead of a plugin (profile.h's parser calls it for type "ffs"):
 *
 *   umtp: { type = "ffs"; exec = "/usr/bin/umtprd";
 *           args = [ "-conf", "%c" ];           # argv[1..], optional
 *           env = [ "LD_LIBRARY_PATH=/opt/x" ]; # optional
 *           config = "usb_dev_path \"%f/ep0\"\n...";  # optional
 *           bind = "/dev/usb-ffs/adb";          # optional
 *           aio_guard = false;                  # optional, true by default
 *           user = "..."; group = "..."; capabilities = [ ... ]; };
 *
 * In args, env and config, %f stands for the folder where the program
 * finds the instance (bind if given, else its FunctionFS mount), %c for
 * the file gadgetd writes config into (only with config), %% for %.
 * exec must be an absolute path to an executable regular file when the
 * profile is read (gadgetd -n and gadgetctl check say so too).
 */
#ifndef GADGETD_PROFILE_EXEC_H
#define GADGETD_PROFILE_EXEC_H

#include <stdbool.h>

#include <libconfig.h>

#include "profile.h"

struct cfgtext_err;

/* The longest argument, variable or bind path; config may be 16 KiB. */
#define PROFILE_EXEC_ARG_MAX 1024
#define PROFILE_EXEC_CONFIG_MAX 16384

/* Whether key is one of exec's settings. */
bool profile_exec_key(const char *key);

/*
 * fs (a type "ffs" function's group) into f when it has exec: true, and
 * every problem as "FILE:LINE: text" in e; plugin, options and root are
 * refused beside it. Without exec: false, and e gets a line for each of
 * exec's other settings given (they need exec).
 */
bool profile_exec_parse(struct cfgtext_err *e, config_setting_t *fs,
			struct profile_function *f);

/*
 * s with %f, %c and %% replaced (ffs, conf: conf may be NULL when s has
 * no %c) into a new string in *out. -ENOMEM, or -EINVAL for any other
 * escape (the parser refuses those first).
 */
int profile_exec_expand(const char *s, const char *ffs, const char *conf,
			char **out);

void profile_exec_free(struct profile_function *f);

#endif
