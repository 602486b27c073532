/*
 * The adb plugin as the runtime drives it: messages in through ops->rx,
 * transfers out through a fake plugin_write, real processes and files
 * behind the services, the real event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "adb/adb_auth.h"
#include "adb/adb_compress.h"
#include "adb/adb_packet.h"
#include "adb/adb_stream.h"
#include "adb/adb_syncmsg.h"
#include "adb_fixture.h"
#include "adb_testkey.h"
#include "fake_plugin_adb.h"
#include "fake_spawn.h"
#include "log.h"
#include "loop.h"
#include "run_until.h"

extern const struct plugin_ops gadgetd_plugin;
static const struct plugin_ops *ops = &gadgetd_plugin;

struct msg {
	uint32_t cmd, arg0, arg1, len;
	const uint8_t *data;
};

static struct adb_testkey *key;

static int group_setup(void **state)
{
	log_init("test_adb", true, LOG_LEVEL_WARN);
	key = adb_testkey_new();
	return 0;
}

static int group_teardown(void **state)
{
	adb_testkey_free(key);
	return 0;
}

static struct adb_fixture *start(const char *auth)
{
	static const char *const opts[] = { "product", "prod", "model", "mod", NULL };

	return adb_fixture_start(auth, opts);
}

static void send_msg(struct adb_fixture *t, uint32_t cmd, uint32_t a0, uint32_t a1,
		     const void *data, size_t len)
{
	uint8_t *buf = malloc(ADB_HDR_SIZE + len);

	adb_packet_encode(buf, cmd, a0, a1, data, len, 1);
	if (len)
		memcpy(buf + ADB_HDR_SIZE, data, len);
	/* Header and payload as adb sends them: two transfers. */
	ops->rx(t->priv, 0, buf, ADB_HDR_SIZE);
	ops->rx(t->priv, 0, buf + ADB_HDR_SIZE, len);
	free(buf);
}

static int next(struct adb_fixture *t, struct msg *m)
{
	return fake_next_msg(t->p, &m->cmd, &m->arg0, &m->arg1, &m->data,
			     &m->len);
}

static void pump_until_sent(struct adb_fixture *t);

/* The next message is cmd; what waits for the loop (a shell's child, which
 * the spawner starts asynchronously) is given the loop first. */
static void expect(struct adb_fixture *t, struct msg *m, uint32_t cmd)
{
	char want[5], got[5];

	if (!next(t, m)) {
		pump_until_sent(t);
		assert_true(next(t, m));
	}
	adb_packet_cmd_name(cmd, want);
	adb_packet_cmd_name(m->cmd, got);
	assert_string_equal(got, want);
}

static void expect_nothing(struct adb_fixture *t)
{
	struct msg m;

	assert_false(next(t, &m));
}

static void connect_host(struct adb_fixture *t, uint32_t max)
{
	static const char banner[] = "host::features=shell_v2,stat_v2";
	struct msg m;

	send_msg(t, ADB_CNXN, ADB_VERSION, max, banner, sizeof(banner));
	expect(t, &m, ADB_CNXN);
	expect_nothing(t);
}

/* OPEN name as host stream hid; returns our id from the OKAY. */
static uint32_t open_stream(struct adb_fixture *t, uint32_t hid, const char *name)
{
	struct msg m;

	send_msg(t, ADB_OPEN, hid, 0, name, strlen(name) + 1);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(m.arg1, hid);
	assert_int_not_equal(m.arg0, 0);
	return m.arg0;
}

/* OPEN name as host stream hid: refused with CLSE(0, hid). */
static void open_refused(struct adb_fixture *t, uint32_t hid, const char *name)
{
	struct msg m;

	send_msg(t, ADB_OPEN, hid, 0, name, strlen(name) + 1);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg0, 0);
	assert_int_equal(m.arg1, hid);
}

/* Current hosts send OPEN's name without a NUL, adb 29 with one: both
 * work; empty, NUL-only, NUL-inside and overlong names are refused. */
static void test_open_names(void **state)
{
	struct adb_fixture *t = start("off");
	static char longname[4098];
	struct msg m;

	connect_host(t, ADB_MAX_PAYLOAD);
	send_msg(t, ADB_OPEN, 1, 0, "sync:", 5);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(m.arg1, 1);
	send_msg(t, ADB_OPEN, 2, 0, "sync:", 6);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(m.arg1, 2);
	/* Several trailing NULs are stripped as well. */
	send_msg(t, ADB_OPEN, 3, 0, "sync:\0\0\0", 8);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(m.arg1, 3);
	expect_nothing(t);
	assert_int_equal(fake_of(t->p)->status_state[0], 'd');
	/* Refused: nothing, only NULs, a NUL inside (with and without a
	 * trailing one), a name of 4097 bytes. */
	send_msg(t, ADB_OPEN, 4, 0, NULL, 0);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg0, 0);
	assert_int_equal(m.arg1, 4);
	send_msg(t, ADB_OPEN, 5, 0, "\0\0", 2);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 5);
	send_msg(t, ADB_OPEN, 6, 0, "sy\0nc:", 7);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 6);
	send_msg(t, ADB_OPEN, 7, 0, "sy\0nc:\0", 8);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 7);
	memcpy(longname, "sync:", 5);
	memset(longname + 5, 'x', 4092);
	send_msg(t, ADB_OPEN, 8, 0, longname, 4097);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 8);
	/* With a trailing NUL the 4097 bytes carry a 4096-byte name: it is
	 * routed (and refused only as an unknown service). */
	longname[4096] = '\0';
	send_msg(t, ADB_OPEN, 9, 0, longname, 4097);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 9);
	expect_nothing(t);
	/* The streams opened above still work. */
	send_msg(t, ADB_OPEN, 10, 0, "sync:", 5);
	expect(t, &m, ADB_OKAY);
	adb_fixture_stop(t);
}

static void test_descriptors_and_banner(void **state)
{
	struct adb_fixture *t = start("off");
	char banner[600];
	struct msg m;

	assert_int_equal(t->desc.cls, 0xff);
	assert_int_equal(t->desc.subcls, 0x42);
	assert_int_equal(t->desc.proto, 0x01);
	assert_int_equal(t->desc.n_eps, 2);
	assert_string_equal(t->desc.interface_string, "ADB Interface");
	assert_string_equal(t->desc.ms_compat_id, "WINUSB");
	assert_string_equal(t->desc.props[0].name, "DeviceInterfaceGUID");
	assert_string_equal(t->desc.props[0].value,
			    "{F72FE0D4-CBCB-407d-8814-9ED673D0DD6B}");
	assert_string_equal(fake_of(t->p)->status_state, "offline");
	send_msg(t, ADB_CNXN, ADB_VERSION, 256 * 1024, "host::x", 8);
	expect(t, &m, ADB_CNXN);
	assert_int_equal(m.arg0, 0x01000001);
	/* Our max payload is 1 MiB; we answer the smaller of the two. */
	assert_int_equal(m.arg1, 256 * 1024);
	/* No NUL in or after the banner, as AOSP's adbd sends it: a host
	 * takes the payload whole, and the last feature must be its own word
	 * (adb 34 refused push -n on "sendrecv_v2_dry_run_send\0"). */
	assert_true(m.len > 25 && m.len < sizeof(banner));
	assert_null(memchr(m.data, '\0', m.len));
	memcpy(banner, m.data, m.len);
	banner[m.len] = '\0';
	assert_non_null(strstr(banner, "device::ro.product.name=prod;"
				       "ro.product.model=mod;ro.product.device=gadgetd;"
				       "features=shell_v2,stat_v2,ls_v2,fixed_push_mkdir"));
	assert_string_equal(banner + m.len - 25, ",sendrecv_v2_dry_run_send");
	assert_string_equal(fake_of(t->p)->status_state, "device");
	assert_string_equal(fake_of(t->p)->status_host, "host::x");
	adb_fixture_stop(t);
}

static void test_bad_option(void **state)
{
	struct plugin_desc desc;
	struct loop *l = loop_new();
	struct plugin *p = fake_plugin_new(l);
	void *priv;

	fake_set_option(p, "auth", "maybe");
	assert_int_equal(ops->init(p, &desc, &priv), -EINVAL);
	/* `auth = false;` reaches the plugin as "false" and is taken, like
	 * every word of optdesc_bool(). */
	fake_plugin_free(p);
	p = fake_plugin_new(l);
	fake_set_option(p, "auth", "false");
	assert_int_equal(ops->init(p, &desc, &priv), 0);
	ops->finish(priv);
	fake_plugin_free(p);
	loop_free(l);
}

