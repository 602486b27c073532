/*
 * gadgetd-mdns: one mDNS announcement on one interface, through
 * avahi-daemon's D-Bus API (mdns.h says what and why). sd-bus on the
 * event loop, as gadgetd's own D-Bus API (dbus.c); the calls to
 * avahi-daemon are synchronous, since the helper has nothing else to do
 * meanwhile.
 */
#include "mdns.h"
#include "log.h"
#include "loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define MDNS_AVAHI "org.freedesktop.Avahi"
#define MDNS_AVAHI_SERVER "org.freedesktop.Avahi.Server"
#define MDNS_AVAHI_GROUP "org.freedesktop.Avahi.EntryGroup"
/* A call avahi-daemon leaves unanswered this long fails the helper. */
#define MDNS_CALL_USEC (10 * 1000000ull)

struct mdns {
	struct loop *loop;
	sd_bus *bus;
	struct loop_watch *io, *timer;
	char *avahi; /* avahi-daemon's unique name on the bus */
	char *group; /* our entry group's object path */
	bool added;  /* the group holds our entry (committed) */
	bool failed; /* the exit is MDNS_EXIT_FAIL */
	/* The command line. */
	const char *ifname;
	int ifindex;
	bool service;
	char *name; /* a service's changes after a collision */
	const char *address;
	const char *type, *host;
	unsigned port;
};

static void mdns_usage(FILE *f)
{
	fprintf(f,
		"usage: gadgetd-mdns --interface IFNAME --address NAME ADDRESS\n"
		"       gadgetd-mdns --interface IFNAME --service NAME TYPE PORT [--host HOST]\n"
		"Announce NAME -> ADDRESS, or a DNS-SD service, over mDNS on IFNAME only,\n"
		"through avahi-daemon; says \"" MDNS_READY_TEXT " 'NAME'\" once\n"
		"established, and runs until SIGTERM.\n");
}

