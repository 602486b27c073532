/*
 * Unit tests for gadgetd/profile/profile.c: every malformed profile is refused
 * with a message that names the file, the line and the field; valid ones
 * come back with every field; set requests resolve as gadgetctl sends them.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile.h"

#ifndef PROFILES_DIR
#define PROFILES_DIR "profiles" /* make unit runs from the repository root */
#endif
#define EXAMPLES_DIR "profiles/examples"

/* The base profile, one line per entry: a case replaces one line, so the
 * other line numbers stay put. */
static const char *const base_lines[] = {
	"gadget: {",                                                          /* 1 */
	"  vendor_id = 0x1d6b; product_id = 0x0104;",                         /* 2 */
	"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };", /* 3 */
	"};",                                                                 /* 4 */
	"functions: {",                                                       /* 5 */
	"  acm: { type = \"acm\"; };",                                        /* 6 */
	"  ecm: { type = \"ecm\"; };",                                        /* 7 */
	"  adb: { type = \"ffs\"; plugin = \"adb\"; };",                      /* 8 */
	"};",                                                                 /* 9 */
	"sets = (",                                                           /* 10 */
	"  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },",      /* 11 */
	"  { functions = [ \"adb\" ]; product_id = 0x0106; }",                /* 12 */
	");",                                                                 /* 13 */
	"default = \"acm,ecm\";",                                             /* 14 */
};
#define BASE_N (sizeof(base_lines) / sizeof(base_lines[0]))

static char err[8192];

/* The base text with line `line` (1-based) replaced; line 0: unchanged. */
static char *base_with(unsigned line, const char *text)
{
	size_t size = 4096 + (text ? strlen(text) : 0);
	char *buf = malloc(size);
	size_t n = 0;
	unsigned i;

	assert_non_null(buf);
	for (i = 0; i < BASE_N; i++)
		n += snprintf(buf + n, size - n, "%s\n",
			      i + 1 == line ? text : base_lines[i]);
	return buf;
}

static int parse(const char *text, struct profile **p)
{
	return profile_parse("t.conf", text, p, err, sizeof(err));
}

/* Whether the message line holds every key word of ap. */
static int has_all(const char *line, va_list ap)
{
	const char *kw;

	while ((kw = va_arg(ap, const char *)))
		if (!strstr(line, kw))
			return 0;
	return 1;
}

/*
 * Some message of err starts with loc ("t.conf:7: ") and contains every
 * key word given (NULL-terminated).
 */
static void assert_message(const char *loc, ...)
{
	const char *m, *end;
	char line[2048];
	va_list ap;

	for (m = err; m && *m; m = end ? end + 1 : NULL) {
		end = strchr(m, '\n');
		snprintf(line, sizeof(line), "%.*s",
			 end ? (int)(end - m) : (int)strlen(m), m);
		if (strncmp(line, loc, strlen(loc)))
			continue;
		va_start(ap, loc);
		if (has_all(line, ap)) {
			va_end(ap);
			return;
		}
		va_end(ap);
	}
	fail_msg("no message at %s with the key words in:\n%s", loc, err);
}

static unsigned count_messages(void)
{
	unsigned n = err[0] ? 1 : 0;
	const char *s;

	for (s = err; (s = strchr(s, '\n')); s++)
		n++;
	return n;
}

/* ---- the table of malformed cases ---- */

struct bad_case {
	unsigned line;        /* base line to replace */
	const char *text;
	const char *loc;      /* "t.conf:N: " */
	const char *kw[4];
};

