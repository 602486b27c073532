# expect.sh: the checks of a lint's self-test, sourced by it
# (tests/lint/layout-doc-selftest.sh, tests/unit/readme-selftest.sh).
# The self-test defines run(), which runs the lint on its fixture and
# sets $out (what it printed) and $rc (its exit status), and sets fail=0.
#
# expect WHAT PATTERN: the lint fails (exit 1) and says PATTERN.
# expect_ok WHAT: the lint passes.
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