static void test_malformed_messages(void **state)
{
	struct adb_fixture *t = start("off");
	uint8_t hdr[ADB_HDR_SIZE];
	struct msg m;

	/* Nothing is served before CNXN. */
	send_msg(t, ADB_OPEN, 1, 0, "shell:true", 11);
	expect_nothing(t);
	connect_host(t, ADB_MAX_PAYLOAD);
	/* A service name with a NUL inside. */
	send_msg(t, ADB_OPEN, 3, 0, "sync:\0x", 8);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg0, 0);
	assert_int_equal(m.arg1, 3);
	/* OPEN with remote id 0, an unknown service. */
	send_msg(t, ADB_OPEN, 0, 0, "sync:", 6);
	expect_nothing(t);
	send_msg(t, ADB_OPEN, 4, 0, "nosuch:service", 15);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 4);
	/* WRTE to a stream that does not exist. */
	send_msg(t, ADB_WRTE, 5, 77, "data", 4);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg0, 0);
	assert_int_equal(m.arg1, 5);
	/* An unknown command is ignored; the connection stays up. */
	send_msg(t, 0x12345678, 0, 0, NULL, 0);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	open_stream(t, 6, "sync:");
	/* A bad magic resets the connection. */
	adb_packet_encode(hdr, ADB_OKAY, 1, 2, NULL, 0, 0);
	hdr[23] ^= 0xff;
	ops->rx(t->priv, 0, hdr, sizeof(hdr));
	assert_string_equal(fake_of(t->p)->status_state, "offline");
	send_msg(t, ADB_OPEN, 7, 0, "sync:", 6);
	expect_nothing(t);
	/* So does a message longer than our max payload. */
	connect_host(t, ADB_MAX_PAYLOAD);
	adb_packet_encode(hdr, ADB_WRTE, 1, 2, NULL, ADB_MAX_PAYLOAD + 1, 0);
	ops->rx(t->priv, 0, hdr, sizeof(hdr));
	assert_string_equal(fake_of(t->p)->status_state, "offline");
	/* Longer than the negotiated (smaller) max payload. */
	connect_host(t, 4096);
	adb_packet_encode(hdr, ADB_WRTE, 1, 2, NULL, 4097, 0);
	ops->rx(t->priv, 0, hdr, sizeof(hdr));
	assert_string_equal(fake_of(t->p)->status_state, "offline");
	/* Zero-length reads are ignored. */
	ops->rx(t->priv, 0, hdr, 0);
	adb_fixture_stop(t);
}

/* Run the loop until the plugin has sent something (at most RUN_UNTIL_MS:
 * what it sends may come from a shell's child, slow to start under
 * qemu-user on a loaded machine). */
static void pump_until_sent(struct adb_fixture *t)
{
	struct fake_plugin *f = fake_of(t->p);

	RUN_UNTIL(t->loop, f->consumed < f->n_xfers);
	assert_true(f->consumed < f->n_xfers);
}

struct shell_out {
	char out[4096], err[4096];
	size_t out_len, err_len;
	int exit_code;
	int closed;
};

/* Collect a v2 shell's packets until CLSE, acknowledging each WRTE. */
static void read_shell_v2(struct adb_fixture *t, uint32_t hid, uint32_t id,
			  struct shell_out *o)
{
	uint8_t buf[65536];
	size_t have = 0;

	memset(o, 0, sizeof(*o));
	o->exit_code = -1;
	while (!o->closed) {
		struct msg m;

		pump_until_sent(t);
		while (next(t, &m)) {
			if (m.cmd == ADB_CLSE) {
				o->closed = 1;
				break;
			}
			assert_int_equal(m.cmd, ADB_WRTE);
			assert_int_equal(m.arg1, hid);
			memcpy(buf + have, m.data, m.len);
			have += m.len;
			send_msg(t, ADB_OKAY, hid, id, NULL, 0);
		}
		while (have >= 5) {
			uint32_t n = buf[1] | buf[2] << 8 | buf[3] << 16 |
				     (uint32_t)buf[4] << 24;
			if (have < 5 + n)
				break;
			if (buf[0] == 1) {
				memcpy(o->out + o->out_len, buf + 5, n);
				o->out_len += n;
			} else if (buf[0] == 2) {
				memcpy(o->err + o->err_len, buf + 5, n);
				o->err_len += n;
			} else if (buf[0] == 3) {
				assert_int_equal(n, 1);
				o->exit_code = buf[5];
			}
			memmove(buf, buf + 5 + n, have - 5 - n);
			have -= 5 + n;
		}
	}
}

static void test_shell_v2_raw(void **state)
{
	struct adb_fixture *t = start("off");
	struct shell_out o;
	uint32_t id;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 9, "shell,v2,raw:echo hi; echo oops >&2; exit 3");
	read_shell_v2(t, 9, id, &o);
	assert_int_equal(o.out_len, 3);
	assert_memory_equal(o.out, "hi\n", 3);
	assert_int_equal(o.err_len, 5);
	assert_memory_equal(o.err, "oops\n", 5);
	assert_int_equal(o.exit_code, 3);
	adb_fixture_stop(t);
}

/* A shell's output that waited while its last WRTE was unacknowledged
 * goes out in one WRTE, past a pipe's default 64 KiB: a shell stream
 * gets as much of the link a round trip as a sync stream. */
static void test_shell_v2_fills_wrte(void **state)
{
	struct adb_fixture *t = start("off");
	size_t total = 0, biggest = 0;
	int closed = 0;
	struct msg m;
	uint32_t id;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 12, "shell,v2,raw:head -c 1048576 /dev/zero");
	while (!closed) {
		pump_until_sent(t);
		while (next(t, &m)) {
			if (m.cmd == ADB_CLSE) {
				closed = 1;
				break;
			}
			assert_int_equal(m.cmd, ADB_WRTE);
			total += m.len;
			if (m.len > biggest)
				biggest = m.len;
			/* The child fills its pipe meanwhile. */
			usleep(200 * 1000);
			send_msg(t, ADB_OKAY, 12, id, NULL, 0);
		}
	}
	/* 1 MiB of stdout in v2 packets of 5-byte headers, and the exit. */
	assert_true(total > 1048576);
	assert_true(biggest > 65536 + 5);
	adb_fixture_stop(t);
}

static void test_shell_v2_stdin_and_close(void **state)
{
	struct adb_fixture *t = start("off");
	uint8_t pkt[64] = { 0, 6, 0, 0, 0, 'p', 'i', 'p', 'e', 'd', '\n',
			    4, 0, 0, 0, 0 };
	struct shell_out o;
	uint32_t id;
	struct msg m;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 10, "shell,v2,raw:tr a-z A-Z");
	/* stdin and close-stdin in one WRTE, the header split off. */
	send_msg(t, ADB_WRTE, 10, id, pkt, 3);
	expect(t, &m, ADB_OKAY);
	send_msg(t, ADB_WRTE, 10, id, pkt + 3, 13);
	expect(t, &m, ADB_OKAY);
	read_shell_v2(t, 10, id, &o);
	assert_int_equal(o.out_len, 6);
	assert_memory_equal(o.out, "PIPED\n", 6);
	assert_int_equal(o.exit_code, 0);
	adb_fixture_stop(t);
}

static size_t put_v2(uint8_t *b, uint8_t id, const char *data, uint32_t len)
{
	b[0] = id;
	b[1] = len;
	b[2] = len >> 8;
	b[3] = len >> 16;
	b[4] = len >> 24;
	memcpy(b + 5, data, len);
	return 5 + len;
}

static void test_shell_pty_term_and_winsize(void **state)
{
	struct adb_fixture *t = start("off");
	static const char ws[] = "33x101,0x0";
	static const char cmd[] = "echo T=$TERM; stty size; tty; exit 5\n";
	uint8_t pkt[128];
	struct shell_out o;
	uint32_t id;
	struct msg m;
	size_t n = 0;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 11, "shell,v2,TERM=xterm-test,pty:");
	n += put_v2(pkt + n, 5, ws, sizeof(ws) - 1);
	n += put_v2(pkt + n, 0, cmd, sizeof(cmd) - 1);
	send_msg(t, ADB_WRTE, 11, id, pkt, n);
	expect(t, &m, ADB_OKAY);
	read_shell_v2(t, 11, id, &o);
	o.out[o.out_len] = '\0';
	assert_non_null(strstr(o.out, "T=xterm-test"));
	assert_non_null(strstr(o.out, "33 101"));
	assert_non_null(strstr(o.out, "/dev/pts/"));
	assert_int_equal(o.exit_code, 5);
	adb_fixture_stop(t);
}

static void test_exec_raw_bytes(void **state)
{
	struct adb_fixture *t = start("off");
	char out[64] = "";
	uint32_t id;
	struct msg m;
	int closed = 0;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 12, "exec:printf 'a\\0b'");
	while (!closed) {
		pump_until_sent(t);
		while (next(t, &m)) {
			if (m.cmd == ADB_CLSE) {
				closed = 1;
				break;
			}
			memcpy(out + strlen(out), m.data, m.len);
			send_msg(t, ADB_OKAY, 12, id, NULL, 0);
		}
	}
	assert_memory_equal(out, "a", 2); /* "a\0b" with no framing */
	adb_fixture_stop(t);
}

/* Sync over one stream: write a request, gather the reply bytes. */
static size_t sync_call(struct adb_fixture *t, uint32_t hid, uint32_t id,
			const uint8_t *req, size_t len, uint8_t *out,
			size_t want)
{
	struct msg m;
	size_t have = 0;

	send_msg(t, ADB_WRTE, hid, id, req, len);
	expect(t, &m, ADB_OKAY);
	while (have < want) {
		if (!next(t, &m))
			break;
		if (m.cmd == ADB_CLSE)
			break;
		assert_int_equal(m.cmd, ADB_WRTE);
		/* Flow control: nothing more until our OKAY. */
		expect_nothing(t);
		memcpy(out + have, m.data, m.len);
		have += m.len;
		send_msg(t, ADB_OKAY, hid, id, NULL, 0);
	}
	return have;
}

