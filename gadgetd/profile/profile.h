/*
 * profile: a gadget profile (libconfig), parsed and validated in full
 * before anything in ConfigFS is touched.
 *
 * Example (profiles/android.conf):
 *
 *   gadget: {
 *     vendor_id = 0x1d6b; product_id = 0x0104; bcd_device = 0x0100;
 *     bcd_usb = 0x0200;                    # optional, default 0x0200
 *     device_class = 0; ...                # optional class/subclass/protocol
 *     max_power = 250;                     # mA, optional, default 250
 *     strings: { lang = 0x409; manufacturer = "..."; product = "...";
 *                serial = "..."; };
 *     os_desc: { vendor_code = 0xcd; qw_sign = "MSFT100"; };  # optional
 *   };
 *   functions: {
 *     acm: { type = "acm"; };
 *     ecm: { type = "ecm"; dev_addr = "..."; host_addr = "..."; };
 *     adb: { type = "ffs"; plugin = "adb";
 *            user = "gadgetd-adb"; group = "gadgetd-adb";  # optional
 *            capabilities = [ "CAP_NET_BIND_SERVICE" ];    # optional
 *            options: { auth = "on"; keys = "/etc/gadgetd/adb_keys"; }; };
 *   };
 *   sets = (
 *     { functions = [ "acm", "ecm" ]; product_id = 0x0105; },
 *     { functions = [ "mtp", "adb" ]; product_id = 0x4ee2; },
 *     # several USB configurations, each host picks one (the set is
 *     # "ncm,rndis" for switch requests):
 *     { configs = ( { functions = [ "ncm" ]; name = "NCM"; },
 *                   { functions = [ "rndis" ]; name = "RNDIS"; } );
 *       product_id = 0x0114; }
 *   );
 *   # remote_wakeup = true; in a set or one of its configs: the
 *   # configuration announces remote wakeup (bmAttributes bit 5)
 *   default = "acm,ecm";
 *   # optional: an identity used instead of gadget's for a set
 *   #   { functions = [...]; vendor_id = 0x18d1; product_id = 0x2d01; }
 */
#ifndef GADGETD_PROFILE_H
#define GADGETD_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "ktype.h"

#define PROFILE_MAX_FUNCTIONS 16
#define PROFILE_MAX_SETS 32
#define PROFILE_MAX_OPTIONS 32
#define PROFILE_NAME_MAX 32
/* A set's name ("acm,ecm") as gadgetd keeps it for messages, status and
 * requests. */
#define PROFILE_SET_NAME_MAX 256
/* An exec function's most args and env entries (common/wargv.h's
 * WARGV_MAX_ARGS). */
#define PROFILE_EXEC_MAX_ARGS 32
/* USB configurations per set (c.1 ... c.4). */
#define PROFILE_MAX_CONFIGS 4

struct profile_option {
	char *key;
	char *value; /* numbers and booleans are stored as their text */
	unsigned line; /* in the profile, for checks made after parsing */
};

struct profile_function {
	char name[PROFILE_NAME_MAX]; /* catalogue name, also the instance name */
	const struct ktype *type;    /* never NULL */
	char *plugin;                /* type->ffs only; NULL with exec */
	/*
	 * type->ffs with `exec` instead of `plugin` (profile_exec.h): the
	 * program, its arguments and environment ("KEY=VALUE") with their
	 * %f and %c unexpanded, the content of its configuration file (NULL:
	 * none) and where its mount namespace shows the instance (NULL:
	 * nowhere but the FunctionFS mount).
	 */
	char *exec;
	unsigned n_args, n_env;
	char *args[PROFILE_EXEC_MAX_ARGS], *env[PROFILE_EXEC_MAX_ARGS];
	char *config, *bind;
	/* Whether the program gets gadgetd's AIO guard preloaded
	 * (`aio_guard`, true unless the profile says false). */
	bool aio_guard;
	/*
	 * type->ffs only: who the worker runs as. user is the profile's
	 * `user` or the plugin's default (profile_default_user()); group is
	 * the profile's `group`, or NULL for the user's primary group; caps
	 * is the `capabilities` list as a mask of CAP_* bits (default 0).
	 * uid and gid are set by profile_ids_resolve().
	 */
	char *user, *group;
	uint64_t caps;
	bool user_default;           /* user is the plugin's default */
	/* `root = "allowed"` (adb only): the worker may ask gadgetd to
	 * restart it as root, with every capability (WORKER_ROOT). */
	bool root_allowed;
	unsigned user_line, group_line; /* for profile_ids_resolve()'s messages */
	uid_t uid;
	gid_t gid;
	/* Kernel function attributes (declared by type->attrs) or plugin
	 * options, as their canonical text (common/optdesc.h). */
	unsigned n_options;
	struct profile_option options[PROFILE_MAX_OPTIONS];
};

/* One USB configuration of a set (ConfigFS c.N, N = its index + 1). */
struct profile_config {
	unsigned n_functions;
	/* Indices into profile.functions, in the order given in the profile. */
	unsigned functions[PROFILE_MAX_FUNCTIONS];
	char *name;          /* iConfiguration; NULL: the default (see below) */
	/* `remote_wakeup = true` (the configuration's, else its set's):
	 * bmAttributes announces remote wakeup, which the host may enable. */
	bool remote_wakeup;
};

