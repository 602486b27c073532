/* fake_bus: a private dbus-daemon for unit tests (see fake_bus.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_bus.h"
#include "run_until.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whether the bus at path accepts a connection. */
static bool fake_bus_accepts(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return r == 0;
}

pid_t fake_bus_start(const char *dir, const char *in_default, const char *after)
{
	char conf[256], bus[256], text[8192];
	struct stat st;
	FILE *fp;
	pid_t pid;

	snprintf(conf, sizeof(conf), "%s/bus.conf", dir);
	snprintf(bus, sizeof(bus), "%s/bus", dir);
	unlink(bus);
	snprintf(text, sizeof(text),
		 "<busconfig><type>system</type><listen>unix:path=%s</listen>"
		 "<auth>EXTERNAL</auth><policy context=\"default\"><allow user=\"*\"/>%s"
		 "<allow send_type=\"method_call\"/><allow send_type=\"signal\"/>"
		 "<allow send_requested_reply=\"true\" send_type=\"method_return\"/>"
		 "<allow send_requested_reply=\"true\" send_type=\"error\"/>"
		 "<allow receive_type=\"method_call\"/><allow receive_type=\"method_return\"/>"
		 "<allow receive_type=\"error\"/><allow receive_type=\"signal\"/></policy>"
		 "%s</busconfig>\n", bus, in_default ? in_default : "", after ? after : "");
	fp = fopen(conf, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("dbus-daemon", "dbus-daemon", "--nofork", "--nopidfile",
		       "--config-file", conf, (char *)NULL);
		_exit(127);
	}
	/* At most RUN_UNTIL_MS each: dbus-daemon's start under qemu-user on
	 * a loaded machine can take seconds. */
	WAIT_UNTIL(stat(bus, &st) == 0, usleep(10000));
	assert_int_equal(stat(bus, &st), 0);
	/* The socket's file appears at bind(), before listen(): a client
	 * then is refused (ECONNREFUSED, seen on a loaded machine). */
	WAIT_UNTIL(fake_bus_accepts(bus), usleep(10000));
	assert_true(fake_bus_accepts(bus));
	snprintf(text, sizeof(text), "unix:path=%s", bus);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", text, 1);
	return pid;
}

void fake_bus_stop(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}
