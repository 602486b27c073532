/*
 * Fuzz the profile parser (profile_parse) and the set request resolver
 * (profile_set_find) with libFuzzer.
 *
 * The input is a profile text; it is also used as a set request against a
 * fixed valid profile. Invariants checked: messages stay NUL-terminated
 * inside the buffer (bytes past it untouched); a parsed profile resolves
 * each of its own set names to that set, finds each of its functions by
 * name, and has a default set that exists; a request resolves to a set
 * whose functions it names, or fails with -EINVAL, -ENOENT or -EPERM.
 */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fuzz_profile_fixed[] =
	"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
	"functions: { acm: { type = \"acm\"; }; ecm: { type = \"ecm\"; };\n"
	"  adb: { type = \"ffs\"; plugin = \"adb\"; }; mtp: { type = \"ffs\"; plugin = \"mtp\"; }; };\n"
	"sets = ( { functions = [ \"acm\", \"ecm\" ]; product_id = 1; },\n"
	"  { functions = [ \"mtp\", \"adb\" ]; product_id = 2; },\n"
	"  { functions = [ \"adb\" ]; product_id = 3; } );\n"
	"default = \"acm,ecm\";\n";

#define FUZZ_ERR 512
#define FUZZ_CANARY 0x5a

static void fuzz_profile_check_err(const char *err)
{
	size_t i;

	if (!memchr(err, '\0', FUZZ_ERR))
		abort();
	for (i = FUZZ_ERR; i < FUZZ_ERR + 16; i++)
		if ((unsigned char)err[i] != FUZZ_CANARY)
			abort();
}

/* 1..PROFILE_MAX_CONFIGS configurations, none empty, each function of
 * each in the set's list, and each of that list in some configuration. */
static void fuzz_profile_check_configs(const struct profile *p,
				       const struct profile_set *s)
{
	unsigned c, i, j, seen = 0;

	if (s->n_configs == 0 || s->n_configs > PROFILE_MAX_CONFIGS)
		abort();
	for (c = 0; c < s->n_configs; c++) {
		if (s->configs[c].n_functions == 0)
			abort();
		for (i = 0; i < s->configs[c].n_functions; i++) {
			if (s->configs[c].functions[i] >= p->n_functions)
				abort();
			for (j = 0; j < s->n_functions &&
			     s->functions[j] != s->configs[c].functions[i]; j++)
				;
			if (j == s->n_functions)
				abort();
			seen |= 1u << j;
		}
	}
	if (seen != (1u << s->n_functions) - 1)
		abort();
}

static void fuzz_profile_check(const struct profile *p)
{
	char err[FUZZ_ERR + 16], name[512];
	unsigned i;

	memset(err, FUZZ_CANARY, sizeof(err));
	if (p->default_set >= (int)p->n_sets || p->n_sets == 0 || p->n_functions == 0)
		abort();
	for (i = 0; i < p->n_functions; i++)
		if (profile_function_find(p, p->functions[i].name) != &p->functions[i])
			abort();
	for (i = 0; i < p->n_sets; i++) {
		profile_set_name(p, i, name, sizeof(name));
		if (profile_set_find(p, name, err, FUZZ_ERR) != (int)i)
			abort();
		fuzz_profile_check_configs(p, &p->sets[i]);
	}
}

static void fuzz_profile_request(const char *req)
{
	static struct profile *fixed;
	char err[FUZZ_ERR + 16], name[64];
	const char *s;
	unsigned i;
	int r;

	if (!fixed && profile_parse("fixed", fuzz_profile_fixed, &fixed, err,
				    FUZZ_ERR) < 0)
		abort();
	memset(err, FUZZ_CANARY, sizeof(err));
	r = profile_set_find(fixed, req, err, FUZZ_ERR);
	if (r < 0) {
		fuzz_profile_check_err(err);
		if (r != -EINVAL && r != -ENOENT && r != -EPERM)
			abort();
		return;
	}
	/* Every function of the set found must be named in the request. */
	for (i = 0; i < fixed->sets[r].n_functions; i++) {
		snprintf(name, sizeof(name), "%s",
			 fixed->functions[fixed->sets[r].functions[i]].name);
		s = strstr(req, name);
		if (!s)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[FUZZ_ERR + 16];
	struct profile *p;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(err, FUZZ_CANARY, sizeof(err));
	if (profile_parse("fuzz.conf", text, &p, err, FUZZ_ERR) == 0) {
		fuzz_profile_check(p);
		profile_free(p);
	} else if (p || !err[0]) {
		abort(); /* a refused profile says why and hands nothing back */
	}
	fuzz_profile_check_err(err);
	fuzz_profile_request(text);
	free(text);
	return 0;
}
