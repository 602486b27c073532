/*
 * boot: the gadget's start-up, as an object of its own: the profile and
 * set from the state file, else gadgetd.conf's profile and its default
 * set, each step falling back to the next (a saved set, the default set,
 * off), and the story of what it did, one line for status.
 *
 * It knows nothing of struct gadget: its owner loads a profile and
 * switches for it through boot_ops, and it reads the profile the owner
 * then has. Clients may wait for the start-up to be over (boot_wait()),
 * from before it began.
 */
#ifndef GADGETD_BOOT_H
#define GADGETD_BOOT_H

#include <stdbool.h>
#include <stddef.h>

struct config;
struct profile;
struct boot;

/* A result, once (gadget_done_fn's shape). */
typedef void (*boot_done_fn)(int r, const char *msg, void *data);

/* How the start-up asks its owner (data: boot_new()'s ops_data). */
struct boot_ops {
	/* Load profile name as the owner's, the gadget off: 0, or -errno
	 * with msg saying why. */
	int (*load)(const char *name, char *msg, size_t size, void *data);
	/* The owner's profile now (NULL: none). */
	const struct profile *(*profile)(void *data);
	/* Switch to set of the owner's profile (NULL: its default), as
	 * gadget_switch() does (-EINPROGRESS: fn(..., fn_data) follows), the
	 * state file recording it unless the owner keeps the state
	 * (keep_state). */
	int (*switch_set)(const char *set, char *msg, size_t size, boot_done_fn fn,
			  void *fn_data, void *data);
	/* The start-up fell back from what the state file names: the file
	 * keeps naming it until a client or plugin chooses. */
	void (*keep_state)(void *data);
};

/* NULL with errno. */
struct boot *boot_new(const struct config *cfg, const struct boot_ops *ops,
		      void *ops_data);
/* Answers every wait (-ECANCELED). NULL is fine. */
void boot_free(struct boot *b);

/* gadget_boot_start() and gadget_boot_wait() (gadget.h). */
int boot_start(struct boot *b, char *msg, size_t size, boot_done_fn fn,
	       void *data);
int boot_wait(struct boot *b, char *msg, size_t size, boot_done_fn fn,
	      void *data);
/* Forget data's wait, or answer every wait (-ECANCELED, data NULL). */
void boot_cancel(struct boot *b, void *data);
/* gadgetd is stopping: a step that ends now is the last. */
void boot_stop(struct boot *b);
/* What the start-up did, for status ("" before it began). */
const char *boot_note(const struct boot *b);

#endif
