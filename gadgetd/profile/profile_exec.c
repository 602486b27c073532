/* profile_exec: an existing FunctionFS program as a function
 * (profile_exec.h). */
#include "profile_exec.h"
#include "cfgtext.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Settings that belong to exec alone, and those of a plugin refused
 * beside it. */
static const char *const profile_exec_keys[] = {
	"exec", "args", "env", "config", "bind", "aio_guard", NULL,
};
static const char *const profile_exec_plugin_keys[] = {
	"plugin", "options", "root", NULL,
};

static bool profile_exec_in(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

bool profile_exec_key(const char *key)
{
	return profile_exec_in(profile_exec_keys, key);
}

/* Which escape of s is not %f, %c (if allowed) or %%, or NULL. */
static const char *profile_exec_bad_escape(const char *s, bool conf)
{
	for (s = strchr(s, '%'); s; s = strchr(s + 2, '%')) {
		if (s[1] == 'f' || s[1] == '%' || (conf && s[1] == 'c'))
			continue;
		return s;
	}
	return NULL;
}

/* A string of at most max bytes, without control characters but (in
 * config) newlines and tabs, and with known escapes only. */
static bool profile_exec_text_ok(struct cfgtext_err *e, const config_setting_t *s,
				 const struct profile_function *f,
				 const char *what, const char *v, size_t max,
				 bool conf, bool lines)
{
	const char *bad;
	size_t i;

	if (strlen(v) > max) {
		cfgtext_error(e, s, "functions.%s.%s: longer than %zu bytes",
			      f->name, what, max);
		return false;
	}
	for (i = 0; v[i]; i++)
		if (iscntrl((unsigned char)v[i]) &&
		    !(lines && (v[i] == '\n' || v[i] == '\t'))) {
			cfgtext_error(e, s, "functions.%s.%s: control character 0x%02x",
				      f->name, what, (unsigned char)v[i]);
			return false;
		}
	bad = profile_exec_bad_escape(v, conf);
	if (bad) {
		cfgtext_error(e, s, "functions.%s.%s: \"%.2s\" is not %%f (the instance's folder)%s or %%%%",
			      f->name, what, bad, conf ? ", %c (the config file)" : "");
		return false;
	}
	return true;
}

/* VAR=value, VAR a shell name. */
static bool profile_exec_env_ok(const char *v)
{
	const char *eq = strchr(v, '=');
	const char *p;

	if (!eq || eq == v || isdigit((unsigned char)v[0]))
		return false;
	for (p = v; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* args or env: a list of strings into out (n of them). */
static void profile_exec_list(struct cfgtext_err *e, config_setting_t *fs,
			      struct profile_function *f, const char *key,
			      char **out, unsigned *n)
{
	config_setting_t *l = config_setting_get_member(fs, key);
	bool conf = config_setting_get_member(fs, "config") != NULL;
	int i, len;

	if (!l)
		return;
	if (config_setting_type(l) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(l) != CONFIG_TYPE_LIST) {
		cfgtext_error(e, l, "functions.%s.%s: expected a list of strings [ \"...\", ... ]",
			      f->name, key);
		return;
	}
	len = config_setting_length(l);
	if (len > PROFILE_EXEC_MAX_ARGS) {
		cfgtext_error(e, l, "functions.%s.%s: more than %d entries",
			      f->name, key, PROFILE_EXEC_MAX_ARGS);
		return;
	}
	for (i = 0; i < len; i++) {
		config_setting_t *el = config_setting_get_elem(l, i);
		const char *v = config_setting_get_string(el);

		if (!v) {
			cfgtext_error(e, el, "functions.%s.%s: entry %d is not a string",
				      f->name, key, i + 1);
			continue;
		}
		if (!strcmp(key, "env") && !profile_exec_env_ok(v)) {
			cfgtext_error(e, el, "functions.%s.env: \"%s\": expected NAME=VALUE",
				      f->name, v);
			continue;
		}
		if (profile_exec_text_ok(e, el, f, key, v, PROFILE_EXEC_ARG_MAX,
					 conf, false))
			out[(*n)++] = strdup(v);
	}
}

/* An absolute path without "." or ".." components, not "/". */
static bool profile_exec_path_ok(const char *v)
{
	const char *c;

	if (v[0] != '/' || !v[1] || strlen(v) >= PROFILE_EXEC_ARG_MAX)
		return false;
	for (c = v; c; c = strchr(c + 1, '/'))
		if (!strncmp(c, "/./", 3) || !strncmp(c, "/../", 4) ||
		    !strcmp(c, "/.") || !strcmp(c, "/..") || !strncmp(c, "//", 2))
			return false;
	return true;
}

/* The program: an executable regular file, now. */
static void profile_exec_program(struct cfgtext_err *e, config_setting_t *s,
				 struct profile_function *f)
{
	const char *v = config_setting_get_string(s);
	struct stat st;

	if (!profile_exec_path_ok(v)) {
		cfgtext_error(e, s, "functions.%s.exec: \"%s\" is not an absolute path",
			      f->name, v);
		return;
	}
	if (stat(v, &st) < 0) {
		cfgtext_error(e, s, "functions.%s.exec: %s: %s", f->name, v,
			      strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
		cfgtext_error(e, s, "functions.%s.exec: %s is not an executable file",
			      f->name, v);
		return;
	}
	f->exec = strdup(v);
}

/* A string setting of fs, or NULL (wrong types are said). */
static config_setting_t *profile_exec_string(struct cfgtext_err *e,
					     config_setting_t *fs,
					     const struct profile_function *f,
					     const char *key)
{
	config_setting_t *s = config_setting_get_member(fs, key);

	if (s && config_setting_type(s) != CONFIG_TYPE_STRING) {
		cfgtext_error(e, s, "functions.%s.%s: expected a string", f->name, key);
		return NULL;
	}
	return s;
}

bool profile_exec_parse(struct cfgtext_err *e, config_setting_t *fs,
			struct profile_function *f)
{
	config_setting_t *s = config_setting_get_member(fs, "exec");
	const char *const *k;
	const char *v;

	if (!s) {
		for (k = profile_exec_keys + 1; *k; k++)
			if ((s = config_setting_get_member(fs, *k)))
				cfgtext_error(e, s, "functions.%s.%s: only with exec = \"/path/program\"",
					      f->name, *k);
		return false;
	}
	for (k = profile_exec_plugin_keys; *k; k++)
		if (config_setting_get_member(fs, *k))
			cfgtext_error(e, config_setting_get_member(fs, *k),
				      "functions.%s.%s: not with exec (a program has no plugin)",
				      f->name, *k);
	if ((s = profile_exec_string(e, fs, f, "exec")))
		profile_exec_program(e, s, f);
	profile_exec_list(e, fs, f, "args", f->args, &f->n_args);
	profile_exec_list(e, fs, f, "env", f->env, &f->n_env);
	if ((s = profile_exec_string(e, fs, f, "config")) &&
	    profile_exec_text_ok(e, s, f, "config", config_setting_get_string(s),
				 PROFILE_EXEC_CONFIG_MAX, false, true))
		f->config = strdup(config_setting_get_string(s));
	if ((s = profile_exec_string(e, fs, f, "bind"))) {
		v = config_setting_get_string(s);
		if (profile_exec_path_ok(v))
			f->bind = strdup(v);
		else
			cfgtext_error(e, s, "functions.%s.bind: \"%s\" is not an absolute path",
				      f->name, v);
	}
	f->aio_guard = true;
	if ((s = config_setting_get_member(fs, "aio_guard"))) {
		if (config_setting_type(s) == CONFIG_TYPE_BOOL)
			f->aio_guard = config_setting_get_bool(s);
		else
			cfgtext_error(e, s, "functions.%s.aio_guard: expected true or false",
				      f->name);
	}
	return true;
}

int profile_exec_expand(const char *s, const char *ffs, const char *conf,
			char **out)
{
	size_t n = 0, size = strlen(s) + 1;
	const char *p, *sub;
	char *buf;

	for (p = strchr(s, '%'); p && p[1]; p = strchr(p + 2, '%'))
		size += p[1] == 'f' ? strlen(ffs) : p[1] == 'c' && conf ? strlen(conf) : 0;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (p = s; *p; p++) {
		if (*p != '%') {
			buf[n++] = *p;
			continue;
		}
		sub = p[1] == 'f' ? ffs : p[1] == 'c' ? conf : p[1] == '%' ? "%" : NULL;
		if (!sub) {
			free(buf);
			return -EINVAL;
		}
		memcpy(buf + n, sub, strlen(sub));
		n += strlen(sub);
		p++;
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

void profile_exec_free(struct profile_function *f)
{
	unsigned i;

	for (i = 0; i < f->n_args; i++)
		free(f->args[i]);
	for (i = 0; i < f->n_env; i++)
		free(f->env[i]);
	free(f->exec);
	free(f->config);
	free(f->bind);
}
