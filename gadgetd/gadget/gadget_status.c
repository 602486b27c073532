#include "gadget_int.h"
#include "boot.h"
#include "composer.h"
#include "console.h"
#include "netsvc.h"
#include "profile.h"
#include "status.h"
#include "supervisor.h"
#include "udc.h"
#include "uplink.h"

#include <stdio.h>
#include <string.h>

/* The set's functions in the order of its configurations, each once. */
static void gadget_status_functions(struct gadget *g, struct status *st)
{
	const struct profile_set *s;
	unsigned c, i, j;

	if (g->set < 0)
		return;
	s = &g->profile->sets[g->set];
	for (c = 0; c < s->n_configs; c++)
		for (i = 0; i < s->configs[c].n_functions; i++) {
			const struct profile_function *f =
			    &g->profile->functions[s->configs[c].functions[i]];

			for (j = 0; j < st->n_functions && strcmp(st->functions[j].name, f->name); j++)
				;
			if (j < st->n_functions || j == PROFILE_MAX_FUNCTIONS)
				continue;
			st->functions[j].name = f->name;
			/* An exec function shows its program there. */
			st->functions[j].plugin = f->plugin ? f->plugin : f->exec;
			st->n_functions++;
		}
}

/* The bound UDC as the status says, then the others the kernel has. */
static void gadget_status_udcs(const char *bound, struct status *st,
			       struct gadget_status_buf *buf)
{
	char names[STATUS_MAX_UDCS][sizeof(buf->udcs[0].name)];
	unsigned i, n = udc_list(names[0], sizeof(names[0]), STATUS_MAX_UDCS);

	_Static_assert(sizeof(buf->udcs) / sizeof(buf->udcs[0]) == STATUS_MAX_UDCS,
		       "gadget_status_buf holds every UDC");
	if (bound) {
		st->udcs[0] = (struct status_udc){ bound, st->udc_state, st->speed };
		st->n_udcs = 1;
	}
	for (i = 0; i < n && st->n_udcs < STATUS_MAX_UDCS; i++) {
		struct status_udc *u = &st->udcs[st->n_udcs];

		if (bound && !strcmp(names[i], bound))
			continue;
		/* udc_list() gives names that fit. */
		memcpy(buf->udcs[st->n_udcs].name, names[i], strlen(names[i]) + 1);
		udc_state(names[i], buf->udcs[st->n_udcs].state, sizeof(buf->udcs[0].state));
		udc_speed(names[i], buf->udcs[st->n_udcs].speed, sizeof(buf->udcs[0].speed));
		u->name = buf->udcs[st->n_udcs].name;
		u->state = buf->udcs[st->n_udcs].state;
		u->speed = buf->udcs[st->n_udcs].speed;
		st->n_udcs++;
	}
}

/* The logins on the set's serial ports (netsvc's consoles). */
static void gadget_status_consoles(struct gadget *g, struct status *st,
				   struct gadget_status_buf *buf)
{
	struct console_info info[PROFILE_MAX_FUNCTIONS];
	unsigned i, n = netsvc_consoles_list(g->net, info, PROFILE_MAX_FUNCTIONS);

	_Static_assert(sizeof(buf->consoles) / sizeof(buf->consoles[0]) ==
		       PROFILE_MAX_FUNCTIONS, "gadget_status_buf holds every console");
	_Static_assert(sizeof(buf->consoles[0].function) == CONSOLE_FUNCTION_MAX,
		       "a console's function name fits gadget_status_buf");
	for (i = 0; i < n; i++) {
		memcpy(buf->consoles[i].function, info[i].function, CONSOLE_FUNCTION_MAX);
		snprintf(buf->consoles[i].tty, sizeof(buf->consoles[i].tty), "ttyGS%u",
			 info[i].port % 1000);
		st->consoles[i] = (struct status_console){
			.function = buf->consoles[i].function,
			.tty = buf->consoles[i].tty,
			.state = console_state_name(info[i].state),
			.backend = info[i].how,
		};
	}
	st->n_consoles = n;
}