struct profile_set {
	/* Every function of the set, once each, in the order of their first
	 * appearance: what the set is named and requested by, and what is
	 * created. With one configuration, that configuration's list. */
	unsigned n_functions;
	unsigned functions[PROFILE_MAX_FUNCTIONS];
	/* 1 for `functions = [ ... ]`, 1..PROFILE_MAX_CONFIGS for
	 * `configs = ( ... )`. configs[0] is c.1, the configuration whose
	 * interfaces the MS OS descriptors describe. */
	unsigned n_configs;
	struct profile_config configs[PROFILE_MAX_CONFIGS];
	uint16_t vendor_id;  /* the gadget's unless the set overrides it */
	uint16_t product_id;
	char *product;       /* optional override of the product string */
};

struct profile {
	char *name;          /* file name without directory and ".conf" */
	char *path;
	uint16_t vendor_id, product_id, bcd_device, bcd_usb;
	uint8_t device_class, device_subclass, device_protocol;
	unsigned max_power;  /* mA */
	uint16_t lang;
	char *manufacturer, *product, *serial;
	bool has_os_desc;
	uint8_t os_vendor_code;
	char *os_qw_sign;
	unsigned n_functions;
	struct profile_function functions[PROFILE_MAX_FUNCTIONS];
	unsigned n_sets;
	struct profile_set sets[PROFILE_MAX_SETS];
	int default_set;     /* index into sets, -1 if none */
	/* `ask = true`: the default set is what a host gets until someone
	 * chooses; gadgetd says a host waits, and goes back to it at unplug
	 * (gadget.h's gadget_ask_host()). */
	bool ask;
};

/*
 * Parse and validate path. On failure returns -EINVAL (or -errno for I/O,
 * -EFBIG for more than 64 KiB), sets *out to NULL and writes one message
 * per problem, each "FILE:LINE: text", separated by newlines, into err
 * (always NUL-terminated, truncated to err_size). Besides libconfig's own
 * syntax errors, refused: @include, integers beyond 32 bits without the
 * L suffix (libconfig 1.5 would truncate them) and NUL bytes.
 */
int profile_load(const char *path, struct profile **out, char *err,
		 size_t err_size);
/* The same from a string; name is used in messages and as the name. */
int profile_parse(const char *name, const char *text, struct profile **out,
		  char *err, size_t err_size);
void profile_free(struct profile *p);

/*
 * Look up every FFS function's user and group on this system (getpwnam,
 * getgrnam) and fill uid and gid. -ENOENT with one "FILE:LINE: text"
 * line per unknown name in err. gadgetd calls it whenever it loads a
 * profile (start, switch, reload, -n); profile_parse() does not, so that
 * a profile can be checked on a machine without gadgetd's users.
 */
int profile_ids_resolve(struct profile *p, char *err, size_t err_size);

/* The user a plugin's worker runs as when the profile names none: the
 * one its plugin_meta declares (gadgetd-adb, gadgetd-mtp, gadgetd-aoa for
 * accessory), else gadgetd-worker. */
const char *profile_default_user(const char *plugin);

/* "CAP_NET_RAW" (or "net_raw", any case) to its number, or -1. */
int profile_ids_cap(const char *name);

const struct profile_function *profile_function_find(const struct profile *p,
						     const char *name);

/* The one lookup of a function's option as the profile gives it (its
 * text and line), or NULL: gadgetd's modules all use it, header only so
 * that they need not link the parser. */
static inline const struct profile_option *
profile_option_find(const struct profile_function *f, const char *key)
{
	unsigned i;

	for (i = 0; i < f->n_options; i++)
		if (!strcmp(f->options[i].key, key))
			return &f->options[i];
	return NULL;
}

/* Its text, or NULL. */
static inline const char *profile_option(const struct profile_function *f,
					 const char *key)
{
	const struct profile_option *o = profile_option_find(f, key);

	return o ? o->value : NULL;
}

/*
 * Resolve a set request ("mtp,adb", order-insensitive, spaces ignored)
 * against the allowed sets. Returns the set's index, or -ENOENT with err
 * naming the first unknown function, or -EPERM with err saying that the
 * combination is not an allowed set (and listing the allowed ones).
 */
int profile_set_find(const struct profile *p, const char *request, char *err,
		     size_t err_size);
/* "acm,ecm": the set's functions joined by commas, in profile order. */
void profile_set_name(const struct profile *p, unsigned set, char *buf,
		      size_t size);
/* The same for configuration config (0-based) of set. */
void profile_set_config_name(const struct profile *p, unsigned set,
			     unsigned config, char *buf, size_t size);
/* Whether a and b have the same functions, in any order and
 * configuration: then a request cannot tell them apart. */
bool profile_set_equal(const struct profile_set *a, const struct profile_set *b);

/* The type's name as a profile spells it ("acm", "ffs"). */
const char *profile_ftype_name(const struct ktype *t);

#endif
