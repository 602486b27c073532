/*
 * profile: read a gadget profile with libconfig, then check every field,
 * reporting each problem as "FILE:LINE: message", so that a bad profile
 * is refused as a whole before anything in ConfigFS is touched.
 */
#include "profile.h"
#include "cfgtext.h"
#include "inputmatch.h"
#include "optcheck.h"
#include "ootmeta.h"
#include "plugin_list.h"
#include "profile_exec.h"

#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <libconfig.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *profile_ftype_name(const struct ktype *t)
{
	return t ? t->name : "?";
}

static bool profile_ident_ok(const char *s, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!(islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) ||
		      s[n] == '_'))
			return false;
	return n > 0 && n <= max;
}

static bool profile_text_ok(const char *s, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] > 0x7e)
			return false;
	return n <= max;
}

/* "gadget" + "vendor_id" reads "gadget.vendor_id"; "set 2" + "product_id"
 * reads "set 2: product_id". */
static const char *profile_sep(const char *path)
{
	return !strncmp(path, "set ", 4) ? ": " : ".";
}

/* Look up key in group g, checking its type. required: report absence. */
static config_setting_t *profile_member(struct cfgtext_err *e,
					config_setting_t *g, const char *path,
					const char *key, int type, bool required)
{
	config_setting_t *s = config_setting_get_member(g, key);

	if (!s) {
		if (required)
			cfgtext_error(e, g, "%s%s%s is missing", path,
				      path[0] ? profile_sep(path) : "", key);
		return NULL;
	}
	if (config_setting_type(s) != type &&
	    !(type == CONFIG_TYPE_INT && config_setting_type(s) == CONFIG_TYPE_INT64)) {
		static const char *const tn[] = { "none", "group", "integer", "64-bit integer",
						  "float", "string", "boolean", "array", "list" };
		cfgtext_error(e, s, "%s%s%s: expected %s", path,
			      path[0] ? profile_sep(path) : "", key,
			      type < 9 ? tn[type] : "?");
		return NULL;
	}
	return s;
}

static bool profile_int(struct cfgtext_err *e, config_setting_t *g,
			const char *path, const char *key, long long lo,
			long long hi, bool required, long long *out)
{
	config_setting_t *s = profile_member(e, g, path, key, CONFIG_TYPE_INT, required);
	long long v;

	if (!s)
		return false;
	v = config_setting_get_int64(s);
	if (v < lo || v > hi) {
		/* Ids, codes and BCD read best in hex, quantities in decimal. */
		if (hi == 0xff || hi == 0xffff || !strncmp(key, "bcd", 3))
			cfgtext_error(e, s, "%s%s%s: %s%#llx out of range (%#llx..%#llx)",
				      path, profile_sep(path), key, v < 0 ? "-" : "",
				      (unsigned long long)llabs(v), lo, hi);
		else
			cfgtext_error(e, s, "%s%s%s: %lld out of range (%lld..%lld)",
				      path, profile_sep(path), key, v, lo, hi);
		return false;
	}
	*out = v;
	return true;
}

static char *profile_str(struct cfgtext_err *e, config_setting_t *g,
			 const char *path, const char *key, size_t max,
			 bool required)
{
	config_setting_t *s = profile_member(e, g, path, key, CONFIG_TYPE_STRING, required);
	const char *v;

	if (!s)
		return NULL;
	v = config_setting_get_string(s);
	if (!profile_text_ok(v, max)) {
		cfgtext_error(e, s, "%s%s%s: must be printable ASCII of at most %zu characters",
			      path, profile_sep(path), key, max);
		return NULL;
	}
	return strdup(v);
}

/* Every member of g must be one of the names in allowed. */
static void profile_known_keys(struct cfgtext_err *e, config_setting_t *g,
			       const char *path, const char *const *allowed)
{
	int i, n = config_setting_length(g);

	for (i = 0; i < n; i++) {
		config_setting_t *s = config_setting_get_elem(g, i);
		const char *name = config_setting_name(s);
		const char *const *a;
		for (a = allowed; *a && strcmp(*a, name); a++)
			;
		if (!*a)
			cfgtext_error(e, s, "%s%sunknown setting \"%s\"", path,
				      path[0] ? ": " : "", name);
	}
}

static void profile_gadget_strings(struct cfgtext_err *e, config_setting_t *g,
				   struct profile *p)
{
	static const char *const keys[] = { "lang", "manufacturer", "product", "serial", NULL };
	config_setting_t *s = profile_member(e, g, "gadget", "strings", CONFIG_TYPE_GROUP, true);
	long long v;

