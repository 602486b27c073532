#!/bin/sh
# First process of the arm64 bed after switch_root (see mkbed-arm64.sh):
# like guest-init, but the root is the arm64 userland, the modules are in
# it, and this tree comes over its own 9p share at the path it has on the
# host. Runs the script named on the kernel command line, reports its exit
# code, powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts -o ptmxmode=0666,newinstance devpts /dev/pts 2>/dev/null
ln -sf /dev/pts/ptmx /dev/ptmx 2>/dev/null
mount -t tmpfs tmpfs /dev/shm
arg() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
src=$(arg gadgetd.src)
mkdir -p "$src" /mnt/out
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 src "$src"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 out /mnt/out
modprobe configfs
mount -t configfs none /sys/kernel/config
ip link set lo up
echo gadgetd-arm64 > /proc/sys/kernel/hostname
# No postinst ran in this root: the linker cache, where pyusb's
# find_library looks for libusb, is made here unless mkbed-arm64.sh made
# it (with qemu-user, much faster).
[ -s /etc/ld.so.cache ] || ldconfig
script=$(arg gadgetd.script | sed 's/\\x20/ /g')
echo "GADGETD-BED: running $script"
rc=125
if [ -n "$script" ]; then
	cd /mnt/out
	sh -c "$script" </dev/null
	rc=$?
fi
sync
echo "GADGETD-EXIT=$rc"
echo o > /proc/sysrq-trigger
sleep 30
