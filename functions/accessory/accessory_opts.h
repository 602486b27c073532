/*
 * accessory_opts: the rule the accessory's options share with gadgetd.
 * The options themselves are declared in accessory_meta.c.
 */
#ifndef GADGETD_ACCESSORY_OPTS_H
#define GADGETD_ACCESSORY_OPTS_H

#include <stdbool.h>

/* The set START asks for when accessory_set is not given. gadgetd checks
 * the worker's switch requests against the same (gadget.c). */
static inline const char *accessory_opts_default_set(bool with_adb)
{
	return with_adb ? "accessory,adb" : "accessory";
}

#endif
