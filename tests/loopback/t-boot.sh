# Start-up robustness (issue #10, section 6): a broken profile that is not
# in use, a saved set whose worker cannot start, a default set that fails
# too, a saved profile that is gone, and garbage in the state file. In
# every case gadgetd comes up, answers, and status says what it did.
# Runs in the guest (see run-suite.sh).
# bed: light - start-up after broken profiles and state files, gadgetd
#   restarted again and again; the unit at start-up: t-unit, t-deb, t-install
. "$SRC/tests/loopback/lib.sh"

STATE=/var/lib/gadgetd/state
PROFILES=/etc/gadgetd/profiles
VID=1d6b

gd_install
gd_config state_file "\"$STATE\""

# A test profile: kernel functions, and "ghost", a FunctionFS function
# whose plugin is not installed, so its worker exits before it is ready
# (the same way every time, whatever other workers do).
boot_profile() { # NAME DEFAULT
	cat > "$PROFILES/$1.conf" <<EOF
gadget: {
  vendor_id = 0x$VID; product_id = 0x0104;
  strings: { manufacturer = "gadgetd"; product = "boot test"; serial = "BOOT1"; };
};
functions: {
  acm: { type = "acm"; };
  ecm: { type = "ecm"; dev_addr = "02:00:00:00:00:01"; host_addr = "02:00:00:00:00:02"; };
  ncm: { type = "ncm"; dev_addr = "02:00:00:00:00:03"; host_addr = "02:00:00:00:00:04"; };
  ghost: { type = "ffs"; plugin = "nosuchplugin"; };
};
sets = (
  { functions = [ "acm", "ecm" ]; product_id = 0x0201; },
  { functions = [ "ncm" ]; product_id = 0x0202; },
  { functions = [ "acm", "ghost" ]; product_id = 0x0203; },
  { functions = [ "ghost" ]; product_id = 0x0204; },
  { functions = [ "acm" ]; product_id = 0x0205; }
);
default = "$2";
EOF
	chmod 644 "$PROFILES/$1.conf"
}
boot_profile boot "acm,ecm"
boot_profile bootoff "ghost"
test -e /usr/lib/gadgetd/nosuchplugin.so && die "a plugin named nosuchplugin is installed"

# Line 5 names a function type that does not exist.
cat > "$PROFILES/broken.conf" <<'EOF'
gadget: {
  vendor_id = 0x1d6b; product_id = 0x0104;
  strings: { manufacturer = "m"; product = "p"; serial = "s"; };
};
functions: { x: { type = "nosuchtype"; }; };
sets = ( { functions = [ "x" ]; } );
EOF
chmod 644 "$PROFILES/broken.conf"

state() { # PROFILE SET CONF_PROFILE
	mkdir -p "${STATE%/*}"
	printf 'profile=%s\nset=%s\nconf_profile=%s\n' "$1" "$2" "$3" > "$STATE"
}
boot_line() { gd_status '.boot'; }
status_set() { gd_status 'if .set == "" then "off" else .set end'; }
# The boot line must contain the text.
boot_has() { boot_line | grep -qF -- "$1" || { echo "boot: $(boot_line)"; return 1; }; }
set_is() { [ "$(status_set)" = "$1" ] || { echo "set: $(status_set), expected $1"; return 1; }; }
state_set_is() { grep -qx "set=$1" "$STATE" || { echo "state file:"; cat "$STATE"; return 1; }; }
boot_ends_off() { boot_line | grep -q "; the gadget is off$"; }
unbound() { gd_status '.udc == ""'; }
# gd_start, with more time: a start-up that falls back runs two switches,
# and the bed's CPUs are shared.
boot_start() { GD_START_WAIT=60 gd_start; }

say "(a) a broken profile that is not in use"
rm -f "$STATE"
gd_config profile '"boot"'
boot_start
check "gadgetd started with broken.conf beside the active profile" kill -0 "$GD_PID"
check "the default set came up" set_is acm,ecm
check "status: the default set, no saved state" boot_has "default set acm,ecm (profile boot)"
check "host sees $VID:0201" wait_usb "$VID:0201"
check "gadgetctl switch ncm" gd_switch ncm
check "host sees $VID:0202" wait_usb "$VID:0202"
check "list marks broken.conf with its reason" sh -c \
	"timeout 10 gadgetctl list | grep -q '^broken profile broken: $PROFILES/broken.conf:5: functions.x: unknown type'"
