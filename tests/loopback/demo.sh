#!/bin/sh
# make demo: boot the test bed, start gadgetd with the shipped profiles,
# `gadgetctl switch mtp,adb`, and show what the host side sees.
set -u
bed=${1:?usage: demo.sh BEDDIR OUTDIR}
out=${2:?usage: demo.sh BEDDIR OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
echo "demo: booting Debian's kernel under QEMU (about 10 s)..." >&2
"$src/tests/vm/run.sh" "$bed" "$out" 300 "SRC=$src B=$src/build sh $here/demo-guest.sh" |
	tr -d '\r' | sed -n '/GADGETD-BED: running/,$p' | grep -v 'GADGETD-BED\|^\[ *[0-9.]*\]'
exit "$(sed -n 's/^GADGETD-EXIT=\([0-9]*\).*/\1/p' "$out/console.log" | tail -n1 | grep . || echo 1)"
