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
CROSS_SKIP_DEFAULT="test_sandbox test_aioguard test_mtp_store test_mtp_edit test_mtp_events test_mtp_plugin test_tcplisten test_ptp test_storage"
# armhf only: test_composer (qemu-arm's readdir on ext4).
CROSS_SKIP_ARMHF_DEFAULT="test_composer"
