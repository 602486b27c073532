# expect.sh: the checks of a lint's self-test, sourced by it first thing
# (tests/lint/layout-doc-selftest.sh, tests/lint/plugin-names-selftest.sh,
# tests/unit/readme-selftest.sh). It makes $t, a temporary folder gone at
# exit, for the fixtures, and sets fail=0. The self-test then defines
# run(), which runs the lint on its fixture and sets $out (what it
# printed) and $rc (its exit status), and exits $fail at the end.
#
# expect WHAT PATTERN: the lint fails (exit 1) and says PATTERN.
# expect_ok WHAT: the lint passes.
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0

expect() {
	run
	if [ $rc = 1 ] && printf '%s\n' "$out" | grep -Fq -- "$2"; then
		echo "ok: $1"
	else
		echo "FAIL: $1 (exit $rc, wanted 1 and \"$2\"):"
		printf '%s\n' "$out"
		fail=1
	fi
}
expect_ok() {
	run
	if [ $rc = 0 ]; then
		echo "ok: $1"
	else
		echo "FAIL: $1 (exit $rc):"
		printf '%s\n' "$out"
		fail=1
	fi
}
