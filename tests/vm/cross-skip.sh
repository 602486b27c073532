# Sourced by check-cross.sh and check-arm64.sh: the unit tests Debian 12's
# qemu-user cannot run (check-cross.sh says why), left out there and run
# on the ARM bed's real kernel instead.
CROSS_SKIP_DEFAULT="test_sandbox test_aioguard test_mtp_store test_mtp_edit test_mtp_events test_mtp_plugin"
# armhf only: test_composer (qemu-arm's readdir on ext4).
CROSS_SKIP_ARMHF_DEFAULT="test_composer"
