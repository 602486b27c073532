#!/usr/bin/env python3
"""Finds test checks whose result is thrown away (tests/lint/checks.sh).

A test's `check DESC CMD...` (and `check_exit`) counts its result in the
shell that runs it (tests/loopback/lib.sh). Two shapes lose it:

  check "x" [ a ] && [ b ]     the second test runs outside check, and
                               check's own status is always 0
  check "x" grep p f | grep q  check runs in a pipeline's subshell: its
                               count and its failure vanish with it

The same loss happens to a check in a subshell of any other kind: in
( ... ), $( ... ) or `...`, in a compound command that is part of a
pipeline (cmd | while ...; do check ...; done), or in the background (&).
This reports each, as FILE:LINE: what.

It reads the shell language of the tests (POSIX sh plus the bash bits
they use) with a small tokenizer: quotes, escapes, line continuations,
comments, here-documents, $(...), ${...}, $((...)) and backquotes, so
that an `&&` or `|` inside `sh -c "..."` is not taken for the shape.

Usage: lostcheck.py FILE...   (exit 1 if anything was found)
"""
import sys

CHECKERS = ("check", "check_exit")
# Ends a simple command.
SEPARATORS = ("&&", "||", "|", ";", ";;", "&", "\n", ")")
REDIRS = ("<<", "<<-", ">", "<", ">>", ">&", "<&", ">|", "<>")
OPCHARS = "|&;()<>"


class Tok:
    def __init__(self, kind, text, line):
        self.kind = kind  # "word", "op" or "redir"
        self.text = text
        self.line = line


class Lexer:
    """Splits one shell text into words and operators. Command
    substitutions are kept in self.subs as (text, first line) for a
    pass of their own."""

    def __init__(self, text, line=1):
        self.s = text
        self.i = 0
        self.line = line
        self.toks = []
        self.subs = []
        self.heredocs = []  # (delimiter, strip tabs) waiting for a newline

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def adv(self, n=1):
        for _ in range(n):
            if self.i < len(self.s):
                if self.s[self.i] == "\n":
                    self.line += 1
                self.i += 1

    def run(self):
        while self.i < len(self.s):
            c = self.peek()
            if c in " \t\r":
                self.adv()
            elif c == "\\" and self.peek(1) == "\n":
                self.adv(2)
            elif c == "\n":
                self.toks.append(Tok("op", "\n", self.line))
                self.adv()
                self.skip_heredocs()
            elif c == "#":
                while self.i < len(self.s) and self.peek() != "\n":
                    self.adv()
            elif c in OPCHARS:
                self.operator()
            else:
                self.word()
        return self

    def operator(self):
        line = self.line
        for op in ("<<-", "&&", "||", ";;", "|&", "<<", ">>", ">&", "<&", ">|", "<>"):
            if self.s.startswith(op, self.i):
                self.adv(len(op))
                if op == "|&":
                    op = "|"
                if op in REDIRS:
                    self.toks.append(Tok("redir", op, line))
                    if op in ("<<", "<<-"):
                        self.heredoc_word(op == "<<-")
                else:
                    self.toks.append(Tok("op", op, line))
                return
        c = self.peek()
        self.adv()
        self.toks.append(Tok("redir" if c in "<>" else "op", c, line))

    def heredoc_word(self, strip):
        while self.peek() in (" ", "\t"):
            self.adv()
        start = len(self.toks)
        self.word()
        delim = self.toks[start].text if len(self.toks) > start else ""
        delim = delim.replace("'", "").replace('"', "").replace("\\", "")
        self.heredocs.append((delim, strip))

    def skip_heredocs(self):
        for delim, strip in self.heredocs:
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                body = self.s[self.i:end]
                self.adv(end - self.i + 1)
                if (body.lstrip("\t") if strip else body) == delim:
                    break
        self.heredocs = []

    def word(self):
        line = self.line
        start = self.i
        while self.i < len(self.s):
            c = self.peek()
            if c in " \t\r\n" or c in OPCHARS:
                break
            if c == "\\":
                self.adv(2)
            elif c == "'":
                self.adv()
                while self.i < len(self.s) and self.peek() != "'":
                    self.adv()
                self.adv()
            elif c == '"':
                self.dquote()
            elif c == "$":
                self.dollar()
            elif c == "`":
                self.backquote()
            else:
                self.adv()
        self.toks.append(Tok("word", self.s[start:self.i], line))

    def dquote(self):
        self.adv()
        while self.i < len(self.s):
            c = self.peek()
            if c == '"':
                self.adv()
                return
            if c == "\\":
                self.adv(2)
            elif c == "$":
                self.dollar()
            elif c == "`":
                self.backquote()
            else:
                self.adv()

    def dollar(self):
        if self.s.startswith("$((", self.i):
            self.adv(3)
            self.balanced("(", ")", 2)
        elif self.s.startswith("$(", self.i):
            self.adv(2)
            line = self.line
            start = self.i
            self.balanced("(", ")", 1)
            self.subs.append((self.s[start:self.i - 1], line))
        elif self.s.startswith("${", self.i):
            self.adv(2)
            self.balanced("{", "}", 1)
        else:
            self.adv()

    def backquote(self):
        self.adv()
        line = self.line
        start = self.i
        while self.i < len(self.s) and self.peek() != "`":
            self.adv(2 if self.peek() == "\\" else 1)
        self.subs.append((self.s[start:self.i], line))
        self.adv()

    def balanced(self, open_c, close_c, depth):
        """Past the `depth` closers still owed, honouring quotes."""
        while self.i < len(self.s) and depth > 0:
            c = self.peek()
            if c == "\\":
                self.adv(2)
                continue
            if c == "'":
                self.adv()
                while self.i < len(self.s) and self.peek() != "'":
                    self.adv()
                self.adv()
                continue
            if c == '"':
                self.dquote()
                continue
            if c == "`":
                self.backquote()
                continue
            if c == "#" and (self.i == 0 or self.s[self.i - 1] in " \t\n"):
                while self.i < len(self.s) and self.peek() != "\n":
                    self.adv()
                continue
            if c == open_c:
                depth += 1
            elif c == close_c:
                depth -= 1
            self.adv()


