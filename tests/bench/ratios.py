"""Print throughput ratios from the BENCH lines of one VM run.

ratios.py [--whole] BENCH.TXT: with --whole (make bench of every
benchmark), a ratio that cannot be taken ("n/a") or a BENCH line with no
figure fails the run after the ratios are printed: every benchmark ran,
so a missing figure is a benchmark's error, not a subset's gap.
"""
import sys

args = sys.argv[1:]
whole = "--whole" in args
args = [a for a in args if a != "--whole"]
if len(args) != 1:
    sys.exit("usage: ratios.py [--whole] BENCH.TXT")
samples = {}
empty = []
for line in open(args[0]):
    parts = line.split()
    if len(parts) >= 2 and parts[0] == "BENCH":
        try:
            value = float(parts[2])
        except (IndexError, ValueError):
            # A bench that printed no figure ("BENCH NAME  MB/s") has none.
            empty.append(parts[1])
            continue
        samples.setdefault(parts[1], []).append(value)
# No time, size or rate of a run can be below zero: such a figure is a
# bench's own error (b-ptp once netted out more than its download took),
# and fails the run rather than be printed as a ratio.
bad = sorted(f"{k} {x:g}" for k, v in samples.items() for x in v if x < 0)
if bad:
    sys.exit("ratios: figures that cannot be true: " + ", ".join(bad))
# A benchmark measured more than once in the run (the ceiling, first and
# last) counts with its mean.
vals = {k: sum(v) / len(v) for k, v in samples.items()}
# b-mtp says how many files its listings walked (MTP_BENCH_FILES).
files = f"{vals['mtp_bench_files']:.0f}" if "mtp_bench_files" in vals else "?"
# mtp-files asks two transactions an object of gadgetd's default profile
# (GetObjectInfo, then a one-object GetObjectPropList: libmtp's
# ptp_object_want) and one of umtprd's or with object_prop_lists=false.
if "mtp_files_obj_ms" in vals:
    vals["mtp_files_txn_ms"] = vals["mtp_files_obj_ms"] / 2
for k, v in samples.items():
    if len(v) > 1:
        print(f"{k}: {' and '.join(f'{x:g}' for x in v)}, mean {vals[k]:.1f}")

