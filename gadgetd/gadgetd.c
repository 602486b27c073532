/* gadgetd: composes the USB gadget from profiles and hosts its plugins. */
#include "access.h"
#include "config.h"
#include "control.h"
#include "dbus.h"
#include "dirs.h"
#include "dispatch.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "netcfg.h"
#include "lockhint.h"
#include "notify.h"
#include "ootmeta.h"
#include "profile.h"
#include "ctl.h"
#include "state.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GADGETD_DEFAULT_CONFIG SYSCONFDIR "/gadgetd/gadgetd.conf"

static void gadgetd_usage(FILE *out)
{
	fprintf(out,
		"Usage: gadgetd [-f] [-n] [-v] [-c FILE] [-s SOCKET]\n"
		"Compose the USB gadget from profiles and host its FunctionFS plugins.\n\n"
		"  -c FILE    configuration file (default " GADGETD_DEFAULT_CONFIG ")\n"
		"  -s SOCKET  control socket (default " CTL_DEFAULT_SOCKET ")\n"
		"  -f         stay in the foreground and log to stderr\n"
		"  -n         only check the configuration and every profile, print\n"
		"             each error as FILE:LINE, exit 0 if all are valid\n"
		"  -v         verbose (debug) logging\n"
		"  -h         this help\n");
}

/* A state file gadgetd would ignore is worth a warning, not a failure:
 * gadgetd starts on the defaults without it. */
static void gadgetd_check_state(const struct config *cfg)
{
	struct state st;
	char err[1024];
	int r = state_load(cfg->state_file, &st, err, sizeof(err));

	if (r < 0 && r != -ENOENT)
		fprintf(stderr, "%s (a warning: gadgetd ignores the state file and starts "
			"on the configured profile's default set)\n", err);
}

struct gadgetd_check_ctx {
	const struct config *cfg;
	int n, bad;
};

