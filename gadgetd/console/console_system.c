/*
 * console_system: choose the console backend (console_system.h).
 */
#include "console_system.h"
#include "console.h"
#include "console_getty.h"
#include "console_unit.h"

#include <systemd/sd-daemon.h>

struct console *console_system_new(struct loop *l, const struct config *cfg)
{
	/* sd_booted(): /run/systemd/system, which only systemd as PID 1
	 * makes. gadgetd -f started by hand on such a board still asks
	 * systemd, which owns the ttys' gettys there. */
	if (sd_booted() > 0)
		return console_unit_new(l);
	return console_getty_new(l, cfg);
}
