/* adb_sync: file transfer service (push, pull, ls, stat). */
#include "adb_sync.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "adb_compress.h"
#include "adb_syncmsg.h"
#include "fsutil.h"
#include "log.h"

#define ADB_SYNC_IOV_MAX 64
/* Host bytes held while a RECV or LIST is answered. */
#define ADB_SYNC_STASH_MAX (4 * 1024 * 1024)
#define ADB_SYNC_FLAGS_CODEC \
	(ADB_SYNC_FLAG_BROTLI | ADB_SYNC_FLAG_LZ4 | ADB_SYNC_FLAG_ZSTD)
/* A compressed RECV reads at most this many file chunks for one WRTE once
 * it has something to send, so that a file of zeros does not hold the
 * worker for the whole file. */
#define ADB_SYNC_ENC_READS 16

struct outq {
	uint8_t *b;
	size_t len, off, cap;
};

struct adb_sync {
	struct adb_stream *s;
	struct adb_syncmsg_parser parser;
	struct outq out;
	bool closing; /* QUIT or a fatal error: close once out is sent */
	/* SEND in progress */
	bool sending;
	int send_fd;
	int send_err;
	bool send_link;
	bool send_opened; /* we truncated it: remove it on failure */
	bool send_dry;    /* SND2 dry run: decode, check, write nothing */
	char send_why[96]; /* what failed, for FAIL, when not send_err */
	struct adb_compress *dec; /* SND2 with compression */
	enum adb_compress_type dec_type;
	uint8_t *dec_buf;
	char send_path[ADB_SYNC_PATH_MAX + 1];
	char link[PATH_MAX];
	size_t link_len;
	struct iovec iov[ADB_SYNC_IOV_MAX];
	int n_iov;
	/* RECV in progress */
	int recv_fd;
	bool recv_file;  /* a regular file: a short read is near its end */
	bool recv_short; /* the last read gave less than it asked */
	struct adb_compress *enc; /* RCV2 with compression */
	uint8_t *enc_in;
	size_t enc_len, enc_off;
	bool enc_eof;
	/* LIST/LIS2 in progress */
	DIR *dir;
	bool list_v2;
	char list_path[ADB_SYNC_PATH_MAX + 1];
	/* Host bytes held back while a RECV or LIST is answered. */
	uint8_t *stash;
	size_t stash_len, stash_off;
};

static const struct adb_service_ops sync_ops;

static uint8_t *sync_outq_reserve(struct outq *q, size_t n)
{
	if (q->off == q->len)
		q->off = q->len = 0;
	if (q->len + n > q->cap) {
		size_t cap = q->cap ? q->cap : 4096;
		uint8_t *b;

		while (cap < q->len + n)
			cap *= 2;
		b = realloc(q->b, cap);
		if (!b)
			return NULL;
		q->b = b;
		q->cap = cap;
	}
	q->len += n;
	return q->b + q->len - n;
}

/* FAIL with "what" or "what: strerror(err)". */
static void sync_queue_fail(struct adb_sync *sy, const char *what, int err)
{
	char msg[512];
	int n = err ? snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err))
		    : snprintf(msg, sizeof(msg), "%s", what);
	uint8_t *p;

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	p = sync_outq_reserve(&sy->out, 8 + n);
	if (!p)
		return;
	adb_syncmsg_put_header(p, ADB_SYNC_FAIL, n);
	memcpy(p + 8, msg, n);
}

static void sync_queue_msg(struct adb_sync *sy, uint32_t id, uint32_t arg)
{
	uint8_t *p = sync_outq_reserve(&sy->out, 8);

	if (!p)
		return;
	adb_syncmsg_put_header(p, id, arg);
}

static void sync_do_stat(struct adb_sync *sy, uint32_t id, const char *path)
{
	struct stat st;
	int rc = id == ADB_SYNC_STA2 ? stat(path, &st) : lstat(path, &st);
	int err = rc < 0 ? errno : 0;
	uint8_t *p;

	if (id == ADB_SYNC_STAT) {
		p = sync_outq_reserve(&sy->out, ADB_SYNC_STAT_V1_SIZE);
		if (p)
			adb_syncmsg_put_stat_v1(p, err ? NULL : &st);
		return;
	}
	p = sync_outq_reserve(&sy->out, ADB_SYNC_STAT_V2_SIZE);
	if (p)
		adb_syncmsg_put_stat_v2(p, id, &st, err);
}

