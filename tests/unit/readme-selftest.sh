#!/bin/sh
# readme.sh against small trees: a good one passes, and each kind of
# problem it exists for fails it, naming the file and line.
#   tests/unit/readme-selftest.sh GADGETCTL
set -u
ctl=${1:?usage: readme-selftest.sh GADGETCTL}
case $ctl in /*) ;; *) ctl=$(pwd)/$ctl ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lint/expect.sh"

# good DIR: a README with a link into docs/ (with a heading), a checked
# path, a profile example; docs/a.md links back.
good() {
	rm -rf "$1"
	mkdir -p "$1/docs" "$1/common"
	: > "$1/common/log.h"
	cat > "$1/README.md" <<'EOF'
# A project

See [the notes](docs/a.md#the-notes-part-2), `common/log.h` and
[a site](https://example.org/x).

```conf
gadget: { vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "A"; product = "B"; serial = "1"; }; };
functions: { acm: { type = "acm"; }; };
sets = ( { functions = [ "acm" ]; product_id = 0x0105; } );
default = "acm";
```
EOF
	cat > "$1/docs/a.md" <<'EOF'
# Notes

## The notes, part 2

Back to the [README](../README.md) and [this](#notes).

    an indented [block](nowhere.md) is code, not a link
EOF
}

# run: readme.sh on $t/tree, for expect WHAT PATTERN (it fails and says
# PATTERN) and expect_ok WHAT (it passes), from tests/lint/expect.sh.
run() {
	out=$("$here/readme.sh" "$t/tree" "$ctl" 2>&1)
	rc=$?
}

good "$t/tree"
expect_ok "a good tree passes"

good "$t/tree"
seq $(($(wc -l < "$t/tree/README.md") + 1)) 249 | sed 's/.*/line/' >> "$t/tree/README.md"
expect_ok "a README of 249 lines passes"

good "$t/tree"
seq 1 250 | sed 's/.*/line/' >> "$t/tree/README.md"
expect "README over 249 lines" "README.md: $(wc -l < "$t/tree/README.md") lines, more than 249"

good "$t/tree"
echo "[gone](docs/gone.md)" >> "$t/tree/README.md"
expect "README link to a missing file" "README.md:$(wc -l < "$t/tree/README.md"): link to docs/gone.md: docs/gone.md does not exist"

good "$t/tree"
echo "[up](../../nothere.md)" >> "$t/tree/docs/a.md"
expect "docs link to a missing file" "docs/a.md:$(wc -l < "$t/tree/docs/a.md"): link to ../../nothere.md"

good "$t/tree"
sed -i 's/#the-notes-part-2/#the-notes/' "$t/tree/README.md"
expect "link to a missing heading" "docs/a.md has no heading #the-notes"

good "$t/tree"
echo "[ref]: docs/b.md" >> "$t/tree/docs/a.md"
expect "reference link to a missing file" "docs/a.md:$(wc -l < "$t/tree/docs/a.md"): link to docs/b.md"

good "$t/tree"
echo "The guard is in \`functions/aioguard.h\`." >> "$t/tree/docs/a.md"
expect "a moved file's old path" "docs/a.md:$(wc -l < "$t/tree/docs/a.md"): \`functions/aioguard.h\` does not exist"

good "$t/tree"
sed -i 's/type = "acm"/type = "acmm"/' "$t/tree/README.md"
expect "a profile example gadgetctl refuses" "README.md:6: the profile example fails gadgetctl check"

good "$t/tree"
sed -i 's/^```conf$/```/' "$t/tree/README.md"
expect "no profile example" "no \`\`\`conf block"

[ $fail = 0 ] || { echo "readme-selftest: FAILED"; exit 1; }
echo "readme-selftest: all cases behave"
