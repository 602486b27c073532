/*
 * dbus_props: the D-Bus properties, one snapshot of the status structure
 * (status.h, the one `gadgetctl status` renders), read again whenever
 * something may have changed: an event (event.h), a call answered, a
 * caller about to read them. What differs from the snapshot before is
 * announced with PropertiesChanged, so a signal and a read never disagree.
 */
#include "dbus_int.h"
#include "gadget.h"
#include "log.h"
#include "status.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dbus_props_get_str(sd_bus *bus, const char *path, const char *iface,
		       const char *prop, sd_bus_message *reply, void *data,
		       sd_bus_error *err)
{
	return sd_bus_message_append(reply, "s", (const char *)data);
}

int dbus_props_get_u32(sd_bus *bus, const char *path, const char *iface,
		       const char *prop, sd_bus_message *reply, void *data,
		       sd_bus_error *err)
{
	return sd_bus_message_append(reply, "u", *(const uint32_t *)data);
}

int dbus_props_get_bool(sd_bus *bus, const char *path, const char *iface,
			const char *prop, sd_bus_message *reply, void *data,
			sd_bus_error *err)
{
	return sd_bus_message_append(reply, "b", *(const int *)data);
}

static int dbus_props_append_path(sd_bus_message *reply, const char *prefix,
				  const char *name)
{
	char *path = NULL;
	int r = sd_bus_path_encode(prefix, name, &path);

	if (r >= 0)
		r = sd_bus_message_append(reply, "o", path);
	free(path);
	return r;
}

