/* adb_syncmsg: the sync request parser and the reply writers. */
#include "adb_syncmsg.h"

#include <errno.h>
#include <string.h>

enum {
	PARSE_REQ,       /* expecting a request header */
	PARSE_PATH,      /* reading left more path bytes */
	PARSE_SEND_HDR,  /* expecting DATA or DONE */
	PARSE_SEND_DATA, /* left more bytes of a DATA message */
	PARSE_SETUP,     /* the setup message after SND2's or RCV2's path */
};

static uint32_t syncmsg_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void adb_syncmsg_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void syncmsg_put64(uint8_t *p, uint64_t v)
{
	adb_syncmsg_put32(p, (uint32_t)v);
	adb_syncmsg_put32(p + 4, (uint32_t)(v >> 32));
}

void adb_syncmsg_put_header(uint8_t *p, uint32_t id, uint32_t arg)
{
	adb_syncmsg_put32(p, id);
	adb_syncmsg_put32(p + 4, arg);
}

/* mode, size and mtime: the body of both v1 records, truncated to 32 bits
 * as v1 has it. */
static void syncmsg_put_v1_fields(uint8_t *p, const struct stat *st)
{
	adb_syncmsg_put32(p, st->st_mode);
	adb_syncmsg_put32(p + 4, (uint32_t)st->st_size);
	adb_syncmsg_put32(p + 8, (uint32_t)st->st_mtime);
}

void adb_syncmsg_put_stat_v1(uint8_t *p, const struct stat *st)
{
	memset(p, 0, ADB_SYNC_STAT_V1_SIZE);
	adb_syncmsg_put32(p, ADB_SYNC_STAT);
	if (st)
		syncmsg_put_v1_fields(p + 4, st);
}

void adb_syncmsg_put_stat_v2(uint8_t *p, uint32_t id, const struct stat *st,
			     int err)
{
	memset(p, 0, ADB_SYNC_STAT_V2_SIZE);
	adb_syncmsg_put_header(p, id, err);
	if (err)
		return;
	syncmsg_put64(p + 8, st->st_dev);
	syncmsg_put64(p + 16, st->st_ino);
	adb_syncmsg_put32(p + 24, st->st_mode);
	adb_syncmsg_put32(p + 28, st->st_nlink);
	adb_syncmsg_put32(p + 32, st->st_uid);
	adb_syncmsg_put32(p + 36, st->st_gid);
	syncmsg_put64(p + 40, st->st_size);
	syncmsg_put64(p + 48, st->st_atime);
	syncmsg_put64(p + 56, st->st_mtime);
	syncmsg_put64(p + 64, st->st_ctime);
}

size_t adb_syncmsg_put_dent_v1(uint8_t *p, const struct stat *st,
			       const char *name, size_t len)
{
	adb_syncmsg_put32(p, ADB_SYNC_DENT);
	syncmsg_put_v1_fields(p + 4, st);
	adb_syncmsg_put32(p + 16, len);
	memcpy(p + ADB_SYNC_DENT_V1_SIZE, name, len);
	return ADB_SYNC_DENT_V1_SIZE + len;
}

size_t adb_syncmsg_put_dent_v2(uint8_t *p, const struct stat *st, int err,
			       const char *name, size_t len)
{
	adb_syncmsg_put_stat_v2(p, ADB_SYNC_DNT2, st, err);
	adb_syncmsg_put32(p + ADB_SYNC_STAT_V2_SIZE, len);
	memcpy(p + ADB_SYNC_DENT_V2_SIZE, name, len);
	return ADB_SYNC_DENT_V2_SIZE + len;
}

size_t adb_syncmsg_put_list_done(uint8_t *p, bool v2)
{
	size_t n = v2 ? ADB_SYNC_DENT_V2_SIZE : ADB_SYNC_DENT_V1_SIZE;

	memset(p, 0, n);
	adb_syncmsg_put32(p, ADB_SYNC_DONE);
	return n;
}

void adb_syncmsg_parser_init(struct adb_syncmsg_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->state = PARSE_REQ;
}

static int syncmsg_is_request(uint32_t id)
{
	return id == ADB_SYNC_STAT || id == ADB_SYNC_STA2 ||
	       id == ADB_SYNC_LST2 || id == ADB_SYNC_LIST ||
	       id == ADB_SYNC_LIS2 || id == ADB_SYNC_SEND ||
	       id == ADB_SYNC_RECV || id == ADB_SYNC_QUIT ||
	       id == ADB_SYNC_SND2 || id == ADB_SYNC_RCV2;
}

