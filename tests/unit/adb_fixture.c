#include "adb_fixture.h"
#include "fake_plugin_adb.h"
#include "fake_spawn.h"
#include "loop.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

extern const struct plugin_ops gadgetd_plugin;

struct adb_fixture *adb_fixture_start(const char *auth, const char *const *opts)
{
	struct adb_fixture *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	strcpy(t->dir, "/tmp/adb_fixture.XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->keys, sizeof(t->keys), "%s/adb_keys", t->dir);
	t->loop = loop_new();
	t->p = fake_plugin_new(t->loop);
	fake_set_option(t->p, "auth", auth);
	fake_set_option(t->p, "keys", t->keys);
	for (; opts && opts[0]; opts += 2)
		fake_set_option(t->p, opts[0], opts[1]);
	assert_int_equal(gadgetd_plugin.init(t->p, &t->desc, &t->priv), 0);
	gadgetd_plugin.enable(t->priv);
	return t;
}

/* The keys file's bytes (empty when missing) into buf. */
static size_t adb_fixture_keys(struct adb_fixture *t, char *buf, size_t size)
{
	FILE *f = fopen(t->keys, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size, f);
		fclose(f);
	}
	return n;
}

int adb_fixture_allow(struct adb_fixture *t, const char *fp, char *reply,
		      size_t size)
{
	char *argv[] = { "allow", (char *)fp };
	struct fake_plugin *f = fake_of(t->p);
	static char before[8192], after[8192];
	size_t n_before, n_after;
	int rc;

	n_before = adb_fixture_keys(t, before, sizeof(before));
	rc = gadgetd_plugin.command(t->priv, 2, argv, reply, size);
	/* The worker's user may not write the file: gadgetd does. */
	n_after = adb_fixture_keys(t, after, sizeof(after));
	assert_int_equal(n_after, n_before);
	assert_memory_equal(after, before, n_before);
	if (rc != PLUGIN_COMMAND_LATER) {
		assert_null(f->keys_done);
		return rc;
	}
	assert_non_null(f->keys_done);
	f->replies = 0;
	fake_keys_answer(t->p, t->keys, 0);
	assert_int_equal(f->replies, 1);
	snprintf(reply, size, "%s", f->reply);
	return f->reply_rc;
}

void adb_fixture_stop(struct adb_fixture *t)
{
	char cmd[128];

	gadgetd_plugin.disable(t->priv);
	gadgetd_plugin.finish(t->priv);
	fake_plugin_free(t->p);
	fake_spawn_detach(t->loop);
	loop_free(t->loop);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
}
