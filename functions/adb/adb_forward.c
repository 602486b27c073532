/* adb_forward: forward (connect on the device) and reverse (listen). */
#include "adb_forward.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

#define FWD_SPEC_MAX 256

struct fwd_listener {
	struct fwd_listener *next;
	struct adb_forward *f;
	char local[FWD_SPEC_MAX];
	char remote[FWD_SPEC_MAX];
	struct loop_watch *w;
};

struct adb_forward {
	struct adb_stream_mux *t;
	struct loop *loop;
	struct fwd_listener *listeners;
};

/* One connected socket carried over a stream. */
struct fwd_sock {
	struct adb_stream *s;
	struct loop_watch *w;
	bool out_armed;
	uint8_t *pend;
	size_t pend_len, pend_off;
};

static const struct adb_service_ops sock_ops;

static int forward_parse_port(const char *s)
{
	char *end;
	long port = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || port < 0 || port > 65535)
		return -EINVAL;
	return (int)port;
}

static int forward_tcp_addr(const char *spec, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *colon = strrchr(spec, ':');
	char host[64] = "127.0.0.1";
	int port;

	if (colon) {
		if ((size_t)(colon - spec) >= sizeof(host))
			return -EINVAL;
		memcpy(host, spec, colon - spec);
		host[colon - spec] = '\0';
		spec = colon + 1;
	}
	port = forward_parse_port(spec);
	if (port < 0)
		return port;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		return -EINVAL;
	return sizeof(*sin);
}

static int forward_unix_addr(const char *name, bool abstract,
			     struct sockaddr_storage *ss)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)ss;
	size_t len = strlen(name);
	size_t off = abstract ? 1 : 0;

	if (len == 0 || len + off >= sizeof(sun->sun_path))
		return -ENAMETOOLONG;
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path + off, name, len);
	return offsetof(struct sockaddr_un, sun_path) + off + len +
	       (abstract ? 0 : 1);
}

int adb_forward_addr(const char *spec, struct sockaddr_storage *ss)
{
	char path[FWD_SPEC_MAX];

	memset(ss, 0, sizeof(*ss));
	if (!strncmp(spec, "tcp:", 4))
		return forward_tcp_addr(spec + 4, ss);
	if (!strncmp(spec, "localabstract:", 14))
		return forward_unix_addr(spec + 14, true, ss);
	if (!strncmp(spec, "localfilesystem:", 16))
		return forward_unix_addr(spec + 16, false, ss);
	if (!strncmp(spec, "localreserved:", 14)) {
		snprintf(path, sizeof(path), "/dev/socket/%s", spec + 14);
		return forward_unix_addr(path, false, ss);
	}
	return -ENOENT;
}

/* Both directions of interest for the socket's watch. */
static void forward_sock_arm(struct fwd_sock *fs, bool out)
{
	uint32_t ev = (out ? EPOLLIN : 0) |
		      (fs->pend_len > fs->pend_off ? EPOLLOUT : 0);

	fs->out_armed = out;
	/* Edge-triggered when idle: a hang-up then wakes us only once. */
	loop_watch_set_events(fs->w, ev ? ev : EPOLLET);
}

static void forward_sock_free(void *svc)
{
	struct fwd_sock *fs = svc;

	if (fs->w)
		loop_watch_remove(fs->w);
	free(fs->pend);
	free(fs);
}

/* Send what we can; returns 1 if the socket is full, -errno on error. */
static int forward_sock_send(struct fwd_sock *fs, const uint8_t *d, size_t len,
			     size_t *done)
{
	int fd = loop_watch_fd(fs->w);

	*done = 0;
	while (*done < len) {
		ssize_t n = send(fd, d + *done, len - *done, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n < 0)
			return -errno;
		*done += n;
	}
	return 0;
}

static int forward_sock_write(void *svc, const uint8_t *data, size_t len)
{
	struct fwd_sock *fs = svc;
	size_t done;
	int rc = forward_sock_send(fs, data, len, &done);

	if (rc <= 0)
		return rc;
	fs->pend = malloc(len - done);
	if (!fs->pend)
		return -ENOMEM;
	memcpy(fs->pend, data + done, len - done);
	fs->pend_len = len - done;
	fs->pend_off = 0;
	forward_sock_arm(fs, fs->out_armed);
	return 1;
}

