/*
 * plan: what a switch must change in ConfigFS, computed before anything is
 * touched. Functions that are live and appear in the target set with the
 * same definition are kept (their FunctionFS workers keep running); all
 * other live functions are removed and the missing ones created.
 */
#ifndef GADGETD_PLAN_H
#define GADGETD_PLAN_H

#include "composer.h"
#include "profile.h"

#define PLAN_SIG_MAX 1024
#define PLAN_MAX (PROFILE_MAX_FUNCTIONS * 2)

/* A live function and the signature of the definition it was made from
 * (empty when unknown, e.g. left over from a crash). */
struct plan_live {
	struct composer_fn fn;
	char sig[PLAN_SIG_MAX];
};

struct plan {
	unsigned n_remove;
	struct composer_fn remove[PLAN_MAX];
	unsigned n_create;
	const struct profile_function *create[PROFILE_MAX_FUNCTIONS];
};

/* Text that differs whenever two definitions would differ in ConfigFS or
 * in their plugin's options. */
void plan_signature(const struct profile_function *f, char *buf, size_t size);

void plan_compute(const struct plan_live *live, unsigned n_live,
		  const struct profile *p, unsigned set, struct plan *out);

#endif
