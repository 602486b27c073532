# Virtual media through gadgetd: an image inserted with `gadgetctl
# storage insert` into a removable LUN, written and read from the host
# side with 64 MiB O_DIRECT, as b-ceiling measures the kernel's
# mass_storage composed by hand in the same VM (the ceiling, and the
# bound: gadgetd only composes the function and names its file).
# Prints BENCH lines.
. "$SRC/tests/loopback/lib.sh"
gd_install
MEDIA=/srv/gadgetd/media
mkdir -p "$MEDIA"
truncate -s 80M "$MEDIA/bench.img"
cat > /etc/gadgetd/profiles/media.conf <<EOC
gadget: { vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "media bench"; serial = "MEDIA2"; }; };
functions: {
  media: { type = "mass_storage"; removable = true; media_dir = "$MEDIA"; };
};
sets = ( { functions = [ "media" ]; product_id = 0x0131; } );
default = "media";
EOC
chmod 644 /etc/gadgetd/profiles/media.conf
gd_start media
wait_usb 1d6b:0131 20 || die "the media gadget not seen"
timeout 10 gadgetctl storage insert bench.img || die "storage insert"
dev=$(host_blk 0) || die "no host block device for the media gadget"
# The first access after the media change meets the unit attention.
n=0
until timeout 10 dd if="$dev" of=/dev/null bs=512 count=1 iflag=direct 2>/dev/null; do
	n=$((n + 1)); [ $n -lt 30 ] || die "the host cannot read the inserted image"; sleep 0.2
done
blk_rates storage "$dev"
gd_stop
