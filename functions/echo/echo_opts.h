/*
 * echo_opts: the echo test plugin's options, declared once (see
 * adb_opts.h).
 */
#ifndef GADGETD_ECHO_OPTS_H
#define GADGETD_ECHO_OPTS_H

#include "optdesc.h"

static const struct optdesc echo_opts[] = {
	{ .name = "ms_os", .type = OPTDESC_BOOL, .def = "true",
	  .help = "offer a WinUSB MS OS compat ID" },
	{ 0 }
};

#endif
