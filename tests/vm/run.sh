#!/bin/sh
# Boot the loopback test bed under QEMU (TCG) and run one command in it.
# Usage: run.sh BEDDIR OUTDIR TIMEOUT COMMAND...
# The guest sees this machine's root read-only (with a tmpfs overlay), the
# bed's kernel modules, and OUTDIR writable as its working directory
# /mnt/out. The exit code is the guest command's; 124 on time-out, 125 when
# the bed did not come up.
# GADGETD_VM_CPU overrides the CPU model, GADGETD_VM_ACCEL the accelerator
# (tcg,thread=single ran t-adb and t-mtp within 5 % of the default, a
# loaded machine, 2026-12-05), GADGETD_VM_APPEND adds to the
# kernel command line (both for experiments), GADGETD_VM_SMP the vCPUs.
#
# One vCPU by default, so that run-suite.sh can run one VM per host CPU.
# Under multi-threaded TCG, vCPU threads wait for each other (TLB
# flushes, exclusive sections), so two 2-vCPU VMs on two CPUs ran every
# test more than twice as long; two 1-vCPU VMs ran each test about as
# long as one 2-vCPU VM alone (7 tests, 2026-12-05, same machine: 369 s
# one after the other at 2 vCPUs, 215 s two at a time at 1 vCPU).
#
# The CPU model hides ERMS and FSRM. With them the guest kernel copies with
# "rep movsb", which TCG runs a byte at a time: copy_to_user ran at about
# 330 MB/s and clear_user at 510 MB/s, against 850 MB/s and 2 GB/s
# without them, while user-space memcpy stays at about 2.4 GB/s either
# way. On a real board copying is far faster than a USB 2.0 bus; without
# ERMS the bed is closer to that, and every test runs faster.
#
# GADGETD_VM_PID1=systemd boots Debian's systemd as PID 1
# (tests/vm/bed-systemd), which runs the command from a unit once
# multi-user.target is up. GADGETD_VM_DISK=1 puts the overlay's upper
# layer on a disk image (OUTDIR/disk.img, made anew) instead of a tmpfs,
# so that it outlives a reboot: when the guest asks for one (bed_reboot
# in tests/loopback/lib.sh leaves OUTDIR/.bed-reboot), QEMU exits and the
# bed boots again from the same disk, up to 4 boots within TIMEOUT.
set -u
bed=$(cd "${1:?usage: run.sh BEDDIR OUTDIR TIMEOUT COMMAND...}" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
tmo=$3
shift 3
cmd=$(printf '%s' "$*" | sed 's/ /\\x20/g')
log="$out/console.log"
here=$(cd "$(dirname "$0")" && pwd)
# no_timer_check: at boot the kernel counts on the timer's interrupt
# arriving within a few loops and panics when it does not ("IO-APIC +
# timer doesn't work!"); under TCG on a loaded host the vCPU thread can
# be off the CPU for all of them: t-storage's boot died so, 0.07 s in, at
# a load of 16 (2026-12-07).
append="console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check ${GADGETD_VM_APPEND:-} gadgetd.init=$here/guest-init gadgetd.bed=$bed"
drive=
# A bed with a root of its own (BEDDIR/root, tests/vm/mkbed-trixie.sh):
# the guest's root is that, and this tree comes over a share of its own
# at the path it has here, where the tests, the bed's kernel and OUTDIR
# (when it is in the tree) are.
root=/ share=
if [ -d "$bed/root" ]; then
	root=$bed/root
	src=$(cd "$here/../.." && pwd)
	share="-virtfs local,path=$src,mount_tag=src,security_model=none,readonly=on,multidevs=remap"
	append="$append gadgetd.src=$src"
fi
if [ "${GADGETD_VM_PID1:-}" = systemd ]; then
	append="$append gadgetd.pid1=systemd"
fi
if [ "${GADGETD_VM_DISK:-}" = 1 ]; then
	rm -f "$out/disk.img"
	truncate -s 4G "$out/disk.img" &&
		mkfs.ext4 -q -F -E lazy_itable_init=1,nodiscard "$out/disk.img" ||
		{ echo "run.sh: cannot make $out/disk.img (mkfs.ext4, package e2fsprogs)" >&2; exit 125; }
	drive="-drive file=$out/disk.img,format=raw,if=virtio,cache=unsafe"
	append="$append gadgetd.disk=1"
fi
rm -f "$out/.bed-reboot" "$log"
deadline=$(($(date +%s) + tmo))
boot=1
while :; do
	left=$((deadline - $(date +%s)))
	[ $left -gt 0 ] || left=1
	# shellcheck disable=SC2086
	timeout -k 5 "$left" qemu-system-x86_64 -accel ${GADGETD_VM_ACCEL:-tcg,thread=multi} -cpu ${GADGETD_VM_CPU:-max,-erms,-fsrm} -m 3072 -smp ${GADGETD_VM_SMP:-1} \
		-nographic -no-reboot -net none \
		-kernel "$bed/vmlinux" -initrd "$bed/initrd" $drive \
		-virtfs local,path="$root",mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap $share \
		-virtfs local,path="$out",mount_tag=out,security_model=none,multidevs=remap \
		-append "$append gadgetd.boot=$boot gadgetd.script=$cmd" \
		</dev/null 2>&1 | tee -a "$log" | grep --line-buffered -v '^GADGETD-EXIT='
	st=$?
	[ -e "$out/.bed-reboot" ] && [ -n "$drive" ] && [ $boot -lt 4 ] || break
	rm -f "$out/.bed-reboot"
	boot=$((boot + 1))
	echo "run.sh: the guest rebooted: boot $boot" | tee -a "$log" >&2
done
rm -f "$out/disk.img"
# The CPU time QEMU used (user + system, s), beside the wall time
# run-suite.sh prints: how much of a test is waiting rather than work.
# (times is a builtin: in a pipeline it would run in a child that has
# waited for nothing.)
times > "$out/times"
awk 'NR == 2 { split($1, u, "m"); split($2, s, "m"); printf "%.0f\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$out/times" > "$out/cpu"
rc=$(sed -n 's/^GADGETD-EXIT=\([0-9]*\).*/\1/p' "$log" | tail -n1)
if [ -z "$rc" ]; then
	if grep -q 'GADGETD-BED: running' "$log"; then
		echo "run.sh: the guest did not finish within ${tmo}s" >&2
		exit 124
	fi
	echo "run.sh: the test bed did not boot (see $log)" >&2
	exit 125
fi
exit "$rc"