check "list does not mark the good ones" sh -c "! timeout 10 gadgetctl list | grep -q '^broken profile boot'"
check_exit 5 "switch --profile broken is refused" sh -c 'timeout 10 gadgetctl switch --profile broken x >sw.txt 2>&1'
check "the refusal names file:line: field" grep -q "broken.conf:5: functions.x" sw.txt
check_exit 1 "gadgetd -n reports the broken profile" sh -c 'gadgetd -n 2>n.txt'
check "gadgetd -n names file:line: field" grep -q "^$PROFILES/broken.conf:5: functions.x: unknown type" n.txt
check "the set the user chose is saved" state_set_is ncm
gd_stop

say "(b) a saved set whose worker cannot start"
state boot acm,ghost boot
boot_start
check "gadgetd answers" set_is acm,ecm
check "status: the saved set failed, and why" boot_has "saved set acm,ghost failed: function ghost: "
check "status: fell back to the default" boot_has "fell back to default acm,ecm (profile boot)"
check "host sees the default set $VID:0201" wait_usb "$VID:0201"
check "the state file still names the user's choice" state_set_is acm,ghost
check "the log says so" gd_log_has "start: saved set acm,ghost failed"
check "gadgetctl switch ncm after the fallback" gd_switch ncm
check "now the state file follows the user" state_set_is ncm
gd_stop

say "(c) the default fails too"
gd_config profile '"bootoff"'
state bootoff acm,ghost bootoff
boot_start
check "the gadget is off" set_is off
check "status: each step" boot_has "saved set acm,ghost failed: function ghost: "
check "status: the default failed too, gadget off" boot_has "default ghost failed: function ghost: "
check "status: ends with the gadget off" boot_ends_off
check "the gadget is bound to no UDC" unbound
check "nothing left in ConfigFS" sh -c '[ -z "$(ls /sys/kernel/config/usb_gadget/gadgetd/functions 2>/dev/null)" ]'
check "gadgetd still answers: switch acm" gd_switch acm
check "host sees $VID:0205" wait_usb "$VID:0205"
gd_stop

say "(d) garbage in the state file"
gd_config profile '"boot"'
head -c 100000 /dev/urandom > "$STATE"
boot_start
check "an oversized state file: default set" set_is acm,ecm
check "status names the state file and why it was ignored" boot_has "state file ignored ($STATE: larger than 4096 bytes"
check "the log warns" gd_log_has "$STATE: larger than 4096 bytes; not a state file; ignored"
check "the garbage was replaced by what is live" state_set_is acm,ecm
gd_stop
# A line longer than the old 512-byte buffer, whose tail would have been
# read as a line of its own.
printf 'profile=boot\nset=%0507dprofile=evil\nconf_profile=boot\n' 0 > "$STATE"
boot_start
check "a split line: default set" set_is acm,ecm
check "status names file:line: field" boot_has "state file ignored ($STATE:2: set: longer than 511 bytes)"
gd_stop
printf '\033[2J\001\002 garbage\n' > "$STATE"
boot_start
check "binary garbage: default set" set_is acm,ecm
check "status: the line, shown safely" boot_has "state file ignored ($STATE:1: not a KEY=VALUE line)"
check_exit 1 "gadgetd -n still fails on broken.conf" sh -c 'gadgetd -n 2>n2.txt'
gd_stop

say "(e) the saved profile is gone"
state gone acm boot
boot_start
check "the configured profile's default set" set_is acm,ecm
check "status: the saved profile failed, fell back" boot_has "saved profile gone failed: $PROFILES/gone.conf: No such file or directory; fell back to profile boot; default set acm,ecm (profile boot)"
check "the state file still names it" grep -qx "profile=gone" "$STATE"
gd_stop

finish
