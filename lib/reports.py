#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Find the kernel's reports in the debug guest's logs (lib/stress.sh).

    lib/reports.py [--console FILE] [--dmesg-dir DIR] [--kmemleak FILE]
                   [--counts FILE] [--names FILE]

Every BUG, WARNING, KASAN, KCSAN, lockdep, hung-task, UBSAN, oops or
kmemleak report is printed with a few lines of context and the program it
followed, then counted by kind. Exits 1 when there was any report.

- DIR holds the guest's dmesg saves, NN-NAME.dmesg, one after each
  program (NAME is what ran before the save: 00-boot.dmesg is the boot).
- The console carries the same kernel lines, and those the guest never
  saved (a crash, a hang). Only its lines with a printk timestamp are read
  (the rest is user space: TAP, test output); a report is attributed to
  the last "stress: begin PROGRAM" mark before it. A report found in a
  dmesg file and on the console (same timestamp and line) counts once.
- FILE of --kmemleak is /sys/kernel/debug/kmemleak as read at the end:
  each "unreferenced object" is one report.
- --counts gets "REPORTS KIND:N ..." on one line, --names one
  "report:KIND:PROGRAM" a line (the failed-case list of lib/selftests.sh).
"""
import argparse
import os
import re
import sys

# (kind, pattern) in order: a line is of the first kind that matches.
KINDS = [
    ("kasan", r"\bKASAN:"),
    ("kcsan", r"\bKCSAN:"),
    ("sleep-in-atomic", r"BUG: sleeping function called from invalid context"
                        r"|BUG: scheduling while atomic"),
    ("lockdep", r"possible circular locking|possible recursive locking"
                r"|inconsistent lock state|suspicious RCU usage"
                r"|possible irq lock inversion|bad unlock balance"
                r"|Invalid wait context|held lock freed"),
    ("hung-task", r"INFO: task .* blocked for more than"),
    ("ubsan", r"\bUBSAN:"),
    ("oops", r"general protection fault|\bOops\b"),
    ("bug", r"\bBUG:|kernel BUG at"),
    ("warning", r"\bWARNING:"),
    ("kmemleak", r"unreferenced object 0x"),
]
KIND_RE = [(k, re.compile(p)) for k, p in KINDS]
STAMP = re.compile(r"^\[\s*(\d+\.\d+)\]\s?(.*)$")
MARK = re.compile(r"^stress: begin (\S+)")
END = re.compile(r"---\[ end trace|^={20,}$")
FOLD = 8        # a match this many lines after a report's start is part of it
BEFORE, AFTER = 6, 40


def kind_of(text):
    for kind, rx in KIND_RE:
        if rx.search(text):
            return kind
    return None


def kernel_lines(path, stamped_only):
    """(stamp, text) of each kernel line; stamp None when it has none."""
    out = []
    with open(path, errors="replace") as f:
        for raw in f.read().splitlines():
            m = STAMP.match(raw.strip("\r"))
            if m:
                out.append((m.group(1), m.group(2)))
            elif not stamped_only:
                out.append((None, raw))
    return out


def scan(lines, program_of, source):
    """The reports in lines: dicts of kind, program, key, source, context."""
    found, last = [], None
    for i, (stamp, text) in enumerate(lines):
        kind = kind_of(text)
        if kind is None:
            continue
        if last is not None and i - last <= FOLD:
            continue
        last = i
        ctx = []
        for j in range(max(0, i - BEFORE), min(len(lines), i + AFTER)):
            ctx.append(lines[j][1])
            if j > i and END.search(lines[j][1]):
                break
        found.append({"kind": kind, "program": program_of(i), "source": source,
                      "key": (stamp, text.strip()), "context": ctx})
    return found


def scan_dmesg_dir(d):
    found = []
    for name in sorted(os.listdir(d)):
        if not name.endswith(".dmesg"):
            continue
        program = re.sub(r"^\d+-", "", name[:-len(".dmesg")])
        lines = kernel_lines(os.path.join(d, name), stamped_only=False)
        found += scan(lines, lambda i, p=program: p, "dmesg " + name)
    return found


def scan_console(path):
    lines = kernel_lines(path, stamped_only=True)
    marks, program = [], "boot"
    for _, text in lines:
        m = MARK.match(text)
        if m:
            program = m.group(1)
        marks.append(program)
    return scan(lines, lambda i: marks[i], "console")


def scan_kmemleak(path):
    found, block = [], None
    for ln in open(path, errors="replace").read().splitlines():
        if ln.startswith("unreferenced object"):
            block = [ln]
            found.append({"kind": "kmemleak", "program": "kmemleak scan at the end",
                          "source": "kmemleak", "key": ("kmemleak", ln.split()[2]),
                          "context": block})
        elif block is not None and len(block) < AFTER:
            block.append(ln)
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--console")
    ap.add_argument("--dmesg-dir")
    ap.add_argument("--kmemleak")
    ap.add_argument("--counts")
    ap.add_argument("--names")
    a = ap.parse_args()
    reports, seen = [], set()
    # dmesg files first: they name the program; the console adds the rest
    for part in ([scan_dmesg_dir(a.dmesg_dir)] if a.dmesg_dir else []) + \
                ([scan_console(a.console)] if a.console else []) + \
                ([scan_kmemleak(a.kmemleak)] if a.kmemleak else []):
        for r in part:
            if r["key"][0] is not None and r["key"] in seen:
                continue
            seen.add(r["key"])
            reports.append(r)
    by_kind = {}
    for n, r in enumerate(reports, 1):
        by_kind[r["kind"]] = by_kind.get(r["kind"], 0) + 1
        print(f"report {n}: {r['kind']}, after {r['program']} ({r['source']})")
        for ln in r["context"]:
            print("  | " + ln)
    kinds = " ".join(f"{k}:{by_kind[k]}" for k, _ in KINDS if k in by_kind)
    print(f"kernel reports: {len(reports)}" + (f" ({kinds})" if kinds else ""),
          file=sys.stderr)
    if a.counts:
        with open(a.counts, "w") as f:
            f.write(f"{len(reports)} {kinds}".rstrip() + "\n")
    if a.names:
        with open(a.names, "w") as f:
            f.writelines(f"report:{r['kind']}:{r['program']}\n" for r in reports)
    return 1 if reports else 0


if __name__ == "__main__":
    sys.exit(main())
