#include "gadget_int.h"
#include "log.h"
#include "profile.h"
#include "state.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append to the start-up's story: one line for status, whatever the
 * messages it quotes hold. */
static void gadget_boot_note(struct gadget *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void gadget_boot_note(struct gadget *g, const char *fmt, ...)
{
	size_t n = strlen(g->boot.note);
	char text[2048], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* A profile's errors come one a line. */
	for (p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	log_printable(g->boot.note + n, sizeof(g->boot.note) - n, text, strlen(text));
}

/* A failed step's reason, without the "the gadget is off" its switch
 * ended with: the story goes on with the next step. */
static void gadget_boot_failed(struct gadget *g, const char *what,
			       const char *set, const char *why)
{
	size_t n = strlen(why), k = strlen(TXN_OFF_NOTE);

	if (n >= k && !strcmp(why + n - k, TXN_OFF_NOTE))
		n -= k;
	g->boot.fell = true;
	gadget_boot_note(g, "%s %s failed: %.*s; ", what, set, (int)n, why);
	log_warnx("start: %s %s failed: %.*s", what, set, (int)n, why);
}

static void gadget_boot_done(int r, const char *msg, void *data);

static void gadget_boot_default(struct gadget *g, char *buf, size_t size)
{
	buf[0] = '\0';
	if (g->profile->default_set >= 0)
		profile_set_name(g->profile, g->profile->default_set, buf, size);
}

/* Start the switch of the current step: 0, -EINPROGRESS (then
 * gadget_boot_done() follows) or a failure. */
static int gadget_boot_step(struct gadget *g, char *msg, size_t size)
{
	const char *set = NULL;

	switch (g->boot.step) {
	case GADGET_BOOT_SAVED:
		log_info("restoring %s (profile %s) from %s", g->boot.saved,
			 g->profile->name, g->cfg->state_file);
		set = g->boot.saved;
		break;
	case GADGET_BOOT_DEFAULT:
		if (g->profile->default_set < 0) {
			snprintf(msg, size, "profile %s has no default set",
				 g->profile->name);
			return -EINVAL;
		}
		break;
	case GADGET_BOOT_DONE:
		return 0;
	}
	return gadget_switch_save(g, NULL, set, !g->keep_state, msg, size,
				  gadget_boot_done, g);
}

/*
 * A step ended with r: note it, and go on with the next one if it
 * failed. What the state file names is only overwritten by a set the user
 * now has (the one it names, or the default when there was no usable
 * state), never by a fallback: the next start tries the saved set again.
 */
static int gadget_boot_result(struct gadget *g, int r, char *msg, size_t size)
{
	char def[GADGET_SET_MAX];

	while (r != -EINPROGRESS && g->boot.step != GADGET_BOOT_DONE) {
		gadget_boot_default(g, def, sizeof(def));
		switch (g->boot.step) {
		case GADGET_BOOT_SAVED:
			if (!r) {
				gadget_boot_note(g, "restored %s (profile %s)",
						 g->boot.saved, g->profile->name);
				g->boot.step = GADGET_BOOT_DONE;
				break;
			}
			gadget_boot_failed(g, "saved set", g->boot.saved, msg);
			g->keep_state = true;
			if (!def[0] || !strcmp(def, g->boot.saved)) {
				gadget_boot_note(g, "%s; the gadget is off", def[0] ?
						 "it is the default" : "no default set");
				g->boot.step = GADGET_BOOT_DONE;
				break;
			}
			g->boot.step = GADGET_BOOT_DEFAULT;
			r = gadget_boot_step(g, msg, size);
			break;
		case GADGET_BOOT_DEFAULT:
			if (!r) {
				gadget_boot_note(g, "%s %s (profile %s)", g->boot.saved[0] ?
						 "fell back to default" : "default set", def,
						 g->profile->name);
			} else if (def[0]) {
				gadget_boot_failed(g, "default", def, msg);
				gadget_boot_note(g, "the gadget is off");
			} else {
				g->boot.fell = true;
				gadget_boot_note(g, "%s; the gadget is off", msg);
			}
			g->boot.step = GADGET_BOOT_DONE;
			break;
		case GADGET_BOOT_DONE:
			break;
		}
	}
	/* After a fallback the log and the caller get the whole story. */
	if (r != -EINPROGRESS && g->boot.fell)
		snprintf(msg, size, "start: %s", g->boot.note);
	return r;
}

/* The start-up is over: whoever waits for it hears, in the order they
 * asked. */
static void gadget_boot_over(struct gadget *g, int r, const char *msg)
{
	struct gadget_boot_waiter *w;

	g->boot.over = true;
	g->boot.r = r;
	snprintf(g->boot.result, sizeof(g->boot.result), "%s", msg);
	while ((w = g->boot.waiters)) {
		g->boot.waiters = w->next;
		w->fn(r, g->boot.result, w->data);
		free(w);
	}
}

int gadget_boot_wait(struct gadget *g, char *msg, size_t size,
		     gadget_done_fn fn, void *data)
{
	struct gadget_boot_waiter *w, **p = &g->boot.waiters;

	if (g->boot.over) {
		snprintf(msg, size, "%s", g->boot.result);
		return g->boot.r;
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

void gadget_boot_cancel(struct gadget *g, void *data)
{
	struct gadget_boot_waiter **p = &g->boot.waiters;

	while (*p) {
		struct gadget_boot_waiter *w = *p;

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

static void gadget_boot_done(int r, const char *msg, void *data)
{
	struct gadget *g = data;
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", msg);
	/* gadgetd is stopping: no next step. */
	if (g->freeing)
		g->boot.step = GADGET_BOOT_DONE;
	r = gadget_boot_result(g, r, buf, sizeof(buf));
	if (r == -EINPROGRESS)
		return;
	gadget_boot_over(g, r, buf);
	if (g->boot.fn)
		g->boot.fn(r, buf, g->boot.data);
}

/*
 * Which profile the start-up uses, and which set it tries first: the
 * state file's, unless gadgetd.conf names another profile than when it
 * was saved. A missing, malformed or foreign state means the configured
 * profile's default set.
 */
static const char *gadget_boot_state(struct gadget *g, struct state *st)
{
	const char *conf = g->cfg->profile;
	char err[1024];
	int r;

	r = state_load(g->cfg->state_file, st, err, sizeof(err));
	if (r == -ENOENT)
		return NULL;
	if (r < 0) {
		log_warnx("%s; ignored, starting on the defaults", err);
		gadget_boot_note(g, "state file ignored (%s); ", err);
		return NULL;
	}
	if (st->conf_profile[0] && strcmp(st->conf_profile, conf)) {
		gadget_boot_note(g, "gadgetd.conf names profile %s, not %s as when the "
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

static int gadget_boot_begin(struct gadget *g, char *msg, size_t size)
{
	const char *conf = g->cfg->profile, *saved;
	struct state st;
	int r;

	saved = gadget_boot_state(g, &st);
	r = gadget_load_profile(g, saved ? saved : conf, &g->profile, msg, size);
	if (r < 0 && saved && strcmp(saved, conf)) {
		gadget_boot_failed(g, "saved profile", saved, msg);
		gadget_boot_note(g, "fell back to profile %s; ", conf);
		g->keep_state = true;
		saved = NULL;
		r = gadget_load_profile(g, conf, &g->profile, msg, size);
	}
	if (r < 0) {
		gadget_boot_failed(g, "profile", conf, msg);
		gadget_boot_note(g, "the gadget is off");
		g->boot.step = GADGET_BOOT_DONE;
		snprintf(msg, size, "start: %s", g->boot.note);
		return r;
	}
	if (saved && !st.set[0]) {
		gadget_boot_note(g, "off before the restart (profile %s): staying off",
				 g->profile->name);
		snprintf(msg, size, "gadget was off before restart; staying off");
		g->boot.step = GADGET_BOOT_DONE;
		return 0;
	}
	snprintf(g->boot.saved, sizeof(g->boot.saved), "%s", saved ? st.set : "");
	g->boot.step = saved ? GADGET_BOOT_SAVED : GADGET_BOOT_DEFAULT;
	r = gadget_boot_step(g, msg, size);
	return gadget_boot_result(g, r, msg, size);
}

int gadget_boot_start(struct gadget *g, char *msg, size_t size, gadget_done_fn fn,
		 void *data)
{
	/* Clients may wait from before the start-up began. */
	struct gadget_boot_waiter *waiters = g->boot.waiters;
	int r;

	g->boot = (struct gadget_boot){ .fn = fn, .data = data, .waiters = waiters };
	r = gadget_boot_begin(g, msg, size);
	if (r != -EINPROGRESS)
		gadget_boot_over(g, r, msg);
	return r;
}
