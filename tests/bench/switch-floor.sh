#!/bin/sh
# The bare-kernel floor of a switch, for b-switch.sh: the lab profile's
# acm,ecm (0x0105) and ncm (0x0107) sets composed by writing ConfigFS
# directly, with what gadgetd writes (ids, strings, os_desc, MACs) and
# nothing else. Two ways, both cheaper than gadgetd's:
#
#   switch-floor.sh setup                 create the gadgets (none bound)
#   switch-floor.sh relink SET PID UDC    gadget "floor", which holds all
#       three functions: unbind, replace the config's links with SET's, new
#       idProduct, bind (gadgetd also removes the functions a set leaves
#       out and creates the ones it brings)
#   switch-floor.sh swap SET PID UDC      one gadget per set, composed once:
#       unbind the bound one, bind SET's; the least the kernel allows
#   switch-floor.sh teardown              unbind and remove them all
#
# relink starts one rm and one ln, swap nothing but this shell: on the TCG
# bed every process costs tens of milliseconds, hundreds under load, and
# the floor should not be made of them. Before the bind both write
# "floor: bind SET" to /dev/kmsg, so that the host side's share shows in
# the kernel's clock.
set -eu
GS=/sys/kernel/config/usb_gadget

# gadget NAME PID SET: a gadget with SET's functions linked (none if SET
# is "all": then acm, ecm and ncm are created, unlinked).
gadget() {
	g=$GS/$1 c=$GS/$1/configs/c.1 f=$GS/$1/functions
	mkdir "$g"
	echo 0x1d6b > "$g/idVendor"
	echo "$2" > "$g/idProduct"
	echo 0x0100 > "$g/bcdDevice"
	echo 64 > "$g/bMaxPacketSize0"
	mkdir "$g/strings/0x409"
	echo gadgetd > "$g/strings/0x409/manufacturer"
	echo "gadgetd development board" > "$g/strings/0x409/product"
	echo GADGETD0001 > "$g/strings/0x409/serialnumber"
	mkdir "$c" "$c/strings/0x409"
	echo gadgetd > "$c/strings/0x409/configuration"
	echo 0x80 > "$c/bmAttributes"
	echo 250 > "$c/MaxPower"
	echo 1 > "$g/os_desc/use"
	echo 0xcd > "$g/os_desc/b_vendor_code"
	echo MSFT100 > "$g/os_desc/qw_sign"
	ln -s "$c" "$g/os_desc/c.1"
	case $3 in
	acm,ecm|all)
		mkdir "$f/acm.acm" "$f/ecm.ecm"
		echo 02:00:00:00:00:01 > "$f/ecm.ecm/dev_addr"
		echo 02:00:00:00:00:02 > "$f/ecm.ecm/host_addr"
		;;
	esac
	case $3 in
	ncm|all)
		mkdir "$f/ncm.ncm"
		echo 02:00:00:00:00:03 > "$f/ncm.ncm/dev_addr"
		echo 02:00:00:00:00:04 > "$f/ncm.ncm/host_addr"
		;;
	esac
	case $3 in
	acm,ecm) ln -s "$f/acm.acm" "$f/ecm.ecm" "$c/" ;;
	ncm) ln -s "$f/ncm.ncm" "$c/" ;;
	esac
}

# unbind_all: every floor gadget off its UDC (builtins only).
unbind_all() {
	for u in "$GS"/floor*/UDC; do
		read -r udc < "$u" || udc=
		[ -z "$udc" ] || echo "" > "$u"
	done
}

case $1 in
setup)
	gadget floor 0x0105 all
	gadget floor_acm_ecm 0x0105 acm,ecm
	gadget floor_ncm 0x0107 ncm
	;;
relink)
	G=$GS/floor F=$GS/floor/functions C=$GS/floor/configs/c.1
	unbind_all
	old=
	for l in "$C"/*.*; do
		if [ -L "$l" ]; then old="$old $l"; fi
	done
	[ -z "$old" ] || rm $old
	echo "$3" > "$G/idProduct"
	new=
	rest=$2,
	while [ -n "$rest" ]; do
		f=${rest%%,*}
		rest=${rest#*,}
		new="$new $F/$f.$f"
	done
	ln -s $new "$C/"
	echo "floor: bind $2" > /dev/kmsg
	echo "$4" > "$G/UDC"
	;;
swap)
	unbind_all
	case $2 in
	acm,ecm) g=floor_acm_ecm ;;
	ncm) g=floor_ncm ;;
	*) echo "switch-floor.sh: no gadget for $2" >&2; exit 1 ;;
	esac
	echo "floor: bind $2" > /dev/kmsg
	echo "$4" > "$GS/$g/UDC"
	;;
teardown)
	unbind_all
	for g in "$GS"/floor*; do
		rm -f "$g/os_desc/c.1" "$g/configs/c.1"/*.*
		rmdir "$g/functions"/* "$g/configs/c.1/strings/0x409" "$g/configs/c.1" \
			"$g/strings/0x409" "$g"
	done
	;;
esac
