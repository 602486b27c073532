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
. "$(dirname "$0")/../loopback/cfs.sh"
GS=$CFS

# gadget NAME PID SET: a gadget with SET's functions linked (none if SET
# is "all": then acm, ecm and ncm are created, unlinked).
gadget() {
	g=$GS/$1 c=$GS/$1/configs/c.1 f=$GS/$1/functions
	case $3 in
	acm,ecm) fs="acm.acm ecm.ecm" ;;
	ncm) fs=ncm.ncm ;;
	all) fs="acm.acm ecm.ecm ncm.ncm" ;;
	esac
	# shellcheck disable=SC2086
	cfs_gadget -u -m gadgetd -p "gadgetd development board" -s GADGETD0001 \
		-c gadgetd -o 0xcd "$1" 1d6b "$2" $fs
	echo 0x0100 > "$g/bcdDevice"
	echo 64 > "$g/bMaxPacketSize0"
	echo 0x80 > "$c/bmAttributes"
	echo 250 > "$c/MaxPower"
	case $3 in
	acm,ecm|all)
		echo 02:00:00:00:00:01 > "$f/ecm.ecm/dev_addr"
		echo 02:00:00:00:00:02 > "$f/ecm.ecm/host_addr"
		;;
	esac
	case $3 in
	ncm|all)
		echo 02:00:00:00:00:03 > "$f/ncm.ncm/dev_addr"
		echo 02:00:00:00:00:04 > "$f/ncm.ncm/host_addr"
		;;
	esac
	case $3 in
	acm,ecm | ncm) cfs_link "$1" $fs ;;
	all) ;;
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
		cfs_teardown "${g##*/}"
	done
	;;
esac
