/* fuzz_runtime: a cheap plugin runtime for fuzz targets (see the header). */
#include "fuzz_runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_RT_MAX_OPTS 32
#define FUZZ_RT_MAX_STATUS 16

static struct {
	const char *instance;
	struct loop *loop;
	const char *opts[FUZZ_RT_MAX_OPTS][2];
	unsigned n_opts;
	char status[FUZZ_RT_MAX_STATUS][2][512];
	unsigned n_status;
	bool enabled;
	unsigned mps;
	size_t queued[PLUGIN_MAX_EPS];
	fuzz_rt_tx_fn tx_check;
	/* plugin_keys_append()'s line, until fuzz_rt_keys_answer(). */
	char keys_line[1024];
	plugin_keys_fn keys_done;
	void *keys_data;
	/* plugin_command_reply()'s last. */
	bool replied;
	int reply_rc;
	char reply[1024];
} rt;

static int rt_token;

struct plugin *fuzz_rt_reset(const char *instance, struct loop *loop)
{
	memset(&rt, 0, sizeof(rt));
	rt.instance = instance;
	rt.loop = loop;
	return (struct plugin *)&rt_token;
}

void fuzz_rt_set_option(const char *key, const char *value)
{
	/* A harness bug, not an input's: stop loudly. */
	if (rt.n_opts == FUZZ_RT_MAX_OPTS)
		abort();
	rt.opts[rt.n_opts][0] = key;
	rt.opts[rt.n_opts][1] = value;
	rt.n_opts++;
}

void fuzz_rt_set_enabled(bool on, unsigned max_packet)
{
	rt.enabled = on;
	rt.mps = max_packet;
}

void fuzz_rt_set_tx_check(fuzz_rt_tx_fn fn)
{
	rt.tx_check = fn;
}

void fuzz_rt_drain(void)
{
	memset(rt.queued, 0, sizeof(rt.queued));
}

const char *fuzz_rt_status(const char *key)
{
	for (unsigned i = 0; i < rt.n_status; i++)
		if (!strcmp(rt.status[i][0], key))
			return rt.status[i][1];
	return NULL;
}

bool fuzz_rt_keys_answer(int rc)
{
	plugin_keys_fn done = rt.keys_done;
	const char *path = plugin_option(NULL, "keys");
	size_t len = strlen(rt.keys_line);
	int fd;

	if (!done)
		return false;
	rt.keys_done = NULL;
	if (rc == 0 && !path)
		rc = -ENOENT;
	if (rc == 0) {
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		rt.keys_line[len] = '\n';
		if (fd < 0 || write(fd, rt.keys_line, len + 1) != (ssize_t)len + 1)
			rc = -EIO;
		rt.keys_line[len] = '\0';
		if (fd >= 0)
			close(fd);
	}
	done(rt.keys_data, rc);
	return true;
}

const char *fuzz_rt_command_reply(int *rc)
{
	*rc = rt.reply_rc;
	return rt.replied ? rt.reply : NULL;
}

struct loop *plugin_loop(struct plugin *p)
{
	return rt.loop;
}

const char *plugin_instance(struct plugin *p)
{
	return rt.instance;
}

const char *plugin_option(struct plugin *p, const char *key)
{
	for (unsigned i = 0; i < rt.n_opts; i++)
		if (!strcmp(rt.opts[i][0], key))
			return rt.opts[i][1];
	return NULL;
}

int plugin_write(struct plugin *p, unsigned ep, const void *buf, size_t len)
{
	if (ep >= PLUGIN_MAX_EPS || len > PLUGIN_MAX_XFER)
		return -EINVAL;
	if (!rt.enabled)
		return -ESHUTDOWN;
	if (rt.tx_check)
		rt.tx_check(ep, buf, len);
	rt.queued[ep] += len;
	return 0;
}

void *plugin_buf_alloc(struct plugin *p, size_t len)
{
	if (len > PLUGIN_MAX_XFER)
		return NULL; /* as the real runtime answers */
	return malloc(len ? len : 1);
}

int plugin_write_buf(struct plugin *p, unsigned ep, void *buf, size_t len)
{
	int rc = plugin_write(p, ep, buf, len);

	free(buf);
	return rc;
}

