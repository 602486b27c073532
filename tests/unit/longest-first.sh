#!/bin/sh
# longest-first.sh PATH...: the PATHs one a line, those whose file name
# tests/unit/long-tests lists first (in its order), then the rest in the
# order given. make unit (run-units.sh) and check-cross.sh start their
# tests in this order, so that the last ones to start are short.
long=$(grep -v '^#' "$(dirname "$0")/long-tests")
for l in $long; do
	for t in "$@"; do
		[ "${t##*/}" = "$l" ] && echo "$t"
	done
done
longs=" $(echo $long) "
for t in "$@"; do
	case $longs in *" ${t##*/} "*) ;; *) echo "$t" ;; esac
done
exit 0