static size_t put_req(uint8_t *b, uint32_t id, const void *data, uint32_t len)
{
	adb_syncmsg_put32(b, id);
	adb_syncmsg_put32(b + 4, len);
	if (len)
		memcpy(b + 8, data, len);
	return 8 + len;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_sync_push_pull_stat(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[3 * 65544], out[4 * 1024 * 1024];
	static uint8_t data[180000];
	char path[128], spec[160];
	uint32_t id;
	size_t n = 0, got, off;
	struct stat st;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 251);
	/* A host that accepts only 64 KiB per WRTE. */
	connect_host(t, 65536);
	id = open_stream(t, 20, "sync:");
	snprintf(path, sizeof(path), "%s/new/dir/file", t->dir);
	snprintf(spec, sizeof(spec), "%s,%u", path, 0100640);
	n += put_req(req + n, ADB_SYNC_SEND, spec, strlen(spec));
	n += put_req(req + n, ADB_SYNC_DATA, data, 65536);
	n += put_req(req + n, ADB_SYNC_DATA, data + 65536, 65536);
	/* Split the WRTE in the middle of a DATA message. */
	got = sync_call(t, 20, id, req, 1000, out, 0);
	assert_int_equal(got, 0);
	for (off = 1000; off < n; off += 65536)
		got = sync_call(t, 20, id, req + off,
				n - off < 65536 ? n - off : 65536, out, 0);
	n = put_req(req, ADB_SYNC_DATA, data + 131072, sizeof(data) - 131072);
	adb_syncmsg_put32(req + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(req + n + 4, 1600000000);
	n += 8;
	got = sync_call(t, 20, id, req, n, out, 8);
	if (got != 8)
		print_message("reply: %.*s\n", (int)got - 8, out + 8);
	assert_int_equal(got, 8);
	assert_int_equal(get32(out), ADB_SYNC_OKAY);
	/* Parents were made; mode and mtime were applied. */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sizeof(data));
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(st.st_mtime, 1600000000);
	/* STA2 of it. */
	n = put_req(req, ADB_SYNC_STA2, path, strlen(path));
	got = sync_call(t, 20, id, req, n, out, ADB_SYNC_STAT_V2_SIZE);
	assert_int_equal(got, ADB_SYNC_STAT_V2_SIZE);
	assert_int_equal(get32(out), ADB_SYNC_STA2);
	assert_int_equal(get32(out + 4), 0);
	assert_int_equal(get32(out + 40), sizeof(data));
	/* LST2 of something missing reports ENOENT. */
	n = put_req(req, ADB_SYNC_LST2, "/nonexistent/x", 14);
	got = sync_call(t, 20, id, req, n, out, ADB_SYNC_STAT_V2_SIZE);
	assert_int_equal(get32(out + 4), ENOENT);
	/* RECV: DATA pieces of at most 64 KiB, then DONE; WRTEs <= 64 KiB. */
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	got = sync_call(t, 20, id, req, n, out, sizeof(out));
	off = 0;
	n = 0;
	while (off + 8 <= got && get32(out + off) == ADB_SYNC_DATA) {
		uint32_t len = get32(out + off + 4);
		assert_true(len <= ADB_SYNC_DATA_MAX);
		assert_memory_equal(out + off + 8, data + n, len);
		n += len;
		off += 8 + len;
	}
	assert_int_equal(n, sizeof(data));
	assert_int_equal(got, off + 8);
	assert_int_equal(get32(out + off), ADB_SYNC_DONE);
	/* A small file comes whole in one WRTE, its DONE after its DATA, as
	 * adbd sends it: not a second WRTE that waits for the host's OKAY
	 * (a tree of small files took two round trips a file). */
	snprintf(path, sizeof(path), "%s/small", t->dir);
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, 4096, f), 4096);
		fclose(f);
	}
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	got = sync_call(t, 20, id, req, n, out, 1);
	assert_int_equal(got, 8 + 4096 + 8);
	assert_int_equal(get32(out), ADB_SYNC_DATA);
	assert_int_equal(get32(out + 4), 4096);
	assert_memory_equal(out + 8, data, 4096);
	assert_int_equal(get32(out + 8 + 4096), ADB_SYNC_DONE);
	adb_fixture_stop(t);
}

/* Compress (or copy, type < 0) data into *z; returns its length. */
static size_t squeeze(int type, const uint8_t *data, size_t len, uint8_t **z)
{
	struct adb_compress *c;
	size_t cap = len + 65536, have = 0, off = 0;
	int rc = 0;

	*z = malloc(cap);
	assert_non_null(*z);
	if (type < 0) {
		memcpy(*z, data, len);
		return len;
	}
	c = adb_compress_new(type, true);
	assert_non_null(c);
	while (rc != 1) {
		size_t used, got;

		assert_true(have < cap);
		rc = adb_compress_encode(c, data + off, len - off, &used, true,
					 *z + have, cap - have, &got);
		assert_true(rc >= 0);
		off += used;
		have += got;
	}
	adb_compress_free(c);
	return have;
}

/* SND2 path with mode and flags, z[0..zlen) in DATA of 64 KiB, DONE;
 * returns the first 8 bytes of the reply (OKAY, or FAIL + message). */
static uint32_t push_v2(struct adb_fixture *t, uint32_t hid, uint32_t id,
			const char *path, uint32_t flags, const uint8_t *z,
			size_t zlen, char *msg, size_t msg_size)
{
	static uint8_t req[1 << 20], out[1024];
	size_t n, off = 0, got;

	n = put_req(req, ADB_SYNC_SND2, path, strlen(path));
	adb_syncmsg_put32(req + n, ADB_SYNC_SND2);
	adb_syncmsg_put32(req + n + 4, 0100600);
	adb_syncmsg_put32(req + n + 8, flags);
	n += 12;
	do {
		size_t k = zlen - off < ADB_SYNC_DATA_MAX ? zlen - off
							  : ADB_SYNC_DATA_MAX;
		if (n + 8 + k > sizeof(req)) {
			assert_int_equal(sync_call(t, hid, id, req, n, out, 0),
					 0);
			n = 0;
		}
		n += put_req(req + n, ADB_SYNC_DATA, z + off, k);
		off += k;
	} while (off < zlen);
	adb_syncmsg_put32(req + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(req + n + 4, 1600000000);
	n += 8;
	got = sync_call(t, hid, id, req, n, out, 8);
	assert_int_equal(got >= 8, 1);
	if (get32(out) == ADB_SYNC_FAIL) {
		got = get32(out + 4);
		snprintf(msg, msg_size, "%.*s", (int)got, out + 8);
	}
	return get32(out);
}

/* RCV2 path with flags; decode what comes into *res; returns its length. */
static size_t pull_v2(struct adb_fixture *t, uint32_t hid, uint32_t id, const char *path,
		      int type, uint32_t flags, uint8_t *res, size_t cap)
{
	static uint8_t req[2048], out[8 << 20];
	struct adb_compress *c =
	    type < 0 ? NULL : adb_compress_new(type, false);
	size_t n, got, off = 0, have = 0;
	int rc = type < 0;

	n = put_req(req, ADB_SYNC_RCV2, path, strlen(path));
	adb_syncmsg_put32(req + n, ADB_SYNC_RCV2);
	adb_syncmsg_put32(req + n + 4, flags);
	n += 8;
	got = sync_call(t, hid, id, req, n, out, sizeof(out));
	while (off + 8 <= got && get32(out + off) == ADB_SYNC_DATA) {
		uint32_t len = get32(out + off + 4), done = 0;

		assert_true(len <= ADB_SYNC_DATA_MAX);
		assert_true(off + 8 + len <= got);
		if (!c) {
			memcpy(res + have, out + off + 8, len);
			have += len;
		}
		while (c && done < len) {
			size_t used, k;

			rc = adb_compress_decode(c, out + off + 8 + done,
						 len - done, &used, res + have,
						 cap - have, &k);
			assert_true(rc >= 0);
			done += used;
			have += k;
		}
		off += 8 + len;
	}
	assert_int_equal(got, off + 8);
	assert_int_equal(get32(out + off), ADB_SYNC_DONE);
	assert_int_equal(rc, 1);
	adb_compress_free(c);
	return have;
}

/* sendrecv_v2: push and pull with each codec and none, compressible and
 * random data, byte-identical; dry runs write nothing; corrupt, truncated
 * and oversized-window streams and bad flags end in FAIL. */
static void test_sync_v2(void **state)
{
	static const uint32_t flags[] = { 0, ADB_SYNC_FLAG_BROTLI,
					  ADB_SYNC_FLAG_LZ4,
					  ADB_SYNC_FLAG_ZSTD };
	static const int types[] = {-1, ADB_COMPRESS_BROTLI, ADB_COMPRESS_LZ4,
				    ADB_COMPRESS_ZSTD};
	struct adb_fixture *t = start("off");
	static uint8_t back[1 << 20];
	size_t len = 700000, zlen;
	uint8_t *data = malloc(len), *z;
	char path[160], msg[256];
	struct stat st;
	uint32_t id, x = 1;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 80, "sync:");
	for (int kind = 0; kind < 2; kind++) {
		for (size_t i = 0; i < len; i++) {
			x = x * 1103515245 + 12345;
			data[i] = kind ? (uint8_t)(x >> 24)
				       : (uint8_t)"compress me "[i % 12];
		}
		for (int f = 0; f < 4; f++) {
			snprintf(path, sizeof(path), "%s/v2/%d/%d", t->dir,
				 kind, f);
			zlen = squeeze(types[f], data, len, &z);
			if (!kind && f)
				assert_true(zlen < len / 10);
			assert_int_equal(push_v2(t, 80, id, path, flags[f], z,
						 zlen, msg, sizeof(msg)),
					 ADB_SYNC_OKAY);
			free(z);
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal(st.st_size, len);
			assert_int_equal(st.st_mode & 0777, 0600);
			assert_int_equal(st.st_mtime, 1600000000);
			memset(back, 0, len);
			assert_int_equal(pull_v2(t, 80, id, path, types[f],
						 flags[f], back, sizeof(back)),
					 len);
			assert_memory_equal(back, data, len);
		}
	}
	/* A dry run decodes and answers, and creates nothing at all. */
	snprintf(path, sizeof(path), "%s/dry/run", t->dir);
	zlen = squeeze(ADB_COMPRESS_ZSTD, data, len, &z);
	assert_int_equal(push_v2(t, 80, id, path,
				 ADB_SYNC_FLAG_ZSTD | ADB_SYNC_FLAG_DRY_RUN, z,
				 zlen, msg, sizeof(msg)),
			 ADB_SYNC_OKAY);
	assert_int_equal(push_v2(t, 80, id, path, ADB_SYNC_FLAG_DRY_RUN, data,
				 1000, msg, sizeof(msg)),
			 ADB_SYNC_OKAY);
	snprintf(path, sizeof(path), "%s/dry", t->dir);
	assert_int_equal(stat(path, &st), -1);
	/* Truncated: DONE before the stream's end; FAIL, no file left. */
	snprintf(path, sizeof(path), "%s/v2/trunc", t->dir);
	assert_int_equal(push_v2(t, 80, id, path, ADB_SYNC_FLAG_ZSTD, z,
				 zlen - 5, msg, sizeof(msg)),
			 ADB_SYNC_FAIL);
	assert_string_equal(msg, "truncated zstd data");
	assert_int_equal(stat(path, &st), -1);
	/* ...and in a dry run too. */
	assert_int_equal(push_v2(t, 80, id, path,
				 ADB_SYNC_FLAG_ZSTD | ADB_SYNC_FLAG_DRY_RUN, z,
				 zlen - 5, msg, sizeof(msg)),
			 ADB_SYNC_FAIL);
	/* Corrupt: LZ4 that is not LZ4. */
	assert_int_equal(push_v2(t, 80, id, path, ADB_SYNC_FLAG_LZ4, z, zlen,
				 msg, sizeof(msg)),
			 ADB_SYNC_FAIL);
	assert_string_equal(msg, "corrupt lz4 data");
	assert_int_equal(stat(path, &st), -1);
	free(z);
	/* A zstd frame asking for a 1 GiB window. */
	{
		static const uint8_t big[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00,
					       0xa0, 0x09, 0x00, 0x00, 'x' };
		assert_int_equal(push_v2(t, 80, id, path, ADB_SYNC_FLAG_ZSTD,
					 big, sizeof(big), msg, sizeof(msg)),
				 ADB_SYNC_FAIL);
		assert_string_equal(msg, "too large a window in zstd data");
	}
	/* A bomb: one DATA message that expands past 64 MiB. */
	{
		size_t blen = (64u << 20) + 1;
		uint8_t *zeros = calloc(1, blen);

		snprintf(path, sizeof(path), "%s/v2/bomb", t->dir);
		zlen = squeeze(ADB_COMPRESS_ZSTD, zeros, blen, &z);
		free(zeros);
		assert_true(zlen < ADB_SYNC_DATA_MAX);
		assert_int_equal(push_v2(t, 80, id, path, ADB_SYNC_FLAG_ZSTD,
					 z, zlen, msg, sizeof(msg)),
				 ADB_SYNC_FAIL);
		assert_string_equal(msg,
				    "over 64 MiB from one DATA message of zstd data");
		assert_int_equal(stat(path, &st), -1);
		free(z);
	}
	/* The stream still works after those FAILs. */
	snprintf(path, sizeof(path), "%s/v2/0/3", t->dir);
	assert_int_equal(pull_v2(t, 80, id, path, ADB_COMPRESS_ZSTD,
				 ADB_SYNC_FLAG_ZSTD, back, sizeof(back)),
			 len);
	/* Two codecs at once: FAIL, and the stream is closed. */
	{
		static uint8_t req[256], out[256];
		size_t n = put_req(req, ADB_SYNC_RCV2, path, strlen(path));
		struct msg m;
		size_t got;

		adb_syncmsg_put32(req + n, ADB_SYNC_RCV2);
		adb_syncmsg_put32(req + n + 4,
				  ADB_SYNC_FLAG_ZSTD | ADB_SYNC_FLAG_LZ4);
		got = sync_call(t, 80, id, req, n + 8, out, sizeof(out));
		assert_true(got >= 8);
		assert_int_equal(get32(out), ADB_SYNC_FAIL);
		/* sync_call() stopped at the CLSE that followed. */
		expect_nothing(t);
		send_msg(t, ADB_WRTE, 80, id, req, n + 8);
		expect(t, &m, ADB_CLSE);
	}
	free(data);
	adb_fixture_stop(t);
}