	if (!s)
		return;
	profile_known_keys(e, s, "gadget.strings", keys);
	p->lang = profile_int(e, s, "gadget.strings", "lang", 1, 0xffff, false, &v) ? v : 0x409;
	p->manufacturer = profile_str(e, s, "gadget.strings", "manufacturer", 126, true);
	p->product = profile_str(e, s, "gadget.strings", "product", 126, true);
	p->serial = profile_str(e, s, "gadget.strings", "serial", 126, true);
}

static void profile_os_desc(struct cfgtext_err *e, config_setting_t *g,
			    struct profile *p)
{
	static const char *const keys[] = { "vendor_code", "qw_sign", NULL };
	config_setting_t *s = profile_member(e, g, "gadget", "os_desc", CONFIG_TYPE_GROUP, false);
	long long v;

	if (!s)
		return;
	profile_known_keys(e, s, "gadget.os_desc", keys);
	p->has_os_desc = true;
	if (profile_int(e, s, "gadget.os_desc", "vendor_code", 1, 255, true, &v)) {
		if (v >= 51 && v <= 58)
			cfgtext_error(e, config_setting_get_member(s, "vendor_code"),
				      "gadget.os_desc.vendor_code: %lld collides with the Android Open Accessory requests 51..58",
				      v);
		p->os_vendor_code = v;
	}
	p->os_qw_sign = profile_str(e, s, "gadget.os_desc", "qw_sign", 7, false);
	if (!p->os_qw_sign)
		p->os_qw_sign = strdup("MSFT100");
}

static void profile_gadget(struct cfgtext_err *e, config_t *cfg, struct profile *p)
{
	static const char *const keys[] = { "vendor_id", "product_id", "bcd_device",
					    "bcd_usb", "device_class", "device_subclass",
					    "device_protocol", "max_power", "strings",
					    "os_desc", NULL };
	config_setting_t *g = config_lookup(cfg, "gadget");
	long long v;

	if (!g || config_setting_type(g) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, g, "gadget: a group { ... } is required");
		return;
	}
	profile_known_keys(e, g, "gadget", keys);
	if (profile_int(e, g, "gadget", "vendor_id", 0, 0xffff, true, &v))
		p->vendor_id = v;
	if (profile_int(e, g, "gadget", "product_id", 0, 0xffff, true, &v))
		p->product_id = v;
	p->bcd_device = profile_int(e, g, "gadget", "bcd_device", 0, 0xffff, false, &v) ? v : 0x0100;
	p->bcd_usb = profile_int(e, g, "gadget", "bcd_usb", 0x0110, 0x0320, false, &v) ? v : 0x0200;
	p->device_class = profile_int(e, g, "gadget", "device_class", 0, 255, false, &v) ? v : 0;
	p->device_subclass = profile_int(e, g, "gadget", "device_subclass", 0, 255, false, &v) ? v : 0;
	p->device_protocol = profile_int(e, g, "gadget", "device_protocol", 0, 255, false, &v) ? v : 0;
	p->max_power = 250;
	if (profile_int(e, g, "gadget", "max_power", 0, 900, false, &v))
		p->max_power = (unsigned)v;
	/* USB 2.0 caps bus power at 500 mA, USB 3.x at 900 mA. */
	if (p->max_power > 500 && p->bcd_usb < 0x0300)
		cfgtext_error(e, config_setting_get_member(g, "max_power"),
			      "gadget.max_power: %u out of range (0..500; up to 900 needs bcd_usb >= 0x0300)",
			      p->max_power);
	profile_gadget_strings(e, g, p);
	profile_os_desc(e, g, p);
}

/* group is "" for kernel attributes, "options." for plugin options. */
static void profile_add_option(struct cfgtext_err *e, struct profile_function *f,
			       config_setting_t *s, const char *key,
			       const char *group)
{
	char num[32];
	const char *v;

	if (f->n_options == PROFILE_MAX_OPTIONS) {
		cfgtext_error(e, s, "functions.%s: more than %d options", f->name,
			      PROFILE_MAX_OPTIONS);
		return;
	}
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_STRING:
		v = config_setting_get_string(s);
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(num, sizeof(num), "%lld", config_setting_get_int64(s));
		v = num;
		break;
	case CONFIG_TYPE_BOOL:
		v = config_setting_get_bool(s) ? "true" : "false";
		break;
	default:
		cfgtext_error(e, s, "functions.%s.%s%s: expected a string, integer or boolean",
			      f->name, group, key);
		return;
	}
	if (strlen(v) > 1024 || strchr(v, '\n')) {
		cfgtext_error(e, s, "functions.%s.%s%s: value too long or multi-line",
			      f->name, group, key);
		return;
	}
	f->options[f->n_options].key = strdup(key);
	f->options[f->n_options].value = strdup(v);
	f->options[f->n_options].line = config_setting_source_line(s);
	f->n_options++;
}

