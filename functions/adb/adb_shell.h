/*
 * adb_shell: the shell and exec services.
 *
 *   shell[,v2][,TERM=x][,raw|,pty]:[command]   (empty command: login shell)
 *   exec:command                               (raw bytes, no pty)
 *
 * With v2 the stream carries packets {u8 id, u32 le length, data}: stdin 0,
 * stdout 1, stderr 2, exit 3, close-stdin 4, window-size 5 ("RxC,WxH").
 * pty sessions get a pty with TERM and the window size; raw ones get
 * three pipes so stdout and stderr stay apart.
 */
#ifndef GADGETD_ADB_SHELL_H
#define GADGETD_ADB_SHELL_H

#include <stdbool.h>

#include "adb_stream.h"

struct plugin;

/* Children run as the worker's user (the function's `user`), started by
 * the runtime's spawner (plugin_spawn()). */
struct adb_shell_cfg {
	/* For messages: the spawner runs the profile's. It must outlive the
	 * streams (a child comes after adb_shell_open() returned). */
	const char *shell;
	struct plugin *p;
};

enum adb_shell_type {
	ADB_SHELL_DEFAULT, /* pty for a login shell, raw for a command */
	ADB_SHELL_RAW,
	ADB_SHELL_PTY,
};

struct adb_shell_args {
	bool v2;
	enum adb_shell_type type;
	char term[64];
	const char *cmd; /* points into the parsed name */
};

/* Parse a service name; 0, or -ENOENT when it is not a shell service,
 * -EINVAL when it is a malformed one. */
int adb_shell_parse(const char *name, struct adb_shell_args *a);

/* The OPEN of a shell/exec service: starts the process. */
int adb_shell_open(struct adb_stream *s, const char *name,
		   const struct adb_shell_cfg *cfg,
		   const struct adb_service_ops **ops, void **svc);

#endif