static void test_sync_errors(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[2048], out[4096];
	char longpath[1100];
	size_t n, got;
	uint32_t id;
	struct msg m;

	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 30, "sync:");
	/* RECV of a missing file: FAIL with strerror. */
	n = put_req(req, ADB_SYNC_RECV, "/nonexistent/file", 17);
	got = sync_call(t, 30, id, req, n, out, 8);
	assert_int_equal(get32(out), ADB_SYNC_FAIL);
	assert_true(got > 8);
	out[got] = '\0';
	assert_non_null(strstr((char *)out + 8, "No such file or directory"));
	/* SEND into /proc: FAIL after DONE. */
	n = put_req(req, ADB_SYNC_SEND, "/proc/nonexistent/x,33188", 25);
	n += put_req(req + n, ADB_SYNC_DATA, "abc", 3);
	adb_syncmsg_put32(req + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(req + n + 4, 0);
	n += 8;
	got = sync_call(t, 30, id, req, n, out, 8);
	assert_int_equal(get32(out), ADB_SYNC_FAIL);
	/* RECV of a FIFO nobody writes fails rather than hanging. */
	snprintf(longpath, sizeof(longpath), "%s/fifo", t->dir);
	assert_int_equal(mkfifo(longpath, 0600), 0);
	n = put_req(req, ADB_SYNC_RECV, longpath, strlen(longpath));
	got = sync_call(t, 30, id, req, n, out, 8);
	assert_true(got >= 8);
	assert_true(get32(out) == ADB_SYNC_FAIL || get32(out) == ADB_SYNC_DONE);
	/* A path over 1024 bytes: FAIL, then the stream closes. */
	memset(longpath, 'a', sizeof(longpath));
	n = put_req(req, ADB_SYNC_STAT, longpath, 1025);
	got = sync_call(t, 30, id, req, n, out, 8);
	assert_int_equal(get32(out), ADB_SYNC_FAIL);
	out[got] = '\0';
	assert_non_null(strstr((char *)out + 8, "path too long"));
	expect(t, &m, ADB_CLSE);
	/* A NUL inside a path, on a new stream. */
	id = open_stream(t, 31, "sync:");
	n = put_req(req, ADB_SYNC_STAT, "/tmp\0x", 6);
	got = sync_call(t, 31, id, req, n, out, 8);
	assert_int_equal(get32(out), ADB_SYNC_FAIL);
	expect(t, &m, ADB_CLSE);
	/* A truncated request just waits; QUIT closes. */
	id = open_stream(t, 32, "sync:");
	n = put_req(req, ADB_SYNC_STAT, "/", 1);
	got = sync_call(t, 32, id, req, n - 1, out, 0);
	expect_nothing(t);
	got = sync_call(t, 32, id, req + n - 1, 1, out, ADB_SYNC_STAT_V1_SIZE);
	assert_int_equal(got, ADB_SYNC_STAT_V1_SIZE);
	assert_int_equal(get32(out), ADB_SYNC_STAT);
	assert_true(get32(out + 4) & 0040000); /* a directory */
	n = put_req(req, ADB_SYNC_QUIT, NULL, 0);
	send_msg(t, ADB_WRTE, 32, id, req, n);
	expect(t, &m, ADB_OKAY);
	expect(t, &m, ADB_CLSE);
	adb_fixture_stop(t);
}

/* A sparse file "big" of size bytes in the test's folder; its path in path. */
static void big_file(struct adb_fixture *t, char *path, size_t size_of_path, off_t size)
{
	int fd;

	snprintf(path, size_of_path, "%s/big", t->dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

static void test_sync_pipelined_and_stash_limit(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[512], out[4 << 20], junk[1 << 20];
	char path[128];
	size_t n, got, off = 0, data = 0;
	uint32_t id;
	struct msg m;
	int i;

	big_file(t, path, sizeof(path), (2 << 20) + 5);
	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 70, "sync:");
	/* RECV and STAT in one WRTE: the STAT answer follows RECV's DONE. */
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	n += put_req(req + n, ADB_SYNC_STAT, "/", 1);
	got = sync_call(t, 70, id, req, n, out, sizeof(out));
	while (off + 8 <= got && get32(out + off) == ADB_SYNC_DATA) {
		data += get32(out + off + 4);
		off += 8 + get32(out + off + 4);
	}
	assert_int_equal(data, (2 << 20) + 5);
	assert_int_equal(get32(out + off), ADB_SYNC_DONE);
	assert_int_equal(get32(out + off + 8), ADB_SYNC_STAT);
	assert_int_equal(got, off + 8 + ADB_SYNC_STAT_V1_SIZE);
	/* A host that keeps writing while we answer a RECV it does not read
	 * is cut off once 4 MiB are held. */
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	send_msg(t, ADB_WRTE, 70, id, req, n);
	expect(t, &m, ADB_OKAY);
	expect(t, &m, ADB_WRTE);
	for (i = 0; i < 8; i++) {
		send_msg(t, ADB_WRTE, 70, id, junk, sizeof(junk));
		expect(t, &m, ADB_OKAY);
		if (next(t, &m)) {
			assert_int_equal(m.cmd, ADB_CLSE);
			break;
		}
	}
	assert_true(i >= 3 && i < 8);
	adb_fixture_stop(t);
}

static void test_sync_list(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[256], out[65536];
	char path[128];
	size_t n, got, off = 0;
	uint32_t id;
	int seen = 0, done = 0;

	snprintf(path, sizeof(path), "%s/listed", t->dir);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 40, "sync:");
	n = put_req(req, ADB_SYNC_LIST, t->dir, strlen(t->dir));
	got = sync_call(t, 40, id, req, n, out, sizeof(out));
	while (off + 20 <= got) {
		uint32_t idv = get32(out + off), nlen = get32(out + off + 16);
		if (idv == ADB_SYNC_DONE) {
			done = 1;
			break;
		}
		assert_int_equal(idv, ADB_SYNC_DENT);
		if (nlen == 6 && !memcmp(out + off + 20, "listed", 6))
			seen = 1;
		off += 20 + nlen;
	}
	assert_true(seen);
	assert_true(done);
	adb_fixture_stop(t);
}

