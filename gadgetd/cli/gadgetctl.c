/* gadgetctl: send one request to gadgetd and print its reply. */
#include "profile.h"
#include "ctl.h"
#include "netcfg.h"
#include "ootmeta.h"

#include "json.h"
#include "monotime.h"
#include "plugin_list.h"
#include "status.h"

#include <errno.h>
#include <dirent.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct gadgetctl_cmd {
	const char *name;
	const char *args;
	const char *help;
	uint16_t type;
	int min_args, max_args;
	int (*local)(int argc, char **argv);
};

static int gadgetctl_check(int argc, char **argv);
static int gadgetctl_monitor(int argc, char **argv);
static int gadgetctl_wait(int argc, char **argv);

static const struct gadgetctl_cmd gadgetctl_cmds[] = {
	{ "switch", "[--profile NAME] [SET]",
	  "switch to SET (e.g. mtp,adb) of the active or the named profile;\n"
	  "exits 0 once the gadget is bound again. NAME is 1..63 of a-z, 0-9,\n"
	  "_ and -; choosing another profile needs root or admin_group",
	  CTL_SWITCH, 1, 3, NULL },
	{ "off", "", "unbind and remove the gadget (root or admin_group)", CTL_OFF,
	  0, 0, NULL },
	{ "list", "[--sets|--profiles|--functions|--commands PLUGIN]",
	  "list the profile's functions and allowed sets; with an option only\n"
	  "those names, one a line (functions: NAME, a tab, PLUGIN or -;\n"
	  "commands: a plugin's, NAME, a tab, ARGS, without gadgetd)", CTL_LIST, 0, 2, NULL },
	{ "status", "[--json]", "show profile, set, UDC, speed, plugins and the\n"
	  "last switch's timing", CTL_STATUS, 0, 1, NULL },
	{ "reload", "", "re-read the active profile; a bad file changes nothing\n"
	  "(root or admin_group)", CTL_RELOAD, 0, 0, NULL },
	{ "wakeup", "", "wake the host that suspended the bus (USB remote wakeup;\n"
	  "the set needs remote_wakeup = true); exits 0 once the host resumed\n"
	  "it, else says why", CTL_WAKEUP, 0, 0, NULL },
	{ "lock", "", "lock the device: the functions whose lock_gated is true\n"
	  "serve no data until unlock; survives a restart of gadgetd, not a\n"
	  "reboot (root or admin_group)", CTL_LOCK, 0, 0, NULL },
	{ "unlock", "", "unlock the device: hosts held while locked get in\n"
	  "without a replug (root or admin_group)", CTL_UNLOCK, 0, 0, NULL },
	{ "storage", "insert|eject|status [OPTIONS] [FUNCTION] [IMAGE]",
	  "  insert [--cdrom] [--ro] [--lun N] [FUNCTION] IMAGE\n"
	  "  eject [--force] [--lun N] [FUNCTION]\n"
	  "  status [FUNCTION]\n"
	  "change the medium of a mass_storage LUN (0 unless --lun) without a\n"
	  "re-enumeration: the host sees a media change. FUNCTION may be left out\n"
	  "when the active set has one mass_storage function. A relative IMAGE is\n"
	  "looked up in the function's media_dir; root and admin_group may name\n"
	  "any file, group (where the profile sets group_media) only files beneath\n"
	  "media_dir, reached without a symbolic link. eject --force takes the\n"
	  "medium away even while the host holds it",
	  CTL_STORAGE, 1, 8, NULL },
	{ "check", "FILE...", "validate profiles without touching anything", 0, 1,
	  64, gadgetctl_check },
	{ "monitor", "[--json]", "print events as they happen (the host attached,\n"
	  "configured, suspended, detached; switches begun and done; plugins\n"
	  "restarted or failed; lock and unlock; a plugin's own, e.g. adb keys waiting), one a\n"
	  "line, until gadgetd stops",
	  CTL_MONITOR, 0, 1, gadgetctl_monitor },
	{ "wait", "[--timeout S]", "wait until gadgetd's start-up is over (the saved or\n"
	  "default set is up); exits 7 when S seconds pass first, 3 when\n"
	  "gadgetd is not there by then", CTL_WAIT, 0, 2, gadgetctl_wait },
};

