#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""doclinks.py [--root DIR] [--max-readme N] [FILE.md...]: check that every
link and path in the documents is valid; say each one that is not, as
FILE:LINE: what, and exit 1 (0 when all hold, 2 on a usage error).

By default the documents are README.md, docs/*.md, the man pages
(man/*.[1-8], read as text: their font escapes dropped) and the wings'
READMEs (collector/README.md, analyze/README.md) under the root (the
repository: this file's ../..). What it checks, outside fenced code blocks
unless said:
- links [text](target), images ![alt](target) and reference definitions
  [id]: target: a relative target is a file or directory (relative to the
  document's directory), its #anchor a heading of that file as GitHub
  makes anchors (the heading's text without its markup, lower-cased, every
  character but letters, digits, spaces, '-' and '_' dropped, spaces made
  '-'; the second of two equal ones '-1', ...) or an <a name|id> in it;
  http, https and mailto targets are not fetched;
- paths that look like the repository's, in backquotes or in the text, and
  in fenced code blocks too (commands name scripts): a word that begins
  with one of the repository's top directories (bpf/, collector/, docs/,
  tests/, ...) or is one of its top files (Makefile, ...), not inside a
  longer path (build/samples/x is the build's); a component in capitals
  (TARGET, N) or <like-this> stands for any name, and * ? [ globs match;
  at least one file must match (a program: its source, x.c, x.sh, x.py).
  A trailing ':LINE' or ',' is not part of it;
- other documents named: a word ending in .md resolves from the document's
  directory or the root;
- tests named in backquotes (`test_spans`, `test_collector_profile*`, with
  an optional [mode]): a tests/integration/test_*.sh, tests/unit/test_*.c
  or fuzz target of that name;
- the man pages of our programs, collector(8) and analyze(1): man/NAME.N;
- with --options FILE (lines "PROGRAM --OPTION", collector's and analyze's
  as their --help has them): each option of a collector or analyze command
  line, in backquotes or in a fenced block (up to a ` -- `, after which the
  command's own options come), is one of that program's;
- a README.md below the top (a wing's) lists its files in a fenced block,
  "wing/" at the start of a line opening a wing and its files indented
  under it, the others at the start of a line: each is there;
- README.md has at most --max-readme lines (300).
"""
import argparse
import fnmatch
import glob
import os
import re
import sys

TOP_SKIP = {".git", "build", "node_modules"}


def slug(text):
    """GitHub's anchor for a heading's text (github-slugger)."""
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)   # links and images: their text
    t = re.sub(r"<[^>]+>", "", t)                          # inline HTML tags
    t = t.strip().lower()
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def fenced_blocks(lines):
    """For each line, whether it is inside (or opens or closes) a fenced block."""
    inside, fence, out = False, "", []
    for ln in lines:
        m = re.match(r"^\s*(```+|~~~+)", ln)
        if m and not inside:
            inside, fence = True, m.group(1)[0] * 3
            out.append(True)
        elif m and inside and ln.strip().startswith(fence):
            inside = False
            out.append(True)
        else:
            out.append(inside)
    return out


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    found, seen = set(), {}
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError:
        lines = []
    fenced = fenced_blocks(lines)
    for ln, f in zip(lines, fenced):
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", ln):
            found.add(m.group(1))
        if f:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", ln)
        if not m:
            continue
        s = slug(m.group(1))
        if s in seen:
            seen[s] += 1
            found.add("%s-%d" % (s, seen[s]))
        else:
            seen[s] = 0
            found.add(s)
    cache[path] = found
    return found


CMD_RE = re.compile(r"^(?:sudo\s+)?(?:\S+\s+)?(?:[\w./-]*/)?(collector|analyze)\b(.*)$")


