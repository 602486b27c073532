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
