#include "tcplisten.h"
#include "log.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections the kernel completes before the worker accepts them; the
 * worker caps its peers (adb_tcp.h), this only bounds a burst. */
#define TCPLISTEN_BACKLOG 8

static int tcplisten_socket(int family, const char *ifname, int *fd)
{
	int s = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, zero = 0;

	if (s < 0)
		return -errno;
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0 ||
	    (family == AF_INET6 &&
	     setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    (ifname && setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				  strlen(ifname) + 1) < 0)) {
		int r = -errno;

		close(s);
		return r;
	}
	*fd = s;
	return 0;
}

int tcplisten_open(const char *ifname, unsigned port, int *fd)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_ANY_INIT,
				   .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_ANY),
				  .sin_port = htons(port) };
	bool v6 = true;
	int r, s = -1;

	r = tcplisten_socket(AF_INET6, ifname, &s);
	if (r == -EAFNOSUPPORT) {
		v6 = false;
		r = tcplisten_socket(AF_INET, ifname, &s);
	}
	if (r == 0 && bind(s, v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4,
			   v6 ? sizeof(a6) : sizeof(a4)) < 0)
		r = -errno;
	if (r == 0 && listen(s, TCPLISTEN_BACKLOG) < 0)
		r = -errno;
	if (r < 0) {
		errno = -r;
		log_warn("cannot listen on tcp port %u on %s", port,
			 ifname ? ifname : "every interface");
		if (s >= 0)
			close(s);
		return r;
	}
	*fd = s;
	return 0;
}
