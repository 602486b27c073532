#include "supervisor.h"
#include "event.h"
#include "supervisor_int.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "plugin_list.h"
#include "profile.h"
#include "status.h"
#include "supervisor_exec.h"
#include "wargv.h"
#include "wmsg.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>


static void sup_ready_changed(struct supervisor *s);
static void sup_stopped_changed(struct supervisor *s);
static void sup_hb_start(struct sup_worker *w);
static void sup_free_stopping(struct supervisor *s);

struct supervisor *supervisor_new(struct loop *l, const struct config *cfg,
				  supervisor_switch_fn on_switch,
				  supervisor_restart_fn on_restart, void *data)
{
	struct supervisor *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->loop = l;
	s->cfg = cfg;
	s->on_switch = on_switch;
	s->on_restart = on_restart;
	s->data = data;
	return s;
}

void supervisor_free(struct supervisor *s)
{
	if (!s)
		return;
	supervisor_wait_cancel(s);
	supervisor_wait_stopped_cancel(s);
	while (s->workers)
		supervisor_stop(s, s->workers->name);
	/* gadgetd is stopping: no later round will reap them. */
	sup_free_stopping(s);
	supervisor_command_free_all(s);
	free(s);
}

struct sup_worker *supervisor_find(struct supervisor *s, const char *name)
{
	struct sup_worker *w;

