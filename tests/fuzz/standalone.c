/*
 * The fuzz targets' driver for builds without clang: replays every file
 * named on the command line, or found in the directories named, through
 * LLVMFuzzerTestOneInput; ASan and UBSan catch what goes wrong. Exits 1
 * when an input cannot be read, so a missing corpus fails loudly.
 * "-timeout=N", as libFuzzer takes it, bounds each input to N seconds (a
 * hang then fails instead of stalling make); other options are ignored.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned standalone_timeout;
static char standalone_current[4096];

static void standalone_alarm(int sig)
{
	static const char msg[] = "standalone: timeout on ";

	/* Only async-signal-safe calls here. */
	(void)!write(2, msg, sizeof(msg) - 1);
	(void)!write(2, standalone_current, strlen(standalone_current));
	(void)!write(2, "\n", 1);
	_exit(1);
}

static int standalone_replay(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	snprintf(standalone_current, sizeof(standalone_current), "%s", path);
	alarm(standalone_timeout);
	LLVMFuzzerTestOneInput(buf, n);
	alarm(0);
	return 0;
}

static int standalone_dir(const char *dir)
{
	char path[4096];
	struct dirent *de;
	DIR *d = opendir(dir);
	int fail = 0;

	if (!d) {
		perror(dir);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fail |= standalone_replay(path);
	}
	closedir(d);
	return fail;
}

int main(int argc, char **argv)
{
	struct stat st;
	int i, fail = 0;

	signal(SIGALRM, standalone_alarm);
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "-timeout=", 9)) {
			standalone_timeout = atoi(argv[i] + 9);
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			fail |= standalone_dir(argv[i]);
		else
			fail |= standalone_replay(argv[i]);
	}
	return fail;
}
