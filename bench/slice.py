#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Make the compile workload's input: a slice of a built kernel tree.

  slice.py BUILD_DIR OUT_DIR OBJ...     e.g. mm/rmap.o mm/vma.o

For each object, kbuild's saved command (BUILD_DIR/dir/.obj.cmd) is run
again with -E instead of -c: OUT_DIR/<name>.i is the preprocessed source.
OUT_DIR/flags gets the code-generation and warning flags of the first
object (the kernel's CFLAGS, the same for every object of a directory),
without the preprocessor's: the guest compiles each .i with them, so the
workload is the compiler proper (cc1), as in a kernel build, without
kbuild's make and header traffic over 9p.
"""
import os
import shlex
import subprocess
import sys

PREPROCESSOR_ONLY = ("-I", "-D", "-U", "-Wp,", "-fmacro-prefix-map")


def saved_command(build, obj):
    d, base = os.path.split(obj)
    path = os.path.join(build, d, "." + base + ".cmd")
    try:
        with open(path) as f:
            line = f.readline()
    except OSError as e:
        sys.exit("slice.py: no kbuild command for %s (%s): build the kernel first" % (obj, e))
    if ":=" not in line:
        sys.exit("slice.py: %s does not start with savedcmd_...:=" % path)
    argv = shlex.split(line.split(":=", 1)[1])
    if argv and argv[0] == "ccache":
        argv = argv[1:]
    return argv


def split_compile(argv, obj):
    """argv of 'CC flags... -c -o OBJ SRC' -> (flags, src)."""
    try:
        i = argv.index("-c")
    except ValueError:
        sys.exit("slice.py: the command for %s has no -c" % obj)
    if argv[i + 1:i + 3] != ["-o", obj] or len(argv) < i + 4:
        sys.exit("slice.py: the command for %s is not '... -c -o %s SRC'" % (obj, obj))
    return argv[:i], argv[i + 3]


def codegen_flags(flags):
    out, skip = [], False
    for x in flags[1:]:
        if skip:
            skip = False
        elif x == "-include":
            skip = True
        elif x != "-nostdinc" and not x.startswith(PREPROCESSOR_ONLY):
            out.append(x)
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, out, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    first = None
    for obj in objs:
        flags, src = split_compile(saved_command(build, obj), obj)
        name = os.path.splitext(os.path.basename(obj))[0]
        cpp = [x for x in flags if not x.startswith("-Wp,")]
        subprocess.run(cpp + ["-E", "-o", os.path.join(out, name + ".i"), src],
                       cwd=build, check=True)
        first = first or codegen_flags(flags)
    with open(os.path.join(out, "flags"), "w") as f:
        f.write(" ".join(shlex.quote(x) for x in first) + "\n")


if __name__ == "__main__":
    main()