static void test_flow_control_and_fairness(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[256];
	char path[128];
	uint32_t a, b;
	struct msg m;
	size_t n;

	/* A 3 MiB file pulled on two streams at once. */
	big_file(t, path, sizeof(path), 3 << 20);
	connect_host(t, ADB_MAX_PAYLOAD);
	a = open_stream(t, 50, "sync:");
	b = open_stream(t, 51, "sync:");
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	/* The transport is full: nothing goes out. */
	fake_of(t->p)->tx_queued = PLUGIN_TX_HIGH;
	send_msg(t, ADB_WRTE, 50, a, req, n);
	expect(t, &m, ADB_OKAY);
	send_msg(t, ADB_WRTE, 51, b, req, n);
	expect(t, &m, ADB_OKAY);
	expect_nothing(t);
	/* Room again: one WRTE per stream, and no more until OKAY. */
	fake_of(t->p)->tx_queued = 0;
	ops->tx_drained(t->priv, 1);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 50);
	assert_int_equal(m.len, ADB_MAX_PAYLOAD);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect_nothing(t);
	ops->tx_drained(t->priv, 1);
	expect_nothing(t);
	/* The OKAY for stream b lets b send again, a stays waiting. */
	send_msg(t, ADB_OKAY, 51, b, NULL, 0);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect_nothing(t);
	/* An OKAY with the wrong host id changes nothing. */
	send_msg(t, ADB_OKAY, 99, a, NULL, 0);
	expect_nothing(t);
	/* A host CLSE ends b; a goes on. */
	send_msg(t, ADB_CLSE, 51, b, NULL, 0);
	send_msg(t, ADB_OKAY, 50, a, NULL, 0);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 50);
	expect_nothing(t);
	adb_fixture_stop(t);
}

static void connect_delayed_ack(struct adb_fixture *t)
{
	static const char banner[] =
		"host::features=shell_v2,made_up_feature,delayed_ack,stat_v2";
	struct msg m;

	send_msg(t, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD, banner,
		 sizeof(banner));
	expect(t, &m, ADB_CNXN);
	assert_non_null(strstr((const char *)m.data, ",delayed_ack"));
	expect_nothing(t);
}

static int32_t okay_delta(const struct msg *m)
{
	assert_int_equal(m->cmd, ADB_OKAY);
	assert_int_equal(m->len, 4);
	return (int32_t)get32(m->data);
}

static void send_okay_delta(struct adb_fixture *t, uint32_t hid, uint32_t id,
			    int32_t delta)
{
	uint8_t p[4];

	p[0] = delta;
	p[1] = (uint32_t)delta >> 8;
	p[2] = (uint32_t)delta >> 16;
	p[3] = (uint32_t)delta >> 24;
	send_msg(t, ADB_OKAY, hid, id, p, 4);
}

/* Under delayed_ack: OPEN's window; several WRTEs in flight per stream
 * within the host's window; OKAY deltas, signed; malformed OKAYs. */
static void test_delayed_ack_send_window(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[256];
	char path[128];
	uint32_t a, b;
	struct msg m;
	size_t n;

	big_file(t, path, sizeof(path), 8 << 20);
	/* A host without the feature: a window in OPEN is refused. */
	connect_host(t, ADB_MAX_PAYLOAD);
	send_msg(t, ADB_OPEN, 1, 4096, "sync:", 5);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 1);
	/* A host with it (and one we lack): no window in OPEN is refused. */
	connect_delayed_ack(t);
	send_msg(t, ADB_OPEN, 2, 0, "sync:", 5);
	expect(t, &m, ADB_CLSE);
	assert_int_equal(m.arg1, 2);
	/* Our OKAY grants our window. The host grants 1.5 MiB. */
	send_msg(t, ADB_OPEN, 50, 3 << 19, "sync:", 5);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(okay_delta(&m), ADB_STREAM_WINDOW);
	a = m.arg0;
	send_msg(t, ADB_OPEN, 51, 3 << 19, "sync:", 5);
	expect(t, &m, ADB_OKAY);
	b = m.arg0;
	n = put_req(req, ADB_SYNC_RECV, path, strlen(path));
	send_msg(t, ADB_WRTE, 50, a, req, n);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(okay_delta(&m), n);
	/* Two WRTEs (1 MiB, then 0.5 MiB left) without an OKAY; then the
	 * window is spent. */
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.len, ADB_MAX_PAYLOAD);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 50);
	expect_nothing(t);
	/* b's WRTEs take turns with a's: b gets its two as well. */
	send_msg(t, ADB_WRTE, 51, b, req, n);
	expect(t, &m, ADB_OKAY);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect_nothing(t);
	/* An OKAY without the payload, or with 8 bytes, is ignored. */
	send_msg(t, ADB_OKAY, 50, a, NULL, 0);
	send_msg(t, ADB_OKAY, 50, a, "12345678", 8);
	expect_nothing(t);
	/* 0.5 MiB back: a's window is at 0 (-0.5 + 0.5): still nothing. */
	send_okay_delta(t, 50, a, 1 << 19);
	expect_nothing(t);
	/* A negative delta takes it further down, one byte back up is not
	 * enough... */
	send_okay_delta(t, 50, a, -100);
	send_okay_delta(t, 50, a, 100);
	expect_nothing(t);
	/* ...one more byte is: one WRTE goes. */
	send_okay_delta(t, 50, a, 1);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 50);
	expect_nothing(t);
	/* A delta for the wrong host id changes nothing. */
	send_okay_delta(t, 99, b, 1 << 20);
	expect_nothing(t);
	send_okay_delta(t, 51, b, 1 << 21);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.arg1, 51);
	expect_nothing(t);
	/* A new CNXN without the feature: classic OKAYs again. */
	connect_host(t, ADB_MAX_PAYLOAD);
	send_msg(t, ADB_OPEN, 60, 0, "sync:", 5);
	expect(t, &m, ADB_OKAY);
	assert_int_equal(m.len, 0);
	adb_fixture_stop(t);
}

/* Under delayed_ack: host WRTEs queue behind one the service holds, in
 * order, within our window; one past the spent window closes the stream. */
static void test_delayed_ack_recv_window(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t chunk[ADB_MAX_PAYLOAD];
	char name[384], path[128], go[128];
	int64_t acked = 0;
	struct stat st;
	uint32_t id;
	struct msg m;
	int fd;

	snprintf(path, sizeof(path), "%s/in", t->dir);
	snprintf(go, sizeof(go), "%s/go", t->dir);
	/* head takes exactly the first two WRTEs; then nobody reads, so
	 * the later WRTEs find a full pipe whatever the timing. It starts
	 * once the test says so (the go file): a fixed sleep let head read
	 * before expect_nothing() on a loaded machine. */
	snprintf(name, sizeof(name),
		 "exec:while [ ! -e %s ]; do sleep 0.02; done; head -c 2097152 > %s; sleep 10",
		 go, path);
	connect_delayed_ack(t);
	send_msg(t, ADB_OPEN, 70, 1 << 20, name, strlen(name));
	expect(t, &m, ADB_OKAY);
	assert_int_equal(okay_delta(&m), ADB_STREAM_WINDOW);
	id = m.arg0;
	/* Our window is 2 MiB: two full WRTEs while head waits. The pipe
	 * takes 64 KiB of the first, the rest waits. */
	memset(chunk, 'a', sizeof(chunk));
	send_msg(t, ADB_WRTE, 70, id, chunk, sizeof(chunk));
	memset(chunk, 'b', sizeof(chunk));
	send_msg(t, ADB_WRTE, 70, id, chunk, sizeof(chunk));
	expect_nothing(t);
	fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* Then OKAYs come as head reads, one per WRTE, with its size. */
	while (acked < 2 << 20) {
		pump_until_sent(t);
		while (next(t, &m)) {
			assert_int_equal(m.arg1, 70);
			acked += okay_delta(&m);
		}
	}
	assert_int_equal(acked, 2 << 20);
	/* What head wrote is the first two WRTEs, in order. The last OKAY
	 * comes when the last bytes are in the pipe, not yet read: wait for
	 * head's 2 MiB before the close below, which kills head (checked
	 * after it, head was at times killed short of them on a loaded
	 * machine). */
	RUN_UNTIL(t->loop, stat(path, &st) == 0 && st.st_size >= 2 << 20);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size >= 2 << 20);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, chunk, 1), 1);
	assert_int_equal(chunk[0], 'a');
	assert_int_equal(pread(fd, chunk, 1, (1 << 20) - 1), 1);
	assert_int_equal(chunk[0], 'a');
	assert_int_equal(pread(fd, chunk, 1, 1 << 20), 1);
	assert_int_equal(chunk[0], 'b');
	assert_int_equal(pread(fd, chunk, 1, (2 << 20) - 1), 1);
	assert_int_equal(chunk[0], 'b');
	close(fd);
	/* The window is open again: a third WRTE, then a fourth while the
	 * third is held, are taken... */
	memset(chunk, 'c', sizeof(chunk));
	send_msg(t, ADB_WRTE, 70, id, chunk, sizeof(chunk));
	send_msg(t, ADB_WRTE, 70, id, chunk, 16);
	/* ...a fifth, past the window (2 MiB + 16 bytes used), is not: the
	 * stream is closed. */
	send_msg(t, ADB_WRTE, 70, id, chunk, sizeof(chunk));
	send_msg(t, ADB_WRTE, 70, id, chunk, 1);
	for (;;) {
		if (!next(t, &m)) {
			pump_until_sent(t);
			continue;
		}
		if (m.cmd == ADB_CLSE)
			break;
		okay_delta(&m);
	}
	assert_int_equal(m.arg0, id);
	assert_int_equal(m.arg1, 70);
	adb_fixture_stop(t);
}