static const struct bad_case bad_cases[] = {
	{ 6, "  acm: { type = = \"acm\"; };", "t.conf:6: ", { "syntax error" } },
	{ 2, "  vendor_id = 0x1ffff; product_id = 0x0104;", "t.conf:2: ",
	  { "gadget.vendor_id", "0x1ffff out of range (0..0xffff)" } },
	{ 2, "  product_id = 0x0104;", "t.conf:1: ", { "gadget.vendor_id", "missing" } },
	{ 2, "  vendor_id = 0x1d6b;", "t.conf:1: ", { "gadget.product_id", "missing" } },
	{ 2, "  vendor_id = \"oops\"; product_id = 0x0104;", "t.conf:2: ",
	  { "gadget.vendor_id", "expected integer" } },
	{ 2, "  vendor_id = 0x1d6b; product_id = 0x0104; vendorid = 1;", "t.conf:2: ",
	  { "gadget", "unknown setting \"vendorid\"" } },
	{ 14, "defualt = \"acm,ecm\";", "t.conf:14: ", { "unknown setting \"defualt\"" } },
	{ 3, "  strings: { product = \"p\"; serial = \"s\"; };", "t.conf:3: ",
	  { "gadget.strings.manufacturer", "missing" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; };", "t.conf:3: ",
	  { "gadget.strings.serial", "missing" } },
	{ 3, "  strings: { manufacturer = \"m\\tx\"; product = \"p\"; serial = \"s\"; };",
	  "t.conf:3: ", { "gadget.strings.manufacturer", "printable ASCII" } },
	{ 3, "  strings: { lang = 0; manufacturer = \"m\"; product = \"p\"; serial = \"s\"; };",
	  "t.conf:3: ", { "gadget.strings.lang", "out of range" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; max_power = 600;",
	  "t.conf:3: ", { "gadget.max_power", "600 out of range", "0..500", "bcd_usb" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; max_power = 901; bcd_usb = 0x0300;",
	  "t.conf:3: ", { "gadget.max_power", "901 out of range (0..900)" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; bcd_usb = 0x10000;",
	  "t.conf:3: ", { "gadget.bcd_usb", "0x10000 out of range" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; os_desc: { vendor_code = 52; };",
	  "t.conf:3: ", { "gadget.os_desc.vendor_code", "52", "51..58" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; os_desc: { vendor_code = 0; };",
	  "t.conf:3: ", { "gadget.os_desc.vendor_code", "out of range" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; os_desc: { qw_sign = \"MSFT100\"; };",
	  "t.conf:3: ", { "gadget.os_desc.vendor_code", "missing" } },
	{ 3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; os_desc: { vendor_code = 0xcd; qw_sign = \"MSFT1000\"; };",
	  "t.conf:3: ", { "gadget.os_desc.qw_sign", "at most 7" } },
	{ 8, "  adb: { type = \"ffz\"; plugin = \"adb\"; };", "t.conf:8: ",
	  { "functions.adb", "unknown type \"ffz\"",
	    "(expected acm, " } }, /* all of them: test_ktype */
	{ 8, "  adb: { type = \"ffs\"; };", "t.conf:8: ", { "functions.adb", "plugin" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"Adb-1\"; };", "t.conf:8: ",
	  { "functions.adb.plugin", "\"Adb-1\" is not a plugin name" } },
	{ 8, "  adb: { plugin = \"adb\"; };", "t.conf:8: ", { "functions.adb.type", "missing" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = 0; };", "t.conf:8: ",
	  { "functions.adb.user", "expected string" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"\"; };", "t.conf:8: ",
	  { "functions.adb.user", "\"\" is not a user name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"Root\"; };", "t.conf:8: ",
	  { "functions.adb.user", "\"Root\" is not a user name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"1000\"; };", "t.conf:8: ",
	  { "functions.adb.user", "\"1000\" is not a user name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"a b\"; };", "t.conf:8: ",
	  { "functions.adb.user", "\"a b\" is not a user name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"../etc\"; };", "t.conf:8: ",
	  { "functions.adb.user", "is not a user name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"a23456789012345678901234567890123\"; };",
	  "t.conf:8: ", { "functions.adb.user", "at most 32" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; group = \"x:y\"; };", "t.conf:8: ",
	  { "functions.adb.group", "\"x:y\" is not a group name" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; group = true; };", "t.conf:8: ",
	  { "functions.adb.group", "expected string" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; capabilities = \"CAP_CHOWN\"; };",
	  "t.conf:8: ", { "functions.adb.capabilities", "expected a list" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; capabilities = [ \"CAP_CHOWN\", \"CAP_FLY\" ]; };",
	  "t.conf:8: ", { "functions.adb.capabilities", "\"CAP_FLY\" is not a capability" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; capabilities = [ 3 ]; };",
	  "t.conf:8: ", { "functions.adb.capabilities", "is not a capability" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; capabilities = ( \"CAP_CHOWN\", 1 ); };",
	  "t.conf:8: ", { "functions.adb.capabilities", "(not a string)" } },
	{ 6, "  acm: { type = \"acm\"; user = \"root\"; };", "t.conf:6: ",
	  { "functions.acm", "unknown setting \"user\" for type acm" } },
	{ 6, "  acm: { type = \"acm\"; capabilities = [ ]; };", "t.conf:6: ",
	  { "functions.acm", "unknown setting \"capabilities\"" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; root = \"yes\"; };", "t.conf:8: ",
	  { "functions.adb.root", "\"yes\": expected \"allowed\" or \"refused\"" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; root = true; };", "t.conf:8: ",
	  { "functions.adb.root", "expected string" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"mtp\"; root = \"allowed\"; };", "t.conf:8: ",
	  { "functions.adb.root", "plugin mtp cannot be restarted as root", "(adb root)" } },
	{ 6, "  acm: { type = \"acm\"; root = \"allowed\"; };", "t.conf:6: ",
	  { "functions.acm", "unknown setting \"root\"" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"ext\"; options: { x = 1.5; }; };",
	  "t.conf:8: ", { "functions.adb.options.x", "string, integer or boolean" } },
	/* Plugin options, checked against functions/NAME/NAME_meta.c. */
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { auht = false; }; };",
	  "t.conf:8: ", { "function \"adb\": unknown option \"auht\"", "plugin adb takes auth, keys" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { auth = \"maybe\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.auth", "expected true or false" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { auth = 2; }; };",
	  "t.conf:8: ", { "functions.adb.options.auth", "expected true or false" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { keys = \"adb_keys\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.keys", "absolute path" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { model = 5; }; };",
	  "t.conf:8: ", { "functions.adb.options.model", "expected a string" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"mtp\"; options: { storage8_path = \"/srv\"; }; };",
	  "t.conf:8: ", { "function \"adb\": unknown option \"storage8_path\"" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"mtp\"; options: { storage0_reserve_mb = -1; }; };",
	  "t.conf:8: ", { "functions.adb.options.storage0_reserve_mb", "-1 out of range" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"mtp\"; options: { storage1_create = \"y\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.storage1_create", "true or false" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"accessory\"; options: { mode = \"ctrl\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.mode", "expected one of \"control\", \"data\"" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"accessory\"; options: { with_adb = true; }; };",
	  "t.conf:8: ", { "function \"adb\": option \"mode\" is missing" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"accessory\"; options: { mode = \"data\"; claim_timeout_ms = \"10s\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.claim_timeout_ms", "expected an integer" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"echo\"; options: { ms_os = \"\"; }; };",
	  "t.conf:8: ", { "functions.adb.options.ms_os", "true or false" } },
	{ 8, "  adb: { type = \"ffs\"; plugin = \"adb\"; options = 3; };",
	  "t.conf:8: ", { "functions.adb.options", "expected a group" } },
	{ 6, "  Acm: { type = \"acm\"; };", "t.conf:6: ", { "functions.Acm", "a-z, 0-9 and _" } },
	{ 6, "  a234567890123456789012345678901x: { type = \"acm\"; };", "t.conf:6: ",
	  { "functions.a234567890123456789012345678901x", "1..31 characters" } },
	{ 6, "  acm: { type = \"acm\"; options: { x = 1; }; };", "t.conf:6: ",
	  { "functions.acm", "unknown setting \"options\"" } },
	{ 6, "  acm: { type = \"acm\"; plugin = \"adb\"; };", "t.conf:6: ",
	  { "functions.acm", "unknown setting \"plugin\"" } },
	{ 7, "  ecm: { type = \"ecm\"; dev_addr = \"02:00:00:00:00\"; };", "t.conf:7: ",
	  { "functions.ecm.dev_addr", "MAC address" } },
	{ 7, "  ecm: { type = \"ecm\"; host_addr = \"03:00:00:00:00:01\"; };", "t.conf:7: ",
	  { "functions.ecm.host_addr", "unicast MAC" } },
	{ 7, "  ecm: { type = \"ecm\"; dev_addr = \"02:+0:00:00:00:01\"; };", "t.conf:7: ",
	  { "functions.ecm.dev_addr", "MAC address" } },
	{ 7, "  ecm: { type = \"ecm\"; dev_addr = \"00:00:00:00:00:00\"; };", "t.conf:7: ",
	  { "functions.ecm.dev_addr", "MAC address" } },
	{ 7, "  ecm: { type = \"ecm\"; qmult = 0; };", "t.conf:7: ",
	  { "functions.ecm.qmult", "0 out of range (1..255)" } },
	{ 7, "  ecm: { type = \"ecm\"; qmult = \"five\"; };", "t.conf:7: ",
	  { "functions.ecm.qmult", "expected an integer" } },
	{ 7, "  ecm: { type = \"ecm\"; qmult = 1.5; };", "t.conf:7: ",
	  { "functions.ecm.qmult", "expected an integer" } },
	{ 7, "  ecm: { type = \"ncm\"; qmult = 256; };", "t.conf:7: ",
	  { "functions.ecm.qmult", "256 out of range (1..255)" } },
	{ 7, "  ecm: { type = \"rndis\"; host_addr = 2; };", "t.conf:7: ",
	  { "functions.ecm.host_addr", "expected a string" } },
	{ 7, "  ecm: { type = \"rndis\"; qmlut = 2; };", "t.conf:7: ",
	  { "functions.ecm", "unknown setting \"qmlut\" for type rndis" } },
	{ 7, "  ecm: { type = \"ncm\"; file = \"/d.img\"; };", "t.conf:7: ",
	  { "functions.ecm", "unknown setting \"file\" for type ncm" } },
	{ 7, "  ecm: { type = \"mass_storage\"; ro = true; };", "t.conf:7: ",
	  { "functions.ecm.file", "LUN 0 has no file and is not removable" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; lun2_ro = true; };",
	  "t.conf:7: ", { "functions.ecm.lun1_file", "LUN 1 has no file and is not removable" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; lun0_ro = true; };",
	  "t.conf:7: ", { "functions.ecm.lun0_ro", "LUN 0 is set by file, ro" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; lun8_ro = true; };",
	  "t.conf:7: ", { "functions.ecm", "unknown setting \"lun8_ro\"" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; group_media = true; };",
	  "t.conf:7: ", { "functions.ecm.group_media", "none is set" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; media_dir = \"img\"; };",
	  "t.conf:7: ", { "functions.ecm.media_dir", "absolute path" } },
	{ 7, "  ecm: { type = \"mass_storage\"; removable = true; "
	     "inquiry_string = \"0123456789012345678901234567x\"; };",
	  "t.conf:7: ", { "functions.ecm.inquiry_string", "" } },
	{ 7, "  ecm: { type = \"mass_storage\"; file = \"disk.img\"; };", "t.conf:7: ",
	  { "functions.ecm.file", "absolute path" } },
	{ 7, "  ecm: { type = \"mass_storage\"; file = \"/d.img\"; ro = \"maybe\"; };", "t.conf:7: ",
	  { "functions.ecm.ro", "true or false" } },
	{ 7, "  ecm: { type = \"mass_storage\"; file = \"/d.img\"; ro = 2; };", "t.conf:7: ",
	  { "functions.ecm.ro", "true or false" } },
	{ 7, "  ecm: { type = \"mass_storage\"; file = \"/d.img\"; cdrom = \"True\"; };", "t.conf:7: ",
	  { "functions.ecm.cdrom", "true or false" } },
	{ 7, "  ecm: { type = \"mass_storage\"; file = 1; };", "t.conf:7: ",
	  { "functions.ecm.file", "expected a string" } },
	{ 7, "  ecm: { type = \"hid\"; report_desc = \"05010\"; };", "t.conf:7: ",
	  { "functions.ecm.report_desc", "hex digits" } },
	{ 7, "  ecm: { type = \"hid\"; report_desc = \"0501xx\"; };", "t.conf:7: ",
	  { "functions.ecm.report_desc", "hex digits" } },
	{ 7, "  ecm: { type = \"hid\"; report_desc = \"0501\"; subclass = -1; };", "t.conf:7: ",
	  { "functions.ecm.subclass", "-1 out of range (0..255)" } },
	{ 7, "  ecm: { type = \"hid\"; report_desc = \"0501\"; protocol = 300; };", "t.conf:7: ",
	  { "functions.ecm.protocol", "300 out of range (0..255)" } },
	{ 7, "  ecm: { type = \"hid\"; report_desc = \"0501\"; report_length = 2000; };", "t.conf:7: ",
	  { "functions.ecm.report_length", "out of range (1..1024)" } },
	{ 7, "  ecm: { type = \"midi\"; in_ports = 99; };", "t.conf:7: ",
	  { "functions.ecm.in_ports", "99 out of range (0..16)" } },
	{ 7, "  ecm: { type = \"midi\"; in_ports = 0; out_ports = 0; };", "t.conf:7: ",
	  { "functions.ecm.in_ports", "both 0" } },
	{ 7, "  ecm: { type = \"midi\"; id = \"a_card_id_of_16c\"; };", "t.conf:7: ",
	  { "functions.ecm.id", "at most 15 characters" } },
	{ 7, "  ecm: { type = \"midi\"; ports = 2; };", "t.conf:7: ",
	  { "functions.ecm", "unknown setting \"ports\" for type midi" } },
	{ 7, "  ecm: { type = \"uac2\"; c_ssize = 5; };", "t.conf:7: ",
	  { "functions.ecm.c_ssize", "5 out of range (1..4)" } },
	{ 7, "  ecm: { type = \"uac2\"; c_chmask = 0; p_chmask = 0; };", "t.conf:7: ",
	  { "functions.ecm.c_chmask", "both 0" } },
	{ 7, "  ecm: { type = \"acm\"; dev_addr = \"02:00:00:00:00:01\"; };", "t.conf:7: ",
	  { "functions.ecm", "unknown setting \"dev_addr\"", "acm" } },
	{ 12, "  { functions = [ \"mtpp\" ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "function \"mtpp\" in set 2 is not in the functions catalogue" } },
	{ 12, "  { functions = [ ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2", "at least one function" } },
	{ 12, "  { functions = [ \"adb\", \"adb\" ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2", "\"adb\" appears twice" } },
	{ 12, "  { functions = [ \"ecm\", \"acm\" ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2", "the same functions as set 1" } },
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x0105; }", "t.conf:12: ",
	  { "set 2", "1d6b:0105", "set 1" } },
	{ 12, "  { functions = [ \"adb\" ]; product_ld = 0x0106; }", "t.conf:12: ",
	  { "set 2", "unknown setting \"product_ld\"" } },
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x0106; product = \"\\n\"; }",
	  "t.conf:12: ", { "set 2: product", "printable ASCII" } },
	{ 12, "  { functions = [ 1, 2 ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2: functions", "function names" } },
	{ 12, "  { product_id = 0x0106; }", "t.conf:12: ", { "set 2: functions is missing" } },
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x10106; }", "t.conf:12: ",
	  { "set 2: product_id", "0x10106 out of range" } },
	/* Several configurations: configs = ( { functions = [ ... ]; }, ... ). */
	{ 12, "  { configs = ( { functions = [ \"acm\" ]; } ); functions = [ \"adb\" ]; product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2", "functions and configs" } },
	{ 12, "  { configs = ( ); product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2: configs", "at least one configuration" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; }, { functions = [ \"acm\", \"adb\" ]; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2", "\"adb\" is in configurations 1 and 2", "FunctionFS" } },
	{ 12, "  { configs = ( { functions = [ \"mtpp\" ]; } ); product_id = 0x0106; }", "t.conf:12: ",
	  { "function \"mtpp\" in set 2: configuration 1 is not in the functions catalogue" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; }, { name = \"x\"; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 2: functions is missing" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; nme = \"x\"; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 1", "unknown setting \"nme\"" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; name = 5; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 1: name", "expected string" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; name = \"a\\tb\"; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 1: name", "printable ASCII" } },
	{ 12, "  { configs = ( { functions = [ ]; } ); product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2: configuration 1", "a configuration needs at least one function" } },
	{ 12, "  { configs = ( { functions = [ \"acm\" ]; }, { functions = [ \"adb\", \"adb\" ]; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 2", "\"adb\" appears twice" } },
	{ 12, "  { configs = [ \"adb\" ]; product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2: configs", "expected list" } },
	{ 12, "  { configs = ( 5 ); product_id = 0x0106; }", "t.conf:12: ",
	  { "set 2: configuration 1", "expected {" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; }, { functions = [ \"acm\" ]; }, { functions = [ \"ecm\" ]; }, { functions = [ \"acm\" ]; }, { functions = [ \"ecm\" ]; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configs", "more than 4 configurations" } },
	/* The same functions as set 1, spread over two configurations: a
	 * request "acm,ecm" could not tell the two apart. */
	{ 12, "  { configs = ( { functions = [ \"ecm\" ]; }, { functions = [ \"acm\" ]; } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2", "the same functions as set 1" } },
	/* remote_wakeup: a boolean, on a set or a configuration. */
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x0106; remote_wakeup = 1; }",
	  "t.conf:12: ", { "set 2: remote_wakeup", "expected boolean" } },
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x0106; remote_wakeup = \"yes\"; }",
	  "t.conf:12: ", { "set 2: remote_wakeup", "expected boolean" } },
	{ 12, "  { configs = ( { functions = [ \"adb\" ]; remote_wakeup = ( ); } ); product_id = 0x0106; }",
	  "t.conf:12: ", { "set 2: configuration 1: remote_wakeup", "expected boolean" } },
	{ 12, "  { functions = [ \"adb\" ]; product_id = 0x0106; remote_wakup = true; }",
	  "t.conf:12: ", { "set 2", "unknown setting \"remote_wakup\"" } },
	{ 14, "default = \"acm,adb\";", "t.conf:14: ",
	  { "default", "\"acm,adb\" is not an allowed set", "allowed sets: acm,ecm; adb" } },
	{ 14, "default = \"mtp\";", "t.conf:14: ", { "default", "unknown function \"mtp\"" } },
	{ 14, "default = 1;", "t.conf:14: ", { "default", "expected a set" } },
	{ 2, "  vendor_id = 0x100001d6b; product_id = 0x0104;", "t.conf:2: ",
	  { "integer 0x100001d6b is too large" } },
	{ 2, "  vendor_id = 99999999999; product_id = 0x0104;", "t.conf:2: ",
	  { "integer 99999999999 is too large" } },
	{ 14, "@include \"/etc/hostname\"", "t.conf:14: ", { "@include", "not allowed" } },
	{ 14, "\"acm,ecm\";", "t.conf:14: ", { "syntax error", "a string where none can be" } },
	{ 12, "  { functions = [ \"adb\" ] \"x\"; product_id = 0x0106; }", "t.conf:12: ",
	  { "syntax error", "a string" } },
	{ 6, "  acm: { type = \"acm\"; }, \"x\";", "t.conf:6: ", { "syntax error", "a string" } },
	{ 10, "sets = 5; x = (", "t.conf:10: ", { "sets", "a list", "required" } },
	{ 11, "  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; ", "t.conf:12: ",
	  { "syntax error" } },
};
#define BAD_N (sizeof(bad_cases) / sizeof(bad_cases[0]))

static void test_bad_case(void **state)
{
	const struct bad_case *c = *state;
	struct profile *p = (struct profile *)1;
	char *text = base_with(c->line, c->text);
	int r = parse(text, &p);

	free(text);
	assert_int_equal(r, -EINVAL);
	assert_null(p);
	assert_message(c->loc, c->kw[0], c->kw[1], c->kw[2], c->kw[3], NULL);
}

/* ---- malformed cases that need more than one line ---- */

static void test_base_is_valid(void **state)
{
	struct profile *p;
	char *text = base_with(0, NULL);

	assert_int_equal(parse(text, &p), 0);
	assert_string_equal(err, "");
	assert_int_equal(p->n_sets, 2);
	assert_int_equal(p->default_set, 0);
	profile_free(p);
	free(text);
}

/* A set of two configurations: each keeps its functions and name, the set
 * has each function once (acm is in both), in the order first seen, and
 * is requested by them in any order. A set of functions alone is one
 * configuration. */
static void test_configurations(void **state)
{
	struct profile *p;
	char name[64];
	char *text = base_with(12, "  { configs = ( { functions = [ \"ecm\", \"acm\" ]; name = \"NCM and serial\"; },"
			       " { functions = [ \"adb\", \"acm\" ]; } ); product_id = 0x0106; }");
	const struct profile_set *s;

	assert_int_equal(parse(text, &p), 0);
	free(text);
	s = &p->sets[1];
	assert_int_equal(s->n_configs, 2);
	assert_int_equal(s->configs[0].n_functions, 2);
	assert_string_equal(p->functions[s->configs[0].functions[0]].name, "ecm");
	assert_string_equal(p->functions[s->configs[0].functions[1]].name, "acm");
	assert_string_equal(s->configs[0].name, "NCM and serial");
	assert_null(s->configs[1].name);
	assert_string_equal(p->functions[s->configs[1].functions[0]].name, "adb");
	assert_int_equal(s->n_functions, 3);
	profile_set_name(p, 1, name, sizeof(name));
	assert_string_equal(name, "ecm,acm,adb");
	profile_set_config_name(p, 1, 1, name, sizeof(name));
	assert_string_equal(name, "adb,acm");
	assert_int_equal(profile_set_find(p, "adb, ecm,acm", err, sizeof(err)), 1);
	assert_int_equal(profile_set_find(p, "adb,ecm", err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "allowed sets: acm,ecm; ecm,acm,adb"));
	/* Set 1, given as functions = [ ... ]: one configuration. */
	assert_int_equal(p->sets[0].n_configs, 1);
	assert_int_equal(p->sets[0].configs[0].n_functions, 2);
	assert_null(p->sets[0].configs[0].name);
	profile_set_config_name(p, 0, 0, name, sizeof(name));
	assert_string_equal(name, "acm,ecm");
	profile_free(p);
}

/* remote_wakeup: off by default; a set's value is its configurations'
 * default, which a configuration's own overrides. */
static void test_remote_wakeup(void **state)
{
	struct profile *p;
	char *text = base_with(12, "  { configs = ( { functions = [ \"ecm\" ]; },"
			       " { functions = [ \"adb\" ]; remote_wakeup = false; } );"
			       " product_id = 0x0106; remote_wakeup = true; }");

	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_false(p->sets[0].configs[0].remote_wakeup);
	assert_true(p->sets[1].configs[0].remote_wakeup);
	assert_false(p->sets[1].configs[1].remote_wakeup);
	profile_free(p);
	text = base_with(12, "  { functions = [ \"adb\" ]; product_id = 0x0106; remote_wakeup = true; }");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_true(p->sets[1].configs[0].remote_wakeup);
	profile_free(p);
}

/* A function whose own block is broken (no type), in two configurations
 * of a set: its own error, and no crash (found by fuzz_profile). */
static void test_broken_function_in_two_configurations(void **state)
{
	struct profile *p;
	char *text = base_with(8, "  adb: { typen = \"ffs\"; };");
	char *set = strstr(text, "  { functions = [ \"adb\" ]; product_id = 0x0106; }");
	char *full;

	assert_non_null(set);
	*set = '\0';
	assert_true(asprintf(&full, "%s  { configs = ( { functions = [ \"adb\" ]; },"
			     " { functions = [ \"adb\", \"acm\" ]; } ); product_id = 0x0106; }\n);\n",
			     text) > 0);
	assert_int_equal(parse(full, &p), -EINVAL);
	assert_null(p);
	assert_message("t.conf:8: ", "functions.adb.type is missing", NULL);
	free(full);
	free(text);
}

static void test_every_problem_is_reported(void **state)
{
	static const char text[] =
		"gadget: { vendor_id = 0x1ffff; product_id = 0x0104;\n"
		"  strings: { manufacturer = \"m\"; product = \"p\"; }; };\n"
		"functions: { adb: { type = \"ffz\"; }; };\n"
		"sets = ( { functions = [ \"adb\" ]; } );\n";
	struct profile *p;

	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:1: ", "gadget.vendor_id", "out of range", NULL);
	assert_message("t.conf:2: ", "gadget.strings.serial", "missing", NULL);
	assert_message("t.conf:3: ", "functions.adb", "unknown type \"ffz\"", NULL);
	assert_int_equal(count_messages(), 3);
}

/* Without "mtpp", set 2 would read [ "acm", "ecm" ] like set 1: only the
 * unknown function is reported. */
static void test_no_follow_on_errors(void **state)
{
	struct profile *p;
	char *text = base_with(12, "  { functions = [ \"mtpp\", \"acm\", \"ecm\" ]; product_id = 0x0106; }");

	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:12: ", "function \"mtpp\" in set 2", NULL);
	assert_int_equal(count_messages(), 1);
	free(text);
}

static void test_missing_groups(void **state)
{
	struct profile *p;

	assert_int_equal(parse("default = \"acm\";\n", &p), -EINVAL);
	assert_message("t.conf:1: ", "gadget", "required", NULL);
	assert_message("t.conf:1: ", "functions", "required", NULL);
	assert_message("t.conf:1: ", "sets", "required", NULL);
	assert_int_equal(parse("", &p), -EINVAL);
	assert_message("t.conf:1: ", "gadget", "required", NULL);
}

static void test_empty_catalogue_and_sets(void **state)
{
	static const char text[] =
		"gadget: { vendor_id = 1; product_id = 2;\n"
		"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		"functions: { };\n"
		"sets = ( );\n";
	struct profile *p;

	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:3: ", "functions", "empty", NULL);
	assert_message("t.conf:4: ", "sets", "at least one set", NULL);
}

static void test_sets_must_be_a_list(void **state)
{
	struct profile *p;
	char *text = strdup("gadget: { vendor_id = 1; product_id = 2;\n"
		      "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
		      "functions: { acm: { type = \"acm\"; }; };\n"
		      "sets: { a = 1; };\n");
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:4: ", "sets", "list", NULL);
	free(text);
}

static void test_string_too_long(void **state)
{
	char line[512], name[128];
	struct profile *p;
	char *text;

	memset(name, 'x', 127);
	name[127] = '\0';
	snprintf(line, sizeof(line), "  strings: { manufacturer = \"%s\"; product = \"p\"; serial = \"s\"; };", name);
	text = base_with(3, line);
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:3: ", "gadget.strings.manufacturer", "at most 126", NULL);
	free(text);
	name[126] = '\0'; /* 126 characters are fine */
	snprintf(line, sizeof(line), "  strings: { manufacturer = \"%s\"; product = \"p\"; serial = \"s\"; };", name);
	text = base_with(3, line);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(strlen(p->manufacturer), 126);
	profile_free(p);
	free(text);
}

/* A catalogue of n acm functions f0..f(n-1) and one set per function. */
static char *many(unsigned n_functions, unsigned n_sets, unsigned n_options)
{
	size_t size = 65536, len = 0;
	char *buf = malloc(size);
	unsigned i;

	assert_non_null(buf);
	len += snprintf(buf + len, size - len,
			"gadget: { vendor_id = 1; product_id = 2;\n"
			"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };\n"
			"functions: {\n");
	for (i = 0; i < n_functions; i++)
		len += snprintf(buf + len, size - len, "  f%u: { type = \"acm\"; };\n", i);
	len += snprintf(buf + len, size - len, "  g: { type = \"ffs\"; plugin = \"x\"; options: {");
	for (i = 0; i < n_options; i++)
		len += snprintf(buf + len, size - len, " o%u = %u;", i, i);
	len += snprintf(buf + len, size - len, " }; };\n};\nsets = (\n");
	for (i = 0; i < n_sets; i++)
		len += snprintf(buf + len, size - len, "  { functions = [ \"f%u\" ]; product_id = %u; }%s\n",
				i % n_functions, 100 + i, i + 1 < n_sets ? "," : "");
	snprintf(buf + len, size - len, ");\n");
	return buf;
}

static void test_limits(void **state)
{
	struct profile *p;
	char *text;

	text = many(15, 15, 32); /* 15 + g = 16 functions, 32 options: fine */
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p->n_functions, 16);
	assert_int_equal(p->functions[15].n_options, 32);
	assert_string_equal(profile_option(&p->functions[15], "o31"), "31");
	profile_free(p);
	free(text);

	text = many(16, 1, 0);
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:3: ", "functions", "more than 16", NULL);
	free(text);

	text = many(1, 1, 33);
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_message("t.conf:5: ", "functions.g", "more than 32 options", NULL);
	free(text);
}

static void test_too_many_sets(void **state)
{
	struct profile *p;
	char *text = many(15, 33, 0);

	/* 33 sets over 15 functions also repeat functions: the count is one
	 * of several messages. */
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_non_null(strstr(err, "sets: more than 32 sets"));
	free(text);
}

static void test_text_limit(void **state)
{
	size_t n = 70 * 1024;
	struct profile *p;
	char *text = malloc(n + 1);

	memset(text, '#', n);
	text[n] = '\0';
	assert_int_equal(parse(text, &p), -EFBIG);
	assert_message("t.conf:1: ", "larger than", NULL);
	free(text);
}

static void test_lint_leaves_valid_numbers(void **state)
{
	struct profile *p;
	/* names with digits, 64-bit literals, floats in comments and
	 * strings must not be taken for oversized integers */
	char *text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"ext\"; "
			       "options: { n2 = 5000000000L; s = \"99999999999\"; }; }; # 1.5e99 0x1ffffffff");

	assert_int_equal(parse(text, &p), 0);
	assert_string_equal(profile_option(&p->functions[2], "n2"), "5000000000");
	assert_string_equal(profile_option(&p->functions[2], "s"), "99999999999");
	profile_free(p);
	free(text);
}

/* ---- valid profiles ---- */

static const char full_profile[] =
	"gadget: {\n"
	"  vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0203;\n"
	"  bcd_usb = 0x0300; device_class = 0xef; device_subclass = 2;\n"
	"  device_protocol = 1; max_power = 900;\n"
	"  strings: { lang = 0x407; manufacturer = \"M\"; product = \"P\"; serial = \"S1\"; };\n"
	"  os_desc: { vendor_code = 0xcd; qw_sign = \"MSFT100\"; };\n"
	"};\n"
	"functions: {\n"
	"  acm: { type = \"acm\"; };\n"
	"  ecm: { type = \"ecm\"; dev_addr = \"02:00:00:00:00:01\"; host_addr = \"02:00:00:00:00:02\"; qmult = 5; };\n"
	"  ncm: { type = \"ncm\"; };\n"
	"  rndis: { type = \"rndis\"; };\n"
	"  disk: { type = \"mass_storage\"; file = \"/srv/disk.img\"; ro = true; removable = \"no\"; cdrom = \"on\"; };\n"
	"  kbd: { type = \"hid\"; protocol = 1; subclass = 1; report_length = 8; report_desc = \"05010906a101c0\"; };\n"
	"  adb: { type = \"ffs\"; plugin = \"adb\"; options: { auth = \"on\"; product = \"p\"; }; };\n"
	"};\n"
	"sets = (\n"
	"  { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },\n"
	"  { functions = [ \"adb\", \"disk\", \"kbd\" ]; vendor_id = 0x18d1; product_id = 0x2d01; product = \"Accessory\"; },\n"
	"  { functions = [ \"ncm\" ]; }\n"
	");\n"
	"default = \"disk, adb ,kbd\";\n";

static void test_full_round_trip(void **state)
{
	const struct profile_function *f;
	struct profile *p;

	assert_int_equal(profile_parse("/etc/gadgetd/profiles/full.conf", full_profile, &p,
				       err, sizeof(err)), 0);
	assert_string_equal(p->name, "full");
	assert_string_equal(p->path, "/etc/gadgetd/profiles/full.conf");
	assert_int_equal(p->vendor_id, 0x1d6b);
	assert_int_equal(p->product_id, 0x0104);
	assert_int_equal(p->bcd_device, 0x0203);
	assert_int_equal(p->bcd_usb, 0x0300);
	assert_int_equal(p->device_class, 0xef);
	assert_int_equal(p->device_subclass, 2);
	assert_int_equal(p->device_protocol, 1);
	assert_int_equal(p->max_power, 900);
	assert_int_equal(p->lang, 0x407);
	assert_string_equal(p->manufacturer, "M");
	assert_string_equal(p->product, "P");
	assert_string_equal(p->serial, "S1");
	assert_true(p->has_os_desc);
	assert_int_equal(p->os_vendor_code, 0xcd);
	assert_string_equal(p->os_qw_sign, "MSFT100");
	assert_int_equal(p->n_functions, 7);

	f = profile_function_find(p, "ecm");
	assert_non_null(f);
	assert_string_equal(profile_ftype_name(f->type), "ecm");
	assert_null(f->plugin);
	assert_string_equal(profile_option(f, "dev_addr"), "02:00:00:00:00:01");
	assert_string_equal(profile_option(f, "host_addr"), "02:00:00:00:00:02");
	assert_string_equal(profile_option(f, "qmult"), "5");

	f = profile_function_find(p, "disk");
	assert_string_equal(profile_ftype_name(f->type), "mass_storage");
	assert_string_equal(profile_option(f, "file"), "/srv/disk.img");
	assert_string_equal(profile_option(f, "ro"), "true");
	assert_string_equal(profile_option(f, "removable"), "false");
	assert_string_equal(profile_option(f, "cdrom"), "true");

	f = profile_function_find(p, "kbd");
	assert_string_equal(profile_ftype_name(f->type), "hid");
	assert_string_equal(profile_option(f, "report_desc"), "05010906a101c0");
	assert_string_equal(profile_option(f, "report_length"), "8");
	assert_string_equal(profile_option(f, "protocol"), "1");

	f = profile_function_find(p, "adb");
	assert_string_equal(profile_ftype_name(f->type), "ffs");
	assert_string_equal(f->plugin, "adb");
	assert_int_equal(f->n_options, 2);
	assert_string_equal(profile_option(f, "auth"), "true"); /* canonical */
	assert_string_equal(profile_option(f, "product"), "p");
	assert_null(profile_option(f, "nosuch"));
	assert_null(profile_function_find(p, "nosuch"));

	assert_int_equal(p->n_sets, 3);
	assert_int_equal(p->sets[0].vendor_id, 0x1d6b);
	assert_int_equal(p->sets[0].product_id, 0x0105);
	assert_null(p->sets[0].product);
	assert_int_equal(p->sets[1].vendor_id, 0x18d1);
	assert_int_equal(p->sets[1].product_id, 0x2d01);
	assert_string_equal(p->sets[1].product, "Accessory");
	assert_int_equal(p->sets[1].n_functions, 3);
	assert_string_equal(p->functions[p->sets[1].functions[0]].name, "adb");
	assert_string_equal(p->functions[p->sets[1].functions[2]].name, "kbd");
	/* a set without ids takes the gadget's */
	assert_int_equal(p->sets[2].vendor_id, 0x1d6b);
	assert_int_equal(p->sets[2].product_id, 0x0104);
	assert_int_equal(p->default_set, 1);
	profile_free(p);
}

static void test_defaults(void **state)
{
	struct profile *p;
	char *text = base_with(14, "# no default");

	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p->bcd_device, 0x0100);
	assert_int_equal(p->bcd_usb, 0x0200);
	assert_int_equal(p->max_power, 250);
	assert_int_equal(p->lang, 0x409);
	assert_false(p->has_os_desc);
	assert_int_equal(p->default_set, -1);
	assert_string_equal(p->name, "t");
	profile_free(p);
	free(text);
}

static void test_os_desc_default_sign(void **state)
{
	struct profile *p;
	char *text = base_with(3, "  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; "
			       "os_desc: { vendor_code = 0xcd; };");

	assert_int_equal(parse(text, &p), 0);
	assert_true(p->has_os_desc);
	assert_string_equal(p->os_qw_sign, "MSFT100");
	profile_free(p);
	free(text);
}

/* ---- set requests ---- */

static struct profile *base_profile(void)
{
	struct profile *p;
	char *text = base_with(0, NULL);

	assert_int_equal(parse(text, &p), 0);
	free(text);
	return p;
}

/* ask (profile.h): a boolean, and only with a default set; off unless
 * given. */
static void test_ask(void **state)
{
	struct profile *p = NULL;
	char *t = base_with(14, "default = \"acm,ecm\"; ask = true;");

	assert_int_equal(parse(t, &p), 0);
	assert_true(p->ask);
	profile_free(p);
	free(t);
	t = base_with(0, NULL);
	assert_int_equal(parse(t, &p), 0);
	assert_false(p->ask);
	profile_free(p);
	free(t);
	t = base_with(14, "ask = true;");
	assert_int_equal(parse(t, &p), -EINVAL);
	assert_null(p);
	assert_message("t.conf:14: ", "ask", "needs a default set", NULL);
	free(t);
	t = base_with(14, "default = \"acm,ecm\"; ask = \"yes\";");
	assert_int_equal(parse(t, &p), -EINVAL);
	assert_message("t.conf:14: ", "ask: expected true or false", NULL);
	free(t);
	t = base_with(14, "default = \"acm,ecm\"; ask = 1;");
	assert_int_equal(parse(t, &p), -EINVAL);
	assert_message("t.conf:14: ", "ask: expected true or false", NULL);
	free(t);
	/* ask = false needs nothing. */
	t = base_with(14, "ask = false;");
	assert_int_equal(parse(t, &p), 0);
	assert_false(p->ask);
	profile_free(p);
	free(t);
}

static void test_set_find(void **state)
{
	struct profile *p = base_profile();

	assert_int_equal(profile_set_find(p, "acm,ecm", err, sizeof(err)), 0);
	assert_int_equal(profile_set_find(p, "ecm,acm", err, sizeof(err)), 0);
	assert_int_equal(profile_set_find(p, "  ecm ,\tacm ", err, sizeof(err)), 0);
	assert_int_equal(profile_set_find(p, "adb", err, sizeof(err)), 1);
	profile_free(p);
}

static void test_set_find_unknown(void **state)
{
	struct profile *p = base_profile();

	assert_int_equal(profile_set_find(p, "acm,mtpp", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "unknown function \"mtpp\""));
	profile_free(p);
}

static void test_set_find_not_allowed(void **state)
{
	struct profile *p = base_profile();

	assert_int_equal(profile_set_find(p, "acm,adb", err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "\"acm,adb\" is not an allowed set"));
	assert_non_null(strstr(err, "allowed sets: acm,ecm; adb"));
	/* a function named twice is no allowed set either */
	assert_int_equal(profile_set_find(p, "acm,acm,ecm", err, sizeof(err)), -EPERM);
	assert_int_equal(profile_set_find(p, "acm", err, sizeof(err)), -EPERM);
	profile_free(p);
}

static void test_set_find_empty(void **state)
{
	struct profile *p = base_profile();
	char longreq[600];

	assert_int_equal(profile_set_find(p, "", err, sizeof(err)), -EINVAL);
	assert_int_equal(profile_set_find(p, " , ,", err, sizeof(err)), -EINVAL);
	assert_int_equal(profile_set_find(p, NULL, err, sizeof(err)), -EINVAL);
	/* a request the parser would have to cut is refused, not truncated
	 * into "acm,ecm" */
	memset(longreq, ' ', sizeof(longreq));
	memcpy(longreq, "acm,ecm", 7);
	memcpy(longreq + sizeof(longreq) - 5, ",adb", 5);
	assert_int_equal(profile_set_find(p, longreq, err, sizeof(err)), -EINVAL);
	profile_free(p);
}

static void test_set_find_small_buffer(void **state)
{
	struct profile *p = base_profile();
	char small[16];

	memset(small, 'x', sizeof(small));
	assert_int_equal(profile_set_find(p, "acm,adb", small, sizeof(small)), -EPERM);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	profile_free(p);
}

/* The allowed-sets message at every buffer size: each is a cut of the
 * full message, ends inside its buffer, and (under ASan) reads nothing
 * past it; a heap buffer of exactly that size makes any overrun show. */
static void test_set_find_every_size(void **state)
{
	static const char *const lines[] = {
		"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;",
		"  strings: { manufacturer = \"m\"; product = \"p\"; serial = \"s\"; }; };",
		"functions: {",
		"  serial_console: { type = \"acm\"; };",
		"  usb_network: { type = \"ecm\"; };",
		"  debug_bridge: { type = \"ffs\"; plugin = \"adb\"; };",
		"};",
		"sets = (",
		"  { functions = [ \"serial_console\", \"usb_network\" ]; product_id = 0x0105; },",
		"  { functions = [ \"serial_console\" ]; product_id = 0x0106; },",
		"  { functions = [ \"usb_network\" ]; product_id = 0x0107; },",
		"  { functions = [ \"usb_network\", \"debug_bridge\" ]; product_id = 0x0108; },",
		"  { functions = [ \"debug_bridge\" ]; product_id = 0x0109; }",
		");",
		"default = \"serial_console\";",
	};
	const char *req = "serial_console,debug_bridge";
	char text[1024], full[512];
	struct profile *p;
	size_t i, n = 0, size, len;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		n += snprintf(text + n, sizeof(text) - n, "%s\n", lines[i]);
	if (parse(text, &p) < 0)
		fail_msg("%s", err);
	assert_int_equal(profile_set_find(p, req, full, sizeof(full)), -EPERM);
	assert_non_null(strstr(full, "allowed sets: serial_console,usb_network; serial_console; "
				     "usb_network; usb_network,debug_bridge; debug_bridge"));
	len = strlen(full);
	assert_true(len > 150 && len < 200);
	for (size = 1; size <= 220; size++) {
		char *buf = malloc(size);

		assert_non_null(buf);
		memset(buf, 'x', size);
		assert_int_equal(profile_set_find(p, req, buf, size), -EPERM);
		assert_int_equal(strlen(buf), size - 1 < len ? size - 1 : len);
		assert_memory_equal(buf, full, strlen(buf));
		free(buf);
	}
	profile_free(p);
}

static void test_set_name(void **state)
{
	struct profile *p = base_profile();
	char buf[64], small[5];

	profile_set_name(p, 0, buf, sizeof(buf));
	assert_string_equal(buf, "acm,ecm");
	profile_set_name(p, 1, buf, sizeof(buf));
	assert_string_equal(buf, "adb");
	profile_set_name(p, 0, small, sizeof(small));
	assert_string_equal(small, "acm,");
	profile_free(p);
}

/* Every boolean word reads the same; integers come out in decimal; a
 * plugin gadgetd does not know keeps its options as given. */
static void test_plugin_option_values(void **state)
{
	static const char *const words[][2] = {
		{ "true", "true" }, { "yes", "true" }, { "on", "true" }, { "1", "true" },
		{ "false", "false" }, { "no", "false" }, { "off", "false" }, { "0", "false" },
	};
	const struct profile_function *f;
	struct profile *p;
	char line[256], *text;
	unsigned i;

	for (i = 0; i < sizeof(words) / sizeof(*words); i++) {
		snprintf(line, sizeof(line), "  adb: { type = \"ffs\"; plugin = \"adb\"; options: { auth = \"%s\"; }; };",
			 words[i][0]);
		text = base_with(8, line);
		if (parse(text, &p) < 0)
			fail_msg("%s: %s", words[i][0], err);
		assert_string_equal(profile_option(profile_function_find(p, "adb"), "auth"), words[i][1]);
		profile_free(p);
		free(text);
	}
	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"accessory\"; options: { mode = \"data\"; "
			 "with_adb = false; claim_timeout_ms = 0x10; disconnect_timeout_ms = \"20\"; }; };");
	assert_int_equal(parse(text, &p), 0);
	f = profile_function_find(p, "adb");
	assert_string_equal(profile_option(f, "with_adb"), "false");
	assert_string_equal(profile_option(f, "claim_timeout_ms"), "16");
	assert_string_equal(profile_option(f, "disconnect_timeout_ms"), "20");
	profile_free(p);
	free(text);
	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"ext\"; options: { anything = 0x10; b = true; }; };");
	assert_int_equal(parse(text, &p), 0);
	f = profile_function_find(p, "adb");
	assert_string_equal(profile_option(f, "anything"), "16");
	assert_string_equal(profile_option(f, "b"), "true");
	profile_free(p);
	free(text);
}

/* What a profile leaves out comes from the type's declaration. */
static void test_ktype_defaults(void **state)
{
	const struct profile_function *f;
	struct profile *p;
	char *text = base_with(7, "  ecm: { type = \"hid\"; report_desc = \"05010906a101c0\"; protocol = \"0x2\"; };");

	assert_int_equal(parse(text, &p), 0);
	f = profile_function_find(p, "ecm");
	assert_string_equal(profile_option(f, "protocol"), "2");
	assert_null(profile_option(f, "report_length"));
	assert_string_equal(ktype_attr(f, "report_length"), "8");
	assert_string_equal(ktype_attr(f, "subclass"), "0");
	assert_null(ktype_attr(f, "nosuch"));
	profile_free(p);
	free(text);
}

/* The one hex parser: report_desc is checked and decoded with it. */
static void test_hex(void **state)
{
	unsigned char b[3];

	assert_int_equal(optdesc_hex("0aFf", b, sizeof(b)), 2);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(optdesc_hex("", b, sizeof(b)), 0);
	assert_int_equal(optdesc_hex("0a0", b, sizeof(b)), -EINVAL);
	assert_int_equal(optdesc_hex("0g", b, sizeof(b)), -EINVAL);
	assert_int_equal(optdesc_hex("01020304", b, sizeof(b)), -EINVAL);
	assert_int_equal(optdesc_hex("010203", NULL, 3), 3);
}

static void test_ftype_name(void **state)
{
	assert_string_equal(profile_ftype_name(ktype_find("acm")), "acm");
	assert_string_equal(profile_ftype_name(ktype_find("mass_storage")), "mass_storage");
	assert_string_equal(profile_ftype_name(ktype_ffs()), "ffs");
	assert_true(ktype_ffs()->ffs);
	assert_null(ktype_find("ffz"));
}

/* ---- files ---- */

static void test_load_missing_file(void **state)
{
	struct profile *p = (struct profile *)1;

	assert_int_equal(profile_load("/nonexistent/x.conf", &p, err, sizeof(err)), -ENOENT);
	assert_null(p);
	assert_non_null(strstr(err, "/nonexistent/x.conf: No such file"));
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/test_profile_XXXXXX";
	char *text = base_with(2, "  vendor_id = 0x1d6b; product_id = 0x1ffff;");
	struct profile *p;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(profile_load(path, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, ":2: gadget.product_id: 0x1ffff out of range"));
	/* a NUL byte would make libconfig stop reading early */
	assert_int_equal(write(fd, "\0x", 2), 2);
	assert_int_equal(profile_load(path, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NUL"));
	close(fd);
	unlink(path);
	free(text);
}

/* Every profile in dir must load; count them. Those installed into /etc
 * (installed) must not turn adb authentication off. */
static unsigned shipped_profiles_in(const char *dir, bool installed)
{
	DIR *d = opendir(dir);
	const struct profile_function *f;
	char path[512];
	struct dirent *de;
	struct profile *p;
	const char *auth;
	unsigned n = 0, i;

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".conf") ||
		    !strcmp(de->d_name, "gadgetd.conf"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (profile_load(path, &p, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		assert_true(p->default_set >= 0);
		for (i = 0; installed && i < p->n_functions; i++) {
			f = &p->functions[i];
			auth = f->plugin && !strcmp(f->plugin, "adb") ? profile_option(f, "auth") : NULL;
			if (auth && strcmp(auth, "true"))
				fail_msg("%s: adb auth = \"%s\" would be installed into /etc", path, auth);
			/* An allowed host must not be root (issue 21). */
			if (f->plugin && !strcmp(f->plugin, "adb") &&
			    ((f->user && !strcmp(f->user, "root")) || f->caps ||
			     f->root_allowed))
				fail_msg("%s: adb as root, with capabilities or with adb root allowed would be installed into /etc", path);
		}
		profile_free(p);
		n++;
	}
	closedir(d);
	return n;
}

/* The daemon and gadgetd -n read what ships; examples are documentation. */
static void test_shipped_profiles(void **state)
{
	assert_true(shipped_profiles_in(PROFILES_DIR, true) >= 1);
	assert_true(shipped_profiles_in(EXAMPLES_DIR, false) >= 1);
}

static void test_android_profile(void **state)
{
	struct profile *p;
	char name[64];
	int i;

	if (profile_load(PROFILES_DIR "/android.conf", &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(p->vendor_id, 0x1d6b);
	assert_string_equal(p->serial, "GADGETD0001");
	assert_int_equal(p->max_power, 250);
	assert_int_equal(p->os_vendor_code, 0xcd);
	profile_set_name(p, p->default_set, name, sizeof(name));
	assert_string_equal(name, "acm,ecm");
	i = profile_set_find(p, "accessory", err, sizeof(err));
	assert_true(i >= 0);
	assert_int_equal(p->sets[i].vendor_id, 0x18d1);
	assert_int_equal(p->sets[i].product_id, 0x2d00);
	i = profile_set_find(p, "adb,accessory", err, sizeof(err));
	assert_true(i >= 0);
	assert_int_equal(p->sets[i].product_id, 0x2d01);
	assert_string_equal(profile_option(profile_function_find(p, "adb"), "auth"), "true");
	assert_true(profile_set_find(p, "mtp,adb", err, sizeof(err)) >= 0);
	/* The camera sets, each with its own product id. */
	i = profile_set_find(p, "ptp", err, sizeof(err));
	assert_true(i >= 0);
	assert_int_equal(p->sets[i].product_id, 0x010f);
	i = profile_set_find(p, "ptp,adb", err, sizeof(err));
	assert_true(i >= 0);
	assert_int_equal(p->sets[i].product_id, 0x0112);
	assert_string_equal(profile_function_find(p, "ptp")->user, "gadgetd-mtp");
	assert_true(profile_set_find(p, "rndis,adb", err, sizeof(err)) >= 0);
	profile_free(p);
	/* The example devboard.conf: RNDIS in c.1 for Windows, NCM in c.2,
	 * which Linux takes. */
	if (profile_load(EXAMPLES_DIR "/devboard.conf", &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	i = profile_set_find(p, "ncm,rndis", err, sizeof(err));
	assert_true(i >= 0);
	assert_int_equal(p->sets[i].n_configs, 2);
	profile_set_config_name(p, i, 0, name, sizeof(name));
	assert_string_equal(name, "rndis");
	profile_set_config_name(p, i, 1, name, sizeof(name));
	assert_string_equal(name, "ncm");
	profile_free(p);
}

/* user, group and capabilities: defaults by plugin, explicit values. */
static void test_worker_ids(void **state)
{
	char *text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; "
				  "group = \"_x-1\"; capabilities = [ \"CAP_NET_RAW\", \"sys_boot\", \"CAP_CHOWN\" ]; };");
	const struct profile_function *f;
	struct profile *p;

	assert_int_equal(parse(text, &p), 0);
	f = profile_function_find(p, "adb");
	assert_string_equal(f->user, "root");
	assert_false(f->user_default);
	assert_int_equal(f->user_line, 8);
	assert_string_equal(f->group, "_x-1");
	assert_int_equal(f->caps, (1ULL << 13) | (1ULL << 22) | (1ULL << 0));
	profile_free(p);
	free(text);

	text = base_with(0, NULL);
	assert_int_equal(parse(text, &p), 0);
	free(text);
	f = profile_function_find(p, "adb");
	assert_string_equal(f->user, "gadgetd-adb");
	assert_true(f->user_default);
	assert_null(f->group);
	assert_int_equal(f->caps, 0);
	assert_false(f->root_allowed);
	assert_null(profile_function_find(p, "acm")->user);
	profile_free(p);

	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; root = \"allowed\"; };");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_true(profile_function_find(p, "adb")->root_allowed);
	profile_free(p);
	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; root = \"refused\"; };");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_false(profile_function_find(p, "adb")->root_allowed);
	profile_free(p);
}

/* The shipped profile's adb is its unprivileged user; the development
 * board example lets adb root restart it as root. */
static void test_adb_root_profiles(void **state)
{
	const struct profile_function *f;
	struct profile *p;

	if (profile_load(PROFILES_DIR "/android.conf", &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	f = profile_function_find(p, "adb");
	assert_string_equal(f->user, "gadgetd-adb");
	assert_true(f->user_default);
	assert_int_equal(f->caps, 0);
	assert_false(f->root_allowed);
	profile_free(p);
	if (profile_load(EXAMPLES_DIR "/devboard.conf", &p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	f = profile_function_find(p, "adb");
	assert_string_equal(f->user, "gadgetd-adb");
	assert_true(f->root_allowed);
	assert_string_equal(profile_option(f, "auth"), "true");
	profile_free(p);
}

static void test_default_users(void **state)
{
	assert_string_equal(profile_default_user("adb"), "gadgetd-adb");
	assert_string_equal(profile_default_user("mtp"), "gadgetd-mtp");
	assert_string_equal(profile_default_user("accessory"), "gadgetd-aoa");
	assert_string_equal(profile_default_user("echo"), "gadgetd-worker");
	assert_int_equal(profile_ids_cap("CAP_CHOWN"), 0);
	assert_int_equal(profile_ids_cap("cap_checkpoint_restore"), 40);
	assert_int_equal(profile_ids_cap("net_admin"), 12);
	assert_int_equal(profile_ids_cap("CAP_"), -1);
	assert_int_equal(profile_ids_cap(""), -1);
	assert_int_equal(profile_ids_cap("CAP_CHOWNX"), -1);
}

/* Names are resolved on this system: root exists everywhere, the
 * others are chosen not to. */
static void test_resolve_ids(void **state)
{
	char *text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; group = \"root\"; };");
	struct profile *p;

	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_int_equal(profile_ids_resolve(p, err, sizeof(err)), 0);
	assert_int_equal(profile_function_find(p, "adb")->uid, 0);
	assert_int_equal(profile_function_find(p, "adb")->gid, 0);
	assert_string_equal(err, "");
	profile_free(p);

	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"nosuchuser_gd9\"; group = \"nosuchgroup_gd9\"; };");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_int_equal(profile_ids_resolve(p, err, sizeof(err)), -ENOENT);
	assert_message("t.conf:8: ", "functions.adb.user", "no user \"nosuchuser_gd9\"", NULL);
	profile_free(p);

	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"adb\"; user = \"root\"; group = \"nosuchgroup_gd9\"; };");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	assert_int_equal(profile_ids_resolve(p, err, sizeof(err)), -ENOENT);
	assert_message("t.conf:8: ", "functions.adb.group", "no group \"nosuchgroup_gd9\"", NULL);
	profile_free(p);

	/* A default that is missing says where it came from. */
	text = base_with(8, "  adb: { type = \"ffs\"; plugin = \"nosuchplugin_gd9\"; };");
	assert_int_equal(parse(text, &p), 0);
	free(text);
	free(p->functions[2].user);
	p->functions[2].user = strdup("nosuchuser_gd9");
	assert_int_equal(profile_ids_resolve(p, err, sizeof(err)), -ENOENT);
	assert_message("t.conf:8: ", "functions.adb", "no user \"nosuchuser_gd9\"",
		       "default for plugin nosuchplugin_gd9", "make install", NULL);
	profile_free(p);
}

int main(void)
{
	struct CMUnitTest tests[BAD_N + 40];
	static char names[BAD_N][48];
	size_t n = 0, i;

	for (i = 0; i < BAD_N; i++) {
		snprintf(names[i], sizeof(names[i]), "bad case %zu (line %u)", i + 1,
			 bad_cases[i].line);
		tests[n++] = (struct CMUnitTest){ .name = names[i],
			.test_func = test_bad_case,
			.initial_state = (void *)&bad_cases[i] };
	}
#define T(f) tests[n++] = (struct CMUnitTest)cmocka_unit_test(f)
	T(test_base_is_valid);
	T(test_configurations);
	T(test_remote_wakeup);
	T(test_broken_function_in_two_configurations);
	T(test_every_problem_is_reported);
	T(test_no_follow_on_errors);
	T(test_missing_groups);
	T(test_empty_catalogue_and_sets);
	T(test_sets_must_be_a_list);
	T(test_string_too_long);
	T(test_limits);
	T(test_too_many_sets);
	T(test_text_limit);
	T(test_lint_leaves_valid_numbers);
	T(test_full_round_trip);
	T(test_defaults);
	T(test_os_desc_default_sign);
	T(test_ask);
	T(test_set_find);
	T(test_set_find_unknown);
	T(test_ktype_defaults);
	T(test_hex);
	T(test_plugin_option_values);
	T(test_set_find_not_allowed);
	T(test_set_find_empty);
	T(test_set_find_small_buffer);
	T(test_set_find_every_size);
	T(test_set_name);
	T(test_ftype_name);
	T(test_load_missing_file);
	T(test_load_file);
	T(test_shipped_profiles);
	T(test_android_profile);
	T(test_worker_ids);
	T(test_default_users);
	T(test_adb_root_profiles);
	T(test_resolve_ids);
#undef T
	return _cmocka_run_group_tests("profile", tests, n, NULL, NULL);
}
