#!/bin/sh
# The product tree's layout rules (issues 22 and 38), on the product's C
# sources (common/, gadgetd/, functions/):
#   - no #include "../...": each part reaches shared code by a plain -I;
#   - each #include "x.h" names a header of the file's own folder or of a
#     folder that the folder's row of the table below allows: a folder
#     imports only downward;
#   - no .c file over 1000 lines: a file that big holds more than one job.
#   tests/lint/layout.sh TREE
# Prints each offence with file and line; exits 1 if there is one.
#   tests/lint/layout.sh --incs TREE
# Prints, for each product folder, FOLDER=-IFOLDER,-IA,... (no trailing
# /): the Makefile's incs_of gives a file of FOLDER those -I flags, the
# folders its row allows and theirs in turn (a header it includes
# includes what its own folder may), and those of its exceptions.
# tests/lint/layout-selftest.sh shows each rule failing, on this table
# and on its own (LAYOUT_FLOORS and LAYOUT_EXCEPTIONS, for it alone,
# replace the two below).
set -eu

# The table: FOLDER/: the folders whose headers its files may include,
# besides its own; a line that starts with a tab goes on with the row
# above. A * matches one name; a folder's own row wins over one with a
# *. A header's folder is the one that holds it (each header name is
# held once in the product tree).
#
# gadgetd/'s floors, bottom up (docs/layout.md): common/; profile/;
# model/; supervisor/, net/ and storage/; console/ (on net/); gadget/; front/; gadgetd/
# itself, its top (gadgetd.c, notify). cli/ sits on common/, profile/
# and model/.
floors='
common/:
gadgetd/profile/: common/
gadgetd/model/: gadgetd/profile/ common/
gadgetd/supervisor/: gadgetd/model/ gadgetd/profile/ common/
gadgetd/net/: gadgetd/model/ gadgetd/profile/ common/
gadgetd/storage/: gadgetd/model/ gadgetd/profile/ common/
gadgetd/console/: gadgetd/net/ gadgetd/model/ gadgetd/profile/ common/
gadgetd/gadget/: gadgetd/console/ gadgetd/supervisor/ gadgetd/net/ gadgetd/storage/
	gadgetd/model/ gadgetd/profile/ common/
gadgetd/front/: gadgetd/gadget/ gadgetd/console/ gadgetd/supervisor/ gadgetd/net/
	gadgetd/storage/ gadgetd/model/ gadgetd/profile/ common/
gadgetd/cli/: gadgetd/model/ gadgetd/profile/ common/
gadgetd/: gadgetd/front/ gadgetd/gadget/ gadgetd/console/ gadgetd/supervisor/ gadgetd/net/
	gadgetd/storage/ gadgetd/model/ gadgetd/profile/ common/
