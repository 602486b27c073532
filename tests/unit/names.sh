#!/bin/sh
# The naming rule of the tree: every function or object with external
# linkage defined in foo.c is named foo or foo_* (a grep for a name finds
# one file). Exceptions: main, a plugin's entry gadgetd_plugin, and the
# plugin API plugin_* in functions/runtime/plugin.c (which the rule allows
# anyway).
#   tests/unit/names.sh BUILD_DIR [OBJECT...]
# Runs nm on the product objects named (make names passes those of gadgetd,
# gadgetctl, gadgetd-worker and the plugins; without any, every object in
# BUILD_DIR/obj and BUILD_DIR/pic, stale ones included) and prints
# "names: FILE.c: SYMBOL" for each symbol outside the rule; exits 1 if there
# is one.
# NM: the nm to use (a cross build's, say); nm by default.
set -eu
nm=${NM:-nm}
b=${1:-build}
[ $# -gt 0 ] && shift
if [ $# -gt 0 ]; then
	objs=$*
else
	objs=$(find "$b/obj" "$b/pic" -name '*.o' -type f 2>/dev/null | sort)
fi
[ -n "$objs" ] || { echo "names: no objects in $b/obj or $b/pic"; exit 1; }
bad=0 n=0
for o in $objs; do
	n=$((n + 1))
	src=${o#"$b"/obj/}
	src=${src#"$b"/pic/}
	src=${src%.o}.c
	base=$(basename "$src" .c)
	# Defined symbols with external linkage: upper-case types (T, D, B,
	# R, ...), weak ones (W, V) included; lower-case ones are static.
	for s in $("$nm" --defined-only "$o" | awk '$2 ~ /^[A-Z]$/ { print $3 }'); do
		case $s in
		"$base" | "$base"_* | main | gadgetd_plugin) continue ;;
		esac
		echo "names: $src: $s"
		bad=1
	done
done
echo "names: $n objects checked"
[ $bad = 0 ] || { echo "names: external names outside their file's prefix (see above)"; exit 1; }