static void sync_do_list(struct adb_sync *sy, uint32_t id, const char *path)
{
	sy->list_v2 = id == ADB_SYNC_LIS2;
	snprintf(sy->list_path, sizeof(sy->list_path), "%s", path);
	sy->dir = opendir(path);
	if (!sy->dir) {
		/* adbd answers an unreadable directory with an empty list. */
		size_t dsize = sy->list_v2 ? ADB_SYNC_DENT_V2_SIZE
					   : ADB_SYNC_DENT_V1_SIZE;
		uint8_t *p = sync_outq_reserve(&sy->out, dsize);

		log_debug("adb: sync: cannot list %s: %s", path,
			  strerror(errno));
		if (p)
			adb_syncmsg_put_list_done(p, sy->list_v2);
	}
}

/* Append directory entries (and the final DONE) until about limit bytes. */
static void sync_list_more(struct adb_sync *sy, size_t limit)
{
	size_t dsize = sy->list_v2 ? ADB_SYNC_DENT_V2_SIZE : ADB_SYNC_DENT_V1_SIZE;
	char full[ADB_SYNC_PATH_MAX + NAME_MAX + 2];
	struct dirent *de;

	while (sy->out.len - sy->out.off < limit && (de = readdir(sy->dir))) {
		size_t nlen = strlen(de->d_name);
		struct stat st;
		int err = 0;
		uint8_t *p;

		snprintf(full, sizeof(full), "%s/%s", sy->list_path, de->d_name);
		if (lstat(full, &st) < 0) {
			err = errno;
			if (!sy->list_v2)
				continue;
		}
		p = sync_outq_reserve(&sy->out, dsize + nlen);
		if (!p)
			break;
		if (sy->list_v2)
			adb_syncmsg_put_dent_v2(p, &st, err, de->d_name, nlen);
		else
			adb_syncmsg_put_dent_v1(p, &st, de->d_name, nlen);
	}
	if (sy->out.len - sy->out.off >= limit)
		return;
	closedir(sy->dir);
	sy->dir = NULL;
	uint8_t *p = sync_outq_reserve(&sy->out, dsize);
	if (p)
		adb_syncmsg_put_list_done(p, sy->list_v2);
}

static void sync_send_reset(struct adb_sync *sy)
{
	sy->sending = true;
	sy->send_fd = -1;
	sy->send_err = 0;
	sy->send_why[0] = '\0';
	sy->link_len = 0;
	sy->send_opened = false;
	sy->send_dry = false;
	sy->send_link = false;
	adb_compress_free(sy->dec);
	sy->dec = NULL;
}

/* Create send_path (and its folders) with mode, unless a dry run. */
static void sync_send_open(struct adb_sync *sy, unsigned long mode)
{
	const struct fsutil_mkdir dirs = {
		.flags = FSUTIL_MKDIR_PARENTS,
		.mode = 0775,
		.parent_mode = 0775,
		.uid = (uid_t)-1,
		.gid = (gid_t)-1,
	};
	int r;

	sy->send_link = S_ISLNK(mode);
	if (sy->send_dry)
		return;
	/* adbd makes the missing folders of a push, 0775 each. */
	r = fsutil_mkdir_p(sy->send_path, &dirs, NULL);
	if (r < 0) {
		sy->send_err = -r;
		return;
	}
	close(r);
	if (sy->send_link)
		return;
	sy->send_fd = open(sy->send_path,
			   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK,
			   mode & 0777);
	if (sy->send_fd < 0)
		sy->send_err = errno;
	else
		sy->send_opened = true;
	if (sy->send_fd >= 0)
		fchmod(sy->send_fd, mode & 0777);
}

static void sync_do_send(struct adb_sync *sy, const char *spec)
{
	const char *comma = strrchr(spec, ',');
	unsigned long mode;
	char *end;

	sync_send_reset(sy);
	if (!comma || comma == spec) {
		sy->send_err = EINVAL;
		snprintf(sy->send_path, sizeof(sy->send_path), "%s", spec);
		return;
	}
	snprintf(sy->send_path, sizeof(sy->send_path), "%.*s",
		 (int)(comma - spec), spec);
	mode = strtoul(comma + 1, &end, 10);
	if (*end != '\0') {
		sy->send_err = EINVAL;
		return;
	}
	sync_send_open(sy, mode);
}