/* The command line into m: 0, or MDNS_EXIT_USAGE after saying why. */
static int mdns_parse(struct mdns *m, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interface", required_argument, NULL, 'i' },
		{ "address", no_argument, NULL, 'a' },
		{ "service", no_argument, NULL, 's' },
		{ "host", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool address = false;
	char *end;
	int o;

	while ((o = getopt_long(argc, argv, "i:asH:h", opts, NULL)) != -1) {
		switch (o) {
		case 'i': m->ifname = optarg; break;
		case 'a': address = true; break;
		case 's': m->service = true; break;
		case 'H': m->host = optarg; break;
		case 'h': mdns_usage(stdout); exit(0);
		default: mdns_usage(stderr); return MDNS_EXIT_USAGE;
		}
	}
	argv += optind;
	argc -= optind;
	if (address == m->service) {
		log_warnx("say one of --address and --service");
		return MDNS_EXIT_USAGE;
	}
	if (!m->ifname || !m->ifname[0]) {
		log_warnx("--interface IFNAME is required: the announcement stays on that link");
		return MDNS_EXIT_USAGE;
	}
	if (argc != (address ? 2 : 3) || !argv[0][0] || (m->host && !m->service)) {
		mdns_usage(stderr);
		return MDNS_EXIT_USAGE;
	}
	m->name = strdup(argv[0]);
	if (!m->name)
		return MDNS_EXIT_FAIL;
	if (address) {
		struct in6_addr a;

		m->address = argv[1];
		if (inet_pton(AF_INET, m->address, &a) != 1 &&
		    inet_pton(AF_INET6, m->address, &a) != 1) {
			log_warnx("\"%s\" is not an IPv4 or IPv6 address", m->address);
			return MDNS_EXIT_USAGE;
		}
		return 0;
	}
	m->type = argv[1];
	errno = 0;
	m->port = (unsigned)strtoul(argv[2], &end, 10);
	if (errno || *end || argv[2][0] < '1' || argv[2][0] > '9' || m->port > 65535) {
		log_warnx("\"%s\" is not a port (1..65535)", argv[2]);
		return MDNS_EXIT_USAGE;
	}
	return 0;
}

static void mdns_fail(struct mdns *m)
{
	m->failed = true;
	loop_quit(m->loop, MDNS_EXIT_FAIL);
}

/* A call to avahi-daemon: 0, or -1 after saying what failed. */
static int mdns_call(struct mdns *m, const char *path, const char *iface,
		     const char *method, sd_bus_message **reply, const char *types, ...)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	sd_bus_message *call = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(m->bus, &call, m->avahi ? m->avahi : MDNS_AVAHI,
					   path, iface, method);
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(call, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(m->bus, call, MDNS_CALL_USEC, &err, reply);
	sd_bus_message_unref(call);
	if (r < 0) {
		log_warnx("avahi-daemon: %s failed: %s", method,
			  err.message ? err.message : strerror(-r));
		sd_bus_error_free(&err);
		return -1;
	}
	return 0;
}

/* Our entry, added to the group and committed. */
static int mdns_add(struct mdns *m)
{
	int r;

	if (m->service)
		r = mdns_call(m, m->group, MDNS_AVAHI_GROUP, "AddService", NULL,
			      "iiussssqaay", m->ifindex, MDNS_AVAHI_PROTO_UNSPEC, 0u,
			      m->name, m->type, "", m->host ? m->host : "",
			      (uint16_t)m->port, 0);
	else
		r = mdns_call(m, m->group, MDNS_AVAHI_GROUP, "AddAddress", NULL, "iiuss",
			      m->ifindex, MDNS_AVAHI_PROTO_UNSPEC,
			      MDNS_AVAHI_PUBLISH_NO_REVERSE, m->name, m->address);
	if (r == 0)
		r = mdns_call(m, m->group, MDNS_AVAHI_GROUP, "Commit", NULL, NULL);
	if (r < 0) {
		mdns_fail(m);
		return -1;
	}
	m->added = true;
	return 0;
}

/* A service name someone else has on the link: avahi's alternative,
 * then the same entry again. */
static void mdns_rename(struct mdns *m)
{
	sd_bus_message *reply = NULL;
	const char *alt;
	char *name = NULL;

	if (mdns_call(m, "/", MDNS_AVAHI_SERVER, "GetAlternativeServiceName", &reply,
		      "s", m->name) < 0 ||
	    sd_bus_message_read(reply, "s", &alt) < 0 || !(name = strdup(alt))) {
		sd_bus_message_unref(reply);
		mdns_fail(m);
		return;
	}
	sd_bus_message_unref(reply);
	log_info("Name collision on %s, picking new name '%s'", m->ifname, name);
	free(m->name);
	m->name = name;
	mdns_add(m);
}

static int mdns_on_group(sd_bus_message *msg, void *data, sd_bus_error *e)
{
	struct mdns *m = data;
	const char *error;
	int32_t state;

	if (!m->group || strcmp(sd_bus_message_get_path(msg), m->group) ||
	    sd_bus_message_read(msg, "is", &state, &error) < 0)
		return 0;
	if (state < MDNS_AVAHI_GROUP_UNCOMMITED || state > MDNS_AVAHI_GROUP_FAILURE)
		return 0;
	switch ((enum mdns_avahi_group_state)state) {
	case MDNS_AVAHI_GROUP_UNCOMMITED:
	case MDNS_AVAHI_GROUP_REGISTERING:
		break;
	case MDNS_AVAHI_GROUP_ESTABLISHED:
		log_info(MDNS_READY_TEXT " '%s' on %s only", m->name, m->ifname);
		break;
	case MDNS_AVAHI_GROUP_COLLISION:
		if (m->service) {
			mdns_rename(m);
			break;
		}
		log_warnx("another host on %s has the name %s: not announced", m->ifname,
			  m->name);
		mdns_fail(m);
		break;
	case MDNS_AVAHI_GROUP_FAILURE:
		log_warnx("avahi-daemon failed to announce %s on %s: %s", m->name,
			  m->ifname, error);
		mdns_fail(m);
		break;
	}
	return 0;
}

/* The server's host name: entries are announced only while it is
 * established (avahi-common/defs.h, "How to Register Services"). */
static void mdns_server_state(struct mdns *m, int32_t state)
{
	if (state < MDNS_AVAHI_SERVER_INVALID || state > MDNS_AVAHI_SERVER_FAILURE)
		return;
	switch ((enum mdns_avahi_server_state)state) {
	case MDNS_AVAHI_SERVER_INVALID:
		break;
	case MDNS_AVAHI_SERVER_RUNNING:
		if (!m->added)
			mdns_add(m);
		break;
	case MDNS_AVAHI_SERVER_REGISTERING:
	case MDNS_AVAHI_SERVER_COLLISION:
		if (!m->added)
			break;
		log_info("avahi-daemon is registering its host name: %s withdrawn until "
			 "it is done", m->name);
		m->added = false;
		if (mdns_call(m, m->group, MDNS_AVAHI_GROUP, "Reset", NULL, NULL) < 0)
			mdns_fail(m);
		break;
	case MDNS_AVAHI_SERVER_FAILURE:
		log_warnx("avahi-daemon failed");
		mdns_fail(m);
		break;
	}
}

static int mdns_on_server(sd_bus_message *msg, void *data, sd_bus_error *e)
{
	const char *error;
	int32_t state;

	if (sd_bus_message_read(msg, "is", &state, &error) >= 0)
		mdns_server_state(data, state);
	return 0;
}

/* avahi-daemon's name changed hands: our group went with the old one. */
static int mdns_on_owner(sd_bus_message *msg, void *data, sd_bus_error *e)
{
	struct mdns *m = data;
	const char *name, *old, *new;

	if (sd_bus_message_read(msg, "sss", &name, &old, &new) < 0 ||
	    strcmp(name, MDNS_AVAHI) || (m->avahi && !strcmp(new, m->avahi)))
		return 0;
	log_warnx("avahi-daemon left the system bus: %s no longer announced", m->name);
	mdns_fail(m);
	return 0;
}

/* sd-bus wants its fd watched for what it says, and a call at the time
 * it gives (CLOCK_MONOTONIC, µs), as in dbus.c. */
static void mdns_rearm(struct mdns *m)
{
	uint64_t usec, now;
	uint32_t ev = 0;
	int e = sd_bus_get_events(m->bus);

	if (e < 0) {
		mdns_fail(m);
		return;
	}
	if (e & POLLIN)
		ev |= EPOLLIN;
	if (e & POLLOUT)
		ev |= EPOLLOUT;
	loop_watch_set_events(m->io, ev);
	if (sd_bus_get_timeout(m->bus, &usec) < 0 || usec == UINT64_MAX) {
		loop_timer_rearm(m->timer, 0);
		return;
	}
	now = loop_now_ms() * 1000;
	loop_timer_rearm(m->timer, usec > now ? (usec - now + 999) / 1000 : 1);
}

static void mdns_process(struct mdns *m)
{
	int r;

	while ((r = sd_bus_process(m->bus, NULL)) > 0)
		;
	if (r < 0) {
		log_warnx("lost the system bus: %s", strerror(-r));
		mdns_fail(m);
		return;
	}
	mdns_rearm(m);
}

static void mdns_io(struct loop_watch *w, int fd, uint32_t events, void *data)
{
	mdns_process(data);
}

static void mdns_timeout(struct loop_watch *w, void *data)
{
	mdns_process(data);
}

static void mdns_on_signal(struct loop *l, int signo, void *data)
{
	loop_quit(l, 0);
}

/* Signals from avahi-daemon only: the rules name its unique name, which
 * nobody else can send from. */
static int mdns_match(struct mdns *m, const char *iface, const char *path,
		      sd_bus_message_handler_t fn)
{
	char rule[512];

	snprintf(rule, sizeof(rule), "type='signal',sender='%s',interface='%s',"
		 "member='StateChanged'%s%s%s", m->avahi, iface,
		 path ? ",path='" : "", path ? path : "", path ? "'" : "");
	return sd_bus_add_match(m->bus, NULL, rule, fn, m);
}

/* avahi-daemon found, our group made, signals subscribed, then the
 * entry added once avahi-daemon runs: 0, or -1 after saying why. */
static int mdns_connect(struct mdns *m)
{
	sd_bus_message *reply = NULL;
	const char *s;
	int32_t state;
	int r;

	r = sd_bus_open_system(&m->bus);
	if (r < 0) {
		log_warnx("cannot reach the system bus: %s", strerror(-r));
		return -1;
	}
	sd_bus_set_method_call_timeout(m->bus, MDNS_CALL_USEC);
	/* Subscribed before the owner is asked, so that a restart of
	 * avahi-daemon in between is seen. */
	r = sd_bus_add_match(m->bus, NULL,
			     "type='signal',sender='org.freedesktop.DBus',"
			     "path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
			     "member='NameOwnerChanged',arg0='" MDNS_AVAHI "'",
			     mdns_on_owner, m);
	if (r < 0) {
		log_warnx("cannot watch avahi-daemon on the bus: %s", strerror(-r));
		return -1;
	}
	r = sd_bus_call_method(m->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetNameOwner", NULL, &reply, "s",
			       MDNS_AVAHI);
	if (r < 0 || sd_bus_message_read(reply, "s", &s) < 0 || !(m->avahi = strdup(s))) {
		sd_bus_message_unref(reply);
		log_warnx("avahi-daemon is not on the system bus (%s): is it running?",
			  MDNS_AVAHI);
		return -1;
	}
	reply = sd_bus_message_unref(reply);
	if (mdns_match(m, MDNS_AVAHI_SERVER, "/", mdns_on_server) < 0 ||
	    mdns_match(m, MDNS_AVAHI_GROUP, NULL, mdns_on_group) < 0) {
		log_warnx("cannot watch avahi-daemon's signals");
		return -1;
	}
	if (mdns_call(m, "/", MDNS_AVAHI_SERVER, "EntryGroupNew", &reply, NULL) < 0 ||
	    sd_bus_message_read(reply, "o", &s) < 0 || !(m->group = strdup(s))) {
		sd_bus_message_unref(reply);
		return -1;
	}
	reply = sd_bus_message_unref(reply);
	if (mdns_call(m, "/", MDNS_AVAHI_SERVER, "GetState", &reply, NULL) < 0 ||
	    sd_bus_message_read(reply, "i", &state) < 0) {
		sd_bus_message_unref(reply);
		return -1;
	}
	sd_bus_message_unref(reply);
	if (state != MDNS_AVAHI_SERVER_RUNNING)
		log_info("waiting for avahi-daemon to register its host name");
	mdns_server_state(m, state);
	return 0;
}

static int mdns_run(struct mdns *m)
{
	int fd;

	m->loop = loop_new();
	if (!m->loop || loop_add_signal(m->loop, SIGTERM, mdns_on_signal, m) < 0 ||
	    loop_add_signal(m->loop, SIGINT, mdns_on_signal, m) < 0)
		return MDNS_EXIT_FAIL;
	m->timer = loop_add_timer(m->loop, 0, mdns_timeout, m);
	if (!m->timer || mdns_connect(m) < 0)
		return MDNS_EXIT_FAIL;
	fd = sd_bus_get_fd(m->bus);
	m->io = fd < 0 ? NULL : loop_add_fd(m->loop, fd, EPOLLIN, mdns_io, m);
	if (!m->io)
		return MDNS_EXIT_FAIL;
	/* What the calls above read besides their replies. */
	mdns_process(m);
	if (!m->failed && loop_run(m->loop) < 0)
		mdns_fail(m);
	return m->failed ? MDNS_EXIT_FAIL : 0;
}

int mdns_main(int argc, char **argv)
{
	struct mdns m = { 0 };
	int r;

	log_init("gadgetd-mdns", true, LOG_LEVEL_INFO);
	r = mdns_parse(&m, argc, argv);
	if (!r) {
		m.ifindex = (int)if_nametoindex(m.ifname);
		if (m.ifindex > 0) {
			if (m.service)
				log_info("announcing %s (%s, port %u%s%s) on %s (interface %d) only",
					 m.name, m.type, m.port, m.host ? ", host " : "",
					 m.host ? m.host : "", m.ifname, m.ifindex);
			else
				log_info("announcing %s -> %s on %s (interface %d) only",
					 m.name, m.address, m.ifname, m.ifindex);
			r = mdns_run(&m);
		} else {
			log_warn("no network interface %s", m.ifname);
			r = MDNS_EXIT_FAIL;
		}
	}
	if (m.io)
		loop_watch_release(m.io);
	if (m.bus)
		sd_bus_flush_close_unref(m.bus);
	loop_watch_remove(m.timer);
	if (m.loop)
		loop_free(m.loop);
	free(m.avahi);
	free(m.group);
	free(m.name);
	return r;
}
