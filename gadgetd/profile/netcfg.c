/*
 * netcfg: a network function's link keys, checked across each other,
 * and the check of its subnet against the board's other interfaces.
 */
#include "netcfg.h"
#include "ktype.h"
#include "profile.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool netcfg_is_net(const struct ktype *t)
{
	return t && (!strcmp(t->name, "ecm") || !strcmp(t->name, "ncm") ||
		     !strcmp(t->name, "rndis"));
}

static uint32_t netcfg_mask(unsigned prefix)
{
	return prefix ? 0xffffffffu << (32 - prefix) : 0;
}

int netcfg_parse_addr(const char *text, struct in_addr *addr, unsigned *prefix,
		      char *why, size_t size)
{
	char buf[32], *slash, *end;
	unsigned long n;
	uint32_t a, host;

	if (strlen(text) >= sizeof(buf) || !(slash = strchr(text, '/'))) {
		snprintf(why, size, "\"%s\": expected A.B.C.D/PREFIX, such as \"10.12.0.1/24\"",
			 text);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", text);
	buf[slash - text] = '\0';
	if (inet_pton(AF_INET, buf, addr) != 1) {
		snprintf(why, size, "\"%s\": \"%s\" is not an IPv4 address", text, buf);
		return -EINVAL;
	}
	n = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || n < 8 || n > 30) {
		snprintf(why, size, "\"%s\": the prefix must be 8..30 (room for the board and a host)",
			 text);
		return -EINVAL;
	}
	*prefix = n;
	a = ntohl(addr->s_addr);
	host = a & ~netcfg_mask(n);
	if (host == 0 || host == ~netcfg_mask(n) || (a >> 24) == 127 || (a >> 28) >= 14 ||
	    (a >> 24) == 0) {
		snprintf(why, size, "\"%s\": not a usable host address (the subnet's first or last, loopback, multicast or reserved)",
			 text);
		return -EINVAL;
	}
	return 0;
}

struct in_addr netcfg_host_addr(struct in_addr board, unsigned prefix)
{
	uint32_t a = ntohl(board.s_addr), mask = netcfg_mask(prefix);
	struct in_addr h;

	h.s_addr = htonl(((a + 1) & ~mask) == ~mask ? a - 1 : a + 1);
	return h;
}

bool netcfg_overlap(struct in_addr a, unsigned pa, struct in_addr b, unsigned pb)
{
	uint32_t mask = netcfg_mask(pa < pb ? pa : pb);

	return (ntohl(a.s_addr) & mask) == (ntohl(b.s_addr) & mask);
}

/* The kernel takes a pattern with exactly one %d (gether_set_ifname()),
 * so that a second gadget never fails to bind on a taken name. */