class Frame:
    """A compound command or subshell being read."""

    def __init__(self, kind, piped_in):
        self.kind = kind  # "(", "{", "if", "while", "until", "for", "case"
        self.piped_in = piped_in
        self.checks = []  # lines of the checks inside, not yet reported
        self.patterns = False  # case: reading patterns, not commands


OPENERS = {"if": "fi", "while": "done", "until": "done", "for": "done",
           "case": "esac", "{": "}"}
CLOSERS = {"fi": ("if",), "done": ("while", "until", "for"), "esac": ("case",),
           "}": ("{",)}
STAY_AT_START = ("then", "do", "else", "elif", "!", "time")


def is_assignment(w):
    name, eq, _ = w.partition("=")
    return eq == "=" and name != "" and (name[0].isalpha() or name[0] == "_") \
        and all(ch.isalnum() or ch == "_" for ch in name)


def lint(text, first_line, subshell, report):
    lx = Lexer(text, first_line).run()
    toks = lx.toks
    stack = [Frame("top", False)]
    at_start = True
    last_op = "\n"
    cur = None  # None, ("check", line), ("compound", frame) or ("cmd",)
    i = 0

    def found(line, what):
        report(line, what)

    def end_command(op):
        nonlocal cur
        if cur and cur[0] == "check":
            if op in ("&&", "||"):
                found(cur[1], "check followed by %s: what follows runs outside"
                      " check, whose own status is always 0" % op)
            elif op == "|":
                found(cur[1], "check in a pipeline: it runs in a subshell and"
                      " its count is lost")
            elif op == "&":
                found(cur[1], "check in the background: it runs in a subshell"
                      " and its count is lost")
            else:
                stack[-1].checks.append(cur[1])
        elif cur and cur[0] == "compound":
            fr = cur[1]
            if op in ("|", "&"):
                for ln in fr.checks:
                    found(ln, "check inside a compound command that is %s:"
                          " it runs in a subshell and its count is lost"
                          % ("piped" if op == "|" else "in the background"))
            else:
                stack[-1].checks.extend(fr.checks)
        cur = None

    def close(fr):
        nonlocal cur, at_start, last_op
        at_start = False
        last_op = "word"
        if fr.kind == "(":
            for ln in fr.checks:
                found(ln, "check in a ( ) subshell: its count is lost")
            fr.checks = []
        elif fr.piped_in:
            for ln in fr.checks:
                found(ln, "check inside a compound command that a pipe feeds:"
                      " it runs in a subshell and its count is lost")
            fr.checks = []
        cur = ("compound", fr)

    while i < len(toks):
        t = toks[i]
        top = stack[-1]
        if t.kind == "redir":
            # The operator and its target (a here-document's delimiter).
            i += 2 if i + 1 < len(toks) and toks[i + 1].kind == "word" else 1
            continue
        if top.kind == "case" and top.patterns:
            # Patterns up to ")", or the end of the case.
            if t.kind == "word" and t.text == "esac":
                stack.pop()
                close(top)
            elif t.kind == "op" and t.text == ")":
                top.patterns = False
                at_start = True
                last_op = ";"
            i += 1
            continue
        if t.kind == "op":
            if t.text == "(" and at_start:
                stack.append(Frame("(", last_op == "|"))
                last_op = "("
                i += 1
                continue
            if t.text == "(" and cur and cur[0] == "fname":
                # NAME() BODY: a function definition.
                i += 2 if i + 1 < len(toks) and toks[i + 1].text == ")" else 1
                cur = None
                at_start = True
                last_op = ";"
                continue
            if t.text == ")" and top.kind == "(":
                end_command(";")
                stack.pop()
                close(top)
                i += 1
                continue
            end_command(t.text)
            if t.text == ";;" and top.kind == "case":
                top.patterns = True
            at_start = True
            # A newline after && || | continues the command list.
            if t.text != "\n" or last_op not in ("&&", "||", "|"):
                last_op = t.text
            i += 1
            continue
        # A word.
        w = t.text
        if not at_start:
            if cur and cur[0] == "fname":
                cur = ("cmd",)
            if top.kind == "case" and w == "in" and not top.patterns and cur is None:
                top.patterns = True
            i += 1
            continue
        if is_assignment(w):
            i += 1
            continue
        if w in STAY_AT_START:
            i += 1
            continue
        if w in OPENERS:
            fr = Frame(w, last_op == "|")
            stack.append(fr)
            last_op = w
            if w in ("for", "case"):
                at_start = False
                cur = None
            i += 1
            continue
        if w in CLOSERS and top.kind in CLOSERS[w]:
            end_command(";")
            stack.pop()
            close(top)
            i += 1
            continue
        at_start = False
        piped = last_op == "|"
        last_op = "word"
        if w in CHECKERS and not (i + 1 < len(toks) and toks[i + 1].text == "("):
            if subshell:
                found(t.line, "check in a command substitution: it runs in a"
                      " subshell and its count is lost")
                cur = ("cmd",)
            elif piped:
                found(t.line, "check at the end of a pipeline: it runs in a"
                      " subshell and its count is lost")
                cur = ("cmd",)
            else:
                cur = ("check", t.line)
        else:
            cur = ("fname",)
        i += 1
    end_command("\n")
    for fr in stack[1:]:
        if fr.kind == "(":
            for ln in fr.checks:
                found(ln, "check in a ( ) subshell: its count is lost")
    for body, line in lx.subs:
        lint(body, line, True, report)


def main(paths):
    n = 0
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            text = f.read()
        found = []
        lint(text, 1, False, lambda line, what: found.append((line, what)))
        for line, what in sorted(set(found)):
            print("%s:%d: %s" % (p, line, what))
            n += 1
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
