#include "control.h"
#include "gadget.h"
#include "log.h"
#include "loop.h"
#include "protocol.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CONTROL_MAX_ARGS 64

struct control {
	struct loop *loop;
	struct gadget *gadget;
	struct loop_watch *listen;
	char *path;
	char *group;
};

struct control_client {
	struct control *ctl;
	struct ucred cred;
};

static bool control_may_change(struct control *c, const struct ucred *cred)
{
	gid_t groups[256];
	int n = 256, i;
	struct passwd *pw;
	struct group *gr;

	if (cred->uid == 0)
		return true;
	if (!c->group || !(gr = getgrnam(c->group)))
		return false;
	if (cred->gid == gr->gr_gid)
		return true;
	pw = getpwuid(cred->uid);
	if (!pw || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return false;
	for (i = 0; i < n; i++)
		if (groups[i] == gr->gr_gid)
			return true;
	return false;
}

/* Plugin commands count as changes: they may accept adb keys. */
static bool control_mutates(uint16_t type)
{
	return type != CTL_STATUS && type != CTL_LIST;
}

static int control_switch(struct control *c, int argc, char **argv, char *msg,
			  size_t size)
{
	const char *profile = NULL, *set = NULL;

	if (argc >= 2 && !strcmp(argv[0], "--profile")) {
		profile = argv[1];
		argv += 2;
		argc -= 2;
	}
	if (argc > 1) {
		snprintf(msg, size, "switch takes one set");
		return -EINVAL;
	}
	if (argc == 1)
		set = argv[0];
	if (!profile && !set) {
		snprintf(msg, size, "switch needs a set or --profile NAME");
		return -EINVAL;
	}
	return gadget_switch(c->gadget, profile, set, msg, size);
}

static int control_dispatch(struct control *c, uint16_t type, int argc,
			    char **argv, FILE *out)
{
	char msg[4096] = "";
	int r = 0;

	switch (type) {
	case CTL_SWITCH:
		r = control_switch(c, argc, argv, msg, sizeof(msg));
		break;
	case CTL_OFF:
		r = gadget_off(c->gadget, msg, sizeof(msg));
		break;
	case CTL_RELOAD:
		r = gadget_reload(c->gadget, msg, sizeof(msg));
		break;
	case CTL_LIST:
		gadget_list(c->gadget, out);
		return 0;
	case CTL_STATUS:
		gadget_status(c->gadget, out, argc > 0 && !strcmp(argv[0], "json"));
		return 0;
	case CTL_FUNCTION:
		r = gadget_function_command(c->gadget, argc, argv, msg, sizeof(msg));
		break;
	default:
		snprintf(msg, sizeof(msg), "unknown request type %u", type);
		r = -EBADMSG;
	}
	if (msg[0])
		fprintf(out, "%s\n", msg);
	return r;
}

static void control_reply(int fd, int32_t status, const char *text, size_t len)
{
	struct ctl_hdr h = { .type = CTL_REPLY };
	struct ctl_reply_body b = { .status = status };
	char buf[CTL_MSG_MAX];
	size_t max = sizeof(buf) - sizeof(h) - sizeof(b) - 1;

	if (len > max)
		len = max;
	h.len = sizeof(b) + len + 1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &b, sizeof(b));
	memcpy(buf + sizeof(h) + sizeof(b), text, len);
	buf[sizeof(h) + sizeof(b) + len] = '\0';
	if (send(fd, buf, sizeof(h) + h.len, MSG_NOSIGNAL) < 0)
		log_debug("control: cannot send reply: %s", strerror(errno));
}

static int control_request(struct control *c, struct control_client *cl,
			   const char *buf, ssize_t n, FILE *out)
{
	char *argv[CONTROL_MAX_ARGS];
	struct ctl_hdr h;
	int argc;

	if (n < (ssize_t)sizeof(h)) {
		fprintf(out, "malformed request: %zd bytes\n", n);
		return -EBADMSG;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.len != n - sizeof(h)) {
		fprintf(out, "malformed request: length %u, got %zd\n", h.len,
			n - (ssize_t)sizeof(h));
		return -EBADMSG;
	}
	argc = ctl_parse_args(buf + sizeof(h), h.len, argv, CONTROL_MAX_ARGS);
	if (argc < 0) {
		fprintf(out, "malformed request: arguments are not NUL-terminated strings\n");
		return -EBADMSG;
	}
	if (control_mutates(h.type) && !control_may_change(c, &cl->cred)) {
		fprintf(out, "permission denied: only root%s%s may change the gadget\n",
			c->group ? " and members of group " : "",
			c->group ? c->group : "");
		return -EACCES;
	}
	if (control_mutates(h.type) && gadget_busy(c->gadget)) {
		fprintf(out, "another switch is in progress\n");
		return -EBUSY;
	}
	return control_dispatch(c, h.type, argc, argv, out);
}

static void control_client_io(struct loop_watch *w, int fd, uint32_t events,
			      void *data)
{
	struct control_client *cl = data;
	char buf[CTL_MSG_MAX];
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	ssize_t n;
	int r;

	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		loop_watch_remove(w);
		free(cl);
		return;
	}
	/* A switch runs the loop while it waits for plugins: take the fd out
	 * of the loop until the reply is sent, so nothing else touches it. */
	fd = loop_watch_release(w);
	out = open_memstream(&text, &len);
	r = out ? control_request(cl->ctl, cl, buf, n, out) : -ENOMEM;
	if (out)
		fclose(out);
	control_reply(fd, r, text ? text : "", text ? len : 0);
	free(text);
	if (!loop_add_fd(cl->ctl->loop, fd, EPOLLIN, control_client_io, cl)) {
		close(fd);
		free(cl);
	}
}

static void control_accept(struct loop_watch *w, int fd, uint32_t events,
			   void *data)
{
	struct control *c = data;
	struct control_client *cl;
	socklen_t sl;
	int cfd;

	cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (cfd < 0)
		return;
	cl = calloc(1, sizeof(*cl));
	sl = sizeof(struct ucred);
	if (!cl || getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cl->cred, &sl) < 0 ||
	    !loop_add_fd(c->loop, cfd, EPOLLIN, control_client_io, cl)) {
		close(cfd);
		free(cl);
		return;
	}
	cl->ctl = c;
}

struct control *control_new(struct loop *l, const char *path,
			    const char *group, struct gadget *g)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control *c;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_warnx("control socket path too long: %s", path);
		return NULL;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return NULL;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0666) < 0 ||
	    listen(fd, 16) < 0) {
		log_warn("cannot listen on %s", path);
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return NULL;
	}
	c->loop = l;
	c->gadget = g;
	c->path = strdup(path);
	c->group = group ? strdup(group) : NULL;
	c->listen = loop_add_fd(l, fd, EPOLLIN, control_accept, c);
	return c;
}

void control_free(struct control *c)
{
	if (!c)
		return;
	loop_watch_remove(c->listen);
	unlink(c->path);
	free(c->path);
	free(c->group);
	free(c);
}
