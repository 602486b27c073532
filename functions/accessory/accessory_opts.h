/*
 * accessory_opts: the accessory plugin's options, declared once (see
 * adb_opts.h).
 */
#ifndef GADGETD_ACCESSORY_OPTS_H
#define GADGETD_ACCESSORY_OPTS_H

#include "optdesc.h"

static const char *const accessory_opts_modes[] = { "control", "data", NULL };

static const struct optdesc accessory_opts[] = {
	{ .name = "mode", .type = OPTDESC_ENUM, .choices = accessory_opts_modes,
	  .required = true,
	  .help = "control: answer the AOA requests and switch; data: the accessory interface" },
	{ .name = "state_dir", .type = OPTDESC_PATH, .def = RUNDIR "/gadgetd/accessory",
	  .help = "where the strings and the socket live" },
	{ .name = "with_adb", .type = OPTDESC_BOOL, .def = "false",
	  .help = "switch to accessory,adb rather than accessory" },
	{ .name = "accessory_set", .type = OPTDESC_STRING, .max = 255,
	  .help = "the set START switches to (default from with_adb)" },
	{ .name = "claim_timeout_ms", .type = OPTDESC_INT, .min = 0, .max = 86400000,
	  .def = "10000", .help = "ms an application has to claim the accessory" },
	{ .name = "disconnect_timeout_ms", .type = OPTDESC_INT, .min = 0, .max = 86400000,
	  .def = "3000", .help = "ms without a host before reverting" },
	{ .name = "socket_group", .type = OPTDESC_STRING, .max = 32,
	  .help = "the group that may connect to the socket" },
	{ .name = "socket", .type = OPTDESC_PATH,
	  .help = "the data socket (default: state_dir/accessory.sock)" },
	{ 0 }
};

/* The set START asks for when accessory_set is not given. gadgetd checks
 * the worker's switch requests against the same (gadget.c). */
static inline const char *accessory_opts_default_set(bool with_adb)
{
	return with_adb ? "accessory,adb" : "accessory";
}

#endif