static ssize_t forward_sock_produce(void *svc, uint8_t *buf, size_t max)
{
	struct fwd_sock *fs = svc;
	ssize_t n;

	do {
		n = recv(loop_watch_fd(fs->w), buf, max, MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n > 0)
		return n;
	if (n < 0 && errno == EAGAIN) {
		forward_sock_arm(fs, true);
		return 0;
	}
	return -EPIPE; /* the device side closed */
}

static void forward_sock_event(struct loop_watch *w, int fd, uint32_t events,
			       void *data)
{
	struct fwd_sock *fs = data;

	if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) &&
	    fs->pend_len > fs->pend_off) {
		size_t done;
		int rc = forward_sock_send(fs, fs->pend + fs->pend_off,
					   fs->pend_len - fs->pend_off, &done);
		fs->pend_off += done;
		if (rc < 0) {
			adb_stream_close(fs->s);
			return;
		}
		if (rc == 0) {
			free(fs->pend);
			fs->pend = NULL;
			fs->pend_len = fs->pend_off = 0;
			forward_sock_arm(fs, fs->out_armed);
			adb_stream_ack(fs->s);
		}
	}
	if (fs->out_armed && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		forward_sock_arm(fs, false);
		adb_stream_ready(fs->s);
	}
}

static struct fwd_sock *forward_sock_new(struct loop *l, int fd)
{
	struct fwd_sock *fs = calloc(1, sizeof(*fs));

	if (!fs) {
		close(fd);
		return NULL;
	}
	fs->w = loop_add_fd(l, fd, EPOLLET, forward_sock_event, fs);
	if (!fs->w) {
		close(fd);
		free(fs);
		return NULL;
	}
	return fs;
}

int adb_forward_open(struct adb_forward *f, struct adb_stream *s,
		     const char *name, const struct adb_service_ops **ops,
		     void **svc)
{
	struct sockaddr_storage ss;
	struct fwd_sock *fs;
	int len = adb_forward_addr(name, &ss), fd;

	if (len < 0)
		return len;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Device-local peers answer at once: a blocking connect is short. */
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		int e = errno;
		log_info("adb: forward to %s: %s", name, strerror(e));
		close(fd);
		return -e;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fs = forward_sock_new(adb_stream_loop(s), fd);
	if (!fs)
		return -ENOMEM;
	fs->s = s;
	*ops = &sock_ops;
	*svc = fs;
	return 0;
}

static const struct adb_service_ops sock_ops = {
	.write = forward_sock_write,
	.produce = forward_sock_produce,
	.free = forward_sock_free,
};

struct adb_forward *adb_forward_new(struct adb_stream_mux *t, struct loop *loop)
{
	struct adb_forward *f = calloc(1, sizeof(*f));

	if (f) {
		f->t = t;
		f->loop = loop;
	}
	return f;
}

static void forward_listener_free(struct fwd_listener *ln)
{
	loop_watch_remove(ln->w);
	free(ln);
}

void adb_forward_reset(struct adb_forward *f)
{
	while (f->listeners) {
		struct fwd_listener *ln = f->listeners;
		f->listeners = ln->next;
		forward_listener_free(ln);
	}
}

void adb_forward_free(struct adb_forward *f)
{
	if (!f)
		return;
	adb_forward_reset(f);
	free(f);
}

static void forward_listener_event(struct loop_watch *w, int fd,
				   uint32_t events, void *data)
{
	struct fwd_listener *ln = data;
	struct adb_stream *s;
	struct fwd_sock *fs;
	int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (c < 0)
		return;
	fs = forward_sock_new(ln->f->loop, c);
	if (!fs)
		return;
	if (adb_stream_mux_connect(ln->f->t, ln->remote, &sock_ops, fs, &s) <
	    0) {
		forward_sock_free(fs);
		return;
	}
	fs->s = s;
	forward_sock_arm(fs, true);
}

static struct fwd_listener *forward_find_listener(struct adb_forward *f,
						  const char *local)
{
	for (struct fwd_listener *ln = f->listeners; ln; ln = ln->next)
		if (!strcmp(ln->local, local))
			return ln;
	return NULL;
}

static int forward_listen_on(struct loop *l, struct fwd_listener *ln)
{
	struct sockaddr_storage ss;
	int len = adb_forward_addr(ln->local, &ss), fd, one = 1;

	if (len < 0)
		return len;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 8) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	ln->w = loop_add_fd(l, fd, EPOLLIN, forward_listener_event, ln);
	return ln->w ? 0 : -ENOMEM;
}