	for (w = s->workers; w; w = w->next)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

const char *supervisor_start_error(struct supervisor *s)
{
	return s->start_err;
}

/*
 * What a plugin reported that listeners care about: its state, and the
 * status keys its declaration makes events of (plugin_meta.events: adb's
 * waiting_key, a host key waiting for `adb allow`), when not empty. Only
 * changes are told, so a worker repeating itself costs nothing; a
 * subverted one that alternates is bounded by the monitors' queues
 * (control.h).
 */
static void sup_status_told(struct sup_worker *w, const char *key,
			    const char *value)
{
	const struct plugin_meta *m = plugin_list_find(w->plugin);
	const struct plugin_meta_event *e;
	char kv[sizeof("state=") + 64];

	for (e = m ? m->events : NULL; e && e->name; e++)
		if (!strcmp(key, e->status_key)) {
			if (value[0])
				event_emit_plugin(e->name, w->name, value);
			return;
		}
	if (!strcmp(key, "state")) {
		snprintf(kv, sizeof(kv), "state=%.64s", value);
		event_emit(EVENT_STATE, w->name, kv, 0);
	}
}

static void sup_status_set(struct sup_worker *w, const char *raw_key,
			   const char *raw)
{
	char key[64], value[1024];
	unsigned i;

	/* Workers publish what their host sent (an adb banner, MTP names),
	 * and a worker may be subverted: only printable text may reach
	 * `gadgetctl status`. */
	log_printable(key, sizeof(key), raw_key, strlen(raw_key));
	log_printable(value, sizeof(value), raw, strlen(raw));
	for (i = 0; i < w->n_status; i++) {
		if (!strcmp(w->status[i][0], key)) {
			bool same = w->status[i][1] && !strcmp(w->status[i][1], value);

			free(w->status[i][1]);
			w->status[i][1] = strdup(value);
			if (!same)
				sup_status_told(w, key, value);
			return;
		}
	}
	if (w->n_status == SUP_MAX_STATUS)
		return;
	w->status[w->n_status][0] = strdup(key);
	w->status[w->n_status][1] = strdup(value);
	w->n_status++;
	sup_status_told(w, key, value);
}

static void sup_status_clear(struct sup_worker *w)
{
	unsigned i;

	for (i = 0; i < w->n_status; i++) {
		free(w->status[i][0]);
		free(w->status[i][1]);
	}
	w->n_status = 0;
}

/* The worker's own words about why it exits. It parses what a USB host
 * sends and may be subverted: printable text only, cut to a size. */
static void sup_error_set(struct sup_worker *w, const char *p, size_t len)
{
	size_t n = strnlen(p, len);

	log_printable(w->error, sizeof(w->error), p,
		      n < WORKER_ERROR_MAX ? n : WORKER_ERROR_MAX - 1);
}

/*
 * The worker asks to run as root (`adb root`) or as its user again. The
 * worker may be subverted: only the profile decides whether root is
 * allowed. The worker is stopped like any other (SIGTERM, then SIGKILL),
 * and sup_exited() starts it in its new mode without counting a crash.
 */
static void sup_root_request(struct sup_worker *w, bool root)
{
	if (!w->root_allowed) {
		log_warnx("%s: the worker asked to run as root, which the "
			  "profile does not allow (root = \"allowed\"); ignored",
			  w->name);
		return;
	}
	if (root == w->root || w->root_switching || sup_pid(w) <= 0)
		return;
	log_info("%s: restarting the worker as %s (%s)", w->name,
		 root ? "root" : "its user",
		 root ? w->root_names->request : w->root_names->undo);
	w->root = root;
	w->root_switching = true;
	child_stop(w->child, CHILD_TERM_MS);
}

void supervisor_bus_set_ops(struct supervisor *s,
			    const struct supervisor_bus_ops *ops, void *data)
{
	s->bus_ops = ops;
	s->bus_data = data;
}

bool supervisor_bus_suspended(struct supervisor *s)
{
	struct sup_worker *w;

	for (w = s->workers; w; w = w->next)
		if (w->sock && w->bus_suspended)
			return true;
	return false;
}

/* WORKER_BUS and WORKER_WAKEUP; the gadget decides (gadget_wakeup.c). */
static void sup_bus(struct sup_worker *w, uint16_t type, const uint8_t *p,
		    size_t len)
{
	const struct supervisor_bus_ops *ops = w->sup->bus_ops;
	uint8_t buf[16];
	uint32_t v;
	int rc, n;

	if (type == WORKER_BUS) {
		if (wmsg_parse_u32(p, len, &v) < 0 || v > 1) {
			log_warnx("%s: malformed bus state from worker", w->name);
			return;
		}
		w->bus_suspended = v;
		if (ops)
			ops->bus(w->name, v, w->sup->bus_data);
		return;
	}
	rc = len ? -EBADMSG : ops ? ops->wake(w->name, w->sup->bus_data) : -EOPNOTSUPP;
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_WAKEUP_DONE, (uint32_t)rc);
	if (w->sock && n > 0)
		send(loop_watch_fd(w->sock), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void sup_handle(struct sup_worker *w, uint16_t type, uint8_t *p,
		       size_t len)
{
	const char *text;
	char *s[2];
	int32_t rc;
	uint32_t id;

	switch (type) {
	case WORKER_READY:
		w->ready = true;
		w->ever_ready = true;
		w->alive_ms = loop_now_ms();
		log_info("%s: plugin ready (pid %d)", w->name, (int)sup_pid(w));
		sup_ready_changed(w->sup);
		return;
	case WORKER_STATUS:
		if (wmsg_parse_strings(p, len, s, 2) == 2)
			sup_status_set(w, s[0], s[1]);
		return;
	case WORKER_SWITCH:
		if (wmsg_parse_strings(p, len, s, 1) == 1 && w->sup->on_switch)
			w->sup->on_switch(w->name, s[0], w->sup->data);
		return;
	case WORKER_HOST:
		w->bus_suspended = false;
		wmsg_parse_host(p, len, &w->host);
		w->host_seen |= w->host;
		return;
	case WORKER_HOST_SEEN:
		w->host_seen = true;
		return;
	case WORKER_PONG:
		/* Any answer proves the loop turns, a late one for an older
		 * ping too; a seq never sent is ignored. */
		if (wmsg_parse_u32(p, len, &id) == 0 &&
		    id - w->hb_ack - 1 < w->hb_seq - w->hb_ack) {
			w->alive_ms = loop_now_ms();
			w->hb_ack = id;
		}
		return;
	case WORKER_REPLY:
		if (wmsg_parse_reply(p, len, &id, &rc, &text) == 0)
			supervisor_command_reply(w, id, rc, text);
		return;
	case WORKER_ERROR:
		sup_error_set(w, (const char *)p, len);
		return;
	case WORKER_TCP:
		supervisor_tcp_request(w, p, len);
		return;
	case WORKER_KEY:
		supervisor_command_key(w, p, len);
		return;
	case WORKER_INPUT_GRAB:
		supervisor_input_request(w, p, len);
		return;
	case WORKER_BUS:
	case WORKER_WAKEUP:
		sup_bus(w, type, p, len);
		return;
	case WORKER_ROOT:
		if (wmsg_parse_u32(p, len, &id) == 0 && id <= 1)
			sup_root_request(w, id);
		else
			log_warnx("%s: malformed root request from worker", w->name);
		return;
	}
	log_warnx("%s: unknown message %u from worker", w->name, type);
}

/* One datagram from the worker: 1 when there may be more, 0 when none is
 * waiting or the worker hung up. */
static int sup_worker_read(struct sup_worker *w)
{
	uint8_t buf[WORKER_MSG_MAX], *payload;
	uint16_t type;
	size_t len;
	ssize_t n;

	n = recv(loop_watch_fd(w->sock), buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		/* The worker is gone; its pidfd tells how (sup_child_ended). */
		loop_watch_remove(w->sock);
		w->sock = NULL;
		w->ready = false;
		supervisor_command_finish_all(w, -EPIPE, "plugin worker went away before it replied");
		sup_ready_changed(w->sup);
		return 0;
	}
	if (wmsg_parse(buf, n, &type, &payload, &len) < 0) {
		log_warnx("%s: malformed message (%zd bytes) from worker", w->name, n);
		return 1;
	}
	sup_handle(w, type, payload, len);
	return 1;
}

static void sup_worker_io(struct loop_watch *lw, int fd, uint32_t events,
			  void *data)
{
	sup_worker_read(data);
}

/* The worker has exited: what it sent last (its WORKER_ERROR) may still
 * wait in the socket when its pidfd is read first. Bounded by the
 * socket's buffer. */
static void sup_drain(struct sup_worker *w)
{
	while (w->sock && sup_worker_read(w))
		;
}

static void sup_child_ended(int status, bool known, void *data);

/* argv, with -l (wargv.h) when the device is locked: a worker knows the
 * lock state before its plugin's init; WORKER_LOCK tells it of changes. */
static int sup_exec(struct sup_worker *w, pid_t *pid, int *fd)
{
	char **argv = w->root ? w->argv_root : w->argv, **with;
	size_t n = 0;
	int r;

	if (!w->sup->locked)
		return supervisor_exec_spawn(argv, pid, fd);
	while (argv[n])
		n++;
	with = calloc(n + 2, sizeof(*with));
	if (!with)
		return -ENOMEM;
	memcpy(with, argv, n * sizeof(*with));
	with[n] = (char *)"-l";
	r = supervisor_exec_spawn(with, pid, fd);
	free(with);
	return r;
}

static int sup_spawn(struct sup_worker *w)
{
	char what[PROFILE_NAME_MAX + 16];
	pid_t pid;
	int fd, r;

	r = sup_exec(w, &pid, &fd);
	if (r < 0)
		return r;
	snprintf(what, sizeof(what), "%s: worker", w->name);
	w->sock = loop_add_fd(w->sup->loop, fd, EPOLLIN, sup_worker_io, w);
	w->child = w->sock ? child_watch(w->sup->loop, pid, what, sup_child_ended, w) : NULL;
	if (!w->child) {
		r = -errno;
		if (w->sock)
			loop_watch_remove(w->sock);
		else
			close(fd);
		w->sock = NULL;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return r;
	}
	w->ready = false;
	w->error[0] = '\0';
	w->hb_killed = false;
	w->host_seen = false;
	w->hb_seq = w->hb_ack = 0;
	w->started_ms = w->alive_ms = loop_now_ms();
	sup_hb_start(w);
	log_debug("%s: worker started (pid %d)", w->name, (int)pid);
	return 0;
}

static void sup_worker_free(struct sup_worker *w)
{
	wargv_argv_free(w->argv);
	wargv_argv_free(w->argv_root);
	sup_status_clear(w);
	loop_watch_remove(w->hb);
	child_forget(w->child); /* none but at shutdown's end */
	free(w);
}

int supervisor_start(struct supervisor *s, const struct profile_function *f)
{
	struct sup_worker *w;
	int r;

	s->start_err[0] = '\0';
	if (supervisor_find(s, f->name))
		return -EEXIST;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->sup = s;
	child_restart_reset(&w->exits, s->cfg->restart_delay_ms);
	snprintf(w->name, sizeof(w->name), "%s", f->name);
	snprintf(w->mount, sizeof(w->mount), "%s/%s", s->cfg->ffs_dir, f->name);
	/* An exec function has no plugin: no declaration is found for it. */
	snprintf(w->plugin, sizeof(w->plugin), "%s", f->plugin ? f->plugin : "");
	snprintf(w->exec, sizeof(w->exec), "%s", f->exec ? f->exec : "");
	w->uid = f->uid;
	w->gid = f->gid;
	w->root_allowed = f->root_allowed;
	if (w->root_allowed) {
		const struct plugin_meta *m = plugin_list_find(w->plugin);

		/* The profile allowed it only for a plugin that declares it. */
		w->root_names = m ? m->root : NULL;
		w->root_allowed = w->root_names != NULL;
	}
	supervisor_tcp_init(w, f);
	supervisor_command_init(w, f);
	r = supervisor_exec_argv(s->cfg, f, w->mount, false, &w->argv);
	if (!r && f->root_allowed)
		r = supervisor_exec_argv(s->cfg, f, w->mount, true, &w->argv_root);
	if (!r && f->exec)
		r = supervisor_exec_config(s->cfg, f, w->mount, w->uid, w->gid,
					   s->start_err, sizeof(s->start_err));
	else if (!r)
		r = supervisor_exec_rundir(s->cfg, w->plugin, w->uid, w->gid,
					   s->start_err, sizeof(s->start_err));
	if (!r)
		r = supervisor_exec_mount(s->cfg, w->name, w->mount, w->uid, w->gid,
					  s->start_err, sizeof(s->start_err));
	/* Said once, here, and again in the switch's reply. */
	if (r < 0 && s->start_err[0])
		log_warnx("%s: %s", w->name, s->start_err);
	if (!r)
		r = sup_spawn(w);
	if (r < 0) {
		umount2(w->mount, MNT_DETACH);
		rmdir(w->mount);
		sup_worker_free(w);
		return r;
	}
	w->next = s->workers;
	s->workers = w;
	return 0;
}

void supervisor_stop(struct supervisor *s, const char *name)
{
	struct sup_worker **pp, *w;

	for (pp = &s->workers; *pp && strcmp((*pp)->name, name); pp = &(*pp)->next)
		;
	if (!(w = *pp))
		return;
	*pp = w->next;
	loop_watch_remove(w->restart);
	w->restart = NULL;
	loop_watch_remove(w->hb);
	w->hb = NULL;
	supervisor_command_finish_all(w, -ECANCELED, "the function was stopped before its plugin replied");
	/* Our end closes too: a worker whose loop turns sees the hang-up. */
	loop_watch_remove(w->sock);
	w->sock = NULL;
	w->ready = false;
	sup_ready_changed(s);
	if (!w->child) {
		supervisor_exec_unmount(w->name, w->mount);
		sup_worker_free(w);
		return;
	}
	/* Never wait here: SIGTERM now, SIGKILL later (child_stop()), and
	 * the rest when it has ended (sup_child_ended()). */
	w->stopping = true;
	child_stop(w->child, CHILD_TERM_MS);
	w->next = s->stopping;
	s->stopping = w;
}

/* Shutdown only: wait for the stopping workers, bounded (SIGTERM was
 * sent; SIGKILL after CHILD_TERM_MS; a worker stuck in the kernel even
 * after SIGKILL is left behind after SUP_KILL_MS more). */
static void sup_free_stopping(struct supervisor *s)
{
	uint64_t t0 = loop_now_ms();
	bool killed = false;
	struct sup_worker *w;
	int status;

	while ((w = s->stopping)) {
		pid_t r = waitpid(sup_pid(w), &status, WNOHANG);

		if (r == 0 && loop_now_ms() - t0 < CHILD_TERM_MS + SUP_KILL_MS) {
			if (!killed && loop_now_ms() - t0 >= CHILD_TERM_MS) {
				for (w = s->stopping; w; w = w->next) {
					log_warnx("%s: worker %d did not stop; killing it",
						  w->name, (int)sup_pid(w));
					kill(sup_pid(w), SIGKILL);
				}
				killed = true;
			}
			usleep(5000);
			continue;
		}
		if (r == 0)
			log_warnx("%s: worker %d did not die; leaving it", w->name,
				  (int)sup_pid(w));
		child_forget(w->child);
		w->child = NULL;
		s->stopping = w->next;
		supervisor_exec_unmount(w->name, w->mount);
		sup_worker_free(w);
	}
}

int supervisor_respawn(struct supervisor *s, const char *name)
{
	struct sup_worker *w = supervisor_find(s, name);
	int r;

	if (!w)
		return -ENOENT;
	if (sup_pid(w) > 0)
		return 0;
	if (w->failed)
		return -ENOTRECOVERABLE;
	loop_watch_remove(w->restart);
	w->restart = NULL;
	r = sup_spawn(w);
	if (r < 0)
		log_warnx("%s: cannot restart worker: %s", w->name, strerror(-r));
	return r;
}

static void sup_restart(struct loop_watch *t, void *data)
{
	struct sup_worker *w = data;

	loop_watch_remove(t);
	w->restart = NULL;
	if (w->sup->on_restart)
		w->sup->on_restart(w->name, w->sup->data);
	else
		supervisor_respawn(w->sup, w->name);
}

/*
 * The heartbeat. Silence is counted from the oldest ping not answered
 * (or the last answer), so time in which gadgetd itself sent nothing
 * never counts against a worker. A worker silent for the timeout is
 * killed; its exit is then handled like a crash.
 */
static void sup_hb_tick(struct loop_watch *t, void *data)
{
	struct sup_worker *w = data;
	const struct config *cfg = w->sup->cfg;
	uint8_t buf[sizeof(struct wmsg_hdr) + 4];
	uint64_t silent;
	int n;

	if (sup_pid(w) <= 0 || w->hb_killed)
		return;
	/* What the worker already sent first: the timer may come first in a
	 * round after gadgetd itself was held up, the answer waiting. */
	sup_drain(w);
	silent = loop_now_ms() - w->alive_ms;
	if (w->hb_ack != w->hb_seq && silent >= cfg->heartbeat_timeout_ms) {
		log_warnx("function %s: worker %d did not answer the heartbeat for "
			  "%llu s; killing it", w->name, (int)sup_pid(w),
			  (unsigned long long)(silent / 1000));
		log_debug("%s: heartbeat %u sent, %u answered last", w->name,
			  w->hb_seq, w->hb_ack);
		w->hb_killed = true;
		kill(sup_pid(w), SIGKILL);
		return;
	}
	loop_timer_rearm(t, cfg->heartbeat_interval_ms);
	/* Before READY the worker's loop does not run yet: the readiness
	 * timeout covers that time. */
	if (!w->ready || !w->sock)
		return;
	if (w->hb_ack == w->hb_seq)
		w->alive_ms = loop_now_ms();
	w->hb_seq++;
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_PING, w->hb_seq);
	/* A full socket is the worker's silence too. */
	send(loop_watch_fd(w->sock), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void sup_hb_start(struct sup_worker *w)
{
	loop_watch_remove(w->hb);
	w->hb = loop_add_timer(w->sup->loop, w->sup->cfg->heartbeat_interval_ms,
			       sup_hb_tick, w);
	if (!w->hb)
		log_warn("%s: cannot start the heartbeat", w->name);
}

static void sup_exit_text(struct sup_worker *w, int status)
{
	if (WIFSIGNALED(status))
		snprintf(w->last_exit, sizeof(w->last_exit), "killed by signal %d (%s)%s",
			 WTERMSIG(status), strsignal(WTERMSIG(status)),
			 w->hb_killed ? " after missing its heartbeat"
			 : WTERMSIG(status) == SIGSYS
				 ? ": a system call outside its seccomp filter"
				 : "");
	else
		snprintf(w->last_exit, sizeof(w->last_exit), "exited with status %d",
			 WEXITSTATUS(status));
}

static void sup_exited(struct sup_worker *w, int status)
{
	uint64_t now = loop_now_ms(), up = now - w->started_ms;
	const struct config *cfg = w->sup->cfg;
	unsigned delay;

	sup_drain(w);
	snprintf(w->last_error, sizeof(w->last_error), "%s", w->error);
	sup_exit_text(w, status);
	w->ready = false;
	w->host = false;
	loop_watch_remove(w->hb);
	w->hb = NULL;
	supervisor_command_finish_all(w, -EPIPE, "plugin worker exited before it replied");
	if (w->root_switching) {
		/* Asked for (adb root/unroot): not a crash, no back-off. */
		w->root_switching = false;
		snprintf(w->last_exit, sizeof(w->last_exit), "stopped for %s",
			 w->root ? w->root_names->request : w->root_names->undo);
		sup_ready_changed(w->sup);
		w->restart = loop_add_timer(w->sup->loop, 1, sup_restart, w);
		return;
	}
	/*
	 * Only exits no host had a hand in add up to a crash loop. One that
	 * follows a host's doing (an unplug, a stalled or malformed request,
	 * the heartbeat missed meanwhile) restarts the plugin for the next
	 * host, with the same backoff: a host that could mark a function
	 * failed could take it away until an admin switches.
	 */
	if (!w->host_seen && child_restart_too_often(&w->exits, now, cfg->restart_limit,
						     cfg->restart_window_ms)) {
		/* Restarting again would only re-enumerate the gadget every
		 * few seconds; the other functions stay up and bound. */
		w->failed = true;
		snprintf(w->failed_why, sizeof(w->failed_why),
			 "crashed %u time%s in %u s; last: %s", w->exits.n_exits,
			 w->exits.n_exits == 1 ? "" : "s",
			 (cfg->restart_window_ms + 999) / 1000, w->last_exit);
		log_warnx("function %s: failed: %s; not restarting it until the "
			  "next switch", w->name, w->failed_why);
		event_emit(EVENT_PLUGIN_FAILED, w->name, w->failed_why, (int)w->restarts);
		sup_ready_changed(w->sup);
		/* One last call of on_restart, from the loop: the gadget binds
		 * again without this function (supervisor_respawn() refuses). */
		w->restart = loop_add_timer(w->sup->loop, 1, sup_restart, w);
		return;
	}
	w->restarts++;
	sup_ready_changed(w->sup);
	delay = child_restart_delay(&w->exits, cfg->restart_delay_ms, up);
	log_warnx("%s: worker %s%s%s; restarting in %u ms%s", w->name,
		  w->last_exit, w->last_error[0] ? ": " : "", w->last_error,
		  delay, w->host_seen ? " (a host had it: not counted "
		  "towards restart_limit)" : "");
	w->restart = loop_add_timer(w->sup->loop, delay, sup_restart, w);
}

/* A stopped worker is gone: now its instance may go. */
/* A stopped worker has ended: its instance goes. */
static void sup_stopped(struct sup_worker *w)
{
	struct supervisor *s = w->sup;
	struct sup_worker **pp;

	for (pp = &s->stopping; *pp && *pp != w; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = w->next;
	log_debug("%s: worker stopped", w->name);
	supervisor_exec_unmount(w->name, w->mount);
	sup_worker_free(w);
	sup_stopped_changed(s);
}

/* A worker's process has ended (its pidfd, common/child.c): the one
 * reaper of workers, with no SIGCHLD. */
static void sup_child_ended(int status, bool known, void *data)
{
	struct sup_worker *w = data;

	w->child = NULL;
	if (w->stopping)
		sup_stopped(w);
	else
		sup_exited(w, status);
}

bool supervisor_stopping(struct supervisor *s)
{
	return s->stopping != NULL;
}

static void sup_stopped_check(struct loop_watch *lw, void *data)
{
	struct supervisor *s = data;
	supervisor_stopped_fn fn = s->stopped_fn;
	void *fn_data = s->stopped_data;

	s->stopped_check = NULL;
	if (s->stopping || !fn)
		return;
	s->stopped_fn = NULL;
	s->stopped_data = NULL;
	fn(fn_data);
}

static void sup_stopped_changed(struct supervisor *s)
{
	if (s->stopped_fn && !s->stopping && !s->stopped_check)
		s->stopped_check = loop_add_idle(s->loop, sup_stopped_check, s);
}

int supervisor_wait_stopped(struct supervisor *s, supervisor_stopped_fn fn,
			    void *data)
{
	if (s->stopped_fn)
		return -EBUSY;
	s->stopped_fn = fn;
	s->stopped_data = data;
	sup_stopped_changed(s);
	if (!s->stopping && !s->stopped_check) {
		s->stopped_fn = NULL;
		return -errno;
	}
	return 0;
}

void supervisor_wait_stopped_cancel(struct supervisor *s)
{
	loop_watch_remove(s->stopped_check);
	s->stopped_check = NULL;
	s->stopped_fn = NULL;
	s->stopped_data = NULL;
}

int supervisor_revive(struct supervisor *s)
{
	struct sup_worker *w;
	int r, ret = 0;

	for (w = s->workers; w; w = w->next) {
		if (!w->failed)
			continue;
		log_info("function %s: starting its plugin again after a switch "
			 "(it had %s)", w->name, w->failed_why);
		w->failed = false;
		w->failed_why[0] = '\0';
		child_restart_reset(&w->exits, s->cfg->restart_delay_ms);
		r = sup_spawn(w);
		if (r < 0) {
			log_warnx("%s: cannot restart worker: %s", w->name, strerror(-r));
			ret = r;
		}
	}
	return ret;
}

bool supervisor_failed(struct supervisor *s, const char *name)
{
	struct sup_worker *w = supervisor_find(s, name);

	return w && w->failed;
}

unsigned supervisor_restarts(struct supervisor *s, const char *name)
{
	struct sup_worker *w = supervisor_find(s, name);

	return w ? w->restarts : 0;
}

bool supervisor_any_failed(struct supervisor *s)
{
	struct sup_worker *w;

	for (w = s->workers; w; w = w->next)
		if (w->failed)
			return true;
	return false;
}

/* 1: all ready; 0: keep waiting; -1: a new worker died before it was
 * ever ready, so waiting longer cannot help. */
static int sup_ready_state(struct supervisor *s)
{
	struct sup_worker *w;
	int r = 1;

	for (w = s->workers; w; w = w->next) {
		if ((!w->ever_ready && w->restarts) || w->failed)
			return -1;
		if (!w->ready)
			r = 0;
	}
	return r;
}

/* A worker that died before it was ever ready: its own last error when it
 * sent one, else how it ended. */
static size_t sup_died_err(struct sup_worker *w, char *err, size_t size)
{
	if (w->last_error[0])
		return snprintf(err, size, "function %s: failed: %s (its worker %s "
				"before it was ready)", w->name, w->last_error,
				w->last_exit);
	return snprintf(err, size, "function %s: plugin worker %s before it was "
			"ready (its log says why)", w->name, w->last_exit);
}

/*
 * Why the wait failed. After a death (-ECHILD) only the workers that died
 * are named: the others may be healthy and merely slower. After the
 * timeout, every worker that is not ready is.
 */
static void sup_ready_err(struct supervisor *s, int r, char *err,
			  size_t err_size)
{
	struct sup_worker *w;
	size_t n = 0;

	err[0] = '\0';
	for (w = s->workers; w && n < err_size; w = w->next) {
		bool died = !w->ever_ready && w->restarts;

		if (w->ready || (r == -ECHILD && !died))
			continue;
		if (n)
			n += snprintf(err + n, err_size - n, "; ");
		if (n >= err_size)
			break;
		if (w->failed)
			n += snprintf(err + n, err_size - n, "function %s: failed: %s",
				      w->name, w->failed_why);
		else if (died)
			n += sup_died_err(w, err + n, err_size - n);
		else if (w->exec[0])
			n += snprintf(err + n, err_size - n,
				      "function %s: %s wrote no descriptors to %s/ep0 within %u ms",
				      w->name, w->exec, w->mount, s->ready_timeout_ms);
		else
			n += snprintf(err + n, err_size - n,
				      "function %s: plugin not ready after %u ms%s%s",
				      w->name, s->ready_timeout_ms,
				      w->last_exit[0] ? ", worker " : "", w->last_exit);
	}
}

/* The wait ends: forget it first, so fn may start another. */
static void sup_ready_report(struct supervisor *s, int r)
{
	supervisor_ready_fn fn = s->ready_fn;
	void *data = s->ready_data;
	char err[1024] = "";

	if (r < 0)
		sup_ready_err(s, r, err, sizeof(err));
	supervisor_wait_cancel(s);
	fn(r, err, data);
}

static void sup_ready_check(struct loop_watch *lw, void *data)
{
	struct supervisor *s = data;
	int state;

	s->ready_check = NULL;
	state = sup_ready_state(s);
	if (state)
		sup_ready_report(s, state < 0 ? -ECHILD : 0);
}

static void sup_ready_timeout(struct loop_watch *t, void *data)
{
	struct supervisor *s = data;
	int state = sup_ready_state(s);

	loop_watch_remove(t);
	s->ready_timer = NULL;
	sup_ready_report(s, state > 0 ? 0 : state < 0 ? -ECHILD : -ETIMEDOUT);
}

/* Look again after this round, once, however many workers changed. */
static void sup_ready_changed(struct supervisor *s)
{
	if (s->ready_fn && !s->ready_check)
		s->ready_check = loop_add_idle(s->loop, sup_ready_check, s);
}

int supervisor_wait_ready(struct supervisor *s, unsigned timeout_ms,
			  supervisor_ready_fn fn, void *data)
{
	if (s->ready_fn)
		return -EBUSY;
	s->ready_timer = loop_add_timer(s->loop, timeout_ms ? timeout_ms : 1,
					sup_ready_timeout, s);
	if (!s->ready_timer)
		return -errno;
	s->ready_fn = fn;
	s->ready_data = data;
	s->ready_timeout_ms = timeout_ms;
	sup_ready_changed(s);
	return 0;
}

void supervisor_wait_cancel(struct supervisor *s)
{
	loop_watch_remove(s->ready_timer);
	loop_watch_remove(s->ready_check);
	s->ready_timer = s->ready_check = NULL;
	s->ready_fn = NULL;
	s->ready_data = NULL;
}

void supervisor_status(struct supervisor *s, struct status *st)
{
	struct sup_worker *w;
	unsigned i;

	st->n_plugins = 0;
	for (w = s->workers; w && st->n_plugins < STATUS_MAX_PLUGINS; w = w->next) {
		struct status_plugin *p = &st->plugins[st->n_plugins++];

		p->name = w->name;
		p->state = w->failed ? "failed"
			   : w->ready ? (w->host ? "enabled" : "ready")
				      : (sup_pid(w) ? "starting" : "restarting");
		p->pid = (int)sup_pid(w);
		p->restarts = w->restarts;
		p->root_allowed = w->root_allowed;
		p->root_request = w->root_allowed ? w->root_names->request : "";
		/* adb root: "active" from the request until unroot. */
		p->root = w->root ? "active" : w->root_allowed ? "allowed" : "refused";
		p->last_exit = w->last_exit;
		p->last_error = w->last_error;
		p->failed = w->failed;
		p->failed_why = w->failed_why;
		p->n_kv = w->n_status;
		for (i = 0; i < w->n_status; i++) {
			p->kv[i][0] = w->status[i][0];
			p->kv[i][1] = w->status[i][1];
		}
	}
}

void supervisor_set_locked(struct supervisor *s, bool locked)
{
	struct sup_worker *w;
	uint8_t buf[16];
	int n;

	s->locked = locked;
	n = wmsg_build_u32(buf, sizeof(buf), WORKER_LOCK, locked);
	for (w = s->workers; w; w = w->next) {
		if (!w->sock)
			continue;
		/* A full socket is a worker that stopped answering: the
		 * heartbeat restarts it, with -l. */
		if (send(loop_watch_fd(w->sock), buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			log_warn("%s: cannot tell the worker the lock state", w->name);
	}
}
