#!/bin/bash
# gadgetd/cli/gadgetctl.bash-completion driven the way bash drives it
# (COMP_WORDS, COMP_CWORD), against a gadgetctl stub that answers as
# gadgetd would. Part of make unit.
# Usage: completion.sh [COMPLETION_FILE]
set -u
export LC_ALL=C
file=${1:-gadgetd/cli/gadgetctl.bash-completion}
. /usr/share/bash-completion/bash_completion || exit 1
. "$file" || exit 1

# gadgetd's answers; another gadgetd's behind -s /run/x.sock.
gadgetctl()
{
	if [ "$1" = -s ]; then
		[ "$2" = /run/x.sock ] || return 3
		shift 2
		[ "$*" = "list --sets" ] && echo viasock
		return
	fi
	case "$*" in
	"list --sets") printf 'acm,ecm\nmtp,adb\nmtp,adb,aoa\nncm\n' ;;
	"list --profiles") printf 'android\nlab\n' ;;
	"list --functions") printf 'acm\t-\nadb\tadb\nmtp\tmtp\naoa\taccessory\nncm\t-\nex\texample\n' ;;
	# What gadgetctl answers itself: the commands of a built-in plugin
	# and of an out-of-tree one (example) that the worker describes.
	"list --commands adb") printf 'keys\t\nallow\tFINGERPRINT\n' ;;
	"list --commands mtp") printf 'stats\t\nstorage\tadd PATH [--name NAME] [--ro] | remove NAME|ID | list\n' ;;
	"list --commands accessory") printf 'revert\t\n' ;;
	"list --commands example") printf 'hello\t\nstats\t\n' ;;
	"list --commands -") return 5 ;;
	"adb keys") printf 'a1:b2:c3:d4 user@host\nee:ff:00:11 other@box\n' ;;
	*) return 3 ;;
	esac
}

fails=0
# expect "WORD WORD ... CURRENT" "sorted replies"
expect()
{
	local line=$1 want=$2 got
	read -ra COMP_WORDS <<<"$line"
	[ "${line: -1}" = " " ] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_gadgetctl gadgetctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	got=${got% }
	if [ "$got" != "$want" ]; then
		echo "FAIL: \"$line\": got \"$got\", want \"$want\""
		fails=$((fails + 1))
	else
		echo "ok: \"$line\" -> $got"
	fi
}

expect "gadgetctl " "adb aoa check ex help list lock monitor mtp off reload status storage switch unlock wait wakeup"
expect "gadgetctl s" "status storage switch"
expect "gadgetctl -" "--help --socket -h -s"
expect "gadgetctl storage " "--help eject insert status"
expect "gadgetctl storage eject -" "--force --lun"
expect "gadgetctl storage insert --" "--cdrom --lun --ro"
expect "gadgetctl storage insert --lun " "0 1 2 3 4 5 6 7"
expect "gadgetctl switch " "acm,ecm mtp,adb mtp,adb,aoa ncm"
expect "gadgetctl switch mtp" "mtp,adb mtp,adb,aoa"
expect "gadgetctl switch --profile " "android lab"
expect "gadgetctl switch --profile l" "lab"
expect "gadgetctl switch -" "--help --profile"
expect "gadgetctl list -" "--commands --functions --help --profiles --sets"
expect "gadgetctl list --commands " "accessory adb example mtp"
expect "gadgetctl status " "--help --json"
expect "gadgetctl monitor --j" "--json"
expect "gadgetctl wait " "--help --timeout"
expect "gadgetctl wait --timeout " ""
expect "gadgetctl adb " "allow keys"
expect "gadgetctl mtp " "stats storage"
expect "gadgetctl aoa r" "revert"
expect "gadgetctl ncm " ""
expect "gadgetctl ex " "hello stats"
expect "gadgetctl adb allow " "a1:b2:c3:d4 ee:ff:00:11"
# bash replaces only what follows the last colon (COMP_WORDBREAKS).
expect "gadgetctl adb allow a1:b" "b2:c3:d4"
expect "gadgetctl -s /run/x.sock switch " "viasock"
# Without gadgetd: the commands alone.
gadgetctl() { return 3; }
expect "gadgetctl " "check help list lock monitor off reload status storage switch unlock wait wakeup"
expect "gadgetctl switch " ""
[ $fails = 0 ] || { echo "completion: $fails failed"; exit 1; }
echo "completion: all passed"
