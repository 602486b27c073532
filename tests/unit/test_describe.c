/* functions/runtime/describe.c: `gadgetd-worker --describe` in a child
 * (it drops its capabilities and installs the seccomp filter): the fake
 * plugin's declaration comes out as metatext that parses back to it; a
 * plugin of another ABI version prints nothing and fails. The plugins
 * are tests/unit/fake_abi_plugin.c, built beside this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "describe.h"
#include "metatext.h"
#include "unit_self.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* Run describe_run on so in a child; its output into text, its exit
 * status returned. */
static int describe_child(const char *so, char *text, size_t size, size_t *len)
{
	char path[PATH_MAX + 64];
	struct passwd *pw = getpwuid(getuid());
	int fds[2], st;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", dir, so);
	assert_non_null(pw);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *out = fdopen(fds[1], "w");

		close(fds[0]);
		/* As root the test stays root, without capabilities. */
		_exit(out && describe_run(path, pw->pw_name, out) == 0 ? 0 : 1);
	}
	close(fds[1]);
	*len = 0;
	while ((n = read(fds[0], text + *len, size - *len)) > 0)
		*len += (size_t)n;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_declaration_printed(void **state)
{
	char text[4096], why[256];
	const struct plugin_meta *m;
	struct metatext *t;
	size_t len;

	assert_int_equal(describe_child("fake_abi_ok.so", text, sizeof(text), &len), 0);
	assert_int_equal(metatext_parse(text, len, &t, why, sizeof(why)), 0);
	m = metatext_meta(t);
	assert_string_equal(m->name, "fake");
	assert_string_equal(m->options[0].name, "size");
	assert_int_equal(m->options[0].type, OPTDESC_INT);
	assert_true(m->options[0].min == 1 && m->options[0].max == 9);
	assert_string_equal(m->options[0].def, "3");
	assert_null(m->options[1].name);
	assert_string_equal(m->commands[0].name, "poke");
	assert_int_equal(m->commands[0].access, PLUGIN_ACCESS_READ);
	assert_null(m->commands[1].name);
	metatext_free(t);
}

static void test_other_abi_prints_nothing(void **state)
{
	char text[4096];
	size_t len;

	assert_int_equal(describe_child("fake_abi_other.so", text, sizeof(text), &len), 1);
	assert_int_equal(len, 0);
	assert_int_equal(describe_child("fake_abi_none.so", text, sizeof(text), &len), 1);
	assert_int_equal(len, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declaration_printed),
		cmocka_unit_test(test_other_abi_prints_nothing),
	};

	if (unit_self_dir(argc, argv, dir, sizeof(dir)) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
