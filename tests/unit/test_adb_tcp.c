/*
 * adb over TCP (functions/adb/adb_tcp.c): the adb plugin as the runtime
 * drives it, handed a real listening socket on 127.0.0.1 (ops->listen),
 * with real clients; USB through the fake plugin_write.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "adb/adb_auth.h"
#include "adb/adb_packet.h"
#include "adb/adb_syncmsg.h"
#include "adb/adb_tcp.h"
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
	uint8_t data[4096];
};

static struct adb_testkey *key;

static int group_setup(void **state)
{
	log_init("test_adb_tcp", true, LOG_LEVEL_ERROR);
	key = adb_testkey_new();
	return 0;
}

static int group_teardown(void **state)
{
	adb_testkey_free(key);
	return 0;
}

/* A listening socket as gadgetd makes one, on 127.0.0.1 and a free port. */
static int listen_fd(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &sl), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* opts: "key", "value" pairs, NULL-terminated. */
static struct adb_fixture *start(const char *auth, const char *const *opts)
{
	struct adb_fixture *t = adb_fixture_start(auth, opts);
	int fd = listen_fd(&t->port);

	ops->listen(t->priv, &fd, 1, t->port);
	return t;
}

static int client(struct adb_fixture *t)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(t->port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	/* A round for the worker to accept in; what must see the accept
	 * done waits for it (tcp_status_is). */
	loop_dispatch(t->loop, 20);
	return fd;
}

static void csend_raw(int fd, const void *buf, size_t len)
{
	const uint8_t *b = buf;

	while (len) {
		ssize_t n = send(fd, b, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN)
			continue;
		assert_true(n > 0);
		b += n;
		len -= n;
	}
}

static void csend(int fd, uint32_t cmd, uint32_t a0, uint32_t a1,
		  const void *data, size_t len)
{
	uint8_t hdr[ADB_HDR_SIZE];

	adb_packet_encode(hdr, cmd, a0, a1, data, len, 1);
	csend_raw(fd, hdr, sizeof(hdr));
	if (len)
		csend_raw(fd, data, len);
}

/* n bytes from fd, turning the loop meanwhile: n, 0 at EOF or reset,
 * -1 when ms passed (a negative check passes a short ms, a wait for an
 * answer RUN_UNTIL_MS). */
static int cread(struct adb_fixture *t, int fd, uint8_t *buf, size_t n, unsigned ms)
{
	uint64_t end = loop_now_ms() + ms;
	size_t got = 0;

	while (got < n) {
		ssize_t r = recv(fd, buf + got, n - got, 0);

		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return 0;
		if (r > 0) {
			got += r;
			continue;
		}
		if (loop_now_ms() >= end)
			return -1;
		loop_dispatch(t->loop, 10);
	}
	return (int)n;
}

static void cexpect(struct adb_fixture *t, int fd, struct msg *m, uint32_t cmd)
{
	uint8_t hdr[ADB_HDR_SIZE];
	struct adb_hdr h;
	char want[5], got[5];

	assert_int_equal(cread(t, fd, hdr, sizeof(hdr), RUN_UNTIL_MS), ADB_HDR_SIZE);
	adb_packet_decode(hdr, &h);
	assert_true(h.len <= sizeof(m->data));
	if (h.len)
		assert_int_equal(cread(t, fd, m->data, h.len, RUN_UNTIL_MS), (int)h.len);
	m->cmd = h.cmd;
	m->arg0 = h.arg0;
	m->arg1 = h.arg1;
	m->len = h.len;
	adb_packet_cmd_name(cmd, want);
	adb_packet_cmd_name(m->cmd, got);
	assert_string_equal(got, want);
}

/* Whether the device closes fd within ms (what it sends is dropped): a
 * short ms for a negative check, RUN_UNTIL_MS to wait for the close. */
static bool closed_within(struct adb_fixture *t, int fd, unsigned ms)
{
	uint64_t end = loop_now_ms() + ms;
	uint8_t buf[4096];

	for (;;) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return true;
		if (r > 0)
			continue;
		if (loop_now_ms() >= end)
			return false;
		loop_dispatch(t->loop, 10);
	}
}

/* Whether the status says "tcp: want" (the peers the worker accepted). */
static bool tcp_status_is(struct adb_fixture *t, const char *want)
{
	return !strcmp(fake_of(t->p)->status_tcp, want);
}