#define GADGETCTL_NCMDS (sizeof(gadgetctl_cmds) / sizeof(gadgetctl_cmds[0]))

/* The plugin commands, as each plugin declares them (plugin_meta.h). */
/* A plugin's declaration: a built-in's, else that of PLUGINDIR/NAME.so as
 * the installed worker describes it (ootmeta.h), or NULL with why. */
static const struct plugin_meta *gadgetctl_plugin(const char *name, char *why, size_t size)
{
	const struct plugin_meta *m = plugin_list_find(name);

	if (m)
		return m;
	if (!ootmeta_enabled())
		ootmeta_setup(LIBEXECDIR "/gadgetd-worker", PLUGINDIR, 0);
	return ootmeta_load(name, why, size);
}

static void gadgetctl_usage_commands(FILE *out, const struct plugin_meta *m)
{
	const struct plugin_command *c;
	char head[96];

	for (c = m->commands; c && c->name; c++) {
		snprintf(head, sizeof(head), "%s %s%s%s", m->name, c->name, *c->args ? " " : "",
			 c->args);
		/* A long synopsis gets a line of its own. */
		fprintf(out, "    %-24s%s%s%s\n", head,
			strlen(head) > 24 ? "\n                             " : " ", c->help,
			c->access == PLUGIN_ACCESS_ADMIN ? " (root or admin_group)" : "");
	}
}

/* The .so files in PLUGINDIR that are not built-in plugins, by name. */
static int gadgetctl_oot_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	char name[256];

	if (n < 4 || n >= sizeof(name) || strcmp(d->d_name + n - 3, ".so") || d->d_name[0] == '.')
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)(n - 3), d->d_name);
	return !plugin_list_find(name);
}

static void gadgetctl_usage_plugins(FILE *out)
{
	const struct plugin_meta *const *m, *oot;
	struct dirent **ents;
	char why[512], name[256];
	int n, i;

	for (m = plugin_list_metas; *m; m++)
		gadgetctl_usage_commands(out, *m);
	/* Out-of-tree plugins installed beside them, as their worker
	 * describes them. */
	n = scandir(PLUGINDIR, &ents, gadgetctl_oot_filter, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(ents[i]->d_name) - 3),
			 ents[i]->d_name);
		oot = gadgetctl_plugin(name, why, sizeof(why));
		if (oot)
			gadgetctl_usage_commands(out, oot);
		else
			fprintf(out, "    %-24s (not described: %s)\n", name, why);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* list --commands PLUGIN: its commands, NAME, a tab and ARGS, one a line
 * (for completion), without gadgetd. */
static int gadgetctl_list_commands(const char *name)
{
	const struct plugin_meta *m;
	const struct plugin_command *c;
	char why[512];

	if (!(m = gadgetctl_plugin(name, why, sizeof(why)))) {
		fprintf(stderr, "gadgetctl: no plugin \"%s\": %s\n", name, why);
		return CTL_EXIT_INVALID;
	}
	for (c = m->commands; c && c->name; c++)
		printf("%s\t%s\n", c->name, c->args);
	return CTL_EXIT_OK;
}

static void gadgetctl_usage(FILE *out)
{
	unsigned i;

	fprintf(out, "Usage: gadgetctl [-s SOCKET] COMMAND [ARGS...]\n"
		     "       gadgetctl [-s SOCKET] FUNCTION COMMAND [ARGS...]\n\n"
		     "Commands:\n");
	for (i = 0; i < GADGETCTL_NCMDS; i++)
		fprintf(out, "  %-8s %s\n", gadgetctl_cmds[i].name,
			gadgetctl_cmds[i].args);
	fprintf(out, "  FUNCTION COMMAND [ARGS...]  a plugin's own command, on a function\n"
		     "           of that plugin (e.g. \"adb keys\"):\n");
	gadgetctl_usage_plugins(out);
	fprintf(out, "\nThe socket is $GADGETD_SOCKET, else " CTL_DEFAULT_SOCKET ".\n"
		     "Exit codes: 0 done, 1 failed (rolled back), 2 usage, 3 gadgetd\n"
		     "not reachable, 4 permission denied, 5 invalid request, 6 busy\n"
		     "(the queue of switches is full), 7 timed out (wait).\n"
		     "Root and admin_group may do everything; group (gadgetd.conf) may\n"
		     "read status and switch among the active profile's sets.\n"
		     "`gadgetctl COMMAND --help` describes one command.\n");
}