/*
 * A push with one WRTE in flight (adb 29): the sync stream's OKAY goes out
 * once the WRTE's header is in, while its payload is still to come, so
 * that the host readies its next WRTE meanwhile; the WRTE is not
 * acknowledged a second time. Not for a stream whose service holds data
 * (a shell), nor under delayed_ack, nor for a host whose payloads carry a
 * checksum to check first.
 */
static struct msg send_head_then(struct adb_fixture *t, uint32_t hid,
				 uint32_t id, const uint8_t *data, size_t len,
				 bool early)
{
	uint8_t hdr[ADB_HDR_SIZE];
	struct msg m = { 0 };

	adb_packet_encode(hdr, ADB_WRTE, hid, id, data, len, 1);
	ops->rx(t->priv, 0, hdr, sizeof(hdr));
	if (early) {
		assert_true(next(t, &m));
		assert_int_equal(m.cmd, ADB_OKAY);
		assert_int_equal(m.arg0, id);
		assert_int_equal(m.arg1, hid);
		assert_int_equal(m.len, 0);
	}
	expect_nothing(t);
	ops->rx(t->priv, 0, data, len / 2);
	expect_nothing(t);
	ops->rx(t->priv, 0, data + len / 2, len - len / 2);
	if (!early)
		expect(t, &m, ADB_OKAY);
	return m;
}

static void test_sync_okay_at_header(void **state)
{
	struct adb_fixture *t = start("off");
	static uint8_t req[65544 + 200];
	char path[128], spec[160];
	uint8_t data[1000];
	size_t n = 0;
	struct stat st;
	uint32_t id, sid;
	struct msg m;

	memset(data, 'p', sizeof(data));
	connect_host(t, ADB_MAX_PAYLOAD);
	id = open_stream(t, 30, "sync:");
	snprintf(path, sizeof(path), "%s/early", t->dir);
	snprintf(spec, sizeof(spec), "%s,%u", path, 0100600);
	n += put_req(req + n, ADB_SYNC_SEND, spec, strlen(spec));
	n += put_req(req + n, ADB_SYNC_DATA, data, sizeof(data));
	send_head_then(t, 30, id, req, n, true);
	n = put_req(req, ADB_SYNC_DATA, data, sizeof(data));
	adb_syncmsg_put32(req + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(req + n + 4, 1600000000);
	n += 8;
	send_head_then(t, 30, id, req, n, true);
	/* The file is whole, and DONE's answer follows the OKAY. */
	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.len, 8);
	assert_int_equal(get32(m.data), ADB_SYNC_OKAY);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 2 * sizeof(data));
	send_msg(t, ADB_OKAY, 30, id, NULL, 0);
	expect_nothing(t);
	/* A shell's stdin is acknowledged once the service took it. */
	sid = open_stream(t, 31, "exec:cat > /dev/null");
	send_head_then(t, 31, sid, data, sizeof(data), false);
	expect_nothing(t);
	adb_fixture_stop(t);

	/* A host that checksums its payloads: the OKAY waits for the whole
	 * WRTE. */
	t = start("off");
	send_msg(t, ADB_CNXN, 0x01000000, ADB_MAX_PAYLOAD, "host::", 7);
	expect(t, &m, ADB_CNXN);
	id = open_stream(t, 32, "sync:");
	n = put_req(req, ADB_SYNC_STA2, path, strlen(path));
	send_head_then(t, 32, id, req, n, false);
	expect(t, &m, ADB_WRTE);
	adb_fixture_stop(t);

	/* delayed_ack: the window, not an early OKAY. */
	t = start("off");
	connect_delayed_ack(t);
	send_msg(t, ADB_OPEN, 33, 1 << 20, "sync:", 6);
	expect(t, &m, ADB_OKAY);
	id = m.arg0;
	m = send_head_then(t, 33, id, req, n, false);
	assert_int_equal(okay_delta(&m), (int32_t)n);
	adb_fixture_stop(t);
}

static void test_auth_flow(void **state)
{
	struct adb_fixture *t = start("on");
	static const char banner[] = "host::features=shell_v2";
	uint8_t sig[512], bad_sig[256] = { 0 };
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	char *argv_keys[] = { "keys" }, *argv_allow[] = { "allow", fp };
	const char *pub = adb_testkey_pub(key);
	struct msg m;
	size_t n;

	send_msg(t, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD, banner,
		 sizeof(banner));
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_int_equal(m.len, 20);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	/* A wrong signature earns a new token. */
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, bad_sig, sizeof(bad_sig));
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	/* Streams are refused while unauthorized. */
	send_msg(t, ADB_OPEN, 1, 0, "sync:", 6);
	expect_nothing(t);
	/* The host offers its key; it stays pending. */
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	assert_int_equal(ops->command(t->priv, 1, argv_keys, reply,
				      sizeof(reply)), 0);
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_non_null(strstr(reply, fp));
	/* Allowing it sends the waiting host a new token; its signature
	 * lets it in. */
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	n = adb_testkey_sign(key, m.data, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_CNXN);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	/* Next connection: the signature is accepted. */
	send_msg(t, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD, banner,
		 sizeof(banner));
	expect(t, &m, ADB_AUTH);
	n = adb_testkey_sign(key, m.data, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_CNXN);
	/* Bad commands. */
	argv_allow[1] = "AA:BB";
	assert_int_equal(ops->command(t->priv, 2, argv_allow, reply,
				      sizeof(reply)), -ENOENT);
	assert_int_equal(ops->command(t->priv, 1, argv_allow, reply,
				      sizeof(reply)), -EINVAL);
	adb_fixture_stop(t);
}

/* Sends CNXN and returns the token the device answers with. */
static void hostile_cnxn(struct adb_fixture *t, uint8_t token[ADB_AUTH_TOKEN_SIZE])
{
	static const char banner[] = "host::features=shell_v2";
	struct msg m;

	send_msg(t, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD, banner,
		 sizeof(banner));
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_int_equal(m.len, ADB_AUTH_TOKEN_SIZE);
	memcpy(token, m.data, ADB_AUTH_TOKEN_SIZE);
	expect_nothing(t);
}

static void assert_no_stream(struct adb_fixture *t)
{
	send_msg(t, ADB_OPEN, 7, 0, "shell:id", 9);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
}

/* Attacks on authentication, each of which must not bring the host online. */
static void test_auth_hostile(void **state)
{
	struct adb_fixture *t = start("on");
	struct adb_testkey *other = adb_testkey_new();
	uint8_t token[ADB_AUTH_TOKEN_SIZE], sig[512], old_sig[512];
	char keys[1024], reply[256], fp[ADB_AUTH_FP_SIZE];
	const char *pub = adb_testkey_pub(key);
	size_t n, old_n;
	struct msg m;
	FILE *f;

	snprintf(keys, sizeof(keys), "%s\n", pub);
	f = fopen(t->keys, "w");
	fputs(keys, f);
	fclose(f);

	/* A known public key offered without a signature: a new token. */
	hostile_cnxn(t, token);
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_memory_not_equal(m.data, token, ADB_AUTH_TOKEN_SIZE);
	expect_nothing(t);
	assert_no_stream(t);

	/* A signature by a key that is not in adb_keys. */
	memcpy(token, m.data, ADB_AUTH_TOKEN_SIZE);
	n = adb_testkey_sign(other, token, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_no_stream(t);

	/* A truncated signature of the current token by the right key. */
	memcpy(token, m.data, ADB_AUTH_TOKEN_SIZE);
	n = adb_testkey_sign(key, token, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n - 1);
	expect(t, &m, ADB_AUTH);
	assert_no_stream(t);
	/* ...and the whole one, now too late: that token is spent. */
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_AUTH);
	assert_no_stream(t);

	/* A good signature, captured, is not good on the next connection. */
	hostile_cnxn(t, token);
	old_n = adb_testkey_sign(key, token, old_sig, sizeof(old_sig));
	ops->disable(t->priv);
	ops->enable(t->priv);
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, old_sig, old_n);
	expect_nothing(t);
	hostile_cnxn(t, token);
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, old_sig, old_n);
	expect(t, &m, ADB_AUTH);
	assert_no_stream(t);

	/* A key offered on an earlier connection lets no later host in. */
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, adb_testkey_pub(other),
		 strlen(adb_testkey_pub(other)) + 1);
	expect_nothing(t);
	hostile_cnxn(t, token);
	adb_auth_fingerprint(adb_testkey_blob(other), fp);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	expect_nothing(t);
	assert_no_stream(t);

	/* A host looping on a known key is cut off after a bounded number of
	 * tokens instead of being answered forever. */
	hostile_cnxn(t, token);
	for (n = 0; n < 100; n++) {
		send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub,
			 strlen(pub) + 1);
		if (!next(t, &m))
			break;
		assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	}
	assert_true(n < 100);
	assert_no_stream(t);

	/* The real thing still works. */
	hostile_cnxn(t, token);
	n = adb_testkey_sign(key, token, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_CNXN);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	adb_testkey_free(other);
	adb_fixture_stop(t);
}

/* A token from the device, its bytes into token. */
static void expect_token(struct adb_fixture *t, uint8_t token[ADB_AUTH_TOKEN_SIZE])
{
	struct msg m;

	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	assert_int_equal(m.len, ADB_AUTH_TOKEN_SIZE);
	memcpy(token, m.data, ADB_AUTH_TOKEN_SIZE);
}

