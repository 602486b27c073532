/*
 * supervisor_exec: what a worker is started with, for the supervisor
 * (supervisor.c keeps the processes, this file prepares them): its
 * FunctionFS mount, its plugin's run folder, its command line
 * (common/wargv.h) and the fork and exec with the socket to gadgetd as
 * WORKER_FD.
 *
 * The start-up steps return 0 or -errno; on a failure they also put a
 * sentence naming the path into err ("cannot mount functionfs on
 * /run/gadgetd/ffs/adb: No such device"), or leave it empty when they
 * have none. Nothing here logs but the unmounts.
 */
#ifndef GADGETD_SUPERVISOR_EXEC_H
#define GADGETD_SUPERVISOR_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct config;
struct profile_function;

/*
 * f's worker's command line in *argv (free with wargv_argv_free()), its
 * instance mounted on mount; for an exec function, the worker that runs
 * its program (wargv.h's -x form, %f and %c expanded; root unused). root: as after `adb root`, uid 0 with root's
 * groups and every capability gadgetd holds, as adbd on a debuggable
 * Android build; -r tells the plugin which it is. -ENOMEM, or -EINVAL for
 * a function the codec cannot carry.
 */
int supervisor_exec_argv(const struct config *cfg, const struct profile_function *f,
			 const char *mount, bool root, char ***argv);

/*
 * Mount the FunctionFS instance name at (under cfg->ffs_dir, both made if
 * missing; a stale mount there goes first), with no_disconnect=1 and its
 * files owned by uid:gid.
 */
int supervisor_exec_mount(const struct config *cfg, const char *name,
			  const char *at, uid_t uid, gid_t gid, char *err,
			  size_t size);

/* Unmount and remove mount once nothing holds its files; name is for the
 * log. */
void supervisor_exec_unmount(const char *name, const char *mount);

/*
 * cfg->run_dir/plugin: the plugin's own place for sockets and state (the
 * accessory socket lives there), owned by uid:gid, mode 0750.
 */
int supervisor_exec_rundir(const struct config *cfg, const char *plugin,
			   uid_t uid, gid_t gid, char *err, size_t size);

/*
 * An exec function's folder cfg->run_dir/exec-NAME (root's, 0755), and in
 * it the file `config` with the profile's config, %f expanded to where
 * the program finds the instance (f->bind, else mount): owned by uid:gid,
 * mode 0400, written anew at each start. No config: no file.
 */
int supervisor_exec_config(const struct config *cfg,
			   const struct profile_function *f, const char *mount,
			   uid_t uid, gid_t gid, char *err, size_t size);
/* Where that file is: what %c expands to. */
void supervisor_exec_config_path(const struct config *cfg,
				 const struct profile_function *f, char *buf,
				 size_t size);

/*
 * Fork and exec argv with one end of a new SOCK_SEQPACKET pair as
 * WORKER_FD; *sock gets the other (close-on-exec), *pid the child.
 */
int supervisor_exec_spawn(char **argv, pid_t *pid, int *sock);

/* Unmount FunctionFS instances left under cfg->ffs_dir by an earlier run. */
void supervisor_exec_clean_mounts(const struct config *cfg);

#endif