/*
 * The codec that sendrecv_v2 flags ask for: 0 with *type set, 1 for no
 * compression, -EINVAL for more than one codec or a flag outside
 * allowed (AOSP answers both with FAIL).
 */
static int sync_flags_codec(uint32_t flags, uint32_t allowed,
			    enum adb_compress_type *type)
{
	if (flags & ~allowed)
		return -EINVAL;
	switch (flags & ADB_SYNC_FLAGS_CODEC) {
	case 0:
		return 1;
	case ADB_SYNC_FLAG_BROTLI: *type = ADB_COMPRESS_BROTLI; return 0;
	case ADB_SYNC_FLAG_LZ4: *type = ADB_COMPRESS_LZ4; return 0;
	case ADB_SYNC_FLAG_ZSTD: *type = ADB_COMPRESS_ZSTD; return 0;
	}
	return -EINVAL;
}

static void sync_do_send2(struct adb_sync *sy,
			  const struct adb_syncmsg_event *ev)
{
	uint32_t allowed = ADB_SYNC_FLAGS_CODEC | ADB_SYNC_FLAG_DRY_RUN;
	int rc;

	sync_send_reset(sy);
	snprintf(sy->send_path, sizeof(sy->send_path), "%s", ev->path);
	rc = sync_flags_codec(ev->flags, allowed, &sy->dec_type);
	if (rc < 0) {
		log_warnx("adb: sync: SND2 with flags %#x; closing the stream",
			  ev->flags);
		sync_queue_fail(sy, "unsupported SND2 flags", 0);
		sy->sending = false;
		sy->closing = true;
		return;
	}
	if (rc == 0) {
		if (!sy->dec_buf)
			sy->dec_buf = malloc(ADB_SYNC_DATA_MAX);
		sy->dec =
		    sy->dec_buf ? adb_compress_new(sy->dec_type, false) : NULL;
		if (!sy->dec) {
			sy->send_err = ENOMEM;
			return;
		}
	}
	sy->send_dry = ev->flags & ADB_SYNC_FLAG_DRY_RUN;
	sync_send_open(sy, ev->mode);
}

/* Write the gathered DATA pieces with one writev() (none: nothing). */
static void sync_flush_data(struct adb_sync *sy)
{
	struct iovec *iov = sy->iov;
	int cnt = sy->n_iov;

	sy->n_iov = 0;
	while (cnt > 0 && !sy->send_err) {
		ssize_t n = writev(sy->send_fd, iov, cnt);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sy->send_err = n < 0 ? errno : ENOSPC;
			return;
		}
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
}

/* Where a push's (decoded) bytes go: the link's text, the file (written
 * now), or nowhere in a dry run. */
static void sync_sink(struct adb_sync *sy, const uint8_t *d, size_t len)
{
	if (sy->send_link) {
		if (sy->link_len + len >= sizeof(sy->link)) {
			sy->send_err = ENAMETOOLONG;
			return;
		}
		memcpy(sy->link + sy->link_len, d, len);
		sy->link_len += len;
		return;
	}
	if (sy->send_dry)
		return;
	while (len && !sy->send_err) {
		ssize_t n = write(sy->send_fd, d, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sy->send_err = n < 0 ? errno : ENOSPC;
			return;
		}
		d += n;
		len -= n;
	}
}

static void sync_decode_failed(struct adb_sync *sy, int rc, const char *what)
{
	snprintf(sy->send_why, sizeof(sy->send_why), "%s %s data",
		 rc == -EMSGSIZE ? "too large a window in"
		 : rc == -E2BIG	 ? "over 64 MiB from one DATA message of"
		 : rc == -ENOMEM ? "out of memory for"
				 : what,
		 adb_compress_name(sy->dec_type));
	sy->send_err = -rc;
}

