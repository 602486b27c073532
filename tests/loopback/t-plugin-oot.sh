# An out-of-tree plugin, as a board maker would build one: after `make
# install` (gd_install: the plugin API is part of it, as gadgetd-dev is
# of the package), functions/example/ copied to a folder outside the
# tree is built by its own Makefile against the installed headers alone
# (pkg-config gadgetd-plugin; no path into the tree on its command
# lines), installed into the plugin directory pkg-config names, described
# by `gadgetd-worker --describe` (its options and commands), and used
# in a profile: the host sees its interface (lsusb -v), its command
# answers through gadgetctl with the profile's options, gadgetd's access
# rules follow its declaration (a read command is the group's, an
# undeclared one root's), and a value out of its declared range is
# refused by gadgetctl check and the switch with the profile's file:line
# and field (gadgetd describes the plugin through the worker,
# gadgetd/profile/ootmeta.h). The same example built for the next ABI
# version is refused at its plugin line, naming the .so and both versions.
# gadgetctl --help and the installed bash completion list its commands.
# Runs in the guest (see run-suite.sh).
# bed: systemd
. "$SRC/tests/loopback/lib.sh"

WORK=/run/oot-plugin
ID=1d6b:01d0
NEXT_ID=1d6b:01d1
rm -rf "$WORK" /usr/include/gadgetd /usr/lib/gadgetd/example.so /usr/lib/gadgetd/example_next.so
mkdir -p "$WORK"
check "no gadgetd-plugin.pc before the install" sh -c '! pkg-config --exists gadgetd-plugin'
gd_install
check "pkg-config finds gadgetd-plugin after the install" pkg-config --exists gadgetd-plugin
PLUGINDIR=$(pkg-config --variable=plugindir gadgetd-plugin)
ABI=$(pkg-config --variable=abi_version gadgetd-plugin)
echo "plugindir $PLUGINDIR, ABI $ABI, Cflags $(pkg-config --cflags gadgetd-plugin)"
check "its plugindir is where gadgetd's plugins are" test -f "$PLUGINDIR/echo.so"

say "build the example outside the tree"
cp -r "$SRC/functions/example" "$WORK/example"
rm -f "$WORK/example/example.so"
# The next ABI version: the same source with abi_version one higher.
cp -r "$WORK/example" "$WORK/next"
sed -i -e 's/\.abi_version = PLUGIN_ABI_VERSION,/.abi_version = PLUGIN_ABI_VERSION + 1,/' \
	-e 's/\.name = "example",/.name = "example_next",/' "$WORK/next/example.c"
check "the next ABI's source differs in abi_version" grep -q "PLUGIN_ABI_VERSION + 1" "$WORK/next/example.c"
# Run from the copy, with nothing of the tree on the way: no -I, no VPATH.
(cd "$WORK/example" && env -u CPATH -u C_INCLUDE_PATH timeout 120 make) > "$WORK/build.log" 2>&1
rc=$?
cat "$WORK/build.log"
check "make in the copied folder: exit 0" [ $rc = 0 ]
check "its command lines name no path into the tree ($SRC)" sh -c "! grep -qF '$SRC' '$WORK/build.log'"
check "example.so exports gadgetd_plugin alone" \
	[ "$(nm -D --defined-only "$WORK/example/example.so" | awk '{ print $3 }')" = gadgetd_plugin ]
(cd "$WORK/example" && timeout 60 make install) > "$WORK/install.log" 2>&1
check "make install put it into $PLUGINDIR" test -f "$PLUGINDIR/example.so"
(cd "$WORK/next" && timeout 120 make >/dev/null 2>&1 &&
	install -m644 example.so "$PLUGINDIR/example_next.so")
check "the next ABI's build is installed as example_next.so" test -f "$PLUGINDIR/example_next.so"

say "gadgetd-worker --describe: its declaration, printed by its unprivileged worker"
W=/usr/libexec/gadgetd/gadgetd-worker
timeout 10 $W --describe "$PLUGINDIR/example.so" > "$WORK/describe.txt" 2>&1
rc=$?
cat "$WORK/describe.txt"
check "--describe example.so: exit 0" [ $rc = 0 ]
check "it declares repeat, an integer in 1..8, default 1" awk -F '\t' \
	'$1 == "option" && $2 == "repeat" && $3 == "int" && $5 == 1 && $6 == 8 && $9 == 1 { f = 1 } END { exit !f }' \
	"$WORK/describe.txt"
