#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""profile_check.py: answer the profile tests' questions about a TSV's
stack and sample rows (docs/tsv-format.md, Profile rows).

usage: profile_check.py [--elf <file>] [--tid <tid>] [--pid <pid>] [--comm <comm>]
                        [--from <ts>] [--to <ts>] [--name <text>] [--then <text>]
                        <command> <tsv>...

A frame of the ELF <file> is a `b:` frame with its GNU build id (readelf
-n, padded with zero bytes to 20 as the kernel pads it) or an `f:` frame
with its path (realpath, as /proc/PID/maps names it); its file offset is
turned into a virtual address by the PT_LOAD that holds it (readelf -lW)
and into the function whose [value, value + size) holds it (nm -S), or
the nearest one below. Sample filters (--tid, --pid, --comm: the comm
after TSV unescaping; --from, --to: ts_ns in [from, to)) apply to every
command that counts samples.

commands (each file on its own: stack ids are per file):
  check       every stack id is a decimal number from 1, unique in its file;
              every sample names a stack defined earlier in the same file;
              every frame parses; a sample's ret is \\N and its dur_ns a
              number, a stack's both \\N. Prints "ok: S stacks, N samples"
              or the errors (exit 1)
  count       the number of samples
  durs        each distinct dur_ns of the samples, with its count
  stacks      samples per stack id: "COUNT<TAB>FILE:ID"
  inner       samples per innermost function of --elf: the first frame of
              the stack, innermost first, that is in the ELF (so a sample in
              libc or the kernel called from burn_long counts as burn_long's,
              as its thread CPU time does): "COUNT<TAB>FUNC", "(none)" for
              samples with no frame in it, "?" for an offset no symbol holds
  callers     for the samples, the ELF's functions of each stack, innermost
              first: "COUNT<TAB>FUNC FUNC...", "(none)" without any
  kfuncs      samples per kernel function: "COUNT<TAB>NAME", a sample
              counted once per name its stack holds (k:0xADDR as it is)
  fpaths      samples per f: frame path, the path's bytes in hex (exact
              whatever they hold): "COUNT<TAB>HEX<TAB>LEN", LEN as written
  jnames      samples per j: frame name: "COUNT<TAB>NAME" (NAME's bytes
              decoded as UTF-8, errors replaced)
  share       "N M": the samples, and how many of them have an i: or j:
              frame whose name holds --name; with --then, a j: frame
              holding --name right above (innermost side) a j: frame
              holding --then (an inlined frame over its caller, or a call)
Exit 0, 1 (check found errors), 2 (bad usage or unreadable input).
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys

COLUMNS = 12
EV, NAME, RET, DUR, DETAIL = 7, 8, 9, 10, 11
TID, PID, COMM = 4, 3, 6
BUILD_ID_SIZE = 20


def die(msg):
    print("profile_check: " + msg, file=sys.stderr)
    sys.exit(2)


def unescape(field):
    """A TSV field's bytes (docs/tsv-format.md, Escaping); None for \\N."""
    if field == b"\\N":
        return None
    if b"\\" not in field:
        return field
    out = bytearray()
    i = 0
    while i < len(field):
        c = field[i]
        if c != 0x5C:
            out.append(c)
            i += 1
            continue
        nxt = field[i + 1:i + 2]
        if nxt == b"x":
            out.append(int(field[i + 2:i + 4], 16))
            i += 4
            continue
        simple = {b"\\": 0x5C, b"t": 9, b"n": 10, b"r": 13}
        if nxt not in simple:
            raise ValueError("bad escape %r" % field[i:i + 2])
        out.append(simple[nxt])
        i += 2
    return bytes(out)


class Frame:
    """kind: 'k', 'b', 'f', 'j', 'i' or 'u'; name: the function (k), build
    id in hex (b), path (f), JIT name (j) or interpreter frame (i), bytes; off: the offset (k, b, f)
    or address (k:0x, u); length: LEN as written (f, j, i)."""
    __slots__ = ("kind", "name", "off", "length")

    def __init__(self, kind, name, off, length=None):
        self.kind, self.name, self.off, self.length = kind, name, off, length


