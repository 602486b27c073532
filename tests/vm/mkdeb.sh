#!/bin/sh
# Builds gadgetd's Debian package from a copy of this tree.
# Usage: mkdeb.sh OUTDIR [ARCH [ROOT]]
# OUTDIR/gadgetd_*.deb, OUTDIR/build.log and OUTDIR/lintian.txt. The copy
# (OUTDIR/src, without build/ and .git) keeps dpkg-buildpackage's clean
# and its ../*.deb away from the work tree. ARCH (arm64, armhf)
# cross-builds with `dpkg-buildpackage -a ARCH`. With ROOT, a cross build
# root of tests/vm/mkcross.sh (make deb DEB_ARCH=... and make deb
# SUITE=trixie give one), the package is built in it, for ARCH or, with
# ARCH empty, for this machine's architecture; without, on this machine
# (with its own multiarch packages for ARCH). Lintian, blhc (dpkg's
# hardening flags, bind-now too, on every compile and link line of
# build.log for what ships, OUTDIR/blhc.txt) and hardening-check (on every ELF file of the
# package, OUTDIR/hardening.txt) are ROOT's when it has them, else this
# machine's, and skipped when neither has them. DEB_BUILD_OPTIONS passes
# through (nocheck skips the unit tests).
set -eu
out=${1:?usage: mkdeb.sh OUTDIR [ARCH [ROOT]]}
arch=${2:-}
root=${3:-}
[ -z "$root" ] || root=$(cd "$root" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/vm/cross.sh"
# A build root has its own; this machine needs them without one.
[ -n "$root" ] || for t in dpkg-buildpackage dh; do
	command -v $t >/dev/null ||
		{ echo "deb: $t missing (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
(cd "$src" && tar -c --exclude=./build --exclude=./.git .) | tar -x -C "$out/src"
start=$(date +%s)
# in_root CMD...: CMD in ROOT when given, else here.
in_root() {
	if [ -n "$root" ]; then
		cross_in "$root" "$out" "$out" "$@"
	else
		"$@"
	fi
}
# root_has T: ROOT is given and has the program T.
root_has() {
	[ -n "$root" ] && [ -n "$(in_root sh -c 'command -v "$1"' sh "$1")" ]
}
# has_tool T: ROOT or this machine has T.
has_tool() {
	root_has "$1" || command -v "$1" >/dev/null
}
# with_tool T CMD...: CMD in ROOT when it has T, else here.
with_tool() {
	wt_t=$1
	shift
	if root_has "$wt_t"; then
		in_root "$@"
	else
		"$@"
	fi
}
in_root sh -c 'cd "$1/src" && dpkg-buildpackage -b -us -uc -j2 ${2:+-a "$2"}' sh "$out" "$arch" \
	>"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log"; echo "deb: dpkg-buildpackage failed, see $out/build.log" >&2; exit 1; }
echo "deb: built in $(($(date +%s) - start)) s:"
ls "$out"/*.deb
# MKDEB_LINTIAN=no skips lintian.
if [ "${MKDEB_LINTIAN:-yes}" != no ] && has_tool lintian; then
	# lintian exits 0 with warnings and non-zero on errors.
	with_tool lintian sh -c 'lintian "$1"/*.changes' sh "$out" >"$out/lintian.txt" 2>&1 ||
		{ cat "$out/lintian.txt"; echo "deb: lintian found errors" >&2; exit 1; }
	grep -E '^[EW]: ' "$out/lintian.txt" || echo "deb: lintian: no errors or warnings"
fi
# The unit tests and the build's own helpers (build/unit, test, fuzz,
# asan, host) are built with sanitizers or for this machine, not shipped.
if has_tool blhc; then
	with_tool blhc blhc --bindnow ${arch:+--arch="$arch"} \
		--ignore-line='.* -o build/(unit|test|fuzz|asan|host)/.*' \
		"$out/build.log" >"$out/blhc.txt" 2>&1 ||
		{ cat "$out/blhc.txt"; echo "deb: blhc: a compile or link line of build.log lacks a hardening flag" >&2; exit 1; }
	echo "deb: blhc: every compile and link line has dpkg's hardening flags"
fi
if has_tool hardening-check; then
	rm -rf "$out/x"
	for d in "$out"/*.deb; do
		case $d in *-dbgsym_*) ;; *) dpkg-deb -x "$d" "$out/x" ;; esac
	done
	elfs=$(find "$out/x" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF' sh {} \; -print | sort)
	[ -n "$elfs" ] || { echo "deb: no ELF file in the package" >&2; exit 1; }
	# Control flow integrity (amd64's CET mark) is left out: trixie's own
	# /usr/bin/dpkg and bash fail it too, the mark being dropped at the
	# link although every object has it. Branch protection is arm64's.
	# Bookworm's hardening-check has neither check (nor option).
	hc_help=$(with_tool hardening-check hardening-check --help 2>&1 || true)
	hc_opts=
	case $hc_help in *--nocfprotection*) hc_opts=--nocfprotection ;; esac
	case $hc_help in *--nobranchprotection*)
		[ "${arch:-$(dpkg --print-architecture)}" = arm64 ] || hc_opts="$hc_opts --nobranchprotection" ;;
	esac
	# shellcheck disable=SC2086 # one word per file, none with spaces
	with_tool hardening-check hardening-check $hc_opts $elfs >"$out/hardening.txt" 2>&1 ||
		{ cat "$out/hardening.txt"; echo "deb: hardening-check failed" >&2; exit 1; }
	echo "deb: hardening-check: $(echo "$elfs" | wc -l) ELF files pass"
fi
