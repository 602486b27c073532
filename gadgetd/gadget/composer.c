#include "composer.h"
#include "log.h"
#include "netcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <usbg/usbg.h>
#include <usbg/function/net.h>

#define COMPOSER_CONFIGFS "/sys/kernel/config"

struct composer {
	char *name;
	usbg_state *state;
	usbg_gadget *gadget;
	/* c.1 ... c.N; NULL past the last one there is. */
	usbg_config *config[PROFILE_MAX_CONFIGS];
	char udc[64];
};

/* libusbgx reports its own error codes; gadgetd speaks -errno. */
static int composer_errno(int r)
{
	switch (r) {
	case USBG_SUCCESS:
		return 0;
	case USBG_ERROR_NO_MEM:
		return -ENOMEM;
	case USBG_ERROR_NO_ACCESS:
		return -EACCES;
	case USBG_ERROR_INVALID_PARAM:
		return -EINVAL;
	case USBG_ERROR_NOT_FOUND:
		return -ENOENT;
	case USBG_ERROR_BUSY:
		return -EBUSY;
	case USBG_ERROR_EXIST:
		return -EEXIST;
	case USBG_ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case USBG_ERROR_PATH_TOO_LONG:
		return -ENAMETOOLONG;
	default:
		return -EIO;
	}
}

static int composer_fail(int r, const char *what, const char *name)
{
	log_warnx("configfs: %s %s: %s", what, name ? name : "",
		  usbg_strerror(r));
	return composer_errno(r);
}

/* The gadget and its configurations in c->state, when they exist. */
static void composer_find_gadget(struct composer *c)
{
	unsigned i;

	c->gadget = usbg_get_gadget(c->state, c->name);
	for (i = 0; i < PROFILE_MAX_CONFIGS; i++)
		c->config[i] = c->gadget ? usbg_get_config(c->gadget, i + 1, "c") : NULL;
}

int composer_new(const char *gadget_name, struct composer **out)
{
	struct composer *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->name = strdup(gadget_name);
	r = usbg_init(COMPOSER_CONFIGFS, &c->state);
	if (r != USBG_SUCCESS || !c->name) {
		r = composer_fail(r, "cannot open", COMPOSER_CONFIGFS
				  " (is configfs mounted and libcomposite loaded?)");
		free(c->name);
		free(c);
		return r;
	}
	composer_find_gadget(c);
	*out = c;
	return 0;
}

void composer_free(struct composer *c)
{
	if (!c)
		return;
	usbg_cleanup(c->state);
	free(c->name);
	free(c);
}

/* Read ConfigFS rather than libusbgx's cache: a UDC that vanished
 * unbinds the gadget behind libusbgx's back. */
const char *composer_bound_udc(struct composer *c)
{
	char path[512];
	FILE *f;

	if (!c->gadget)
		return NULL;
	snprintf(path, sizeof(path), "%s/usb_gadget/%s/UDC",
		 usbg_get_configfs_path(c->state), c->name);
	f = fopen(path, "re");
	if (!f)
		return NULL;
	if (!fgets(c->udc, sizeof(c->udc), f))
		c->udc[0] = '\0';
	fclose(f);
	c->udc[strcspn(c->udc, "\n")] = '\0';
	return c->udc[0] ? c->udc : NULL;
}

int composer_unbind(struct composer *c)
{
	int r;

	if (!c->gadget || !usbg_get_gadget_udc(c->gadget))
		return 0;
	r = usbg_disable_gadget(c->gadget);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot unbind gadget", c->name);
	return 0;
}

/* libusbgx lists the UDCs once, in usbg_init(): one that appeared since
 * (a controller whose driver loaded after gadgetd) needs a fresh read. */
static int composer_reread(struct composer *c)
{
	usbg_state *state;
	int r = usbg_init(COMPOSER_CONFIGFS, &state);

	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot read", COMPOSER_CONFIGFS);
	usbg_cleanup(c->state);
	c->state = state;
	composer_find_gadget(c);
	return 0;
}

int composer_bind(struct composer *c, const char *udc)
{
	usbg_udc *u;
	int r;

	if (!c->gadget)
		return -ENOENT;
	u = usbg_get_udc(c->state, udc);
	if (!u && composer_reread(c) == 0)
		u = usbg_get_udc(c->state, udc);
	if (!u) {
		log_warnx("configfs: no UDC named %s", udc);
		return -ENODEV;
	}
	r = usbg_enable_gadget(c->gadget, u);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot bind gadget to", udc);
	return 0;
}

int composer_destroy(struct composer *c)
{
	int r;

	if (!c->gadget)
		return 0;
	composer_unbind(c);
	r = usbg_rm_gadget(c->gadget, USBG_RM_RECURSE);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot remove gadget", c->name);
	c->gadget = NULL;
	memset(c->config, 0, sizeof(c->config));
	return 0;
}

static int composer_strings(struct composer *c, const struct profile *p,
			    const struct profile_set *s)
{
	struct usbg_gadget_strs strs = {
		.manufacturer = p->manufacturer,
		.product = s->product ? s->product : p->product,
		.serial = p->serial,
	};
	int r = usbg_set_gadget_strs(c->gadget, p->lang, &strs);

	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot set strings of", c->name);
	return 0;
}

