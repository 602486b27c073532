/*
 * mtp_hotplug: storages that come and go while the host is connected.
 *
 * Two sources: the plugin command `storage` (add PATH [--name NAME]
 * [--ro], remove NAME|ID, list), which gadgetctl and D-Bus reach as
 * `mtp storage ...`, and mount points a profile follows
 * (storageN_follow_mount): /proc/self/mountinfo is watched for the
 * kernel's POLLPRI, which it raises on every mount and unmount in the
 * worker's mount namespace, and a followed storage is shown while a file
 * system is mounted on its path and hidden once it is not.
 *
 * The module decides what to show and hide; showing and hiding (the
 * store, the transfer in flight, StoreAdded and StoreRemoved to the host)
 * is its owner's, through struct mtp_hotplug_ops (mtp.c).
 *
 * Paths given to `storage add` must be absolute, with no "." or ".."
 * component; when the option storage_add_under names a folder they must
 * lie beneath it. No symbolic link is followed on the way (mtp_store_add
 * opens the folder with RESOLVE_NO_SYMLINKS), so a link planted in a
 * path cannot lead out of it.
 */
#ifndef GADGETD_MTP_HOTPLUG_H
#define GADGETD_MTP_HOTPLUG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct loop;
struct mtp_store;

/* A storage to show: what mtp_store_add and its reserves take. */
struct mtp_hotplug_spec {
	const char *path;
	const char *desc; /* its name for the host; NULL: the path */
	bool readonly;
	uint64_t reserve_bytes;
	uint64_t reserve_inodes;
};

/* Called by the module: 0 or -errno. */
struct mtp_hotplug_ops {
	int (*show)(void *data, const struct mtp_hotplug_spec *spec,
		    uint32_t *id);
	int (*hide)(void *data, uint32_t id);
};

/* The longest name a storage may be given (a profile's description). */
#define MTP_HOTPLUG_NAME_MAX 126
/* The reserve of inodes of a storage added by command (the default of
 * storageN_reserve_inodes). */
#define MTP_HOTPLUG_RESERVE_INODES 4096

enum mtp_hotplug_verb {
	MTP_HOTPLUG_ADD,
	MTP_HOTPLUG_REMOVE,
	MTP_HOTPLUG_LIST,
	MTP_HOTPLUG_HELP,
};

/* A `storage` command, parsed; its strings point into argv. */
struct mtp_hotplug_req {
	enum mtp_hotplug_verb verb;
	const char *path; /* ADD */
	const char *name; /* ADD (NULL: the path's last component), REMOVE */
	bool readonly;	  /* ADD */
};

/*
 * Parse argv (argv[0] is "storage"): 0, or -EINVAL with a sentence in
 * why that names what is wrong. The path's form is checked here (absolute,
 * no "."/".." component, no empty one, under `under` when it is not NULL);
 * its folder is checked when it is added.
 */
int mtp_hotplug_parse(int argc, char **argv, const char *under,
		      struct mtp_hotplug_req *req, char *why, size_t size);

/* Absolute, with no empty, "." or ".." component (so no trailing '/'). */
bool mtp_hotplug_path_ok(const char *path);

struct mtp_hotplug;

/* under: the option storage_add_under, or NULL; name starts log lines.
 * Both must outlive the module, and so must store. */
struct mtp_hotplug *mtp_hotplug_new(const char *name, struct loop *l,
				    struct mtp_store *store, const char *under,
				    const struct mtp_hotplug_ops *ops,
				    void *data);
void mtp_hotplug_free(struct mtp_hotplug *h);
/* Serve every storage `storage add` makes read-only, --ro or not (PTP
 * without `writable`). */
void mtp_hotplug_set_readonly(struct mtp_hotplug *h, bool readonly);

/*
 * Follow spec->path (its strings copied): shown while a file system is
 * mounted there. The first call opens /proc/self/mountinfo and watches
 * it. Call mtp_hotplug_scan() once all are given. -ENOSPC beyond
 * MTP_STORE_MAX, -errno when mountinfo cannot be watched.
 */
int mtp_hotplug_follow(struct mtp_hotplug *h,
		       const struct mtp_hotplug_spec *spec);
/* Read mountinfo now, and show or hide what follows mounts. */
void mtp_hotplug_scan(struct mtp_hotplug *h);

/*
 * The device was locked (true) or unlocked (plugin.h's ops->lock). At
 * lock every storage shown is hidden through ops->hide (StoreRemoved;
 * what is in flight on it ends), and nothing is shown until the unlock:
 * a followed mount point waits, `storage add` is checked (the folder
 * exists) and held, `storage remove NAME` drops a held one. At unlock
 * what was hidden or held is shown again through ops->show (StoreAdded,
 * under new storage ids), and followed mount points as mounted says.
 */
void mtp_hotplug_lock(struct mtp_hotplug *h, bool locked);

/* The `storage` command: its reply into reply; 0 or -errno. */
int mtp_hotplug_command(struct mtp_hotplug *h, int argc, char **argv,
			char *reply, size_t size);

/*
 * Whether path is a mount point in the mountinfo text buf (n bytes,
 * lines as /proc/self/mountinfo gives them, octal escapes in paths).
 */
bool mtp_hotplug_mounted(const char *buf, size_t n, const char *path);

#endif