/* A kernel attribute or a plugin option (group "options."), checked
 * against its declaration and kept as its canonical text. */
static void profile_check_opt(struct cfgtext_err *e, struct profile_function *f,
			      config_setting_t *s, const struct optdesc *d,
			      const char *group)
{
	char value[OPTCHECK_VALUE_MAX + 1], why[256];
	const char *key = config_setting_name(s);

	if (f->n_options == PROFILE_MAX_OPTIONS) {
		cfgtext_error(e, s, "functions.%s: more than %d options", f->name,
			      PROFILE_MAX_OPTIONS);
		return;
	}
	if (optcheck_value(d, s, value, sizeof(value), why, sizeof(why)) < 0) {
		cfgtext_error(e, s, "functions.%s.%s%s: %s", f->name, group, key, why);
		return;
	}
	f->options[f->n_options].key = strdup(key);
	f->options[f->n_options].value = strdup(value);
	f->options[f->n_options].line = config_setting_source_line(s);
	f->n_options++;
}

/* The setting a type's check names first ("dhcp: ..."), for its line;
 * else the function's block. */
static config_setting_t *profile_check_at(config_setting_t *fs, const char *why)
{
	char key[64];
	size_t n = strcspn(why, ":");
	config_setting_t *s;

	if (n >= sizeof(key))
		return fs;
	memcpy(key, why, n);
	key[n] = '\0';
	s = config_setting_get_member(fs, key);
	return s ? s : fs;
}

/* Required attributes, then the type's own checks across attributes. */
static void profile_check_type(struct cfgtext_err *e, config_setting_t *fs,
			       struct profile_function *f)
{
	const struct optdesc *d;
	char why[256];

	for (d = f->type->attrs; d && d->name; d++)
		if (d->required && !profile_option(f, d->name))
			cfgtext_error(e, fs, "functions.%s.%s is missing (%s needs %s)",
				      f->name, d->name, f->type->name, d->help);
	if (!e->count && f->type->check && f->type->check(f, why, sizeof(why)) < 0)
		cfgtext_error(e, profile_check_at(fs, why), "functions.%s.%s", f->name, why);
}

/* A declared option that is required and absent. */
static void profile_plugin_required(struct cfgtext_err *e, struct profile_function *f,
				    config_setting_t *fs, const struct optdesc *table)
{
	for (; table->name; table++)
		if (table->required && !strchr(table->name, 'N') &&
		    !profile_option(f, table->name))
			cfgtext_error(e, fs, "function \"%s\": option \"%s\" is missing (%s)",
				      f->name, table->name, table->help);
}

/*
 * The options of a plugin gadgetd knows are checked against its
 * declarations (functions/NAME/NAME_meta.c), those of an out-of-tree
 * plugin against the declaration its worker describes (ootmeta.h); where
 * nothing is described (ootmeta_setup() not called), they are kept as
 * text, unchecked, as are those of a plugin with no PLUGINDIR/NAME.so
 * (its worker fails to start, as a switch's error says).
 */
static void profile_plugin_options(struct cfgtext_err *e, struct profile_function *f,
				   config_setting_t *fs, config_setting_t *at)
{
	const struct optdesc *table, *d;
	const struct plugin_meta *m;
	const char *key;
	config_setting_t *o = config_setting_get_member(fs, "options");
	char names[512], why[512];
	int i;

	if (!plugin_list_find(f->plugin) && ootmeta_enabled() &&
	    !ootmeta_load(f->plugin, why, sizeof(why)) && errno != ENOENT) {
		cfgtext_error(e, at, "functions.%s.plugin: plugin \"%s\" cannot be described: %s",
			      f->name, f->plugin, why);
		return;
	}
	table = optcheck_plugin(f->plugin);

	if (o && config_setting_type(o) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, o, "functions.%s.options: expected a group { ... }", f->name);
		return;
	}
	for (i = 0; o && i < config_setting_length(o); i++) {
		config_setting_t *s = config_setting_get_elem(o, i);

		key = config_setting_name(s);
		if (!table) {
			profile_add_option(e, f, s, key, "options.");
			continue;
		}
		d = optdesc_find(table, key);
		if (d) {
			profile_check_opt(e, f, s, d, "options.");
			continue;
		}
		optcheck_names(table, names, sizeof(names));
		cfgtext_error(e, s, "function \"%s\": unknown option \"%s\" (plugin %s takes %s)",
			      f->name, key, f->plugin, names);
	}
	if (table)
		profile_plugin_required(e, f, o ? o : fs, table);
	m = plugin_list_find(f->plugin);
	if (m && m->input && inputmatch_check(m, f, &key, why, sizeof(why)) < 0)
		cfgtext_error(e, o && config_setting_get_member(o, key) ?
			      config_setting_get_member(o, key) : fs,
			      "functions.%s.options.%s: %s", f->name, key, why);
}

