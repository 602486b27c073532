#!/bin/sh
# layout.sh against small trees: a good one passes, and each rule fails
# it, naming the file and line: an include that goes up (or sideways) the
# table, a ../ include, a header no folder holds, a folder with no row, a
# .c over 1000 lines, an exception that is stale. --incs gives a folder
# its row's folders and theirs.
#   tests/lint/layout-selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/expect.sh"

# good: a tree whose includes go down the table of layout.sh.
good() {
	rm -rf "$t/tree"
	mkdir -p "$t/tree/common" "$t/tree/gadgetd/profile" "$t/tree/functions/runtime" \
		"$t/tree/functions/echo" "$t/tree/functions/hid"
	cd "$t/tree"
	: > common/loop.h
	printf '#include "loop.h"\n' > common/loop.c
	: > gadgetd/gadget.h
	: > gadgetd/profile/profile.h
	printf '#include "profile.h"\n#include "loop.h"\n' > gadgetd/profile/profile.c
	printf '#include "gadget.h"\n#include "loop.h"\n#include "profile.h"\n' > gadgetd/gadget.c
	: > functions/runtime/plugin.h
	: > functions/hid/hid.h
	printf '#include "plugin.h"\n#include "loop.h"\n' > functions/echo/echo.c
	printf '#include "hid.h"\n#include "plugin.h"\n' > functions/hid/hid.c
	cd - >/dev/null
}
# add FILE LINE: a last line for FILE.
add() {
	printf '%s\n' "$2" >> "$t/tree/$1"
}
run() {
	out=$("$here/layout.sh" "$t/tree" 2>&1)
	rc=$?
}
# The floors of layout.sh, with exceptions of the self-test's own (the
# real ones name files the small trees do not hold).
export LAYOUT_EXCEPTIONS=

good
expect_ok "a good tree passes"

good
add common/loop.c '#include "gadget.h"'
expect "an upward include: common/ reaching gadgetd/" \
	'common/loop.c:2: #include "gadget.h" is in gadgetd/, and common/ may include from no other folder'

good
add gadgetd/profile/profile.c '#include "gadget.h"'
expect "an upward include: gadgetd/profile/ reaching the gadget" \
	'gadgetd/profile/profile.c:3: #include "gadget.h" is in gadgetd/, and gadgetd/profile/ may include from common/'

good
add functions/echo/echo.c '#include "hid.h"'
expect "a sideways include: a plugin reaching another" \
	'functions/echo/echo.c:3: #include "hid.h" is in functions/hid/, and functions/echo/ may include from functions/runtime/ common/ (its row functions/*/'

good
add functions/runtime/plugin.h '#include "gadget.h"'
expect "an upward include from a header" \
	'functions/runtime/plugin.h:1: #include "gadget.h" is in gadgetd/'

good
add gadgetd/gadget.c '#include "../common/loop.h"'
expect "a ../ include" \
	'gadgetd/gadget.c:4: #include "../common/loop.h" (an include that climbs out of its folder)'

good
add gadgetd/gadget.c '#include "gone.h"'
expect "a header no folder holds" \
	'gadgetd/gadget.c:4: #include "gone.h": no product folder holds gone.h'

good
mkdir -p "$t/tree/gadgetd/nowhere"
: > "$t/tree/gadgetd/nowhere/x.c"
expect "a folder the table has no row for" \
	'gadgetd/nowhere/x.c: its folder gadgetd/nowhere/ has no row in the table'

good
seq 1001 | sed 's/.*/int x&;/' > "$t/tree/gadgetd/big.c"
expect "a .c over 1000 lines" 'gadgetd/big.c: 1001 lines, more than 1000'

# The exceptions.
good
add common/loop.c '#include "gadget.h"'
LAYOUT_EXCEPTIONS='
# why it climbs
common/loop.c gadget.h
'
expect_ok "an upward include the exceptions allow"
LAYOUT_EXCEPTIONS='
common/loop.c gadget.h
gadgetd/gadget.c plugin.h
'
expect "an exception for no include" \
	'exception gadgetd/gadget.c plugin.h: no such include (remove the exception)'
LAYOUT_EXCEPTIONS='
common/loop.c gadget.h
gadgetd/gadget.c loop.h
'
expect "an exception the table allows already" \
	'exception gadgetd/gadget.c loop.h: the table allows it already'

# --incs: a folder's row, the rows of those folders, and the folders of
# its exceptions (gadgetd/a/ reaches gadgetd/c/ by its exception alone).
good
mkdir -p "$t/tree/gadgetd/a" "$t/tree/gadgetd/b" "$t/tree/gadgetd/c"
: > "$t/tree/gadgetd/a/a.h"
: > "$t/tree/gadgetd/b/b.h"
printf '#include "a.h"\n' > "$t/tree/gadgetd/c/c.c"
export LAYOUT_FLOORS='
common/:
gadgetd/a/: common/
gadgetd/b/: common/
gadgetd/c/: gadgetd/b/
gadgetd/profile/: common/
gadgetd/: gadgetd/profile/ common/
functions/runtime/: common/
functions/*/: functions/runtime/ common/
'
LAYOUT_EXCEPTIONS='
gadgetd/c/c.c a.h
'
expect_ok "a table of the self-test's own"
incs=$("$here/layout.sh" --incs "$t/tree" | grep '^gadgetd/c=')
if [ "$incs" = "gadgetd/c=-Igadgetd/c,-Igadgetd/b,-Igadgetd/a,-Icommon" ]; then
	echo "ok: --incs gives the closure"
else
	echo "FAIL: --incs: $incs"
	fail=1
fi
unset LAYOUT_FLOORS LAYOUT_EXCEPTIONS

[ $fail = 0 ] || { echo "layout-selftest: FAILED"; exit 1; }
echo "layout-selftest: all cases behave"