check "it declares hello, a read command" awk -F '\t' \
	'$1 == "command" && $2 == "hello" && $3 == "read" { f = 1 } END { exit !f }' "$WORK/describe.txt"
timeout 10 $W --describe "$PLUGINDIR/example_next.so" > "$WORK/describe-next.txt" 2>&1
rc=$?
cat "$WORK/describe-next.txt"
check "--describe example_next.so fails (exit 1)" [ $rc = 1 ]
check "naming the .so and both versions" grep -qF \
	"$PLUGINDIR/example_next.so: plugin ABI version $((ABI + 1)), but this gadgetd-worker loads version $ABI only" \
	"$WORK/describe-next.txt"

cat > /etc/gadgetd/profiles/oot.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x01d0;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "out-of-tree plugin"; serial = "OOT1"; };
};
functions: {
  example: { type = "ffs"; plugin = "example";
    options: { greeting = "hi from oot"; repeat = 2; }; };
  acm: { type = "acm"; };
};
sets = (
  { functions = [ "example" ]; product_id = 0x01d0; },
  { functions = [ "acm" ]; product_id = 0x01d2; }
);
default = "example";
P
check "gadgetctl check passes the profile" gadgetctl check /etc/gadgetd/profiles/oot.conf
gd_start oot
check "the host sees the example ($ID)" wait_usb "$ID" 20
lsusb -v -d "$ID" > "$WORK/lsusb.txt" 2>/dev/null
grep -E "bInterfaceClass|bInterfaceSubClass|iInterface|bEndpointAddress" "$WORK/lsusb.txt"
check "lsusb -v: its interface, \"gadgetd example\"" grep -q "iInterface .*gadgetd example" "$WORK/lsusb.txt"
check "lsusb -v: vendor class, subclass 0x42" \
	sh -c "grep -q 'bInterfaceClass *255' '$WORK/lsusb.txt' && grep -q 'bInterfaceSubClass *66' '$WORK/lsusb.txt'"
out=$(timeout 10 gadgetctl example hello 2>&1)
echo "gadgetctl example hello: $out"
check "its command answers with the profile's options" [ "$out" = "hi from oot hi from oot" ]
check "gadgetctl status shows its status key" gd_status 'plugin("example").status.greeting == "hi from oot"'

say "gadgetctl's help and the installed bash completion know its commands"
gadgetctl --help > "$WORK/help.txt" 2>&1
sed -n '/a plugin.s own command/,$p' "$WORK/help.txt"
check "gadgetctl --help lists example hello" grep -qE '^ +example hello ' "$WORK/help.txt"
check "and example_next, not described, with the reason" \
	grep -qE "^ +example_next +\(not described: .*plugin ABI version $((ABI + 1))," "$WORK/help.txt"
