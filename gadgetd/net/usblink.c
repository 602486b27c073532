/*
 * usblink: live links, each its address, its dnsmasq and its
 * gadgetd-mdns; synced to what gadgetd wants, cleaned after a crash.
 */
#include "usblink.h"
#include "config.h"
#include "log.h"
#include "loop.h"
#include "mdns.h"
#include "netproc.h"
#include "rtnl.h"
#include "uplink.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The host's carrier watch (usblink_watch_link): a tick, the ticks of
 * silence before the first poke (doubling after each), and how many. */
#define USBLINK_TICK_MS 300
#define USBLINK_QUIET_TICKS 7u
#define USBLINK_POKES 3
/* rtnetlink refusing the address or the link's state: tried again each
 * tick, this many times in all (3 s), before gadgetd gives up on the link
 * until the next switch. One refusal must not leave a link without its
 * address for good. */
#define USBLINK_SET_TRIES 10

struct usblink_link {
	struct usblink_want w;
	bool addr_set;
	struct netproc *dhcp, *mdns;
	/* The host's connect notification (usblink_watch): watched until
	 * the host sends a packet; rx_packets at the start, ticks since the
	 * last look or poke, pokes so far, and down for one tick. */
	bool watched, down;
	unsigned long long rx0;
	unsigned ticks, pokes;
	/* Tries of the address and of setting the link up (again). */
	unsigned tries;
};

/* The mDNS helper (mdns.h). */
#define USBLINK_MDNS_HELPER LIBEXECDIR "/gadgetd-mdns"

/* A service wanted: what it is, the host name it points at and the
 * interface it is announced on ("" for both: not announced). */
struct usblink_announced {
	struct usblink_service s;
	char host[NETCFG_MDNS_MAX + 8];
	char ifname[NETCFG_IFNAME_MAX];
	struct netproc *proc;
};

struct usblink {
	struct loop *loop;
	const struct config *cfg;
	struct loop_watch *watch_timer;
	unsigned n, n_svc;
	struct usblink_link links[PROFILE_MAX_FUNCTIONS];
	struct usblink_announced svc[PROFILE_MAX_FUNCTIONS];
	struct uplink *share; /* the links that share the board's uplink */
};

/* run_dir/net-FUNCTION + suffix. */
static void usblink_path(const struct usblink *nl, const char *function,
			 const char *suffix, char *buf, size_t size)
{
	snprintf(buf, size, "%s/net-%s%s", nl->cfg->run_dir, function, suffix);
}

