#include "status.h"
#include "json.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

static void status_plugin_text(const struct status_plugin *p, FILE *out)
{
	unsigned i;

	/* A failed plugin's state, pid and restarts are stale: its reason
	 * alone says what happened. */
	if (p->failed) {
		fprintf(out, "  %s: failed: %s\n", p->name, p->failed_why);
		return;
	}
	fprintf(out, "  %s: %s, pid %d, restarts %u%s%s%s%s%s%s\n", p->name,
		p->state, p->pid, p->restarts,
		p->root_allowed ? ", " : "", p->root_allowed ? p->root_request : "",
		p->root_allowed ? " " : "", p->root_allowed ? p->root : "",
		p->last_exit[0] ? ", last exit: " : "", p->last_exit);
	if (p->last_error[0])
		fprintf(out, "    last error: %s\n", p->last_error);
	for (i = 0; i < p->n_kv; i++)
		fprintf(out, "    %s: %s\n", p->kv[i][0], p->kv[i][1]);
}

static void status_plugin_json(const struct status_plugin *p, FILE *out)
{
	unsigned i;

	fprintf(out, "{\"name\":");
	json_str(out, p->name);
	fprintf(out, ",\"state\":\"%s\",\"pid\":%d,\"restarts\":%u,\"root\":\"%s\",\"last_exit\":",
		p->state, p->pid, p->restarts, p->root);
	json_str(out, p->last_exit);
	fprintf(out, ",\"last_error\":");
	json_str(out, p->last_error);
	fprintf(out, ",\"failed\":");
	json_str(out, p->failed_why);
	fprintf(out, ",\"status\":{");
	for (i = 0; i < p->n_kv; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_str(out, p->kv[i][0]);
		fputc(':', out);
		json_str(out, p->kv[i][1]);
	}
	fprintf(out, "}}");
}

void status_write_plugins(const struct status *st, FILE *out, bool json)
{
	unsigned i;

	for (i = 0; i < st->n_plugins; i++) {
		if (!json) {
			status_plugin_text(&st->plugins[i], out);
			continue;
		}
		fprintf(out, "%s", i ? "," : "");
		status_plugin_json(&st->plugins[i], out);
	}
}

static void status_time(time_t t, char *buf, size_t size)
{
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", localtime(&t));
}

static void status_event_text(const char *s, FILE *out);

void status_write_text(const struct status *st, FILE *out)
{
	char when[64] = "never";
	unsigned i;

	if (st->last_switch)
		status_time(st->last_switch, when, sizeof(when));
	fprintf(out, "profile: %s\nset: %s\nstate: %s\nudc: %s\nudc state: %s\nspeed: %s\n",
		st->profile ? st->profile : "-", st->set ? st->set : "off",
		st->switching ? "switching" : "idle", st->udc ? st->udc : "-",
		st->udc_state, st->speed);
	fprintf(out, "bus: %s\nremote wakeup: %s\n", st->bus ? st->bus : "-",
		st->remote_wakeup ? "offered" : "no");
	if (st->n_configs) {
		fprintf(out, "configurations:");
		for (i = 0; i < st->n_configs; i++)
			fprintf(out, "%s c.%u %s", i ? ";" : "", i + 1, st->configs[i]);
		fputc('\n', out);
	}
	fprintf(out, "locked: %s\n", st->locked ? "yes" : "no");
	if (st->queued)
		fprintf(out, "queued: %u request%s waiting their turn\n", st->queued,
			st->queued == 1 ? "" : "s");
	fprintf(out, "switches: %u\n", st->switches);
	fprintf(out, "last switch: %s (teardown %u ms, functions ready %u ms, bound %u ms, total %u ms)\n",
		when, st->teardown_ms, st->ready_ms, st->bind_ms, st->total_ms);
	fprintf(out, "boot: %s\n", st->boot[0] ? st->boot : "starting");
	if (st->failed[0]) {
		status_time(st->failed_when, when, sizeof(when));
		fprintf(out, "last failure: %s: %s\n", when, st->failed);
	}
	for (i = 0; i < st->n_consoles; i++)
		fprintf(out, "%s%s %s %s (%s)", i ? "; " : "consoles: ",
			st->consoles[i].function, st->consoles[i].tty,
			st->consoles[i].state, st->consoles[i].backend);
	if (st->n_consoles)
		fputc('\n', out);
	for (i = 0; i < st->n_shares; i++) {
		fprintf(out, "%s%s %s via %s %s", i ? "; " : "uplink sharing: ",
			st->shares[i].function, st->shares[i].link, st->shares[i].uplink,
			st->shares[i].state);
		if (st->shares[i].why[0]) {
			fputs(": ", out);
			status_event_text(st->shares[i].why, out);
		}
	}
	if (st->n_shares)
		fputc('\n', out);
	fprintf(out, "plugins:\n");
	status_write_plugins(st, out, false);
}

