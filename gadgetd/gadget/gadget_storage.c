#include "composer.h"
#include "gadget_int.h"
#include "log.h"
#include "storage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool gadget_storage_is_ms(const struct profile_function *f)
{
	return !strcmp(f->type->name, "mass_storage");
}

/*
 * The mass_storage function a request names, of the active set; with no
 * name, the set's only one. NULL with msg saying why.
 */
static const struct profile_function *gadget_storage_find(const struct gadget *g,
							  const char *name,
							  char *msg, size_t size)
{
	const struct profile_set *s;
	const struct profile_function *f, *found = NULL;
	unsigned i, n = 0;

	if (!g->profile || g->set < 0) {
		snprintf(msg, size, "storage: the gadget is off");
		return NULL;
	}
	s = &g->profile->sets[g->set];
	for (i = 0; i < s->n_functions; i++) {
		f = &g->profile->functions[s->functions[i]];
		if (name ? !strcmp(f->name, name) : gadget_storage_is_ms(f)) {
			found = f;
			n++;
		}
	}
	if (name && !found)
		snprintf(msg, size, "storage: the active set has no function \"%s\"", name);
	else if (found && !gadget_storage_is_ms(found))
		snprintf(msg, size, "storage: %s is a %s function, not mass_storage",
			 name, found->type->name);
	else if (!found)
		snprintf(msg, size, "storage: the active set has no mass_storage function");
	else if (n > 1)
		snprintf(msg, size, "storage: the active set has several mass_storage "
			 "functions; name one");
	else
		return found;
	return NULL;
}

/* The function's ConfigFS folder, open: an fd or -errno with msg. */
static int gadget_storage_dir(struct gadget *g, const struct profile_function *f,
			      char *msg, size_t size)
{
	char path[512];
	int fd, r = composer_function_dir(g->composer, f->type, f->name, path,
					  sizeof(path));

	if (r < 0) {
		snprintf(msg, size, "storage: %s: %s", f->name, strerror(-r));
		return r;
	}
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(msg, size, "storage: %s: cannot open %s: %s", f->name, path,
			 strerror(-r));
		log_warnx("%s", msg);
	}
	return fd;
}

static void gadget_storage_status(struct gadget *g, const char *name,
				  bool confined, FILE *out, char *msg, size_t size)
{
	const struct profile_set *s;
	const struct profile_function *f;
	unsigned i;
	int fd;

	if (!g->profile || g->set < 0)
		return;
	s = &g->profile->sets[g->set];
	for (i = 0; i < s->n_functions; i++) {
		f = &g->profile->functions[s->functions[i]];
		if (!gadget_storage_is_ms(f) || (name && strcmp(name, f->name)))
			continue;
		fd = gadget_storage_dir(g, f, msg, size);
		if (fd < 0)
			continue;
		storage_status(fd, f->name, confined, ktype_attr(f, "media_dir"), out);
		close(fd);
	}
}

/* A member's insert: the profile's cdrom and ro for the LUN are a floor
 * the member cannot lower. */
static void gadget_storage_floor(const struct profile_function *f, int lun,
				 bool *cdrom, bool *ro)
{
	if (optdesc_bool(ktype_ms_attr(f, lun, "cdrom")) == 1)
		*cdrom = true;
	if (optdesc_bool(ktype_ms_attr(f, lun, "ro")) == 1)
		*ro = true;
}

static int gadget_storage_run(struct gadget *g, const struct storage_req *req,
			      const struct profile_function *f,
			      const struct storage_cred *member, char *msg,
			      size_t size)
{
	bool cdrom = req->cdrom, ro = req->ro;
	int dfd, img = -1, r;

	if (req->op == STORAGE_INSERT) {
		img = storage_open_image(ktype_attr(f, "media_dir"), req->image,
					 member != NULL, msg, size);
		/* A refused image is a bad request (gadgetctl exits 5), not a
		 * refused client: the client may insert, just not that. */
		if (img < 0)
			return img == -ENOENT ? img : -EINVAL;
		if (member)
			gadget_storage_floor(f, req->lun, &cdrom, &ro);
	}
	dfd = gadget_storage_dir(g, f, msg, size);
	if (dfd < 0) {
		if (img >= 0)
			close(img);
		return dfd;
	}
	if (req->op == STORAGE_INSERT)
		r = storage_insert(dfd, req->lun, img, cdrom, ro, member, msg, size);
	else
		r = storage_eject(dfd, req->lun, req->force, msg, size);
	close(dfd);
	if (img >= 0)
		close(img);
	if (r == 0)
		log_info("storage: %s lun.%d: %s%s%s", f->name, req->lun,
			 req->op == STORAGE_INSERT ? "inserted " : "ejected",
			 req->op == STORAGE_INSERT ? req->image : req->force ? " (forced)" : "",
			 req->op == STORAGE_INSERT && member ? " for a member of group" : "");
	return r;
}

int gadget_storage(struct gadget *g, const struct storage_cred *member,
		   const struct storage_req *req, char *msg, size_t size, FILE *out)
{
	const struct profile_function *f;

	if (req->op == STORAGE_STATUS) {
		if (req->function && !gadget_storage_find(g, req->function, msg, size))
			return -ENOENT;
		gadget_storage_status(g, req->function, member != NULL, out, msg, size);
		return 0;
	}
	f = gadget_storage_find(g, req->function, msg, size);
	if (!f)
		return -ENOENT;
	return gadget_storage_run(g, req, f, member, msg, size);
}

bool gadget_storage_group_open(const struct gadget *g, const char *function)
{
	char msg[256];
	const struct profile_function *f = gadget_storage_find(g, function, msg, sizeof(msg));

	return f && optdesc_bool(ktype_attr(f, "group_media")) == 1;
}