const char *profile_default_user(const char *plugin)
{
	return plugin_meta_user(ootmeta_find(plugin));
}

/* A user or group name as useradd(8) takes it: [a-z_][a-z0-9_-]*, at
 * most 32 characters. Numbers are refused so that a uid never passes
 * for a name. */
static bool profile_account_ok(const char *s)
{
	size_t n;

	if (!(islower((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (n = 1; s[n]; n++)
		if (!(islower((unsigned char)s[n]) || isdigit((unsigned char)s[n]) ||
		      s[n] == '_' || s[n] == '-'))
			return false;
	return n <= 32;
}

static char *profile_account(struct cfgtext_err *e, config_setting_t *fs,
			     struct profile_function *f, const char *key,
			     unsigned *line)
{
	char path[16 + PROFILE_NAME_MAX];
	config_setting_t *s;
	const char *v;

	snprintf(path, sizeof(path), "functions.%s", f->name);
	s = profile_member(e, fs, path, key, CONFIG_TYPE_STRING, false);
	if (!s)
		return NULL;
	v = config_setting_get_string(s);
	*line = config_setting_source_line(s);
	if (!profile_account_ok(v)) {
		cfgtext_error(e, s, "functions.%s.%s: \"%s\" is not a %s name (a-z, 0-9, _ and -, starting with a letter or _, at most 32)",
			      f->name, key, v, key);
		return NULL;
	}
	return strdup(v);
}

static void profile_caps(struct cfgtext_err *e, config_setting_t *fs,
			 struct profile_function *f)
{
	config_setting_t *c = config_setting_get_member(fs, "capabilities");
	int i, n, cap;

	if (!c)
		return;
	if (config_setting_type(c) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(c) != CONFIG_TYPE_LIST) {
		cfgtext_error(e, c, "functions.%s.capabilities: expected a list of names [ \"CAP_NET_RAW\", ... ]",
			      f->name);
		return;
	}
	n = config_setting_length(c);
	for (i = 0; i < n; i++) {
		config_setting_t *el = config_setting_get_elem(c, i);
		const char *name = config_setting_get_string(el);

		cap = name ? profile_ids_cap(name) : -1;
		if (cap < 0) {
			cfgtext_error(e, el, "functions.%s.capabilities: \"%s\" is not a capability (CAP_CHOWN ... CAP_CHECKPOINT_RESTORE)",
				      f->name, name ? name : "(not a string)");
			continue;
		}
		f->caps |= 1ULL << cap;
	}
}

/* The requests of the plugins that may ask for root: "adb root, ...". */
static const char *profile_root_plugins(char *buf, size_t size)
{
	const struct plugin_meta *const *m;
	size_t n = 0;

	buf[0] = '\0';
	for (m = plugin_list_metas; *m && n < size; m++)
		if ((*m)->root)
			n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
				      (*m)->root->request);
	return buf[0] ? buf : "none is built";
}

/*
 * root = "allowed" | "refused" (the default): whether the worker's request
 * to run as root (`adb root`) restarts it as root. Only a plugin that
 * declares the request (plugin_meta.root) has it.
 */
static void profile_root(struct cfgtext_err *e, config_setting_t *fs,
			 struct profile_function *f)
{
	const struct plugin_meta *m = plugin_list_find(f->plugin);
	char path[16 + PROFILE_NAME_MAX], buf[128];
	config_setting_t *s;
	const char *v;

	snprintf(path, sizeof(path), "functions.%s", f->name);
	s = profile_member(e, fs, path, "root", CONFIG_TYPE_STRING, false);
	if (!s)
		return;
	v = config_setting_get_string(s);
	if (strcmp(v, "allowed") && strcmp(v, "refused")) {
		cfgtext_error(e, s, "functions.%s.root: \"%s\": expected \"allowed\" or \"refused\"",
			      f->name, v);
		return;
	}
	if (!m || !m->root) {
		if (f->plugin)
			cfgtext_error(e, s, "functions.%s.root: plugin %s cannot be restarted as root; "
				      "only plugins that ask for it can (%s)",
				      f->name, f->plugin, profile_root_plugins(buf, sizeof(buf)));
		return;
	}
	f->root_allowed = !strcmp(v, "allowed");
}

/* The worker's user, group and capabilities (names are resolved later,
 * by profile_ids_resolve()). */
static void profile_worker_ids(struct cfgtext_err *e, struct profile_function *f,
			       config_setting_t *fs)
{
	f->user = profile_account(e, fs, f, "user", &f->user_line);
	if (!f->user && !config_setting_get_member(fs, "user")) {
		f->user = strdup(profile_default_user(f->plugin));
		f->user_default = true;
		f->user_line = config_setting_source_line(fs);
	}
	f->group = profile_account(e, fs, f, "group", &f->group_line);
	profile_caps(e, fs, f);
	profile_root(e, fs, f);
}

static void profile_function(struct cfgtext_err *e, config_setting_t *fs,
			     struct profile_function *f)
{
	const char *name = config_setting_name(fs), *tname;
	config_setting_t *t;
	unsigned before;
	int i;

	snprintf(f->name, sizeof(f->name), "%s", name);
	if (!profile_ident_ok(name, PROFILE_NAME_MAX - 1))
		cfgtext_error(e, fs, "functions.%s: a function name must be 1..%d characters of a-z, 0-9 and _",
			      name, PROFILE_NAME_MAX - 1);
	if (config_setting_type(fs) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, fs, "functions.%s: expected a group { type = ...; }", name);
		return;
	}
	t = profile_member(e, fs, "functions", "type", CONFIG_TYPE_STRING, false);
	if (!t) {
		if (!config_setting_get_member(fs, "type"))
			cfgtext_error(e, fs, "functions.%s.type is missing", name);
		return;
	}
	tname = config_setting_get_string(t);
	f->type = ktype_find(tname);
	if (!f->type) {
		cfgtext_error(e, t, "functions.%s: unknown type \"%s\" (expected %s)",
			      name, tname, ktype_names());
		return;
	}
	before = e->count;
	for (i = 0; i < config_setting_length(fs); i++) {
		config_setting_t *s = config_setting_get_elem(fs, i);
		const char *key = config_setting_name(s);
		const struct optdesc *d;
		if (!strcmp(key, "type") || (f->type->ffs &&
		    (!strcmp(key, "plugin") || !strcmp(key, "options") ||
		     !strcmp(key, "user") || !strcmp(key, "group") ||
		     !strcmp(key, "capabilities") || !strcmp(key, "root") ||
		     profile_exec_key(key))))
			continue;
		d = optdesc_find(f->type->attrs, key);
		if (d)
			profile_check_opt(e, f, s, d, "");
		else
			cfgtext_error(e, s, "functions.%s: unknown setting \"%s\" for type %s",
				      name, key, tname);
	}
	if (e->count == before)
		profile_check_type(e, fs, f);
	if (!f->type->ffs)
		return;
	if (profile_exec_parse(e, fs, f)) {
		profile_worker_ids(e, f, fs);
		return;
	}
	t = profile_member(e, fs, "functions", "plugin", CONFIG_TYPE_STRING, false);
	if (!t) {
		if (!config_setting_get_member(fs, "plugin"))
			cfgtext_error(e, fs, "functions.%s: type \"ffs\" needs plugin = \"NAME\" or exec = \"/path/program\"", name);
		return;
	}
	if (!profile_ident_ok(config_setting_get_string(t), 64)) {
		cfgtext_error(e, t, "functions.%s.plugin: \"%s\" is not a plugin name (a-z, 0-9, _)",
			      name, config_setting_get_string(t));
		return;
	}
	f->plugin = strdup(config_setting_get_string(t));
	profile_plugin_options(e, f, fs, t);
	profile_worker_ids(e, f, fs);
}

static void profile_functions(struct cfgtext_err *e, config_t *cfg, struct profile *p)
{
	config_setting_t *fs = config_lookup(cfg, "functions");
	int i, n;

	if (!fs || config_setting_type(fs) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, fs, "functions: a group { name: { type = ...; }; ... } is required");
		return;
	}
	n = config_setting_length(fs);
	if (n == 0)
		cfgtext_error(e, fs, "functions: the catalogue is empty");
	if (n > PROFILE_MAX_FUNCTIONS) {
		cfgtext_error(e, fs, "functions: more than %d functions", PROFILE_MAX_FUNCTIONS);
		n = PROFILE_MAX_FUNCTIONS;
	}
	for (i = 0; i < n; i++)
		profile_function(e, config_setting_get_elem(fs, i), &p->functions[p->n_functions++]);
}

const struct profile_function *profile_function_find(const struct profile *p,
						     const char *name)
{
	unsigned i;

	for (i = 0; i < p->n_functions; i++)
		if (!strcmp(p->functions[i].name, name))
			return &p->functions[i];
	return NULL;
}

/* The function list of a configuration (what names "set 2" or "set 2:
 * configuration 1"; what is "a set" or "a configuration"). */
static void profile_parse_fnlist(struct cfgtext_err *e, config_setting_t *fl,
				 struct profile *p, struct profile_config *c,
				 const char *where, const char *what)
{
	int i, n = config_setting_length(fl);
	unsigned j;

	if (n == 0)
		cfgtext_error(e, fl, "%s: %s needs at least one function", where, what);
	if (n > PROFILE_MAX_FUNCTIONS)
		cfgtext_error(e, fl, "%s: more than %d functions", where,
			      PROFILE_MAX_FUNCTIONS);
	for (i = 0; i < n && i < PROFILE_MAX_FUNCTIONS; i++) {
		config_setting_t *el = config_setting_get_elem(fl, i);
		const char *name = config_setting_get_string(el);
		const struct profile_function *f = name ? profile_function_find(p, name) : NULL;
		if (!name) {
			cfgtext_error(e, el, "%s: functions: expected function names", where);
			continue;
		}
		if (!f) {
			cfgtext_error(e, el, "function \"%s\" in %s is not in the functions catalogue",
				      name, where);
			continue;
		}
		for (j = 0; j < c->n_functions; j++)
			if (c->functions[j] == (unsigned)(f - p->functions))
				cfgtext_error(e, el, "%s: function \"%s\" appears twice",
					      where, name);
		c->functions[c->n_functions++] = f - p->functions;
	}
}

/* `functions = [ ... ]` of a set or a configuration: an array or a list. */
static config_setting_t *profile_parse_fnlist_member(struct cfgtext_err *e,
						     config_setting_t *g,
						     const char *where)
{
	config_setting_t *fl = profile_member(e, g, where, "functions", CONFIG_TYPE_ARRAY, false);

	if (!fl && !(fl = profile_member(e, g, where, "functions", CONFIG_TYPE_LIST, false)) &&
	    !config_setting_get_member(g, "functions"))
		cfgtext_error(e, g, "%s: functions is missing", where);
	return fl;
}

/* remote_wakeup = true: the configuration's bmAttributes bit 5. */
static void profile_wakeup(struct cfgtext_err *e, config_setting_t *g,
			   const char *where, bool *out)
{
	config_setting_t *s = profile_member(e, g, where, "remote_wakeup", CONFIG_TYPE_BOOL, false);

	if (s)
		*out = config_setting_get_bool(s);
}

static void profile_parse_config(struct cfgtext_err *e, config_setting_t *cs,
				 struct profile *p, struct profile_config *c,
				 const char *where)
{
	static const char *const keys[] = { "functions", "name", "remote_wakeup", NULL };
	config_setting_t *fl;

	if (config_setting_type(cs) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, cs, "%s: expected { functions = [ ... ]; name = \"...\"; }", where);
		return;
	}
	profile_known_keys(e, cs, where, keys);
	fl = profile_parse_fnlist_member(e, cs, where);
	if (fl)
		profile_parse_fnlist(e, fl, p, c, where, "a configuration");
	c->name = profile_str(e, cs, where, "name", 126, false);
	profile_wakeup(e, cs, where, &c->remote_wakeup);
}

