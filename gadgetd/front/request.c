/* request: the typed form of a client's request (see request.h). */
#include "request.h"
#include "ctl.h"

#include <stdio.h>
#include <string.h>

static void request_switch(int argc, char **argv, struct request *r)
{
	if (argc >= 2 && !strcmp(argv[0], "--profile")) {
		r->profile = argv[1];
		argv += 2;
		argc -= 2;
	}
	if (argc > 1)
		snprintf(r->bad, sizeof(r->bad), "%s", "switch takes one set");
	else if (argc == 1)
		r->set = argv[0];
	else if (!r->profile)
		snprintf(r->bad, sizeof(r->bad), "%s", "switch needs a set or --profile NAME");
}

void request_from_ctl(uint16_t type, int argc, char **argv, struct request *r)
{
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->argc = argc;
	r->argv = argv;
	switch (type) {
	case CTL_SWITCH:
		r->op = REQUEST_SWITCH;
		request_switch(argc, argv, r);
		return;
	case CTL_OFF:
		r->op = REQUEST_OFF;
		return;
	case CTL_RELOAD:
		r->op = REQUEST_RELOAD;
		return;
	case CTL_LIST:
		r->op = REQUEST_LIST;
		if (argc == 1)
			r->what = argv[0];
		else if (argc > 1)
			snprintf(r->bad, sizeof(r->bad), "%s", "list takes sets, profiles or functions");
		return;
	case CTL_STATUS:
		r->op = REQUEST_STATUS;
		r->json = argc > 0 && !strcmp(argv[0], "json");
		return;
	case CTL_STORAGE:
		r->op = REQUEST_STORAGE;
		storage_parse(argc, argv, &r->storage, r->bad, sizeof(r->bad));
		return;
	case CTL_FUNCTION:
		r->op = REQUEST_COMMAND;
		r->function = argc > 0 ? argv[0] : NULL;
		r->command = argc > 1 ? argv[1] : NULL;
		return;
	case CTL_MONITOR:
		r->op = REQUEST_MONITOR;
		return;
	case CTL_WAIT:
		r->op = REQUEST_WAIT;
		return;
	case CTL_WAKEUP:
		r->op = REQUEST_WAKEUP;
		if (argc)
			snprintf(r->bad, sizeof(r->bad), "%s", "wakeup takes no arguments");
		return;
	case CTL_LOCK:
	case CTL_UNLOCK:
		r->op = REQUEST_LOCK;
		r->lock = type == CTL_LOCK;
		if (argc)
			snprintf(r->bad, sizeof(r->bad), "%s takes no arguments",
				 r->lock ? "lock" : "unlock");
		return;
	}
	r->op = REQUEST_UNKNOWN;
}

bool request_changes(const struct request *r)
{
	/* A lock never waits for a switch to end, nor is refused as busy:
	 * it must take effect at once. */
	return r->op != REQUEST_STATUS && r->op != REQUEST_LIST &&
	       r->op != REQUEST_MONITOR && r->op != REQUEST_WAIT &&
	       r->op != REQUEST_LOCK;
}

bool request_waits(const struct request *r)
{
	return r->op == REQUEST_SWITCH || r->op == REQUEST_RELOAD || r->op == REQUEST_OFF;
}
