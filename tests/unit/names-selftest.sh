#!/bin/sh
# tests/unit/names.sh against objects built here: it passes names that
# follow the rule (and main, gadgetd_plugin, statics), and fails, naming
# file and symbol, on one that does not.
#   tests/unit/names-selftest.sh [CC]
set -eu
cc=${1:-cc}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/obj/x"
cat >"$d/good_one.c" <<'C'
int good_one;
int good_one_count = 1;
static int helper(void) { return good_one_count; }
int good_one_get(void);
int good_one_get(void) { return helper(); }
int main(void);
int main(void) { return good_one_get(); }
const int gadgetd_plugin = 1;
C
cat >"$d/bad.c" <<'C'
int bad_ok(void);
int bad_ok(void) { return 0; }
int badly_named(void);
int badly_named(void) { return 1; }
C
$cc -c -o "$d/obj/x/good_one.o" "$d/good_one.c"
$cc -c -o "$d/obj/x/bad.o" "$d/bad.c"
dir=$(dirname "$0")
"$dir/names.sh" "$d" "$d/obj/x/good_one.o" >"$d/good.out" 2>&1 ||
	{ cat "$d/good.out"; echo "names-selftest: good names refused"; exit 1; }
if "$dir/names.sh" "$d" "$d/obj/x/good_one.o" "$d/obj/x/bad.o" >"$d/bad.out" 2>&1; then
	cat "$d/bad.out"; echo "names-selftest: a bad name passed"; exit 1
fi
grep -qx 'names: x/bad.c: badly_named' "$d/bad.out" ||
	{ cat "$d/bad.out"; echo "names-selftest: the bad name is not listed"; exit 1; }
[ "$(grep -c '^names: x/' "$d/bad.out")" = 1 ] ||
	{ cat "$d/bad.out"; echo "names-selftest: a good name is listed"; exit 1; }
# Without a list, every object under obj/ and pic/ is checked.
if "$dir/names.sh" "$d" >"$d/all.out" 2>&1; then
	cat "$d/all.out"; echo "names-selftest: a bad name passed (find)"; exit 1
fi
grep -qx 'names: x/bad.c: badly_named' "$d/all.out" ||
	{ cat "$d/all.out"; echo "names-selftest: find missed the bad name"; exit 1; }
echo "names-selftest: ok"
