/*
 * adb_fixture: the adb plugin started as the worker runtime starts it
 * (fake plugin API, real event loop, a key file in a fresh temporary
 * folder), for test_adb and test_adb_tcp.
 */
#ifndef ADB_FIXTURE_H
#define ADB_FIXTURE_H

#include <stddef.h>

#include "plugin.h"

struct loop;

struct adb_fixture {
	struct loop *loop;
	struct plugin *p;
	struct plugin_desc desc;
	void *priv;
	unsigned port;           /* test_adb_tcp's listening port */
	char dir[64];
	char keys[128];          /* dir/adb_keys, the "keys" option */
};

/* Init and enable the plugin with auth and the keys option, then opts:
 * "key", "value" pairs, NULL-terminated (NULL: none). Fails the test on
 * any error. */
struct adb_fixture *adb_fixture_start(const char *auth, const char *const *opts);
/*
 * `gadgetctl adb allow fp` as the runtime and gadgetd carry it out: the
 * command, gadgetd appending the line the plugin hands it to the keys
 * file, and the plugin's answer. Returns the command's rc, its text in
 * reply. The plugin itself must leave the keys file alone.
 */
int adb_fixture_allow(struct adb_fixture *t, const char *fp, char *reply,
		      size_t size);
/* Disable, finish, and remove the folder. */
void adb_fixture_stop(struct adb_fixture *t);

#endif
