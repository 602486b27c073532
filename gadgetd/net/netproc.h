/*
 * netproc: a helper program gadgetd runs for a network link (dnsmasq,
 * gadgetd-mdns), supervised like a worker: restarted after a crash with
 * the same bounded policy (restart_delay doubling; restart_limit exits
 * within restart_window and it is failed, until the next start).
 *
 * The child is watched through a pidfd owned by the loop (common/child.c),
 * as gadgetd's workers are: gadgetd reaps each child by its pid, and
 * handles no SIGCHLD. It
 * gets SIGTERM if gadgetd dies (PR_SET_PDEATHSIG; a program that changes
 * its user, as dnsmasq does, loses that), and its pid file ("PID COMM")
 * lets the next gadgetd kill what a SIGKILLed one left.
 */
#ifndef GADGETD_NETPROC_H
#define GADGETD_NETPROC_H

#include <stdbool.h>
#include <sys/types.h>

struct loop;
struct config;
struct netproc;

#define NETPROC_ARGS_MAX 32
/* The longest wait for a helper's ready line (struct netproc_ready). */
#define NETPROC_READY_MAX_MS 60000

/*
 * What a helper prints once it has done its job (gadgetd-mdns, as
 * avahi-publish: "Established under name", on its standard error). gadgetd then reads
 * its standard output and error, logs each line under the helper's
 * name, and starts the helper
 * again when it has not printed text within ms of its start (the wait
 * doubling, up to NETPROC_READY_MAX_MS, until it does): avahi 0.8 leaves
 * a registration probing forever when its link goes down and up during
 * the probe, as a USB network link does when the host plugs in (avahi
 * #383), and a fresh one then succeeds. Not counted as a crash.
 */
struct netproc_ready {
	const char *text;
	unsigned ms;
};

/*
 * Run argv (argv[0] looked up in PATH; at most NETPROC_ARGS_MAX) now;
 * what names it in messages ("ecm: dnsmasq"). pidfile is written while
 * it runs. ready NULL: the helper's output goes to gadgetd's own. NULL
 * on error, logged.
 */
struct netproc *netproc_start(struct loop *l, const struct config *cfg,
			      const char *what, char *const *argv,
			      const char *pidfile, const struct netproc_ready *ready);
/* It printed its ready text since its last start. */
bool netproc_ready(const struct netproc *p);
/* Stop it (SIGTERM, SIGKILL later); the handle is gone for the caller,
 * the memory once the process is reaped. NULL is fine. */
void netproc_stop(struct netproc *p);
/* SIGKILL and reap now (gadgetd is stopping). NULL is fine. */
void netproc_kill(struct netproc *p);
/* The running child's pid, 0 between a crash and its restart. */
pid_t netproc_pid(const struct netproc *p);
/* Restarted too often: given up on until netproc_start() again. */
bool netproc_failed(const struct netproc *p);
/*
 * A program whose normal end is part of its job (agetty: login, which
 * agetty becomes, exits with status 0 when the user's shell ends). Such
 * an exit is followed by a start after restart_delay and is not counted
 * toward restart_limit; any other exit is, as for any helper.
 */
void netproc_set_session(struct netproc *p);
/* failed(data) once p is given up on (netproc_failed() turns true). */
void netproc_on_failed(struct netproc *p, void (*failed)(void *data), void *data);
/* Another gadgetd's leftover: kill the process pidfile names if its
 * command is still the one recorded, and remove the file. */
void netproc_kill_stale(const char *pidfile);

#endif
