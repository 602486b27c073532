/*
 * uplink: the shares' nftables table (libnftables) and the IPv4
 * forwarding they need, set and taken away together.
 */
#include "uplink.h"
#include "log.h"
#include "nftdl.h"
#include "rtnl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <net/if.h>
#include <nftables/libnftables.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One ruleset: a few lines per share and per interface. */
#define UPLINK_TEXT_MAX 16384

struct uplink {
	char record[4200];     /* run_dir/uplink-forwarding */
	bool table;            /* gadgetd's table is there */
	/* The interfaces whose forwarding gadgetd turned on. */
	unsigned n_fwd;
	char fwd[UPLINK_IFACES_MAX][NETCFG_IFNAME_MAX];
	/* The shares as last asked for, and what became of them. */
	unsigned n;
	struct uplink_share want[PROFILE_MAX_FUNCTIONS];
	struct uplink_info info[PROFILE_MAX_FUNCTIONS];
};

bool uplink_ifname_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n >= NETCFG_IFNAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || strchr("_.-", name[i])))
			return false;
	return true;
}

/* Appends to buf; false once it is full. */
static bool uplink_put(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool uplink_put(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*len >= size)
		return false;
	va_start(ap, fmt);
	r = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= size - *len) {
		*len = size;
		return false;
	}
	*len += (size_t)r;
	return true;
}

/* "{ "eth0", "wlan0" }" or "\"eth0\"": where share s goes out. */
static void uplink_out_set(const struct uplink_share *s, const char *const *any,
			   unsigned n_any, char *out, size_t size)
{
	size_t len = 0;
	unsigned i;

	if (strcmp(s->uplink, "any")) {
		snprintf(out, size, "\"%s\"", s->uplink);
		return;
	}
	uplink_put(out, size, &len, "{ ");
	for (i = 0; i < n_any; i++)
		uplink_put(out, size, &len, "%s\"%s\"", i ? ", " : "", any[i]);
	uplink_put(out, size, &len, " }");
}

static int uplink_check(const struct uplink_share *s, unsigned n, const char *const *any,
			unsigned n_any, const char *const *opened, unsigned n_opened,
			char *why, size_t wsize)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (!uplink_ifname_ok(s[i].link) || !uplink_ifname_ok(s[i].uplink)) {
			snprintf(why, wsize, "function %s: \"%s\" or \"%s\" is not an interface name",
				 s[i].function, s[i].link, s[i].uplink);
			return -EINVAL;
		}
		if (s[i].prefix < 8 || s[i].prefix > 30) {
			snprintf(why, wsize, "function %s: prefix /%u is not in 8..30",
				 s[i].function, s[i].prefix);
			return -EINVAL;
		}
		if (!strcmp(s[i].uplink, "any") && !n_any) {
			snprintf(why, wsize, "function %s: uplink \"any\": the board has no other interface",
				 s[i].function);
			return -EINVAL;
		}
	}
	for (i = 0; i < n_any + n_opened; i++) {
		const char *name = i < n_any ? any[i] : opened[i - n_any];

		if (!uplink_ifname_ok(name)) {
			snprintf(why, wsize, "\"%s\" is not an interface name", name);
			return -EINVAL;
		}
	}
	return 0;
}