static void cnxn(struct adb_fixture *t, int fd, uint32_t reply)
{
	static const char banner[] = "host::features=shell_v2";
	struct msg m;

	csend(fd, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD, banner, sizeof(banner));
	cexpect(t, fd, &m, reply);
}

/* A peer gets its own connection: CNXN, a stream, its answer, all over
 * the socket and none of it on USB; the status shows the port. */
static void test_tcp_connection(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	static const char svc[] = "reverse:list-forward";
	struct msg m;
	uint32_t id;
	int fd = client(t);
	char want[64];

	snprintf(want, sizeof(want), "port %u, 1 peer", t->port);
	RUN_UNTIL(t->loop, tcp_status_is(t, want));
	assert_string_equal(fake_of(t->p)->status_tcp, want);
	cnxn(t, fd, ADB_CNXN);
	csend(fd, ADB_OPEN, 7, 0, svc, sizeof(svc));
	cexpect(t, fd, &m, ADB_OKAY);
	assert_int_equal(m.arg1, 7);
	id = m.arg0;
	cexpect(t, fd, &m, ADB_WRTE);
	assert_memory_equal(m.data, "0000", 4); /* no forwards */
	csend(fd, ADB_OKAY, 7, id, NULL, 0);
	cexpect(t, fd, &m, ADB_CLSE);
	/* USB saw none of it, and is offline still. */
	assert_int_equal(fake_of(t->p)->n_xfers, 0);
	assert_string_equal(fake_of(t->p)->status_state, "offline");
	close(fd);
	adb_fixture_stop(t);
}

