/* gadgetd/gadget/composer.c with the real libusbgx on a faked ConfigFS
 * (fake_configfs.c): what a profile's set becomes in the tree, binding
 * and unbinding, and that a step that fails leaves nothing half made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "composer.h"
#include "fake_configfs.h"
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* libusbgx 0.2.0 itself loses a few bytes (strndup()s inside the
 * library, 2 bytes each, not ours to free); the leak check stays on for
 * everything else. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libusbgx.so\n";
}

static const char profile_text[] =
	"gadget: { vendor_id = 0x1d6b; product_id = 0x0104;\n"
	"  strings: { manufacturer = \"gadgetd\"; product = \"composer test\"; serial = \"CMP1\"; };\n"
	"  os_desc: { vendor_code = 0xcd; }; };\n"
	"functions: {\n"
	"  acm: { type = \"acm\"; };\n"
	"  ecm: { type = \"ecm\"; dev_addr = \"02:11:22:33:44:55\"; host_addr = \"02:11:22:33:44:66\"; };\n"
	"  disk: { type = \"mass_storage\"; file = \"/tmp/disk.img\"; ro = true; };\n"
	"  cd: { type = \"mass_storage\"; removable = true; stall = false;\n"
	"        lun1_file = \"/tmp/cd.iso\"; lun1_cdrom = true; lun1_removable = true;\n"
	"        inquiry_string = \"gadgetd Virtual Media 0100\"; };\n"
	"  kbd: { type = \"hid\"; report_desc = \"05010906a101\"; };\n"
	"  ncm: { type = \"ncm\"; ifname = \"gd%d\"; address = \"10.77.0.1/24\"; };\n"
	"  rndis: { type = \"rndis\"; };\n"
	"};\n"
	"sets = ( { functions = [ \"acm\", \"ecm\" ]; product_id = 0x0105; },\n"
	"         { functions = [ \"acm\", \"disk\" ]; product_id = 0x0106; },\n"
	"         { functions = [ \"acm\", \"kbd\" ]; product_id = 0x0107; },\n"
	"         { configs = ( { functions = [ \"ncm\", \"acm\" ]; name = \"NCM\";\n"
	"                         remote_wakeup = true; },\n"
	"                       { functions = [ \"rndis\", \"acm\" ]; } );\n"
	"           product_id = 0x0108; },\n"
	"         { functions = [ \"acm\", \"cd\" ]; product_id = 0x0109; } );\n";

struct fixture {
	struct profile *p;
	struct composer *c;
	char g[256]; /* the gadget's folder */
};

static const struct profile_function *fn(struct fixture *f, const char *name)
{
	unsigned i;

	for (i = 0; i < f->p->n_functions; i++)
		if (!strcmp(f->p->functions[i].name, name))
			return &f->p->functions[i];
	fail_msg("no function %s in the test profile", name);
	return NULL;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(fake_configfs_new());
	fake_configfs_add_udc("dummy_udc.0");
	if (profile_parse("composer.conf", profile_text, &f->p, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	assert_int_equal(composer_new("gadgetd", &f->c), 0);
	snprintf(f->g, sizeof(f->g), "%s/gadgetd", fake_configfs_gadgets());
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	composer_free(f->c);
	profile_free(f->p);
	fake_configfs_free();
	free(f);
	return 0;
}

/* The first line of the gadget's file rel ("" when absent). */
static const char *attr(struct fixture *f, const char *rel)
{
	static char buf[256];
	char path[512];
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", f->g, rel);
	fp = fopen(path, "re");
	if (!fp)
		return buf;
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static bool exists(struct fixture *f, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", f->g, rel);
	return lstat(path, &st) == 0;
}

/* How many entries (not . and ..) the gadget's folder rel holds. */
static int count(struct fixture *f, const char *rel)
{
	char path[512];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", f->g, rel);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Set 0 (acm, ecm): the identity, both functions linked, bound. */
static void apply_set0(struct fixture *f)
{
	assert_int_equal(composer_identity(f->c, f->p, 0), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "acm")), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "ecm")), 0);
	assert_int_equal(composer_link(f->c, 0, "acm"), 0);
	assert_int_equal(composer_link(f->c, 0, "ecm"), 0);
	assert_int_equal(composer_bind(f->c, "dummy_udc.0"), 0);
}