static void status_console_json(const struct status_console *c, FILE *out)
{
	fprintf(out, "{\"function\":");
	json_str(out, c->function);
	fprintf(out, ",\"tty\":");
	json_str(out, c->tty);
	fprintf(out, ",\"state\":");
	json_str(out, c->state);
	fprintf(out, ",\"backend\":");
	json_str(out, c->backend);
	fputc('}', out);
}

static void status_share_json(const struct status_share *s, FILE *out)
{
	fprintf(out, "{\"function\":");
	json_str(out, s->function);
	fprintf(out, ",\"link\":");
	json_str(out, s->link);
	fprintf(out, ",\"uplink\":");
	json_str(out, s->uplink);
	fprintf(out, ",\"state\":");
	json_str(out, s->state);
	fprintf(out, ",\"why\":");
	json_str(out, s->why);
	fputc('}', out);
}

void status_write_json(const struct status *st, FILE *out)
{
	unsigned i;

	fprintf(out, "{\"profile\":");
	json_str(out, st->profile ? st->profile : "");
	fprintf(out, ",\"set\":");
	json_str(out, st->set ? st->set : "");
	fprintf(out, ",\"configurations\":[");
	for (i = 0; i < st->n_configs; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_str(out, st->configs[i]);
	}
	fprintf(out, "],\"switching\":%s,\"queued\":%u,\"locked\":%s,\"udc\":",
		st->switching ? "true" : "false", st->queued,
		st->locked ? "true" : "false");
	json_str(out, st->udc ? st->udc : "");
	fprintf(out, ",\"udc_state\":");
	json_str(out, st->udc_state);
	fprintf(out, ",\"speed\":");
	json_str(out, st->speed);
	fprintf(out, ",\"bus\":");
	json_str(out, st->bus ? st->bus : "-");
	fprintf(out, ",\"remote_wakeup\":%s", st->remote_wakeup ? "true" : "false");
	fprintf(out, ",\"switches\":%u,"
		"\"last_switch\":{\"time\":%lld,\"teardown_ms\":%u,"
		"\"ready_ms\":%u,\"bind_ms\":%u,\"total_ms\":%u},",
		st->switches, (long long)st->last_switch, st->teardown_ms,
		st->ready_ms, st->bind_ms, st->total_ms);
	fprintf(out, "\"boot\":");
	json_str(out, st->boot);
	fprintf(out, ",\"plugins\":[");
	status_write_plugins(st, out, true);
	fprintf(out, "],\"consoles\":[");
	for (i = 0; i < st->n_consoles; i++) {
		fprintf(out, "%s", i ? "," : "");
		status_console_json(&st->consoles[i], out);
	}
	fprintf(out, "],\"uplink_sharing\":[");
	for (i = 0; i < st->n_shares; i++) {
		fprintf(out, "%s", i ? "," : "");
		status_share_json(&st->shares[i], out);
	}
	fprintf(out, "],\"last_failure\":{\"time\":%lld,\"message\":",
		st->failed[0] ? (long long)st->failed_when : 0LL);
	json_str(out, st->failed);
	fprintf(out, "}}\n");
}

/* The text of an event is gadgetd's, but a plugin's words may be in it:
 * a terminal gets no control characters. */
static void status_event_text(const char *s, FILE *out)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

void status_write_event(const struct ctl_event *ev, FILE *out, bool json)
{
	char when[32];

	if (json) {
		fprintf(out, "{\"time_ms\":%" PRId64 ",\"event\":", ev->time_ms);
		json_str(out, ev->kind);
		fputs(",\"function\":", out);
		json_str(out, ev->function[0] ? ev->function : NULL);
		fputs(",\"detail\":", out);
		json_str(out, ev->detail);
		fprintf(out, ",\"code\":%" PRId32 "}\n", ev->code);
		return;
	}
	status_time((time_t)(ev->time_ms / 1000), when, sizeof(when));
	fprintf(out, "%s.%03d ", when, (int)(ev->time_ms % 1000));
	status_event_text(ev->kind, out);
	if (ev->function[0]) {
		fputc(' ', out);
		status_event_text(ev->function, out);
	}
	/* A switch to "" is off. */
	if (ev->detail[0] || !strncmp(ev->kind, "switch-", 7)) {
		fputc(' ', out);
		status_event_text(ev->detail[0] ? ev->detail : "off", out);
	}
	if (ev->code)
		fprintf(out, " (%s %" PRId32 ")", strcmp(ev->kind, "plugin-restarted") &&
			strcmp(ev->kind, "plugin-failed") ? "code" : "restarts", ev->code);
	fputc('\n', out);
}
