# SPDX-License-Identifier: GPL-2.0
# Text edits of the series' sources, shared by the mutation gate
# (lib/mutants.sh) and the benchmark's variant rows (lib/bench-rows.sh):
# the list of named mutations and the rule that an edit's text occurs
# exactly once. Sourced after common.sh, never run.

MUTATIONS=$ROOT/lib/mutants.txt

# mutation_records LIST [NAMES]: the mutations of the file LIST (all, or
# those named in the comma-separated NAMES), one a line, fields separated by US
# (\037: not whitespace, so that an empty 'to' stays a field of its own):
# name, patch, file, from, to, killer, vm, vm_killer (empty when absent).
# 'from' and 'to' keep their "\n" and "\t" (edit_once() reads them).
mutation_records() {
	awk -v only=",${2:-}," '
		function flush() {
			if (name != "" && (only == ",," || index(only, "," name ",")))
				printf "%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\n", name, patch, file, from, to, killer, vm, vm_killer
			name = patch = file = from = to = killer = vm = vm_killer = ""
		}
		/^#/ { next }
		/^[[:space:]]*$/ { flush(); next }
		{
			key = $0; sub(/:.*/, "", key)
			val = $0; sub(/^[^:]*: ?/, "", val)
			if (key == "name") name = val
			else if (key == "patch") patch = val
			else if (key == "file") file = val
			else if (key == "from") from = val
			else if (key == "to") to = val
			else if (key == "killer") killer = val
			else if (key == "vm") vm = val
			else if (key == "vm_killer") vm_killer = val
		}
		END { flush() }' "$1"
}

# edit_once WHAT FROM TO [FROM TO...]: standard input to standard output
# with each FROM replaced by its TO, in order; "\n" and "\t" in either
# stand for a newline and a tab, as lib/mutants.txt writes them. Fails, naming
# WHAT and the text, unless each FROM occurs exactly once.
edit_once() {
	/usr/bin/python3 -c '
import sys
what, pairs = sys.argv[1], [a.replace("\\n", "\n").replace("\\t", "\t") for a in sys.argv[2:]]
s = sys.stdin.read()
for old, new in zip(pairs[::2], pairs[1::2]):
    n = s.count(old)
    if n != 1:
        sys.exit("%s: text occurs %d times (must be once):\n%s" % (what, n, old))
    s = s.replace(old, new)
sys.stdout.write(s)' "$@"
}