static void test_identity_and_bind(void **state)
{
	struct fixture *f = *state;

	assert_null(composer_bound_udc(f->c));
	apply_set0(f);
	assert_int_equal(strtol(attr(f, "idVendor"), NULL, 16), 0x1d6b);
	assert_int_equal(strtol(attr(f, "idProduct"), NULL, 16), 0x0105);
	assert_string_equal(attr(f, "strings/0x409/manufacturer"), "gadgetd");
	assert_string_equal(attr(f, "strings/0x409/serialnumber"), "CMP1");
	assert_string_equal(attr(f, "configs/c.1/strings/0x409/configuration"), "gadgetd");
	/* The MS OS descriptors, with c.1 linked for them. */
	assert_string_equal(attr(f, "os_desc/use"), "1");
	assert_int_equal(strtol(attr(f, "os_desc/b_vendor_code"), NULL, 16), 0xcd);
	assert_true(exists(f, "os_desc/c.1"));
	/* Both functions, linked in c.1, with ecm's addresses. */
	assert_true(exists(f, "functions/acm.acm"));
	assert_true(exists(f, "configs/c.1/acm"));
	assert_true(exists(f, "configs/c.1/ecm"));
	assert_string_equal(attr(f, "functions/ecm.ecm/dev_addr"), "02:11:22:33:44:55");
	assert_string_equal(attr(f, "functions/ecm.ecm/host_addr"), "02:11:22:33:44:66");
	assert_string_equal(attr(f, "UDC"), "dummy_udc.0");
	assert_string_equal(composer_bound_udc(f->c), "dummy_udc.0");
}

static void test_unbind_and_switch(void **state)
{
	struct fixture *f = *state;

	apply_set0(f);
	assert_int_equal(composer_unbind(f->c), 0);
	assert_null(composer_bound_udc(f->c));
	/* Unbinding an unbound gadget is no error. */
	assert_int_equal(composer_unbind(f->c), 0);
	/* To set 1: links go, ecm goes, disk comes; the rest is kept. */
	assert_int_equal(composer_unlink_all(f->c), 0);
	assert_int_equal(count(f, "configs/c.1") - (exists(f, "configs/c.1/strings") +
						    exists(f, "configs/c.1/MaxPower") +
						    exists(f, "configs/c.1/bmAttributes")), 0);
	assert_int_equal(composer_remove_function(f->c, "ecm"), 0);
	assert_false(exists(f, "functions/ecm.ecm"));
	/* Removing what is not there is no error either. */
	assert_int_equal(composer_remove_function(f->c, "ecm"), 0);
	assert_int_equal(composer_identity(f->c, f->p, 2), 0);
	assert_int_equal(strtol(attr(f, "idProduct"), NULL, 16), 0x0107);
	assert_int_equal(composer_add_function(f->c, fn(f, "kbd")), 0);
	assert_int_equal(composer_link(f->c, 0, "acm"), 0);
	assert_int_equal(composer_link(f->c, 0, "kbd"), 0);
	assert_int_equal(composer_bind(f->c, "dummy_udc.0"), 0);
	assert_true(exists(f, "configs/c.1/kbd"));
	assert_false(exists(f, "configs/c.1/ecm"));
	assert_int_equal(count(f, "functions"), 2);
}

/*
 * mass_storage's LUN. composer_ms_attrs() once gave libusbgx a LUN array
 * without its NULL terminator, and libusbgx read past it and crashed: the
 * check runs in a child so that such a crash fails this test alone.
 */
static void test_mass_storage_lun(void **state)
{
	struct fixture *f = *state;
	int st;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* A crash ends the child (cmocka would catch it and go on). */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		if (composer_identity(f->c, f->p, 1) < 0 ||
		    composer_add_function(f->c, fn(f, "disk")) < 0)
			_exit(1);
		if (strcmp(attr(f, "functions/mass_storage.disk/lun.0/file"), "/tmp/disk.img") ||
		    strcmp(attr(f, "functions/mass_storage.disk/lun.0/ro"), "1"))
			_exit(2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st)) {
		fail_msg("composer_add_function(mass_storage) killed by signal %d "
			 "(is composer_ms_attrs' LUN array NULL-terminated?)", WTERMSIG(st));
	}
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 2)
		fail_msg("lun.0: file \"%s\", ro \"%s\"",
			 attr(f, "functions/mass_storage.disk/lun.0/file"),
			 attr(f, "functions/mass_storage.disk/lun.0/ro"));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Several LUNs from lunN_ keys, an empty removable LUN 0, stall and the
 * inquiry string libusbgx does not know (ktype's apply_dir). */
static void test_mass_storage_luns(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(composer_identity(f->c, f->p, 4), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "cd")), 0);
	assert_string_equal(attr(f, "functions/mass_storage.cd/stall"), "0");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.0/file"), "");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.0/removable"), "1");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.0/cdrom"), "0");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.1/file"), "/tmp/cd.iso");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.1/cdrom"), "1");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.0/inquiry_string"),
			    "gadgetd Virtual Media 0100");
	assert_string_equal(attr(f, "functions/mass_storage.cd/lun.1/inquiry_string"),
			    "gadgetd Virtual Media 0100");
	assert_false(exists(f, "functions/mass_storage.cd/lun.2"));
}