static int netcfg_check_ifname(const char *v, char *why, size_t size)
{
	const char *p = strchr(v, '%');
	size_t i;

	for (i = 0; v[i]; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("%_-", v[i]))
			break;
	if (v[i] || !p || p[1] != 'd' || strchr(p + 2, '%') ||
	    strlen(v) >= NETCFG_IFNAME_MAX) {
		snprintf(why, size, "ifname: \"%s\": expected a pattern with one %%d such as \"usb%%d\" (a-z, 0-9, _ and -, at most %d characters; the kernel numbers it)",
			 v, NETCFG_IFNAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

/* A DNS label (RFC 1035 as mDNS names are used): letters, digits and
 * hyphens, not at either end. */
static int netcfg_check_mdns(const char *v, char *why, size_t size)
{
	size_t i, n = strlen(v);

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && v[i] != '-')
			break;
	if (i < n || n == 0 || n > NETCFG_MDNS_MAX || v[0] == '-' || v[n - 1] == '-') {
		snprintf(why, size, "mdns_name: \"%s\": expected one DNS label (a-z, A-Z, 0-9 and -, at most %d, no - at either end; \".local\" is added)",
			 v, NETCFG_MDNS_MAX);
		return -EINVAL;
	}
	return 0;
}

/* A key that only means something with another one set. */
static int netcfg_needs(const struct profile_function *f, const char *key,
			const char *needed, bool present, char *why, size_t size)
{
	if (!profile_option(f, key) || present)
		return 0;
	snprintf(why, size, "%s: needs %s", key, needed);
	return -EINVAL;
}

/* An interface's name as the kernel takes it (dev_valid_name()), kept
 * to what an nftables rule can quote: 1..15 of a-z, A-Z, 0-9 and "_.-";
 * or "any". */
static int netcfg_check_uplink(const char *v, char *why, size_t size)
{
	size_t i, n = strlen(v);

	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("_.-", v[i]))
			break;
	if (i < n || n == 0 || n >= NETCFG_IFNAME_MAX || !strcmp(v, ".") || !strcmp(v, "..") ||
	    strchr(v, '%')) {
		snprintf(why, size, "uplink: \"%s\": expected the board's interface to share, such as \"eth0\" (a-z, A-Z, 0-9, _, . and -, at most %d characters), or \"any\"",
			 v, NETCFG_IFNAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

int netcfg_check(const struct profile_function *f, char *why, size_t size)
{
	const char *v;
	struct in_addr a;
	unsigned prefix;
	bool has_addr = profile_option(f, "address") != NULL;
	bool dhcp = optdesc_bool(ktype_attr(f, "dhcp")) == 1;
	int r;

	if ((v = profile_option(f, "ifname")) && netcfg_check_ifname(v, why, size) < 0)
		return -EINVAL;
	if ((v = profile_option(f, "address"))) {
		char sub[200];

		if (netcfg_parse_addr(v, &a, &prefix, sub, sizeof(sub)) < 0) {
			snprintf(why, size, "address: %s", sub);
			return -EINVAL;
		}
	}
	if ((v = profile_option(f, "mdns_name")) && netcfg_check_mdns(v, why, size) < 0)
		return -EINVAL;
	if ((v = profile_option(f, "dhcp_dns")) && inet_pton(AF_INET, v, &a) != 1) {
		snprintf(why, size, "dhcp_dns: \"%s\" is not an IPv4 address", v);
		return -EINVAL;
	}
	if ((v = profile_option(f, "uplink")) && netcfg_check_uplink(v, why, size) < 0)
		return -EINVAL;
	if ((v = profile_option(f, "uplink")) && optdesc_bool(ktype_attr(f, "dhcp_router")) == 0 &&
	    profile_option(f, "dhcp_router")) {
		snprintf(why, size, "uplink: the board is the host's router when it shares \"%s\": drop dhcp_router = false",
			 v);
		return -EINVAL;
	}
	r = netcfg_needs(f, "dhcp", "address = \"A.B.C.D/PREFIX\" (the board's side)",
			 has_addr, why, size);
	if (!r)
		r = netcfg_needs(f, "mdns_name", "address = \"A.B.C.D/PREFIX\" (the name's address)",
				 has_addr, why, size);
	if (!r)
		r = netcfg_needs(f, "dhcp_router", "dhcp = true (it is handed out by DHCP)",
				 dhcp, why, size);
	if (!r)
		r = netcfg_needs(f, "dhcp_dns", "dhcp = true (it is handed out by DHCP)",
				 dhcp, why, size);
	if (!r)
		r = netcfg_needs(f, "uplink", "dhcp = true (the host learns its router and DNS by DHCP)",
				 dhcp, why, size);
	return r;
}

int netcfg_get(const struct profile_function *f, struct netcfg *out)
{
	const char *v;
	char why[200];

	memset(out, 0, sizeof(*out));
	if (!netcfg_is_net(f->type))
		return -ENOENT;
	if ((v = profile_option(f, "ifname")))
		snprintf(out->ifname, sizeof(out->ifname), "%s", v);
	v = profile_option(f, "address");
	out->has_addr = v && !netcfg_parse_addr(v, &out->addr, &out->prefix, why,
						  sizeof(why));
	if (!out->has_addr)
		return 0;
	out->dhcp = optdesc_bool(ktype_attr(f, "dhcp")) == 1;
	out->host = netcfg_host_addr(out->addr, out->prefix);
	out->router = optdesc_bool(ktype_attr(f, "dhcp_router")) == 1;
	if ((v = profile_option(f, "dhcp_dns")))
		out->has_dns = inet_pton(AF_INET, v, &out->dns) == 1;
	if ((v = profile_option(f, "mdns_name")))
		snprintf(out->mdns, sizeof(out->mdns), "%s", v);
	if (out->dhcp && (v = profile_option(f, "uplink")))
		snprintf(out->uplink, sizeof(out->uplink), "%s", v);
	return 0;
}

/* A USB gadget's own interface (its parent is the gadget device,
 * ".../dummy_udc.0/gadget.0"): gadgetd's, configured by gadgetd. */
static bool netcfg_gadget_iface(const char *name)
{
	char link[256], path[4096];

	snprintf(link, sizeof(link), "/sys/class/net/%s/device", name);
	if (!realpath(link, path))
		return false;
	return strstr(path, "/gadget/") || strstr(path, "/gadget.") ||
	       (strlen(path) >= 7 && !strcmp(path + strlen(path) - 7, "/gadget"));
}

static bool netcfg_ignored(const char *name, const char *const *ignore, unsigned n)
{
	unsigned i;

	if (netcfg_gadget_iface(name))
		return true;
	for (i = 0; i < n; i++)
		if (ignore[i] && !strcmp(ignore[i], name))
			return true;
	return false;
}

static bool netcfg_in_set(const struct profile *p, int set, unsigned fn)
{
	unsigned i;

	if (set < 0)
		return true;
	for (i = 0; i < p->sets[set].n_functions; i++)
		if (p->sets[set].functions[i] == fn)
			return true;
	return false;
}

static unsigned netcfg_option_line(const struct profile_function *f, const char *key)
{
	const struct profile_option *o = profile_option_find(f, key);

	return o ? o->line : 0;
}

/* One function against every address of the board. */
static unsigned netcfg_clash_one(const struct profile *p, const struct profile_function *f,
				 const struct ifaddrs *ifa, const char *const *ignore,
				 unsigned n_ignore, char *err, size_t size, size_t *len)
{
	struct netcfg nc;
	unsigned n = 0, prefix;
	char other[INET_ADDRSTRLEN];
	uint32_t m;

	if (netcfg_get(f, &nc) < 0 || !nc.has_addr)
		return 0;
	for (; ifa; ifa = ifa->ifa_next) {
		const struct sockaddr_in *sa = (const void *)ifa->ifa_addr;
		const struct sockaddr_in *nm = (const void *)ifa->ifa_netmask;

		if (!sa || sa->sin_family != AF_INET || !nm ||
		    netcfg_ignored(ifa->ifa_name, ignore, n_ignore))
			continue;
		m = ntohl(nm->sin_addr.s_addr);
		for (prefix = 0; prefix < 32 && (m & (0x80000000u >> prefix)); prefix++)
			;
		if (!netcfg_overlap(nc.addr, nc.prefix, sa->sin_addr, prefix))
			continue;
		inet_ntop(AF_INET, &sa->sin_addr, other, sizeof(other));
		if (*len < size)
			*len += snprintf(err + *len, size - *len,
					 "%s:%u: functions.%s.address: %s overlaps interface %s (%s/%u): choose another subnet\n",
					 p->path ? p->path : p->name,
					 netcfg_option_line(f, "address"), f->name,
					 profile_option(f, "address"), ifa->ifa_name, other, prefix);
		n++;
	}
	return n;
}

/* Two network functions of one set whose subnets overlap: the board
 * would route one subnet to two interfaces. */
static unsigned netcfg_clash_set(const struct profile *p, unsigned set, char *err,
				 size_t size, size_t *len)
{
	const struct profile_set *s = &p->sets[set];
	const struct profile_function *a, *b;
	struct netcfg na, nb;
	unsigned i, j, n = 0;

	for (i = 0; i < s->n_functions; i++) {
		a = &p->functions[s->functions[i]];
		if (netcfg_get(a, &na) < 0 || !na.has_addr)
			continue;
		for (j = i + 1; j < s->n_functions; j++) {
			b = &p->functions[s->functions[j]];
			if (netcfg_get(b, &nb) < 0 || !nb.has_addr ||
			    !netcfg_overlap(na.addr, na.prefix, nb.addr, nb.prefix))
				continue;
			if (*len < size)
				*len += snprintf(err + *len, size - *len,
						 "%s:%u: functions.%s.address: %s overlaps functions.%s.address (%s), in set %u with it\n",
						 p->path ? p->path : p->name,
						 netcfg_option_line(b, "address"), b->name,
						 profile_option(b, "address"), a->name,
						 profile_option(a, "address"), set + 1);
			n++;
		}
	}
	return n;
}

/* err without its last newline. */
static void netcfg_clash_end(char *err, size_t len, size_t size)
{
	if (len && len <= size && err[len - 1] == '\n')
		err[len - 1] = '\0';
}

int netcfg_clash_sets(const struct profile *p, char *err, size_t size)
{
	size_t len = 0;
	unsigned i, n = 0;

	if (size)
		err[0] = '\0';
	for (i = 0; i < p->n_sets; i++)
		n += netcfg_clash_set(p, i, err, size, &len);
	netcfg_clash_end(err, len, size);
	return n ? -EADDRINUSE : 0;
}

int netcfg_clash(const struct profile *p, int set, const char *const *ignore,
		 unsigned n_ignore, char *err, size_t size)
{
	struct ifaddrs *ifa = NULL;
	size_t len = 0;
	unsigned i, n = 0;

	if (size)
		err[0] = '\0';
	for (i = 0; i < p->n_sets; i++)
		if (set < 0 || (unsigned)set == i)
			n += netcfg_clash_set(p, i, err, size, &len);
	if (getifaddrs(&ifa) < 0)
		ifa = NULL; /* nothing to compare with: the switch says so later */
	for (i = 0; ifa && i < p->n_functions; i++)
		if (netcfg_in_set(p, set, i))
			n += netcfg_clash_one(p, &p->functions[i], ifa, ignore, n_ignore,
					      err, size, &len);
	if (ifa)
		freeifaddrs(ifa);
	netcfg_clash_end(err, len, size);
	return n ? -EADDRINUSE : 0;
}
