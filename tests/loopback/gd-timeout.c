/*
 * gd-timeout: timeout(1) for the loopback tests' own shell, linked
 * statically. Under TCG the bed's one vCPU pays 40-90 ms for every start
 * of a dynamically linked program, and coreutils' timeout adds one to
 * each command it bounds (`timeout 10 true` 131 ms, 16 ms with a static
 * one; the suite ran timeout 1 824 times, 2026-12-07). lib.sh's timeout
 * calls this when it is built. Busybox's timeout is static too, but
 * exits 143, not 124, when the time is up, and leaves a watcher with the
 * command's line behind it for up to a second (pgrep -f sees it).
 *
 * What it does is what coreutils' timeout does for the options the
 * tests use:
 *   gd-timeout [-k DURATION] [-s SIGNAL] DURATION COMMAND [ARG]...
 * DURATION is a number of seconds (a fraction too), with s, m, h or d
 * after it; 0 runs COMMAND with no bound. It runs COMMAND as its child,
 * in a process group of its own (setpgid), and when DURATION ends sends
 * SIGNAL (TERM) to the child and to that group, then CONT; with -k, KILL
 * to them (and itself) that long after, if the child is still there.
 * TERM, INT, HUP and QUIT it receives go on to the child the same way.
 * Exit status: 124 when the time was up, 125 on its own failure, 126
 * COMMAND could not run, 127 COMMAND not found, else COMMAND's own (a
 * signal that ended COMMAND ends gd-timeout too, without a core dump).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GDT_FAILED 125
#define GDT_TIMED_OUT 124

static pid_t gdt_child;

static const struct {
	const char *name;
	int sig;
} gdt_sigs[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "KILL", SIGKILL }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
	{ "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "CONT", SIGCONT },
	{ "STOP", SIGSTOP },
};

static void gdt_usage(void)
{
	fprintf(stderr, "Usage: gd-timeout [-k DURATION] [-s SIGNAL] DURATION COMMAND [ARG]...\n");
	exit(GDT_FAILED);
}

/* DURATION in ns; -1 when it is not one. */
static int64_t gdt_duration(const char *s)
{
	double d, unit = 1;
	char *end;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || errno || !(d >= 0))
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return -1;
	}
	if (*end && end[1])
		return -1;
	d *= unit;
	if (d > 1e9)
		d = 1e9;
	return (int64_t)(d * 1e9);
}

static int gdt_signal(const char *s)
{
	char *end;
	long n;
	size_t i;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (i = 0; i < sizeof(gdt_sigs) / sizeof(gdt_sigs[0]); i++)
		if (!strcmp(s, gdt_sigs[i].name))
			return gdt_sigs[i].sig;
	errno = 0;
	n = strtol(s, &end, 10);
	if (!*s || *end || errno || n < 1 || n >= NSIG)
		return -1;
	return (int)n;
}

static int64_t gdt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* sig to the process group, this process in it: its own copy, pending
 * at once (blocked signals are queued even when ignored), is dropped by
 * setting the action to ignore, or it would come back to be sent again.
 * The caller's later ones still come (blocked) and are passed on. */
static void gdt_group(int sig)
{
	kill(0, sig);
	if (sig != SIGKILL && sig != SIGSTOP)
		signal(sig, SIG_IGN);
}

/* sig to the child and its group, then CONT (KILL ends this one too, as
 * coreutils' does). */
static void gdt_send(int sig)
{
	kill(gdt_child, sig);
	gdt_group(sig);
	if (sig != SIGKILL && sig != SIGCONT) {
		kill(gdt_child, SIGCONT);
		gdt_group(SIGCONT);
	}
}

int main(int argc, char **argv)
{
	int64_t limit, kill_after = 0, deadline = -1;
	int sig = SIGTERM, i = 1, status, got;
	bool timed_out = false, killing = false;
	sigset_t set, old;
	pid_t r;

	while (i < argc && argv[i][0] == '-' && argv[i][1]) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "-k") && i + 1 < argc) {
			kill_after = gdt_duration(argv[i + 1]);
			if (kill_after < 0) {
				fprintf(stderr, "gd-timeout: -k %s: not a duration\n", argv[i + 1]);
				gdt_usage();
			}
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			sig = gdt_signal(argv[i + 1]);
			if (sig < 0) {
				fprintf(stderr, "gd-timeout: -s %s: not a signal\n", argv[i + 1]);
				gdt_usage();
			}
		} else {
			fprintf(stderr, "gd-timeout: %s: not an option it knows\n", argv[i]);
			gdt_usage();
		}
		i += 2;
	}
	if (argc - i < 2)
		gdt_usage();
	limit = gdt_duration(argv[i]);
	if (limit < 0) {
		fprintf(stderr, "gd-timeout: %s: not a duration\n", argv[i]);
		gdt_usage();
	}
	i++;

	setpgid(0, 0);
	/* A job in the background that reads or writes the terminal is not
	 * to stop this one; the child gets the default back. */
	signal(SIGTTIN, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);
	/* Ignored, SIGCHLD would never be queued (the kernel reaps). */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGCONT);
	if (sig != SIGKILL && sig != SIGSTOP)
		sigaddset(&set, sig);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0) {
		perror("gd-timeout: sigprocmask");
		return GDT_FAILED;
	}
	gdt_child = fork();
	if (gdt_child < 0) {
		perror("gd-timeout: fork");
		return GDT_FAILED;
	}
	if (gdt_child == 0) {
		int e;

		signal(SIGTTIN, SIG_DFL);
		signal(SIGTTOU, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[i], argv + i);
		e = errno;
		fprintf(stderr, "gd-timeout: failed to run command '%s': %s\n", argv[i], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	if (limit > 0)
		deadline = gdt_now() + limit;
	for (;;) {
		struct timespec left;
		int64_t ns;

		if (deadline >= 0) {
			ns = deadline - gdt_now();
			if (ns < 0)
				ns = 0;
			left.tv_sec = (time_t)(ns / 1000000000);
			left.tv_nsec = (long)(ns % 1000000000);
			got = sigtimedwait(&set, NULL, &left);
		} else {
			got = sigwaitinfo(&set, NULL);
		}
		if (got < 0 && errno == EAGAIN) {
			if (!timed_out) {
				timed_out = true;
				gdt_send(sig);
			} else {
				gdt_send(SIGKILL);
			}
			deadline = kill_after > 0 && !killing ? gdt_now() + kill_after : -1;
			killing = true;
			continue;
		}
		if (got < 0)
			continue;
		if (got == SIGCHLD) {
			r = waitpid(gdt_child, &status, WNOHANG);
			if (r == gdt_child)
				break;
			continue;
		}
		if (got == SIGCONT)
			continue;
		/* One the caller sent: passed on (and ignored from then on). */
		gdt_send(got);
		if (kill_after > 0 && !killing) {
			deadline = gdt_now() + kill_after;
			killing = true;
		}
	}
	if (timed_out)
		return GDT_TIMED_OUT;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		struct rlimit no_core = { 0, 0 };
		int s = WTERMSIG(status);

		setrlimit(RLIMIT_CORE, &no_core);
		signal(s, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		sigemptyset(&set);
		sigaddset(&set, s);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(s);
		return 128 + s;
	}
	return GDT_FAILED;
}