/* A function whose attributes the kernel refuses is not left behind. */
static void test_failed_function_leaves_nothing(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(composer_identity(f->c, f->p, 2), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "acm")), 0);
	fake_configfs_refuse("hid", "report_desc");
	assert_true(composer_add_function(f->c, fn(f, "kbd")) < 0);
	assert_false(exists(f, "functions/hid.kbd"));
	assert_int_equal(count(f, "functions"), 1);
	/* And it cannot be linked. */
	assert_int_equal(composer_link(f->c, 0, "kbd"), -ENOENT);
	/* A second try of a function that exists fails, changes nothing. */
	assert_true(composer_add_function(f->c, fn(f, "acm")) < 0);
	assert_int_equal(count(f, "functions"), 1);
}

/* ifname goes to ConfigFS as the kernel takes it (a pattern); the name
 * is read back once the kernel gave one. */
static void test_net_ifname(void **state)
{
	struct fixture *f = *state;
	char name[16], path[512];
	FILE *fp;

	assert_int_equal(composer_identity(f->c, f->p, 3), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "ncm")), 0);
	assert_string_equal(attr(f, "functions/ncm.ncm/ifname"), "gd%d");
	assert_int_equal(composer_net_ifname(f->c, "ncm", name, sizeof(name)), -EAGAIN);
	snprintf(path, sizeof(path), "%s/functions/ncm.ncm/ifname", f->g);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("gd0\n", fp);
	fclose(fp);
	assert_int_equal(composer_net_ifname(f->c, "ncm", name, sizeof(name)), 0);
	assert_string_equal(name, "gd0");
	assert_int_equal(composer_net_ifname(f->c, "gone", name, sizeof(name)), -ENOENT);
	/* A kernel that refuses the name: the function is not left behind. */
	assert_int_equal(composer_remove_function(f->c, "ncm"), 0);
	fake_configfs_refuse("ncm", "ifname");
	assert_true(composer_add_function(f->c, fn(f, "ncm")) < 0);
	assert_false(exists(f, "functions/ncm.ncm"));
}

static void test_bind_needs_a_udc(void **state)
{
	struct fixture *f = *state;

	/* No gadget yet. */
	assert_int_equal(composer_bind(f->c, "dummy_udc.0"), -ENOENT);
	assert_int_equal(composer_identity(f->c, f->p, 0), 0);
	assert_int_equal(composer_bind(f->c, "fe980000.usb"), -ENODEV);
	assert_null(composer_bound_udc(f->c));
	/* A UDC that appears after composer_new() is found. */
	fake_configfs_add_udc("fe980000.usb");
	assert_int_equal(composer_bind(f->c, "fe980000.usb"), 0);
	assert_string_equal(composer_bound_udc(f->c), "fe980000.usb");
}

static void test_destroy_leaves_nothing(void **state)
{
	struct fixture *f = *state;
	struct composer *c2;

	apply_set0(f);
	assert_int_equal(composer_destroy(f->c), 0);
	assert_false(exists(f, ""));
	assert_null(composer_bound_udc(f->c));
	/* Absent is fine, twice. */
	assert_int_equal(composer_destroy(f->c), 0);
	/* And a new composer finds nothing to take over. */
	assert_int_equal(composer_new("gadgetd", &c2), 0);
	assert_int_equal(composer_destroy(c2), 0);
	composer_free(c2);
}

/* gadgetd restarted: a new composer takes over the tree left live. */
static void test_takes_over_a_live_gadget(void **state)
{
	struct fixture *f = *state;
	struct composer *c2;

	apply_set0(f);
	assert_int_equal(composer_new("gadgetd", &c2), 0);
	assert_string_equal(composer_bound_udc(c2), "dummy_udc.0");
	assert_int_equal(composer_unbind(c2), 0);
	assert_int_equal(composer_destroy(c2), 0);
	assert_false(exists(f, ""));
	composer_free(c2);
}

/* Windows binds NCM only through the MS OS compat ID WINNCM; RNDIS keeps
 * its own. */
static void test_ncm_and_rndis_compat_ids(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(composer_identity(f->c, f->p, 3), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "ncm")), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "rndis")), 0);
	assert_string_equal(attr(f, "functions/ncm.ncm/os_desc/interface.ncm/compatible_id"),
			    "WINNCM");
	assert_string_equal(attr(f, "functions/ncm.ncm/os_desc/interface.ncm/sub_compatible_id"),
			    "");
	assert_string_equal(attr(f, "functions/rndis.rndis/os_desc/interface.rndis/compatible_id"),
			    "RNDIS");
	assert_string_equal(attr(f, "functions/rndis.rndis/os_desc/interface.rndis/sub_compatible_id"),
			    "5162001");
}

