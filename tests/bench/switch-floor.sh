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
#   switch-floor.sh nsetup SET PID        one more gadget for swap, for
#       b-switch.sh's sets of 1, 4 and 8 functions: SET names its
#       functions (acm_a,ms_a,adb_a,...), each composed by what its name
#       begins with, as b-switch.sh's profile defines it (acm, ecm with
#       its MACs, mass_storage with one removable LUN, hid with a boot
#       keyboard's report, gser; adb, mtp and echo as FunctionFS
#       functions whose descriptors tests/bench/ffsdesc writes, with the
#       plugins' interface classes, endpoints and strings, and keeps
#       ep0 open): gadget floor_SET (commas made underscores)
#   switch-floor.sh teardown              unbind and remove them all
#
# The FunctionFS functions of the floor are composed and their
# descriptors written once, at nsetup; a swap binds them as they are.
# gadgetd starts a plugin's worker at each switch that brings the
# function: that is the work the floor leaves out, and the ratio shows
# what it costs. ffsdesc writes no MS OS descriptors (the plugins do;
# Linux hosts do not read them).
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

FFSRUN=/run/switch-floor

# hid_report: a boot keyboard's report descriptor (also b-switch.sh's
# profile's report_desc), 8-byte reports.
HID_REPORT=05010906a101050719e029e71500250175019508810295017508810195067508150025650507190029658100c0

# nfunction G NAME: NAME's function made in gadget G (not linked); its
# ConfigFS name printed. A FunctionFS instance's name is global to all
# gadgets: it has the gadget's product id in it (PIDTAG).
nfunction() {
	f=$GS/$1/functions
	case $2 in
	acm_*) mkdir "$f/acm.$2" && echo "acm.$2" ;;
	gser_*) mkdir "$f/gser.$2" && echo "gser.$2" ;;
	ecm_*)
		mkdir "$f/ecm.$2" || return 1
		case $2 in *_a) m=1 ;; *) m=2 ;; esac
		echo "02:00:00:00:0$m:01" > "$f/ecm.$2/dev_addr"
		echo "02:00:00:00:0$m:02" > "$f/ecm.$2/host_addr"
		echo "ecm.$2"
		;;
	ms_*)
		mkdir "$f/mass_storage.$2" || return 1
		echo 1 > "$f/mass_storage.$2/lun.0/removable"
		echo "mass_storage.$2"
		;;
	hid_*)
		mkdir "$f/hid.$2" || return 1
		echo 1 > "$f/hid.$2/protocol"
		echo 1 > "$f/hid.$2/subclass"
		echo 8 > "$f/hid.$2/report_length"
		o=
		for b in $(echo $HID_REPORT | sed 's/../& /g'); do
			o="$o$(printf '\\%03o' $((0x$b)))"
		done
		# shellcheck disable=SC2059
		printf "$o" > "$f/hid.$2/report_desc"
		echo "hid.$2"
		;;
	adb_* | mtp_* | echo_*)
		i=p$PIDTAG$(echo "$2" | tr -d _)
		mkdir "$f/ffs.$i" || return 1
		mkdir -p "$FFSRUN/$i"
		mount -t functionfs "$i" "$FFSRUN/$i" || return 1
		case $2 in
		adb_*) set -- 0xff 0x42 0x01 oi "ADB Interface" ;;
		mtp_*) set -- 6 1 1 ion MTP ;;
		echo_*) set -- 0xff 0xff 0xff io "gadgetd echo" ;;
		esac
		"$FFSDESC" "$FFSRUN/$i" "$@" > "$FFSRUN/$i.out" 2>&1 &
		echo $! >> "$FFSRUN/pids"
		n=0
		until grep -q ready "$FFSRUN/$i.out"; do
			n=$((n + 1))
			[ $n -lt 100 ] || { cat "$FFSRUN/$i.out" >&2; return 1; }
			sleep 0.1
		done
		echo "ffs.$i"
		;;
	*) echo "switch-floor.sh: no function $2" >&2; return 1 ;;
	esac
}

case $1 in
nsetup)
	FFSDESC=${FFSDESC:?switch-floor.sh nsetup: FFSDESC=PATH of ffsdesc}
	g=floor_$(echo "$2" | tr , _)
	PIDTAG=${3#0x}
	cfs_gadget -u -m gadgetd -p "gadgetd development board" -s GADGETD0001 \
		-c gadgetd -o 0xcd "$g" 1d6b "$3"
	echo 0x0100 > "$GS/$g/bcdDevice"
	echo 64 > "$GS/$g/bMaxPacketSize0"
	echo 0x80 > "$GS/$g/configs/c.1/bmAttributes"
	echo 250 > "$GS/$g/configs/c.1/MaxPower"
	fs=
	rest=$2,
	while [ -n "$rest" ]; do
		fs="$fs $(nfunction "$g" "${rest%%,*}")"
		rest=${rest#*,}
	done
	# shellcheck disable=SC2086
	cfs_link "$g" $fs
	;;
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
	# floor_SET with its commas made underscores, by builtins alone.
	g=floor_ rest=$2
	while :; do
		case $rest in
		*,*) g=$g${rest%%,*}_ rest=${rest#*,} ;;
		*) g=$g$rest; break ;;
		esac
	done
	[ -d "$GS/$g" ] || { echo "switch-floor.sh: no gadget for $2" >&2; exit 1; }
	echo "floor: bind $2" > /dev/kmsg
	echo "$4" > "$GS/$g/UDC"
	;;
teardown)
	unbind_all
	if [ -f "$FFSRUN/pids" ]; then
		# shellcheck disable=SC2046
		kill $(cat "$FFSRUN/pids") 2>/dev/null || :
		sleep 0.5
	fi
	for m in "$FFSRUN"/*; do
		[ -d "$m" ] && umount "$m" 2>/dev/null
	done
	rm -rf "$FFSRUN"
	for g in "$GS"/floor*; do
		cfs_teardown "${g##*/}"
	done
	;;
esac