def parse_frames(s):
    """A stack row's detail, unescaped, into Frames; ValueError when it
    does not parse."""
    frames = []
    i = 0
    while i < len(s):
        kind = s[i:i + 2]
        if kind in (b"f:", b"j:", b"i:"):
            colon = s.index(b":", i + 2)
            length = int(s[i + 2:colon])
            name = s[colon + 1:colon + 1 + length]
            if len(name) != length:
                raise ValueError("%s frame shorter than its LEN" % kind.decode())
            i = colon + 1 + length
            off = None
            if kind == b"f:":
                m = re.match(rb"\+0x([0-9a-f]+)", s[i:])
                if not m:
                    raise ValueError("f: frame without +0xOFF after LEN bytes")
                off = int(m.group(1), 16)
                i += m.end()
            frames.append(Frame(kind[:1].decode(), name, off, length))
        else:
            end = s.find(b" ", i)
            end = len(s) if end < 0 else end
            tok = s[i:end]
            i = end
            m = (re.fullmatch(rb"k:([^ +]+)\+0x([0-9a-f]+)", tok) or
                 re.fullmatch(rb"b:([0-9a-f]{40})\+0x([0-9a-f]+)", tok))
            if m:
                frames.append(Frame(tok[:1].decode(), m.group(1), int(m.group(2), 16)))
            elif re.fullmatch(rb"[ku]:0x[0-9a-f]+", tok):
                frames.append(Frame(tok[:1].decode(), None, int(tok[4:], 16)))
            else:
                raise ValueError("bad frame %r" % tok)
        if i < len(s):
            if s[i:i + 1] != b" " or i + 1 == len(s):
                raise ValueError("frames not separated by one space at byte %d" % i)
            i += 1
    if not frames:
        raise ValueError("a stack without frames")
    return frames


class Tsv:
    """One file's stacks (id → frames, in order of definition) and samples
    (row fields), with the errors `check` reports."""

    def __init__(self, path):
        self.path = path
        self.stacks = {}
        self.samples = []
        self.errors = []
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            die("cannot open %s: %s" % (path, e.strerror))
        for n, line in enumerate(data.split(b"\n"), 1):
            if not line or line.startswith(b"#") or line.startswith(b"ts_ns\t"):
                continue
            fields = line.split(b"\t")
            if len(fields) != COLUMNS:
                self.error(n, "%d fields" % len(fields))
                continue
            if fields[EV] == b"stack":
                self.add_stack(n, fields)
            elif fields[EV] == b"sample":
                self.add_sample(n, fields)

    def error(self, n, msg):
        self.errors.append("%s:%d: %s" % (self.path, n, msg))

    def add_stack(self, n, fields):
        sid = fields[NAME]
        if not re.fullmatch(rb"[1-9][0-9]*", sid):
            self.error(n, "stack id %r is not a decimal number from 1" % sid)
            return
        if sid in self.stacks:
            self.error(n, "stack id %s defined again" % sid.decode())
            return
        if fields[RET] != b"\\N" or fields[DUR] != b"\\N":
            self.error(n, "a stack row's ret or dur_ns is not \\N")
        try:
            self.stacks[sid] = parse_frames(unescape(fields[DETAIL]) or b"")
        except ValueError as e:
            self.error(n, "stack %s: %s" % (sid.decode(), e))
            self.stacks[sid] = []

    def add_sample(self, n, fields):
        sid = fields[NAME]
        if sid not in self.stacks:
            self.error(n, "sample of stack %s, not defined before it" % sid.decode())
            return
        if fields[RET] != b"\\N" or not re.fullmatch(rb"[0-9]+", fields[DUR]):
            self.error(n, "a sample's ret is not \\N or its dur_ns not a number")
        if not re.fullmatch(rb"cpu=[0-9]+( .*)?", fields[DETAIL]):
            self.error(n, "a sample's detail without cpu=N first: %r" % fields[DETAIL])
        self.samples.append(fields)


def run(argv):
    try:
        return subprocess.run(argv, check=True, capture_output=True).stdout.decode("utf-8",
                                                                                 "replace")
    except (OSError, subprocess.CalledProcessError) as e:
        die("%s: %s" % (" ".join(argv), e))