void plugin_buf_free(struct plugin *p, void *buf)
{
	free(buf);
}

size_t plugin_tx_queued(struct plugin *p, unsigned ep)
{
	return ep < PLUGIN_MAX_EPS ? rt.queued[ep] : 0;
}

unsigned plugin_max_packet(struct plugin *p, unsigned ep)
{
	return rt.enabled ? rt.mps : 0;
}

void plugin_rx_enable(struct plugin *p, unsigned ep, bool on)
{
}

int plugin_request_switch(struct plugin *p, const char *request)
{
	return -ENOTSUP;
}

/* Fuzzed hosts get the production answer, as on the shipped profile. */
enum plugin_root plugin_root(struct plugin *p)
{
	return PLUGIN_ROOT_REFUSED;
}

int plugin_request_tcp(struct plugin *p, unsigned port)
{
	abort(); /* never asked for: tcpip is off */
}

int plugin_request_root(struct plugin *p, bool on)
{
	abort(); /* never asked for where root is refused */
}

void plugin_set_status(struct plugin *p, const char *key, const char *value)
{
	unsigned i;

	/* Both must be strings; ASan checks that they are readable. */
	if (strlen(key) >= sizeof(rt.status[0][0]))
		abort();
	for (i = 0; i < rt.n_status; i++)
		if (!strcmp(rt.status[i][0], key))
			break;
	if (i == FUZZ_RT_MAX_STATUS)
		abort(); /* keys are a plugin's few fixed names, not a host's */
	if (i == rt.n_status)
		rt.n_status++;
	snprintf(rt.status[i][0], sizeof(rt.status[i][0]), "%s", key);
	snprintf(rt.status[i][1], sizeof(rt.status[i][1]), "%s", value);
}

/* The fuzzers' device is never locked (the held path is test_adb's). */
bool plugin_locked(struct plugin *p)
{
	return false;
}

/* gadgetd refuses a line with a control character, and a plugin that
 * asks twice before the answer. */
int plugin_keys_append(struct plugin *p, const char *line, plugin_keys_fn done,
		       void *data)
{
	if (rt.keys_done)
		return -EBUSY;
	for (const char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -EINVAL;
	if (strlen(line) >= sizeof(rt.keys_line) - 1)
		return -E2BIG;
	snprintf(rt.keys_line, sizeof(rt.keys_line), "%s", line);
	rt.keys_done = done;
	rt.keys_data = data;
	return 0;
}

int plugin_command_reply(struct plugin *p, int rc, const char *reply)
{
	/* A reply must be a string; ASan checks that it is readable. */
	rt.replied = true;
	rt.reply_rc = rc;
	snprintf(rt.reply, sizeof(rt.reply), "%s", reply);
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	/* Depth first: a folder comes after what it holds. */
	if (ftw->level > 0 && remove(path) < 0)
		abort();
	return 0;
}

void fuzz_rt_empty_dir(const char *dir)
{
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		abort();
}

static char scratch[128];

static void scratch_cleanup(void)
{
	fuzz_rt_empty_dir(scratch);
	rmdir(scratch);
}

static void remove_stale(const char *name)
{
	size_t n = strlen(name);
	struct dirent *de;
	char path[384];
	DIR *d = opendir("/dev/shm");

	while (d && (de = readdir(d))) {
		int pid;

		if (strncmp(de->d_name, name, n) || de->d_name[n] != '.')
			continue;
		pid = atoi(de->d_name + n + 1);
		if (pid <= 0 || kill(pid, 0) == 0)
			continue;
		snprintf(path, sizeof(path), "/dev/shm/%s", de->d_name);
		fuzz_rt_empty_dir(path);
		rmdir(path);
	}
	if (d)
		closedir(d);
}

const char *fuzz_rt_scratch(const char *name)
{
	if (scratch[0])
		return scratch;
	remove_stale(name);
	snprintf(scratch, sizeof(scratch), "/dev/shm/%s.%d", name,
		 (int)getpid());
	if (mkdir(scratch, 0700) < 0)
		abort();
	atexit(scratch_cleanup);
	return scratch;
}
