#!/bin/sh
# docs/layout.md, the map of the tree, names only what exists and leaves
# no source folder out (issue 38: it had named a protocol.c long gone and
# missed six newer parts).
#   tests/lint/layout-doc.sh [TREE]
# Fails, printing docs/layout.md:LINE and the reason for each problem, when
# the page names something the tree does not hold:
# - a path: a backquoted token with a /, from the top of the tree
#   (`common/loop.c`, `tests/unit/`);
# - a file: a backquoted name alone with a file's extension (.c .h .mk
#   .map .sh .py .awk .service .rules .conf .xml .policy .md .network
#   .nmconnection .bash-completion, or a man page's .1 to .9), which must
#   be in or below a folder that its item (a list item or a paragraph)
#   names as `FOLDER/`, or at the top of the tree if the item names none;
# - a man page, NAME(N), which must be man/NAME.N;
# - a relative link.
# A * in a path or name matches within one name, and must match something.
# What starts with / (where things are installed), - (a flag) or ../ is
# not the tree's, and a token with other characters (a space, a comma, a
# quote) is code, not a name: neither is checked.
# It also fails, naming the folder, when a source folder is not named as
# `FOLDER/`: every folder that holds .c or .h files, and every top-level
# folder.
# The tree is what git ls-files lists, or where git cannot say (the Debian
# package's copy of the tree has no .git) the files under TREE but build/
# and .git/.
# tests/lint/layout-doc-selftest.sh shows each of these failing.
set -eu
tree=${1:-.}
doc=docs/layout.md
cd "$tree"
[ -f "$doc" ] || { echo "layout-doc: $tree/$doc missing"; exit 1; }
{
	[ -e .git ] && git -c core.quotepath=off ls-files 2>/dev/null ||
		find . -path ./.git -prune -o -path ./build -prune -o -type f -print
} | LC_ALL=C awk -v doc="$doc" '
function problem(line, what) {
	printf "layout-doc: %s:%d: %s\n", doc, line, what
	bad = 1
}
# glob: a * of a name as a regular expression (a token holds no other
# character that means something to one but . and +).
function glob(s) {
	gsub(/\./, "[.]", s); gsub(/\+/, "[+]", s); gsub(/\*/, "[^/]*", s)
	return "^" s "$"
}
# exists(p): p (a file, or a folder ending in /) is in the tree.
function exists(p,    re, f) {
	if (p !~ /\*/)
		return (p in have) || (p in dirs)
	re = glob(p)
	for (f in have) if (f ~ re) return 1
	for (f in dirs) if (f ~ re) return 1
	return 0
}
# below(name, d): a file called name (a * allowed) is in or below folder d
# ("" for the top, and then only there).
function below(name, d,    re, f) {
	re = glob(name)
	for (f in have) {
		if (d == "" && f ~ /\//) continue
		if (substr(f, 1, length(d)) != d) continue
		if (base[f] ~ re) return 1
	}
	return 0
}
# The tokens of an item, checked once the item has ended (its folders are
# known then).
function flush(    i, t, n, d, where, found) {
	for (i = 1; i <= ntok; i++) {
		t = tok[i]
		if (t !~ /^[A-Za-z0-9_.*+\/-]+$/ || t ~ /^([\/-]|\.\.\/)/) continue
		if (t ~ /\//) {
			checked++
			if (!exists(t)) problem(tokline[i], "`" t "` does not exist")
			continue
		}
		if (t !~ /[^.]\.(c|h|mk|map|sh|py|awk|service|rules|conf|xml|policy|md|network|nmconnection|bash-completion|[1-9])$/)
			continue
		checked++
		found = 0; where = ""; n = 0
		for (d in itemdir) {
			n++
			where = where (where == "" ? "" : ", ") d
			if (below(t, d)) found = 1
		}
		if (n == 0 && below(t, "")) found = 1
		if (found) continue
		if (n == 0)
			problem(tokline[i], "`" t "` is not at the top of the tree (its item names no folder)")
		else
			problem(tokline[i], "`" t "` is in none of the folders its item names (" where ")")
	}
	ntok = 0
	split("", itemdir)
}
# norm(p): p with its . and .. steps resolved ("" if it climbs out).
function norm(p,    n, part, out, i, k) {
	n = split(p, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".") continue
		if (part[i] == "..") { if (k == 0) return ""; k--; continue }
		out[++k] = part[i]
	}
	p = ""
	for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
	return p
}

# The tree: its files, its folders, its source folders (each with its
# first file, for the message).
FILENAME == "-" {
	sub(/^\.\//, "")
	have[$0] = 1
	b = $0; sub(/.*\//, "", b); base[$0] = b
	p = $0
	while (sub(/\/[^\/]*$/, "", p)) dirs[p "/"] = 1
	if ($0 ~ /\.[ch]$/ && $0 ~ /\//) {
		d = $0; sub(/[^\/]*$/, "", d)
		if (!(d in src) || $0 < src[d]) src[d] = $0
	}
	if ($0 ~ /\//) {
		d = $0; sub(/\/.*/, "/", d)
		if (!(d in src) || $0 < src[d]) src[d] = $0
	}
	next
}

# The page.
/^[ \t]*```/ { flush(); code = !code; next }
code { next }
/^[ \t]*$/ { flush(); next }
/^[ \t]*([-*+]|[0-9]+[.)])[ \t]/ || /^#/ { flush() }
{
	rest = $0
	while (match(rest, /`[^`]+`/)) {
		t = substr(rest, RSTART + 1, RLENGTH - 2)
		rest = substr(rest, RSTART + RLENGTH)
		tok[++ntok] = t; tokline[ntok] = FNR
		if (t ~ /^[A-Za-z0-9_.*+\/-]+\/$/ && t !~ /^([\/-]|\.\.\/)/) {
			itemdir[t] = 1
			named[t] = 1
		}
	}
	rest = $0
	while (match(rest, /[A-Za-z][A-Za-z0-9_.-]*\([1-9]\)/)) {
		t = substr(rest, RSTART, RLENGTH)
		rest = substr(rest, RSTART + RLENGTH)
		m = t; sub(/\(/, ".", m); sub(/\)$/, "", m)
		checked++
		if (!(("man/" m) in have)) problem(FNR, t ": there is no man/" m)
	}
	rest = $0
	while (match(rest, /\]\([^) ]+\)/)) {
		t = substr(rest, RSTART + 2, RLENGTH - 3)
		rest = substr(rest, RSTART + RLENGTH)
		if (t ~ /^[A-Za-z][A-Za-z0-9+.-]*:/) continue
		p = t; sub(/#.*/, "", p)
		if (p == "") continue
		checked++
		dir = doc; sub(/[^\/]*$/, "", dir)
		to = (p ~ /^\//) ? norm(p) : norm(dir p)
		if (to == "" || !((to in have) || ((to "/") in dirs)))
			problem(FNR, "link to " t ": " (to == "" ? p : to) " does not exist")
	}
}
END {
	flush()
	fflush()
	nsrc = 0
	for (d in src) {
		nsrc++
		if (!(d in named)) {
			printf "layout-doc: %s: source folder %s (it holds %s) is not described: no `%s`\n", doc, d, src[d], d | "sort"
			bad = 1
		}
	}
	close("sort")
	if (!bad)
		printf "layout-doc: %s: the %d paths, files, man pages and links it names exist; it names all %d source folders\n", doc, checked, nsrc
	exit bad ? 1 : 0
}' - "$doc"