/* Answer token with k's signature (refused: a new token comes). */
static void sign_refused(struct adb_fixture *t, struct adb_testkey *k,
			 uint8_t token[ADB_AUTH_TOKEN_SIZE])
{
	uint8_t sig[512];
	size_t n = adb_testkey_sign(k, token, sig, sizeof(sig));

	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect_token(t, token);
	expect_nothing(t);
}

static void offer(struct adb_fixture *t, const char *pub)
{
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	expect_nothing(t);
}

/* The host offers pub, whose fingerprint is fp, and an admin allows it:
 * the host has not signed with it on this connection, so it gets a new
 * token (into fresh), nothing else, and no stream opens. */
static void offer_allowed_asks_anew(struct adb_fixture *t, const char *pub,
				    const char *fp, uint8_t fresh[ADB_AUTH_TOKEN_SIZE])
{
	char reply[512];

	offer(t, pub);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "signs a new token"));
	expect_token(t, fresh);
	expect_nothing(t);
	assert_no_stream(t);
}

/*
 * AOSP's flow, which an independent host library follows to the letter:
 * sign the first token with the key, offer its public half on the second,
 * wait for CNXN. Its signature proved it holds the key, so the allow lets
 * it in at once, without a token it would not answer (issue 37).
 */
static void test_allow_signed_then_offered(void **state)
{
	struct adb_fixture *t = start("on");
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	struct msg m;

	hostile_cnxn(t, token);
	sign_refused(t, key, token);
	offer(t, adb_testkey_pub(key));
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "had signed a token with it"));
	expect(t, &m, ADB_CNXN);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	adb_fixture_stop(t);
}

/* The key allowed while unlocked: the host is online (t's own key). */
static void online_with_key(struct adb_fixture *t)
{
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	struct msg m;

	hostile_cnxn(t, token);
	sign_refused(t, key, token);
	offer(t, adb_testkey_pub(key));
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	expect(t, &m, ADB_CNXN);
	assert_string_equal(fake_of(t->p)->status_state, "device");
}

static void set_locked(struct adb_fixture *t, bool locked)
{
	fake_of(t->p)->locked = locked;
	ops->lock(t->priv, locked);
}

/*
 * Locked (issue 43): a host whose key is trusted stays unauthorized: its
 * signature earns a new token, not CNXN, its public key nothing, and no
 * stream opens. The unlock lets it in on the same connection. A session
 * online at the lock is kept (lock_close's default).
 */
static void test_lock_hold(void **state)
{
	struct adb_fixture *t = start("on");
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	struct msg m;

	online_with_key(t);
	set_locked(t, true);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	hostile_cnxn(t, token);
	sign_refused(t, key, token);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	offer(t, adb_testkey_pub(key));
	assert_no_stream(t);
	/* Signing again proves nothing more: another token, never CNXN. */
	sign_refused(t, key, token);
	set_locked(t, false);
	expect(t, &m, ADB_CNXN);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	/* An unlock with nobody held sends nothing. */
	set_locked(t, true);
	set_locked(t, false);
	expect_nothing(t);
	adb_fixture_stop(t);
}

/* lock_close = true: the session online at the lock ends; the host is
 * held, sent a token, and comes back at the unlock. */
static void test_lock_close(void **state)
{
	static const char *const opts[] = { "lock_close", "true", NULL };
	struct adb_fixture *t = adb_fixture_start("on", opts);
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	struct msg m;

	online_with_key(t);
	set_locked(t, true);
	expect_token(t, token);
	expect_nothing(t);
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	assert_no_stream(t);
	set_locked(t, false);
	expect(t, &m, ADB_CNXN);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	adb_fixture_stop(t);
}

/*
 * `adb allow` of the key a waiting host offered must not let that host in
 * on the key alone: anyone who saw the key on a wire can offer it. A host
 * that never signed with the key on this connection (nothing, another
 * key, a signature from an earlier connection, one pushed out of the last
 * ADB_AUTH_SIGNED_MAX) gets a new token, and only a signature over it by
 * the allowed key brings it online.
 */
static void test_allow_needs_signature(void **state)
{
	struct adb_fixture *t = start("on");
	struct adb_testkey *other = adb_testkey_new();
	uint8_t token[ADB_AUTH_TOKEN_SIZE], fresh[ADB_AUTH_TOKEN_SIZE];
	uint8_t first[ADB_AUTH_TOKEN_SIZE], sig_first[512], sig[512];
	size_t n_first, n;
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	char *argv_keys[] = { "keys" };
	const char *pub = adb_testkey_pub(key);
	struct msg m;

	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	/* The impostor offers the key and never signs. */
	hostile_cnxn(t, token);
	offer(t, pub);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "signs a new token"));
	expect_token(t, fresh);
	assert_memory_not_equal(fresh, token, ADB_AUTH_TOKEN_SIZE);
	expect_nothing(t);
	assert_no_stream(t);
	/* The key is trusted (no longer pending), the host is not. */
	assert_int_equal(ops->command(t->priv, 1, argv_keys, reply,
				      sizeof(reply)), 0);
	assert_null(strstr(reply, fp));
	assert_string_equal(fake_of(t->p)->status_state, "unauthorized");
	/* The public key again: another token, never CNXN. */
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	expect_token(t, fresh);
	assert_no_stream(t);
	/* Another key's signature over the newest token: refused. */
	sign_refused(t, other, fresh);
	assert_no_stream(t);
	/* The key's owner signs the newest token: online. */
	n = adb_testkey_sign(key, fresh, sig, sizeof(sig));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	expect(t, &m, ADB_CNXN);
	assert_string_equal(fake_of(t->p)->status_state, "device");
	adb_fixture_stop(t);

	/* Signed with another key, then offered the key: a new token. */
	t = start("on");
	hostile_cnxn(t, token);
	sign_refused(t, other, token);
	offer_allowed_asks_anew(t, pub, fp, fresh);
	adb_fixture_stop(t);

	/* Signed with the key on an earlier connection, offered it on this
	 * one, and replays that signature: nothing carries over. */
	t = start("on");
	hostile_cnxn(t, first);
	n_first = adb_testkey_sign(key, first, sig_first, sizeof(sig_first));
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig_first, n_first);
	expect_token(t, token);
	hostile_cnxn(t, token);
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig_first, n_first);
	expect_token(t, token);
	offer_allowed_asks_anew(t, pub, fp, fresh);
	/* A replay after the allow is refused too. */
	send_msg(t, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig_first, n_first);
	expect_token(t, fresh);
	assert_no_stream(t);
	adb_fixture_stop(t);

	/* Signed with the key, then ADB_AUTH_SIGNED_MAX signatures by another
	 * pushed it out of what the connection remembers. */
	t = start("on");
	hostile_cnxn(t, token);
	sign_refused(t, key, token);
	for (int i = 0; i < ADB_AUTH_SIGNED_MAX; i++)
		sign_refused(t, other, token);
	offer_allowed_asks_anew(t, pub, fp, fresh);
	adb_testkey_free(other);
	adb_fixture_stop(t);
}

/*
 * The keys file is root's: an allowed host's shell runs as the worker's
 * user and must not add keys to it or empty it (issue 37). The worker's
 * prepare, as root, makes a missing file root's (group: the worker's,
 * 0640) and takes back one an older gadgetd made for the worker's user.
 */
#define TEST_WORKER_ID 65534

static void assert_keys_root(const char *path, mode_t mode)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, TEST_WORKER_ID);
	assert_int_equal(st.st_mode & 07777, mode);
}

