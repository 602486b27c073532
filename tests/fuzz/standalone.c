/*
 * The fuzz targets' driver for builds without clang: replays every file
 * named on the command line, or found in the directories named, through
 * LLVMFuzzerTestOneInput; ASan and UBSan catch what goes wrong. Exits 1
 * when an input cannot be read, so a missing corpus fails loudly.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	LLVMFuzzerTestOneInput(buf, n);
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

	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			fail |= standalone_dir(argv[i]);
		else
			fail |= standalone_replay(argv[i]);
	}
	return fail;
}