/* What a crashed gadgetd left in run_dir: helpers and addresses. */
static void usblink_clean(struct usblink *nl)
{
	DIR *d = opendir(nl->cfg->run_dir);
	struct dirent *de;
	char path[4200], ifname[NETCFG_IFNAME_MAX], cidr[32];
	struct in_addr a;
	unsigned prefix;
	size_t n;
	FILE *f;

	while (d && (de = readdir(d))) {
		n = strlen(de->d_name);
		if (strncmp(de->d_name, "net-", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", nl->cfg->run_dir, de->d_name);
		if (n > 4 && !strcmp(de->d_name + n - 4, ".pid")) {
			netproc_kill_stale(path);
			continue;
		}
		if (n < 5 || strcmp(de->d_name + n - 5, ".addr"))
			continue;
		f = fopen(path, "re");
		if (f && fscanf(f, "%15s %31s", ifname, cidr) == 2) {
			char why[128];

			if (!netcfg_parse_addr(cidr, &a, &prefix, why, sizeof(why)) &&
			    rtnl_addr_has(ifname, a, prefix)) {
				log_info("%s: removing %s, left by an earlier gadgetd", ifname, cidr);
				rtnl_addr_del(ifname, a, prefix);
			}
		}
		if (f)
			fclose(f);
		unlink(path);
	}
	if (d)
		closedir(d);
}

struct usblink *usblink_new(struct loop *l, const struct config *cfg)
{
	struct usblink *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return NULL;
	nl->loop = l;
	nl->cfg = cfg;
	usblink_clean(nl);
	nl->share = uplink_new(cfg->run_dir);
	if (!nl->share) {
		free(nl);
		return NULL;
	}
	return nl;
}

static void usblink_start_dhcp(struct usblink *nl, struct usblink_link *k)
{
	const struct netcfg *nc = &k->w.nc;
	char host[INET_ADDRSTRLEN], mask[INET_ADDRSTRLEN], other[INET_ADDRSTRLEN];
	char iface[64], range[96], leases[4200], lease_arg[4300], pid[4200];
	char router[64] = "--dhcp-option=3", dns[64] = "--dhcp-option=6", what[64];
	struct in_addr m = { htonl(0xffffffffu << (32 - nc->prefix)) };
	/* Sharing the uplink, dnsmasq is also the host's DNS server: it
	 * forwards to the board's own (/etc/resolv.conf), on this link only
	 * (lo, which --interface adds, left out). Otherwise no DNS at all. */
	char *argv[] = { "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null",
			 nc->uplink[0] ? "--domain-needed" : "--no-resolv", "--no-hosts",
			 nc->uplink[0] ? "--except-interface=lo" : "--port=0", iface,
			 "--bind-interfaces", range, lease_arg, "--dhcp-authoritative",
			 "--no-ping", router, dns, "--pid-file", "--log-facility=-", NULL };

	inet_ntop(AF_INET, &nc->host, host, sizeof(host));
	inet_ntop(AF_INET, &m, mask, sizeof(mask));
	snprintf(iface, sizeof(iface), "--interface=%s", k->w.ifname);
	snprintf(range, sizeof(range), "--dhcp-range=%s,%s,%s,12h", host, host, mask);
	usblink_path(nl, k->w.function, ".leases", leases, sizeof(leases));
	snprintf(lease_arg, sizeof(lease_arg), "--dhcp-leasefile=%s", leases);
	/* By default neither a gateway nor a DNS server: option 3 and 6
	 * given empty are not sent, so the host keeps its own routes. */
	if (nc->router || nc->uplink[0]) {
		inet_ntop(AF_INET, &nc->addr, other, sizeof(other));
		snprintf(router, sizeof(router), "--dhcp-option=3,%s", other);
	}
	if (nc->has_dns || nc->uplink[0]) {
		inet_ntop(AF_INET, nc->has_dns ? &nc->dns : &nc->addr, other, sizeof(other));
		snprintf(dns, sizeof(dns), "--dhcp-option=6,%s", other);
	}
	/* --no-ping: the one address goes to the one host on the link, so
	 * there is nobody to find with a ping before offering it, and dnsmasq
	 * then needs no raw socket (CAP_NET_RAW; gadgetd.service). */
	/* A new link may have a new host (host_addr is random per function):
	 * the single address must not stay leased to the last one. */
	unlink(leases);
	usblink_path(nl, k->w.function, "-dnsmasq.pid", pid, sizeof(pid));
	snprintf(what, sizeof(what), "%s: dhcp", k->w.function);
	k->dhcp = netproc_start(nl->loop, nl->cfg, what, argv, pid, NULL);
}

/*
 * gadgetd-mdns says this once avahi-daemon has probed the name on the
 * link and announced it. A link that goes down and up during the probe
 * (the host plugging in, or gadgetd telling a silent host the link again,
 * below) can leave avahi 0.8's registration probing for ever: the name
 * is then started again (netproc.h). Probing takes under a second; 5 s
 * leaves room for a loaded board (2 s seen under TCG).
 */
static const struct netproc_ready usblink_mdns_ready = {
	.text = MDNS_READY_TEXT,
	.ms = 5000,
};

/* NAME.local on the link's own interface only: its address is reachable
 * there and nowhere else, so the board's LAN must not learn it. */
static void usblink_start_mdns(struct usblink *nl, struct usblink_link *k)
{
	char name[NETCFG_MDNS_MAX + 8], addr[INET_ADDRSTRLEN], pid[4200], what[64];
	char *argv[] = { USBLINK_MDNS_HELPER, "--interface", k->w.ifname, "--address",
			 name, addr, NULL };

	snprintf(name, sizeof(name), "%s.local", k->w.nc.mdns);
	inet_ntop(AF_INET, &k->w.nc.addr, addr, sizeof(addr));
	usblink_path(nl, k->w.function, "-mdns.pid", pid, sizeof(pid));
	snprintf(what, sizeof(what), "%s: mdns", k->w.function);
	log_info("function %s: announcing %s over mDNS on %s only", k->w.function, name,
		 k->w.ifname);
	k->mdns = netproc_start(nl->loop, nl->cfg, what, argv, pid, &usblink_mdns_ready);
}

/* IPv6 link-local comes with the interface unless it is disabled. */
static void usblink_ipv6_on(const char *ifname)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
	f = fopen(path, "we");
	if (!f)
		return; /* no IPv6 in this kernel */
	fputs("0", f);
	if (fclose(f) != 0)
		log_warn("%s: cannot enable IPv6 (%s)", ifname, path);
}

static void usblink_record(const struct usblink *nl, const struct usblink_link *k)
{
	char path[4200], a[INET_ADDRSTRLEN];
	FILE *f;

	usblink_path(nl, k->w.function, ".addr", path, sizeof(path));
	f = fopen(path, "we");
	if (!f) {
		log_warn("cannot write %s", path);
		return;
	}
	inet_ntop(AF_INET, &k->w.nc.addr, a, sizeof(a));
	fprintf(f, "%s %s/%u\n", k->w.ifname, a, k->w.nc.prefix);
	fclose(f);
}

/*
 * The host's side may keep NO-CARRIER after a bind. f_ecm and f_ncm queue
 * a "disconnected" notification when the host configures the gadget (the
 * board's side is not open to the function yet) and "connected" right
 * behind it once the host selects the data interface; the host reads both
 * back to back when it opens its interface. Linux 6.1.150 and later (the
 * stable backports of "usbnet: Avoid potential RCU stall on LINK_CHANGE
 * event" and its fix) turn the carrier on from a work item that drops a
 * "connected" arriving while the previous change is being handled, or
 * before the interface counts as open: the host then stays without
 * carrier until the next notification. The board can tell: the host has
 * selected the data interface (the board's carrier is on) and sends
 * nothing, not even IPv6's first packets. Then the board's side is set
 * down and, a tick later, up again: "disconnected" and "connected" reach
 * the host USBLINK_TICK_MS apart, which it handles. A host that has not
 * opened its interface yet costs nothing: the notifications wait for it.
 */
static unsigned long long usblink_sysfs_ull(const char *ifname, const char *attr)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static void usblink_watch_arm(struct usblink *nl);
static bool usblink_up(struct usblink *nl, struct usblink_link *k);

/* One link's tick: true while it stays watched. */
static bool usblink_watch_link(struct usblink_link *k)
{
	const char *ifn = k->w.ifname;

	if (k->down) {
		int r = rtnl_link_up(ifn);

		if (r < 0 && ++k->tries < USBLINK_SET_TRIES)
			return true; /* the next tick tries again */
		if (r < 0)
			log_warnx("function %s: cannot set %s up again: %s", k->w.function,
				  ifn, strerror(-r));
		k->down = false;
		k->tries = 0;
		return true;
	}
	if (usblink_sysfs_ull(ifn, "statistics/rx_packets") != k->rx0)
		return false; /* the host talks: its carrier is on */
	if (!usblink_sysfs_ull(ifn, "carrier") ||
	    ++k->ticks < USBLINK_QUIET_TICKS << k->pokes)
		return true;
	if (k->pokes == USBLINK_POKES)
		return false;
	k->ticks = 0;
	k->pokes++;
	log_info("function %s: the host selected %s's link but sends nothing: "
		 "telling it the link again", k->w.function, ifn);
	k->down = rtnl_link_down(ifn) == 0;
	return true;
}

/* The live links that share the board's uplink (uplink.h), and only
 * those: called whenever a link came up or went. */
static void usblink_share(struct usblink *nl)
{
	struct uplink_share s[PROFILE_MAX_FUNCTIONS];
	unsigned i, n = 0;

	for (i = 0; i < nl->n; i++) {
		const struct usblink_link *k = &nl->links[i];

		if (!k->addr_set || !k->w.nc.uplink[0])
			continue;
		memset(&s[n], 0, sizeof(s[n]));
		memcpy(s[n].function, k->w.function, sizeof(s[n].function));
		memcpy(s[n].link, k->w.ifname, sizeof(s[n].link));
		memcpy(s[n].uplink, k->w.nc.uplink, sizeof(s[n].uplink));
		s[n].addr = k->w.nc.addr;
		s[n].prefix = k->w.nc.prefix;
		n++;
	}
	uplink_sync(nl->share, s, n);
}

static void usblink_watch_tick(struct loop_watch *w, void *data)
{
	struct usblink *nl = data;
	unsigned i;

	loop_watch_remove(w);
	nl->watch_timer = NULL;
	for (i = 0; i < nl->n; i++) {
		struct usblink_link *k = &nl->links[i];

		if (!k->addr_set && k->tries && k->tries < USBLINK_SET_TRIES) {
			if (usblink_up(nl, k))
				usblink_share(nl);
		} else if (k->watched)
			k->watched = usblink_watch_link(k);
	}
	usblink_watch_arm(nl);
}

/* A link still to set up, or still watched. */
static bool usblink_ticking(const struct usblink_link *k)
{
	return k->watched || (!k->addr_set && k->tries && k->tries < USBLINK_SET_TRIES);
}

static void usblink_watch_arm(struct usblink *nl)
{
	unsigned i;

	for (i = 0; i < nl->n && !usblink_ticking(&nl->links[i]); i++)
		;
	if (i < nl->n && !nl->watch_timer)
		nl->watch_timer = loop_add_timer(nl->loop, USBLINK_TICK_MS,
						 usblink_watch_tick, nl);
}

/* The address on the link and the link up: true once both are; else
 * tried again from the watch's tick (usblink_watch_tick). */
static bool usblink_up(struct usblink *nl, struct usblink_link *k)
{
	char a[INET_ADDRSTRLEN];
	int r;

	inet_ntop(AF_INET, &k->w.nc.addr, a, sizeof(a));
	if (!k->tries)
		usblink_ipv6_on(k->w.ifname);
	r = rtnl_addr_add(k->w.ifname, k->w.nc.addr, k->w.nc.prefix);
	if (!r)
		r = rtnl_link_up(k->w.ifname);
	if (r < 0) {
		k->tries++;
		if (k->tries == 1 || k->tries == USBLINK_SET_TRIES)
			log_warnx("function %s: cannot set %s/%u on %s: %s%s", k->w.function,
				  a, k->w.nc.prefix, k->w.ifname, strerror(-r),
				  k->tries == 1 ? "; trying again" :
				  "; given up until the next switch");
		if (k->tries < USBLINK_SET_TRIES)
			usblink_watch_arm(nl);
		return false;
	}
	k->tries = 0;
	k->addr_set = true;
	k->watched = true;
	k->rx0 = usblink_sysfs_ull(k->w.ifname, "statistics/rx_packets");
	usblink_watch_arm(nl);
	usblink_record(nl, k);
	log_info("function %s: %s has %s/%u%s%s%s", k->w.function, k->w.ifname, a,
		 k->w.nc.prefix, k->w.nc.dhcp ? ", DHCP for the host" : "",
		 k->w.nc.mdns[0] ? ", mDNS name " : "", k->w.nc.mdns);
	if (k->w.nc.dhcp)
		usblink_start_dhcp(nl, k);
	if (k->w.nc.mdns[0])
		usblink_start_mdns(nl, k);
	return true;
}

static void usblink_down(struct usblink *nl, struct usblink_link *k, bool now)
{
	char path[4200];
	int r;

	if (now) {
		netproc_kill(k->dhcp);
		netproc_kill(k->mdns);
	} else {
		netproc_stop(k->dhcp);
		netproc_stop(k->mdns);
	}
	k->dhcp = k->mdns = NULL;
	if (k->addr_set) {
		r = rtnl_addr_del(k->w.ifname, k->w.nc.addr, k->w.nc.prefix);
		if (r < 0)
			log_warnx("function %s: cannot remove its address from %s: %s",
				  k->w.function, k->w.ifname, strerror(-r));
		else
			log_info("function %s: %s is down", k->w.function, k->w.ifname);
	}
	usblink_path(nl, k->w.function, ".addr", path, sizeof(path));
	unlink(path);
	usblink_path(nl, k->w.function, ".leases", path, sizeof(path));
	unlink(path);
}

static bool usblink_same(const struct usblink_want *a, const struct usblink_want *b)
{
	return !strcmp(a->function, b->function) && !strcmp(a->ifname, b->ifname) &&
	       !memcmp(&a->nc, &b->nc, sizeof(a->nc));
}

/*
 * Where service s is announced: on the link whose mDNS name it points at,
 * a link it listens on. Without tcp_interface (a socket on each gadget
 * link) and with "*" (every interface), the first live link with a name:
 * that name resolves on that link only, so on the board's LAN the service
 * would point at an address nobody there reaches. With tcp_interface
 * naming a gadget link, that link if it has a name; naming another
 * interface (wlan0), nowhere: the service listens on no USB link.
 * true with host ("gadgetd.local") and ifname set.
 */
static bool usblink_service_where(const struct usblink *nl, const struct usblink_service *s,
				  char *host, size_t hsize, char *ifname, size_t isize)
{
	const struct usblink_link *k;
	unsigned i;

	for (i = 0; i < nl->n; i++) {
		k = &nl->links[i];
		if (!k->addr_set || !k->w.nc.mdns[0])
			continue;
		if (s->iface[0] && strcmp(s->iface, "*") && strcmp(s->iface, k->w.ifname))
			continue;
		snprintf(host, hsize, "%s.local", k->w.nc.mdns);
		snprintf(ifname, isize, "%s", k->w.ifname);
		return true;
	}
	return false;
}

/* The service on its link's interface only (usblink_service_where). */
static void usblink_announce(struct usblink *nl, struct usblink_announced *a)
{
	char name[PROFILE_NAME_MAX + NETCFG_MDNS_MAX + 2], port[16], pid[4200], what[96];
	char *argv[] = { USBLINK_MDNS_HELPER, "--interface", a->ifname, "--service", name,
			 a->s.type, port, "--host", a->host, NULL };
	size_t n = strcspn(a->host, ".");

	/* "adb-gadgetd": the function on that board, unique on the link. */
	snprintf(name, sizeof(name), "%s-%.*s", a->s.function, (int)n, a->host);
	snprintf(port, sizeof(port), "%u", a->s.port);
	snprintf(pid, sizeof(pid), "%s/net-service-%s.pid", nl->cfg->run_dir, a->s.function);
	snprintf(what, sizeof(what), "%s: mdns %s", a->s.function, a->s.type);
	log_info("%s: announcing %s on port %u as %s over mDNS on %s only", a->s.function,
		 a->s.type, a->s.port, a->host, a->ifname);
	a->proc = netproc_start(nl->loop, nl->cfg, what, argv, pid, &usblink_mdns_ready);
}

static bool usblink_service_same(const struct usblink_service *a,
				 const struct usblink_service *b)
{
	return !strcmp(a->function, b->function) && !strcmp(a->type, b->type) &&
	       a->port == b->port && !strcmp(a->iface, b->iface);
}

/* Service s, wanted, is where a says (announced there, or nowhere). */
static bool usblink_service_kept(const struct usblink *nl, const struct usblink_announced *a,
				 const struct usblink_service *s)
{
	char host[NETCFG_MDNS_MAX + 8], ifname[NETCFG_IFNAME_MAX];

	if (!usblink_service_where(nl, s, host, sizeof(host), ifname, sizeof(ifname)))
		return !a->host[0];
	return !strcmp(a->host, host) && !strcmp(a->ifname, ifname);
}

static void usblink_service_add(struct usblink *nl, const struct usblink_service *s)
{
	struct usblink_announced *a = &nl->svc[nl->n_svc++];

	memset(a, 0, sizeof(*a));
	a->s = *s;
	if (usblink_service_where(nl, s, a->host, sizeof(a->host), a->ifname,
				  sizeof(a->ifname)))
		usblink_announce(nl, a);
	else if (s->iface[0] && strcmp(s->iface, "*"))
		log_info("%s: %s on port %u is not announced over mDNS: it listens on %s "
			 "only, which is not a USB link with an mDNS name", s->function,
			 s->type, s->port, s->iface);
}

/* The services wanted, each announced while a link it listens on has a
 * name (usblink_service_where). */
static void usblink_sync_services(struct usblink *nl, const struct usblink_service *svc,
				  unsigned n)
{
	unsigned i, j;

	for (i = 0; i < nl->n_svc;) {
		for (j = 0; j < n && !usblink_service_same(&nl->svc[i].s, &svc[j]); j++)
			;
		if (j < n && usblink_service_kept(nl, &nl->svc[i], &svc[j])) {
			i++;
			continue;
		}
		if (nl->svc[i].host[0])
			log_info("%s: %s no longer announced", nl->svc[i].s.function,
				 nl->svc[i].s.type);
		netproc_stop(nl->svc[i].proc);
		nl->svc[i] = nl->svc[--nl->n_svc];
	}
	for (j = 0; j < n && nl->n_svc < PROFILE_MAX_FUNCTIONS; j++) {
		for (i = 0; i < nl->n_svc && !usblink_service_same(&nl->svc[i].s, &svc[j]); i++)
			;
		if (i == nl->n_svc)
			usblink_service_add(nl, &svc[j]);
	}
}

void usblink_sync(struct usblink *nl, const struct usblink_want *want, unsigned n,
		  const struct usblink_service *svc, unsigned n_svc)
{
	unsigned i, j;

	for (i = 0; i < nl->n;) {
		for (j = 0; j < n && !usblink_same(&nl->links[i].w, &want[j]); j++)
			;
		if (j < n) {
			i++;
			continue;
		}
		usblink_down(nl, &nl->links[i], false);
		nl->links[i] = nl->links[--nl->n];
	}
	for (j = 0; j < n && nl->n < PROFILE_MAX_FUNCTIONS; j++) {
		for (i = 0; i < nl->n && !usblink_same(&nl->links[i].w, &want[j]); i++)
			;
		if (i < nl->n)
			continue;
		memset(&nl->links[nl->n], 0, sizeof(nl->links[nl->n]));
		nl->links[nl->n].w = want[j];
		usblink_up(nl, &nl->links[nl->n++]);
	}
	usblink_share(nl);
	usblink_sync_services(nl, svc, n_svc);
}

void usblink_free(struct usblink *nl)
{
	unsigned i;

	if (!nl)
		return;
	loop_watch_remove(nl->watch_timer);
	uplink_free(nl->share);
	for (i = 0; i < nl->n_svc; i++)
		netproc_kill(nl->svc[i].proc);
	for (i = 0; i < nl->n; i++)
		usblink_down(nl, &nl->links[i], true);
	free(nl);
}

unsigned usblink_ifaces(const struct usblink *nl, const char **names, unsigned max)
{
	unsigned i, n = 0;

	for (i = 0; nl && i < nl->n && n < max; i++)
		names[n++] = nl->links[i].w.ifname;
	return n;
}

unsigned usblink_shares(const struct usblink *nl, struct uplink_info *out, unsigned max)
{
	return nl ? uplink_list(nl->share, out, max) : 0;
}