static int composer_os_desc(struct composer *c, const struct profile *p)
{
	struct usbg_gadget_os_descs os = {
		.use = true,
		.b_vendor_code = p->os_vendor_code,
		.qw_sign = p->os_qw_sign,
	};
	int r;

	if (!p->has_os_desc)
		return 0;
	/* ConfigFS links one configuration for the OS descriptors, and the
	 * kernel then reports it first (index 0, the one Windows selects)
	 * whatever its number: c.1 keeps the order the profile gives. */
	r = usbg_set_gadget_os_descs(c->gadget, &os);
	if (r == USBG_SUCCESS && usbg_get_os_desc_binding(c->gadget) != c->config[0])
		r = usbg_set_os_desc_config(c->gadget, c->config[0]);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot set OS descriptors of", c->name);
	return 0;
}

/* Configuration i (c.i+1) of set s, created or updated. */
static int composer_config(struct composer *c, const struct profile *p,
			   unsigned set, unsigned i)
{
	const struct profile_set *s = &p->sets[set];
	struct usbg_config_attrs attrs = {
		/* Bus powered (bit 7, always set), remote wakeup (bit 5). */
		.bmAttributes = 0x80 | (s->configs[i].remote_wakeup ? 0x20 : 0),
		.bMaxPower = p->max_power / 2,
	};
	char name[128];
	struct usbg_config_strs strs = { .configuration = name };
	int r;

	/* One configuration keeps the string it always had; several are
	 * told apart by what they hold, unless the profile names them. */
	if (s->configs[i].name)
		snprintf(name, sizeof(name), "%s", s->configs[i].name);
	else if (s->n_configs == 1)
		snprintf(name, sizeof(name), "gadgetd");
	else
		profile_set_config_name(p, set, i, name, sizeof(name));
	if (c->config[i]) {
		r = usbg_set_config_attrs(c->config[i], &attrs);
		if (r == USBG_SUCCESS)
			r = usbg_set_config_strs(c->config[i], p->lang, &strs);
	} else {
		r = usbg_create_config(c->gadget, i + 1, "c", &attrs, NULL,
				       &c->config[i]);
		if (r == USBG_SUCCESS)
			r = usbg_set_config_strs(c->config[i], p->lang, &strs);
	}
	if (r != USBG_SUCCESS) {
		snprintf(name, sizeof(name), "c.%u of", i + 1);
		return composer_fail(r, "cannot set up configuration", name);
	}
	return 0;
}

/* Configurations past the set's last go; composer_unlink_all() emptied
 * them. */
static int composer_config_trim(struct composer *c, unsigned n)
{
	char name[32];
	unsigned i;
	int r;

	for (i = PROFILE_MAX_CONFIGS; i-- > n;) {
		if (!c->config[i])
			continue;
		r = usbg_rm_config(c->config[i], USBG_RM_RECURSE);
		if (r != USBG_SUCCESS) {
			snprintf(name, sizeof(name), "c.%u", i + 1);
			return composer_fail(r, "cannot remove configuration", name);
		}
		c->config[i] = NULL;
	}
	return 0;
}

int composer_identity(struct composer *c, const struct profile *p,
		      unsigned set)
{
	const struct profile_set *s = &p->sets[set];
	struct usbg_gadget_attrs attrs = {
		.bcdUSB = p->bcd_usb,
		.bDeviceClass = p->device_class,
		.bDeviceSubClass = p->device_subclass,
		.bDeviceProtocol = p->device_protocol,
		.bMaxPacketSize0 = 64,
		.idVendor = s->vendor_id,
		.idProduct = s->product_id,
		.bcdDevice = p->bcd_device,
	};
	unsigned i;
	int r;

	if (!c->gadget) {
		r = usbg_create_gadget(c->state, c->name, &attrs, NULL,
				       &c->gadget);
		if (r != USBG_SUCCESS)
			return composer_fail(r, "cannot create gadget", c->name);
	} else {
		r = usbg_set_gadget_attrs(c->gadget, &attrs);
		if (r != USBG_SUCCESS)
			return composer_fail(r, "cannot set attributes of",
					     c->name);
	}
	r = composer_strings(c, p, s);
	if (!r)
		r = composer_config_trim(c, s->n_configs);
	for (i = 0; !r && i < s->n_configs; i++)
		r = composer_config(c, p, set, i);
	if (!r)
		r = composer_os_desc(c, p);
	return r;
}

static usbg_function *composer_find(struct composer *c, const char *name)
{
	usbg_function *f;

	if (!c->gadget)
		return NULL;
	usbg_for_each_function(f, c->gadget)
		if (!strcmp(usbg_get_function_instance(f), name))
			return f;
	return NULL;
}

/*
 * libusbgx keeps ifname read-only, but Linux takes a pattern with one %d
 * there (gether_set_ifname(), 6.0 and later) until the first bind. An
 * older kernel refuses it: say so, the profile asked for it.
 */
