#!/bin/sh
# Runs one loopback test inside the guest (called by run-suite.sh).
set -u
t=$1
: "${SRC:?}" "${B:?}"
export SRC B
mkdir -p /mnt/out/scratch
cd /mnt/out/scratch || exit 1
exec sh "$SRC/tests/loopback/$t"
