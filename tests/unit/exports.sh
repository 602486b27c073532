#!/bin/sh
# The dynamic exports of the plugins and of gadgetd-worker, against what
# plugin.h declares: a plugin exports gadgetd_plugin alone; the worker
# plugin_*, loop_* and log_* (functions/runtime/plugin.map, functions/runtime/worker.map).
#   tests/unit/exports.sh BUILD_DIR
# Prints each binary's count and every symbol outside its list; exits 1
# if there is one.
set -eu
b=${1:-build}
bad=0

# check FILE ALLOWED_REGEX
check() {
	# NAME@VERSION is a library's data copied into an executable (stdout,
	# optarg): the library's export, not ours.
	syms=$(nm -D --defined-only "$1" | awk '$3 !~ /@/ { print $3 }')
	n=$(printf '%s\n' "$syms" | grep -c . || true)
	extra=$(printf '%s\n' "$syms" | grep -Ev "^($2)\$" || true)
	echo "exports: $1: $n symbols"
	if [ -n "$extra" ]; then
		printf '  not declared: %s\n' $extra
		bad=1
	fi
}

for so in "$b"/plugins/*.so; do
	check "$so" 'gadgetd_plugin'
done
# _IO_stdin_used: glibc's crt1 marks the executable's stdio ABI with it.
check "$b/gadgetd-worker" '(plugin|loop|log)_[a-z0-9_]+|_IO_stdin_used'
[ $bad = 0 ] || { echo "exports: undeclared symbols exported (see above)"; exit 1; }
