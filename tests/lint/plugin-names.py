#!/usr/bin/env python3
"""gadgetd's own code names no plugin (issue 38, section 4).

    tests/lint/plugin-names.py [TREE]

What gadgetd knows of a plugin comes from its declaration
(common/plugin_meta.h): its commands, root request, TCP options, events
and keys file. So a string literal in a .c or .h file of gadgetd/ (or
of its folders) that names a plugin (a word that is a name in some
functions/*/plugin.mk's "PLUGINS += NAME") is a rule about that plugin
written in the wrong place. Comments are not read. Allowed: an example
in help text (a literal with "e.g."), and the names listed in ALLOWED
with their reason.
Fails, printing FILE:LINE and the literal, for each other one.
"""
import os
import re
import sys

# (file, literal): why it may name a plugin.
ALLOWED = {
    ("gadgetd/profile/ktype.c", "hid"): "the kernel's HID function type, not the plugin",
}

tree = sys.argv[1] if len(sys.argv) > 1 else "."


def plugins():
    names = set()
    fdir = os.path.join(tree, "functions")
    for d in sorted(os.listdir(fdir)):
        mk = os.path.join(fdir, d, "plugin.mk")
        if os.path.exists(mk):
            for m in re.finditer(r"^PLUGINS\s*\+=\s*(\S+)", open(mk).read(), re.M):
                names.add(m.group(1))
    return names


TOKEN = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def literals(text):
    """(line, literal) of each string literal outside comments."""
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith('"'):
            yield text.count("\n", 0, m.start()) + 1, tok[1:-1]


def main():
    names = plugins()
    if not names:
        print("%s: no plugins found under functions/" % tree)
        return 1
    word = re.compile(r"(?<![A-Za-z0-9])(%s)(?![A-Za-z0-9])" % "|".join(sorted(names)))
    bad = 0
    files = []
    for d, _, fs in os.walk(os.path.join(tree, "gadgetd")):
        files += [os.path.join(d, f) for f in fs if f.endswith((".c", ".h"))]
    for path in sorted(files):
        rel = os.path.relpath(path, tree)
        for line, lit in literals(open(path).read()):
            m = word.search(lit)
            if not m or "e.g." in lit or (rel, lit) in ALLOWED:
                continue
            print('%s:%d: "%s" names the plugin %s: declare it in its '
                  "plugin_meta instead" % (rel, line, lit, m.group(1)))
            bad = 1
    return bad


sys.exit(main())
