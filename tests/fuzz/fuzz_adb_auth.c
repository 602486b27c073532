/*
 * libFuzzer target: the adb plugin before authorization, driven as the USB
 * host through its ops table (auth on), so it follows whatever adb.c does
 * with CNXN, AUTH and RSAPUBLICKEY without knowing how.
 *
 * The input is a list of operations; byte 0 of each picks one:
 *   0  raw: u16 length, then that many bytes handed to rx() as they are
 *   1  message: u8 command, u32 arg0, u32 arg1, u16 length, payload; the
 *      harness frames it (magic, checksum) as a host would
 *   2  sign the device's newest token with the key in adb_keys and send
 *      the AUTH SIGNATURE (a legitimate way online)
 *   3  replay a signature sent before
 *   4  sign the newest token with the other key (not in adb_keys until
 *      op 7 allows it)
 *   5  send a legitimate signature cut short by u8 bytes
 *   6  offer a public key: u8 picks the key in adb_keys or the other one,
 *      and whether the payload ends with a NUL
 *   7  `gadgetctl adb keys`, or `allow` of the other key's fingerprint
 *      (it trusts the key; gadgetd appends it to adb_keys, as the
 *      runtime's plugin_keys_append() does here)
 *   8  USB reset (disable, enable)
 *
 * The property: the device sends CNXN only right after op 2, or op 4 over
 * a token sent after the other key was allowed, or at the allow itself
 * when this connection's host had signed one of its tokens with the other
 * key before (AOSP's flow, issue 37: the host signs with its key, offers
 * the public half, and waits). Anything else that brings it online (an
 * allow of a key the host never signed with, a known public key, a
 * replayed, foreign or truncated signature, a stale token or one from
 * before the allow, raw bytes) aborts with what happened. Once online the input ends: what
 * comes after auth is other targets' business, and services here would be
 * real (files, shells).
 *
 * Tokens come from RAND_bytes(), which this file replaces with a counter
 * restarted for each input: an input then replays the same tokens every
 * time, and the signatures over them are computed once (a 2048-bit RSA
 * signature costs more than everything else a run does).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adb/adb_auth.h"
#include "adb/adb_packet.h"
#include "adb_testkey.h"
#include "fake_spawn.h"
#include "fuzz_runtime.h"
#include "fuzz_rd.h"
#include "log.h"
#include "loop.h"

extern const struct plugin_ops gadgetd_plugin;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int RAND_bytes(unsigned char *buf, int num);

#define SIG_MAX 512
#define SIG_CACHE 64

static uint64_t rand_state;

/* adb_auth's tokens: distinct within a run, the same in every run. */
int RAND_bytes(unsigned char *buf, int num)
{
	for (int i = 0; i < num; i++) {
		uint64_t z = (rand_state += 0x9e3779b97f4a7c15u);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		buf[i] = (uint8_t)(z ^ (z >> 31));
	}
	return 1;
}

static struct sig_cache {
	const struct adb_testkey *k;
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	uint8_t sig[SIG_MAX];
	size_t len;
} sig_cache[SIG_CACHE];
static unsigned sig_next;

static size_t sign(const struct adb_testkey *k, const uint8_t *token,
		   uint8_t *sig)
{
	struct sig_cache *c;

	for (unsigned i = 0; i < SIG_CACHE; i++) {
		c = &sig_cache[i];
		if (c->k == k && !memcmp(c->token, token, ADB_AUTH_TOKEN_SIZE)) {
			memcpy(sig, c->sig, c->len);
			return c->len;
		}
	}
	c = &sig_cache[sig_next++ % SIG_CACHE];
	c->k = k;
	memcpy(c->token, token, ADB_AUTH_TOKEN_SIZE);
	c->len = adb_testkey_sign(k, token, c->sig, sizeof(c->sig));
	memcpy(sig, c->sig, c->len);
	return c->len;
}