/*
 * A piece of compressed DATA: decoded 64 KiB at a time into the sink, so
 * that what a host sends never makes us hold more than the decoder's
 * window, however far it expands. The work one message may cost is
 * bounded too: 64 KiB of zstd can stand for 2 GiB, and the worker's loop
 * (heartbeats included) waits while it is decoded. Hosts' streaming
 * encoders emit a DATA message every block or so (zstd 128 KiB, LZ4 at
 * most 4 MiB, brotli a few MiB of window), so 64 MiB per message is far
 * above what a real push needs.
 */
#define ADB_SYNC_EXPAND_MAX (64u << 20)

static void sync_decode_data(struct adb_sync *sy, const uint8_t *d, size_t len)
{
	size_t off = 0, out = 0;

	while (!sy->send_err) {
		size_t used, got;
		int rc =
		    adb_compress_decode(sy->dec, d + off, len - off, &used,
					sy->dec_buf, ADB_SYNC_DATA_MAX, &got);

		if (rc < 0) {
			sync_decode_failed(sy, rc, "corrupt");
			return;
		}
		out += got;
		if (out > ADB_SYNC_EXPAND_MAX) {
			sync_decode_failed(sy, -E2BIG, "corrupt");
			return;
		}
		off += used;
		sync_sink(sy, sy->dec_buf, got);
		if (off == len && got < ADB_SYNC_DATA_MAX)
			return;
		if (!used && !got && rc != 1) {
			sync_decode_failed(sy, -EBADMSG, "corrupt");
			return;
		}
	}
}

/* DATA pieces point into the host's WRTE: they are gathered and written
 * before sync_consume() returns. */
static void sync_send_data(struct adb_sync *sy, const uint8_t *d, size_t len)
{
	if (!sy->sending || sy->send_err)
		return; /* keep draining DATA after a failure, as adbd does */
	if (sy->dec) {
		sync_decode_data(sy, d, len);
		return;
	}
	if (sy->send_link || sy->send_dry) {
		sync_sink(sy, d, len);
		return;
	}
	sy->iov[sy->n_iov].iov_base = (void *)d;
	sy->iov[sy->n_iov].iov_len = len;
	if (++sy->n_iov == ADB_SYNC_IOV_MAX)
		sync_flush_data(sy);
}

/* At DONE a compressed push must have ended its stream. */
static void sync_decode_end(struct adb_sync *sy)
{
	size_t used, got;
	int rc;

	if (!sy->dec || sy->send_err)
		return;
	rc = adb_compress_decode(sy->dec, NULL, 0, &used, sy->dec_buf,
				 ADB_SYNC_DATA_MAX, &got);
	if (rc < 0)
		sync_decode_failed(sy, rc, "corrupt");
	else if (rc == 0)
		sync_decode_failed(sy, -EBADMSG, "truncated");
}

static void sync_send_done(struct adb_sync *sy, uint32_t mtime)
{
	struct timespec ts[2] = { { .tv_sec = mtime }, { .tv_sec = mtime } };

	if (!sy->sending) {
		sync_queue_fail(sy, "DONE without SEND", 0);
		return;
	}
	sync_decode_end(sy);
	adb_compress_free(sy->dec);
	sy->dec = NULL;
	if (!sy->send_err && sy->send_link && !sy->send_dry) {
		sy->link[sy->link_len] = '\0';
		unlink(sy->send_path);
		if (symlink(sy->link, sy->send_path) < 0)
			sy->send_err = errno;
		else
			utimensat(AT_FDCWD, sy->send_path, ts,
				  AT_SYMLINK_NOFOLLOW);
	}
	if (sy->send_fd >= 0) {
		if (!sy->send_err)
			futimens(sy->send_fd, ts);
		if (close(sy->send_fd) < 0 && !sy->send_err)
			sy->send_err = errno;
		sy->send_fd = -1;
	}
	if (sy->send_err) {
		if (sy->send_opened)
			unlink(sy->send_path);
		log_info("adb: sync: push to %s failed: %s", sy->send_path,
			 sy->send_why[0] ? sy->send_why : strerror(sy->send_err));
		if (sy->send_why[0])
			sync_queue_fail(sy, sy->send_why, 0);
		else
			sync_queue_fail(sy, "failed to write file",
					sy->send_err);
	} else {
		sync_queue_msg(sy, ADB_SYNC_OKAY, 0);
	}
	sy->sending = false;
}

