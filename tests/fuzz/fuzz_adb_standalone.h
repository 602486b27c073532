/*
 * For builds without clang: a main() that replays corpus files and
 * directories through LLVMFuzzerTestOneInput (ASan+UBSan catch the rest).
 */
#ifndef FUZZ_ADB_STANDALONE_H
#define FUZZ_ADB_STANDALONE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_adb_replay_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *de;
		char path[4096];

		if (stat(argv[i], &st) < 0)
			continue;
		if (!S_ISDIR(st.st_mode)) {
			fuzz_adb_replay_file(argv[i]);
			continue;
		}
		d = opendir(argv[i]);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			fuzz_adb_replay_file(path);
		}
		if (d)
			closedir(d);
	}
	return 0;
}

#endif