static void test_keys_file_root_owned(void **state)
{
	struct adb_fixture *t;
	char link[160], buf[64] = "";
	struct stat st;
	int fd;

	if (geteuid() != 0)
		skip(); /* chown needs root */
	t = start("on");
	/* Missing: made root's, for the worker's group to read. */
	assert_int_equal(ops->prepare(t->p, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_keys_root(t->keys, 0640);
	/* An older gadgetd's: the worker's user owned it. */
	assert_int_equal(chown(t->keys, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_int_equal(chmod(t->keys, 0600), 0);
	fd = open(t->keys, O_WRONLY | O_APPEND);
	assert_int_equal(write(fd, "kept\n", 5), 5);
	close(fd);
	assert_int_equal(ops->prepare(t->p, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_keys_root(t->keys, 0640);
	fd = open(t->keys, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	assert_string_equal(buf, "kept\n");
	/* Root's, but writable by the worker's group: no longer. */
	assert_int_equal(chmod(t->keys, 0664), 0);
	assert_int_equal(ops->prepare(t->p, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_keys_root(t->keys, 0644);
	/* A symbolic link is not followed, its target not changed. */
	snprintf(link, sizeof(link), "%s/target", t->dir);
	assert_int_equal(rename(t->keys, link), 0);
	assert_int_equal(chown(link, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_int_equal(symlink(link, t->keys), 0);
	assert_int_equal(ops->prepare(t->p, TEST_WORKER_ID, TEST_WORKER_ID), 0);
	assert_int_equal(stat(link, &st), 0);
	assert_int_equal(st.st_uid, TEST_WORKER_ID);
	adb_fixture_stop(t);
}

/*
 * `adb allow` hands the key's line to gadgetd (plugin_keys_append) and
 * never writes the keys file itself; when gadgetd cannot add it, the key
 * stays pending, the host waits, and the admin hears why.
 */
static void test_allow_asks_gadgetd(void **state)
{
	struct adb_fixture *t = start("on");
	struct fake_plugin *f = fake_of(t->p);
	char reply[512], fp[ADB_AUTH_FP_SIZE], line[1024];
	char *argv_keys[] = { "keys" }, *argv_allow[] = { "allow", fp };
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	const char *pub = adb_testkey_pub(key);
	struct msg m;

	hostile_cnxn(t, token);
	snprintf(line, sizeof(line), "%s", pub);
	send_msg(t, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, line, strlen(line) + 1);
	expect_nothing(t);
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_int_equal(ops->command(t->priv, 2, argv_allow, reply,
				      sizeof(reply)), PLUGIN_COMMAND_LATER);
	assert_int_equal(f->keys_asked, 1);
	assert_string_equal(f->keys_line, line);
	assert_int_equal(access(t->keys, F_OK), -1);
	/* A second allow while the first waits: refused, nothing asked. */
	assert_int_equal(ops->command(t->priv, 2, argv_allow, reply,
				      sizeof(reply)), -EBUSY);
	assert_int_equal(f->keys_asked, 1);
	fake_keys_answer(t->p, t->keys, -EACCES);
	assert_int_equal(f->replies, 1);
	assert_int_equal(f->reply_rc, -EACCES);
	assert_non_null(strstr(f->reply, "not allowed: gadgetd could not add it"));
	expect_nothing(t);
	assert_no_stream(t);
	assert_int_equal(ops->command(t->priv, 1, argv_keys, reply,
				      sizeof(reply)), 0);
	assert_non_null(strstr(reply, fp));
	/* gadgetd adds it: the waiting host gets a token to sign. */
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	expect(t, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	adb_fixture_stop(t);
}

/* One reverse: service asked on stream hid; its one WRTE, which starts
 * with want4 (unless NULL), is OKAYed and the stream closes. The WRTE's
 * payload is left in got (NUL-ended, at most 255 bytes). */
static void reverse_once(struct adb_fixture *t, uint32_t hid, const char *service,
			 const char *want4, char got[256])
{
	uint32_t id = open_stream(t, hid, service);
	struct msg m;

	expect(t, &m, ADB_WRTE);
	assert_true(m.len < 256);
	memcpy(got, m.data, m.len);
	got[m.len] = '\0';
	if (want4)
		assert_memory_equal(got, want4, 4);
	send_msg(t, ADB_OKAY, hid, id, NULL, 0);
	expect(t, &m, ADB_CLSE);
}

static void test_reverse_and_reboot(void **state)
{
	struct adb_fixture *t = start("off");
	char got[256], port[8], want[64];
	struct msg m;
	size_t len;

	connect_host(t, ADB_MAX_PAYLOAD);
	reverse_once(t, 60, "reverse:list-forward", "0000", got);
	assert_int_equal(strlen(got), 4);
	reverse_once(t, 61, "reverse:killforward:tcp:1", "FAIL", got);
	reverse_once(t, 62, "reverse:forward:localabstract:gadgetd-test;tcp:5", "OKAY", got);
	reverse_once(t, 63, "reverse:forward:norebind:localabstract:gadgetd-test;tcp:6",
		     "FAIL", got);
	/* tcp:0: the port the kernel gave follows the OKAY, as adbd sends
	 * it, and the listener is listed under it. */
	reverse_once(t, 65, "reverse:forward:tcp:0;tcp:5", "OKAY", got);
	len = strlen(got);
	assert_true(len > 8 && len < 16);
	memcpy(port, got + 8, len - 8);
	port[len - 8] = '\0';
	snprintf(want, sizeof(want), "%04x", (unsigned)strlen(port));
	assert_memory_equal(got + 4, want, 4);
	assert_true(atoi(port) > 0 && atoi(port) < 65536);
	reverse_once(t, 66, "reverse:list-forward", NULL, got);
	snprintf(want, sizeof(want), "UsbFfs tcp:%s tcp:5\n", port);
	assert_non_null(strstr(got, want));
	open_stream(t, 64, "reboot:");
	expect(t, &m, ADB_WRTE);
	assert_non_null(memmem(m.data, m.len, "refused", 7));
	adb_fixture_stop(t);
}

static void test_reboot_command(void **state)
{
	struct adb_fixture *t = start("off");
	char script[160], path[128];
	struct stat st;
	FILE *f;

	/* The profile's command gets the target as its one argument. */
	snprintf(script, sizeof(script), "%s/reboot.sh", t->dir);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ntouch \"%s/rebooted-$1\"\n", t->dir);
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	fake_set_option(t->p, "reboot_command", script);
	fake_spawn_config("/bin/sh", script);
	ops->finish(t->priv);
	assert_int_equal(ops->init(t->p, &t->desc, &t->priv), 0);
	connect_host(t, ADB_MAX_PAYLOAD);
	/* A path or an option is no target: refused, nothing runs. */
	snprintf(path, sizeof(path), "reboot:%s/x", t->dir);
	open_refused(t, 79, path);
	open_refused(t, 78, "reboot:-f");
	open_stream(t, 80, "reboot:bootloader");
	snprintf(path, sizeof(path), "%s/rebooted-bootloader", t->dir);
	/* The spawner runs the script on its own: no loop to turn. */
	WAIT_UNTIL(stat(path, &st) == 0, usleep(10000));
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/rebooted-", t->dir);
	assert_int_equal(stat(path, &st), -1);
	fake_spawn_config("/bin/sh", NULL);
	adb_fixture_stop(t);
}

/* service's whole answer, then the stream closes. */
static void expect_answer(struct adb_fixture *t, uint32_t hid, const char *service,
			  const char *answer)
{
	struct msg m;
	uint32_t id = open_stream(t, hid, service);

	expect(t, &m, ADB_WRTE);
	assert_int_equal(m.len, strlen(answer));
	assert_memory_equal(m.data, answer, m.len);
	assert_int_equal(fake_of(t->p)->root_asked, -1); /* not before the close */
	send_msg(t, ADB_OKAY, hid, id, NULL, 0);
	expect(t, &m, ADB_CLSE);
}

/* As on a production Android build: root: is refused and nothing changes. */
static void test_root_refused(void **state)
{
	struct adb_fixture *t = start("off");

	connect_host(t, ADB_MAX_PAYLOAD);
	expect_answer(t, 90, "root:", "adbd cannot run as root in production builds\n");
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	expect_answer(t, 91, "unroot:", "adbd not running as root\n");
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	adb_fixture_stop(t);
}

/* Where the profile allows it: the answer, then (only once the host has
 * it) the request to gadgetd; and back. */
static void test_root_allowed(void **state)
{
	struct adb_fixture *t = start("off");

	fake_of(t->p)->root = PLUGIN_ROOT_ALLOWED;
	connect_host(t, ADB_MAX_PAYLOAD);
	expect_answer(t, 92, "root:", "restarting adbd as root\n");
	assert_int_equal(fake_of(t->p)->root_asked, 1);
	fake_of(t->p)->root_asked = -1;
	expect_answer(t, 93, "unroot:", "adbd not running as root\n");
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	fake_of(t->p)->root = PLUGIN_ROOT_ACTIVE;
	/* An answer still queued (delayed_ack sends the close at once):
	 * the request waits for it to leave. */
	fake_of(t->p)->root = PLUGIN_ROOT_ALLOWED;
	fake_of(t->p)->root_asked = -1;
	fake_of(t->p)->tx_queued = 24;
	expect_answer(t, 98, "root:", "restarting adbd as root\n");
	/* One check of the queue (however late the round) is one of the 50
	 * the request waits for. */
	loop_dispatch(t->loop, 100);
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	fake_of(t->p)->tx_queued = 0;
	RUN_UNTIL(t->loop, fake_of(t->p)->root_asked != -1);
	assert_int_equal(fake_of(t->p)->root_asked, 1);
	fake_of(t->p)->root = PLUGIN_ROOT_ACTIVE;
	fake_of(t->p)->root_asked = -1;
	expect_answer(t, 95, "root:", "adbd is already running as root\n");
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	expect_answer(t, 94, "unroot:", "restarting adbd as non root\n");
	assert_int_equal(fake_of(t->p)->root_asked, 0);
	/* Root by the profile's user: nothing to undo. */
	fake_of(t->p)->root_asked = -1;
	fake_of(t->p)->root = PLUGIN_ROOT_PROFILE;
	expect_answer(t, 96, "root:", "adbd is already running as root\n");
	expect_answer(t, 97, "unroot:",
		      "adbd runs as root by its profile's user, not by adb root\n");
	assert_int_equal(fake_of(t->p)->root_asked, -1);
	adb_fixture_stop(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors_and_banner),
		cmocka_unit_test(test_open_names),
		cmocka_unit_test(test_bad_option),
		cmocka_unit_test(test_malformed_messages),
		cmocka_unit_test(test_shell_v2_raw),
		cmocka_unit_test(test_shell_v2_fills_wrte),
		cmocka_unit_test(test_shell_v2_stdin_and_close),
		cmocka_unit_test(test_shell_pty_term_and_winsize),
		cmocka_unit_test(test_exec_raw_bytes),
		cmocka_unit_test(test_sync_push_pull_stat),
		cmocka_unit_test(test_sync_okay_at_header),
		cmocka_unit_test(test_sync_errors),
		cmocka_unit_test(test_sync_v2),
		cmocka_unit_test(test_sync_pipelined_and_stash_limit),
		cmocka_unit_test(test_sync_list),
		cmocka_unit_test(test_flow_control_and_fairness),
		cmocka_unit_test(test_delayed_ack_send_window),
		cmocka_unit_test(test_delayed_ack_recv_window),
		cmocka_unit_test(test_auth_flow),
		cmocka_unit_test(test_auth_hostile),
		cmocka_unit_test(test_allow_signed_then_offered),
		cmocka_unit_test(test_lock_hold),
		cmocka_unit_test(test_lock_close),
		cmocka_unit_test(test_allow_needs_signature),
		cmocka_unit_test(test_keys_file_root_owned),
		cmocka_unit_test(test_allow_asks_gadgetd),
		cmocka_unit_test(test_reverse_and_reboot),
		cmocka_unit_test(test_reboot_command),
		cmocka_unit_test(test_root_refused),
		cmocka_unit_test(test_root_allowed),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
