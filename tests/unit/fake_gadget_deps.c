/*
 * Fakes for the modules gadget.c drives: ConfigFS (composer), the worker
 * supervisor, UDCs and the state file. Each call is appended to
 * fake_calls as "name(arg) " so a test can check the exact sequence, and
 * fake_fail_at makes one call fail.
 */
#include "fake_gadget_deps.h"

#include "composer.h"
#include "state.h"
#include "supervisor.h"
#include "udc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

char fake_calls[8192];
char fake_fail_at[128];
char fake_not_ready[64];
char fake_state_set[256];
int fake_state_saves;
int fake_bind_busy;
void (*fake_udc_fn)(void *data);
void *fake_udc_data;
static char fake_live[32][PROFILE_NAME_MAX];
static enum profile_ftype fake_live_type[32];
static unsigned fake_n_live;
static bool fake_bound;
static char fake_workers[32][PROFILE_NAME_MAX];
static unsigned fake_n_workers;

void fake_reset(void)
{
	fake_calls[0] = fake_fail_at[0] = fake_not_ready[0] = '\0';
	fake_state_set[0] = '\0';
	fake_state_saves = 0;
	fake_n_live = fake_n_workers = 0;
	fake_bound = false;
	fake_bind_busy = 0;
}

bool fake_is_bound(void)
{
	return fake_bound;
}

void fake_lose_binding(void)
{
	fake_bound = false;
}

void fake_clear_calls(void)
{
	fake_calls[0] = '\0';
}

static int fake_call(const char *name, const char *arg)
{
	char call[128];
	size_t n = strlen(fake_calls);

	snprintf(call, sizeof(call), "%s(%s)", name, arg ? arg : "");
	snprintf(fake_calls + n, sizeof(fake_calls) - n, "%s ", call);
	return strcmp(call, fake_fail_at) ? 0 : -EIO;
}

struct composer {
	int unused;
};
static struct composer fake_composer;

int composer_new(const char *gadget_name, struct composer **out)
{
	*out = &fake_composer;
	return 0;
}

void composer_free(struct composer *c) {}

int composer_destroy(struct composer *c)
{
	fake_n_live = 0;
	fake_bound = false;
	return fake_call("destroy", NULL);
}

int composer_identity(struct composer *c, const struct profile *p, unsigned set)
{
	char id[16];

	snprintf(id, sizeof(id), "%04x", p->sets[set].product_id);
	return fake_call("identity", id);
}

int composer_live(struct composer *c, struct composer_fn *out, unsigned max)
{
	unsigned i;

	for (i = 0; i < fake_n_live && i < max; i++) {
		snprintf(out[i].name, sizeof(out[i].name), "%s", fake_live[i]);
		out[i].type = fake_live_type[i];
	}
	return fake_n_live;
}

int composer_add_function(struct composer *c, const struct profile_function *f)
{
	int r = fake_call("add", f->name);

	if (!r) {
		snprintf(fake_live[fake_n_live], PROFILE_NAME_MAX, "%s", f->name);
		fake_live_type[fake_n_live++] = f->type;
	}
	return r;
}

int composer_remove_function(struct composer *c, const char *name)
{
	unsigned i;
	int r = fake_call("remove", name);

	for (i = 0; !r && i < fake_n_live; i++) {
		if (!strcmp(fake_live[i], name)) {
			fake_n_live--;
			memcpy(fake_live[i], fake_live[fake_n_live], PROFILE_NAME_MAX);
			fake_live_type[i] = fake_live_type[fake_n_live];
			break;
		}
	}
	return r;
}

int composer_unlink_all(struct composer *c)
{
	return fake_call("unlink_all", NULL);
}

int composer_link(struct composer *c, const char *name)
{
	return fake_call("link", name);
}

int composer_bind(struct composer *c, const char *udc)
{
	int r = fake_call("bind", udc);

	if (!r && fake_bind_busy > 0) {
		fake_bind_busy--;
		r = -EBUSY;
	}
	fake_bound = !r;
	return r;
}

int composer_unbind(struct composer *c)
{
	if (!fake_bound)
		return 0;
	fake_bound = false;
	return fake_call("unbind", NULL);
}

const char *composer_bound_udc(struct composer *c)
{
	return fake_bound ? "dummy_udc.0" : NULL;
}

struct supervisor {
	int unused;
};
static struct supervisor fake_sup;

struct supervisor *supervisor_new(struct loop *l, const struct config *cfg,
				  supervisor_switch_fn on_switch,
				  supervisor_restart_fn on_restart, void *data)
{
	return &fake_sup;
}

void supervisor_free(struct supervisor *s)
{
	fake_n_workers = 0;
}

int supervisor_start(struct supervisor *s, const struct profile_function *f)
{
	int r = fake_call("start", f->name);

	if (!r)
		snprintf(fake_workers[fake_n_workers++], PROFILE_NAME_MAX, "%s", f->name);
	return r;
}

void supervisor_stop(struct supervisor *s, const char *name)
{
	unsigned i;

	for (i = 0; i < fake_n_workers; i++) {
		if (!strcmp(fake_workers[i], name)) {
			fake_call("stop", name);
			memcpy(fake_workers[i], fake_workers[--fake_n_workers],
			       PROFILE_NAME_MAX);
			return;
		}
	}
}

bool supervisor_has(struct supervisor *s, const char *name)
{
	unsigned i;

	for (i = 0; i < fake_n_workers; i++)
		if (!strcmp(fake_workers[i], name))
			return true;
	return false;
}

int supervisor_wait_ready(struct supervisor *s, unsigned timeout_ms, char *err,
			  size_t err_size)
{
	if (fake_not_ready[0] && supervisor_has(s, fake_not_ready)) {
		snprintf(err, err_size, "function %s: plugin not ready after %u ms",
			 fake_not_ready, timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

int supervisor_command(struct supervisor *s, const char *name, int argc,
		       char **argv, char *reply, size_t reply_size)
{
	snprintf(reply, reply_size, "%s %s", name, argv[0]);
	return 0;
}

void supervisor_reap(struct supervisor *s) {}

int supervisor_respawn(struct supervisor *s, const char *name)
{
	return fake_call("respawn", name);
}
void supervisor_clean_mounts(const struct config *cfg) {}
void supervisor_status(struct supervisor *s, FILE *out, bool json) {}

int udc_pick(const char *policy, char *buf, size_t size)
{
	snprintf(buf, size, "dummy_udc.0");
	return 0;
}

void udc_state(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "configured");
}

void udc_speed(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "high-speed");
}

struct udc_monitor *udc_monitor_new(struct loop *l, udc_change_fn fn, void *data)
{
	fake_udc_fn = fn;
	fake_udc_data = data;
	return NULL;
}

void udc_monitor_free(struct udc_monitor *m) {}

int state_load(const char *path, char *profile, size_t psize, char *set,
	       size_t ssize)
{
	return -ENOENT;
}

int state_save(const char *path, const char *profile, const char *set)
{
	snprintf(fake_state_set, sizeof(fake_state_set), "%s", set);
	fake_state_saves++;
	return 0;
}
