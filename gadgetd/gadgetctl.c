/* gadgetctl: send one request to gadgetd and print its reply. */
#include "profile.h"
#include "ctl.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

static const struct gadgetctl_cmd gadgetctl_cmds[] = {
	{ "switch", "[--profile NAME] [SET]",
	  "switch to SET (e.g. mtp,adb) of the active or the named profile;\n"
	  "exits 0 once the gadget is bound again. NAME is 1..63 of a-z, 0-9,\n"
	  "_ and -; choosing another profile needs root or admin_group",
	  CTL_SWITCH, 1, 3, NULL },
	{ "off", "", "unbind and remove the gadget (root or admin_group)", CTL_OFF,
	  0, 0, NULL },
	{ "list", "", "list the profile's functions and allowed sets", CTL_LIST, 0, 0, NULL },
	{ "status", "[--json]", "show profile, set, UDC, speed, plugins and the\n"
	  "last switch's timing", CTL_STATUS, 0, 1, NULL },
	{ "reload", "", "re-read the active profile; a bad file changes nothing\n"
	  "(root or admin_group)", CTL_RELOAD, 0, 0, NULL },
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
};

#define GADGETCTL_NCMDS (sizeof(gadgetctl_cmds) / sizeof(gadgetctl_cmds[0]))

static void gadgetctl_usage(FILE *out)
{
	unsigned i;

	fprintf(out, "Usage: gadgetctl [-s SOCKET] COMMAND [ARGS...]\n"
		     "       gadgetctl [-s SOCKET] FUNCTION COMMAND [ARGS...]\n\n"
		     "Commands:\n");
	for (i = 0; i < GADGETCTL_NCMDS; i++)
		fprintf(out, "  %-8s %s\n", gadgetctl_cmds[i].name,
			gadgetctl_cmds[i].args);
	fprintf(out, "  FUNCTION ARGS...  a plugin's own command, e.g. \"adb keys\"\n\n"
		     "The socket is $GADGETD_SOCKET, else " CTL_DEFAULT_SOCKET ".\n"
		     "Exit codes: 0 done, 1 failed (rolled back), 2 usage, 3 gadgetd\n"
		     "not reachable, 4 permission denied, 5 invalid request, 6 busy.\n"
		     "Root and admin_group may do everything; group (gadgetd.conf) may\n"
		     "read status and switch among the active profile's sets.\n"
		     "`gadgetctl COMMAND --help` describes one command.\n");
}

static int gadgetctl_check(int argc, char **argv)
{
	char err[8192];
	struct profile *p;
	int i, bad = 0;

	for (i = 0; i < argc; i++) {
		if (profile_load(argv[i], &p, err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		printf("%s: OK (%u functions, %u sets)\n", argv[i], p->n_functions,
		       p->n_sets);
		profile_free(p);
	}
	return bad ? CTL_EXIT_INVALID : CTL_EXIT_OK;
}

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
