/*
 * rtnl: one request, one acknowledgement, bounded by a receive timeout.
 * libmnl builds and parses the messages; nothing here knows their layout
 * beyond the structs of linux/rtnetlink.h.
 */
#include "rtnl.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

/* Send nlh and read the answer, feeding each message to cb (NULL for a
 * plain acknowledgement). */
static int rtnl_talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct timeval tv = { RTNL_TIMEOUT_MS / 1000, (RTNL_TIMEOUT_MS % 1000) * 1000 };
	char *buf = malloc(MNL_SOCKET_BUFFER_SIZE);
	struct mnl_socket *nl;
	unsigned portid;
	int r = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl) {
		free(buf);
		return -errno;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		r = -errno;
	portid = mnl_socket_get_portid(nl);
	nlh->nlmsg_seq = (unsigned)time(NULL);
	if (!r && mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		r = -errno;
	while (!r) {
		n = mnl_socket_recvfrom(nl, buf, MNL_SOCKET_BUFFER_SIZE);
		if (n < 0) {
			r = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
			break;
		}
		r = mnl_cb_run(buf, n, nlh->nlmsg_seq, portid, cb, data);
		if (r == MNL_CB_STOP) {
			r = 0;
			break;
		}
		r = r < 0 ? -errno : 0;
	}
	mnl_socket_close(nl);
	free(buf);
	return r;
}

static struct nlmsghdr *rtnl_addr_msg(char *buf, int type, unsigned flags,
				      unsigned ifindex, struct in_addr addr,
				      unsigned prefix)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifaddrmsg *ifa;
	struct in_addr brd = { addr.s_addr | htonl(0xffffffffu >> prefix) };

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = ifindex;
	mnl_attr_put_u32(nlh, IFA_LOCAL, addr.s_addr);
	mnl_attr_put_u32(nlh, IFA_ADDRESS, addr.s_addr);
	if (type == RTM_NEWADDR)
		mnl_attr_put_u32(nlh, IFA_BROADCAST, brd.s_addr);
	return nlh;
}

int rtnl_addr_add(const char *ifname, struct in_addr addr, unsigned prefix)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned idx = if_nametoindex(ifname);
	int r;

	if (!idx)
		return -ENODEV;
	r = rtnl_talk(rtnl_addr_msg(buf, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, idx,
				    addr, prefix), NULL, NULL);
	return r == -EEXIST ? 0 : r;
}

int rtnl_addr_del(const char *ifname, struct in_addr addr, unsigned prefix)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned idx = if_nametoindex(ifname);
	int r;

	if (!idx)
		return 0;
	r = rtnl_talk(rtnl_addr_msg(buf, RTM_DELADDR, 0, idx, addr, prefix), NULL, NULL);
	return r == -EADDRNOTAVAIL || r == -ENODEV ? 0 : r;
}

struct rtnl_find {
	unsigned ifindex, prefix;
	struct in_addr addr;
	bool found;
};

static int rtnl_addr_attr(const struct nlattr *a, void *data)
{
	struct rtnl_find *f = data;

	if (mnl_attr_get_type(a) == IFA_LOCAL &&
	    mnl_attr_validate(a, MNL_TYPE_U32) >= 0 &&
	    mnl_attr_get_u32(a) == f->addr.s_addr)
		f->found = true;
	return MNL_CB_OK;
}

static int rtnl_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	struct rtnl_find *f = data;

	if (ifa->ifa_index == f->ifindex && ifa->ifa_family == AF_INET &&
	    ifa->ifa_prefixlen == f->prefix)
		mnl_attr_parse(nlh, sizeof(*ifa), rtnl_addr_attr, f);
	return MNL_CB_OK;
}

bool rtnl_addr_has(const char *ifname, struct in_addr addr, unsigned prefix)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct rtnl_find f = { if_nametoindex(ifname), prefix, addr, false };
	struct ifaddrmsg *ifa;

	if (!f.ifindex)
		return false;
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	return rtnl_talk(nlh, rtnl_addr_cb, &f) == 0 && f.found;
}

/* An RTM_NEWLINK request for the link at idx, its ifinfomsg zeroed. */
static struct nlmsghdr *rtnl_link_msg(char *buf, unsigned idx, struct ifinfomsg **ifm)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	*ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(**ifm));
	(*ifm)->ifi_family = AF_UNSPEC;
	(*ifm)->ifi_index = idx;
	return nlh;
}

static int rtnl_link_flags(const char *ifname, unsigned flags)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned idx = if_nametoindex(ifname);

	if (!idx)
		return -ENODEV;
	nlh = rtnl_link_msg(buf, idx, &ifm);
	ifm->ifi_flags = flags;
	ifm->ifi_change = IFF_UP;
	return rtnl_talk(nlh, NULL, NULL);
}

int rtnl_link_up(const char *ifname)
{
	return rtnl_link_flags(ifname, IFF_UP);
}

int rtnl_link_down(const char *ifname)
{
	return rtnl_link_flags(ifname, 0);
}

int rtnl_link_forwarding(const char *ifname, bool on)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *spec, *inet, *conf;
	struct ifinfomsg *ifm;
	unsigned idx = if_nametoindex(ifname);

	if (!idx)
		return -ENODEV;
	nlh = rtnl_link_msg(buf, idx, &ifm);
	/* IFLA_AF_SPEC { AF_INET { IFLA_INET_CONF { FORWARDING: u32 } } }:
	 * the kernel's inet_set_link_af() sets each devconf value given. */
	spec = mnl_attr_nest_start(nlh, IFLA_AF_SPEC);
	inet = mnl_attr_nest_start(nlh, AF_INET);
	conf = mnl_attr_nest_start(nlh, IFLA_INET_CONF);
	mnl_attr_put_u32(nlh, IPV4_DEVCONF_FORWARDING, on ? 1 : 0);
	mnl_attr_nest_end(nlh, conf);
	mnl_attr_nest_end(nlh, inet);
	mnl_attr_nest_end(nlh, spec);
	return rtnl_talk(nlh, NULL, NULL);
}
