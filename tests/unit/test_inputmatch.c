/*
 * test_inputmatch: forward_match rules (gadgetd/profile/inputmatch.c):
 * what they match (any rule, every condition of one, globs, ids, buses,
 * udev properties), the default, the malformed rules refused with the
 * rule named, and a profile's forward options checked with file, line
 * and field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputmatch.h"
#include "profile.h"

static const char *prop(const char *key, const void *ctx)
{
	if (!strcmp(key, "GADGETD_FORWARD"))
		return "1";
	if (!strcmp(key, "ID_PATH"))
		return "platform-xhci-usb-0:1:1.0";
	return NULL;
}

static const struct inputmatch_dev kbd = {
	.name = "Logitech USB Keyboard", .vendor = 0x046d, .product = 0xc31c, .bus = 0x03,
	.prop = prop,
};
static const struct inputmatch_dev virt = {
	.name = "gadgetd-test kbd", .vendor = 0x1234, .product = 0x5678, .bus = 0x06,
};

static bool matches(const char *rules, const struct inputmatch_dev *d)
{
	struct inputmatch m;
	char why[256];

	assert_int_equal(inputmatch_parse(rules, &m, why, sizeof(why)), 0);
	return inputmatch_match(&m, d);
}

static void test_match(void **state)
{
	assert_true(matches(INPUTMATCH_DEFAULT, &kbd));
	/* A program's own uinput device is not taken by default. */
	assert_false(matches(INPUTMATCH_DEFAULT, &virt));
	assert_true(matches("name=gadgetd-test*", &virt));
	assert_false(matches("name=gadgetd-test", &virt));
	assert_true(matches("name=Logitech*", &kbd));
	assert_true(matches(" id = 046d:c31c ", &kbd));
	assert_true(matches("id=046D:C31C", &kbd));
	assert_false(matches("id=046d:c31d", &kbd));
	/* Every condition of a rule; any rule. */
	assert_false(matches("bus=usb,name=Other*", &kbd));
	assert_true(matches("bus=usb,name=Other*; property=GADGETD_FORWARD", &kbd));
	assert_true(matches("property=GADGETD_FORWARD=1", &kbd));
	assert_false(matches("property=GADGETD_FORWARD=0", &kbd));
	assert_true(matches("property=ID_PATH=platform-xhci-*", &kbd));
	/* No property source, no name: nothing matches them. */
	assert_false(matches("property=GADGETD_FORWARD", &virt));
	assert_false(matches("name=*", &(struct inputmatch_dev){ .bus = 3 }));
	assert_true(matches("bus=virtual", &virt));
	assert_true(matches("bus=bluetooth; bus=i8042; bus=virtual", &virt));
}

static void refused(const char *rules, const char *want)
{
	struct inputmatch m;
	char why[256] = "";

	assert_int_equal(inputmatch_parse(rules, &m, why, sizeof(why)), -EINVAL);
	if (!strstr(why, want))
		fail_msg("\"%s\": \"%s\" does not say \"%s\"", rules, why, want);
}

static void test_malformed(void **state)
{
	char big[4096];

	refused("", "rule 1: empty");
	refused("bus=usb;", "rule 2: empty");
	refused(";bus=usb", "rule 1: empty");
	refused("bus=usb;;bus=usb", "rule 2: empty");
	refused("bus=usb,", "rule 1");
	refused("name", "rule 1: \"name\": expected FIELD=VALUE");
	refused("bus=usb; nmae=x", "rule 2: unknown field \"nmae\"");
	refused("name=", "rule 1: name: no value");
	refused("id=046d", "expected VVVV:PPPP");
	refused("id=046d:c31", "expected VVVV:PPPP");
	refused("id=046d:c31cc", "expected VVVV:PPPP");
	refused("id=+46d:c31c", "expected VVVV:PPPP");
	refused("id=046d-c31c", "expected VVVV:PPPP");
	refused("bus=pci", "expected usb, bluetooth, i8042 or virtual");
	refused("property==1", "expected KEY or KEY=VALUE");
	refused("property=A B", "expected KEY or KEY=VALUE");
	refused("name=a\tb", "only printable ASCII");
	refused("name=\xc3\xa9", "only printable ASCII");
	refused("bus=usb;bus=usb;bus=usb;bus=usb;bus=usb;bus=usb;bus=usb;bus=usb;bus=usb",
		"more than 8 rules");
	refused("bus=usb,bus=usb,bus=usb,bus=usb,bus=usb", "more than 4 conditions");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "name=", 5);
	refused(big, "too long");
	big[5 + 200] = '\0';
	refused(big, "too long a value");
}

/* A profile whose hid function's forward options are checked; its
 * options start on line 5. */
static void profile_says(const char *options, const char *want)
{
	char text[2048], msg[1024] = "";
	struct profile *p = NULL;
	int r;

	snprintf(text, sizeof(text),
		 "gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
		 "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		 "functions: {\n"
		 "  kbd: { type = \"ffs\"; plugin = \"hid\"; options: {\n"
		 "      %s\n"
		 "  }; };\n};\n"
		 "sets = ( { functions = [ \"kbd\" ]; } );\n", options);
	r = profile_parse("t.conf", text, &p, msg, sizeof(msg));
	if (!want) {
		if (r < 0)
			fail_msg("refused: %s", msg);
		profile_free(p);
		return;
	}
	assert_int_equal(r, -EINVAL);
	if (!strstr(msg, want))
		fail_msg("\"%s\" does not say \"%s\"", msg, want);
}

static void test_profile(void **state)
{
	profile_says("forward = \"input\";", NULL);
	profile_says("forward = \"input\"; forward_match = \"name=x; bus=usb\";", NULL);
	profile_says("kind = \"mouse\"; forward = \"input\";", NULL);
	/* Not forwarding: the rules are not looked at. */
	profile_says("forward_match = \"nmae=x\";", NULL);
	profile_says("forward = \"input\";\n      forward_match = \"bus=usb; nmae=x\";",
		     "t.conf:6: functions.kbd.options.forward_match: rule 2: unknown field \"nmae\"");
	profile_says("kind = \"tablet\";\n      forward = \"input\";",
		     "t.conf:6: functions.kbd.options.forward: forward = \"input\" needs kind = "
		     "\"keyboard\" or \"mouse\" (this one is \"tablet\")");
	profile_says("forward = \"yes\";", "functions.kbd.options.forward");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