static void sync_do_recv(struct adb_sync *sy,
			 const struct adb_syncmsg_event *ev)
{
	enum adb_compress_type type;
	struct stat st;
	int rc = 1;

	if (ev->id == ADB_SYNC_RCV2) {
		rc = sync_flags_codec(ev->flags, ADB_SYNC_FLAGS_CODEC, &type);
		if (rc < 0) {
			log_warnx("adb: sync: RCV2 with flags %#x; closing the "
				  "stream", ev->flags);
			sync_queue_fail(sy, "unsupported RCV2 flags", 0);
			sy->closing = true;
			return;
		}
	}
	/* O_NONBLOCK: a FIFO without a writer must fail, not hang the
	 * worker; files and block devices ignore it. */
	sy->recv_fd = open(ev->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (sy->recv_fd < 0) {
		sync_queue_fail(sy, "open failed", errno);
		return;
	}
	posix_fadvise(sy->recv_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	sy->recv_file = fstat(sy->recv_fd, &st) == 0 && S_ISREG(st.st_mode);
	if (rc == 1)
		return;
	if (!sy->enc_in)
		sy->enc_in = malloc(ADB_SYNC_DATA_MAX);
	sy->enc = sy->enc_in ? adb_compress_new(type, true) : NULL;
	sy->enc_len = sy->enc_off = 0;
	sy->enc_eof = false;
	if (!sy->enc) {
		sync_queue_fail(sy, "out of memory", 0);
		close(sy->recv_fd);
		sy->recv_fd = -1;
	}
}

static bool sync_busy(const struct adb_sync *sy)
{
	return sy->recv_fd >= 0 || sy->dir || sy->closing;
}

static void sync_request(struct adb_sync *sy,
			 const struct adb_syncmsg_event *ev)
{
	switch (ev->id) {
	case ADB_SYNC_STAT:
	case ADB_SYNC_STA2:
	case ADB_SYNC_LST2: sync_do_stat(sy, ev->id, ev->path); break;
	case ADB_SYNC_LIST:
	case ADB_SYNC_LIS2: sync_do_list(sy, ev->id, ev->path); break;
	case ADB_SYNC_SEND: sync_do_send(sy, ev->path); break;
	case ADB_SYNC_SND2: sync_do_send2(sy, ev); break;
	case ADB_SYNC_RECV:
	case ADB_SYNC_RCV2: sync_do_recv(sy, ev); break;
	case ADB_SYNC_QUIT:
		sy->closing = true;
		break;
	}
}

static const char *sync_parse_error(int rc)
{
	switch (rc) {
	case -ENAMETOOLONG:
		return "path too long";
	case -EINVAL:
		return "path contains a NUL byte";
	case -EMSGSIZE:
		return "DATA larger than 64 KiB";
	case -EPROTO:
		return "expected DATA or DONE";
	}
	return "unknown request";
}

/* Handle host bytes until used up or a request needs answering first.
 * Returns the bytes taken. */
static size_t sync_consume(struct adb_sync *sy, const uint8_t *d, size_t len)
{
	size_t total = 0;

	while (total < len && !sync_busy(sy)) {
		struct adb_syncmsg_event ev;
		size_t used;
		int rc = adb_syncmsg_parse(&sy->parser, d + total, len - total,
					   &used, &ev);

		total += used;
		if (rc < 0) {
			log_warnx("adb: sync: %s; closing the stream",
				  sync_parse_error(rc));
			sync_flush_data(sy);
			sync_queue_fail(sy, sync_parse_error(rc), 0);
			sy->closing = true;
			return len;
		}
		if (ev.type != ADB_SYNC_EV_DATA)
			sync_flush_data(sy);
		switch (ev.type) {
		case ADB_SYNC_EV_NONE:
			break;
		case ADB_SYNC_EV_REQUEST: sync_request(sy, &ev); break;
		case ADB_SYNC_EV_DATA:
			sync_send_data(sy, ev.data, ev.len);
			break;
		case ADB_SYNC_EV_DONE: sync_send_done(sy, ev.mtime); break;
		}
	}
	sync_flush_data(sy);
	return total;
}

/* Keep host bytes for later; bounded, as the host need not wait. */
static int sync_stash(struct adb_sync *sy, const uint8_t *data, size_t len)
{
	size_t keep = sy->stash_len - sy->stash_off;
	uint8_t *b;

	if (keep + len > ADB_SYNC_STASH_MAX) {
		log_warnx("adb: sync: host sent %zu bytes ahead of our replies",
			  keep + len);
		return -ENOBUFS;
	}
	b = malloc(keep + len);
	if (!b)
		return -ENOMEM;
	if (keep)
		memcpy(b, sy->stash + sy->stash_off, keep);
	memcpy(b + keep, data, len);
	free(sy->stash);
	sy->stash = b;
	sy->stash_len = keep + len;
	sy->stash_off = 0;
	return 1;
}

static int sync_write(void *svc, const uint8_t *data, size_t len)
{
	struct adb_sync *sy = svc;
	size_t used = 0;

	if (!sync_busy(sy) && sy->stash_len == sy->stash_off)
		used = sync_consume(sy, data, len);
	if (sy->out.len > sy->out.off || sync_busy(sy))
		adb_stream_ready(sy->s);
	if (used == len || sy->closing)
		return 0;
	return sync_stash(sy, data + used, len - used);
}

/* A RECV or LIST finished: go on with what the host had sent meanwhile. */
static void sync_resume(struct adb_sync *sy)
{
	if (sy->stash_len == sy->stash_off || sync_busy(sy))
		return;
	sy->stash_off += sync_consume(sy, sy->stash + sy->stash_off,
				      sy->stash_len - sy->stash_off);
	if (sy->stash_off == sy->stash_len || sy->closing) {
		sy->stash_len = sy->stash_off = 0;
		adb_stream_ack(sy->s);
	}
}

static void sync_recv_end(struct adb_sync *sy)
{
	close(sy->recv_fd);
	sy->recv_fd = -1;
	adb_compress_free(sy->enc);
	sy->enc = NULL;
}

/*
 * RCV2 with compression: read the file 64 KiB at a time into the encoder
 * and put what it gives out into DATA messages (each at most 64 KiB).
 * Stops when buf is nearly full, or after ADB_SYNC_ENC_READS reads once
 * something is there, so each WRTE costs bounded work.
 */
static size_t sync_recv_more_encoded(struct adb_sync *sy, uint8_t *buf,
				     size_t room)
{
	size_t n = 0;
	unsigned reads = 0;

	/* A tiny max payload still gets its DATA: only the first piece may
	 * be small. */
	while (n == 0 ? room > 8
		      : room - n > 8 + 1024 && reads < ADB_SYNC_ENC_READS) {
		size_t want = room - n - 8, used, got;
		int rc;

		if (sy->enc_off == sy->enc_len && !sy->enc_eof) {
			ssize_t r;

			do {
				r = read(sy->recv_fd, sy->enc_in,
					 ADB_SYNC_DATA_MAX);
			} while (r < 0 && errno == EINTR);
			if (r < 0) {
				sync_queue_fail(sy, "read failed", errno);
				sync_recv_end(sy);
				return n;
			}
			sy->enc_len = r;
			sy->enc_off = 0;
			sy->enc_eof = r == 0;
			reads++;
		}
		if (want > ADB_SYNC_DATA_MAX)
			want = ADB_SYNC_DATA_MAX;
		rc = adb_compress_encode(sy->enc, sy->enc_in + sy->enc_off,
					 sy->enc_len - sy->enc_off, &used,
					 sy->enc_eof, buf + n + 8, want, &got);
		if (rc < 0) {
			sync_queue_fail(sy, "compression failed", 0);
			sync_recv_end(sy);
			return n;
		}
		sy->enc_off += used;
		if (got) {
			adb_syncmsg_put_header(buf + n, ADB_SYNC_DATA, got);
			n += 8 + got;
		}
		if (rc == 1) {
			/* The DONE goes after the DATA just put in buf. */
			sync_queue_msg(sy, ADB_SYNC_DONE, 0);
			sync_recv_end(sy);
			return n;
		}
	}
	return n;
}

/*
 * Add DATA messages read straight from the file into buf: one readv()
 * fills the data parts of as many 64 KiB messages as fit, and the headers
 * are written around what arrived.
 */
static size_t sync_recv_more(struct adb_sync *sy, uint8_t *buf, size_t room)
{
	struct iovec iov[64];
	size_t n = 0, off = 0, asked = 0;
	int cnt = 0;
	ssize_t r;

	/* Stop before a tiny chunk, unless the host's payload is tiny. */
	while (cnt < 64 && room - off > 8 &&
	       (cnt == 0 || room - off >= 8 + 4096)) {
		size_t want = room - off - 8;
		if (want > ADB_SYNC_DATA_MAX)
			want = ADB_SYNC_DATA_MAX;
		iov[cnt].iov_base = buf + off + 8;
		iov[cnt++].iov_len = want;
		off += 8 + want;
		asked += want;
	}
	if (cnt == 0)
		return 0;
	do {
		r = readv(sy->recv_fd, iov, cnt);
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		if (r < 0)
			sync_queue_fail(sy, "read failed", errno);
		else
			sync_queue_msg(sy, ADB_SYNC_DONE, 0);
		close(sy->recv_fd);
		sy->recv_fd = -1;
		return 0;
	}
	sy->recv_short = (size_t)r < asked;
	for (int i = 0; i < cnt && r > 0; i++) {
		size_t len = (size_t)r < iov[i].iov_len ? (size_t)r : iov[i].iov_len;
		adb_syncmsg_put_header(buf + n, ADB_SYNC_DATA, len);
		n += 8 + len;
		r -= len;
	}
	return n;
}

static ssize_t sync_produce(void *svc, uint8_t *buf, size_t max)
{
	struct adb_sync *sy = svc;
	size_t n = 0;

	for (;;) {
		struct outq *q = &sy->out;

		if (q->len > q->off) {
			size_t k = q->len - q->off < max - n ? q->len - q->off
							     : max - n;
			memcpy(buf + n, q->b + q->off, k);
			q->off += k;
			n += k;
			if (n == max)
				break;
		} else if (sy->recv_fd >= 0) {
			size_t k =
			    sy->enc
				? sync_recv_more_encoded(sy, buf + n, max - n)
				: sync_recv_more(sy, buf + n, max - n);
			n += k;
			/*
			 * A regular file read short is at its end, most
			 * likely: read on, so that its DONE goes out in this
			 * WRTE with the last DATA, as adbd does, and not in a
			 * WRTE of its own after the host's OKAY (a small
			 * file's pull took two round trips). Anything else
			 * (a full buffer, a pipe, compression) goes on in the
			 * next round.
			 */
			if (sy->recv_fd >= 0 &&
			    (!k || sy->enc || !sy->recv_file || !sy->recv_short))
				break;
		} else if (sy->dir) {
			sync_list_more(sy, max - n);
		} else if (sy->stash_len > sy->stash_off && !sy->closing) {
			size_t before = sy->stash_off;
			sync_resume(sy);
			if (sy->stash_off == before && q->len == q->off &&
			    !sync_busy(sy))
				break;
		} else {
			break;
		}
	}
	if (n == 0 && sy->closing)
		return -EPIPE;
	return n;
}

static void sync_free(void *svc)
{
	struct adb_sync *sy = svc;

	if (sy->send_fd >= 0)
		close(sy->send_fd);
	if (sy->recv_fd >= 0)
		close(sy->recv_fd);
	if (sy->dir)
		closedir(sy->dir);
	adb_compress_free(sy->dec);
	adb_compress_free(sy->enc);
	free(sy->dec_buf);
	free(sy->enc_in);
	free(sy->stash);
	free(sy->out.b);
	free(sy);
}

int adb_sync_open(struct adb_stream *s, const struct adb_service_ops **ops,
		  void **svc)
{
	struct adb_sync *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return -ENOMEM;
	sy->s = s;
	sy->send_fd = -1;
	sy->recv_fd = -1;
	adb_syncmsg_parser_init(&sy->parser);
	*ops = &sync_ops;
	*svc = sy;
	return 0;
}

static const struct adb_service_ops sync_ops = {
	.write = sync_write,
	.produce = sync_produce,
	.free = sync_free,
	.ack_first = true,
};