static void composer_ifname_path(struct composer *c, int type, const char *name,
				 char *buf, size_t size)
{
	snprintf(buf, size, "%s/usb_gadget/%s/functions/%s.%s/ifname",
		 usbg_get_configfs_path(c->state), c->name,
		 usbg_get_function_type_str(type), name);
}

int composer_function_dir(struct composer *c, const struct ktype *type,
			  const char *name, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/usb_gadget/%s/functions/%s.%s",
			 usbg_get_configfs_path(c->state), c->name,
			 usbg_get_function_type_str(type->usbg_type), name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int composer_set_ifname(struct composer *c, const struct profile_function *f)
{
	const char *v = profile_option(f, "ifname");
	char path[512];
	FILE *out;
	int r = 0;

	if (!v || !netcfg_is_net(f->type))
		return 0;
	composer_ifname_path(c, f->type->usbg_type, f->name, path, sizeof(path));
	out = fopen(path, "we");
	if (!out || fputs(v, out) < 0)
		r = -errno;
	if (out && fclose(out) != 0 && !r)
		r = -errno;
	if (r < 0)
		log_warnx("configfs: function %s: cannot set ifname \"%s\" (%s): %s",
			  f->name, v, path, strerror(-r));
	return r;
}

static int composer_apply_dir(struct composer *c, const struct profile_function *f)
{
	char path[512];
	int fd, r = composer_function_dir(c, f->type, f->name, path, sizeof(path));

	fd = r < 0 ? r : open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = fd == -1 ? -errno : fd;
	} else {
		r = f->type->apply_dir(fd, f);
		close(fd);
	}
	if (r < 0)
		log_warnx("configfs: function %s: cannot set attributes (%s): %s",
			  f->name, path, strerror(-r));
	return r;
}

int composer_add_function(struct composer *c, const struct profile_function *f)
{
	usbg_function *uf;
	int r;

	if (!c->gadget)
		return -ENOENT;
	r = usbg_create_function(c->gadget, f->type->usbg_type, f->name, NULL, &uf);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot create function", f->name);
	r = f->type->apply ? f->type->apply(uf, f) : USBG_SUCCESS;
	if (r != USBG_SUCCESS) {
		usbg_rm_function(uf, USBG_RM_RECURSE);
		return composer_fail(r, "cannot set attributes of function",
				     f->name);
	}
	r = composer_set_ifname(c, f);
	if (r == 0 && f->type->apply_dir)
		r = composer_apply_dir(c, f);
	if (r < 0)
		usbg_rm_function(uf, USBG_RM_RECURSE);
	return r;
}

int composer_net_ifname(struct composer *c, const char *name, char *buf,
			size_t size)
{
	usbg_function *f = composer_find(c, name);
	char path[512], tmp[64];
	FILE *in;

	if (!f || size == 0)
		return -ENOENT;
	composer_ifname_path(c, usbg_get_function_type(f), name, path, sizeof(path));
	in = fopen(path, "re");
	if (!in)
		return -errno;
	if (!fgets(tmp, sizeof(tmp), in))
		tmp[0] = '\0';
	fclose(in);
	tmp[strcspn(tmp, "\n")] = '\0';
	/* Before its first bind the kernel answers "(unnamed net_device)"
	 * or the pattern it was given. */
	if (!tmp[0] || strchr(tmp, '%') || strchr(tmp, ' ') || strlen(tmp) >= size)
		return -EAGAIN;
	snprintf(buf, size, "%s", tmp);
	return 0;
}

int composer_serial_port(struct composer *c, const struct ktype *type,
			 const char *name, unsigned *port)
{
	char path[600];
	FILE *in;
	int r = composer_function_dir(c, type, name, path, sizeof(path) - 16);

	if (r < 0)
		return r;
	strcat(path, "/port_num");
	in = fopen(path, "re");
	if (!in)
		return -errno;
	r = fscanf(in, "%u", port) == 1 ? 0 : -EIO;
	fclose(in);
	return r;
}

int composer_remove_function(struct composer *c, const char *name)
{
	usbg_function *f = composer_find(c, name);
	int r;

	if (!f)
		return 0;
	r = usbg_rm_function(f, USBG_RM_RECURSE);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot remove function", name);
	return 0;
}

int composer_unlink_all(struct composer *c)
{
	usbg_binding *b;
	unsigned i;
	int r;

	for (i = 0; i < PROFILE_MAX_CONFIGS; i++)
		while (c->config[i] && (b = usbg_get_first_binding(c->config[i]))) {
			r = usbg_rm_binding(b);
			if (r != USBG_SUCCESS)
				return composer_fail(r, "cannot unlink function",
						     usbg_get_binding_name(b));
		}
	return 0;
}

int composer_link(struct composer *c, unsigned config, const char *name)
{
	usbg_function *f = composer_find(c, name);
	int r;

	if (!f || config >= PROFILE_MAX_CONFIGS || !c->config[config])
		return -ENOENT;
	r = usbg_add_config_function(c->config[config], name, f);
	if (r != USBG_SUCCESS)
		return composer_fail(r, "cannot link function", name);
	return 0;
}
