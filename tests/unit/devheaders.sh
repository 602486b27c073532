#!/bin/sh
# The plugin API as installed (Makefile: install-dev) compiles on its own:
# a plugin that includes only the staged headers, found through the staged
# gadgetd-plugin.pc and no path into the tree, builds with -Werror and
# links with the staged version script into a .so that exports
# gadgetd_plugin alone; so does the example plugin (functions/example/),
# copied out of the tree and built by its own Makefile.
#   tests/unit/devheaders.sh BUILD_DIR
set -eu
b=$(realpath "${1:-build}")
CC=${CC:-cc}
stage=$b/devstage
rm -rf "$stage"
make -s install-dev DESTDIR="$stage" PREFIX=/usr
pc=$stage/usr/lib/pkgconfig
cflags=$(PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$stage pkg-config --cflags gadgetd-plugin)
map=$stage$(PKG_CONFIG_PATH=$pc pkg-config --variable=mapfile gadgetd-plugin)
dir=$(PKG_CONFIG_PATH=$pc pkg-config --variable=plugindir gadgetd-plugin)
abi=$(PKG_CONFIG_PATH=$pc pkg-config --variable=abi_version gadgetd-plugin)
fail() { echo "devheaders: $*"; exit 1; }
[ "$dir" = /usr/lib/gadgetd ] || fail "plugindir is \"$dir\", not /usr/lib/gadgetd"
[ -n "$abi" ] || fail "no abi_version"
case "$cflags" in *"$stage"/usr/include/gadgetd*) ;; *) fail "Cflags \"$cflags\" miss the staged headers" ;; esac

# Compiled in a folder of its own, so that no header of the tree is near.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/p.c" <<'C'
#include "plugin.h"
#include "loop.h"
#include "log.h"

static const struct optdesc p_options[] = {
	{ .name = "size", .type = OPTDESC_INT, .min = 1, .max = 9, .def = "3" },
	{ 0 }
};
static const struct plugin_meta p_meta = { .name = "p", .options = p_options };

static int p_init(struct plugin *p, struct plugin_desc *desc, void **priv)
{
	long long n;

	if (plugin_option_int(p, "size", &n) < 0)
		return -EINVAL;
	log_info("size %lld, loop %p", n, (void *)plugin_loop(p));
	desc->n_eps = 1;
	desc->eps[0].type = PLUGIN_EP_BULK_IN;
	*priv = NULL;
	return 0;
}

const struct plugin_ops gadgetd_plugin = {
	.abi_version = PLUGIN_ABI_VERSION,
	.name = "p",
	.meta = &p_meta,
	.init = p_init,
};
C
(cd "$work" && $CC -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror \
	$cflags -fPIC -shared -Wl,--version-script="$map" \
	-o p.so p.c) || fail "a plugin does not build against the staged headers alone"
syms=$(${NM:-nm} -D --defined-only "$work/p.so" | awk '{ print $3 }')
[ "$syms" = gadgetd_plugin ] || fail "p.so exports \"$syms\", not gadgetd_plugin alone"
# The example (functions/example/), copied out and built by its own Makefile.
cp -r functions/example "$work/example"
rm -f "$work/example/example.so"
PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$stage make -s -C "$work/example" \
	CC="$CC" CFLAGS="-O2 -Werror" PLUGIN_MAP="$map" >/dev/null ||
	fail "functions/example does not build against the staged headers alone"
syms=$(${NM:-nm} -D --defined-only "$work/example/example.so" | awk '{ print $3 }')
[ "$syms" = gadgetd_plugin ] || fail "example.so exports \"$syms\", not gadgetd_plugin alone"
grep -q "^#define PLUGIN_ABI_VERSION $abi\$" "$stage/usr/include/gadgetd/plugin.h" ||
	fail "abi_version $abi is not plugin.h's PLUGIN_ABI_VERSION"
echo "devheaders: a plugin builds against the installed headers alone (ABI $abi)"
