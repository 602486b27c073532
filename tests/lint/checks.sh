#!/bin/sh
# make lint (part of make unit and make check): the test scripts'
# checks must count. tests/lint/lostcheck.py reports a `check` whose
# result is thrown away: `check ... && cmd` or `check ... || cmd` (cmd
# runs outside check), and a check in a pipeline or another subshell
# (its count and failure stay in the subshell).
# First a self-test on tests/lint/fixtures: each line marked `# LOST`
# (or the line after one marked `# LOST-NEXT`) must be reported and no
# other; clean*.sh must give nothing. Then every tests/**/*.sh.
#   tests/lint/checks.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
lint=tests/lint/lostcheck.py
fix=tests/lint/fixtures
bad=0

# The self-test: the lines each fixture must have reported, against the
# lines it had reported.
for f in "$fix"/*.sh; do
	want=$(awk '/# LOST-NEXT/ { print NR + 1; next } /# LOST/ { print NR }' "$f" | sort -n | tr '\n' ' ')
	got=$(python3 "$lint" "$f" | cut -d: -f2 | sort -n | uniq | tr '\n' ' ')
	case $f in
	"$fix"/clean*) [ -z "$want" ] || { echo "lint: $f: a clean fixture marks lines"; bad=1; } ;;
	*) [ -n "$want" ] || { echo "lint: $f: no line marked # LOST"; bad=1; } ;;
	esac
	if [ "$got" = "$want" ]; then
		echo "lint self-test: $f: ok (lines reported: ${got:-none})"
	else
		echo "lint self-test: $f: FAILED: reported lines: ${got:-none}; marked: ${want:-none}"
		python3 "$lint" "$f"
		bad=1
	fi
done

files=$(find tests -name '*.sh' ! -path "$fix/*" | sort)
if python3 "$lint" $files; then
	echo "lint: $(echo "$files" | wc -l) test scripts: every check counts"
else
	echo "lint: the checks above lose their result (see tests/lint/lostcheck.py)"
	bad=1
fi
exit $bad
