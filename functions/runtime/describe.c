#include "describe.h"

#include "loader.h"
#include "log.h"
#include "metatext.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

/* As root: the user's ids, else the current ones (started by hand, only
 * the capabilities go). */
static int describe_drop(const char *user)
{
	struct passwd *pw;

	if (geteuid() != 0)
		return sandbox_drop(NULL, getuid(), getgid(), 0);
	if (!(pw = getpwnam(user))) {
		log_warnx("--describe: no user \"%s\"", user);
		return -ENOENT;
	}
	return sandbox_drop(user, pw->pw_uid, pw->pw_gid, 0);
}

int describe_run(const char *so, const char *user, FILE *out)
{
	const struct plugin_ops *ops;
	struct plugin_meta bare = { 0 };
	const struct plugin_meta *m;
	void *dl;
	int r;

	r = describe_drop(user ? user : PLUGIN_META_FALLBACK_USER);
	if (r < 0)
		return r;
	r = loader_open(so, &dl, &ops);
	if (r < 0)
		return r;
	/* Nothing of the plugin runs past its constructors, but its data
	 * is read under the filter all the same. */
	r = sandbox_lock(NULL);
	if (r < 0) {
		log_warnx("--describe: cannot install the seccomp filter: %s", strerror(-r));
		return r;
	}
	m = ops->meta;
	if (!m) {
		bare.name = ops->name;
		m = &bare;
	}
	if (!m->name || !ops->name || strcmp(m->name, ops->name)) {
		log_warnx("%s: its declaration's name is not its ops table's", so);
		return -EINVAL;
	}
	r = metatext_write(m, out);
	if (r < 0)
		log_warnx("%s: cannot print its declaration: %s", so, strerror(-r));
	return r;
}