/* Bytes that are no ADB header, or a payload past the limit: cut off. */
static void test_tcp_bad_framing(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	uint8_t hdr[ADB_HDR_SIZE];
	int fd = client(t);

	csend_raw(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
	assert_true(closed_within(t, fd, RUN_UNTIL_MS));
	close(fd);
	fd = client(t);
	adb_packet_encode(hdr, ADB_CNXN, ADB_VERSION, ADB_MAX_PAYLOAD,
			  NULL, 2 * ADB_MAX_PAYLOAD, 0);
	csend_raw(fd, hdr, sizeof(hdr));
	assert_true(closed_within(t, fd, RUN_UNTIL_MS));
	close(fd);
	adb_fixture_stop(t);
}

/* ADB_TCP_MAX_PEERS at once; one more is closed at once. */
static void test_tcp_peer_cap(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	int fds[ADB_TCP_MAX_PEERS + 1];
	char want[64];
	unsigned i;

	for (i = 0; i < ADB_TCP_MAX_PEERS; i++)
		fds[i] = client(t);
	/* All of them taken before one more comes, so that it is the one
	 * turned away. */
	snprintf(want, sizeof(want), "port %u, %u peers", t->port, ADB_TCP_MAX_PEERS);
	RUN_UNTIL(t->loop, tcp_status_is(t, want));
	assert_string_equal(fake_of(t->p)->status_tcp, want);
	fds[ADB_TCP_MAX_PEERS] = client(t);
	assert_true(closed_within(t, fds[ADB_TCP_MAX_PEERS], RUN_UNTIL_MS));
	for (i = 0; i < ADB_TCP_MAX_PEERS; i++)
		assert_false(closed_within(t, fds[i], 100));
	assert_string_equal(fake_of(t->p)->status_tcp, want);
	/* The others work. */
	cnxn(t, fds[0], ADB_CNXN);
	for (i = 0; i <= ADB_TCP_MAX_PEERS; i++)
		close(fds[i]);
	adb_fixture_stop(t);
}

/* Before authorization: at most ADB_TCP_PREAUTH_BYTES (well-framed
 * messages that are all ignored), well within the default 60 s. */
static void test_tcp_preauth_bytes(void **state)
{
	struct adb_fixture *t = start("on", NULL);
	static uint8_t junk[1000];
	unsigned sent = 0;
	int fd = client(t);

	cnxn(t, fd, ADB_AUTH);
	while (sent + ADB_HDR_SIZE + sizeof(junk) < ADB_TCP_PREAUTH_BYTES) {
		csend(fd, ADB_OKAY, 1, 2, junk, sizeof(junk));
		sent += ADB_HDR_SIZE + sizeof(junk);
	}
	assert_false(closed_within(t, fd, 200));
	csend(fd, ADB_OKAY, 1, 2, junk, sizeof(junk));
	csend(fd, ADB_OKAY, 1, 2, junk, sizeof(junk));
	assert_true(closed_within(t, fd, RUN_UNTIL_MS));
	close(fd);
	adb_fixture_stop(t);
}

/* tcp_auth_timeout: a silent peer goes after it, an authorized one
 * stays. */
static void test_tcp_auth_timeout(void **state)
{
	static const char *const opts[] = { "tcp_auth_timeout", "1", NULL };
	/* 3 s for the one that connects: its CNXN must be read before the
	 * timeout, also when a round of the loop comes a second late. */
	static const char *const opts_3[] = { "tcp_auth_timeout", "3", NULL };
	struct adb_fixture *t = start("on", opts);
	uint64_t t0 = loop_now_ms();
	int idle = client(t), authed;

	/* Not before 1 s from its connection, which came after t0: measured,
	 * not checked at a fixed time, which a stall of the test (qemu-user
	 * on a loaded machine) could take past the timeout. */
	assert_true(closed_within(t, idle, RUN_UNTIL_MS));
	assert_true(loop_now_ms() - t0 >= 1000);
	close(idle);
	adb_fixture_stop(t);
	t = start("off", opts_3);
	authed = client(t);
	cnxn(t, authed, ADB_CNXN);
	/* Past the timeout: it counted from the connection, before CNXN. */
	assert_false(closed_within(t, authed, 3500));
	close(authed);
	adb_fixture_stop(t);
}

/* A key offered over TCP is pending like one over USB: `adb keys` lists
 * it, `adb allow` sends that peer a new token, and its signature lets
 * it in. */
static void test_tcp_allow(void **state)
{
	struct adb_fixture *t = start("on", NULL);
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	char *argv_keys[] = { "keys" };
	const char *pub = adb_testkey_pub(key);
	uint8_t sig[512];
	struct msg m;
	size_t n;
	int fd = client(t);

	cnxn(t, fd, ADB_AUTH);
	csend(fd, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	assert_int_equal(cread(t, fd, m.data, 1, 200), -1); /* no answer */
	assert_int_equal(ops->command(t->priv, 1, argv_keys, reply,
				      sizeof(reply)), 0);
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_non_null(strstr(reply, fp));
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "waiting host"));
	cexpect(t, fd, &m, ADB_AUTH);
	assert_int_equal(m.arg0, ADB_AUTH_TOKEN);
	n = adb_testkey_sign(key, m.data, sig, sizeof(sig));
	csend(fd, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, n);
	cexpect(t, fd, &m, ADB_CNXN);
	/* USB, whose host never offered it, is untouched. */
	assert_int_equal(fake_of(t->p)->n_xfers, 0);
	close(fd);
	adb_fixture_stop(t);
}

/* tcpip:PORT and usb: over a connection: refused unless the profile
 * says tcpip = true; then gadgetd is asked, and the host answered as
 * adbd answers it. */
static void open_answer(struct adb_fixture *t, int fd, uint32_t hid, const char *svc,
			const char *answer)
{
	struct msg m;

	csend(fd, ADB_OPEN, hid, 0, svc, strlen(svc) + 1);
	cexpect(t, fd, &m, ADB_OKAY);
	cexpect(t, fd, &m, ADB_WRTE);
	assert_int_equal(m.len, strlen(answer));
	assert_memory_equal(m.data, answer, m.len);
}