static int gadgetctl_check(int argc, char **argv)
{
	char err[8192];
	struct profile *p;
	int i, bad = 0;

	/* An out-of-tree plugin's options are checked against what the
	 * installed worker describes of PLUGINDIR/NAME.so (ootmeta.h). */
	ootmeta_setup(LIBEXECDIR "/gadgetd-worker", PLUGINDIR, 0);
	for (i = 0; i < argc; i++) {
		if (profile_load(argv[i], &p, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		/* What gadgetd refuses at load that needs no board: the
		 * board's own interfaces are gadgetd -n's to compare with. */
		if (netcfg_clash_sets(p, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			profile_free(p);
			continue;
		}
		printf("%s: OK (%u functions, %u sets)\n", argv[i], p->n_functions,
		       p->n_sets);
		profile_free(p);
	}
	return bad ? CTL_EXIT_INVALID : CTL_EXIT_OK;
}

/* The socket, for the commands that talk to gadgetd themselves. */
static const char *gadgetctl_sock;

static int gadgetctl_exit(int32_t status)
{
	switch (-status) {
	case 0:
		return CTL_EXIT_OK;
	case EACCES:
	case EPERM:
		return status == -EACCES ? CTL_EXIT_DENIED : CTL_EXIT_INVALID;
	case ENOENT:
	case EINVAL:
	case EBADMSG:
		return CTL_EXIT_INVALID;
	case EBUSY:
		return CTL_EXIT_BUSY;
	}
	return CTL_EXIT_FAILED;
}

static int gadgetctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/* The socket's mode said no: say who may use it, and exit as for any
 * other refusal. */
static int gadgetctl_denied(const char *sock)
{
	struct group *gr;
	struct stat st;

	if (stat(sock, &st) < 0 || !(st.st_mode & 060) || !(gr = getgrgid(st.st_gid))) {
		fprintf(stderr, "gadgetctl: permission denied: only root may use %s\n", sock);
		return CTL_EXIT_DENIED;
	}
	fprintf(stderr, "gadgetctl: permission denied: %s is for root and members of "
		"group %s\n", sock, gr->gr_name);
	return CTL_EXIT_DENIED;
}

static int gadgetctl_request(const char *sock, uint16_t type, int argc,
			     char **argv)
{
	static char buf[CTL_MSG_MAX];
	const char *text;
	int32_t status;
	ssize_t got;
	int fd, n;

	n = ctl_build_request(buf, sizeof(buf), type, argc, argv);
	if (n < 0) {
		fprintf(stderr, "gadgetctl: arguments too long\n");
		return CTL_EXIT_USAGE;
	}
	fd = gadgetctl_connect(sock);
	if (fd == -EACCES || fd == -EPERM)
		return gadgetctl_denied(sock);
	if (fd < 0) {
		fprintf(stderr, "gadgetctl: cannot reach gadgetd at %s: %s\n", sock,
			strerror(-fd));
		return CTL_EXIT_NO_DAEMON;
	}
	/* gadgetd may have answered and closed before we sent (too many
	 * clients): its reply is still there to read. If it closed with our
	 * request unread, the kernel reports ECONNRESET first, once, and the
	 * reply is still queued behind it. */
	if (send(fd, buf, n, MSG_NOSIGNAL) < 0)
		got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	else
		got = recv(fd, buf, sizeof(buf), 0);
	if (got < 0 && errno == ECONNRESET)
		got = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (got <= 0) {
		fprintf(stderr, "gadgetctl: %s: %s\n", sock,
			got ? strerror(errno) : "gadgetd closed the connection");
		close(fd);
		return CTL_EXIT_NO_DAEMON;
	}
	close(fd);
	if (ctl_parse_reply(buf, got, &status, &text) < 0) {
		fprintf(stderr, "gadgetctl: malformed reply from gadgetd\n");
		return CTL_EXIT_FAILED;
	}
	fputs(text, status ? stderr : stdout);
	return gadgetctl_exit(status);
}

/* Connect to sock and send a request: the socket, or -1 with *code the
 * exit code (the reason printed). */
static int gadgetctl_open(const char *sock, uint16_t type, int argc, char **argv,
			  int *code)
{
	char buf[CTL_MSG_MAX];
	int fd, n;

	n = ctl_build_request(buf, sizeof(buf), type, argc, argv);
	fd = n < 0 ? -E2BIG : gadgetctl_connect(sock);
	if (fd == -EACCES || fd == -EPERM) {
		*code = gadgetctl_denied(sock);
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "gadgetctl: cannot reach gadgetd at %s: %s\n", sock,
			strerror(-fd));
		*code = CTL_EXIT_NO_DAEMON;
		return -1;
	}
	if (send(fd, buf, n, MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "gadgetctl: %s: %s\n", sock, strerror(errno));
		close(fd);
		*code = CTL_EXIT_NO_DAEMON;
		return -1;
	}
	return fd;
}

/* After the first reply (subscribed), events until a last reply: 0 when
 * gadgetd stops, -ENOBUFS when this monitor fell behind. */
static int gadgetctl_monitor(int argc, char **argv)
{
	static char buf[CTL_MSG_MAX];
	bool json = false, subscribed = false;
	struct ctl_event ev;
	const char *text;
	int32_t status;
	ssize_t got;
	int fd, code;

	if (argc == 1 && strcmp(argv[0], "--json")) {
		fprintf(stderr, "Usage: gadgetctl monitor [--json]\n");
		return CTL_EXIT_USAGE;
	}
	json = argc == 1;
	fd = gadgetctl_open(gadgetctl_sock, CTL_MONITOR, 0, NULL, &code);
	if (fd < 0)
		return code;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		got = recv(fd, buf, sizeof(buf), 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			fprintf(stderr, "gadgetctl: %s: %s\n", gadgetctl_sock,
				got ? strerror(errno) : "gadgetd closed the connection");
			close(fd);
			return CTL_EXIT_NO_DAEMON;
		}
		if (subscribed && ctl_parse_event(buf, got, &ev) == 0) {
			status_write_event(&ev, stdout, json);
			continue;
		}
		if (ctl_parse_reply(buf, got, &status, &text) < 0) {
			fprintf(stderr, "gadgetctl: malformed message from gadgetd\n");
			close(fd);
			return CTL_EXIT_FAILED;
		}
		if (!subscribed && !status) {
			subscribed = true;
			continue;
		}
		/* The end: gadgetd stops (0), or dropped this monitor. */
		fputs(text, stderr);
		close(fd);
		return gadgetctl_exit(status);
	}
}

/* Milliseconds left until deadline ((int64_t)monotime_ms()), -1: none. */
static int gadgetctl_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - (int64_t)monotime_ms();
	return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
}