static struct {
	struct loop *loop;
	struct adb_testkey *known, *other;
	char keys[160];
	char scratch[900];
	char other_fp[ADB_AUTH_FP_SIZE];
	/* What the device sent, parsed from its IN transfers. */
	uint8_t hdr[ADB_HDR_SIZE];
	bool want_payload;
	uint8_t token[ADB_AUTH_TOKEN_SIZE];
	bool have_token, token_signed;
	bool token_stale; /* sent before a USB reset */
	bool token_pre_allow; /* sent before the other key was allowed */
	/* Set while an operation that may legitimately bring it online runs. */
	bool may_connect;
	bool online;
	uint8_t last_sig[SIG_MAX];
	size_t last_sig_len;
	bool other_allowed;
	/* This connection's host signed a token of its own with the other
	 * key (op 4 over a fresh token) before that key was allowed. */
	bool other_signed;
} fz;

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void bypass(const char *what)
{
	fprintf(stderr, "fuzz_adb_auth: the device went online after %s\n",
		what);
	abort();
}

static const char *fz_op_name = "raw bytes";

/* Every IN transfer: a 24-byte header, then its payload if any. */
static void on_tx(unsigned ep, const uint8_t *d, size_t len)
{
	uint32_t cmd;

	if (fz.want_payload) {
		fz.want_payload = false;
		if (len != le32(fz.hdr + 12))
			abort(); /* a payload that does not match its header */
		if (le32(fz.hdr) == ADB_AUTH && le32(fz.hdr + 4) == 1 &&
		    len == ADB_AUTH_TOKEN_SIZE) {
			memcpy(fz.token, d, len);
			fz.have_token = true;
			fz.token_signed = false;
			fz.token_stale = false;
			fz.token_pre_allow = false;
		}
		return;
	}
	if (len != ADB_HDR_SIZE)
		abort(); /* headers go in a transfer of their own */
	memcpy(fz.hdr, d, len);
	cmd = le32(d);
	if (le32(d + 20) != (cmd ^ 0xffffffffu))
		abort();
	fz.want_payload = le32(d + 12) != 0;
	if (cmd == ADB_CNXN) {
		if (!fz.may_connect)
			bypass(fz_op_name);
		fz.online = true;
	} else if (cmd != ADB_AUTH) {
		/* Before auth the device says CNXN or AUTH, nothing else. */
		fprintf(stderr, "fuzz_adb_auth: %#x sent before auth\n", cmd);
		abort();
	}
}