out=$(gadgetctl list --commands example | cut -f1 | tr '\n' ' ')
check "gadgetctl list --commands example: hello stats ($out)" [ "$out" = "hello stats " ]
comp=$(bash -c '. /usr/share/bash-completion/bash_completion
	. "$1"
	COMP_WORDS=(gadgetctl example ""); COMP_CWORD=2
	COMP_LINE="gadgetctl example "; COMP_POINT=${#COMP_LINE}
	_gadgetctl gadgetctl "" example
	echo "${COMPREPLY[*]}"' sh "$(pkg-config --variable=completionsdir bash-completion)/gadgetctl" 2>&1)
check "the installed completion offers hello stats after \"gadgetctl example\" ($comp)" [ "$comp" = "hello stats" ]

say "its commands' access, as its declaration says: hello and stats are read commands"
# gdoot is in group (plugdev) only: a read command is the group's; a
# command the plugin does not declare is for root and admin_group alone.
useradd -M -N -G plugdev gdoot 2>/dev/null
as_group() { setpriv --reuid=gdoot --regid=nogroup --init-groups "$@"; }
out=$(as_group timeout 10 gadgetctl example hello 2>&1)
rc=$?
echo "gdoot: gadgetctl example hello: $rc $out"
check "a group member runs hello, declared read (exit 0)" [ $rc = 0 ]
check "and gets its answer" [ "$out" = "hi from oot hi from oot" ]
out=$(as_group timeout 10 gadgetctl example stats 2>&1)
rc=$?
echo "gdoot: gadgetctl example stats: $rc $out"
check "a group member runs stats, declared read (exit 0)" [ $rc = 0 ]
out=$(as_group timeout 10 gadgetctl example reset 2>&1)
rc=$?
echo "gdoot: gadgetctl example reset: $rc $out"
check "a group member is refused reset, undeclared so admin-only (exit 4)" [ $rc = 4 ]
out=$(timeout 10 gadgetctl example reset 2>&1)
rc=$?
echo "root: gadgetctl example reset: $rc $out"
check "root gets to the plugin, which knows no reset" sh -c "echo '$out' | grep -q 'usage: hello | stats'"

# Profile $1 refused by gadgetctl check (exit 5) and by a switch to its
# set $2, both naming $3; their output in $WORK/$4check.txt and
# $WORK/$4switch.txt.
refused() {
	timeout 30 gadgetctl check "/etc/gadgetd/profiles/$1.conf" > "$WORK/$4check.txt" 2>&1
	rc=$?
	cat "$WORK/$4check.txt"
	check "gadgetctl check refuses $1 (exit 5)" [ $rc = 5 ]
	check "naming: $3" grep -qF "$3" "$WORK/$4check.txt"
	timeout 60 gadgetctl switch --profile "$1" "$2" > "$WORK/$4switch.txt" 2>&1
	rc=$?
	cat "$WORK/$4switch.txt"
	check "the switch to it fails" [ $rc != 0 ]
	check "gadgetd's answer names the same" grep -qF "$3" "$WORK/$4switch.txt"
}

say "a bad option: repeat = 99, out of the declared 1..8"
sed 's/repeat = 2;/repeat = 99;/' /etc/gadgetd/profiles/oot.conf > /etc/gadgetd/profiles/ootbad.conf
line=$(grep -n 'repeat = 99' /etc/gadgetd/profiles/ootbad.conf | cut -d: -f1)
want="/etc/gadgetd/profiles/ootbad.conf:$line: functions.example.options.repeat: 99 out of range (1..8)"
refused ootbad example "$want" bad
check "the example still answers" [ "$(timeout 10 gadgetctl example hello 2>&1)" = "hi from oot hi from oot" ]
gd_switch --profile oot acm
wait_usb 1d6b:01d2 20

say "the example built for ABI $((ABI + 1)) is refused"
cat > /etc/gadgetd/profiles/ootnext.conf <<P
gadget: {
  vendor_id = 0x1d6b; product_id = 0x01d1;
  strings: { lang = 0x409; manufacturer = "gadgetd"; product = "next ABI"; serial = "OOT2"; };
};
functions: {
  next: { type = "ffs"; plugin = "example_next"; };
};
sets = ( { functions = [ "next" ]; } );
P
line=$(grep -n 'plugin = "example_next"' /etc/gadgetd/profiles/ootnext.conf | cut -d: -f1)
want="$PLUGINDIR/example_next.so: plugin ABI version $((ABI + 1)), but this gadgetd-worker loads version $ABI only"
refused ootnext next "$want" next
check "at its plugin line" grep -qF "/etc/gadgetd/profiles/ootnext.conf:$line: functions.next.plugin" "$WORK/nextcheck.txt"
check "the host never saw it ($NEXT_ID)" sh -c "! lsusb -d $NEXT_ID >/dev/null"
check "the gadget stayed at acm" gd_status '.set == "acm"'
rm -f /etc/gadgetd/profiles/oot.conf /etc/gadgetd/profiles/ootbad.conf /etc/gadgetd/profiles/ootnext.conf \
	"$PLUGINDIR/example.so" "$PLUGINDIR/example_next.so"
finish