/* gadgetd may not be listening yet (just started): try again until the
 * deadline, every 100 ms. */
static int gadgetctl_wait_open(int64_t deadline, int *code)
{
	int fd, r;

	for (;;) {
		r = gadgetctl_connect(gadgetctl_sock);
		if (r >= 0)
			close(r);
		if ((r == -ENOENT || r == -ECONNREFUSED) && gadgetctl_left(deadline) != 0) {
			usleep(100 * 1000);
			continue;
		}
		fd = gadgetctl_open(gadgetctl_sock, CTL_WAIT, 0, NULL, code);
		return fd;
	}
}

static int gadgetctl_wait(int argc, char **argv)
{
	static char buf[CTL_MSG_MAX];
	int64_t deadline = -1;
	struct pollfd pfd = { .events = POLLIN };
	const char *text;
	int32_t status;
	double secs = 0;
	char *end;
	ssize_t got;
	int r, code;

	if (argc == 2 && !strcmp(argv[0], "--timeout")) {
		errno = 0;
		secs = strtod(argv[1], &end);
		if (!argv[1][0] || *end || errno || !(secs >= 0 && secs <= 86400)) {
			fprintf(stderr, "gadgetctl: wait: --timeout takes 0 to 86400 seconds\n");
			return CTL_EXIT_USAGE;
		}
		deadline = (int64_t)monotime_ms() + (int64_t)(secs * 1000);
	} else if (argc) {
		fprintf(stderr, "Usage: gadgetctl wait [--timeout S]\n");
		return CTL_EXIT_USAGE;
	}
	pfd.fd = gadgetctl_wait_open(deadline, &code);
	if (pfd.fd < 0)
		return code;
	do
		r = poll(&pfd, 1, gadgetctl_left(deadline));
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		fprintf(stderr, "gadgetctl: wait: gadgetd's start-up is not over after %g s\n",
			secs);
		close(pfd.fd);
		return CTL_EXIT_TIMEOUT;
	}
	got = recv(pfd.fd, buf, sizeof(buf), 0);
	close(pfd.fd);
	if (got <= 0) {
		fprintf(stderr, "gadgetctl: %s: %s\n", gadgetctl_sock,
			got ? strerror(errno) : "gadgetd closed the connection");
		return CTL_EXIT_NO_DAEMON;
	}
	if (ctl_parse_reply(buf, got, &status, &text) < 0) {
		fprintf(stderr, "gadgetctl: malformed reply from gadgetd\n");
		return CTL_EXIT_FAILED;
	}
	fputs(text, status ? stderr : stdout);
	return gadgetctl_exit(status);
}

