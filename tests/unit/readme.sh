#!/bin/sh
# README.md stays a page for users, and nothing in it or in docs/ points
# into the void (issue 22):
#   tests/unit/readme.sh [SRCDIR] [GADGETCTL]
# Fails, printing FILE:LINE and the reason for each problem, when
# - README.md is over 249 lines;
# - a relative link in README.md or docs/*.md names a file that does not
#   exist, or a #heading that the page it names does not have;
# - a `path` in backquotes in those files starts with one of the tree's
#   folders (common/, gadgetd/, functions/, ...) and does not exist: files
#   move, and their mentions must follow;
# - given GADGETCTL, a ```conf block of README.md (its profile example)
#   does not pass `gadgetctl check`, or README.md has none.
# tests/unit/readme-selftest.sh shows each of these failing.
set -eu
src=${1:-.}
ctl=${2:-}
max=249
case $ctl in
'' | /*) ;;
*) ctl=$(pwd)/$ctl ;;
esac
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
problem() {
	echo "readme: $*"
	bad=1
}

[ -f README.md ] || { echo "readme: $src/README.md missing"; exit 1; }
n=$(wc -l < README.md)
[ "$n" -le $max ] ||
	problem "README.md: $n lines, more than $max: move the rest to docs/"

# anchors FILE: the #fragments GitHub gives FILE's headings, one a line:
# lower case, ASCII punctuation but - and _ dropped, spaces as -, and -1,
# -2 ... after a repeated one. Lines in ``` blocks are not headings.
anchors() {
	LC_ALL=C awk '
	/^```/ { code = !code; next }
	code || !/^#+ / { next }
	{
		h = tolower($0); sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
		s = ""
		for (i = 1; i <= length(h); i++) {
			c = substr(h, i, 1)
			if (c ~ /[a-z0-9_-]/ || c > "~") s = s c
			else if (c == " ") s = s "-"
		}
		print (seen[s]++ ? s "-" seen[s] - 1 : s)
	}' "$1"
}

# refs FILE: "LINE<TAB>KIND<TAB>TARGET" for each inline link (KIND link),
# reference definition (link) and backquoted span (code) outside ```
# blocks and indented code.
refs() {
	LC_ALL=C awk '
	/^```/ { code = !code; next }
	code || /^    / { next }
	{
		line = $0
		if (match(line, /^ ? ? ?\[[^]]+\]: *[^ ]+/)) {
			t = substr(line, RSTART, RLENGTH); sub(/^[^]]*\]: */, "", t)
			print FNR "\tlink\t" t
		}
		rest = line
		while (match(rest, /\]\([^) ]+\)/)) {
			print FNR "\tlink\t" substr(rest, RSTART + 2, RLENGTH - 3)
			rest = substr(rest, RSTART + RLENGTH)
		}
		rest = line
		while (match(rest, /`[^`]+`/)) {
			print FNR "\tcode\t" substr(rest, RSTART + 1, RLENGTH - 2)
			rest = substr(rest, RSTART + RLENGTH)
		}
	}' "$1"
}

# The tree's top folders: a backquoted path starting with one is checked.
tree='^(common|gadgetd|functions|profiles|udev|tests|man|debian|docs|\.ci)/[A-Za-z0-9_./-]*$'

for f in README.md docs/*.md; do
	[ -f "$f" ] || continue
	dir=$(dirname "$f")
	refs "$f" > "$tmp/refs"
	while IFS="$(printf '\t')" read -r line kind target; do
		if [ "$kind" = code ]; then
			printf '%s\n' "$target" | grep -Eq "$tree" || continue
			[ -e "$target" ] ||
				problem "$f:$line: \`$target\` does not exist"
			continue
		fi
		case $target in
		[a-zA-Z]*:*) continue ;;	# http:, https:, mailto:
		esac
		path=${target%%#*}
		frag=
		case $target in *#*) frag=${target#*#} ;; esac
		case $path in
		'') to=$f ;;
		/*) to=${path#/} ;;
		*) if [ "$dir" = . ]; then to=$path; else to=$dir/$path; fi ;;
		esac
		if [ ! -e "$to" ]; then
			problem "$f:$line: link to $target: $to does not exist"
		elif [ -n "$frag" ]; then
			case $to in
			*.md)
				anchors "$to" | grep -Fxq -- "$frag" ||
					problem "$f:$line: link to $target: $to has no heading #$frag"
				;;
			esac
		fi
	done < "$tmp/refs"
done

if [ -n "$ctl" ]; then
	LC_ALL=C awk -v dir="$tmp" '
	/^```conf *$/ { n++; out = dir "/example" n ".conf"; start[n] = FNR; next }
	/^```/ { out = ""; next }
	out != "" { print > out }
	END { for (i = 1; i <= n; i++) print i, start[i] > (dir "/examples") }' README.md
	if [ ! -s "$tmp/examples" ]; then
		problem "README.md: no \`\`\`conf block (the profile example)"
	else
		while read -r i start; do
			"$ctl" check "$tmp/example$i.conf" > "$tmp/check.out" 2>&1 ||
				problem "README.md:$start: the profile example fails gadgetctl check:" \
					"$(cat "$tmp/check.out")"
		done < "$tmp/examples"
	fi
fi

[ $bad = 0 ] || exit 1
echo "readme: README.md $n lines (at most $max), links and paths in README.md and docs/ resolve${ctl:+, the profile example passes gadgetctl check}"
