#include "gadget_int.h"
#include "config.h"
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A profile that would not load, with the reason on one line: list shows
 * it, as gadgetd only checks a profile when it is used. */
static void gadget_list_broken(struct gadget *g, FILE *out, const char *name)
{
	char err[2048], *p;
	struct profile *prof;

	if (g->profile && !strcmp(name, g->profile->name))
		return;
	if (gadget_load_profile(g, name, &prof, err, sizeof(err)) == 0) {
		profile_free(prof);
		return;
	}
	for (p = err; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(out, "broken profile %s: %s\n", name, err);
}

struct gadget_list_ctx {
	struct gadget *g;
	FILE *out;
	bool broken; /* second pass: the ones that do not load */
};

static void gadget_list_entry(const struct config_profile_entry *e, void *data)
{
	struct gadget_list_ctx *c = data;

	if (!e->name || !e->regular)
		return;
	if (c->broken)
		gadget_list_broken(c->g, c->out, e->name);
	else
		fprintf(c->out, " %s", e->name);
}

/* Every profile that `gadgetctl switch --profile NAME` could name; then
 * the ones that do not load, one a line, with the reason. */
static void gadget_list_profiles(struct gadget *g, FILE *out)
{
	struct gadget_list_ctx c = { .g = g, .out = out };

	fprintf(out, "profiles in %s:", g->cfg->profile_dir);
	config_profile_scan(g->cfg, gadget_list_entry, &c);
	fputc('\n', out);
	c.broken = true;
	config_profile_scan(g->cfg, gadget_list_entry, &c);
}

/* A set of several USB configurations lists them, c.1 first (the one
 * Windows takes and the OS descriptors describe). */
static void gadget_list_configs(const struct profile *p, unsigned set, FILE *out)
{
	const struct profile_set *s = &p->sets[set];
	char name[GADGET_SET_MAX];
	unsigned i;

	for (i = 0; s->n_configs > 1 && i < s->n_configs; i++) {
		profile_set_config_name(p, set, i, name, sizeof(name));
		fprintf(out, "    c.%u %s%s%s%s\n", i + 1, name,
			s->configs[i].name ? " (\"" : "",
			s->configs[i].name ? s->configs[i].name : "",
			s->configs[i].name ? "\")" : "");
	}
}

void gadget_list(struct gadget *g, FILE *out)
{
	const struct profile *p = g->profile;
	char name[GADGET_SET_MAX];
	unsigned i;

	gadget_list_profiles(g, out);
	if (!p) {
		fprintf(out, "no profile loaded\n");
		return;
	}
	fprintf(out, "profile: %s (%s)\nfunctions:\n", p->name, p->path);
	for (i = 0; i < p->n_functions; i++)
		fprintf(out, "  %-12s %s%s%s\n", p->functions[i].name,
			profile_ftype_name(p->functions[i].type),
			p->functions[i].plugin ? " plugin " :
			p->functions[i].exec ? " exec " : "",
			p->functions[i].plugin ? p->functions[i].plugin :
			p->functions[i].exec ? p->functions[i].exec : "");
	fprintf(out, "sets:\n");
	for (i = 0; i < p->n_sets; i++) {
		profile_set_name(p, i, name, sizeof(name));
		fprintf(out, "  %-24s %04x:%04x%s%s\n", name, p->sets[i].vendor_id,
			p->sets[i].product_id, (int)i == p->default_set ? " (default)" : "",
			(int)i == g->set ? " (active)" : "");
		gadget_list_configs(p, i, out);
	}
}

static void gadget_list_name(const struct config_profile_entry *e, void *data)
{
	if (e->name && e->regular)
		fprintf(data, "%s\n", e->name);
}

static void gadget_list_set_name(const char *name, bool is_default, bool active,
				 void *data)
{
	fprintf(data, "%s\n", name);
}

int gadget_list_names(struct gadget *g, FILE *out, const char *what)
{
	const struct profile *p = g->profile;
	unsigned i;

	if (!strcmp(what, "profiles")) {
		config_profile_scan(g->cfg, gadget_list_name, out);
	} else if (!strcmp(what, "sets")) {
		gadget_list_sets(g, gadget_list_set_name, out);
	} else if (!strcmp(what, "functions")) {
		for (i = 0; p && i < p->n_functions; i++)
			fprintf(out, "%s\t%s\n", p->functions[i].name,
				p->functions[i].plugin ? p->functions[i].plugin : "-");
	} else {
		return -EINVAL;
	}
	return 0;
}

void gadget_list_sets(struct gadget *g, gadget_list_fn fn, void *data)
{
	const struct profile *p = g->profile;
	char name[GADGET_SET_MAX];
	unsigned i;

	for (i = 0; p && i < p->n_sets; i++) {
		profile_set_name(p, i, name, sizeof(name));
		fn(name, (int)i == p->default_set, (int)i == g->set, data);
	}
}