/* Collect the 8-byte header; returns 1 once complete. */
static int syncmsg_take_hdr(struct adb_syncmsg_parser *p, const uint8_t *buf,
			    size_t len, size_t *used)
{
	size_t n = sizeof(p->hdr) - p->hdr_have;

	if (n > len)
		n = len;
	memcpy(p->hdr + p->hdr_have, buf, n);
	p->hdr_have += n;
	*used += n;
	if (p->hdr_have < sizeof(p->hdr))
		return 0;
	p->hdr_have = 0;
	p->id = syncmsg_get32(p->hdr);
	p->left = syncmsg_get32(p->hdr + 4);
	return 1;
}

static int syncmsg_request_header(struct adb_syncmsg_parser *p,
				  struct adb_syncmsg_event *ev)
{
	if (!syncmsg_is_request(p->id))
		return -ENOTSUP;
	if (p->left > ADB_SYNC_PATH_MAX)
		return -ENAMETOOLONG;
	p->path_have = 0;
	p->state = PARSE_PATH;
	return 0;
}

static size_t syncmsg_setup_size(uint32_t id)
{
	return id == ADB_SYNC_SND2 ? 12 : 8;
}

static int syncmsg_path_done(struct adb_syncmsg_parser *p,
			     struct adb_syncmsg_event *ev)
{
	p->path[p->path_have] = '\0';
	if (memchr(p->path, '\0', p->path_have))
		return -EINVAL;
	if ((p->id == ADB_SYNC_SND2 || p->id == ADB_SYNC_RCV2) &&
	    p->state != PARSE_SETUP) {
		p->setup_have = 0;
		p->state = PARSE_SETUP;
		return 0;
	}
	if (p->state == PARSE_SETUP) {
		if (syncmsg_get32(p->setup) != p->id)
			return -EPROTO;
		if (p->id == ADB_SYNC_SND2) {
			ev->mode = syncmsg_get32(p->setup + 4);
			ev->flags = syncmsg_get32(p->setup + 8);
		} else {
			ev->flags = syncmsg_get32(p->setup + 4);
		}
	}
	ev->type = ADB_SYNC_EV_REQUEST;
	ev->id = p->id;
	ev->path = p->path;
	ev->path_len = p->path_have;
	p->state = p->id == ADB_SYNC_SEND || p->id == ADB_SYNC_SND2
			   ? PARSE_SEND_HDR
			   : PARSE_REQ;
	return 0;
}

static int syncmsg_send_header(struct adb_syncmsg_parser *p,
			       struct adb_syncmsg_event *ev)
{
	if (p->id == ADB_SYNC_DONE) {
		ev->type = ADB_SYNC_EV_DONE;
		ev->id = p->id;
		ev->mtime = p->left;
		p->state = PARSE_REQ;
		return 0;
	}
	if (p->id != ADB_SYNC_DATA)
		return -EPROTO;
	if (p->left > ADB_SYNC_DATA_MAX)
		return -EMSGSIZE;
	if (p->left)
		p->state = PARSE_SEND_DATA;
	return 0;
}

int adb_syncmsg_parse(struct adb_syncmsg_parser *p, const uint8_t *buf,
		      size_t len, size_t *used, struct adb_syncmsg_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	*used = 0;
	while (*used < len && ev->type == ADB_SYNC_EV_NONE) {
		const uint8_t *b = buf + *used;
		size_t n = len - *used;
		int rc = 0;

		switch (p->state) {
		case PARSE_REQ:
		case PARSE_SEND_HDR:
			if (!syncmsg_take_hdr(p, b, n, used))
				break;
			rc = p->state == PARSE_REQ
				 ? syncmsg_request_header(p, ev)
				 : syncmsg_send_header(p, ev);
			if (rc == 0 && p->state == PARSE_PATH && p->left == 0)
				rc = syncmsg_path_done(p, ev);
			break;
		case PARSE_PATH:
			if (n > p->left)
				n = p->left;
			memcpy(p->path + p->path_have, b, n);
			p->path_have += n;
			p->left -= n;
			*used += n;
			if (p->left == 0)
				rc = syncmsg_path_done(p, ev);
			break;
		case PARSE_SETUP:
			if (n > syncmsg_setup_size(p->id) - p->setup_have)
				n = syncmsg_setup_size(p->id) - p->setup_have;
			memcpy(p->setup + p->setup_have, b, n);
			p->setup_have += n;
			*used += n;
			if (p->setup_have == syncmsg_setup_size(p->id))
				rc = syncmsg_path_done(p, ev);
			break;
		case PARSE_SEND_DATA:
			if (n > p->left)
				n = p->left;
			ev->type = ADB_SYNC_EV_DATA;
			ev->data = b;
			ev->len = n;
			p->left -= n;
			*used += n;
			if (p->left == 0)
				p->state = PARSE_SEND_HDR;
			break;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}