pairs = [
    ("adb_push_mbps", "ceiling_write_mbps", "adb push / mass_storage write", 0.9),
    ("hid_ffs_net_keys_s", "hid_kernel_keys_s", "HID typing: gadgetctl hid type less its one-key command / the kernel's f_hid written report by report", 1.0),
    ("storage_write_mbps", "ceiling_write_mbps", "virtual media (gadgetctl storage insert) write / mass_storage composed by hand", 0.9),
    ("storage_read_mbps", "ceiling_read_mbps", "virtual media (gadgetctl storage insert) read / mass_storage composed by hand", 0.9),
    ("net_ncm_out_mbps", "bulk1m_out_mbps", "iperf3 TCP over ncm, host -> board / SourceSink 1 MiB bound", None),
    ("net_ncm_in_mbps", "bulk1m_in_mbps", "iperf3 TCP over ncm, board -> host / SourceSink 1 MiB bound", None),
    ("net_ecm_out_mbps", "bulk1m_out_mbps", "iperf3 TCP over ecm, host -> board / SourceSink 1 MiB bound", None),
    ("net_ecm_in_mbps", "bulk1m_in_mbps", "iperf3 TCP over ecm, board -> host / SourceSink 1 MiB bound", None),
    ("net_rndis_out_mbps", "bulk1m_out_mbps", "iperf3 TCP over rndis, host -> board / SourceSink 1 MiB bound", None),
    ("net_rndis_in_mbps", "bulk1m_in_mbps", "iperf3 TCP over rndis, board -> host / SourceSink 1 MiB bound", None),
    ("net_ncm_out_mbps", "net_ecm_out_mbps", "ncm / ecm, host -> board", None),
    ("net_ncm_in_mbps", "net_ecm_in_mbps", "ncm / ecm, board -> host", None),
    ("adb_tcp_push_mbps", "adb_usb_push_mbps", "adb push over TCP on ncm / over USB, same function and run", None),
    ("adb_tcp_pull_mbps", "adb_usb_pull_mbps", "adb pull over TCP on ncm / over USB, same function and run", None),
    ("adb_tcp_push_mbps", "net_ncm_out_mbps", "adb push over TCP on ncm / iperf3 over ncm, host -> board", 0.8),
    ("adb_tcp_pull_mbps", "net_ncm_in_mbps", "adb pull over TCP on ncm / iperf3 over ncm, board -> host", 0.8),
    ("adb_tcp_push_mbps", "net_ncmadb_out_mbps", "adb push over TCP on ncm / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb_tcp_pull_mbps", "net_ncmadb_in_mbps", "adb pull over TCP on ncm / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb_tcp_push_mbps", "adbtcphop_out_mbps", "adb push over TCP on ncm / adb 29's pattern over the same link with its client-server hop (adbtcp.c)", None),
    ("adb_tcp_pull_mbps", "adbtcphop_in_mbps", "adb pull over TCP on ncm / adb 29's pattern over the same link with its client-server hop (adbtcp.c)", None),
    ("adb_tcp_push_mbps", "adbnull_tcp_push_mbps", "adb push over TCP on ncm / adb 29 to a daemon that does no work for the bytes (adbmin -n), same link and rounds", 0.9),
    ("adb_tcp_pull_mbps", "adbnull_tcp_pull_mbps", "adb pull over TCP on ncm / adb 29 from a daemon that does no work for the bytes (adbmin -n), same link and rounds", 0.9),
    ("adb_tcp_push_mbps", "adbmin_tcp_push_mbps", "adb push over TCP on ncm / adb 29 to the least daemon that stores the bytes (adbmin.c), same link and rounds", 1.0),
    ("adb_tcp_pull_mbps", "adbmin_tcp_pull_mbps", "adb pull over TCP on ncm / adb 29 from the least daemon that reads the file (adbmin.c), same link and rounds", 1.0),
    ("adb_tcp_push_mbps", "net_ncmadb_fileout_mbps", "adb push over TCP on ncm / iperf3 with files at both ends (64 MiB, tmpfs), same link and rounds", 0.8),
    ("adb_tcp_pull_mbps", "net_ncmadb_filein_mbps", "adb pull over TCP on ncm / iperf3 with files at both ends (64 MiB, tmpfs), same link and rounds", 0.8),
    ("adbmin_tcp_push_mbps", "net_ncmadb_fileout_mbps", "adb 29 push to the least daemon (adbmin) over TCP / iperf3 with files at both ends, same link and rounds", None),
    ("adbmin_tcp_pull_mbps", "net_ncmadb_filein_mbps", "adb 29 pull from the least daemon (adbmin) over TCP / iperf3 with files at both ends, same link and rounds", None),
    ("net_ncmadb_fileout_mbps", "net_ncmadb_out_mbps", "iperf3 with files at both ends, 64 MiB / iperf3, same link, host -> board (what the files cost)", None),
    ("net_ncmadb_filein_mbps", "net_ncmadb_in_mbps", "iperf3 with files at both ends, 64 MiB / iperf3, same link, board -> host (what the files cost)", None),
    ("adbnull_tcp_push_mbps", "net_ncmadb_out_mbps", "adb 29 to the no-work daemon over TCP / iperf3, same link, host -> board (what adb 29 itself costs)", None),
    # Issue 39's question: does a daemon that splices a push's DATA from
    # the socket into the file (adbmin -s, one copy fewer) reach 0.8 of
    # the link?
    ("adbmins_tcp_push_mbps", "net_ncmadb_out_mbps", "adb 29 push to the splicing daemon (adbmin -s) over TCP / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adbmins_tcp_push_mbps", "adbmin_tcp_push_mbps", "adb 29 push over TCP: the splicing daemon (adbmin -s) / the least daemon (adbmin), same link and rounds", None),
    ("adbmins_tcp_push_mbps", "adbnull_tcp_push_mbps", "adb 29 push over TCP: the splicing daemon (adbmin -s) / the no-work daemon (adbmin -n), same link and rounds", None),
    ("adbnull_tcp_pull_mbps", "net_ncmadb_in_mbps", "adb 29 from the no-work daemon over TCP / iperf3, same link, board -> host (what adb 29 itself costs)", None),
    ("adb34_tcp_push_mbps", "net_ncmadb_out_mbps", "adb 34 push over TCP on ncm (-Z) / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb34_tcp_pull_mbps", "net_ncmadb_in_mbps", "adb 34 pull over TCP on ncm / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb34null_tcp_push_mbps", "net_ncmadb_out_mbps", "adb 34 to the no-work daemon over TCP / iperf3, same link, host -> board (what adb 34 itself costs)", None),
    ("adb34null_tcp_pull_mbps", "net_ncmadb_in_mbps", "adb 34 from the no-work daemon over TCP / iperf3, same link, board -> host (what adb 34 itself costs)", None),
    ("adb34_tcp_push_mbps", "adb34null_tcp_push_mbps", "adb 34 push over TCP: gadgetd / the no-work daemon (adbmin -n), one WRTE in flight with both, same link and rounds", 0.9),
    ("adb34_tcp_pull_mbps", "adb34null_tcp_pull_mbps", "adb 34 pull over TCP: gadgetd / the no-work daemon (adbmin -n), one WRTE in flight with both, same link and rounds", 0.9),
    ("adb34da_tcp_push_mbps", "net_ncmadb_out_mbps", "adb 34 with ADB_DELAYED_ACK=1, push over TCP on ncm (-Z) / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb34da_tcp_pull_mbps", "net_ncmadb_in_mbps", "adb 34 with ADB_DELAYED_ACK=1, pull over TCP on ncm / iperf3 on the same ncm,adb link, same rounds", 0.8),
    ("adb34da_tcp_push_mbps", "adb34_tcp_push_mbps", "adb 34 push over TCP to gadgetd's adb: with ADB_DELAYED_ACK=1 / without, same link and rounds", None),
    ("adb34da_tcp_pull_mbps", "adb34_tcp_pull_mbps", "adb 34 pull over TCP from gadgetd's adb: with ADB_DELAYED_ACK=1 / without, same link and rounds", None),
    ("adb34_tcp_push_mbps", "adb_tcp_push_mbps", "push over TCP to gadgetd's adb: adb 34 / adb 29, same link and rounds", None),
    ("adb34_tcp_pull_mbps", "adb_tcp_pull_mbps", "pull over TCP from gadgetd's adb: adb 34 / adb 29, same link and rounds", None),
    ("adbtcphop_out_mbps", "net_ncmadb_out_mbps", "adb 29's pattern over TCP with the hop / iperf3, same link, host -> board (what the pattern costs)", None),
    ("adbtcphop_in_mbps", "net_ncmadb_in_mbps", "adb 29's pattern over TCP with the hop / iperf3, same link, board -> host (what the pattern costs)", None),
    ("adbtcphop_out_mbps", "adbtcp_out_mbps", "adb 29's pattern over TCP, host -> board: with the client-server hop / without", None),
    ("adbtcphop_in_mbps", "adbtcp_in_mbps", "adb 29's pattern over TCP, board -> host: with the client-server hop / without", None),
    ("adb_pull_mbps", "ceiling_read_mbps", "adb pull / mass_storage read", 0.9),
    ("adb_push_mbps", "adb1m_out_mbps", "adb 29 push / adb-pattern bound (1 MiB WRTE, then OKAY, to SourceSink)", 0.9),
    ("adb_pull_mbps", "adb1m_in_mbps", "adb 29 pull / adb-pattern bound (1 MiB WRTE, then OKAY, from SourceSink)", 0.9),
    ("adb_push_mbps", "adbnull_push_mbps", "adb 29 push / adb 29 push to a daemon that does no work for the bytes (adbmin -n), same rounds", 0.9),
    ("adb_pull_mbps", "adbnull_pull_mbps", "adb 29 pull / adb 29 pull from a daemon that does no work for the bytes (adbmin -n), same rounds", 0.9),
    ("adb_push_mbps", "adbmin_push_mbps", "adb 29 push / adb 29 push to the least daemon that stores the bytes (adbmin.c), same rounds", 1.0),
    ("adb_pull_mbps", "adbmin_pull_mbps", "adb 29 pull / adb 29 pull from the least daemon that reads the file (adbmin.c), same rounds", 1.0),
    ("adbnull_push_mbps", "adbhop1m_out_mbps", "adb 29 to the no-work daemon / adb-pattern bound with the hop, out (what adb 29's own client and server cost beyond it)", None),
    ("adbnull_pull_mbps", "adbhop1m_in_mbps", "adb 29 from the no-work daemon / adb-pattern bound with the hop, in (what adb 29's own client and server cost beyond it)", None),
    ("adb_push_mbps", "adbhop1m_out_mbps", "adb 29 push / adb-pattern bound with adb's client-server socket hop", None),
    ("adb_pull_mbps", "adbhop1m_in_mbps", "adb 29 pull / adb-pattern bound with adb's client-server socket hop", None),
    ("adbhop1m_out_mbps", "adb1m_out_mbps", "adb-pattern bound out: with the socket hop / without", None),
    ("adbhop1m_in_mbps", "adb1m_in_mbps", "adb-pattern bound in: with the socket hop / without", None),
    ("adb_push_mbps", "bulk1m_out_mbps", "adb push / SourceSink 1 MiB bound", None),
    ("adb_pull_mbps", "bulk1m_in_mbps", "adb pull / SourceSink 1 MiB bound", None),
    ("adbhost_push_mbps", "bulk1m_out_mbps", "adbhost push, delayed_ack / SourceSink 1 MiB bound", 0.8),
    ("adbhost_pull_mbps", "bulk1m_in_mbps", "adbhost pull, delayed_ack / SourceSink 1 MiB bound", 0.8),
    ("adbhost_push_mbps", "near_bulk1m_out_mbps", "adbhost push, delayed_ack / SourceSink 1 MiB bound taken before and after it", 0.8),
    ("adbhost_pull_mbps", "near_bulk1m_in_mbps", "adbhost pull, delayed_ack / SourceSink 1 MiB bound taken before and after it", 0.8),
    ("adbhost_push_mbps", "adbffs_out_mbps", "adbhost push, delayed_ack / ffs-file run (1 MiB transfers one at a time into a tmpfs file through f_fs, before and after it; not a bound: a host with 2 MiB in flight may pass it)", None),
    ("adbhost_pull_mbps", "adbffs_in_mbps", "adbhost pull, delayed_ack / ffs-file run (1 MiB transfers one at a time out of a tmpfs file through f_fs, before and after it)", None),
    ("adbffs_out_mbps", "near_bulk1m_out_mbps", "ffs-file run out / SourceSink 1 MiB bound, both around adbhost (what f_fs and the file cost a host that waits for each transfer)", None),
    ("adbffs_in_mbps", "near_bulk1m_in_mbps", "ffs-file run in / SourceSink 1 MiB bound, both around adbhost (what f_fs and the file cost a host that waits for each transfer)", None),
    ("adbhost_classic_push_mbps", "adb1m_out_mbps", "adbhost push, no delayed_ack / adb-pattern bound", None),
    ("adbhost_classic_pull_mbps", "adb1m_in_mbps", "adbhost pull, no delayed_ack / adb-pattern bound", None),
    ("adb1m_out_mbps", "bulk1m_out_mbps", "adb-pattern bound out / SourceSink 1 MiB bound", None),
    ("adb1m_in_mbps", "bulk1m_in_mbps", "adb-pattern bound in / SourceSink 1 MiB bound", None),
    ("bulk1m_out_mbps", "ceiling_write_mbps", "SourceSink 1 MiB bound out / mass_storage write", None),
    ("bulk1m_in_mbps", "ceiling_read_mbps", "SourceSink 1 MiB bound in / mass_storage read", None),
    ("adb_push_wall_mbps", "ceiling_write_mbps", "adb push, whole command / mass_storage write", None),
    ("adb_pull_wall_mbps", "ceiling_read_mbps", "adb pull, whole command / mass_storage read", None),
    ("mtp_send_mbps", "ceiling_write_mbps", "mtp-sendfile / mass_storage write", 0.8),
    ("mtp_get_mbps", "ceiling_read_mbps", "mtp-getfile / mass_storage read", 0.8),
    ("ptp_get_mbps", "ptp_near_sync16k_in_mbps", "gphoto2 --get-all-files of the photos / libmtp-pattern bound for their size", None),
    ("ptp_get_net_mbps", "ptp_near_sync16k_in_mbps", "the same less gphoto2's listing / libmtp-pattern bound for their size", None),
    ("mtp_send_mbps", "sync16k_out_mbps", "mtp-sendfile / libmtp-pattern bound (sync 16 KiB to SourceSink)", None),
    ("mtp_get_mbps", "sync16k_in_mbps", "mtp-getfile / libmtp-pattern bound (sync 16 KiB from SourceSink)", None),
    ("mtp_send_net_mbps", "sync16k_out_mbps", "mtp-sendfile less the tool's fixed cost / libmtp-pattern bound", None),
    ("mtp_get_net_mbps", "sync16k_in_mbps", "mtp-getfile less the tool's fixed cost / libmtp-pattern bound", None),
    ("mtp_send_net_mbps", "near_sync16k_out_mbps", "mtp-sendfile less the tool's fixed cost / libmtp-pattern bound taken before and after it", 0.9),
    ("mtp_get_net_mbps", "near_sync16k_in_mbps", "mtp-getfile less the tool's fixed cost / libmtp-pattern bound taken before and after it", 0.9),
    ("mtp_send_net_mbps", "near_ffsfile_out_mbps", "mtp-sendfile less the tool's fixed cost / ffs-file bound (the libmtp pattern into a file through f_fs in user space)", 0.9),
    ("mtp_get_net_mbps", "near_ffsfile_in_mbps", "mtp-getfile less the tool's fixed cost / ffs-file bound (the libmtp pattern out of a file through f_fs in user space)", 0.9),
    ("mtp_send_net_mbps", "near_ffslibmtp_out_mbps", "mtp-sendfile less the tool's fixed cost / ffs-file bound with libmtp's own pattern (first packet alone, progress line per 16 KiB)", 0.9),
    ("mtp_get_net_mbps", "near_ffslibmtp_in_mbps", "mtp-getfile less the tool's fixed cost / ffs-file bound with libmtp's own pattern (first packet alone, progress line per 16 KiB)", 0.9),
    ("near_ffslibmtp_out_mbps", "near_ffsfile_out_mbps", "ffs-file bound out: libmtp's own pattern / 16 KiB from the start (what the host pattern costs)", None),
    ("near_ffslibmtp_in_mbps", "near_ffsfile_in_mbps", "ffs-file bound in: libmtp's own pattern / 16 KiB from the start (what the host pattern costs)", None),
    ("near_ffsfile_out_mbps", "near_sync16k_out_mbps", "ffs-file bound out / libmtp-pattern bound (what user space and the file cost)", None),
    ("near_ffsfile_in_mbps", "near_sync16k_in_mbps", "ffs-file bound in / libmtp-pattern bound (what user space and the file cost)", None),
    ("sync16k_out_mbps", "ceiling_write_mbps", "libmtp-pattern bound out / mass_storage write", None),
    ("sync16k_in_mbps", "ceiling_read_mbps", "libmtp-pattern bound in / mass_storage read", None),
    # b-adbd: gadgetd's adb against Debian's adbd 34, adb 29 the host
    # (issue 39's goal: gadgetd at least as fast on every line).
    ("peer_gadgetd_push_mbps", "peer_adbd_push_mbps", "adb 29 push 64 MiB: gadgetd / adbd", 1.0),
    ("peer_gadgetd_pull_mbps", "peer_adbd_pull_mbps", "adb 29 pull 64 MiB: gadgetd / adbd", 1.0),
    ("peer_adbd_tree_push_ms", "peer_gadgetd_tree_push_ms", "adb 29 push of 200 files of 4 KiB: adbd time / gadgetd time", 1.0),
    ("peer_adbd_tree_pull_ms", "peer_gadgetd_tree_pull_ms", "adb 29 pull of 200 files of 4 KiB: adbd time / gadgetd time", 1.0),
    ("peer_adbd_shell20_ms", "peer_gadgetd_shell20_ms", "20 adb shell true: adbd time / gadgetd time", 1.0),
    ("peer_adbd_shell20_bus_ms", "peer_gadgetd_shell20_bus_ms", "20 adb shell true, OPEN to the daemon's exit status on the bus: adbd time / gadgetd time", 1.0),
    ("peer_adbd_device_ms", "peer_gadgetd_device_ms", "bind to adb devices showing device: adbd time / gadgetd time", 1.0),
    ("peer_adbd_bind_bus_ms", "peer_gadgetd_bind_bus_ms", "bind to the daemon's CNXN on the bus, less adb's poll wait (usbmon): adbd time / gadgetd time", 1.0),
    ("peer_adbd_cnxn_ms", "peer_gadgetd_cnxn_ms", "the host's CNXN to the daemon's on the bus (usbmon): adbd time / gadgetd time", 1.0),
    # b-adbstreams: N adb 29 streams at once against one alone (issue 39:
    # the aggregate should not fall as streams are added).
    ("adbs4_push_agg_mbps", "adbs1_push_agg_mbps", "adb 29, 4 pushes at once, aggregate / 1 push", 0.9),
    ("adbs16_push_agg_mbps", "adbs1_push_agg_mbps", "adb 29, 16 pushes at once, aggregate / 1 push", 0.9),
    ("adbs4_pull_agg_mbps", "adbs1_pull_agg_mbps", "adb 29, 4 pulls at once, aggregate / 1 pull", 0.9),
    ("adbs16_pull_agg_mbps", "adbs1_pull_agg_mbps", "adb 29, 16 pulls at once, aggregate / 1 pull", 0.9),
    # b-switch's sets of 1, 4 and 8 functions: the floor/gadgetd ratio of
    # the bigger sets against a one-function set's (issue 39: flat).
    ("switch_n4_floor_over_gadgetd", "switch_n1k_floor_over_gadgetd", "switch floor/gadgetd, 4 functions (2 FunctionFS) / 1 kernel function", 0.9),
    ("switch_n8_floor_over_gadgetd", "switch_n1k_floor_over_gadgetd", "switch floor/gadgetd, 8 functions (3 FunctionFS) / 1 kernel function", 0.9),
    ("switch_n4_floor_over_gadgetd", "switch_n1f_floor_over_gadgetd", "switch floor/gadgetd, 4 functions (2 FunctionFS) / 1 FunctionFS function", 0.9),
    ("switch_n8_floor_over_gadgetd", "switch_n1f_floor_over_gadgetd", "switch floor/gadgetd, 8 functions (3 FunctionFS) / 1 FunctionFS function", 0.9),
    ("mtp_send_mbps", "umtprd_send_mbps", "mtp-sendfile gadgetd / umtprd", None),
    ("mtp_get_mbps", "umtprd_get_mbps", "mtp-getfile gadgetd / umtprd", None),
    ("umtprd_files_s", "mtp_files_s", f"mtp-files {files} files: umtprd time / gadgetd time", 1.0),
    ("umtprd_folders_s", "mtp_folders_s", f"mtp-folders {files} files: umtprd time / gadgetd time", 8.0),
    ("umtprd_jmtpfs_ls_s", "mtp_jmtpfs_ls_s", f"ls -R through jmtpfs, {files} files: umtprd time / gadgetd time", 1.0),
    ("umtprd_gomtpfs_ls_s", "mtp_gomtpfs_ls_s", f"ls -R through go-mtpfs, {files} files: umtprd time / gadgetd time", 1.0),
    ("umtprd_files_s", "mtpnpl_files_s", f"mtp-files {files} files: umtprd time / gadgetd time, object_prop_lists=false", 1.0),
    ("umtprd_jmtpfs_ls_s", "mtpnpl_jmtpfs_ls_s", f"ls -R through jmtpfs, {files} files: umtprd time / gadgetd time, object_prop_lists=false", 1.0),
    ("umtprd_gomtpfs_ls_s", "mtpnpl_gomtpfs_ls_s", f"ls -R through go-mtpfs, {files} files: umtprd time / gadgetd time, object_prop_lists=false", 1.0),
    ("umtprd_folders_s", "mtpnpl_folders_s", f"mtp-folders {files} files: umtprd time / gadgetd time, object_prop_lists=false (a walk)", None),
    ("mtp_files_obj_ms", "mtp_txn_floor_ms", "mtp-files ms per object (2 transactions) / SourceSink transaction floor", None),
    ("umtprd_files_obj_ms", "mtp_txn_floor_ms", "umtprd: mtp-files ms per object (1 transaction) / SourceSink transaction floor", None),
    ("umtprd_files_obj_ms", "mtp_files_txn_ms", "mtp-files, one transaction: umtprd ms / gadgetd ms (two make a gadgetd object on the default profile)", None),
    ("umtprd_files_obj_ms", "mtpnpl_files_obj_ms", "mtp-files, one transaction: umtprd ms / gadgetd ms, object_prop_lists=false", None),
]
# Figures that only an option gives (b-mtp's MTP_BENCH_XFER_USBMON, b-net's
# ADB_TCP_BENCH_BASES and b-adb's ADB_BENCH_BASES, each pair's second figure): their ratios are taken
# when the run has that figure, and a whole run without the option does
# not miss them.
optional = [
    ("near_ffslibmtp_send_span_ms", "mtp_send_span_ms", "mtp-sendfile's 16 KiB URBs under usbmon, first submit to last completion: ffs-file bound (libmtp's pattern) time / gadgetd time", None),
    ("near_ffslibmtp_get_span_ms", "mtp_get_span_ms", "mtp-getfile's 16 KiB URBs under usbmon, first submit to last completion: ffs-file bound (libmtp's pattern) time / gadgetd time", None),
    ("adb_tcp_push_mbps", "adbbase_tcp_push_mbps", "adb push over TCP on ncm: this build / the base build (ADB_TCP_BENCH_BASES base=DIR), same rounds", None),
    ("adb_tcp_pull_mbps", "adbbase_tcp_pull_mbps", "adb pull over TCP on ncm: this build / the base build (ADB_TCP_BENCH_BASES base=DIR), same rounds", None),
    ("adb_push_mbps", "adbbase_push_mbps", "adb 29 push over USB: this build / the base build (ADB_BENCH_BASES base=DIR), same rounds, order alternating", None),
    ("adb_pull_mbps", "adbbase_pull_mbps", "adb 29 pull over USB: this build / the base build (ADB_BENCH_BASES base=DIR), same rounds, order alternating", None),
]
pairs += [p for p in optional if p[1] in vals]
# Other builds' transfers in the same boot (b-mtp.sh MTP_BENCH_XFER_BASES).
for k in vals:
    if k.startswith("mtp") and k.endswith("_send_net_mbps") and k != "mtp_send_net_mbps":
        v = k[:-len("_send_net_mbps")]
        pairs.append((k, "near_ffsfile_out_mbps", f"{v} (MTP_BENCH_XFER_BASES) send, net / ffs-file bound", None))
        pairs.append((f"{v}_get_net_mbps", "near_ffsfile_in_mbps", f"{v} (MTP_BENCH_XFER_BASES) get, net / ffs-file bound", None))
