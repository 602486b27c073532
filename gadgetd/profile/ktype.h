/*
 * ktype: the kernel's USB function types gadgetd can compose, one table
 * entry each, as libusbgx keeps one ops entry per function type. An entry
 * holds everything gadgetd knows of a type: its name in a profile, its
 * libusbgx type, its attributes (name, type, range, default, help), a
 * check across attributes and the code that writes them to ConfigFS.
 * The profile parser, its checker and the composer all read this table:
 * a new kernel type is one entry in ktype.c (and its paragraph in
 * gadgetd.conf(5), checked against the table by test_ktype).
 */
#ifndef GADGETD_KTYPE_H
#define GADGETD_KTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "optdesc.h"

struct profile_function;
struct usbg_function;

struct ktype {
	const char *name;   /* type = "..." in a profile */
	int usbg_type;      /* usbg_function_type */
	/* FunctionFS: a plugin, its options and its worker, not attributes. */
	bool ffs;
	const struct optdesc *attrs; /* NULL-name-terminated; may be NULL */
	/*
	 * Checks across attributes once each has passed its declaration
	 * (optional): 0, or -EINVAL with why naming the attribute first
	 * ("in_ports: ..."), which the caller prefixes with the function.
	 */
	int (*check)(const struct profile_function *f, char *why, size_t size);
	/* Write the attributes to the new ConfigFS function (optional):
	 * 0 or a libusbgx error code. */
	int (*apply)(struct usbg_function *uf, const struct profile_function *f);
	/* Then the attributes libusbgx does not know, into the function's
	 * ConfigFS folder open on dirfd (optional): 0 or -errno. */
	int (*apply_dir)(int dirfd, const struct profile_function *f);
};

/* The entry named name, or NULL. */
const struct ktype *ktype_find(const char *name);
/* "acm, ecm, ...": every name, for messages. */
const char *ktype_names(void);
/* An attribute's value from the profile, else its declared default. */
const char *ktype_attr(const struct profile_function *f, const char *key);
/* A mass_storage LUN's attribute key: "ro" for LUN 0, lun3_ro for LUN 3. */
const char *ktype_ms_attr(const struct profile_function *f, int lun,
			  const char *key);

/* FunctionFS, the type of every plugin's function. */
const struct ktype *ktype_ffs(void);

#endif
