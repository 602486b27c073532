#!/bin/sh
# plugin-names.py against small trees: a literal naming a plugin, in
# gadgetd/ or in one of its folders, fails it (with FILE:LINE), while
# comments, help examples ("e.g."), the allowed kernel type and words that
# merely contain a plugin's name pass.
#   tests/lint/plugin-names-selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/expect.sh"

# tree BODY: a tree with plugins adb and hid and gadgetd/x.c holding BODY.
tree() {
	rm -rf "$t/tree"
	mkdir -p "$t/tree/functions/adb" "$t/tree/functions/hid" "$t/tree/gadgetd/profile"
	echo 'PLUGINS += adb' > "$t/tree/functions/adb/plugin.mk"
	echo 'PLUGINS += hid' > "$t/tree/functions/hid/plugin.mk"
	printf '%s\n' "$1" > "$t/tree/gadgetd/x.c"
	printf '%s\n' 'static const char *k = "hid";' > "$t/tree/gadgetd/profile/ktype.c"
}
run() {
	out=$(python3 "$here/plugin-names.py" "$t/tree" 2>&1)
	rc=$?
}

tree '/* "adb" in a comment */
// and "adb" here
static const char *h = "switch (e.g. mtp,adb)";
static const char *w = "adbd, hidden, loadb";'
expect_ok "comments, examples, the kernel type, longer words"
tree 'int x;
static const char *s = "_adb._tcp";'
expect "a literal naming adb" 'gadgetd/x.c:2: "_adb._tcp" names the plugin adb'
tree 'static const char *s = "a \"hid\" here";'
expect "an escaped quote inside" 'gadgetd/x.c:1:'
tree 'static const char *c = "/*"; static const char *s = "hid";'
expect "a comment opener inside a literal" 'gadgetd/x.c:1: "hid" names the plugin hid'
tree 'int x;'
printf '%s\n' 'static const char *s = "adb";' > "$t/tree/gadgetd/profile/y.c"
expect "a literal in a folder of gadgetd/" 'gadgetd/profile/y.c:1: "adb" names the plugin adb'
exit $fail
