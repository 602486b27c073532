# The bus ceiling on this bed: the kernel's mass_storage function, 64 MiB
# O_DIRECT reads and writes from the host side. Prints BENCH lines.
. "$SRC/tests/loopback/lib.sh"
gd_modules
img=/dev/shm/ceiling.img
truncate -s 80M "$img"
cfs_gadget -p ceiling ceiling 1d6b 01ff mass_storage.ms || die "configfs"
echo "$img" > $CFS/ceiling/functions/mass_storage.ms/lun.0/file || die "lun.0/file"
cfs_bind ceiling || die "bind"
wait_usb 1d6b:01ff 20 || die "mass_storage gadget not seen"
dev=$(host_blk 0) || die "no host block device for the mass_storage gadget"
mbps() { awk -v b="$1" -v ms="$2" 'BEGIN { printf "%.1f", b / 1e6 / (ms / 1000) }'; }
t0=$(date +%s%N)
timeout 120 dd if=/dev/zero of="$dev" bs=1M count=64 oflag=direct 2>/dev/null || die "dd write"
t1=$(date +%s%N)
timeout 120 dd if="$dev" of=/dev/null bs=1M count=64 iflag=direct 2>/dev/null || die "dd read"
t2=$(date +%s%N)
echo "BENCH ceiling_write_mbps $(mbps 67108864 $(((t1 - t0) / 1000000))) MB/s"
echo "BENCH ceiling_read_mbps $(mbps 67108864 $(((t2 - t1) / 1000000))) MB/s"
cfs_teardown ceiling