/* The links sharing the board's uplink (netsvc's shares). */
static void gadget_status_shares(struct gadget *g, struct status *st,
				 struct gadget_status_buf *buf)
{
	struct uplink_info info[PROFILE_MAX_FUNCTIONS];
	unsigned i, n = netsvc_shares_list(g->net, info, PROFILE_MAX_FUNCTIONS);

	_Static_assert(sizeof(buf->shares) / sizeof(buf->shares[0]) == PROFILE_MAX_FUNCTIONS,
		       "gadget_status_buf holds every share");
	_Static_assert(sizeof(buf->shares[0].function) >= sizeof(info[0].function) &&
			       sizeof(buf->shares[0].why) >= sizeof(info[0].why) &&
			       sizeof(buf->shares[0].link) >= sizeof(info[0].link),
		       "a share fits gadget_status_buf");
	for (i = 0; i < n; i++) {
		memcpy(buf->shares[i].function, info[i].function, sizeof(info[i].function));
		memcpy(buf->shares[i].link, info[i].link, sizeof(info[i].link));
		memcpy(buf->shares[i].uplink, info[i].uplink, sizeof(info[i].uplink));
		memcpy(buf->shares[i].why, info[i].why, sizeof(info[i].why));
		st->shares[i] = (struct status_share){
			.function = buf->shares[i].function,
			.link = buf->shares[i].link,
			.uplink = buf->shares[i].uplink,
			.state = info[i].state == UPLINK_ON ? "on" : "failed",
			.why = buf->shares[i].why,
		};
	}
	st->n_shares = n;
}

/* One structure for every rendering (status.h): text, JSON and the
 * D-Bus properties show the same. */
void gadget_status_fill(struct gadget *g, struct status *out,
			struct gadget_status_buf *buf)
{
	const char *udc = composer_bound_udc(g->composer);
	unsigned i;
	struct status st = {
		.profile = g->profile ? g->profile->name : NULL,
		.switching = g->txn != NULL,
		.locked = g->locked,
		.queued = g->waiters ? g->waiters->queued(g->waiters_data) : 0,
		.udc = udc,
		.udc_state = buf->udc_state,
		.speed = buf->speed,
		.bus = !udc ? "-" : gadget_wakeup_suspended(g) ? "suspended" : "awake",
		.remote_wakeup = gadget_wakeup_configured(g),
		.switches = g->switches,
		.last_switch = g->live.timing.when,
		.teardown_ms = g->live.timing.teardown_ms,
		.ready_ms = g->live.timing.ready_ms,
		.bind_ms = g->live.timing.bind_ms,
		.total_ms = g->live.timing.total_ms,
		.boot = boot_note(g->boot),
		.failed_when = g->failed_when,
		.failed = g->failed,
	};

	snprintf(buf->udc_state, sizeof(buf->udc_state), "unbound");
	snprintf(buf->speed, sizeof(buf->speed), "-");
	if (g->set >= 0) {
		profile_set_name(g->profile, g->set, buf->set, sizeof(buf->set));
		st.set = buf->set;
		st.n_configs = g->profile->sets[g->set].n_configs;
		for (i = 0; i < st.n_configs; i++) {
			profile_set_config_name(g->profile, g->set, i, buf->configs[i],
						sizeof(buf->configs[i]));
			st.configs[i] = buf->configs[i];
		}
	}
	if (udc) {
		udc_state(udc, buf->udc_state, sizeof(buf->udc_state));
		udc_speed(udc, buf->speed, sizeof(buf->speed));
	}
	gadget_status_functions(g, &st);
	gadget_status_udcs(udc, &st, buf);
	gadget_status_consoles(g, &st, buf);
	gadget_status_shares(g, &st, buf);
	supervisor_status(g->sup, &st);
	*out = st;
}

_Static_assert(sizeof(((struct gadget_status_buf *)0)->set) == GADGET_SET_MAX,
	       "a set name fits gadget_status_buf");

void gadget_status(struct gadget *g, FILE *out, bool json)
{
	struct gadget_status_buf buf;
	struct status st;

	gadget_status_fill(g, &st, &buf);
	if (json)
		status_write_json(&st, out);
	else
		status_write_text(&st, out);
}

_Static_assert(STATUS_MAX_PLUGINS == PLAN_MAX,
	       "the status holds a worker for every function a plan has");
