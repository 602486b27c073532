/*
 * boot: the start-up and its fallbacks (boot.h).
 */
#include "boot.h"
#include "config.h"
#include "log.h"
#include "profile.h"
#include "state.h"
#include "txn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum boot_step {
	BOOT_SAVED,    /* the set in the state file */
	BOOT_DEFAULT,  /* the profile's default set */
	BOOT_DONE,
};

/* A client waiting for the start-up to be over (boot_wait()). */
struct boot_waiter {
	boot_done_fn fn;
	void *data;
	struct boot_waiter *next;
};

struct boot {
	const struct config *cfg;
	const struct boot_ops *ops;
	void *ops_data;
	enum boot_step step;
	/* The start-up is over, with r and result (its message). */
	bool over;
	int r;
	char result[1024];
	struct boot_waiter *waiters;
	char saved[STATE_SET_MAX];
	char note[2048];
	bool fell;            /* a step failed */
	bool retried;         /* the step now running is its second try */
	bool stopping;        /* boot_stop() */
	boot_done_fn fn;
	void *data;
};

static const struct profile *boot_profile(const struct boot *b)
{
	return b->ops->profile(b->ops_data);
}

/* Append to the start-up's story: one line for status, whatever the
 * messages it quotes hold. */
static void boot_say(struct boot *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void boot_say(struct boot *b, const char *fmt, ...)
{
	size_t n = strlen(b->note);
	char text[2048], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A profile's errors come one a line. */
	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	log_printable(b->note + n, sizeof(b->note) - n, text, strlen(text));
}

/* A failed step's reason, without the "the gadget is off" its switch
 * ended with: the story goes on with the next step. */
static int boot_why_len(const char *why)
{
	size_t n = strlen(why), k = strlen(TXN_OFF_NOTE);

	if (n >= k && !strcmp(why + n - k, TXN_OFF_NOTE))
		n -= k;
	return (int)n;
}

static void boot_failed(struct boot *b, const char *what,
			       const char *set, const char *why)
{
	int n = boot_why_len(why);

	b->fell = true;
	if (b->retried)
		boot_say(b, "failed again: %.*s; ", n, why);
	else
		boot_say(b, "%s %s failed: %.*s; ", what, set, n, why);
	log_warnx("start: %s %s failed: %.*s", what, set, n, why);
}

static void boot_done(int r, const char *msg, void *data);

static void boot_default(struct boot *b, char *buf, size_t size)
{
	buf[0] = '\0';
	if (boot_profile(b)->default_set >= 0)
		profile_set_name(boot_profile(b), boot_profile(b)->default_set, buf, size);
}

/* Start the switch of the current step: 0, -EINPROGRESS (then
 * boot_done() follows) or a failure. */
static int boot_step(struct boot *b, char *msg, size_t size)
{
	const char *set = NULL;

	switch (b->step) {
	case BOOT_SAVED:
		log_info("restoring %s (profile %s) from %s", b->saved,
			 boot_profile(b)->name, b->cfg->state_file);
		set = b->saved;
		break;
	case BOOT_DEFAULT:
		if (boot_profile(b)->default_set < 0) {
			snprintf(msg, size, "profile %s has no default set",
				 boot_profile(b)->name);
			return -EINVAL;
		}
		break;
	case BOOT_DONE:
		return 0;
	}
	return b->ops->switch_set(set, msg, size, boot_done, b, b->ops_data);
}

/*
 * A step that timed out (a worker not ready within ready_timeout, which a
 * board still busy starting its other services can cause) is tried once
 * more before the next: true when that try started or ended (r, msg).
 */
static bool boot_retry(struct boot *b, int *r, const char *what, const char *set,
		       char *msg, size_t size)
{
	if (*r != -ETIMEDOUT || b->retried)
		return false;
	b->retried = true;
	b->fell = true;
	boot_say(b, "%s %s: %.*s; trying it once more; ", what, set, boot_why_len(msg), msg);
	log_warnx("start: %s %s: %.*s; trying it once more", what, set, boot_why_len(msg), msg);
	*r = boot_step(b, msg, size);
	return true;
}

/*
 * A step ended with r: note it, and go on with the next one if it
 * failed. What the state file names is only overwritten by a set the user
 * now has (the one it names, or the default when there was no usable
 * state), never by a fallback: the next start tries the saved set again.
 */
static int boot_result(struct boot *b, int r, char *msg, size_t size)
{
	char def[STATE_SET_MAX];

	while (r != -EINPROGRESS && b->step != BOOT_DONE) {
		boot_default(b, def, sizeof(def));
		switch (b->step) {
		case BOOT_SAVED:
			if (!r) {
				boot_say(b, "restored %s (profile %s)",
						 b->saved, boot_profile(b)->name);
				b->step = BOOT_DONE;
				break;
			}
			if (boot_retry(b, &r, "saved set", b->saved, msg, size))
				break;
			boot_failed(b, "saved set", b->saved, msg);
			b->ops->keep_state(b->ops_data);
			if (!def[0] || !strcmp(def, b->saved)) {
				boot_say(b, "%s; the gadget is off", def[0] ?
						 "it is the default" : "no default set");
				b->step = BOOT_DONE;
				break;
			}
			b->step = BOOT_DEFAULT;
			b->retried = false;
			r = boot_step(b, msg, size);
			break;
		case BOOT_DEFAULT:
			if (r && def[0] && boot_retry(b, &r, "default", def, msg, size))
				break;
			if (!r) {
				boot_say(b, "%s %s (profile %s)", b->saved[0] ?
						 "fell back to default" : "default set", def,
						 boot_profile(b)->name);
			} else if (def[0]) {
				boot_failed(b, "default", def, msg);
				boot_say(b, "the gadget is off");
			} else {
				b->fell = true;
				boot_say(b, "%s; the gadget is off", msg);
			}
			b->step = BOOT_DONE;
			break;
		case BOOT_DONE:
			break;
		}
	}
	/* After a fallback the log and the caller get the whole story. */
	if (r != -EINPROGRESS && b->fell)
		snprintf(msg, size, "start: %s", b->note);
	return r;
}

/* The start-up is over: whoever waits for it hears, in the order they
 * asked. */
static void boot_over(struct boot *b, int r, const char *msg)
{
	struct boot_waiter *w;

	b->over = true;
	b->r = r;
	snprintf(b->result, sizeof(b->result), "%s", msg);
	while ((w = b->waiters)) {
		b->waiters = w->next;
		w->fn(r, b->result, w->data);
		free(w);
	}
}

int boot_wait(struct boot *b, char *msg, size_t size,
		     boot_done_fn fn, void *data)
{
	struct boot_waiter *w, **p = &b->waiters;

	if (b->over) {
		snprintf(msg, size, "%s", b->result);
		return b->r;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(msg, size, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	w->fn = fn;
	w->data = data;
	while (*p)
		p = &(*p)->next;
	*p = w;
	return -EINPROGRESS;
}

void boot_cancel(struct boot *b, void *data)
{
	struct boot_waiter **p = &b->waiters;

	while (*p) {
		struct boot_waiter *w = *p;

		if (data && w->data != data) {
			p = &w->next;
			continue;
		}
		*p = w->next;
		if (!data)
			w->fn(-ECANCELED, "gadgetd is stopping", w->data);
		free(w);
	}
}

static void boot_done(int r, const char *msg, void *data)
{
	struct boot *b = data;
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", msg);
	/* gadgetd is stopping: no next step. */
	if (b->stopping)
		b->step = BOOT_DONE;
	r = boot_result(b, r, buf, sizeof(buf));
	if (r == -EINPROGRESS)
		return;
	boot_over(b, r, buf);
	if (b->fn)
		b->fn(r, buf, b->data);
}

/*
 * Which profile the start-up uses, and which set it tries first: the
 * state file's, unless gadgetd.conf names another profile than when it
 * was saved. A missing, malformed or foreign state means the configured
 * profile's default set.
 */
static const char *boot_state(struct boot *b, struct state *st)
{
	const char *conf = b->cfg->profile;
	char err[1024];
	int r;

	r = state_load(b->cfg->state_file, st, err, sizeof(err));
	if (r == -ENOENT)
		return NULL;
	if (r < 0) {
		log_warnx("%s; ignored, starting on the defaults", err);
		boot_say(b, "state file ignored (%s); ", err);
		return NULL;
	}
	if (st->conf_profile[0] && strcmp(st->conf_profile, conf)) {
		boot_say(b, "gadgetd.conf names profile %s, not %s as when the "
				 "state was saved: state ignored; ", conf,
				 st->conf_profile);
		return NULL;
	}
	/* A state file from before conf_profile applies to gadgetd.conf's
	 * profile only, as it did then. */
	if (!st->conf_profile[0] && strcmp(st->profile, conf))
		return NULL;
	return st->profile;
}

static int boot_begin(struct boot *b, char *msg, size_t size)
{
	const char *conf = b->cfg->profile, *saved;
	struct state st;
	int r;

	saved = boot_state(b, &st);
	r = b->ops->load(saved ? saved : conf, msg, size, b->ops_data);
	if (r < 0 && saved && strcmp(saved, conf)) {
		boot_failed(b, "saved profile", saved, msg);
		boot_say(b, "fell back to profile %s; ", conf);
		b->ops->keep_state(b->ops_data);
		saved = NULL;
		r = b->ops->load(conf, msg, size, b->ops_data);
	}
	if (r < 0) {
		boot_failed(b, "profile", conf, msg);
		boot_say(b, "the gadget is off");
		b->step = BOOT_DONE;
		snprintf(msg, size, "start: %s", b->note);
		return r;
	}
	if (saved && !st.set[0]) {
		boot_say(b, "off before the restart (profile %s): staying off",
				 boot_profile(b)->name);
		snprintf(msg, size, "gadget was off before restart; staying off");
		b->step = BOOT_DONE;
		return 0;
	}
	snprintf(b->saved, sizeof(b->saved), "%s", saved ? st.set : "");
	b->step = saved ? BOOT_SAVED : BOOT_DEFAULT;
	r = boot_step(b, msg, size);
	return boot_result(b, r, msg, size);
}

int boot_start(struct boot *b, char *msg, size_t size, boot_done_fn fn,
		 void *data)
{
	/* Clients may wait from before the start-up began. */
	struct boot_waiter *waiters = b->waiters;
	int r;

	*b = (struct boot){ .cfg = b->cfg, .ops = b->ops, .ops_data = b->ops_data,
			    .fn = fn, .data = data, .waiters = waiters };
	r = boot_begin(b, msg, size);
	if (r != -EINPROGRESS)
		boot_over(b, r, msg);
	return r;
}

struct boot *boot_new(const struct config *cfg, const struct boot_ops *ops,
		      void *ops_data)
{
	struct boot *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->cfg = cfg;
	b->ops = ops;
	b->ops_data = ops_data;
	return b;
}

void boot_free(struct boot *b)
{
	if (!b)
		return;
	boot_cancel(b, NULL);
	free(b);
}

void boot_stop(struct boot *b)
{
	b->stopping = true;
}

const char *boot_note(const struct boot *b)
{
	return b->note;
}
