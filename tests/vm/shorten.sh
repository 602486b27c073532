#!/bin/sh
# No silent 64-to-32-bit truncation on 32-bit ARM: every C file of
# gadgetd, its workers and plugins checked by clang for armhf with
# -Werror=shorten-64-to-32 (uint64_t or off_t into size_t, long long
# into unsigned, ...). A narrowing the code means is written as a cast,
# after the check that makes it safe. Run by check-arm64.sh for armhf;
# needs clang and armhf's libc headers: check-arm64.sh runs it in the cross
# build root (tests/vm/mkcross.sh).
# Usage: shorten.sh
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
n=0 bad=0
# Every folder's headers (the layering is layout.sh's to check, not this).
incs=$(for d in gadgetd gadgetd/*/ functions functions/runtime functions/mtp common; do
	[ -d "$d" ] && printf -- '-I%s ' "${d%/}"
done)
for f in $(find common gadgetd functions -name '*.c' | sort); do
	n=$((n + 1))
	clang --target=arm-linux-gnueabihf -std=gnu11 -fsyntax-only -D_GNU_SOURCE \
		-D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 -DSYSCONFDIR='"/etc"' \
		-DPLUGINDIR='"/usr/lib/gadgetd"' -DLIBEXECDIR='"/usr/libexec/gadgetd"' \
		-DRUNDIR='"/run"' -DSTATEDIR='"/var/lib/gadgetd"' \
		$incs $(pkg-config --cflags libusbgx 2>/dev/null) \
		-Werror=shorten-64-to-32 "$f" || bad=$((bad + 1))
done
echo "shorten: $n files for armhf, $bad with a 64-to-32-bit truncation or an error"
[ $bad = 0 ]