print("ratios (same VM run):")
missing = []
for num, den, what, target in pairs:
    if num in vals and den in vals and vals[den] > 0:
        r = vals[num] / vals[den]
        tgt = "" if target is None else f"  (target >= {target}: {'met' if r >= target else 'NOT met'})"
        # A ratio that rounds onto its target shows the digit that decides.
        shown = f"{r:.3f}" if target is not None and f"{r:.2f}" == f"{target:.2f}" else f"{r:.2f}"
        print(f"  {what}: {shown}{tgt}")
        # b-mtp's rounds (MTP_BENCH_ROUNDS): a bound taken before each
        # round's transfer and once after the last; each round against the
        # mean of the bounds on its two sides, the load being closest.
        n, d = samples.get(num, [vals[num]]), samples.get(den, [vals[den]])
        if num.startswith("mtp_") and den.startswith("near_ffs") and len(n) > 1 and len(d) == len(n) + 1:
            per = [x / ((d[i] + d[i + 1]) / 2) for i, x in enumerate(n)]
            print(f"    per round: {', '.join(f'{x:.2f}' for x in per)}")
    else:
        gone = num if num not in vals else den
        why = f"{den} is 0" if gone == den and den in vals else f"missing {gone}"
        print(f"  {what}: n/a ({why})")
        missing.append(gone)
