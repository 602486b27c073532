# ConfigFS gadgets composed by hand, for the tests and benchmarks that
# stand in for gadgetd. lib.sh sources this file; a script that needs
# nothing else (tests/bench/switch-floor.sh) may source it alone.
#
#   cfs_gadget [-m MANUFACTURER] [-p PRODUCT] [-s SERIAL] [-c CONFIGURATION]
#              [-o VENDOR_CODE] [-u] NAME VID PID [FUNC...]
#       $CFS/NAME with idVendor/idProduct (hex, 0x optional), the English
#       strings given, one config c.1 (its string with -c), and each FUNC
#       (TYPE.INSTANCE, e.g. ffs.adb) made and linked into c.1. -o turns
#       the MS OS descriptors on (use 1, that b_vendor_code, MSFT100, c.1
#       linked). -u makes the functions but links none: some attributes
#       (SourceSink's bulk_buflen) can only be set while unlinked.
#   cfs_link NAME FUNC...       link functions into c.1
#   cfs_unlink NAME [FUNC...]   remove those links (all links without FUNC)
#   cfs_bind NAME [UDC]         bind to UDC (dummy_udc.0), at most 10 s
#   cfs_unbind NAME             unbind, at most 10 s
#   cfs_bound NAME [UDC]        NAME is bound to UDC (dummy_udc.0)
#   cfs_teardown NAME           unbind and remove all of NAME; unmount its
#                               FunctionFS instances first. Fails if
#                               anything is left.
#
# Each returns non-zero at the first write that fails. Variables are
# local and cfs_-prefixed, so they touch none of the caller's.
CFS=${CFS:-/sys/kernel/config/usb_gadget}

# cfs_hex VALUE: VALUE with a 0x prefix (ConfigFS reads "1209" as decimal).
cfs_hex() {
	case $1 in
	0x* | 0X*) echo "$1" ;;
	*) echo "0x$1" ;;
	esac
}

cfs_gadget() {
	local OPTIND=1 cfs_opt cfs_m= cfs_p= cfs_s= cfs_c= cfs_o= cfs_link=1 cfs_name cfs_g cfs_f
	while getopts m:p:s:c:o:u cfs_opt; do
		case $cfs_opt in
		m) cfs_m=$OPTARG ;;
		p) cfs_p=$OPTARG ;;
		s) cfs_s=$OPTARG ;;
		c) cfs_c=$OPTARG ;;
		o) cfs_o=$OPTARG ;;
		u) cfs_link= ;;
		*) echo "cfs_gadget: unknown option" >&2; return 2 ;;
		esac
	done
	shift $((OPTIND - 1))
	[ $# -ge 3 ] || { echo "usage: cfs_gadget [-m M] [-p P] [-s S] [-c C] [-o CODE] [-u] NAME VID PID [FUNC...]" >&2; return 2; }
	cfs_name=$1 cfs_g=$CFS/$1
	mkdir -p "$cfs_g" || return 1
	echo "$(cfs_hex "$2")" > "$cfs_g/idVendor" || return 1
	echo "$(cfs_hex "$3")" > "$cfs_g/idProduct" || return 1
	shift 3
	if [ -n "$cfs_m$cfs_p$cfs_s" ]; then
		mkdir -p "$cfs_g/strings/0x409" || return 1
		[ -z "$cfs_m" ] || echo "$cfs_m" > "$cfs_g/strings/0x409/manufacturer" || return 1
		[ -z "$cfs_p" ] || echo "$cfs_p" > "$cfs_g/strings/0x409/product" || return 1
		[ -z "$cfs_s" ] || echo "$cfs_s" > "$cfs_g/strings/0x409/serialnumber" || return 1
	fi
	mkdir -p "$cfs_g/configs/c.1" || return 1
	if [ -n "$cfs_c" ]; then
		mkdir -p "$cfs_g/configs/c.1/strings/0x409" || return 1
		echo "$cfs_c" > "$cfs_g/configs/c.1/strings/0x409/configuration" || return 1
	fi
	for cfs_f in "$@"; do
		mkdir -p "$cfs_g/functions/$cfs_f" || return 1
	done
	if [ -n "$cfs_o" ]; then
		echo 1 > "$cfs_g/os_desc/use" || return 1
		echo "$cfs_o" > "$cfs_g/os_desc/b_vendor_code" || return 1
		echo MSFT100 > "$cfs_g/os_desc/qw_sign" || return 1
		ln -s "$cfs_g/configs/c.1" "$cfs_g/os_desc/" || return 1
	fi
	[ -z "$cfs_link" ] || [ $# = 0 ] || cfs_link "$cfs_name" "$@"
}

cfs_link() {
	local cfs_g=$CFS/$1 cfs_f
	shift
	for cfs_f in "$@"; do
		ln -s "$cfs_g/functions/$cfs_f" "$cfs_g/configs/c.1/" || return 1
	done
}

cfs_unlink() {
	local cfs_g=$CFS/$1 cfs_f
	shift
	if [ $# = 0 ]; then
		for cfs_f in "$cfs_g"/configs/*/*; do
			if [ -L "$cfs_f" ]; then rm -f "$cfs_f" || return 1; fi
		done
		return 0
	fi
	for cfs_f in "$@"; do
		rm -f "$cfs_g/configs/c.1/$cfs_f" || return 1
	done
}

cfs_bind() {
	timeout 10 sh -c "echo ${2:-dummy_udc.0} > $CFS/$1/UDC"
}

cfs_unbind() {
	timeout 10 sh -c "echo '' > $CFS/$1/UDC" 2>/dev/null
}

cfs_bound() {
	[ "$(timeout 5 cat "$CFS/$1/UDC")" = "${2:-dummy_udc.0}" ]
}

cfs_teardown() {
	local cfs_g=$CFS/$1 cfs_x cfs_udc=
	[ -d "$cfs_g" ] || return 0
	{ read -r cfs_udc < "$cfs_g/UDC"; } 2>/dev/null || cfs_udc=
	[ -z "$cfs_udc" ] || cfs_unbind "$1"
	for cfs_x in "$cfs_g"/os_desc/*; do
		if [ -L "$cfs_x" ]; then rm -f "$cfs_x"; fi
	done
	cfs_unlink "$1"
	# rmdir goes on after a failure: leaves first, the gadget last.
	rmdir "$cfs_g"/configs/*/strings/* "$cfs_g"/configs/* "$cfs_g"/functions/* \
		"$cfs_g"/strings/* "$cfs_g" 2>/dev/null || :
	[ ! -e "$cfs_g" ] || { echo "cfs_teardown: $cfs_g is left" >&2; return 1; }
}
