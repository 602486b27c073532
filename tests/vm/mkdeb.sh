#!/bin/sh
# Builds gadgetd's Debian package from a copy of this tree.
# Usage: mkdeb.sh OUTDIR [ARCH [ROOT]]
# OUTDIR/gadgetd_*.deb, OUTDIR/build.log and OUTDIR/lintian.txt. The copy
# (OUTDIR/src, without build/ and .git) keeps dpkg-buildpackage's clean
# and its ../*.deb away from the work tree. ARCH (arm64, armhf)
# cross-builds with `dpkg-buildpackage -a ARCH`: in ROOT, a cross build
# root of tests/vm/mkcross.sh, when given (make deb DEB_ARCH=... does),
# else with this machine's own multiarch packages. DEB_BUILD_OPTIONS
# passes through (nocheck skips the unit tests).
set -eu
out=${1:?usage: mkdeb.sh OUTDIR [ARCH [ROOT]]}
arch=${2:-}
root=${3:-}
[ -z "$root" ] || root=$(cd "$root" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/vm/cross.sh"
for t in dpkg-buildpackage dh; do
	command -v $t >/dev/null ||
		{ echo "deb: $t missing (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
(cd "$src" && tar -c --exclude=./build --exclude=./.git .) | tar -x -C "$out/src"
start=$(date +%s)
if [ -n "$root" ]; then
	cross_in "$root" "$out" "$out" sh -c 'cd "$1/src" && dpkg-buildpackage -b -us -uc -j2 -a "$2"' sh "$out" "$arch"
else
	(cd "$out/src" && dpkg-buildpackage -b -us -uc -j2 ${arch:+-a "$arch"})
fi >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log"; echo "deb: dpkg-buildpackage failed, see $out/build.log" >&2; exit 1; }
echo "deb: built in $(($(date +%s) - start)) s:"
ls "$out"/*.deb
# MKDEB_LINTIAN=no skips lintian.
if [ "${MKDEB_LINTIAN:-yes}" != no ] && command -v lintian >/dev/null; then
	# lintian exits 0 with warnings and non-zero on errors.
	lintian "$out"/*.changes >"$out/lintian.txt" 2>&1 ||
		{ cat "$out/lintian.txt"; echo "deb: lintian found errors" >&2; exit 1; }
	grep -E '^[EW]: ' "$out/lintian.txt" || echo "deb: lintian: no errors or warnings"
fi