/* Set 3: NCM (and acm) in c.1, RNDIS (and the same acm) in c.2; the OS
 * descriptors link c.1. Then back to a set of one configuration: c.2
 * goes, c.1 has its old string again. */
static void test_two_configurations(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(composer_identity(f->c, f->p, 3), 0);
	assert_true(exists(f, "configs/c.1"));
	assert_true(exists(f, "configs/c.2"));
	assert_false(exists(f, "configs/c.3"));
	assert_string_equal(attr(f, "configs/c.1/strings/0x409/configuration"), "NCM");
	/* Remote wakeup (bit 5) in c.1 alone, bus powered (bit 7) in both. */
	assert_int_equal(strtol(attr(f, "configs/c.1/bmAttributes"), NULL, 0), 0xa0);
	assert_int_equal(strtol(attr(f, "configs/c.2/bmAttributes"), NULL, 0), 0x80);
	/* Unnamed: its functions. */
	assert_string_equal(attr(f, "configs/c.2/strings/0x409/configuration"), "rndis,acm");
	assert_true(exists(f, "os_desc/c.1"));
	assert_int_equal(composer_add_function(f->c, fn(f, "ncm")), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "rndis")), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "acm")), 0);
	assert_int_equal(composer_link(f->c, 0, "ncm"), 0);
	assert_int_equal(composer_link(f->c, 0, "acm"), 0);
	assert_int_equal(composer_link(f->c, 1, "rndis"), 0);
	assert_int_equal(composer_link(f->c, 1, "acm"), 0);
	/* No c.3 in this set, and none past the most a set may have. */
	assert_int_equal(composer_link(f->c, 2, "acm"), -ENOENT);
	assert_int_equal(composer_link(f->c, PROFILE_MAX_CONFIGS, "acm"), -ENOENT);
	assert_true(exists(f, "configs/c.1/ncm"));
	assert_true(exists(f, "configs/c.1/acm"));
	assert_true(exists(f, "configs/c.2/rndis"));
	assert_true(exists(f, "configs/c.2/acm"));
	assert_false(exists(f, "configs/c.1/rndis"));
	assert_int_equal(composer_bind(f->c, "dummy_udc.0"), 0);

	assert_int_equal(composer_unbind(f->c), 0);
	assert_int_equal(composer_unlink_all(f->c), 0);
	assert_false(exists(f, "configs/c.2/acm"));
	assert_false(exists(f, "configs/c.1/ncm"));
	assert_int_equal(composer_remove_function(f->c, "ncm"), 0);
	assert_int_equal(composer_remove_function(f->c, "rndis"), 0);
	assert_int_equal(composer_identity(f->c, f->p, 0), 0);
	assert_false(exists(f, "configs/c.2"));
	assert_string_equal(attr(f, "configs/c.1/strings/0x409/configuration"), "gadgetd");
	/* A set without it clears the bit of the c.1 it keeps. */
	assert_int_equal(strtol(attr(f, "configs/c.1/bmAttributes"), NULL, 0), 0x80);
	assert_true(exists(f, "os_desc/c.1"));
	assert_int_equal(composer_link(f->c, 1, "acm"), -ENOENT);
	assert_int_equal(composer_add_function(f->c, fn(f, "ecm")), 0);
	assert_int_equal(composer_link(f->c, 0, "acm"), 0);
	assert_int_equal(composer_link(f->c, 0, "ecm"), 0);
	assert_int_equal(composer_bind(f->c, "dummy_udc.0"), 0);
	assert_int_equal(count(f, "configs"), 1);
}

/* gadgetd restarted on a live two-configuration gadget: the new composer
 * finds both configurations, and a switch to one configuration removes
 * the second. */
static void test_takes_over_two_configurations(void **state)
{
	struct fixture *f = *state;
	struct composer *c2;

	assert_int_equal(composer_identity(f->c, f->p, 3), 0);
	assert_int_equal(composer_add_function(f->c, fn(f, "rndis")), 0);
	assert_int_equal(composer_link(f->c, 1, "rndis"), 0);
	assert_int_equal(composer_new("gadgetd", &c2), 0);
	assert_int_equal(composer_unlink_all(c2), 0);
	assert_false(exists(f, "configs/c.2/rndis"));
	assert_int_equal(composer_identity(c2, f->p, 0), 0);
	assert_false(exists(f, "configs/c.2"));
	assert_int_equal(composer_destroy(c2), 0);
	assert_false(exists(f, ""));
	composer_free(c2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_and_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbind_and_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_function_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mass_storage_lun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mass_storage_luns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_needs_a_udc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_ifname, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_leaves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takes_over_a_live_gadget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ncm_and_rndis_compat_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_configurations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takes_over_two_configurations, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
