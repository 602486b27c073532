/*
 * supervisor_input: handing local input devices to the workers that
 * forward them, and their requests to release or take them
 * (supervisor.h). The worker may be subverted: what it may ask is
 * decided above (inputfwd.c), and it only ever gets fds gadgetd opened.
 */
#include "supervisor.h"
#include "supervisor_int.h"
#include "log.h"
#include "loop.h"
#include "wmsg.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

void supervisor_input_set_fn(struct supervisor *s, supervisor_input_fn fn,
			     void *data)
{
	s->input_fn = fn;
	s->input_data = data;
}

void supervisor_input_request(struct sup_worker *w, const uint8_t *p, size_t len)
{
	uint32_t how;

	if (wmsg_parse_u32(p, len, &how) < 0 || how > WMSG_GRAB_TOGGLE) {
		log_warnx("%s: malformed input request from worker", w->name);
		return;
	}
	if (w->sup->input_fn)
		w->sup->input_fn(w->name, how, w->sup->input_data);
}

static struct sup_worker *supervisor_input_worker(struct supervisor *s,
						  const char *name)
{
	struct sup_worker *w = supervisor_find(s, name);

	return w && sup_pid(w) > 0 && w->sock ? w : NULL;
}

pid_t supervisor_input_pid(struct supervisor *s, const char *name)
{
	struct sup_worker *w = supervisor_input_worker(s, name);

	return w ? sup_pid(w) : 0;
}

int supervisor_input_give(struct supervisor *s, const char *name, uint32_t id,
			  int fd, bool grabbed, const char *label)
{
	struct sup_worker *w = supervisor_input_worker(s, name);
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	uint8_t buf[8 + WMSG_INPUT_LABEL_MAX + 16];
	struct iovec iov = { .iov_base = buf };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	int len;

	if (!w)
		return -ESRCH;
	len = wmsg_build_input(buf, sizeof(buf), id, grabbed, label);
	if (len < 0)
		return len;
	iov.iov_len = (size_t)len;
	memset(&ctl, 0, sizeof(ctl));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(loop_watch_fd(w->sock), &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		log_warn("%s: cannot hand the worker input device %s", w->name, label);
		return -errno;
	}
	return 0;
}

static void supervisor_input_u32(struct supervisor *s, const char *name,
				 uint16_t type, uint32_t v)
{
	struct sup_worker *w = supervisor_input_worker(s, name);
	uint8_t buf[16];
	int len;

	if (!w)
		return;
	len = wmsg_build_u32(buf, sizeof(buf), type, v);
	if (send(loop_watch_fd(w->sock), buf, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_warn("%s: cannot tell the worker of its input devices", w->name);
}

void supervisor_input_gone(struct supervisor *s, const char *name, uint32_t id)
{
	supervisor_input_u32(s, name, WORKER_INPUT_GONE, id);
}

void supervisor_input_state(struct supervisor *s, const char *name, bool grabbed)
{
	supervisor_input_u32(s, name, WORKER_INPUT_STATE, grabbed ? 1 : 0);
}