static void test_tcpip_service(void **state)
{
	static const char *const opts[] = { "tcpip", "true", NULL };
	struct adb_fixture *t = start("off", NULL);
	int fd = client(t);

	cnxn(t, fd, ADB_CNXN);
	open_answer(t, fd, 1, "tcpip:5555",
		    "refused: this device's profile does not allow adb tcpip/usb\n");
	open_answer(t, fd, 2, "usb:",
		    "refused: this device's profile does not allow adb tcpip/usb\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, -1);
	close(fd);
	adb_fixture_stop(t);

	t = start("off", opts);
	fd = client(t);
	cnxn(t, fd, ADB_CNXN);
	open_answer(t, fd, 3, "tcpip:0", "invalid port\n");
	open_answer(t, fd, 4, "tcpip:65536", "invalid port\n");
	open_answer(t, fd, 5, "tcpip:+55", "invalid port\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, -1);
	open_answer(t, fd, 6, "tcpip:5556", "restarting in TCP mode port: 5556\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, 5556);
	open_answer(t, fd, 7, "usb:", "restarting in USB mode\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, 0);
	close(fd);
	adb_fixture_stop(t);
}

/* adb tcpip to a port below 1024: gadgetd binds as root, so only the
 * profile's tcp may be one (issue 37); the host hears why. */
static void test_tcpip_privileged(void **state)
{
	static const char *const opts[] = { "tcpip", "true", NULL };
	static const char *const opts_555[] = { "tcpip", "true", "tcp", "555",
						NULL };
	struct adb_fixture *t = start("off", opts);
	int fd = client(t);

	cnxn(t, fd, ADB_CNXN);
	open_answer(t, fd, 1, "tcpip:80",
		    "refused: port 80 is below 1024 and not this device's tcp port\n");
	open_answer(t, fd, 2, "tcpip:1023",
		    "refused: port 1023 is below 1024 and not this device's tcp port\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, -1);
	open_answer(t, fd, 3, "tcpip:1024", "restarting in TCP mode port: 1024\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, 1024);
	close(fd);
	adb_fixture_stop(t);

	t = start("off", opts_555);
	fd = client(t);
	cnxn(t, fd, ADB_CNXN);
	open_answer(t, fd, 1, "tcpip:555", "restarting in TCP mode port: 555\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, 555);
	open_answer(t, fd, 2, "tcpip:554",
		    "refused: port 554 is below 1024 and not this device's tcp port\n");
	assert_int_equal(fake_of(t->p)->tcp_asked, 555);
	close(fd);
	adb_fixture_stop(t);
}

/* gadgetd's answer to usb: (no sockets): the listener goes, and each
 * peer once what was queued for it is sent. */
static void test_tcp_stop(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(t->port) };
	int fd = client(t), c;

	cnxn(t, fd, ADB_CNXN);
	ops->listen(t->priv, NULL, 0, 0);
	assert_string_equal(fake_of(t->p)->status_tcp, "off");
	assert_true(closed_within(t, fd, RUN_UNTIL_MS));
	close(fd);
	c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof(a)), -1);
	assert_int_equal(errno, ECONNREFUSED);
	close(c);
	adb_fixture_stop(t);
}

/* A message leaves as soon as it is whole, not at the end of the loop's
 * round: the OKAY of a push's WRTE before the file is written, a pull's
 * WRTE before the next is read. Seen here with the token that `adb
 * allow` sends a waiting peer: it is on the socket, header and payload,
 * before the loop turns again. */
static void test_tcp_sent_when_whole(void **state)
{
	struct adb_fixture *t = start("on", NULL);
	char reply[512], fp[ADB_AUTH_FP_SIZE];
	const char *pub = adb_testkey_pub(key);
	uint8_t buf[ADB_HDR_SIZE + ADB_AUTH_TOKEN_SIZE];
	struct pollfd pfd;
	struct adb_hdr h;
	struct msg m;
	size_t got = 0;
	int fd = client(t);

	cnxn(t, fd, ADB_AUTH);
	csend(fd, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0, pub, strlen(pub) + 1);
	assert_int_equal(cread(t, fd, m.data, 1, 200), -1); /* no answer */
	adb_auth_fingerprint(adb_testkey_blob(key), fp);
	assert_int_equal(adb_fixture_allow(t, fp, reply, sizeof(reply)), 0);
	/* No loop_dispatch from here on. */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (got < sizeof(buf) && poll(&pfd, 1, RUN_UNTIL_MS) == 1) {
		ssize_t n = recv(fd, buf + got, sizeof(buf) - got, MSG_DONTWAIT);

		if (n <= 0)
			break;
		got += n;
	}
	assert_int_equal(got, sizeof(buf));
	adb_packet_decode(buf, &h);
	assert_int_equal(h.cmd, ADB_AUTH);
	assert_int_equal(h.arg0, ADB_AUTH_TOKEN);
	assert_int_equal(h.len, ADB_AUTH_TOKEN_SIZE);
	close(fd);
	adb_fixture_stop(t);
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A pull of 5 MiB and a bit over TCP, with 1 MiB WRTEs that the socket
 * takes in pieces while the host does not read: every byte comes, in
 * order, each WRTE whole and after the OKAY of the one before. */
static void test_tcp_pull(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	const size_t size = 5 * 1024 * 1024 + 4321;
	uint8_t *data = malloc(size), *stream = malloc(size + 1024 * 1024);
	uint8_t *payload = malloc(ADB_MAX_PAYLOAD);
	uint8_t req[256], hdr[ADB_HDR_SIZE];
	size_t have = 0, off = 0, n = 0;
	char path[128];
	struct adb_hdr h;
	struct msg m;
	uint32_t id;
	FILE *f;
	int fd = client(t);

	assert_non_null(data);
	assert_non_null(stream);
	assert_non_null(payload);
	for (size_t i = 0; i < size; i++)
		data[i] = (uint8_t)(i * 13 + i / 4093);
	snprintf(path, sizeof(path), "%s/big", t->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
	cnxn(t, fd, ADB_CNXN);
	csend(fd, ADB_OPEN, 9, 0, "sync:", 6);
	cexpect(t, fd, &m, ADB_OKAY);
	id = m.arg0;
	adb_syncmsg_put32(req, ADB_SYNC_RECV);
	adb_syncmsg_put32(req + 4, strlen(path));
	memcpy(req + 8, path, strlen(path));
	csend(fd, ADB_WRTE, 9, id, req, 8 + strlen(path));
	cexpect(t, fd, &m, ADB_OKAY);
	for (;;) {
		/* Let the worker fill the socket before the host reads. */
		for (int i = 0; i < 5; i++)
			loop_dispatch(t->loop, 5);
		assert_int_equal(cread(t, fd, hdr, sizeof(hdr), RUN_UNTIL_MS),
				 ADB_HDR_SIZE);
		adb_packet_decode(hdr, &h);
		if (h.cmd == ADB_CLSE)
			break;
		assert_int_equal(h.cmd, ADB_WRTE);
		assert_true(h.len > 0 && h.len <= ADB_MAX_PAYLOAD);
		assert_true(have + h.len <= size + 1024 * 1024);
		assert_int_equal(cread(t, fd, payload, h.len, RUN_UNTIL_MS),
				 (int)h.len);
		memcpy(stream + have, payload, h.len);
		have += h.len;
		/* One WRTE in flight: nothing more before our OKAY. */
		assert_int_equal(cread(t, fd, hdr, 1, 50), -1);
		if (have >= 8 && get32(stream + have - 8) == ADB_SYNC_DONE &&
		    have > size)
			break;
		csend(fd, ADB_OKAY, 9, id, NULL, 0);
	}
	while (off + 8 <= have && get32(stream + off) == ADB_SYNC_DATA) {
		uint32_t len = get32(stream + off + 4);

		assert_true(len <= ADB_SYNC_DATA_MAX);
		assert_memory_equal(stream + off + 8, data + n, len);
		n += len;
		off += 8 + len;
	}
	assert_int_equal(n, size);
	assert_int_equal(get32(stream + off), ADB_SYNC_DONE);
	assert_int_equal(have, off + 8);
	unlink(path);
	free(data);
	free(stream);
	free(payload);
	close(fd);
	adb_fixture_stop(t);
}

/* The sync stream of a push of data[0..size) to path, into *len bytes. */
static uint8_t *push_stream(const char *path, const uint8_t *data,
			    size_t size, size_t *len)
{
	char spec[160];
	size_t cap = size + size / ADB_SYNC_DATA_MAX * 8 + 512, n = 0;
	uint8_t *b = malloc(cap);

	assert_non_null(b);
	snprintf(spec, sizeof(spec), "%s,33188", path);
	adb_syncmsg_put32(b, ADB_SYNC_SEND);
	adb_syncmsg_put32(b + 4, strlen(spec));
	memcpy(b + 8, spec, strlen(spec));
	n = 8 + strlen(spec);
	for (size_t off = 0; off < size; off += ADB_SYNC_DATA_MAX) {
		size_t k = size - off < ADB_SYNC_DATA_MAX ? size - off
							   : ADB_SYNC_DATA_MAX;

		adb_syncmsg_put32(b + n, ADB_SYNC_DATA);
		adb_syncmsg_put32(b + n + 4, k);
		memcpy(b + n + 8, data + off, k);
		n += 8 + k;
	}
	adb_syncmsg_put32(b + n, ADB_SYNC_DONE);
	adb_syncmsg_put32(b + n + 4, 1700000000);
	*len = n + 8;
	return b;
}

/*
 * A push of 3 MiB and a bit over TCP in 1 MiB WRTEs, the way the
 * transport receives a payload in place: each payload in pieces with
 * rounds of the loop between them, the OKAY before the payload ends,
 * and the next header sent with the last bytes of the payload before
 * it. The file holds every byte, in order.
 */
static void test_tcp_push(void **state)
{
	struct adb_fixture *t = start("off", NULL);
	const size_t size = 3 * 1024 * 1024 + 4321;
	uint8_t *data = malloc(size), *stream, *got = malloc(size + 1);
	uint8_t hdr[ADB_HDR_SIZE], *join = malloc(ADB_HDR_SIZE + 200);
	static const size_t pieces[] = { 1, 999, 70000, 300000 };
	size_t len, off = 0, tail = 100;
	char path[128];
	struct msg m;
	uint32_t id;
	FILE *f;
	int fd = client(t);

	assert_non_null(data);
	assert_non_null(got);
	assert_non_null(join);
	for (size_t i = 0; i < size; i++)
		data[i] = (uint8_t)(i * 7 + i / 4091);
	snprintf(path, sizeof(path), "%s/pushed", t->dir);
	stream = push_stream(path, data, size, &len);
	cnxn(t, fd, ADB_CNXN);
	csend(fd, ADB_OPEN, 9, 0, "sync:", 6);
	cexpect(t, fd, &m, ADB_OKAY);
	id = m.arg0;
	adb_packet_encode(hdr, ADB_WRTE, 9, id, NULL, 0, 0);
	while (off < len) {
		size_t plen = len - off < ADB_MAX_PAYLOAD ? len - off
							  : ADB_MAX_PAYLOAD;
		size_t sent = 0;

		adb_packet_encode(hdr, ADB_WRTE, 9, id, stream + off, plen, 1);
		if (off == 0) {
			csend_raw(fd, hdr, sizeof(hdr));
		} else {
			/* The last bytes of the payload before, this header
			 * and the first bytes of its payload, in one send. */
			memcpy(join, stream + off - tail, tail);
			memcpy(join + tail, hdr, sizeof(hdr));
			memcpy(join + tail + sizeof(hdr), stream + off, 10);
			csend_raw(fd, join, tail + sizeof(hdr) + 10);
			sent = 10;
		}
		for (size_t i = 0; sent < plen - tail; i++) {
			size_t k = pieces[i % 4];

			if (k > plen - tail - sent)
				k = plen - tail - sent;
			csend_raw(fd, stream + off + sent, k);
			sent += k;
			loop_dispatch(t->loop, 5);
		}
		/* Acknowledged at its header, before its last bytes. */
		cexpect(t, fd, &m, ADB_OKAY);
		assert_int_equal(m.arg1, 9);
		off += plen;
	}
	csend_raw(fd, stream + len - tail, tail);
	cexpect(t, fd, &m, ADB_WRTE);
	assert_int_equal(m.len, 8);
	assert_int_equal(get32(m.data), ADB_SYNC_OKAY);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(got, 1, size + 1, f), size);
	fclose(f);
	assert_memory_equal(got, data, size);
	unlink(path);
	free(stream);
	free(data);
	free(got);
	free(join);
	close(fd);
	adb_fixture_stop(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_connection),
		cmocka_unit_test(test_tcp_bad_framing),
		cmocka_unit_test(test_tcp_peer_cap),
		cmocka_unit_test(test_tcp_preauth_bytes),
		cmocka_unit_test(test_tcp_auth_timeout),
		cmocka_unit_test(test_tcp_allow),
		cmocka_unit_test(test_tcpip_service),
		cmocka_unit_test(test_tcpip_privileged),
		cmocka_unit_test(test_tcp_stop),
		cmocka_unit_test(test_tcp_sent_when_whole),
		cmocka_unit_test(test_tcp_pull),
		cmocka_unit_test(test_tcp_push),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