/*
 * The port a tcp: listener got, 0 for other kinds. As AOSP's adbd, a
 * listener asked for tcp:0 takes the name of the port the kernel gave
 * it, so that list-forward shows it and killforward can name it.
 */
static unsigned forward_tcp_port(struct fwd_listener *ln, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned port;

	if (strncmp(ln->local, "tcp:", 4) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET)
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	else
		return 0;
	if (!strcmp(ln->local, "tcp:0"))
		snprintf(ln->local, sizeof(ln->local), "tcp:%u", port);
	return port;
}

static int forward_reverse_add(struct adb_forward *f, const char *arg,
			       const char **why, unsigned *port)
{
	bool norebind = !strncmp(arg, "norebind:", 9);
	const char *semi;
	struct fwd_listener *ln;
	int rc;

	if (norebind)
		arg += 9;
	semi = strchr(arg, ';');
	*why = "malformed forward spec";
	if (!semi || semi - arg >= FWD_SPEC_MAX || strlen(semi + 1) >= FWD_SPEC_MAX)
		return -EINVAL;
	ln = forward_find_listener(f, arg);
	if (ln && semi - arg == (ptrdiff_t)strlen(ln->local)) {
		*why = "cannot rebind existing socket";
		if (norebind)
			return -EADDRINUSE;
		snprintf(ln->remote, sizeof(ln->remote), "%s", semi + 1);
		return 0;
	}
	ln = calloc(1, sizeof(*ln));
	if (!ln)
		return -ENOMEM;
	ln->f = f;
	snprintf(ln->local, sizeof(ln->local), "%.*s", (int)(semi - arg), arg);
	snprintf(ln->remote, sizeof(ln->remote), "%s", semi + 1);
	rc = forward_listen_on(f->loop, ln);
	if (rc < 0) {
		*why = "cannot bind listener";
		free(ln);
		return rc;
	}
	*port = forward_tcp_port(ln, loop_watch_fd(ln->w));
	ln->next = f->listeners;
	f->listeners = ln;
	return 0;
}

static int forward_reverse_remove(struct adb_forward *f, const char *local)
{
	for (struct fwd_listener **pp = &f->listeners; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->local, local)) {
			struct fwd_listener *ln = *pp;
			*pp = ln->next;
			forward_listener_free(ln);
			return 0;
		}
	}
	return -ENOENT;
}

static int forward_reply_fail(char *reply, size_t size, const char *why,
			      int err)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "%s: %s", why, strerror(err));

	return snprintf(reply, size, "FAIL%04x%s", n, msg);
}

static int forward_reply_list(struct adb_forward *f, char *reply, size_t size)
{
	char body[4096];
	size_t n = 0;

	body[0] = '\0';
	for (struct fwd_listener *ln = f->listeners; ln; ln = ln->next) {
		int k = snprintf(body + n, sizeof(body) - n, "UsbFfs %s %s\n",
				 ln->local, ln->remote);
		if (k < 0 || (size_t)k >= sizeof(body) - n)
			break;
		n += k;
	}
	/* adbd sends no OKAY before the list, unlike the adb server. */
	return snprintf(reply, size, "%04zx%s", n, body);
}

int adb_forward_reverse(struct adb_forward *f, const char *cmd, char *reply,
			size_t size)
{
	const char *why = "unknown reverse command";
	unsigned port = 0;
	int rc = -EINVAL;

	if (!strncmp(cmd, "forward:", 8)) {
		rc = forward_reverse_add(f, cmd + 8, &why, &port);
	} else if (!strncmp(cmd, "killforward:", 12)) {
		why = "listener not found";
		rc = forward_reverse_remove(f, cmd + 12);
	} else if (!strcmp(cmd, "killforward-all")) {
		adb_forward_reset(f);
		rc = 0;
	} else if (!strcmp(cmd, "list-forward")) {
		return forward_reply_list(f, reply, size);
	}
	if (rc < 0) {
		log_info("adb: reverse:%s: %s", cmd, why);
		return forward_reply_fail(reply, size, why, -rc);
	}
	/* A new tcp: listener's port follows, as adbd sends it: adb prints
	 * it, the one way a host learns which port tcp:0 got. */
	if (port)
		return snprintf(reply, size, "OKAY%04x%u",
				snprintf(NULL, 0, "%u", port), port);
	return snprintf(reply, size, "OKAY");
}