functions/runtime/: common/
functions/ptp/: functions/mtp/ functions/runtime/ common/
functions/*/: functions/runtime/ common/
'
# Includes that climb anyway, one by one: FILE HEADER, each with why. An
# exception that names no include, or one the table allows already,
# fails too.
exceptions='
'

floors=${LAYOUT_FLOORS-$floors}
exceptions=${LAYOUT_EXCEPTIONS-$exceptions}
incs=no
if [ "${1:-}" = --incs ]; then
	incs=yes
	shift
fi
tree=${1:-.}
cd "$tree"
files=$(find common gadgetd functions -name '*.[ch]' | sort)
{
	echo "$files" | sed 's/^/F /'
	# FILE:LINE:TEXT of each quoted include
	echo "$files" | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null |
		sed 's/^/I /' || :
	# NAME and line count of each .c file
	echo "$files" | grep '\.c$' | xargs wc -l | awk '$2 != "total" { print "N", $2, $1 }'
} | FLOORS=$floors EXCEPTIONS=$exceptions LC_ALL=C awk -v incs=$incs -v max=1000 '
function dirof(f) {
	sub(/[^\/]*$/, "", f)
	return f
}
function baseof(f) {
	sub(/.*\//, "", f)
	return f
}
# row(d): the key of the table row of folder d, "" if none.
function row(d,    k, re) {
	if (d in allow) return d
	for (k in allow) {
		if (k !~ /\*/) continue
		re = k; gsub(/\*/, "[^/]*", re); re = "^" re "$"
		if (d ~ re) return k
	}
	return ""
}
# problem(s): an offence, printed by the lint (not by --incs, whose
# output the Makefile reads: make lint reports them).
function problem(s) {
	if (incs != "yes") print "layout: " s
	bad = 1
}
BEGIN {
	n = split(ENVIRON["FLOORS"], line, "\n")
	for (i = 1; i <= n; i++) {
		if (line[i] ~ /^[ \t]*(#|$)/) continue
		if (line[i] ~ /^[ \t]/) {
			v = line[i]; sub(/^[ \t]+/, "", v)
			allow[k] = allow[k] " " v
			continue
		}
		k = line[i]; sub(/:.*/, "", k)
		v = line[i]; sub(/^[^:]*:[ \t]*/, "", v)
		allow[k] = v
	}
	n = split(ENVIRON["EXCEPTIONS"], line, "\n")
	for (i = 1; i <= n; i++) {
		if (line[i] ~ /^[ \t]*(#|$)/) continue
		split(line[i], w, " ")
		exc[w[1] " " w[2]] = 1
	}
}
$1 == "F" {
	f = $2
	if (f ~ /\.h$/) hdir[baseof(f)] = dirof(f)
	d = dirof(f)
	if (!(d in folder)) { folder[d] = 1; first[d] = f }
	next
}
$1 == "N" {
	if ($3 > max) problem($2 ": " $3 " lines, more than " max " (split it by job)")
	next
}
$1 == "I" {
	s = $0; sub(/^I /, "", s)
	split(s, p, ":")
	f = p[1]; ln = p[2]
	h = s; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
	nin++; inf[nin] = f; inl[nin] = ln; inh[nin] = h
	next
}
END {
	for (d in folder) {
		k = row(d)
		if (k == "") { problem(first[d] ": its folder " d " has no row in the table of tests/lint/layout.sh"); continue }
		rowof[d] = k
	}
	for (i = 1; i <= nin; i++) {
		f = inf[i]; h = inh[i]; d = dirof(f)
		if (h ~ /^\.\.\//) {
			problem(f ":" inl[i] ": #include \"" h "\" (an include that climbs out of its folder)")
			continue
		}
		if (!(h in hdir)) {
			problem(f ":" inl[i] ": #include \"" h "\": no product folder holds " h)
			continue
		}
		hd = hdir[h]
		if (hd == d || !(d in rowof)) continue
		ok = 0
		m = split(allow[rowof[d]], a, " ")
		for (j = 1; j <= m; j++) if (a[j] == hd) ok = 1
		if (ok && ((f " " h) in exc)) {
			problem("exception " f " " h ": the table allows it already (remove the exception)")
			used[f " " h] = 1
			continue
		}
		if (ok) continue
		if ((f " " h) in exc) {
			used[f " " h] = 1
			excdir[d] = excdir[d] " " hd
			continue
		}
		problem(f ":" inl[i] ": #include \"" h "\" is in " hd ", and " d " may include from " \
			(allow[rowof[d]] == "" ? "no other folder" : allow[rowof[d]]) \
			" (its row " rowof[d] " of the table in tests/lint/layout.sh)")
	}
	for (e in exc)
		if (!(e in used)) problem("exception " e ": no such include (remove the exception)")
	if (incs == "yes") {
		for (d in rowof) {
			# the closure of d: its row and exceptions, and theirs
			split("", seen); q[1] = d; nq = 1; seen[d] = 1; out = ""
			for (j = 1; j <= nq; j++) {
				x = q[j]
				o = x; sub(/\/$/, "", o)
				out = out (out == "" ? "" : ",") "-I" o
				if (!(x in rowof)) continue
				m = split(allow[rowof[x]] excdir[x], a, " ")
				for (l = 1; l <= m; l++)
					if (!(a[l] in seen)) { seen[a[l]] = 1; q[++nq] = a[l] }
			}
			o = d; sub(/\/$/, "", o)
			print o "=" out
		}
		exit bad
	}
	if (!bad) print "layout: every include goes down the table, no product .c over " max " lines"
	exit bad
}'