int uplink_ruleset(const struct uplink_share *s, unsigned n, const char *const *any_ifaces,
		   unsigned n_any, const char *const *opened, unsigned n_opened, char *buf,
		   size_t size, char *why, size_t wsize)
{
	char net[INET_ADDRSTRLEN], out[UPLINK_IFACES_MAX * (NETCFG_IFNAME_MAX + 4) + 8];
	struct in_addr sub;
	size_t len = 0;
	unsigned i;
	bool ok;
	int r;

	if (size)
		buf[0] = '\0';
	if (why && wsize)
		why[0] = '\0';
	r = uplink_check(s, n, any_ifaces, n_any, opened, n_opened, why, wsize);
	if (r < 0)
		return r;
	/* Declaring the table first makes its deletion safe when it is not
	 * there: the whole text is one transaction, so the old table stays
	 * until the new one is complete. */
	ok = uplink_put(buf, size, &len, "table inet " UPLINK_TABLE "\ndelete table inet "
			UPLINK_TABLE "\n");
	if (n) {
		ok = ok && uplink_put(buf, size, &len, "table inet " UPLINK_TABLE " {\n"
				      "\tchain forward {\n"
				      "\t\ttype filter hook forward priority filter; policy accept;\n");
		for (i = 0; ok && i < n; i++) {
			sub.s_addr = s[i].addr.s_addr & htonl(0xffffffffu << (32 - s[i].prefix));
			inet_ntop(AF_INET, &sub, net, sizeof(net));
			uplink_out_set(&s[i], any_ifaces, n_any, out, sizeof(out));
			ok = uplink_put(buf, size, &len,
					"\t\tiifname \"%s\" ip saddr %s/%u oifname %s accept\n"
					"\t\tiifname %s oifname \"%s\" ct state established,related accept\n"
					"\t\tiifname \"%s\" drop\n\t\toifname \"%s\" drop\n",
					s[i].link, net, s[i].prefix, out, out, s[i].link, s[i].link,
					s[i].link);
		}
		for (i = 0; ok && i < n_opened; i++)
			ok = uplink_put(buf, size, &len, "\t\tiifname \"%s\" drop\n", opened[i]);
		ok = ok && uplink_put(buf, size, &len, "\t}\n\tchain postrouting {\n"
				      "\t\ttype nat hook postrouting priority srcnat; policy accept;\n");
		for (i = 0; ok && i < n; i++) {
			sub.s_addr = s[i].addr.s_addr & htonl(0xffffffffu << (32 - s[i].prefix));
			inet_ntop(AF_INET, &sub, net, sizeof(net));
			uplink_out_set(&s[i], any_ifaces, n_any, out, sizeof(out));
			ok = uplink_put(buf, size, &len, "\t\tip saddr %s/%u oifname %s masquerade\n",
					net, s[i].prefix, out);
		}
		ok = ok && uplink_put(buf, size, &len, "\t}\n}\n");
	}
	if (!ok) {
		if (size)
			buf[0] = '\0';
		snprintf(why, wsize, "the ruleset is longer than %zu bytes", size);
		return -ENOSPC;
	}
	return 0;
}

/* Runs text in one libnftables context: 0, or -EIO with nft's first
 * error line in why (-ENOSYS: no library; -errno: no netlink socket for
 * it, where libnftables would end gadgetd). */
static int uplink_nft(const char *text, char *why, size_t wsize)
{
	const struct nftdl *lib = nftdl_get(why, wsize);
	struct nft_ctx *nft;
	const char *err;
	int r;

	if (!lib)
		return -ENOSYS;
	r = nftdl_netlink(why, wsize);
	if (r < 0)
		return r;
	nft = lib->ctx_new(NFT_CTX_DEFAULT);
	if (!nft) {
		snprintf(why, wsize, "libnftables: cannot make a context");
		return -ENOMEM;
	}
	lib->buffer_output(nft);
	lib->buffer_error(nft);
	r = lib->run_cmd_from_buffer(nft, text);
	if (r) {
		err = lib->get_error_buffer(nft);
		snprintf(why, wsize, "nftables: %.*s", (int)strcspn(err ? err : "", "\n"),
			 err && *err ? err : "refused the table");
	}
	lib->ctx_free(nft);
	return r ? -EIO : 0;
}

static int uplink_table_remove(struct uplink *u)
{
	char why[200];
	int r = uplink_nft("table inet " UPLINK_TABLE "\ndelete table inet " UPLINK_TABLE "\n",
			   why, sizeof(why));

	if (r < 0)
		log_warnx("cannot remove nftables table inet %s: %s", UPLINK_TABLE, why);
	else
		u->table = false;
	return r;
}