/* data is the snapshot. */
int dbus_props_get_functions(sd_bus *bus, const char *path, const char *iface,
			     const char *prop, sd_bus_message *reply, void *data,
			     sd_bus_error *err)
{
	const struct dbus_snap *s = data;
	unsigned i;
	int r = sd_bus_message_open_container(reply, 'a', "o");

	for (i = 0; r >= 0 && i < s->n_functions; i++)
		r = dbus_props_append_path(reply, DBUS_FUNCTION_PATH, s->functions[i].name);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

int dbus_props_get_udcs(sd_bus *bus, const char *path, const char *iface,
			const char *prop, sd_bus_message *reply, void *data,
			sd_bus_error *err)
{
	const struct dbus_snap *s = data;
	int r = sd_bus_message_open_container(reply, 'a', "o");

	unsigned i;

	for (i = 0; r >= 0 && i < s->n_udcs; i++)
		r = dbus_props_append_path(reply, DBUS_UDC_PATH, s->udcs[i].name);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

#define DBUS_PROPS_FN(field) offsetof(struct dbus_function, field)

static const sd_bus_vtable dbus_props_function[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", dbus_props_get_str, DBUS_PROPS_FN(name),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Plugin", "s", dbus_props_get_str, DBUS_PROPS_FN(plugin),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("State", "s", dbus_props_get_str, DBUS_PROPS_FN(state),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Restarts", "u", dbus_props_get_u32, DBUS_PROPS_FN(restarts),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Host", "s", dbus_props_get_str, DBUS_PROPS_FN(host),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Console", "s", dbus_props_get_str, DBUS_PROPS_FN(console),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Uplink", "s", dbus_props_get_str, DBUS_PROPS_FN(uplink),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_VTABLE_END
};

#define DBUS_PROPS_UDC(field) offsetof(struct dbus_udc, field)

static const sd_bus_vtable dbus_props_udc[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", dbus_props_get_str, DBUS_PROPS_UDC(name),
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", dbus_props_get_str, DBUS_PROPS_UDC(state),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Speed", "s", dbus_props_get_str, DBUS_PROPS_UDC(speed),
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_VTABLE_END
};

static int dbus_props_find_function(sd_bus *bus, const char *path,
				    const char *iface, void *data, void **found,
				    sd_bus_error *err)
{
	struct dbus *d = data;
	char *name = NULL;
	unsigned i;
	int r = sd_bus_path_decode(path, DBUS_FUNCTION_PATH, &name);

	if (r <= 0)
		return r;
	r = 0;
	for (i = 0; i < d->snap.n_functions; i++)
		if (!strcmp(d->snap.functions[i].name, name)) {
			*found = &d->snap.functions[i];
			r = 1;
			break;
		}
	free(name);
	return r;
}

static int dbus_props_find_udc(sd_bus *bus, const char *path, const char *iface,
			       void *data, void **found, sd_bus_error *err)
{
	struct dbus *d = data;
	char *name = NULL;
	unsigned i;
	int r = sd_bus_path_decode(path, DBUS_UDC_PATH, &name);

	if (r <= 0)
		return r;
	r = 0;
	for (i = 0; i < d->snap.n_udcs; i++)
		if (!strcmp(d->snap.udcs[i].name, name)) {
			*found = &d->snap.udcs[i];
			r = 1;
			break;
		}
	free(name);
	return r;
}

static int dbus_props_nodes(sd_bus *bus, const char *prefix, void *data,
			    char ***nodes, sd_bus_error *err)
{
	struct dbus *d = data;
	char **v = calloc(d->snap.n_functions + d->snap.n_udcs + 1, sizeof(*v));
	unsigned i, n = 0;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; r >= 0 && i < d->snap.n_functions; i++)
		r = sd_bus_path_encode(DBUS_FUNCTION_PATH, d->snap.functions[i].name,
				       &v[n++]);
	for (i = 0; r >= 0 && i < d->snap.n_udcs; i++)
		r = sd_bus_path_encode(DBUS_UDC_PATH, d->snap.udcs[i].name, &v[n++]);
	if (r < 0) {
		for (i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return r;
	}
	*nodes = v;
	return 0;
}

/* A caller is about to read something: the snapshot must be today's. */
static int dbus_props_filter(sd_bus_message *m, void *data, sd_bus_error *err)
{
	if (sd_bus_message_is_method_call(m, NULL, NULL))
		dbus_props_refresh(data);
	return 0;
}

int dbus_props_add(struct dbus *d)
{
	int r;

	r = sd_bus_add_fallback_vtable(d->bus, NULL, DBUS_FUNCTION_PATH,
				       DBUS_FUNCTION_IFACE, dbus_props_function,
				       dbus_props_find_function, d);
	if (r >= 0)
		r = sd_bus_add_fallback_vtable(d->bus, NULL, DBUS_UDC_PATH,
					       DBUS_UDC_IFACE, dbus_props_udc,
					       dbus_props_find_udc, d);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(d->bus, NULL, DBUS_PATH,
					       dbus_props_nodes, d);
	if (r >= 0)
		r = sd_bus_add_filter(d->bus, NULL, dbus_props_filter, d);
	return r;
}

static const struct status_plugin *dbus_props_plugin(const struct status *st,
						     const char *name)
{
	unsigned i;

	for (i = 0; i < st->n_plugins; i++)
		if (!strcmp(st->plugins[i].name, name))
			return &st->plugins[i];
	return NULL;
}

static void dbus_props_function_fill(const struct status *st,
				     const struct status_function *sf,
				     struct dbus_function *f)
{
	const char *plugin = sf->plugin;
	const struct status_plugin *p = dbus_props_plugin(st, sf->name);
	unsigned i;

	snprintf(f->name, sizeof(f->name), "%s", sf->name);
	snprintf(f->plugin, sizeof(f->plugin), "%s", plugin ? plugin : "");
	snprintf(f->state, sizeof(f->state), "%s",
		 p ? p->state : plugin ? "stopped" : "kernel");
	f->restarts = p ? p->restarts : 0;
	for (i = 0; p && i < p->n_kv; i++)
		if (!strcmp(p->kv[i][0], "host"))
			snprintf(f->host, sizeof(f->host), "%s", p->kv[i][1]);
	for (i = 0; i < st->n_consoles; i++)
		if (!strcmp(st->consoles[i].function, sf->name))
			snprintf(f->console, sizeof(f->console), "%s", st->consoles[i].state);
	for (i = 0; i < st->n_shares; i++)
		if (!strcmp(st->shares[i].function, sf->name))
			snprintf(f->uplink, sizeof(f->uplink), "%s", st->shares[i].state);
}

/* The set's functions and the UDCs, as the status model has them. */
static void dbus_props_model(const struct status *st, struct dbus_snap *s)
{
	unsigned i;

	for (i = 0; i < st->n_functions && i < PROFILE_MAX_FUNCTIONS; i++)
		dbus_props_function_fill(st, &st->functions[i], &s->functions[i]);
	s->n_functions = i;
	for (i = 0; i < st->n_udcs && i < DBUS_MAX_UDCS; i++) {
		snprintf(s->udcs[i].name, sizeof(s->udcs[i].name), "%s", st->udcs[i].name);
		snprintf(s->udcs[i].state, sizeof(s->udcs[i].state), "%s", st->udcs[i].state);
		snprintf(s->udcs[i].speed, sizeof(s->udcs[i].speed), "%s", st->udcs[i].speed);
	}
	s->n_udcs = i;
}

static void dbus_props_fill(struct dbus *d, struct dbus_snap *s)
{
	struct gadget_status_buf buf;
	struct status st;

	gadget_status_fill(d->gadget, &st, &buf);
	memset(s, 0, sizeof(*s));
	snprintf(s->profile, sizeof(s->profile), "%s", st.profile ? st.profile : "");
	snprintf(s->set, sizeof(s->set), "%s", st.set ? st.set : "");
	snprintf(s->state, sizeof(s->state), "%s",
		 st.switching ? "switching" : st.set ? "up" : "off");
	snprintf(s->last_error, sizeof(s->last_error), "%s", st.failed);
	s->switches = st.switches;
	s->locked = st.locked;
	snprintf(s->udc, sizeof(s->udc), "%s", st.udc ? st.udc : "");
	snprintf(s->udc_state, sizeof(s->udc_state), "%s", st.udc_state);
	snprintf(s->speed, sizeof(s->speed), "%s", st.speed);
	snprintf(s->bus, sizeof(s->bus), "%s", st.bus && strcmp(st.bus, "-") ? st.bus : "");
	s->remote_wakeup = st.remote_wakeup;
	dbus_props_model(&st, s);
}

/* Up to n names of what differs; returns how many. */
#define DBUS_PROPS_DIFF(names, n, a, b, field, prop) \
	do { \
		if (memcmp(&(a)->field, &(b)->field, sizeof((a)->field))) \
			(names)[(n)++] = (prop); \
	} while (0)

static void dbus_props_emit(struct dbus *d, const char *path, const char *iface,
			    char **names)
{
	int r;

	if (!names[0])
		return;
	r = sd_bus_emit_properties_changed_strv(d->bus, path, iface, names);
	if (r < 0)
		log_debug("dbus: cannot announce a change of %s: %s", path, strerror(-r));
}

static void dbus_props_emit_encoded(struct dbus *d, const char *prefix,
				    const char *name, const char *iface, char **names)
{
	char *path = NULL;

	if (!names[0] || sd_bus_path_encode(prefix, name, &path) < 0)
		return;
	dbus_props_emit(d, path, iface, names);
	free(path);
}

static bool dbus_props_same_functions(const struct dbus_snap *a,
				      const struct dbus_snap *b)
{
	unsigned i;

	if (a->n_functions != b->n_functions)
		return false;
	for (i = 0; i < a->n_functions; i++)
		if (strcmp(a->functions[i].name, b->functions[i].name))
			return false;
	return true;
}

static void dbus_props_emit_functions(struct dbus *d, const struct dbus_snap *old)
{
	const struct dbus_function *a, *b;
	char *names[7];
	unsigned i, j, n;

	for (i = 0; i < d->snap.n_functions; i++) {
		b = &d->snap.functions[i];
		for (j = 0; j < old->n_functions; j++)
			if (!strcmp(old->functions[j].name, b->name))
				break;
		if (j == old->n_functions)
			continue;
		a = &old->functions[j];
		n = 0;
		DBUS_PROPS_DIFF(names, n, a, b, plugin, "Plugin");
		DBUS_PROPS_DIFF(names, n, a, b, state, "State");
		DBUS_PROPS_DIFF(names, n, a, b, restarts, "Restarts");
		DBUS_PROPS_DIFF(names, n, a, b, host, "Host");
		DBUS_PROPS_DIFF(names, n, a, b, console, "Console");
		DBUS_PROPS_DIFF(names, n, a, b, uplink, "Uplink");
		names[n] = NULL;
		dbus_props_emit_encoded(d, DBUS_FUNCTION_PATH, b->name,
					DBUS_FUNCTION_IFACE, names);
	}
}

static bool dbus_props_same_udcs(const struct dbus_snap *a,
				 const struct dbus_snap *b)
{
	unsigned i;

	if (a->n_udcs != b->n_udcs)
		return false;
	for (i = 0; i < a->n_udcs; i++)
		if (strcmp(a->udcs[i].name, b->udcs[i].name))
			return false;
	return true;
}

static void dbus_props_emit_udcs(struct dbus *d, const struct dbus_snap *old)
{
	const struct dbus_udc *a, *b;
	char *names[3];
	unsigned i, j, n;

	for (i = 0; i < d->snap.n_udcs; i++) {
		b = &d->snap.udcs[i];
		for (j = 0; j < old->n_udcs; j++)
			if (!strcmp(old->udcs[j].name, b->name))
				break;
		if (j == old->n_udcs)
			continue;
		a = &old->udcs[j];
		n = 0;
		DBUS_PROPS_DIFF(names, n, a, b, state, "State");
		DBUS_PROPS_DIFF(names, n, a, b, speed, "Speed");
		names[n] = NULL;
		dbus_props_emit_encoded(d, DBUS_UDC_PATH, b->name, DBUS_UDC_IFACE, names);
	}
}

void dbus_props_refresh(struct dbus *d)
{
	struct dbus_snap *old = malloc(sizeof(*old));
	const struct dbus_snap *s = &d->snap;
	char *names[15];
	unsigned n = 0;

	if (!old)
		return;
	*old = d->snap;
	/* The getters read d->snap: it is the new one before any signal. */
	dbus_props_fill(d, &d->snap);
	if (!d->bus) {
		free(old);
		return;
	}
	DBUS_PROPS_DIFF(names, n, old, s, profile, "Profile");
	DBUS_PROPS_DIFF(names, n, old, s, set, "Set");
	DBUS_PROPS_DIFF(names, n, old, s, state, "State");
	DBUS_PROPS_DIFF(names, n, old, s, last_error, "LastError");
	DBUS_PROPS_DIFF(names, n, old, s, switches, "Switches");
	DBUS_PROPS_DIFF(names, n, old, s, locked, "Locked");
	DBUS_PROPS_DIFF(names, n, old, s, udc, "UDC");
	DBUS_PROPS_DIFF(names, n, old, s, udc_state, "UDCState");
	DBUS_PROPS_DIFF(names, n, old, s, speed, "Speed");
	DBUS_PROPS_DIFF(names, n, old, s, bus, "Bus");
	DBUS_PROPS_DIFF(names, n, old, s, remote_wakeup, "RemoteWakeup");
	if (!dbus_props_same_functions(old, s))
		names[n++] = "Functions";
	if (!dbus_props_same_udcs(old, s))
		names[n++] = "UDCs";
	names[n] = NULL;
	dbus_props_emit(d, DBUS_PATH, DBUS_MANAGER_IFACE, names);
	dbus_props_emit_functions(d, old);
	dbus_props_emit_udcs(d, old);
	free(old);
}