/*
 * The set's functions: each once, in the order of first appearance. A
 * kernel function may sit in several configurations (ConfigFS links one
 * instance into each, as g_multi shares its acm); a FunctionFS function
 * may not, as its one worker serves one set of endpoint files.
 */
static void profile_parse_union(struct cfgtext_err *e, config_setting_t *ss,
				struct profile *p, struct profile_set *s,
				const char *path)
{
	unsigned c, i, j, first[PROFILE_MAX_FUNCTIONS];

	for (c = 0; c < s->n_configs; c++)
		for (i = 0; i < s->configs[c].n_functions; i++) {
			unsigned f = s->configs[c].functions[i];

			for (j = 0; j < s->n_functions && s->functions[j] != f; j++)
				;
			if (j < s->n_functions) {
				/* A function whose own block is broken has no type. */
				if (p->functions[f].type && p->functions[f].type->ffs &&
				    first[j] != c)
					cfgtext_error(e, ss, "%s: function \"%s\" is in configurations %u and %u: a FunctionFS function can be in one configuration only",
						      path, p->functions[f].name, first[j] + 1, c + 1);
				continue;
			}
			first[s->n_functions] = c;
			s->functions[s->n_functions++] = f;
		}
}

/* configs = ( { functions = [ ... ]; name = "..."; }, ... ) */
static void profile_parse_configs(struct cfgtext_err *e, config_setting_t *ss,
				  struct profile *p, struct profile_set *s,
				  const char *path)
{
	config_setting_t *cl = profile_member(e, ss, path, "configs", CONFIG_TYPE_LIST, false);
	char where[64];
	int i, n;

	if (!cl)
		return; /* not a list: reported */
	n = config_setting_length(cl);
	if (n == 0)
		cfgtext_error(e, cl, "%s: configs: at least one configuration is required", path);
	if (n > PROFILE_MAX_CONFIGS)
		cfgtext_error(e, cl, "%s: configs: more than %d configurations", path,
			      PROFILE_MAX_CONFIGS);
	for (i = 0; i < n && i < PROFILE_MAX_CONFIGS; i++) {
		/* Numbered from 1, as c.1 and bConfigurationValue 1. */
		snprintf(where, sizeof(where), "%s: configuration %d", path, i + 1);
		profile_parse_config(e, config_setting_get_elem(cl, i), p,
				     &s->configs[s->n_configs++], where);
	}
	profile_parse_union(e, cl, p, s, path);
}

