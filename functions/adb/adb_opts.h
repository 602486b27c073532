/*
 * adb_opts: the adb plugin's options, declared once. The plugin reads its
 * defaults here; gadgetd checks profiles against this table without
 * loading the plugin (gadgetd/optcheck.c lists it).
 */
#ifndef GADGETD_ADB_OPTS_H
#define GADGETD_ADB_OPTS_H

#include "optdesc.h"

static const struct optdesc adb_opts[] = {
	{ .name = "auth", .type = OPTDESC_BOOL, .def = "true",
	  .help = "require the host's key to be in keys (off: any host gets a shell)" },
	{ .name = "keys", .type = OPTDESC_PATH, .def = SYSCONFDIR "/gadgetd/adb_keys",
	  .help = "the trusted public keys, one per line" },
	{ .name = "shell", .type = OPTDESC_PATH, .def = "/bin/sh",
	  .help = "the shell that runs adb shell commands" },
	{ .name = "reboot_command", .type = OPTDESC_STRING,
	  .help = "what adb reboot runs (absent: refused)" },
	{ .name = "product", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.name in the banner" },
	{ .name = "model", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.model in the banner" },
	{ .name = "device", .type = OPTDESC_STRING, .max = 64, .def = "gadgetd",
	  .help = "ro.product.device in the banner" },
	{ 0 }
};

#endif
