# gadgetd: USB gadgets from profiles, user-space functions over FunctionFS.
#
#   make            build gadgetd, gadgetctl, gadgetd-worker, gadgetd-mdns and
#                   the plugins
#   make check      the Debian package (make deb: its unit tests, ASan+UBSan,
#                   with dpkg-buildflags' hardening, the test-script lint,
#                   lintian), the dummy_hcd loopback suite (on the systemd
#                   bed where a test proves a feature as shipped),
#                   and the ARM checks: check-arm64, check-armhf (the
#                   core on an arm64 kernel), check-cross (qemu-user)
#   make check-trixie  the trixie package (make deb SUITE=trixie) under
#                   Debian 13's kernel, userland and systemd (not in check)
#   make soak       [SOAK_ROUNDS=100] [SOAK_SEED=N] faults, round after round;
#                   [STRESS_ROUNDS=1000] switches under parallel clients
#   make fuzz-long  [FUZZ_SECONDS=60] every fuzz target under libFuzzer
#   make demo       boot the test bed (systemd as PID 1), install the package
#                   and show `gadgetctl switch mtp,adb`
#   make bench      [BENCH=b-switch,...] throughput and latency benchmarks in one VM run
#   make install    [DESTDIR=...] [PREFIX=/usr]; an edited file in
#                   /etc/gadgetd is kept, the shipped one put next to it
#                   as NAME.dist
#
# CPPFLAGS, CFLAGS and LDFLAGS are honoured; WERROR=1 adds -Werror (make
# check does).

PREFIX ?= /usr
SYSCONFDIR ?= /etc
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
PLUGINDIR ?= $(LIBDIR)/gadgetd
LIBEXECDIR ?= $(PREFIX)/libexec/gadgetd
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/gadgetd
DATADIR ?= $(PREFIX)/share
UDEVDIR ?= $(LIBDIR)/udev/rules.d
UNITDIR ?= $(LIBDIR)/systemd/system
SYSUSERSDIR ?= $(LIBDIR)/sysusers.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DEVDOCDIR ?= $(PREFIX)/share/doc/gadgetd-dev
RUNDIR ?= /run
STATEDIR ?= /var/lib/gadgetd

B := build
CC ?= cc
CFLAGS ?= -O2 -g
# -Werror is for CI (make check turns it on) and for WERROR=1: a newer
# compiler's new warning must not break a user's build.
WARN := -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Wshadow \
	$(if $(filter 1 yes,$(WERROR)),-Werror)
DEFS := -D_GNU_SOURCE \
	-DSYSCONFDIR='"$(SYSCONFDIR)"' -DPLUGINDIR='"$(PLUGINDIR)"' \
	-DLIBEXECDIR='"$(LIBEXECDIR)"' -DRUNDIR='"$(RUNDIR)"' -DSTATEDIR='"$(STATEDIR)"'
