#!/bin/sh
# layout-doc.sh against small trees: a good one passes, and each kind of
# problem it exists for fails it, naming the file and line (or folder).
#   tests/lint/layout-doc-selftest.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/expect.sh"

# good DIR: a tree and a layout.md that names it right: folders, files
# alone and with their path, a glob, a man page, a link, an installed
# path and a flag (not checked), a fenced block (not read).
good() {
	rm -rf "$1"
	mkdir -p "$1/docs" "$1/common" "$1/functions/echo" "$1/man" \
		"$1/tests/unit"
	for f in common/loop.c common/loop.h functions/echo/echo.c \
		functions/echo/plugin.mk man/gadgetd.8 docs/testing.md \
		tests/unit/test_loop.c tests/unit/test_log.c README.md; do
		: > "$1/$f"
	done
	cat > "$1/docs/layout.md" <<'EOF'
# Source layout

Names alone: `README.md` (at the top).

- `common/` the event loop (`loop.c`, `loop.h`), by `-Icommon`.
- `functions/` plugins, each with its `plugin.mk`.
  - `functions/echo/` echoes (`echo.c`).
- `man/` gadgetd(8).
- `tests/` ([testing.md](testing.md#top)) and `tests/unit/`
  (`test_*.c`), installed in `/usr/share/x/y.conf`.
- `docs/` these pages; `gadgetctl status --json`, `plugin_*`.

```
`common/gone.c` in a block is code
```
EOF
}

# run: layout-doc.sh on $t/tree, for expect WHAT PATTERN (it fails and says
# PATTERN) and expect_ok WHAT (it passes), from tests/lint/expect.sh.
run() {
	out=$("$here/layout-doc.sh" "$t/tree" 2>&1)
	rc=$?
}
doc=$t/tree/docs/layout.md
# add TEXT: a last line for the page; its number is $line.
add() {
	printf '%s\n' "$1" >> "$doc"
	line=$(wc -l < "$doc")
}

good "$t/tree"
expect_ok "a good tree passes"

good "$t/tree"
add "- \`common/protocol.c\` a file gone"
expect "a path that does not exist" \
	"docs/layout.md:$line: \`common/protocol.c\` does not exist"

good "$t/tree"
add "- \`tests/fuzz/\` a folder that never was"
expect "a folder that does not exist" \
	"docs/layout.md:$line: \`tests/fuzz/\` does not exist"

good "$t/tree"
sed -i 's/`loop.h`/`strv.h`/' "$doc"
expect "a file alone, in no folder of its item" \
	"docs/layout.md:5: \`strv.h\` is in none of the folders its item names (common/)"

good "$t/tree"
sed -i 's/(`echo.c`)/(`echo.c`, `loop.c`)/' "$doc"
expect "a file alone, but in another item's folder" \
	"docs/layout.md:7: \`loop.c\` is in none of the folders its item names (functions/echo/)"

good "$t/tree"
sed -i 's/`README.md`/`NEWS.md`/' "$doc"
expect "a file alone in an item without folders, not at the top" \
	"docs/layout.md:3: \`NEWS.md\` is not at the top of the tree"

good "$t/tree"
sed -i 's/`test_\*\.c`/`check_*.c`/' "$doc"
expect "a glob that matches nothing" \
	"docs/layout.md:10: \`check_*.c\` is in none of the folders its item names"

good "$t/tree"
sed -i 's/gadgetd(8)/gadgetd(8), gadgetd-dbus(7)/' "$doc"
expect "a man page that does not exist" \
	"docs/layout.md:8: gadgetd-dbus(7): there is no man/gadgetd-dbus.7"

good "$t/tree"
sed -i 's/(testing.md#top)/(tests.md)/' "$doc"
expect "a link to a missing page" \
	"docs/layout.md:9: link to tests.md: docs/tests.md does not exist"

good "$t/tree"
mkdir -p "$t/tree/functions/hid"
: > "$t/tree/functions/hid/hid.c"
expect "a source folder the page leaves out" \
	"source folder functions/hid/ (it holds functions/hid/hid.c) is not described"

good "$t/tree"
mkdir -p "$t/tree/udev"
: > "$t/tree/udev/60-x.rules"
expect "a top-level folder the page leaves out" \
	"source folder udev/ (it holds udev/60-x.rules) is not described"

good "$t/tree"
sed -i 's/ and `tests\/unit\/`$//' "$doc"
expect "a source folder the page stopped naming" \
	"source folder tests/unit/ (it holds tests/unit/test_log.c) is not described"

# With git, the tree is what git tracks: a file only on disk is not in it.
if command -v git >/dev/null 2>&1; then
	good "$t/tree"
	git -C "$t/tree" init -q && git -C "$t/tree" add . &&
		git -C "$t/tree" rm -q --cached common/loop.h
	expect "a file git does not track" \
		"docs/layout.md:5: \`loop.h\` is in none of the folders its item names"
	git -C "$t/tree" add common/loop.h
	expect_ok "the same file, tracked"
fi

[ $fail = 0 ] || { echo "layout-doc-selftest: FAILED"; exit 1; }
echo "layout-doc-selftest: all cases behave"
