#!/bin/sh
# make demo: boot the test bed with Debian's systemd as PID 1, install the
# Debian package (postinst starts gadgetd.service on the shipped
# profiles), `gadgetctl switch mtp,adb`, and show what the host side sees.
set -u
bed=${1:?usage: demo.sh BEDDIR OUTDIR}
out=${2:?usage: demo.sh BEDDIR OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
rm -rf "$out"
mkdir -p "$out"
echo "demo: booting Debian's kernel and systemd under QEMU (about 30 s), then dpkg -i the package..." >&2
GADGETD_VM_PID1=systemd "$src/tests/vm/run.sh" "$bed" "$out" 400 "SRC=$src B=$src/build sh $here/demo-guest.sh" |
	tr -d '\r' | sed -n '/GADGETD-BED: running/,$p' | grep -av "GADGETD-BED\|^\[ *[0-9.]*\]"
exit "$(sed -n 's/^GADGETD-EXIT=\([0-9]*\).*/\1/p' "$out/console.log" | tail -n1 | grep . || echo 1)"