# Each part of the tree sees its own headers and those of the folders
# below it, by plain -I (no "../" in any #include): the table of
# tests/lint/layout.sh says which folders each product folder (common/,
# gadgetd/ and its folders, functions/ and its) may include, and
# `layout.sh --incs` turns it into FOLDER=-IA,-IB,... words: a file gets
# those of its folder (a header it includes sees what its own folder
# may). Roughly: common/ sees itself; gadgetd/ (the daemon, gadgetctl)
# sees the gadgetd/ folders below each one and common/ (a plugin's rules
# reach it through its declaration, plugin_meta.h); functions/ (the
# worker runtime in functions/runtime/, the plugins beside it) sees the
# runtime (plugin.h) and common/, and functions/ptp/ functions/mtp/ too.
# Tests, and what no row names, see everything.
TEST_INCS := -Igadgetd $(patsubst %/,-I%,$(sort $(dir $(wildcard gadgetd/*/*.h)))) \
	-Ifunctions -Ifunctions/runtime -Ifunctions/mtp -Icommon -Itests/unit -Itests/fuzz
LAYOUT_INCS := $(shell tests/lint/layout.sh --incs .)
$(if $(filter common=%,$(LAYOUT_INCS)),,$(error tests/lint/layout.sh --incs: no -I flags for common/))
comma := ,
dir_of = $(patsubst %/,%,$(dir $(1)))
incs_of = $(or $(subst $(comma), ,$(patsubst $(call dir_of,$(1))=%,%,$\
	$(filter $(call dir_of,$(1))=%,$(LAYOUT_INCS)))),$(TEST_INCS))
# Preprocessor flags, then compiler flags; the user's CPPFLAGS, CFLAGS and
# LDFLAGS come last so that they win.
ALL_CPPFLAGS = $(DEFS) $(call incs_of,$<) $(CPPFLAGS)
BASE_CFLAGS := -std=gnu11 $(WARN)
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TEST_CFLAGS = $(BASE_CFLAGS) -O1 -g $(SAN)

# Cross builds with Debian's toolchains and the target's -dev packages,
# in the cross build root (tests/vm/mkcross.sh; make deb DEB_ARCH=arm64
# builds the package there), or with this machine's own multiarch
# packages, e.g.
#   make CROSS_COMPILE=aarch64-linux-gnu- B=build/arm64
# CROSS_COMPILE sets CC and PKG_CONFIG for the target unless given.
ifneq ($(CROSS_COMPILE),)
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config
endif
PKG_CONFIG ?= pkg-config
# libusbgx 0.3 (Debian 13) added inquiry_string to a mass storage LUN's
# attributes and refuses a LUN whose inquiry_string is NULL; 0.2 (Debian
# 12) has no such field. Which one the build has is found by compiling a
# use of it against the headers (gadgetd/profile/ktype.c).
USBG_MS_INQUIRY := $(shell printf '\043include <usbg/function/ms.h>\nstruct usbg_f_ms_lun_attrs a = { .inquiry_string = "" };\n' | \
	$(CC) $(shell $(PKG_CONFIG) --cflags libusbgx 2>/dev/null) -x c -fsyntax-only - >/dev/null 2>&1 && \
	echo -DHAVE_USBG_MS_INQUIRY_STRING)
DEFS += $(USBG_MS_INQUIRY)
# 64-bit file offsets and time_t on 32-bit ARM too (MTP objects and adb
# sync files over 4 GiB, dates after 2038); no change on 64-bit targets.
# Debian 12's armhf libaio still takes a 32-bit struct timespec: there
# epio's 100 ms wait while quiescing reads as 0 and polls instead.
BASE_CFLAGS += -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64

# check-cross: arm64 and armhf builds and unit tests under qemu-user.
check-cross:
	tests/vm/check-cross.sh $(B)

# check-cross-trixie: the same against Debian 13's libraries, in the
# root make deb SUITE=trixie uses (not part of make check).
check-cross-trixie:
	CROSS_SUITE=trixie CROSS_ROOTDIR=$(B)/cross-trixie tests/vm/check-cross.sh $(B)/trixie

# check-cross.sh against fake tests (no cross toolchain; part of make
# unit): a failing test fails the run, once.
check-cross-selftest:
	tests/vm/check-cross-selftest.sh

# The unit tests built, not run (check-cross runs them under qemu-user).
unit-build:
	$(MAKE) $(UNIT_BINS)

# check-arm64: the loopback suite's core on Debian's arm64 kernel and an
# arm64 userland under qemu-system-aarch64 (tests/vm/check-arm64.sh);
# check-armhf: the same with gadgetd built for armhf, 32-bit on that
# kernel.
check-arm64:
	tests/vm/check-arm64.sh $(B) arm64
check-armhf:
	tests/vm/check-arm64.sh $(B) armhf

# check-trixie: the trixie package (make deb SUITE=trixie, into
# $(B)/deb-trixie) installed with dpkg on the trixie bed, Debian 13's
# kernel and userland with systemd 257 as PID 1, by the loopback tests
# that prove what README promises (tests/vm/check-trixie.sh). Not part
# of make check (docs/testing.md has its time).
check-trixie:
	$(MAKE) deb SUITE=trixie DEB_ARCH=
	tests/vm/check-trixie.sh $(B)

# deb: gadgetd_*.deb in $(B)/deb (DEB_ARCH=arm64 or armhf cross-builds
# one, in the cross build root $(B)/cross-root: tests/vm/mkcross.sh).
# SUITE=trixie builds Debian 13's, for this machine's architecture or
# DEB_ARCH, in a trixie build root ($(B)/cross-trixie, made once), into
# $(B)/deb-trixie or $(B)/deb-trixie-DEB_ARCH; deb-trixie builds all
# three. Not part of make check.
deb:
ifeq ($(SUITE),)
	$(if $(DEB_ARCH),tests/vm/mkcross.sh $(B)/cross-root &&) \
		tests/vm/mkdeb.sh $(B)/deb $(DEB_ARCH) $(if $(DEB_ARCH),$(B)/cross-root/root)
else
	tests/vm/mkcross.sh $(B)/cross-$(SUITE) $(SUITE)
	tests/vm/mkdeb.sh $(B)/deb-$(SUITE)$(if $(DEB_ARCH),-$(DEB_ARCH)) "$(DEB_ARCH)" $(B)/cross-$(SUITE)/root
endif

deb-trixie:
	$(MAKE) deb SUITE=trixie DEB_ARCH=
	$(MAKE) deb SUITE=trixie DEB_ARCH=arm64
	$(MAKE) deb SUITE=trixie DEB_ARCH=armhf

# The loopback suite's t-deb.sh installs $(B)/deb's package: built first,
# without its unit tests (make unit runs them) or lintian (make deb does),
# unless make check built it with both just before (DEB_BUILT=yes).
loopback: deb-for-tests
deb-for-tests:
	$(if $(filter yes,$(DEB_BUILT)),ls $(B)/deb/gadgetd_*.deb,DEB_BUILD_OPTIONS=nocheck MKDEB_LINTIAN=no tests/vm/mkdeb.sh $(B)/deb)

.PHONY: check-cross check-cross-trixie check-cross-selftest unit-build check-arm64 check-armhf check-trixie deb deb-trixie deb-for-tests

.DEFAULT_GOAL := all
PLUGINS :=
UNIT_TESTS :=
FUZZERS :=

include $(sort $(wildcard functions/*/plugin.mk))

# Every plugin declares itself once (NAME_META, a functions/NAME/NAME_meta.c
# defining `const struct plugin_meta NAME_meta`), and the list of those
# declarations is generated from PLUGINS (common/plugin_list.h). gadgetd,
# gadgetctl and the unit tests link PLUGIN_LIST_SRCS.
$(foreach p,$(PLUGINS),$(if $($(p)_META),,$(error functions/$(p)/plugin.mk: $(p)_META is not set)))
PLUGIN_METAS := $(foreach p,$(PLUGINS),$($(p)_META))
PLUGIN_LIST_SRCS := $(B)/gen/plugin_list.c $(PLUGIN_METAS)

include gadgetd/gadgetd.mk
-include functions/runtime/runtime.mk
include $(sort $(wildcard tests/unit/*.mk))
include $(sort $(wildcard tests/fuzz/*.mk))

BINS := $(B)/gadgetd $(B)/gadgetctl $(B)/gadgetd-worker $(B)/gadgetd-mdns
AIOPRELOAD_SO := $(B)/gadgetd-aioguard.so
PLUGIN_SOS := $(PLUGINS:%=$(B)/plugins/%.so)

all: $(BINS) $(AIOPRELOAD_SO) $(PLUGIN_SOS) $(B)/gen/gadgetd.sysusers

# Rewritten only when PLUGINS changes, so that nothing relinks otherwise.
$(B)/gen/plugin_list.c: FORCE
	@mkdir -p $(@D)
	@{ echo '/* Generated from the Makefile'"'"'s PLUGINS: do not edit. */'; \
	echo '#include "plugin_list.h"'; echo; \
	for p in $(PLUGINS); do echo "extern const struct plugin_meta $${p}_meta;"; done; \
	echo; echo 'const struct plugin_meta *const plugin_list_metas[] = {'; \
	for p in $(PLUGINS); do echo "	&$${p}_meta,"; done; \
	echo '	NULL,'; echo '};'; } >$@.tmp
	@if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

# The sysusers.d file, from the same declarations, by a program built for
# and run on this machine (HOSTCC), also when CC is a cross compiler.
HOSTCC ?= cc
$(B)/host/sysusers_gen: gadgetd/sysusers_gen.c $(PLUGIN_LIST_SRCS) common/plugin_list.h \
		common/plugin_meta.h common/optdesc.h
	@mkdir -p $(@D)
	$(HOSTCC) -std=gnu11 $(WARN) $(DEFS) -Icommon -Ifunctions/mtp -o $@ gadgetd/sysusers_gen.c $(PLUGIN_LIST_SRCS)
$(B)/gen/gadgetd.sysusers: $(B)/host/sysusers_gen
	@mkdir -p $(@D)
	$< >$@.tmp && mv $@.tmp $@

FORCE:

# A header that moves or goes away stays named in the dependency files of
# the objects built with it, and -MP makes that name a target with no
# rule, so the objects would not be rebuilt: a unit test then linked an
# object built against the old plugin.h (2026-12-05, a false failure in
# check-cross). The headers of each build are listed in B/.headers; when
# one listed there is gone, B/.headers-gone is touched, and every object
# depends on it.
HEADERS := $(sort $(wildcard common/*.h gadgetd/*.h gadgetd/*/*.h functions/*/*.h tests/unit/*.h tests/fuzz/*.h))
HEADERS_GONE := $(B)/.headers-gone
$(shell mkdir -p $(B) && { [ -e $(HEADERS_GONE) ] || : >$(HEADERS_GONE); } && \
	if [ -f $(B)/.headers ]; then for h in $$(cat $(B)/.headers); do \
		[ -e $$h ] || { touch $(HEADERS_GONE); break; }; done; fi; \
	echo $(HEADERS) >$(B)/.headers)

$(B)/obj/%.o: %.c $(HEADERS_GONE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(B)/pic/%.o: %.c $(HEADERS_GONE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(B)/test/%.o: %.c $(HEADERS_GONE)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(B)/gadgetd: $(GADGETD_SRCS:%.c=$(B)/obj/%.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(GADGETD_LIBS)

$(B)/gadgetctl: $(GADGETCTL_SRCS:%.c=$(B)/obj/%.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(GADGETCTL_LIBS)

$(B)/gadgetd-mdns: $(MDNS_SRCS:%.c=$(B)/obj/%.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(MDNS_LIBS)

# Plugins resolve the runtime's plugin_*, loop_* and log_* from the worker,
# which exports those alone (functions/runtime/worker.map, a dynamic list).
$(B)/gadgetd-worker: $(WORKER_SRCS:%.c=$(B)/obj/%.o) functions/runtime/worker.map
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Wl,--dynamic-list=functions/runtime/worker.map \
		-o $@ $(filter %.o,$^) $(WORKER_LIBS)

$(AIOPRELOAD_SO): $(AIOPRELOAD_SRCS:%.c=$(B)/pic/%.o) functions/runtime/aiopreload.map
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-z,now \
		-Wl,--version-script=functions/runtime/aiopreload.map -o $@ $(filter %.o,$^)

# $(call objs_of,KIND,NAME): the objects of NAME_SRCS built as KIND.
objs_of = $(addprefix $(B)/$(1)/,$(patsubst %.c,%.o,$($(2)_SRCS)))

# Each plugin and unit test names its objects in a rule of its own:
# objects that are explicit prerequisites are never intermediate, so make
# neither deletes them at exit nor relinks everything on the next run.
$(foreach p,$(PLUGINS),$(eval $(B)/plugins/$(p).so: $(call objs_of,pic,$(p)) functions/runtime/plugin.map))
$(foreach t,$(UNIT_TESTS),$(eval $(B)/unit/$(t): $(call objs_of,test,$(t))))

$(B)/plugins/%.so:
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,--version-script=functions/runtime/plugin.map \
		-o $@ $(filter %.o,$^) $($*_LIBS)

# Each unit test links only the files under test (NAME_SRCS) and fakes.
$(B)/unit/%:
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(LDFLAGS) -o $@ $^ $($*_LIBS) -lcmocka

UNIT_BINS := $(UNIT_TESTS:%=$(B)/unit/%)

# UNIT_JOBS tests run at a time (default: two per CPU, as most of them
# wait on timers and children: the 79 took 48 s two at a time and 25 s
# four at a time on two CPUs, 2026-12-07); each one's output is in
# $(B)/unit/NAME.log and printed whole when it ends.
UNIT_JOBS ?= $(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1))))
unit: $(UNIT_BINS) exports names devheaders fuzz-long-selftest check-cross-selftest lint harness-selftest
	@tests/unit/run-units.sh $(UNIT_JOBS) $(UNIT_BINS)

# The test scripts' checks count: no `check ... && cmd`, no check in a
# pipeline or other subshell (tests/lint/checks.sh, with its self-test);
# the product's layout holds: each #include goes down its table of
# folders, none climbs by "../", no .c is over 1000 lines
# (tests/lint/layout.sh, after its self-test); docs/layout.md names only what exists and every
# source folder (tests/lint/layout-doc.sh, after its self-test); the
# bench's ratios fail a whole run with a figure missing or negative
# (tests/bench/ratios-selftest.sh).
lint:
	tests/lint/checks.sh
	tests/lint/layout-selftest.sh
	tests/lint/layout.sh .
	tests/lint/layout-doc-selftest.sh
	tests/lint/layout-doc.sh .
	tests/lint/plugin-names-selftest.sh
	tests/lint/plugin-names.py .
	tests/bench/ratios-selftest.sh

# Plugins and the worker export only what plugin.h declares.
exports: $(BINS) $(PLUGIN_SOS)
	tests/unit/exports.sh $(B)

# The plugin API as installed builds a plugin on its own
# (tests/unit/devheaders.sh): no header missing, none reaching into the tree.
devheaders:
	CC="$(CC)" NM=$(CROSS_COMPILE)nm tests/unit/devheaders.sh $(B)

# Every external name defined in foo.c is foo or foo_* (tests/unit/names.sh),
# checked on the objects the product links.
PRODUCT_OBJS := $(sort $(GADGETD_SRCS:%.c=$(B)/obj/%.o) $(GADGETCTL_SRCS:%.c=$(B)/obj/%.o) \
	$(MDNS_SRCS:%.c=$(B)/obj/%.o) $(AIOPRELOAD_SRCS:%.c=$(B)/pic/%.o) \
	$(WORKER_SRCS:%.c=$(B)/obj/%.o) $(foreach p,$(PLUGINS),$(call objs_of,pic,$(p))))
# names-selftest.sh first: the lint passes good names and lists a bad one.
names: $(BINS) $(PLUGIN_SOS)
	tests/unit/names-selftest.sh $(CC)
	NM=$(CROSS_COMPILE)nm tests/unit/names.sh $(B) $(PRODUCT_OBJS)

BED := $(B)/vm
bed:
	tests/vm/mkbed.sh $(BED)

# t-adb34 runs Debian's adb 34 as the host, and b-adbd Debian's adbd:
# both from one root of bookworm-backports (tests/vm/mkadbd.sh; made
# once, again when the script changes), so the machine keeps its adb 29.
adbd-root:
	tests/vm/mkadbd.sh $(B)/adbd

loopback: all bed adbd-root harness
	tests/loopback/run-suite.sh $(BED) $(B)/loopback

# make check (tests/vm/check-run.sh): the build's packages first, then
# the test tools' and cross toolchains' in the background while
# everything is compiled on every CPU (check-build, CHECK_JOBS) and the
# unit tests run (UNIT_JOBS); once those packages are in, the loopback
# bed and then the ARM side's preparation (its bed, the cross-built
# packages and unit tests) beside at the lowest CPU priority, through
# make deb and the loopback suite (one 1-vCPU VM per CPU), with
# check-cross (CROSS_JOBS) in that same niced group once it is done;
# then the two ARM beds at once, one vCPU each (93 s against 167 s one
# after the other with two, 2026-12-07).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check:
	+MAKE="$(MAKE)" CHECK_JOBS=$(CHECK_JOBS) tests/vm/check-run.sh $(B)

check-build: all $(UNIT_BINS) $(B)/asan/gadgetd fuzz

# The long variants: t-soak.sh, SOAK_ROUNDS rounds of random faults
# (make soak SOAK_SEED=N replays a run whose seed a failure printed), and
# t-stress.sh, STRESS_ROUNDS switches under parallel clients. make check
# runs the short versions (t-soak: the rounds that start within 45 s;
# t-stress: 60 switches).
SOAK_ROUNDS ?= 100
STRESS_ROUNDS ?= 1000
soak: all bed $(B)/asan/gadgetd harness
	GADGETD_TEST_TIMEOUT=$${GADGETD_TEST_TIMEOUT:-10800} \
	GADGETD_TEST_ENV="SOAK_ROUNDS=$(SOAK_ROUNDS) STRESS_ROUNDS=$(STRESS_ROUNDS) $(if $(SOAK_SEED),SOAK_SEED=$(SOAK_SEED))" \
		tests/loopback/run-suite.sh $(BED) $(B)/soak t-soak.sh t-stress.sh

# deps may install packages the build needs, so it runs first and alone:
# demo and bench do the rest in a make of their own, after it
# (prerequisites of one rule may run in any order under -j).
demo: deps
	+$(MAKE) all bed deb-for-tests harness
	tests/loopback/demo.sh $(BED) $(B)/demo

# make bench BENCH=b-switch,b-mtp runs only those (between the ceilings).
# b-adbd runs Debian's adbd from a root of its own (adbd-root).
bench: deps
	+$(MAKE) all bed harness $(B)/usbsync $(B)/adbhost $(B)/ffsfile $(B)/ffsdesc $(B)/adbmin $(B)/adbtcp adbd-root
	GADGETD_BENCH_ENV="$(if $(BENCH),BENCH_ONLY=$(BENCH)) $${GADGETD_BENCH_ENV:-}" \
		tests/bench/run-bench.sh $(BED) $(B)/bench

# The loopback tests' own programs, first on their PATH (lib.sh): under
# TCG a dynamically linked program's start costs the bed's one vCPU
# 40-90 ms, a static one's 8-16. timeout is tests/loopback/gd-timeout.c,
# linked statically; sleep, grep and cat are busybox's (busybox-static,
# tests/vm/deps.sh). tests/loopback/harness-selftest.sh checks them
# against coreutils' and GNU grep before a run uses them; make unit
# (which a board's make deb runs too, with no busybox) checks timeout
# and lib.sh's helpers.
HARNESS_BUSYBOX := sleep grep cat
harness: $(B)/harness/timeout $(HARNESS_BUSYBOX:%=$(B)/harness/%)
	tests/loopback/harness-selftest.sh $(B)/harness
$(B)/harness/timeout: tests/loopback/gd-timeout.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -static -o $@ $<
$(HARNESS_BUSYBOX:%=$(B)/harness/%):
	@mkdir -p $(@D)
	@test -x /bin/busybox || { echo "harness: no /bin/busybox (busybox-static; tests/vm/deps.sh test)"; exit 1; }
	ln -sf /bin/busybox $@

harness-selftest: $(B)/harness/timeout
	tests/loopback/harness-selftest.sh $(B)/harness
	dash tests/loopback/lib-selftest.sh

# Host side of the bench's libmtp-pattern bound (tests/bench/b-sourcesink.sh).
$(B)/usbsync: tests/bench/usbsync.c tests/bench/usbfind.c tests/bench/usbfind.h tests/bench/adbhop.c tests/bench/adbhop.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^) -lusb-1.0

# Device side of the bench's ffs-file bound (tests/bench/b-mtp.sh): a
# FunctionFS function that only moves the bytes between f_fs and a file.
$(B)/ffsfile: tests/bench/ffsfile.c tests/bench/ffsdescs.c tests/bench/ffsdescs.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^) -laio

# The bare-kernel switch floor's FunctionFS function (tests/bench/b-switch.sh):
# it writes a plugin's descriptors and holds ep0, nothing more.
$(B)/ffsdesc: tests/bench/ffsdesc.c tests/bench/ffsdescs.c tests/bench/ffsdescs.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^)

# The device side of b-adb's and b-net's least-daemon bound: an adb daemon
# that does only what any must for the bytes, for Debian's adb 29 unchanged.
$(B)/adbmin: tests/bench/adbmin.c tests/bench/ffsdescs.c tests/bench/ffsdescs.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^)

# Host side of the bench's delayed_ack and sendrecv_v2 figures
# (tests/bench/b-adb.sh): a raw-ADB host in C.
$(B)/adbhost: tests/bench/adbhost.c tests/bench/usbfind.c tests/bench/usbfind.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^) -lusb-1.0 -lcrypto

# Both halves of b-net's bound of adb over TCP: adb 29's pattern between
# two small programs over the same link (tests/bench/b-net.sh).
$(B)/adbtcp: tests/bench/adbtcp.c tests/bench/adbhop.c tests/bench/adbhop.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) -o $@ $(filter %.c,$^)

deps:
	@tests/vm/deps.sh

fuzz: $(FUZZERS:%=$(B)/fuzz/%)

# One rule for every fuzz target NAME (tests/fuzz/*.mk): NAME_SRCS built in
# one command, with NAME_CFLAGS and NAME_LIBS. With clang, libFuzzer
# targets; without, gcc builds (ASan+UBSan) that replay files/directories.
ifneq ($(shell command -v clang 2>/dev/null),)
FUZZ_CC := clang
# Undefined behaviour stops the run as a crash, as in the unit tests: by
# default clang's UBSan prints the error and goes on, and libFuzzer then
# counts nothing.
FUZZ_CFLAGS = $(BASE_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_MAIN :=
else
FUZZ_CC = $(CC)
FUZZ_CFLAGS = $(TEST_CFLAGS)
FUZZ_MAIN := tests/fuzz/standalone.c
endif
FUZZ_HDRS := $(wildcard gadgetd/*.h gadgetd/*/*.h functions/*.h functions/*/*.h \
	tests/fuzz/*.h tests/unit/*.h)

.SECONDEXPANSION:
$(B)/fuzz/%: $$($$*_SRCS) $(FUZZ_MAIN) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(DEFS) $(TEST_INCS) $(CPPFLAGS) $(FUZZ_CFLAGS) $($*_CFLAGS) \
		$(LDFLAGS) -o $@ $($*_SRCS) $(FUZZ_MAIN) $($*_LIBS)

# Replays every fuzz target's seed corpus once: a regression check that
# needs no time budget (an input that hangs fails after 60 s). Corpora live in tests/fuzz/corpus/NAME or
# tests/fuzz/corpus_NAME (NAME without "fuzz_").
fuzz-regress: fuzz
	@for f in $(FUZZERS); do n=$${f#fuzz_}; d=tests/fuzz/corpus/$$n; \
		[ -d $$d ] || d=tests/fuzz/corpus_$$n; \
		[ -d $$d ] || { echo "fuzz-regress: no corpus for $$f"; exit 1; }; \
		echo "== $$f: $$(ls $$d | wc -l) inputs from $$d"; \
		$(B)/fuzz/$$f -timeout=60 $$d/* >$(B)/fuzz/$$f.log 2>&1 || \
			{ tail -n 30 $(B)/fuzz/$$f.log; echo "fuzz-regress: $$f FAILED"; exit 1; }; \
	done

# Runs every fuzz target under libFuzzer (clang) for FUZZ_SECONDS each and
# prints execs and crashes per target, FUZZ_JOBS targets at a time (one
# per idle CPU at most); see tests/fuzz/fuzz-long.sh.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
# fuzz-long.sh against fake targets (no clang needed; part of make unit).
fuzz-long-selftest:
	@mkdir -p $(B)
	tests/fuzz/fuzz-long-selftest.sh >$(B)/fuzz-long-selftest.log 2>&1 || \
		{ cat $(B)/fuzz-long-selftest.log; echo "fuzz-long-selftest FAILED"; exit 1; }
fuzz-long:
	@command -v clang >/dev/null || { echo "fuzz-long: needs clang (libFuzzer)"; exit 1; }
	$(MAKE) fuzz
	FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/fuzz-long.sh $(FUZZ_SECONDS) $(B)/fuzz $(FUZZERS)

install: all install-files

# What a plugin built out of the tree needs (installed under
# INCLUDEDIR/gadgetd, with gadgetd-plugin.pc): plugin.h and the headers
# it includes, the loop and log it may call, and the version script; the
# example plugin (DEVDOCDIR/examples/plugin) and gadgetd-plugin(7).
PLUGIN_API := functions/runtime/plugin.h functions/runtime/spawner.h \
	functions/runtime/plugin.map common/plugin_meta.h common/optdesc.h \
	common/loop.h common/log.h
install-dev:
	for f in $(PLUGIN_API); do install -Dm644 $$f $(DESTDIR)$(INCLUDEDIR)/gadgetd/$$(basename $$f); done
	@mkdir -p $(DESTDIR)$(PKGCONFIGDIR)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@PLUGINDIR@|$(PLUGINDIR)|' \
		-e "s|@ABI@|$$(sed -n 's/^#define PLUGIN_ABI_VERSION //p' functions/runtime/plugin.h)|" \
		functions/runtime/gadgetd-plugin.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/gadgetd-plugin.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/gadgetd-plugin.pc
	for f in functions/example/example.c functions/example/Makefile; do \
		install -Dm644 $$f $(DESTDIR)$(DEVDOCDIR)/examples/plugin/$$(basename $$f); done
	install -Dm644 man/gadgetd-plugin.7 $(DESTDIR)$(MANDIR)/man7/gadgetd-plugin.7

# $(call install_conf,SRC,DEST): a file of /etc that its user may edit.
# Installed when DEST is absent; kept when it is SRC already or was edited,
# and then the shipped version goes next to it as DEST.dist (as dpkg does
# with .dpkg-dist), with a note saying so.
install_conf = if [ ! -e $(2) ]; then install -Dm644 $(1) $(2); \
	elif cmp -s $(1) $(2); then :; else install -Dm644 $(1) $(2).dist && \
	echo "install: kept $(2) (edited); the shipped version is $(2).dist"; fi

# Copies what `all` built; the loopback suite uses it inside the VM.
install-files: install-dev
	install -Dm755 $(B)/gadgetd $(DESTDIR)$(SBINDIR)/gadgetd
	install -Dm755 $(B)/gadgetctl $(DESTDIR)$(BINDIR)/gadgetctl
	install -Dm755 $(B)/gadgetd-worker $(DESTDIR)$(LIBEXECDIR)/gadgetd-worker
	install -Dm755 $(B)/gadgetd-mdns $(DESTDIR)$(LIBEXECDIR)/gadgetd-mdns
	install -Dm644 $(AIOPRELOAD_SO) $(DESTDIR)$(LIBEXECDIR)/gadgetd-aioguard.so
	for p in $(PLUGINS); do install -Dm644 $(B)/plugins/$$p.so $(DESTDIR)$(PLUGINDIR)/$$p.so; done
	$(call install_conf,profiles/gadgetd.conf,$(DESTDIR)$(SYSCONFDIR)/gadgetd/gadgetd.conf)
	for f in profiles/*.conf; do [ $$f = profiles/gadgetd.conf ] || \
		$(call install_conf,$$f,$(DESTDIR)$(SYSCONFDIR)/gadgetd/profiles/$$(basename $$f)) \
		|| exit 1; done
	# Examples (lab.conf: adb auth off) are documentation, never in /etc.
	for f in profiles/examples/*.conf; do \
		install -Dm644 $$f $(DESTDIR)$(DOCDIR)/examples/$$(basename $$f); done
	@# For a USB network link left to the board's own network manager.
	for f in profiles/examples/gadgetd-usb.network profiles/examples/gadgetd-usb.nmconnection; do \
		install -Dm644 $$f $(DESTDIR)$(DOCDIR)/examples/$$(basename $$f); done
	for f in udev/*.rules; do install -Dm644 $$f $(DESTDIR)$(UDEVDIR)/$$(basename $$f); done
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|/usr/sbin/gadgetd|$(SBINDIR)/gadgetd|g' gadgetd/gadgetd.service \
		>$(DESTDIR)$(UNITDIR)/gadgetd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/gadgetd.service
	install -Dm644 $(B)/gen/gadgetd.sysusers $(DESTDIR)$(SYSUSERSDIR)/gadgetd.conf
	@# The workers' users, made here only for a real install as root;
	@# packages rely on the sysusers.d file instead.
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		if command -v systemd-sysusers >/dev/null; then \
			systemd-sysusers $(SYSUSERSDIR)/gadgetd.conf; \
		else \
			for u in $$(awk '$$1 == "u" { print $$2 }' $(B)/gen/gadgetd.sysusers); do \
				id -u $$u >/dev/null 2>&1 || useradd --system --user-group \
					--no-create-home --home-dir /nonexistent \
					--shell /usr/sbin/nologin $$u || exit 1; \
			done; \
		fi; \
	fi
	@# udevd looks for changed rules at most every 3 s, when an event
	@# comes: a UDC appearing sooner would not start gadgetd. Tell it.
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && \
		udevadm control --ping >/dev/null 2>&1; then udevadm control --reload; fi
	install -Dm644 man/gadgetd.8 $(DESTDIR)$(MANDIR)/man8/gadgetd.8
	install -Dm644 man/gadgetctl.1 $(DESTDIR)$(MANDIR)/man1/gadgetctl.1
	install -Dm644 man/gadgetd.conf.5 $(DESTDIR)$(MANDIR)/man5/gadgetd.conf.5
	install -Dm644 gadgetd/cli/gadgetctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/gadgetctl
	install -Dm644 man/gadgetd-dbus.7 $(DESTDIR)$(MANDIR)/man7/gadgetd-dbus.7
	@# The D-Bus API: who may own the name, polkit's actions, the interface.
	install -Dm644 gadgetd/front/org.gadgetd1.conf $(DESTDIR)$(DATADIR)/dbus-1/system.d/org.gadgetd1.conf
	install -Dm644 gadgetd/front/org.gadgetd1.policy $(DESTDIR)$(DATADIR)/polkit-1/actions/org.gadgetd1.policy
	install -Dm644 gadgetd/front/org.gadgetd1.xml $(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.gadgetd1.xml

clean:
	rm -rf $(B)/obj $(B)/pic $(B)/test $(B)/unit $(B)/plugins $(B)/fuzz $(B)/asan $(B)/gen \
		$(B)/host $(BINS)

.PHONY: FORCE all check-build unit lint harness harness-selftest exports names bed loopback check soak demo bench adbd-root deps fuzz fuzz-regress fuzz-long fuzz-long-selftest install install-files install-dev devheaders clean

-include $(shell find $(B)/obj $(B)/pic $(B)/test $(B)/asan -name '*.d' -type f 2>/dev/null)