class Checker:
    def __init__(self, root, options=None):
        self.root = os.path.realpath(root)
        self.options = options
        self.errors = []
        names = [n for n in os.listdir(self.root) if n not in TOP_SKIP and not n.startswith(".")]
        self.top_dirs = sorted(n for n in names if os.path.isdir(os.path.join(self.root, n)))
        self.top_files = sorted(n for n in names if os.path.isfile(os.path.join(self.root, n)))
        dirs = "|".join(map(re.escape, self.top_dirs))
        # a path: a top directory and more, not inside a longer path or a URL
        self.path_re = re.compile(r"(?<![\w./~$-])((?:%s)/[\w.*?\[\]<>{}=@+,-]*(?:/[\w.*?\[\]<>{}=@+,-]+)*/?)" % dirs)
        self.md_re = re.compile(r"(?<![\w./~:-])([\w.-]+(?:/[\w.-]+)*\.md)\b")

    def err(self, doc, n, what):
        self.errors.append("%s:%d: %s" % (os.path.relpath(doc, self.root), n, what))

    def exists_glob(self, rel):
        """Whether a path (placeholders and globs allowed) names a file here."""
        rel = rel.rstrip("/")
        parts = []
        for c in rel.split("/"):
            c = re.sub(r"<[^>]*>", "*", c)
            c = re.sub(r"(?<![a-z])[A-Z][A-Z_]+(?![a-z])", "*", c)
            parts.append(c)
        pat = os.path.join(self.root, *parts)
        if os.path.exists(pat):
            return True
        return bool(glob.glob(pat))

    def link(self, doc, n, target):
        if re.match(r"^(https?:|mailto:|ftp:)", target) or target.startswith("//"):
            return
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
        if path and not os.path.exists(dest):
            self.err(doc, n, "link to %s: no such file" % target)
            return
        if anchor and dest.endswith(".md") and anchor not in anchors_of(dest):
            self.err(doc, n, "link to %s: no heading #%s in %s" % (
                target, anchor, os.path.relpath(dest, self.root)))

    def repo_path(self, doc, n, p):
        p = re.sub(r"[.,;:)]+$", "", p)           # punctuation after it
        p = re.sub(r":\d+(-\d+)?$", "", p)          # file:LINE
        if p.endswith("/") and len(p.split("/")) == 2 and p[:-1] in self.top_dirs:
            return
        # a program is named by its path without its source's suffix
        if not any(self.exists_glob(p + x) for x in ("", ".c", ".sh", ".py")):
            self.err(doc, n, "path %s: no such file in the repository" % p)

    def command(self, doc, n, text):
        """The options of a collector or analyze command line in @text."""
        if self.options is None:
            return
        for part in re.split(r"[|;&]|\$\(", text):
            m = CMD_RE.match(part.strip())
            if not m or (m.group(2) and not m.group(2)[:1].isspace()):
                continue
            args = m.group(2).split(" -- ")[0]
            for o in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", args):
                if o not in self.options.get(m.group(1), ()):
                    self.err(doc, n, "%s %s: no such option (%s --help)" % (m.group(1), o, m.group(1)))

    def test_name(self, doc, n, name):
        name = re.sub(r"\[[^\]]*\]$", "", name)
        pats = ["tests/integration/%s.sh", "tests/unit/%s.c", "fuzz/%s.c", "tests/tools/%s.c"]
        if not any(self.exists_glob(p % name) for p in pats):
            self.err(doc, n, "test %s: no tests/integration/%s.sh, tests/unit/%s.c" % (name, name, name))

    def check(self, doc):
        try:
            text = open(doc, encoding="utf-8").read()
        except OSError as e:
            self.err(doc, 0, "cannot read: %s" % e.strerror)
            return
        lines = text.split("\n")
        if re.search(r"\.[1-8]$", doc):    # a man page: its text without troff's escapes
            lines = [re.sub(r"\\f[A-Z]|\\\(..|\\&", " ", ln).replace("\\-", "-") for ln in lines]
        fenced = fenced_blocks(lines)
        self.wing_files(doc, lines, fenced)
        for i, (ln, f) in enumerate(zip(lines, fenced), 1):
            if not f:
                spans = re.findall(r"`([^`]+)`", ln)
                bare = re.sub(r"`[^`]*`", " ", ln)
                for m in re.finditer(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", bare):
                    self.link(doc, i, m.group(1))
                m = re.match(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)", bare)
                if m:
                    self.link(doc, i, m.group(1))
                for s in spans:
                    self.command(doc, i, s)
                    if re.fullmatch(r"test_[a-z0-9_*]+(\[[a-z,]+\])?", s):
                        self.test_name(doc, i, s)
                    if s in self.top_files:
                        continue
                    for m in self.path_re.finditer(s):
                        self.repo_path(doc, i, m.group(1))
                plain = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", bare)   # link targets checked above
                plain = re.sub(r"https?://\S+", " ", plain)
                for m in self.path_re.finditer(plain):
                    self.repo_path(doc, i, m.group(1))
                for m in self.md_re.finditer(plain + " " + " ".join(spans)):
                    self.md_name(doc, i, m.group(1))
                for m in re.finditer(r"\b(collector|analyze)\((\d)\)", ln):
                    if not os.path.exists(os.path.join(self.root, "man", "%s.%s" % m.groups())):
                        self.err(doc, i, "man page %s(%s): no man/%s.%s" % (m.group(1), m.group(2),
                                                                           m.group(1), m.group(2)))
            else:
                self.command(doc, i, re.sub(r"\s+#.*$", "", ln))
                code = re.sub(r"https?://\S+", " ", ln)
                for m in self.path_re.finditer(code):
                    self.repo_path(doc, i, m.group(1))

    def wing_files(self, doc, lines, fenced):
        """A wing README's listing: "main.c", "kernel/", then "  setup.c"."""
        d = os.path.dirname(doc)
        if os.path.basename(doc) != "README.md" or os.path.realpath(d) == self.root:
            return
        wing = None
        for i, (ln, f) in enumerate(zip(lines, fenced), 1):
            if not f or ln.lstrip().startswith("```"):
                continue
            m = re.match(r"^([\w.-]+)/(\s|$)", ln)
            if m:
                wing = m.group(1)
                if not os.path.isdir(os.path.join(d, wing)):
                    self.err(doc, i, "wing %s/: no such directory in %s" % (wing, os.path.relpath(d, self.root)))
                continue
            m = re.match(r"^(\s*)([\w.-]+\.[ch])(\s|$)", ln)
            if not m:
                continue
            if not m.group(1):
                wing = None
            rel = os.path.join(wing, m.group(2)) if m.group(1) and wing else m.group(2)
            if not os.path.exists(os.path.join(d, rel)):
                self.err(doc, i, "%s: no such file in %s" % (rel, os.path.relpath(d, self.root)))

    def md_name(self, doc, n, name):
        if "*" in name or name.startswith("/") or name.split("/")[0] in self.top_dirs:
            return  # a path of the repository: checked as one
        for base in (os.path.dirname(doc), self.root):
            if os.path.exists(os.path.join(base, name)):
                return
        self.err(doc, n, "document %s: not in %s nor at the top" % (
            name, os.path.relpath(os.path.dirname(doc), self.root) or "."))


def main():
    ap = argparse.ArgumentParser(description="check the documents' links and paths")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--max-readme", type=int, default=300)
    ap.add_argument("--options", help="a file of the programs' options: PROGRAM --OPTION a line")
    ap.add_argument("docs", nargs="*")
    a = ap.parse_args()
    opts = None
    if a.options:
        opts = {}
        for ln in open(a.options):
            if len(ln.split()) == 2:
                opts.setdefault(ln.split()[0], set()).add(ln.split()[1])
    c = Checker(a.root, opts)
    docs = a.docs or ([os.path.join(c.root, "README.md")] +
                      sorted(glob.glob(os.path.join(c.root, "docs", "*.md"))) +
                      sorted(glob.glob(os.path.join(c.root, "man", "*.[1-8]"))) +
                      [p for p in (os.path.join(c.root, w, "README.md") for w in ("collector", "analyze"))
                       if os.path.exists(p)])
    for d in docs:
        c.check(os.path.realpath(d))
    readme = os.path.join(c.root, "README.md")
    if os.path.exists(readme):
        n = open(readme, encoding="utf-8").read().count("\n")
        if n > a.max_readme:
            c.errors.append("README.md: %d lines, more than %d: the rest belongs in docs/" % (n, a.max_readme))
    for e in c.errors:
        print(e)
    sys.stdout.flush()
    print("doclinks: %d document%s, %d problem%s" % (len(docs), "" if len(docs) == 1 else "s",
                                                  len(c.errors), "" if len(c.errors) == 1 else "s"),
          file=sys.stderr)
    return 1 if c.errors else 0


if __name__ == "__main__":
    sys.exit(main())
