# Sourced by deps.sh, check-cross.sh and check-arm64.sh: what the ARM
# scripts share.

# cross_triplet ARCH: Debian's triplet for arm64 or armhf; status 2 for
# any other.
cross_triplet() {
	case $1 in
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	*) return 2 ;;
	esac
}

# The unit tests Debian 12's qemu-user cannot run (check-cross.sh says
# why), left out there and run on the ARM bed's real kernel instead.
CROSS_SKIP_DEFAULT="test_sandbox test_aioguard test_aiopreload test_describe test_mtp_store test_mtp_edit test_mtp_events test_mtp_plugin test_tcplisten test_ptp test_storage"
# armhf only: test_composer (qemu-arm's readdir on ext4).
CROSS_SKIP_ARMHF_DEFAULT="test_composer"

# The target's packages gadgetd builds against, and the runtime its
# unit tests' UBSan needs (mkcross.sh puts them in the build root).
CROSS_DEV_PKGS="libc6-dev libusbgx-dev libconfig-dev libaio-dev libseccomp-dev libssl-dev libmnl-dev libnftables-dev
libsystemd-dev libbrotli-dev liblz4-dev libzstd-dev libcmocka-dev libudev-dev libxkbcommon-dev libexif-dev libubsan1"

# cross_in ROOT SRC B CMD...: CMD run in the build root ROOT (mkcross.sh)
# by chroot, with the folders SRC and B bound at their own paths, /proc
# mounted and a devpts of its own (the unit tests of adb's and the
# spawner's ptys open one), in a mount namespace of its own: the mounts
# end with CMD, whatever way it ends. Needs root; the three paths absolute.
cross_in() {
	ci_root=$1 ci_src=$2 ci_b=$3
	shift 3
	for ci_p in "$ci_root" "$ci_src" "$ci_b"; do
		case $ci_p in
		/*) ;;
		*) echo "cross_in: $ci_p: not an absolute path" >&2; return 2 ;;
		esac
	done
	unshare --mount --propagation private sh -c '
		r=$1 s=$2 b=$3
		shift 3
		mkdir -p "$r$s" && mount --bind "$s" "$r$s" &&
			mkdir -p "$r$b" && mount --bind "$b" "$r$b" &&
			mount -t proc proc "$r/proc" &&
			mkdir -p "$r/dev/pts" && { [ -e "$r/dev/ptmx" ] || : >"$r/dev/ptmx"; } &&
			mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts" &&
			mount --bind "$r/dev/pts/ptmx" "$r/dev/ptmx" || { echo "cross_in: cannot bind $s and $b in $r" >&2; exit 125; }
		exec chroot "$r" "$@"' sh "$ci_root" "$ci_src" "$ci_b" "$@"
}

# cross_unit_build ROOT SRC B ARCH: the unit tests for ARCH, built as
# check-cross.sh runs them (UBSan only; it says why), into B/cross-ARCH
# with the log in B/cross-ARCH.log: in the build root ROOT, or with this
# machine's own toolchain when ROOT is empty. check-arm64.sh's prepare
# and check-cross.sh share the build.
cross_unit_build() {
	cu_root=$1 cu_src=$2 cu_b=$3 cu_arch=$4
	cu_triplet=$(cross_triplet "$cu_arch") || return 2
	if [ -n "$cu_root" ]; then
		set -- cross_in "$cu_root" "$cu_src" "$cu_b"
	else
		set --
	fi
	"$@" make -s -C "$cu_src" -j2 CROSS_COMPILE="$cu_triplet-" B="$cu_b/cross-$cu_arch" \
		SAN="-fsanitize=undefined -fno-sanitize-recover=all" unit-build >"$cu_b/cross-$cu_arch.log" 2>&1
}
