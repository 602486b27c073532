#include "plan.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* FNV-1a of s and its NUL, on from h. */
static uint64_t plan_hash(uint64_t h, const char *s)
{
	do
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	while (*s++);
	return h;
}

/* An exec function's program and everything it is started with (an
 * edited config restarts it): its path, and a hash of the rest. */
static uint64_t plan_exec_hash(const struct profile_function *f)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned i;

	for (i = 0; i < f->n_args; i++)
		h = plan_hash(h, f->args[i]);
	h = plan_hash(h, "");
	for (i = 0; i < f->n_env; i++)
		h = plan_hash(h, f->env[i]);
	h = plan_hash(h, f->config ? f->config : "");
	return plan_hash(h, f->bind ? f->bind : "");
}

void plan_signature(const struct profile_function *f, char *buf, size_t size)
{
	size_t n;
	unsigned i;

	/* Who the worker runs as is part of it: a root worker (adb root)
	 * must not survive a switch to a profile that refuses root. */
	n = snprintf(buf, size, "%s:%s:%s:%s:%llx:%s", profile_ftype_name(f->type),
		     f->plugin ? f->plugin : "", f->user ? f->user : "",
		     f->group ? f->group : "", (unsigned long long)f->caps,
		     f->root_allowed ? "root" : "");
	/* Options keep the profile's order; a reordered block only costs a
	 * needless re-creation. */
	for (i = 0; i < f->n_options && n < size; i++)
		n += snprintf(buf + n, size - n, ";%s=%s", f->options[i].key,
			      f->options[i].value);
	if (f->exec && n < size)
		snprintf(buf + n, size - n, ";exec=%s;%016llx", f->exec,
			 (unsigned long long)plan_exec_hash(f));
}

static const struct plan_live *plan_find_live(const struct plan_live *live,
					      unsigned n_live, const char *name)
{
	unsigned i;

	for (i = 0; i < n_live; i++)
		if (!strcmp(live[i].fn.name, name))
			return &live[i];
	return NULL;
}

static bool plan_in_set(const struct profile *p, unsigned set, const char *name)
{
	const struct profile_set *s = &p->sets[set];
	unsigned i;

	for (i = 0; i < s->n_functions; i++)
		if (!strcmp(p->functions[s->functions[i]].name, name))
			return true;
	return false;
}

void plan_compute(const struct plan_live *live, unsigned n_live,
		  const struct profile *p, unsigned set, struct plan *out)
{
	const struct profile_set *s = &p->sets[set];
	char sig[PLAN_SIG_MAX];
	unsigned i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < s->n_functions; i++) {
		const struct profile_function *f = &p->functions[s->functions[i]];
		const struct plan_live *l = plan_find_live(live, n_live, f->name);

		plan_signature(f, sig, sizeof(sig));
		if (l && l->fn.type == f->type && !strcmp(l->sig, sig))
			continue; /* kept: its worker keeps running */
		if (l)
			out->remove[out->n_remove++] = l->fn;
		out->create[out->n_create++] = f;
	}
	for (i = 0; i < n_live && out->n_remove < PLAN_MAX; i++)
		if (!plan_in_set(p, set, live[i].fn.name))
			out->remove[out->n_remove++] = live[i].fn;
}
