/*
 * supervisor_tcp: which workers listen on TCP, and handing them the
 * sockets gadgetd made (supervisor.h). The worker may be subverted: only
 * the profile says whether it may ask for a port.
 */
#include "supervisor.h"
#include "supervisor_int.h"
#include "log.h"
#include "loop.h"
#include "plugin_list.h"
#include "wmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Ports below this are privileged: only the profile's tcp may be one. */
#define SUP_TCP_PRIVILEGED 1024

void supervisor_tcp_init(struct sup_worker *w, const struct profile_function *f)
{
	const struct plugin_meta *m = plugin_list_find(w->plugin);
	const struct plugin_meta_tcp *t = m ? m->tcp : NULL;
	const char *port = t ? profile_option(f, t->port) : NULL;
	const char *tcpip = t ? profile_option(f, t->tcpip) : NULL;
	const char *iface = t ? profile_option(f, t->interface) : NULL;

	w->tcp_port = port ? (unsigned)strtoul(port, NULL, 10) : 0;
	w->tcp_profile_port = w->tcp_port;
	w->tcpip_allowed = tcpip && !strcmp(tcpip, "true");
	snprintf(w->tcp_iface, sizeof(w->tcp_iface), "%s", iface ? iface : "");
}

void supervisor_tcp_set_fn(struct supervisor *s, supervisor_tcp_fn fn,
			   void *data)
{
	s->tcp_fn = fn;
	s->tcp_data = data;
}

void supervisor_tcp_request(struct sup_worker *w, const uint8_t *p, size_t len)
{
	uint32_t port;

	if (wmsg_parse_u32(p, len, &port) < 0 || port > 65535) {
		log_warnx("%s: malformed tcp request from worker", w->name);
		return;
	}
	if (!w->tcpip_allowed) {
		/* Once a worker: a subverted one could ask in a loop. */
		if (!w->tcp_refused_said)
			log_warnx("%s: the worker asked to %s TCP, which the "
				  "profile does not allow (tcpip = true); "
				  "ignored", w->name, port ? "listen on" : "stop");
		w->tcp_refused_said = true;
		return;
	}
	/*
	 * gadgetd binds as root: a port below 1024 would be taken from a
	 * board service that binds it later. Only the profile names one.
	 */
	if (port && port < SUP_TCP_PRIVILEGED && port != w->tcp_profile_port) {
		log_warnx("%s: the worker asked to listen on tcp port %u, below "
			  "%u and not the profile's tcp port; refused", w->name,
			  (unsigned)port, SUP_TCP_PRIVILEGED);
		return;
	}
	if (port == w->tcp_port)
		return;
	if (port)
		log_info("%s: the plugin asks to listen on tcp port %u",
			 w->name, port);
	else
		log_info("%s: the plugin asks to stop listening on tcp",
			 w->name);
	w->tcp_port = port;
	if (w->sup->tcp_fn)
		w->sup->tcp_fn(w->name, w->sup->tcp_data);
}

unsigned supervisor_tcp_port(struct supervisor *s, const char *name,
			     const char **iface)
{
	struct sup_worker *w = supervisor_find(s, name);

	if (!w)
		return 0;
	*iface = w->tcp_iface;
	return w->tcp_port;
}

bool supervisor_tcp_due(struct supervisor *s, const char *name,
			const char *what)
{
	struct sup_worker *w = supervisor_find(s, name);

	if (!w || sup_pid(w) <= 0 || !w->sock)
		return false;
	/* A worker starts listening on nothing: no need to say so. */
	if (w->tcp_sent_pid != sup_pid(w))
		return strncmp(what, "0@", 2) != 0;
	return strcmp(w->tcp_sent, what) != 0;
}

unsigned supervisor_tcp_listening(struct supervisor *s, const char *name)
{
	struct sup_worker *w = supervisor_find(s, name);

	if (!w || sup_pid(w) <= 0 || w->tcp_sent_pid != sup_pid(w) || !w->tcp_sent_n)
		return 0;
	return (unsigned)strtoul(w->tcp_sent, NULL, 10);
}

static void supervisor_tcp_close(int *fds, unsigned n)
{
	while (n--)
		close(fds[n]);
}

int supervisor_tcp_listen(struct supervisor *s, const char *name,
			  unsigned port, int *fds, unsigned n, const char *what)
{
	struct sup_worker *w = supervisor_find(s, name);
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(WMSG_MAX_FDS * sizeof(int))];
	} ctl;
	uint8_t buf[16];
	struct iovec iov = { .iov_base = buf };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	int len, r = 0;

	if (!w || sup_pid(w) <= 0 || !w->sock || n > WMSG_MAX_FDS) {
		supervisor_tcp_close(fds, n);
		return -ESRCH;
	}
	len = wmsg_build_u32(buf, sizeof(buf), WORKER_LISTEN, port);
	iov.iov_len = len;
	if (n) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	if (sendmsg(loop_watch_fd(w->sock), &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		r = -errno;
		log_warn("%s: cannot hand the worker its tcp sockets", w->name);
	} else {
		w->tcp_sent_pid = sup_pid(w);
		w->tcp_sent_n = n;
		snprintf(w->tcp_sent, sizeof(w->tcp_sent), "%s", what);
	}
	supervisor_tcp_close(fds, n);
	return r;
}