class Elf:
    """An ELF file's build id, path, loads and function symbols."""

    def __init__(self, path):
        self.path = os.fsencode(os.path.realpath(path))
        m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", path]))
        self.build_id = None
        if m:
            bid = m.group(1)[:2 * BUILD_ID_SIZE]
            self.build_id = (bid + "0" * (2 * BUILD_ID_SIZE - len(bid))).encode()
        self.loads = []	# (offset, vaddr, filesz)
        for line in run(["readelf", "-lW", path]).splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                self.loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
        syms = []
        for line in run(["nm", "-S", "--defined-only", path]).splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                syms.append((int(f[0], 16), int(f[1], 16), f[3]))
            elif len(f) == 3 and f[1] in "tTwW":
                syms.append((int(f[0], 16), 0, f[2]))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def owns(self, frame):
        return ((frame.kind == "b" and self.build_id and frame.name == self.build_id) or
                (frame.kind == "f" and frame.name == self.path))

    def function(self, off):
        """The function at file offset @off, "?" when none holds it."""
        for p_off, vaddr, filesz in self.loads:
            if p_off <= off < p_off + filesz:
                va = off - p_off + vaddr
                break
        else:
            return "?"
        i = bisect.bisect_right(self.addrs, va) - 1
        # a symbol whose range holds it (an alias or a nested one may sit
        # just below), else the nearest one below
        for j in range(i, max(i - 64, -1), -1):
            start, size, name = self.syms[j]
            if start <= va < start + size:
                return name
        return self.syms[i][2] if i >= 0 else "?"


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1][len("usage: "):])
    ap.add_argument("--elf")
    ap.add_argument("--tid")
    ap.add_argument("--pid")
    ap.add_argument("--comm")
    ap.add_argument("--from", dest="ts_from", type=int)
    ap.add_argument("--to", dest="ts_to", type=int)
    ap.add_argument("--name")
    ap.add_argument("--then")
    ap.add_argument("command", choices=["check", "count", "durs", "stacks", "inner", "callers",
                                        "kfuncs", "fpaths", "jnames", "share"])
    ap.add_argument("tsv", nargs="+")
    a = ap.parse_args()
    if a.command in ("inner", "callers") and not a.elf:
        die("%s needs --elf" % a.command)
    elf = Elf(a.elf) if a.elf else None
    files = [Tsv(p) for p in a.tsv]

    if a.command == "check":
        errors = [e for t in files for e in t.errors]
        for e in errors[:50]:
            print(e)
        if errors:
            return 1
        print("ok: %d stacks, %d samples" % (sum(len(t.stacks) for t in files),
                                            sum(len(t.samples) for t in files)))
        return 0

    if a.command == "share" and not a.name:
        die("share needs --name")

    def keep(s):
        return ((a.tid is None or s[TID] == a.tid.encode()) and
                (a.pid is None or s[PID] == a.pid.encode()) and
                (a.comm is None or unescape(s[COMM]) == os.fsencode(a.comm)) and
                (a.ts_from is None or int(s[0]) >= a.ts_from) and
                (a.ts_to is None or int(s[0]) < a.ts_to))

    def has(frames):
        name = os.fsencode(a.name)
        if a.then is None:
            return any(f.kind in "ij" and name in f.name for f in frames)
        then = os.fsencode(a.then)
        return any(f.kind == "j" and g.kind == "j" and name in f.name and then in g.name
                   for f, g in zip(frames, frames[1:]))

    counts = collections.Counter()
    for t in files:
        for s in t.samples:
            if not keep(s):
                continue
            frames = t.stacks[s[NAME]]
            if a.command == "count":
                counts["n"] += 1
            elif a.command == "share":
                counts["n"] += 1
                counts["m"] += has(frames)
            elif a.command == "durs":
                counts[s[DUR].decode()] += 1
            elif a.command == "stacks":
                counts["%s:%s" % (t.path, s[NAME].decode())] += 1
            elif a.command in ("inner", "callers"):
                funcs = [elf.function(f.off) for f in frames if elf.owns(f)]
                if a.command == "inner":
                    counts[funcs[0] if funcs else "(none)"] += 1
                else:
                    counts[" ".join(funcs) or "(none)"] += 1
            elif a.command == "kfuncs":
                for name in {f.name.decode() if f.name else "0x%x" % f.off
                             for f in frames if f.kind == "k"}:
                    counts[name] += 1
            elif a.command == "fpaths":
                for key in {"%s\t%d" % (f.name.hex(), f.length) for f in frames
                            if f.kind == "f"}:
                    counts[key] += 1
            elif a.command == "jnames":
                for name in {f.name.decode("utf-8", "replace") for f in frames
                             if f.kind == "j"}:
                    counts[name] += 1
    if a.command == "count":
        print(counts["n"])
        return 0
    if a.command == "share":
        print(counts["n"], counts["m"])
        return 0
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print("%d\t%s" % (n, key))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
