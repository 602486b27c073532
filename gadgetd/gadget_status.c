#include "gadget_int.h"
#include "composer.h"
#include "profile.h"
#include "status.h"
#include "supervisor.h"
#include "udc.h"

#include <stdio.h>

/* One structure for both renderings (status.h), so that text and JSON
 * show the same. */
void gadget_status(struct gadget *g, FILE *out, bool json)
{
	const char *udc = composer_bound_udc(g->composer);
	char set[GADGET_SET_MAX], state[64] = "unbound", speed[64] = "-";
	char configs[PROFILE_MAX_CONFIGS][GADGET_SET_MAX];
	unsigned i;
	struct status st = {
		.profile = g->profile ? g->profile->name : NULL,
		.switching = g->txn != NULL,
		.udc = udc,
		.udc_state = state,
		.speed = speed,
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

	if (g->set >= 0) {
		profile_set_name(g->profile, g->set, set, sizeof(set));
		st.set = set;
		st.n_configs = g->profile->sets[g->set].n_configs;
		for (i = 0; i < st.n_configs; i++) {
			profile_set_config_name(g->profile, g->set, i, configs[i],
						sizeof(configs[i]));
			st.configs[i] = configs[i];
		}
	}
	if (udc) {
		udc_state(udc, state, sizeof(state));
		udc_speed(udc, speed, sizeof(speed));
	}
	supervisor_status(g->sup, &st);
	if (json)
		status_write_json(&st, out);
	else
		status_write_text(&st, out);
}
