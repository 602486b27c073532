/*
 * netcfg: the board's side of a USB network link as a profile declares
 * it, in the block of a network function (ecm, ncm, rndis):
 *
 *   ecm: { type = "ecm";
 *          ifname = "usb%d";            # the kernel's name pattern
 *          address = "10.12.0.1/24";    # the board's IPv4 address/prefix
 *          dhcp = true;                 # one lease for the host
 *          mdns_name = "board";         # announced as board.local
 *          dhcp_router = false;         # opt-in: the board as gateway
 *          dhcp_dns = "10.12.0.1";      # opt-in: a DNS server handed out
          uplink = "eth0"; };          # opt-in: the board's uplink shared
 *
 * The keys are the network types' attributes in ktype.c (so the profile
 * parser checks each against its declaration); netcfg_check() is those
 * types' check across keys, and the rest of gadgetd reads a function's
 * link through netcfg_get(). Nothing here touches the system but
 * netcfg_clash(), which reads the board's addresses (getifaddrs).
 */
#ifndef GADGETD_NETCFG_H
#define GADGETD_NETCFG_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

struct profile;
struct profile_function;
struct ktype;

/* IFNAMSIZ, with its NUL. */
#define NETCFG_IFNAME_MAX 16
/* One DNS label: the name before ".local". */
#define NETCFG_MDNS_MAX 63

struct netcfg {
	char ifname[NETCFG_IFNAME_MAX]; /* the pattern asked for, or "" */
	bool has_addr;                  /* the rest needs an address */
	struct in_addr addr;            /* the board's */
	unsigned prefix;                /* 8..30 */
	bool dhcp;
	struct in_addr host;            /* the one address the host leases */
	bool router;                    /* dhcp_router */
	bool has_dns;
	struct in_addr dns;             /* dhcp_dns */
	char mdns[NETCFG_MDNS_MAX + 1]; /* "" for none */
	/* uplink: the board's interface shared with the host (uplink.h),
	 * "any", or "" (the default: no route for the host). */
	char uplink[NETCFG_IFNAME_MAX];
};

/* ecm, ncm and rndis: the types that make a network interface. */
bool netcfg_is_net(const struct ktype *t);

/*
 * "A.B.C.D/N" into addr and prefix: 0 or -EINVAL, why saying what is
 * wrong. A prefix of 8..30 leaves room for the board and one host; the
 * address must be neither the subnet's first nor its last.
 */
int netcfg_parse_addr(const char *text, struct in_addr *addr, unsigned *prefix,
		      char *why, size_t size);

/* The network types' ktype check: 0, or -EINVAL with why starting with
 * the key at fault ("dhcp: needs address"). */
int netcfg_check(const struct profile_function *f, char *why, size_t size);

/* f's link, from its checked attributes. -ENOENT if f is not a network
 * function; out->has_addr is false when it has no address. */
int netcfg_get(const struct profile_function *f, struct netcfg *out);

/* The host's lease: the board's address + 1, or - 1 when that is the
 * subnet's broadcast address. */
struct in_addr netcfg_host_addr(struct in_addr board, unsigned prefix);

/* The subnets a/pa and b/pb overlap. */
bool netcfg_overlap(struct in_addr a, unsigned pa, struct in_addr b,
		    unsigned pb);

/*
 * Each network function with an address in set (every set's when set is
 * -1) against the IPv4 addresses of the board's interfaces, leaving out
 * those named in ignore (the links gadgetd configured) and every USB
 * gadget interface (whose sysfs parent is a gadget device), and against
 * the other network functions of the same set.
 * 0, or -EADDRINUSE with one "FILE:LINE: functions.NAME.address: ..."
 * line per clash in err, naming the other interface and its address.
 */
int netcfg_clash(const struct profile *p, int set, const char *const *ignore,
		 unsigned n_ignore, char *err, size_t size);

/*
 * Only the check within each set of p (two network functions of one set
 * whose subnets overlap), which needs no board: what `gadgetctl check`
 * runs, with netcfg_clash()'s messages. 0 or -EADDRINUSE.
 */
int netcfg_clash_sets(const struct profile *p, char *err, size_t size);

#endif