/* The record of what gadgetd turned on, written before it is and before
 * its table is made: while it exists, a table may be there too, and only
 * then does the next gadgetd look for one (nftables' modules stay
 * unloaded on a board that never shares). */
static void uplink_record(const struct uplink *u, const char (*extra)[NETCFG_IFNAME_MAX],
			  unsigned n_extra)
{
	char tmp[4300];
	unsigned i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", u->record);
	f = fopen(tmp, "we");
	if (!f) {
		log_warn("cannot write %s", tmp);
		return;
	}
	for (i = 0; i < u->n_fwd; i++)
		fprintf(f, "%s\n", u->fwd[i]);
	for (i = 0; i < n_extra; i++)
		fprintf(f, "%s\n", extra[i]);
	if (fclose(f) != 0 || rename(tmp, u->record) < 0)
		log_warn("cannot write %s", u->record);
}

static void uplink_fwd_off(const char *ifname)
{
	int r = rtnl_link_forwarding(ifname, false);

	if (r < 0 && r != -ENODEV)
		log_warnx("%s: cannot turn IPv4 forwarding off again: %s", ifname, strerror(-r));
}

/* IPv4 forwarding of ifname now: 1, 0, or -1 when it cannot be read. */
static int uplink_fwd_get(const char *ifname)
{
	char path[128];
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/forwarding", ifname);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void uplink_clean(struct uplink *u)
{
	char name[64], why[200];
	FILE *f = fopen(u->record, "re");

	if (!f)
		return; /* no table, no forwarding: the last gadgetd left none */
	while (f && fscanf(f, "%63s", name) == 1)
		if (uplink_ifname_ok(name)) {
			log_info("%s: IPv4 forwarding off again, left on by an earlier gadgetd",
				 name);
			uplink_fwd_off(name);
		}
	if (f)
		fclose(f);
	unlink(u->record);
	/* Deleting a table that is not there fails: that is the usual case. */
	if (!uplink_nft("delete table inet " UPLINK_TABLE "\n", why, sizeof(why)))
		log_info("removed nftables table inet %s, left by an earlier gadgetd",
			 UPLINK_TABLE);
}

struct uplink *uplink_new(const char *run_dir)
{
	struct uplink *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	snprintf(u->record, sizeof(u->record), "%s/uplink-forwarding", run_dir);
	uplink_clean(u);
	return u;
}

/* Forwarding gadgetd turned on, off again where keep does not name it. */
static void uplink_fwd_release(struct uplink *u, const char (*keep)[NETCFG_IFNAME_MAX],
			       unsigned n_keep)
{
	unsigned i, j;

	for (i = 0; i < u->n_fwd;) {
		for (j = 0; j < n_keep && strcmp(keep[j], u->fwd[i]); j++)
			;
		if (j < n_keep) {
			i++;
			continue;
		}
		uplink_fwd_off(u->fwd[i]);
		memcpy(u->fwd[i], u->fwd[--u->n_fwd], sizeof(u->fwd[i]));
	}
	if (!u->n_fwd && !u->table)
		unlink(u->record);
	else
		uplink_record(u, NULL, 0);
}

void uplink_free(struct uplink *u)
{
	if (!u)
		return;
	if (u->table)
		uplink_table_remove(u);
	uplink_fwd_release(u, NULL, 0);
	free(u);
}

/* A USB gadget's interface (its sysfs device is under a gadget). */
static bool uplink_gadget_iface(const char *name)
{
	char link[128], path[4096];

	snprintf(link, sizeof(link), "/sys/class/net/%s/device", name);
	return realpath(link, path) && strstr(path, "/gadget");
}

/* "any": the board's interfaces now, but lo and the gadget's. */
static unsigned uplink_any(char (*out)[NETCFG_IFNAME_MAX], unsigned max)
{
	struct if_nameindex *ni = if_nameindex(), *p;
	unsigned n = 0;

	for (p = ni; p && p->if_index && n < max; p++)
		if (strcmp(p->if_name, "lo") && uplink_ifname_ok(p->if_name) &&
		    !uplink_gadget_iface(p->if_name))
			snprintf(out[n++], NETCFG_IFNAME_MAX, "%s", p->if_name);
	if (ni)
		if_freenameindex(ni);
	return n;
}

/* name added to set (of n, at most UPLINK_IFACES_MAX) unless there. */
static void uplink_add(char (*set)[NETCFG_IFNAME_MAX], unsigned *n, const char *name)
{
	unsigned i;

	for (i = 0; i < *n && strcmp(set[i], name); i++)
		;
	if (i == *n && *n < UPLINK_IFACES_MAX)
		snprintf(set[(*n)++], NETCFG_IFNAME_MAX, "%s", name);
}

static bool uplink_has(const char (*set)[NETCFG_IFNAME_MAX], unsigned n, const char *name)
{
	unsigned i;

	for (i = 0; i < n && strcmp(set[i], name); i++)
		;
	return i < n;
}

struct uplink_plan {
	unsigned n_any, n_need, n_on, n_opened;
	char any[UPLINK_IFACES_MAX][NETCFG_IFNAME_MAX];
	char need[UPLINK_IFACES_MAX][NETCFG_IFNAME_MAX]; /* links and uplinks */
	char on[UPLINK_IFACES_MAX][NETCFG_IFNAME_MAX];   /* to turn on now */
	const char *opened[UPLINK_IFACES_MAX];           /* uplinks gadgetd opens */
	const char *anyp[UPLINK_IFACES_MAX];
};

/* Which interfaces the shares s need forwarding on, and which of them
 * gadgetd turns on (or did). */
static void uplink_plan(const struct uplink *u, const struct uplink_share *s, unsigned n,
			struct uplink_plan *p)
{
	unsigned i, j;

	memset(p, 0, sizeof(*p));
	p->n_any = uplink_any(p->any, UPLINK_IFACES_MAX);
	for (i = 0; i < p->n_any; i++)
		p->anyp[i] = p->any[i];
	for (i = 0; i < n; i++) {
		uplink_add(p->need, &p->n_need, s[i].link);
		if (strcmp(s[i].uplink, "any"))
			uplink_add(p->need, &p->n_need, s[i].uplink);
		else
			for (j = 0; j < p->n_any; j++)
				uplink_add(p->need, &p->n_need, p->any[j]);
	}
	for (i = 0; i < p->n_need; i++) {
		bool ours = uplink_has(u->fwd, u->n_fwd, p->need[i]);
		bool is_link = false;

		for (j = 0; j < n; j++)
			is_link |= !strcmp(s[j].link, p->need[i]);
		if (!ours && uplink_fwd_get(p->need[i]) == 0)
			uplink_add(p->on, &p->n_on, p->need[i]);
		if (!is_link && (ours || uplink_has(p->on, p->n_on, p->need[i])))
			p->opened[p->n_opened++] = p->need[i];
	}
}

/* Table and forwarding for the shares s (n > 0, each checked): 0, or
 * -errno with why, and nothing of it left. */
static int uplink_apply(struct uplink *u, const struct uplink_share *s, unsigned n,
			char *why, size_t wsize)
{
	static char text[UPLINK_TEXT_MAX];
	struct uplink_plan *p = calloc(1, sizeof(*p));
	unsigned i;
	int r;

	if (!p)
		return -ENOMEM;
	uplink_plan(u, s, n, p);
	r = uplink_ruleset(s, n, p->anyp, p->n_any, p->opened, p->n_opened, text,
			   sizeof(text), why, wsize);
	if (!r) {
		uplink_record(u, (const char (*)[NETCFG_IFNAME_MAX])p->on, p->n_on);
		r = uplink_nft(text, why, wsize);
	}
	if (!r)
		u->table = true;
	for (i = 0; !r && i < p->n_on; i++) {
		r = rtnl_link_forwarding(p->on[i], true);
		if (r < 0)
			snprintf(why, wsize, "%s: cannot turn IPv4 forwarding on: %s", p->on[i],
				 strerror(-r));
		else
			memcpy(u->fwd[u->n_fwd++], p->on[i], NETCFG_IFNAME_MAX);
	}
	if (r < 0) {
		/* u->fwd has what was turned on, this time and before. */
		if (u->table)
			uplink_table_remove(u);
		uplink_fwd_release(u, NULL, 0);
	} else {
		uplink_fwd_release(u, (const char (*)[NETCFG_IFNAME_MAX])p->need, p->n_need);
	}
	free(p);
	return r;
}

static bool uplink_same(const struct uplink_share *a, const struct uplink_share *b,
			unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i].function, b[i].function) || strcmp(a[i].link, b[i].link) ||
		    a[i].addr.s_addr != b[i].addr.s_addr || a[i].prefix != b[i].prefix ||
		    strcmp(a[i].uplink, b[i].uplink))
			return false;
	return true;
}