static bool gadgetctl_wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int gadgetctl_run(const char *sock, const struct gadgetctl_cmd *c,
			 int argc, char **argv)
{
	char *json[] = { "json" };

	if (gadgetctl_wants_help(argc, argv)) {
		printf("Usage: gadgetctl %s %s\n%s\n", c->name, c->args, c->help);
		return CTL_EXIT_OK;
	}
	if (argc < c->min_args || argc > c->max_args) {
		fprintf(stderr, "Usage: gadgetctl %s %s\n", c->name, c->args);
		return CTL_EXIT_USAGE;
	}
	if (c->local)
		return c->local(argc, argv);
	if (c->type == CTL_LIST && argc == 2) {
		if (strcmp(argv[0], "--commands")) {
			fprintf(stderr, "Usage: gadgetctl list %s\n", c->args);
			return CTL_EXIT_USAGE;
		}
		return gadgetctl_list_commands(argv[1]);
	}
	if (c->type == CTL_LIST && argc == 1) {
		char *what[] = { argv[0] + 2 };

		if (strcmp(argv[0], "--sets") && strcmp(argv[0], "--profiles") &&
		    strcmp(argv[0], "--functions")) {
			fprintf(stderr, "Usage: gadgetctl list %s\n", c->args);
			return CTL_EXIT_USAGE;
		}
		return gadgetctl_request(sock, CTL_LIST, 1, what);
	}
	if (c->type == CTL_STATUS && argc == 1) {
		if (strcmp(argv[0], "--json")) {
			fprintf(stderr, "Usage: gadgetctl status [--json]\n");
			return CTL_EXIT_USAGE;
		}
		return gadgetctl_request(sock, CTL_STATUS, 1, json);
	}
	return gadgetctl_request(sock, c->type, argc, argv);
}

int main(int argc, char **argv)
{
	const char *sock = getenv("GADGETD_SOCKET");
	unsigned i;
	int c;

	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "+s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': sock = optarg; break;
		case 'h': gadgetctl_usage(stdout); return CTL_EXIT_OK;
		default: gadgetctl_usage(stderr); return CTL_EXIT_USAGE;
		}
	}
	if (!sock)
		sock = CTL_DEFAULT_SOCKET;
	gadgetctl_sock = sock;
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		gadgetctl_usage(stderr);
		return CTL_EXIT_USAGE;
	}
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "--help")) {
		gadgetctl_usage(stdout);
		return CTL_EXIT_OK;
	}
	for (i = 0; i < GADGETCTL_NCMDS; i++)
		if (!strcmp(argv[0], gadgetctl_cmds[i].name))
			return gadgetctl_run(sock, &gadgetctl_cmds[i], argc - 1, argv + 1);
	if (argc < 2) {
		fprintf(stderr, "gadgetctl: unknown command \"%s\" (see gadgetctl --help)\n",
			argv[0]);
		return CTL_EXIT_USAGE;
	}
	return gadgetctl_request(sock, CTL_FUNCTION, argc, argv);
}