static void profile_parse_set(struct cfgtext_err *e, config_setting_t *ss, struct profile *p,
			      int idx)
{
	static const char *const keys[] = { "functions", "configs", "vendor_id", "product_id",
					    "product", "remote_wakeup", NULL };
	struct profile_set *s = &p->sets[p->n_sets];
	config_setting_t *fl;
	char path[32];
	long long v;
	unsigned i, before;
	bool wakeup = false;

	/* Sets are numbered from 1, as a reader counts them in the file. */
	snprintf(path, sizeof(path), "set %d", idx + 1);
	if (config_setting_type(ss) != CONFIG_TYPE_GROUP) {
		cfgtext_error(e, ss, "%s: expected { functions = [ ... ]; product_id = ...; }", path);
		return;
	}
	profile_known_keys(e, ss, path, keys);
	before = e->count;
	/* The set's value is every configuration's default. */
	profile_wakeup(e, ss, path, &wakeup);
	for (i = 0; i < PROFILE_MAX_CONFIGS; i++)
		s->configs[i].remote_wakeup = wakeup;
	if (config_setting_get_member(ss, "configs")) {
		if (config_setting_get_member(ss, "functions"))
			cfgtext_error(e, config_setting_get_member(ss, "functions"),
				      "%s: functions and configs: give the functions of each configuration in configs, or functions alone for one configuration",
				      path);
		else
			profile_parse_configs(e, ss, p, s, path);
	} else {
		fl = profile_parse_fnlist_member(e, ss, path);
		if (!fl)
			return;
		s->n_configs = 1;
		profile_parse_fnlist(e, fl, p, &s->configs[0], path, "a set");
		s->n_functions = s->configs[0].n_functions;
		memcpy(s->functions, s->configs[0].functions, sizeof(s->functions));
	}
	/* A set with a bad function list would look like another set once
	 * the bad names are left out: keep it out of the comparisons. */
	if (e->count != before)
		s->n_functions = 0;
	s->vendor_id = profile_int(e, ss, path, "vendor_id", 0, 0xffff, false, &v) ? v : p->vendor_id;
	s->product_id = profile_int(e, ss, path, "product_id", 0, 0xffff, false, &v) ? v : p->product_id;
	s->product = profile_str(e, ss, path, "product", 126, false);
	for (i = 0; i < p->n_sets; i++) {
		if (s->n_functions && profile_set_equal(&p->sets[i], s))
			cfgtext_error(e, ss, "%s: the same functions as set %u", path, i + 1);
		else if (p->sets[i].vendor_id == s->vendor_id &&
			 p->sets[i].product_id == s->product_id)
			cfgtext_error(e, ss, "%s: ids %04x:%04x already used by set %u (hosts cache drivers by vendor:product)",
				      path, s->vendor_id, s->product_id, i + 1);
	}
	p->n_sets++;
}