static void uplink_info_set(struct uplink_info *in, const struct uplink_share *s,
			    enum uplink_state st, const char *why)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->function, sizeof(in->function), "%s", s->function);
	snprintf(in->link, sizeof(in->link), "%s", s->link);
	snprintf(in->uplink, sizeof(in->uplink), "%s", s->uplink);
	in->state = st;
	snprintf(in->why, sizeof(in->why), "%s", why);
}

void uplink_sync(struct uplink *u, const struct uplink_share *s, unsigned n)
{
	struct uplink_share ok[PROFILE_MAX_FUNCTIONS];
	unsigned i, n_ok = 0;
	char why[160];
	int r;

	if (n > PROFILE_MAX_FUNCTIONS)
		n = PROFILE_MAX_FUNCTIONS;
	if (n == u->n && uplink_same(s, u->want, n))
		return;
	if (n)
		memcpy(u->want, s, n * sizeof(*s));
	u->n = n;
	for (i = 0; i < n; i++) {
		why[0] = '\0';
		if (!if_nametoindex(s[i].link))
			snprintf(why, sizeof(why), "no interface %s (the link)", s[i].link);
		else if (strcmp(s[i].uplink, "any") && !if_nametoindex(s[i].uplink))
			snprintf(why, sizeof(why), "no such uplink interface %s", s[i].uplink);
		uplink_info_set(&u->info[i], &s[i], why[0] ? UPLINK_FAILED : UPLINK_ON, why);
		if (why[0])
			log_warnx("function %s: not sharing the uplink with the host: %s",
				  s[i].function, why);
		else
			ok[n_ok++] = s[i];
	}
	if (!n_ok) {
		if (u->table)
			uplink_table_remove(u);
		uplink_fwd_release(u, NULL, 0);
		return;
	}
	r = uplink_apply(u, ok, n_ok, why, sizeof(why));
	for (i = 0; i < n; i++) {
		if (u->info[i].state != UPLINK_ON)
			continue;
		if (r < 0) {
			uplink_info_set(&u->info[i], &s[i], UPLINK_FAILED, why);
			log_warnx("function %s: not sharing the uplink with the host: %s",
				  s[i].function, why);
		} else {
			log_info("function %s: sharing %s with the host on %s (table inet %s)",
				 s[i].function, s[i].uplink, s[i].link, UPLINK_TABLE);
		}
	}
}

unsigned uplink_list(const struct uplink *u, struct uplink_info *out, unsigned max)
{
	unsigned i;

	for (i = 0; u && i < u->n && i < max; i++)
		out[i] = u->info[i];
	return i;
}
