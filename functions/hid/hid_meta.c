/*
 * hid_meta: the HID plugin's declaration (common/plugin_meta.h): a USB
 * keyboard, mouse, tablet or consumer-key device whose reports come from
 * `gadgetctl FUNCTION ...` commands.
 */
#include "plugin_meta.h"

static const char *const hid_meta_kinds[] = { "keyboard", "mouse", "tablet",
					      "consumer", NULL };

static const struct optdesc hid_meta_options[] = {
	{ .name = "kind", .type = OPTDESC_ENUM, .choices = hid_meta_kinds,
	  .def = "keyboard",
	  .help = "keyboard (boot protocol), mouse (relative, wheel), tablet (absolute) or consumer (media keys)" },
	{ .name = "nkro", .type = OPTDESC_BOOL, .def = "false",
	  .help = "keyboard: report every key held (n-key rollover), not 6" },
	{ .name = "layout", .type = OPTDESC_STRING, .max = 63, .def = "us",
	  .help = "keyboard: the host's layout `type` assumes (an XKB layout[(variant)])" },
	{ .name = "layouts", .type = OPTDESC_STRING, .max = 255, .def = "us,de,fr,gb",
	  .help = "keyboard: the layouts `type --layout` may name, loaded at start" },
	{ .name = "report_desc", .type = OPTDESC_HEX, .max = 512,
	  .help = "a report descriptor of the profile's own, in hex (reports then as send gives them)" },
	{ .name = "report_length", .type = OPTDESC_INT, .min = 1, .max = 64,
	  .help = "with report_desc: the input report's length in bytes" },
	{ 0 }
};

/* "hid leds" only reads the host's LED state. */
static const char *const hid_meta_read_commands[] = { "leds", NULL };

/*
 * Driving the keyboard and mouse is what the group is for on a KVM or
 * test-rig board: the control socket's group may run every command. They
 * type and click into the attached computer, so over D-Bus they have an
 * action of their own (org.gadgetd1.drive), not the read-only one.
 */
static const char *const hid_meta_drive_commands[] = {
	"type", "key", "move", "click", "scroll", "abs", "mouse", "send", NULL,
};

const struct plugin_meta hid_meta = {
	.name = "hid",
	.options = hid_meta_options,
	.read_commands = hid_meta_read_commands,
	.drive_commands = hid_meta_drive_commands,
};