static void profile_sets(struct cfgtext_err *e, config_t *cfg, struct profile *p)
{
	config_setting_t *ss = config_lookup(cfg, "sets");
	config_setting_t *d = config_lookup(cfg, "default");
	char err[512];
	int i, n;

	if (!ss || config_setting_type(ss) != CONFIG_TYPE_LIST) {
		cfgtext_error(e, ss, "sets: a list ( { functions = [ ... ]; }, ... ) is required");
		return;
	}
	n = config_setting_length(ss);
	if (n == 0)
		cfgtext_error(e, ss, "sets: at least one set is required");
	if (n > PROFILE_MAX_SETS)
		cfgtext_error(e, ss, "sets: more than %d sets", PROFILE_MAX_SETS);
	for (i = 0; i < n && i < PROFILE_MAX_SETS; i++)
		profile_parse_set(e, config_setting_get_elem(ss, i), p, i);
	p->default_set = -1;
	if (!d)
		return;
	if (config_setting_type(d) != CONFIG_TYPE_STRING) {
		cfgtext_error(e, d, "default: expected a set such as \"acm,ecm\"");
		return;
	}
	if (e->count)
		return; /* the sets themselves are broken */
	p->default_set = profile_set_find(p, config_setting_get_string(d), err, sizeof(err));
	if (p->default_set < 0)
		cfgtext_error(e, d, "default: %s", err);
}

