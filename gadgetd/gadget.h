/*
 * gadget: the live gadget and the switch transaction.
 *
 * A switch validates the request, computes the difference from the live
 * ConfigFS tree, unbinds once, removes and creates functions, waits for
 * every FunctionFS plugin to be ready (an event from its worker), binds,
 * and on any failure goes back to the set that worked before.
 */
#ifndef GADGETD_GADGET_H
#define GADGETD_GADGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct loop;
struct config;
struct profile;
struct gadget;

int gadget_new(struct loop *l, const struct config *cfg, struct gadget **out);
/* Tear the gadget down (workers stopped, ConfigFS removed). */
void gadget_free(struct gadget *g);

/* Bring up the set from the state file, else the profile's default. */
int gadget_start(struct gadget *g, char *msg, size_t size);

/*
 * Switch to set (NULL: the profile's default) of profile (NULL: keep the
 * current one; otherwise the name of a profile in profile_dir, loaded and
 * validated first). Returns 0, or -errno with msg saying what failed and
 * whether the previous set was restored: -ENOENT/-EPERM/-EINVAL for a bad
 * request (nothing touched), -EBUSY during another switch, other codes for
 * a failure after which the gadget was rolled back.
 */
int gadget_switch(struct gadget *g, const char *profile, const char *set,
		  char *msg, size_t size);
int gadget_off(struct gadget *g, char *msg, size_t size);
/* Re-read the active profile; a bad file changes nothing. */
int gadget_reload(struct gadget *g, char *msg, size_t size);

void gadget_status(struct gadget *g, FILE *out, bool json);
void gadget_list(struct gadget *g, FILE *out);
int gadget_function_command(struct gadget *g, int argc, char **argv,
			    char *reply, size_t size);

bool gadget_busy(const struct gadget *g);
/* The active profile's name, NULL if none is loaded. */
const char *gadget_profile_name(const struct gadget *g);
/* The plugin behind a function of the active profile; NULL for a kernel
 * function or a name the profile does not have. */
const char *gadget_function_plugin(const struct gadget *g, const char *function);
void gadget_reap(struct gadget *g);

#endif
