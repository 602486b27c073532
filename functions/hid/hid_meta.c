/*
 * hid_meta: the HID plugin's declaration (common/plugin_meta.h): a USB
 * keyboard, mouse, tablet or consumer-key device whose reports come from
 * `gadgetctl FUNCTION ...` commands.
 */
#include "plugin_meta.h"

static const char *const hid_meta_kinds[] = { "keyboard", "mouse", "tablet",
					      "consumer", NULL };

static const char *const hid_meta_forwards[] = { "none", "input", NULL };

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
	{ .name = "forward", .type = OPTDESC_ENUM, .choices = hid_meta_forwards,
	  .def = "none",
	  .help = "input: forward the board's own keyboards (kind keyboard) or mice (kind mouse) to the host" },
	{ .name = "forward_match", .type = OPTDESC_STRING, .max = 1000,
	  .def = "bus=usb; bus=bluetooth; bus=i8042",
	  .help = "with forward: which devices (rules: name=GLOB, id=VVVV:PPPP, bus=BUS, property=KEY[=GLOB])" },
	{ .name = "forward_hotkey", .type = OPTDESC_STRING, .max = 63,
	  .def = "ctrl+alt+scrolllock",
	  .help = "with forward: the keys that release the devices to the board, and take them again" },
	{ 0 }
};

/*
 * Driving the keyboard and mouse is what the group is for on a KVM or
 * test-rig board: the control socket's group may run every command. They
 * type and click into the attached computer, so over D-Bus they have an
 * action of their own (org.gadgetd1.drive), not the read-only one; "leds"
 * only reads the host's LED state.
 */
static const struct plugin_command hid_meta_commands[] = {
	{ "type", "[--layout LAYOUT] TEXT...", "keyboard: type TEXT",
	  PLUGIN_ACCESS_DRIVE },
	{ "key", "COMBO... | --down COMBO | --up [COMBO]",
	  "keyboard, consumer: press keys together, or hold and release them",
	  PLUGIN_ACCESS_DRIVE },
	{ "leds", "", "keyboard: the LEDs the host last set", PLUGIN_ACCESS_READ },
	{ "move", "DX DY", "mouse: move the pointer by DX, DY", PLUGIN_ACCESS_DRIVE },
	{ "click", "[BUTTON]", "mouse, tablet: press and release a button",
	  PLUGIN_ACCESS_DRIVE },
	{ "scroll", "N", "mouse, tablet: turn the wheel N steps (positive: up)",
	  PLUGIN_ACCESS_DRIVE },
	{ "abs", "X Y", "tablet: put the pointer at X, Y (0..32767)",
	  PLUGIN_ACCESS_DRIVE },
	{ "mouse", "move|abs|click|scroll ARGS...",
	  "the pointer command that follows (mouse, tablet)", PLUGIN_ACCESS_DRIVE },
	{ "send", "HEX", "one raw input report", PLUGIN_ACCESS_DRIVE },
	{ "forward", "release|take|toggle",
	  "with forward: release the forwarded devices to the board, or take them",
	  PLUGIN_ACCESS_DRIVE },
	{ 0 }
};

static const struct plugin_meta_input hid_meta_input = {
	.forward = "forward",
	.match = "forward_match",
	.kind = "kind",
	.keyboard = "keyboard",
	.pointer = "mouse",
};

const struct plugin_meta hid_meta = {
	.name = "hid",
	.options = hid_meta_options,
	.commands = hid_meta_commands,
	.input = &hid_meta_input,
};