/* ask = true: a host gets the default set until someone chooses. */
static void profile_ask(struct cfgtext_err *e, config_t *cfg, struct profile *p)
{
	config_setting_t *a = config_lookup(cfg, "ask");

	if (a && config_setting_type(a) != CONFIG_TYPE_BOOL)
		cfgtext_error(e, a, "ask: expected true or false");
	else if (a && (p->ask = config_setting_get_bool(a)) && !config_lookup(cfg, "default"))
		cfgtext_error(e, a, "ask: true needs a default set, the one a host gets until a choice is made");
}

static void profile_top_keys(struct cfgtext_err *e, config_t *cfg)
{
	static const char *const keys[] = { "gadget", "functions", "sets", "default", "ask", NULL };

	profile_known_keys(e, config_root_setting(cfg), "", keys);
}

static char *profile_basename(const char *name)
{
	const char *b = strrchr(name, '/');
	char *n = strdup(b ? b + 1 : name);
	size_t l = n ? strlen(n) : 0;

	if (l > 5 && !strcmp(n + l - 5, ".conf"))
		n[l - 5] = '\0';
	return n;
}

static int profile_build(config_t *cfg, const char *file, struct profile **out,
			 char *err, size_t err_size)
{
	/* Line 1 for what is missing altogether, such as the gadget group. */
	struct cfgtext_err e = { .file = file, .buf = err, .size = err_size, .line = 1 };
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->path = strdup(file);
	p->name = profile_basename(file);
	p->default_set = -1;
	profile_top_keys(&e, cfg);
	profile_gadget(&e, cfg, p);
	profile_functions(&e, cfg, p);
	profile_sets(&e, cfg, p);
	profile_ask(&e, cfg, p);
	if (e.count) {
		profile_free(p);
		return -EINVAL;
	}
	*out = p;
	return 0;
}

int profile_parse(const char *name, const char *text, struct profile **out,
		  char *err, size_t err_size)
{
	config_t cfg;
	int r;

	*out = NULL;
	config_init(&cfg);
	r = cfgtext_parse(&cfg, name, text, err, err_size);
	if (!r)
		r = profile_build(&cfg, name, out, err, err_size);
	config_destroy(&cfg);
	return r;
}

int profile_load(const char *path, struct profile **out, char *err,
		 size_t err_size)
{
	char *text = NULL;
	int r;

	*out = NULL;
	if (err_size)
		err[0] = '\0';
	r = cfgtext_load(path, &text, err, err_size);
	if (r < 0)
		return r;
	r = profile_parse(path, text, out, err, err_size);
	free(text);
	return r;
}

void profile_free(struct profile *p)
{
	unsigned i, j;

	if (!p)
		return;
	for (i = 0; i < p->n_functions; i++) {
		free(p->functions[i].plugin);
		profile_exec_free(&p->functions[i]);
		free(p->functions[i].user);
		free(p->functions[i].group);
		for (j = 0; j < p->functions[i].n_options; j++) {
			free(p->functions[i].options[j].key);
			free(p->functions[i].options[j].value);
		}
	}
	for (i = 0; i < p->n_sets; i++) {
		free(p->sets[i].product);
		for (j = 0; j < p->sets[i].n_configs; j++)
			free(p->sets[i].configs[j].name);
	}
	free(p->name);
	free(p->path);
	free(p->manufacturer);
	free(p->product);
	free(p->serial);
	free(p->os_qw_sign);
	free(p);
}
