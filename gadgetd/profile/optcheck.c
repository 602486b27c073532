/*
 * optcheck: one checker for every declared option, kernel attribute or
 * plugin option alike, so that a type parses the same way everywhere.
 */
#include "optcheck.h"
#include "ootmeta.h"
#include "plugin_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "xx:xx:xx:xx:xx:xx", unicast and not all zero: the kernel refuses
 * anything else as an Ethernet address. */
static bool optcheck_mac_ok(const char *s)
{
	unsigned i, first = 0, any = 0;

	if (strlen(s) != 17)
		return false;
	for (i = 0; i < 17; i++) {
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return false;
		if (i % 3 != 2 && s[i] != '0')
			any = 1;
	}
	sscanf(s, "%2x", &first);
	return any && !(first & 1);
}

static bool optcheck_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static int optcheck_bool(const config_setting_t *s, char *out, size_t size,
			 char *why, size_t why_size)
{
	int b = -EINVAL;

	if (config_setting_type(s) == CONFIG_TYPE_BOOL)
		b = config_setting_get_bool(s);
	else if (config_setting_type(s) == CONFIG_TYPE_STRING)
		b = optdesc_bool(config_setting_get_string(s));
	else if (config_setting_type(s) == CONFIG_TYPE_INT &&
		 (config_setting_get_int(s) == 0 || config_setting_get_int(s) == 1))
		b = config_setting_get_int(s);
	if (b < 0) {
		snprintf(why, why_size, "expected true or false (or yes/no, on/off, 1/0)");
		return -EINVAL;
	}
	snprintf(out, size, "%s", b ? "true" : "false");
	return 0;
}

/* An integer, or a string holding exactly one (optdesc_int()). */
static int optcheck_int(const struct optdesc *d, const config_setting_t *s,
			char *out, size_t size, char *why, size_t why_size)
{
	long long v = 0;
	int r = -EINVAL;

	if (config_setting_type(s) == CONFIG_TYPE_INT ||
	    config_setting_type(s) == CONFIG_TYPE_INT64) {
		v = config_setting_get_int64(s);
		r = optdesc_int_range(d, v);
	} else if (config_setting_type(s) == CONFIG_TYPE_STRING) {
		r = optdesc_int(d, config_setting_get_string(s), &v);
	}
	if (r == -ERANGE) {
		snprintf(why, why_size, "%lld out of range (%lld..%lld)", v, d->min, d->max);
		return -EINVAL;
	}
	if (r < 0) {
		snprintf(why, why_size, "expected an integer");
		return -EINVAL;
	}
	snprintf(out, size, "%lld", v);
	return 0;
}

static int optcheck_enum(const struct optdesc *d, const char *v, char *why,
			 size_t why_size)
{
	const char *const *c;
	size_t n;

	for (c = d->choices; v && c && *c; c++)
		if (!strcmp(*c, v))
			return 0;
	n = snprintf(why, why_size, "expected one of");
	for (c = d->choices; c && *c && n < why_size; c++)
		n += snprintf(why + n, why_size - n, "%s \"%s\"", c == d->choices ? "" : ",", *c);
	return -EINVAL;
}

/* The text types: string, enum, path, MAC address, hex. */
static int optcheck_text(const struct optdesc *d, const char *v, char *why,
			 size_t why_size)
{
	long long max = d->max ? d->max : OPTCHECK_VALUE_MAX;

	switch (d->type) {
	case OPTDESC_STRING:
		if (strlen(v) > (size_t)max || !optcheck_printable(v)) {
			snprintf(why, why_size, "expected printable ASCII of at most %lld characters",
				 max);
			return -EINVAL;
		}
		return 0;
	case OPTDESC_ENUM:
		return optcheck_enum(d, v, why, why_size);
	case OPTDESC_PATH:
		if (v[0] != '/' || strlen(v) > OPTCHECK_VALUE_MAX || !optcheck_printable(v)) {
			snprintf(why, why_size, "expected an absolute path");
			return -EINVAL;
		}
		return 0;
	case OPTDESC_MAC:
		if (!optcheck_mac_ok(v)) {
			snprintf(why, why_size, "expected a unicast MAC address \"xx:xx:xx:xx:xx:xx\"");
			return -EINVAL;
		}
		return 0;
	case OPTDESC_HEX:
		if (optdesc_hex(v, NULL, (size_t)max) <= 0) {
			snprintf(why, why_size, "expected an even number of hex digits (at most %lld bytes)",
				 max);
			return -EINVAL;
		}
		return 0;
	case OPTDESC_BOOL:
	case OPTDESC_INT:
		break;
	}
	return -EINVAL;
}

int optcheck_value(const struct optdesc *d, const config_setting_t *s,
		   char *out, size_t out_size, char *why, size_t why_size)
{
	const char *v;

	switch (d->type) {
	case OPTDESC_BOOL:
		return optcheck_bool(s, out, out_size, why, why_size);
	case OPTDESC_INT:
		return optcheck_int(d, s, out, out_size, why, why_size);
	case OPTDESC_STRING:
	case OPTDESC_ENUM:
	case OPTDESC_PATH:
	case OPTDESC_MAC:
	case OPTDESC_HEX:
		break;
	}
	v = config_setting_type(s) == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
	if (!v) {
		snprintf(why, why_size, "expected a string");
		return -EINVAL;
	}
	if (optcheck_text(d, v, why, why_size) < 0)
		return -EINVAL;
	snprintf(out, out_size, "%s", v);
	return 0;
}

/* The plugins built with gadgetd and the out-of-tree ones described
 * (ootmeta.h), each with its declared options; one that declares none
 * takes none. */
const struct optdesc *optcheck_plugin(const char *plugin)
{
	static const struct optdesc none[] = { { 0 } };
	const struct plugin_meta *m = ootmeta_find(plugin);

	if (!m)
		return NULL;
	return m->options ? m->options : none;
}

void optcheck_names(const struct optdesc *table, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (; table && table->name && n < size; table++)
		n += snprintf(buf + n, size - n, "%s%s", n ? ", " : "", table->name);
	if (!n)
		snprintf(buf, size, "none");
}
