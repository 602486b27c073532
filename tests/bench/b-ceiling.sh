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
blk_rates ceiling "$dev"
cfs_teardown ceiling
