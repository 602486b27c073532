#include "event.h"
#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* The listeners, in subscription order. Unsubscribing during delivery
 * only marks the entry; the outermost delivery frees marked entries. */
struct event_sub {
	event_fn fn;
	void *data;
	bool gone;
	struct event_sub *next;
};

static struct event_sub *event_subs;
static bool event_delivering;

struct event_sub *event_subscribe(event_fn fn, void *data)
{
	struct event_sub *s = calloc(1, sizeof(*s)), **p = &event_subs;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->fn = fn;
	s->data = data;
	while (*p)
		p = &(*p)->next;
	*p = s;
	return s;
}

static void event_sweep(void)
{
	struct event_sub **p = &event_subs;

	while (*p) {
		struct event_sub *s = *p;
		if (s->gone) {
			*p = s->next;
			free(s);
		} else {
			p = &s->next;
		}
	}
}

void event_unsubscribe(struct event_sub *s)
{
	if (!s)
		return;
	s->gone = true;
	if (!event_delivering)
		event_sweep();
}

static void event_tell(const struct event *ev)
{
	if (event_delivering) {
		log_warnx("event: %s emitted by a listener, dropped", event_name(ev));
		return;
	}
	event_delivering = true;
	for (struct event_sub *s = event_subs; s; s = s->next)
		if (!s->gone)
			s->fn(ev, s->data);
	event_delivering = false;
	event_sweep();
}

void event_emit(enum event_kind kind, const char *function, const char *detail,
		int code)
{
	struct event ev = {
		.kind = kind, .function = function,
		.detail = detail ? detail : "", .code = code,
	};

	event_tell(&ev);
}

void event_emit_plugin(const char *name, const char *function, const char *detail)
{
	struct event ev = {
		.kind = EVENT_PLUGIN, .function = function,
		.detail = detail ? detail : "", .name = name,
	};

	event_tell(&ev);
}

const char *event_kind_name(enum event_kind kind)
{
	switch (kind) {
	case EVENT_HOST:
		return "host";
	case EVENT_SWITCH_BEGUN:
		return "switch-begun";
	case EVENT_SWITCH_DONE:
		return "switch-done";
	case EVENT_PLUGIN_RESTARTED:
		return "plugin-restarted";
	case EVENT_PLUGIN_FAILED:
		return "plugin-failed";
	case EVENT_PLUGIN:
		return "plugin";
	case EVENT_STATE:
		return "state";
	case EVENT_LOCK:
		return "lock";
	case EVENT_ASK:
		return "host-waiting";
	}
	return "?";
}

const char *event_name(const struct event *ev)
{
	if (ev->kind == EVENT_PLUGIN && ev->name)
		return ev->name;
	return event_kind_name(ev->kind);
}
