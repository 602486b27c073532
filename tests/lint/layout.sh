#!/bin/sh
# The product tree's layout rules (issue 22), on the product's C sources
# (common/, gadgetd/, functions/):
#   - no #include "../...": each part reaches shared code by a plain -I;
#   - no .c file over 1000 lines: a file that big holds more than one job.
#   tests/lint/layout.sh TREE
# Prints each offence with file and line; exits 1 if there is one.
set -eu
tree=${1:-.}
bad=0
max=1000

for f in $(cd "$tree" && find common gadgetd functions -name '*.[ch]' | sort); do
	if grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./' "$tree/$f" >/dev/null; then
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./' "$tree/$f" |
			sed "s|^|layout: $f:|; s|\$| (an include that climbs out of its folder)|"
		bad=1
	fi
	case $f in
	*.c)
		n=$(wc -l < "$tree/$f")
		if [ "$n" -gt "$max" ]; then
			echo "layout: $f: $n lines, more than $max (split it by job)"
			bad=1
		fi
		;;
	esac
done
[ $bad = 0 ] && echo "layout: no ../ include, no product .c over $max lines"
exit $bad