# Figures held to a limit of their own rather than compared: b-memory's
# ceilings (what gadgetd owns alone, issue 39's goal; its growth over 900
# switches, a leak check whose noise is a few pages of malloc's arena) and b-adbstreams' fairness (slowest stream's rate / fastest's).
limits = [
    ("gadgetd_mem_idle_anon_kib", "<=", 1024, "gadgetd anonymous memory at idle, KiB"),
    ("gadgetd_mem_100_anon_kib", "<=", 1024, "gadgetd anonymous memory after 100 switches, KiB"),
    ("gadgetd_mem_1000_anon_kib", "<=", 1024, "gadgetd anonymous memory after 1 000 switches, KiB"),
    ("gadgetd_mem_anon_growth_kib", "<=", 64, "gadgetd anonymous memory grown from 100 to 1 000 switches, KiB"),
]
for n in (4, 16):
    for kind in ("push", "pull", "mix"):
        limits.append((f"adbs{n}_{kind}_fair", ">=", 0.8, f"adb 29, {n} streams at once ({kind}): slowest / fastest"))
print("limits (same VM run):")
for key, op, bound, what in limits:
    if key in vals:
        ok = vals[key] <= bound if op == "<=" else vals[key] >= bound
        print(f"  {what}: {vals[key]:g}  (target {op} {bound:g}: {'met' if ok else 'NOT met'})")
    else:
        print(f"  {what}: n/a (missing {key})")
        missing.append(key)