/* One profile of profile_dir, read and checked as a switch would. */
static void gadgetd_check_one(const struct config_profile_entry *e, void *data)
{
	struct gadgetd_check_ctx *c = data;
	char err[8192], file[1024], *text = NULL;
	struct profile *p = NULL;

	if (!e->name) {
		fprintf(stderr, "%s/%s: warning: not a profile name (a-z, 0-9, _ "
			"and -); gadgetd never loads it\n", c->cfg->profile_dir, e->file);
		return;
	}
	c->n++;
	if (config_profile_read(c->cfg, e->name, &text, file, sizeof(file), err,
				sizeof(err)) < 0 ||
	    profile_parse(file, text, &p, err, sizeof(err)) < 0 ||
	    profile_ids_resolve(p, err, sizeof(err)) < 0 ||
	    netcfg_clash(p, -1, NULL, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		c->bad = 1;
	}
	free(text);
	profile_free(p);
}

/* -n: check gadgetd.conf, every profile in profile_dir (the active one
 * and all the others, which gadgetd itself only loads when they are
 * used) and the state file. */
static int gadgetd_check(const char *path)
{
	char err[8192], file[1024], *text = NULL;
	struct gadgetd_check_ctx c = { 0 };
	struct config *cfg;
	int bad, r;

	if (config_load(path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	c.cfg = cfg;
	ootmeta_setup(cfg->worker, cfg->plugin_dir, 0);
	r = config_profile_scan(cfg, gadgetd_check_one, &c);
	if (r < 0) {
		fprintf(stderr, "%s: profile_dir %s: %s\n", path, cfg->profile_dir,
			strerror(-r));
		config_free(cfg);
		return 1;
	}
	bad = c.bad;
	if (config_profile_read(cfg, cfg->profile, &text, file, sizeof(file), err,
				sizeof(err)) < 0) {
		fprintf(stderr, "%s: profile \"%s\": %s\n", path, cfg->profile, err);
		bad = 1;
	}
	free(text);
	gadgetd_check_state(cfg);
	if (!bad)
		printf("%s: OK (%d profiles)\n", path, c.n);
	config_free(cfg);
	return bad;
}

static void gadgetd_on_quit(struct loop *l, int signo, void *data)
{
	log_info("%s: shutting down", strsignal(signo));
	loop_quit(l, 0);
}

/* Never a reload inside a switch: the gadget queues it behind the
 * transaction in progress. */
static void gadgetd_on_hup(struct loop *l, int signo, void *data)
{
	gadget_queue_reload(data);
}

/* The start-up switch is done: systemd hears READY=1 with the gadget up. */
static void gadgetd_started(int r, const char *msg, void *data)
{
	if (r < 0)
		log_warnx("%s", msg);
	else
		log_info("%s", msg);
	notify_send("READY=1");
}

/* The groups of gadgetd.conf as gids. A group that does not exist grants
 * nothing: the socket is then root's alone (or admin is root's alone). */
static void gadgetd_policy(const struct config *cfg, struct access_policy *p)
{
	struct group *gr;

	*p = (struct access_policy){ 0 };
	if (cfg->group) {
		gr = getgrnam(cfg->group);
		if (gr) {
			p->group = cfg->group;
			p->group_gid = gr->gr_gid;
		} else {
			log_warnx("%s: group \"%s\" does not exist; the control socket is "
				  "root's only", cfg->path, cfg->group);
		}
	}
	if (cfg->admin_group) {
		gr = getgrnam(cfg->admin_group);
		if (gr) {
			p->admin_group = cfg->admin_group;
			p->admin_gid = gr->gr_gid;
		} else {
			log_warnx("%s: admin_group \"%s\" does not exist; only root "
				  "administers", cfg->path, cfg->admin_group);
		}
	}
}

/*
 * The folders gadgetd owns, made before anything needs them: its runtime
 * folder (the plugins' sockets go in run_dir/PLUGIN, which the worker's
 * user gets when it starts) and the state file's folder. One that cannot
 * be made is reported now, with its path; gadgetd goes on, as a gadget
 * of kernel functions needs neither.
 */
static void gadgetd_dirs(const struct config *cfg)
{
	char dir[4096], err[4200];

	if (dirs_make(cfg->run_dir, 0755, err, sizeof(err)) < 0)
		log_warnx("runtime folder: %s; plugins cannot start", err);
	dirs_parent(cfg->state_file, dir, sizeof(dir));
	if (dirs_make(dir, 0755, err, sizeof(err)) < 0)
		log_warnx("%s: state_file %s: %s; the active set is not kept "
			  "across restarts", cfg->path, cfg->state_file, err);
}

static int gadgetd_run(struct config *cfg, const char *sock)
{
	struct access_policy policy;
	struct notify_watchdog *wd;
	struct gadget *g = NULL;
	struct dispatch *disp;
	struct control *ctl;
	struct lockhint *hint = NULL;
	struct dbus *bus;
	char msg[4096];
	struct loop *l;
	int r;

	signal(SIGPIPE, SIG_IGN);
	gadgetd_dirs(cfg);
	l = loop_new();
	if (!l)
		return 1;
	r = gadget_new(l, cfg, &g);
	if (r < 0) {
		log_warnx("cannot set up the gadget: %s", strerror(-r));
		loop_free(l);
		return 1;
	}
	loop_add_signal(l, SIGTERM, gadgetd_on_quit, g);
	loop_add_signal(l, SIGINT, gadgetd_on_quit, g);
	loop_add_signal(l, SIGHUP, gadgetd_on_hup, g);
	gadgetd_policy(cfg, &policy);
	/* Between the gadget and the front ends: both submit to it. */
	disp = dispatch_new(l, cfg, &policy, g);
	ctl = disp ? control_new(l, sock, &policy, g, disp) : NULL;
	if (!ctl) {
		dispatch_free(disp);
		gadget_free(g);
		loop_free(l);
		return 1;
	}
	/* Optional: without a system bus it only logs (dbus.h). */
	bus = dbus_new(l, cfg, &policy, g, disp);
	/* After the gadget: it locks and unlocks through gadget_lock(). */
	if (cfg->lock_follow_logind && !(hint = lockhint_new(l, g)))
		log_warn("lock_follow");
	/* Fed from the loop: a loop that blocks starves it. */
	wd = notify_watchdog_new(l);
	r = gadget_boot_start(g, msg, sizeof(msg), gadgetd_started, NULL);
	if (r != -EINPROGRESS)
		gadgetd_started(r, msg, NULL);
	r = loop_run(l);
	notify_send("STOPPING=1");
	notify_watchdog_free(wd);
	lockhint_free(hint);
	dbus_free(bus);
	control_free(ctl);
	dispatch_free(disp);
	gadget_free(g);
	loop_free(l);
	return r;
}

int main(int argc, char **argv)
{
	const char *path = GADGETD_DEFAULT_CONFIG, *sock = NULL;
	bool fg = false, check = false, verbose = false;
	struct config *cfg;
	char err[8192];
	int c;

	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "c:s:fnvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c': path = optarg; break;
		case 's': sock = optarg; break;
		case 'f': fg = true; break;
		case 'n': check = true; break;
		case 'v': verbose = true; break;
		case 'h': gadgetd_usage(stdout); return 0;
		default: gadgetd_usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		gadgetd_usage(stderr);
		return 2;
	}
	if (check)
		return gadgetd_check(path);
	if (!sock)
		sock = getenv("GADGETD_SOCKET") ? getenv("GADGETD_SOCKET") : CTL_DEFAULT_SOCKET;
	if (config_load(path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (!fg && daemon(0, 0) < 0) {
		perror("gadgetd: daemon");
		return 1;
	}
	log_init("gadgetd", fg, verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO);
	/* Out-of-tree plugins are described by the worker, at profile load. */
	ootmeta_setup(cfg->worker, cfg->plugin_dir, 0);
	c = gadgetd_run(cfg, sock);
	ootmeta_clear();
	config_free(cfg);
	return c;
}