static void setup_once(void)
{
	char line[900];
	int fd;

	if (fz.loop)
		return;
	log_init("fuzz_adb_auth", true, LOG_LEVEL_ERROR);
	fz.loop = loop_new();
	fz.known = adb_testkey_new();
	fz.other = adb_testkey_new();
	if (!fz.loop || !fz.known || !fz.other)
		abort();
	adb_auth_fingerprint(adb_testkey_blob(fz.other), fz.other_fp);
	snprintf(fz.keys, sizeof(fz.keys), "%s/adb_keys",
		 fuzz_rt_scratch("fuzz_adb_auth"));
	snprintf(line, sizeof(line), "%s\n", adb_testkey_pub(fz.known));
	fd = open(fz.keys, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		abort();
	close(fd);
}

/* An allow appends to adb_keys: start each input from the one key. */
static void reset_keys(void)
{
	char line[900];
	int fd;

	snprintf(line, sizeof(line), "%s\n", adb_testkey_pub(fz.known));
	fd = open(fz.keys, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		abort();
	close(fd);
}

static void host_msg(void *priv, uint32_t cmd, uint32_t a0, uint32_t a1,
		     const uint8_t *payload, size_t len)
{
	uint8_t *buf = malloc(ADB_HDR_SIZE + len);

	if (!buf)
		abort();
	adb_packet_encode(buf, cmd, a0, a1, payload, len, 1);
	if (len)
		memcpy(buf + ADB_HDR_SIZE, payload, len);
	gadgetd_plugin.rx(priv, 0, buf, ADB_HDR_SIZE);
	if (len)
		gadgetd_plugin.rx(priv, 0, buf + ADB_HDR_SIZE, len);
	free(buf);
}

static const uint32_t cmds[] = {
	ADB_CNXN, ADB_AUTH, ADB_OPEN, ADB_OKAY, ADB_CLSE, ADB_WRTE,
};

static void op_message(void *priv, struct rd *r)
{
	uint8_t c = rd_n(r, 1);
	uint32_t cmd = c < 6 ? cmds[c] : rd_n(r, 4);
	uint32_t a0 = rd_n(r, 4), a1 = rd_n(r, 4);
	size_t len = rd_n(r, 2);
	const uint8_t *p = rd_take(r, &len);

	fz_op_name = "a host message";
	host_msg(priv, cmd, a0, a1, p, len);
}

static void send_sig(void *priv, const struct adb_testkey *k, size_t cut,
		     const char *what, bool legit)
{
	uint8_t sig[SIG_MAX];
	size_t len;

	if (!fz.have_token)
		return;
	len = sign(k, fz.token, sig);
	if (cut >= len)
		cut = len - 1;
	len -= cut;
	/* A token may be signed once: a second go is a replay. */
	fz.may_connect = legit && cut == 0 && !fz.token_signed &&
			 !fz.token_stale;
	fz_op_name = fz.token_stale && legit ? "a signature over a token "
					       "from before a USB reset"
		     : fz.token_signed && legit ? "a second signature over a "
						  "used token"
						: what;
	/* Trust came after the token: it proves nothing about the key. */
	if (k == fz.other && fz.token_pre_allow) {
		fz.may_connect = false;
		if (legit)
			fz_op_name = "a signature over a token sent before "
				     "the key was allowed";
	}
	if (k == fz.other && cut == 0 && !fz.token_signed && !fz.token_stale)
		fz.other_signed = true;
	if (cut == 0)
		fz.token_signed = true;
	memcpy(fz.last_sig, sig, len);
	fz.last_sig_len = len;
	host_msg(priv, ADB_AUTH, ADB_AUTH_SIGNATURE, 0, sig, len);
	fz.may_connect = false;
}

static void op_offer(void *priv, struct rd *r)
{
	uint8_t how = rd_n(r, 1);
	const struct adb_testkey *k = how & 1 ? fz.other : fz.known;
	const char *pub = adb_testkey_pub(k);

	fz_op_name = how & 1 ? "an offered unknown public key"
			     : "an offered public key (known, but unproven)";
	host_msg(priv, ADB_AUTH, ADB_AUTH_RSAPUBLICKEY, 0,
		 (const uint8_t *)pub, strlen(pub) + (how & 2 ? 1 : 0));
}

/*
 * An allowed key must land in our adb_keys. If adb.c stopped reading the
 * "keys" option, allow would write the machine's own file: stop at once.
 */
static void check_keys_file(void)
{
	char buf[4096];
	FILE *f = fopen(fz.keys, "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	const char *pub = adb_testkey_pub(fz.other);

	if (f)
		fclose(f);
	buf[n] = '\0';
	if (!strstr(buf, strtok(strcpy(fz.scratch, pub), " "))) {
		fprintf(stderr, "fuzz_adb_auth: allow did not write %s: "
			"does adb.c still read the keys option?\n", fz.keys);
		abort();
	}
}

static void op_command(void *priv, struct rd *r)
{
	char reply[4096], verb[8], fp[ADB_AUTH_FP_SIZE];
	char *argv[2] = { verb, fp };
	uint8_t how = rd_n(r, 1);
	bool was_pre_allow;
	int rc;

	if (!gadgetd_plugin.command)
		return;
	if (how & 1) {
		snprintf(verb, sizeof(verb), "keys");
		gadgetd_plugin.command(priv, 1, argv, reply, sizeof(reply));
		return;
	}
	snprintf(verb, sizeof(verb), "allow");
	snprintf(fp, sizeof(fp), "%s", fz.other_fp);
	/* An admin's decision trusts the key, but the host that offered it
	 * must have signed one of this connection's tokens with it, or sign
	 * a token sent from now on, to come online. */
	fz_op_name = "adb allow of a key the host had not signed with";
	was_pre_allow = fz.token_pre_allow;
	/* Set first: the token the allow sends (on_tx) clears it. */
	fz.token_pre_allow = true;
	rc = gadgetd_plugin.command(priv, 2, argv, reply, sizeof(reply));
	if (rc == PLUGIN_COMMAND_LATER) {
		/* gadgetd appends the line to adb_keys (the file is root's),
		 * then the plugin trusts the key and answers. */
		fz.may_connect = fz.other_signed;
		if (!fuzz_rt_keys_answer(0))
			abort(); /* answered later, yet nothing asked of gadgetd */
		fz.may_connect = false;
		if (!fuzz_rt_command_reply(&rc))
			abort(); /* a command that never answers */
	}
	if (rc == 0) {
		fz.other_allowed = true;
		check_keys_file();
	} else {
		fz.token_pre_allow = was_pre_allow;
	}
}

static void run_op(void *priv, struct rd *r)
{
	size_t len;
	const uint8_t *p;

	switch (rd_n(r, 1) % 9) {
	case 0:
		len = rd_n(r, 2);
		p = rd_take(r, &len);
		fz_op_name = "raw bytes";
		if (len)
			gadgetd_plugin.rx(priv, 0, p, len);
		break;
	case 1:
		op_message(priv, r);
		break;
	case 2:
		send_sig(priv, fz.known, 0, "a valid signature", true);
		break;
	case 3:
		fz_op_name = "a replayed signature";
		if (fz.last_sig_len)
			host_msg(priv, ADB_AUTH, ADB_AUTH_SIGNATURE, 0,
				 fz.last_sig, fz.last_sig_len);
		break;
	case 4:
		/* Legitimate only once an admin allowed the other key. */
		send_sig(priv, fz.other, 0,
			 fz.other_allowed ? "a signature by the allowed key"
					  : "a signature by a key not allowed",
			 fz.other_allowed);
		break;
	case 5:
		send_sig(priv, fz.known, 1 + rd_n(r, 1), "a truncated signature",
			 false);
		break;
	case 6:
		op_offer(priv, r);
		break;
	case 7:
		op_command(priv, r);
		break;
	case 8:
		gadgetd_plugin.disable(priv);
		gadgetd_plugin.enable(priv);
		fz.token_stale = true;
		fz.other_signed = false; /* a new connection */
		break;
	}
}

static void run_input(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	struct plugin_desc desc;
	struct plugin *pl;
	void *priv;

	reset_keys();
	rand_state = 0;
	fz.want_payload = fz.have_token = fz.token_signed = false;
	fz.token_stale = fz.token_pre_allow = false;
	fz.online = fz.may_connect = fz.other_allowed = fz.other_signed = false;
	fz.last_sig_len = 0;
	pl = fuzz_rt_reset("adb", fz.loop);
	fuzz_rt_set_option("auth", "on");
	fuzz_rt_set_option("keys", fz.keys);
	/* Never reached before auth; harmless should that ever change. */
	fuzz_rt_set_option("shell", "/bin/false");
	fake_spawn_config("/bin/false", NULL);
	fuzz_rt_set_tx_check(on_tx);
	if (gadgetd_plugin.init(pl, &desc, &priv) != 0)
		abort();
	fuzz_rt_set_enabled(true, 512);
	gadgetd_plugin.enable(priv);
	while (r.n && !fz.online) {
		run_op(priv, &r);
		fuzz_rt_drain();
	}
	gadgetd_plugin.disable(priv);
	gadgetd_plugin.finish(priv);
}

/*
 * Before the first input: a host that signs with the key in our adb_keys
 * must get online. If not, adb.c reads some other file (the "keys" option
 * renamed?), and an allow would write the machine's own adb_keys.
 */
static void probe_keys_option(void)
{
	static const uint8_t cnxn_then_sign[] = {
		1, 0, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00,
		7, 0, 'h', 'o', 's', 't', ':', ':', 0, 2,
	};

	run_input(cnxn_then_sign, sizeof(cnxn_then_sign));
	if (!fz.online) {
		fprintf(stderr, "fuzz_adb_auth: a valid signature did not get "
			"online: does adb.c still read the keys option?\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fz.loop) {
		setup_once();
		probe_keys_option();
	}
	run_input(data, size);
	return 0;
}