# b-scale-mtp: what an object costs as the store grows (issue 39), this
# build's (mtp_scale) and other builds' (mtpNAME_scale, MTP_SCALE_BASES).
# Time per object at the largest size over that at the one below, each
# less the empty store's time (the fixed cost: libmtp's start, the
# session): 1.0 is linear. Bound 2.5: a cost quadratic in objects gives
# 10 between 10 000 and 100 000 objects; a linear one can give up to 2,
# as the whole-device list keeps the entries of its first 16 000 objects
# or so (MTP_PROPLIST_KEEP) and stats and renders each one past them
# again in the data phase; a loaded machine moves a time by 20 % and
# more. A size whose time
# is within the empty store's (mtp-folders' start-up swings by more than
# 10 000 objects' list under load) gives no per-object time: said so.
scales = sorted({k.split("_scale_")[0] + "_scale" for k in vals if k.startswith("mtp") and "_scale_" in k})
for p in ["mtp_scale"] + [p for p in scales if p != "mtp_scale"]:
    sizes = sorted(int(k[len(p) + 1:-len("_connect_ms")]) for k in vals
                   if k.startswith(p + "_") and k.endswith("_connect_ms"))
    sizes = [n for n in sizes if n > 0]
    if len(sizes) < 2:
        # This build's run needs two sizes (MTP_SCALE_SIZES).
        gone = [f"{p}_{n}_connect_ms" for n in (1000, 10000) if n not in sizes]
        if p == "mtp_scale" and gone:
            print(f"  b-scale-mtp, cost per object between sizes: n/a (missing {gone[0]})")
            missing.append(gone[0])
        continue
    lo, hi = sizes[-2], sizes[-1]
    for m, what, tgt in (("proplist_ms", "GetObjectPropList of the whole device (pyusb)", 2.5),
                         ("list_ms", "mtp-folders (libmtp's whole-device list)", 2.5),
                         ("files_ms", "mtp-files (a walk)", 2.5),
                         ("connect_ms", "first connect, OpenSession to GetObjectHandles of the root", None)):
        k0, kl, kh = (f"{p}_{n}_{m}" for n in (0, lo, hi))
        if kl not in vals or kh not in vals or k0 not in vals:
            continue
        dl, dh = vals[kl] - vals[k0], vals[kh] - vals[k0]
        if dl <= 0 or dh <= 0:
            print(f"  {p}: {what}: {vals[k0]:g} ms empty, {vals[kl]:g} at {lo}, {vals[kh]:g} at {hi} objects"
                  " (no per-object time: a size within the empty store's time)")
            continue
        r = (dh / hi) / (dl / lo)
        t = "" if tgt is None else f"  (target <= {tgt}: {'met' if r <= tgt else 'NOT met'})"
        print(f"  {p}: {what}, time per object less the empty store's, {hi} / {lo} objects: {r:.2f}"
              f" ({dh / hi * 1000:.1f} / {dl / lo * 1000:.1f} us){t}")
    for n in sizes:
        k = f"{p}_{n}_bytes_per_object"
        if k in vals:
            print(f"  {p}: the worker's anonymous memory beyond the empty store's, {n} objects: {vals[k]:.0f} B an object"
                  f" ({vals.get(f'{p}_{n}_marginal_bytes_per_object', 0):.0f} B each added since the size below)"
                  + (f"  (target <= 64: {'met' if vals[k] <= 64 else 'NOT met'})" if n == hi else ""))
if whole and (missing or empty):
    why = [f"no figure printed for {k}" for k in sorted(set(empty))]
    why += [f"no usable {k} for a ratio" for k in sorted(set(missing))]
    sys.exit("ratios: a whole run must give every figure: " + "; ".join(why))
