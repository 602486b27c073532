#include "gadget_int.h"
#include "composer.h"
#include "profile.h"
#include "status.h"
#include "supervisor.h"
#include "udc.h"

#include <stdio.h>

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
		.queued = g->n_queued,
		.udc = udc,
		.udc_state = buf->udc_state,
		.speed = buf->speed,
		.switches = g->switches,
		.last_switch = g->timing.when,
		.teardown_ms = g->timing.teardown_ms,
		.ready_ms = g->timing.ready_ms,
		.bind_ms = g->timing.bind_ms,
		.total_ms = g->timing.total_ms,
		.boot = g->boot.note,
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
