/*
 * profile_set: a profile's sets once parsed: naming them, comparing them
 * and finding the one a switch request names (profile.h). profile.c
 * parses them.
 */
#include "profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* profile_set_request() copies a request into a buffer of this size. */
#define PROFILE_SET_REQUEST_MAX 512

/* Sets compare as sorted lists of function indices. */
static int profile_set_uint_cmp(const void *a, const void *b)
{
	return (int)*(const unsigned *)a - (int)*(const unsigned *)b;
}

static void profile_set_key(const struct profile_set *s, unsigned *key)
{
	memcpy(key, s->functions, s->n_functions * sizeof(*key));
	qsort(key, s->n_functions, sizeof(*key), profile_set_uint_cmp);
}

bool profile_set_equal(const struct profile_set *a, const struct profile_set *b)
{
	unsigned ka[PROFILE_MAX_FUNCTIONS], kb[PROFILE_MAX_FUNCTIONS];

	if (a->n_functions != b->n_functions)
		return false;
	profile_set_key(a, ka);
	profile_set_key(b, kb);
	return !memcmp(ka, kb, a->n_functions * sizeof(*ka));
}

/* Parse "a, b,c" into function indices; returns count or -errno. */
static int profile_set_request(const struct profile *p, const char *request,
			       unsigned *idx, char *err, size_t size)
{
	char buf[PROFILE_SET_REQUEST_MAX], *tok, *save = NULL;
	const struct profile_function *f;
	int n = 0;

	/* A longer request would be cut and could match a set it does not name. */
	if (!request || strlen(request) >= sizeof(buf)) {
		snprintf(err, size, "set request missing or longer than %d characters",
			 PROFILE_SET_REQUEST_MAX - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", request);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		f = profile_function_find(p, tok);
		if (!f) {
			snprintf(err, size, "unknown function \"%s\" (profile %s has no such function)",
				 tok, p->name);
			return -ENOENT;
		}
		if (n == PROFILE_MAX_FUNCTIONS)
			break;
		idx[n++] = f - p->functions;
	}
	if (n == 0) {
		snprintf(err, size, "empty set");
		return -EINVAL;
	}
	return n;
}

int profile_set_find(const struct profile *p, const char *request, char *err,
		     size_t err_size)
{
	struct profile_set want = { 0 };
	size_t len;
	unsigned i;
	int n;

	n = profile_set_request(p, request, want.functions, err, err_size);
	if (n < 0)
		return n;
	want.n_functions = n;
	for (i = 0; i < p->n_sets; i++)
		if (profile_set_equal(&p->sets[i], &want))
			return i;
	len = snprintf(err, err_size, "\"%s\" is not an allowed set of profile %s; allowed sets: ",
		       request, p->name);
	/* snprintf answers the length it wanted: once that passes the
	 * buffer, err + len is outside it, so stop before reading there. */
	for (i = 0; i < p->n_sets && len < err_size; i++) {
		len += snprintf(err + len, err_size - len, "%s", i ? "; " : "");
		if (len >= err_size)
			break;
		profile_set_name(p, i, err + len, err_size - len);
		len += strlen(err + len);
	}
	return -EPERM;
}

static void profile_set_join(const struct profile *p, const unsigned *idx,
			     unsigned n, char *buf, size_t size)
{
	size_t len = 0;
	unsigned i;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? "," : "",
				p->functions[idx[i]].name);
}

void profile_set_name(const struct profile *p, unsigned set, char *buf,
		      size_t size)
{
	const struct profile_set *s = &p->sets[set];

	profile_set_join(p, s->functions, s->n_functions, buf, size);
}

void profile_set_config_name(const struct profile *p, unsigned set,
			     unsigned config, char *buf, size_t size)
{
	const struct profile_config *c = &p->sets[set].configs[config];

	profile_set_join(p, c->functions, c->n_functions, buf, size);
}
