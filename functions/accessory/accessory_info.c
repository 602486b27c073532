#include "accessory_info.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const accessory_info_keys[ACCESSORY_INFO_N] = {
	[ACCESSORY_INFO_MANUFACTURER] = "manufacturer",
	[ACCESSORY_INFO_MODEL] = "model",
	[ACCESSORY_INFO_DESCRIPTION] = "description",
	[ACCESSORY_INFO_VERSION] = "version",
	[ACCESSORY_INFO_URI] = "uri",
	[ACCESSORY_INFO_SERIAL] = "serial",
};

void accessory_info_clear(struct accessory_info *ai)
{
	memset(ai, 0, sizeof(*ai));
}

const char *accessory_info_key(unsigned field)
{
	return field < ACCESSORY_INFO_N ? accessory_info_keys[field] : NULL;
}

static bool accessory_info_is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int accessory_info_set(struct accessory_info *ai, unsigned field,
		       const uint8_t *data, size_t len)
{
	const uint8_t *nul;
	size_t i, n;

	if (field >= ACCESSORY_INFO_N)
		return -EINVAL;
	if (len == 0 || len > ACCESSORY_INFO_MAX)
		return -EMSGSIZE;
	nul = memchr(data, 0, len);
	if (!nul)
		return -EBADMSG;
	n = nul - data;
	memset(ai->s[field], 0, ACCESSORY_INFO_MAX);
	/* Replace control characters so that a value is always one line of
	 * the text form and harmless in logs and `gadgetctl status`. */
	for (i = 0; i < n; i++)
		ai->s[field][i] = accessory_info_is_ctl(data[i]) ? '?' : data[i];
	ai->s[field][n] = '\0';
	return 0;
}

int accessory_info_format(const struct accessory_info *ai, char *buf,
			  size_t size)
{
	size_t off = 0;
	unsigned i;
	int n;

	for (i = 0; i < ACCESSORY_INFO_N; i++) {
		n = snprintf(buf + off, size - off, "%s=%s\n",
			     accessory_info_keys[i], ai->s[i]);
		if (n < 0 || (size_t)n >= size - off)
			return -ENOSPC;
		off += n;
	}
	if (off + 2 > size)
		return -ENOSPC;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}

static int accessory_info_find_key(const char *key, size_t len)
{
	unsigned i;

	for (i = 0; i < ACCESSORY_INFO_N; i++)
		if (strlen(accessory_info_keys[i]) == len &&
		    !memcmp(accessory_info_keys[i], key, len))
			return (int)i;
	return -1;
}

/* One "key=value" line (without its newline) into out; seen tracks keys. */
static int accessory_info_parse_line(struct accessory_info *out,
				     unsigned *seen, const char *line,
				     size_t len)
{
	const char *eq = memchr(line, '=', len);
	size_t i, vlen;
	int field;

	if (!eq)
		return -EBADMSG;
	field = accessory_info_find_key(line, eq - line);
	if (field < 0 || (*seen & (1u << field)))
		return -EBADMSG;
	*seen |= 1u << field;
	vlen = len - (eq - line) - 1;
	if (vlen >= ACCESSORY_INFO_MAX)
		return -EMSGSIZE;
	for (i = 0; i < vlen; i++)
		if (accessory_info_is_ctl((unsigned char)eq[1 + i]))
			return -EBADMSG;
	memcpy(out->s[field], eq + 1, vlen);
	out->s[field][vlen] = '\0';
	return 0;
}

int accessory_info_parse(struct accessory_info *ai, const char *text,
			 size_t len)
{
	struct accessory_info tmp;
	unsigned seen = 0;
	size_t off = 0;
	int r;

	accessory_info_clear(&tmp);
	for (;;) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t llen;

		if (!nl)
			return -EBADMSG;
		llen = nl - (text + off);
		if (llen == 0)
			break;
		r = accessory_info_parse_line(&tmp, &seen, text + off, llen);
		if (r < 0)
			return r;
		off += llen + 1;
	}
	if (off + 1 != len || seen != (1u << ACCESSORY_INFO_N) - 1)
		return -EBADMSG;
	*ai = tmp;
	return 0;
}

static int accessory_info_path(char *buf, size_t size, const char *dir,
			       const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int accessory_info_save(const struct accessory_info *ai, const char *dir)
{
	const struct fsutil_mkdir dirs = {
		.mode = 0755,
		.parent_mode = 0755,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	char text[ACCESSORY_INFO_TEXT_MAX], path[PATH_MAX];
	int len, r;

	len = accessory_info_format(ai, text, sizeof(text));
	if (len < 0)
		return len;
	if (accessory_info_path(path, sizeof(path), dir, ACCESSORY_INFO_FILE))
		return -ENAMETOOLONG;
	r = fsutil_mkdir_p(dir, &dirs, NULL);
	if (r < 0)
		return r;
	close(r);
	/* The data instance reads the file right after the switch; a crash
	 * in between must not leave it half written. */
	return fsutil_write_atomic(path, text, len, 0640);
}

int accessory_info_load(struct accessory_info *ai, const char *dir)
{
	char text[ACCESSORY_INFO_TEXT_MAX], path[PATH_MAX];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (accessory_info_path(path, sizeof(path), dir, ACCESSORY_INFO_FILE))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, text + len, sizeof(text) - len);
		if (n > 0)
			len += n;
	} while ((n > 0 && len < sizeof(text)) || (n < 0 && errno == EINTR));
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	/* A full buffer means the file is larger than any valid one. */
	if (len == sizeof(text))
		return -EMSGSIZE;
	return accessory_info_parse(ai, text, len);
}
