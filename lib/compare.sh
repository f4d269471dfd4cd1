# SPDX-License-Identifier: GPL-2.0
# Comparing the series with pristine 7.3.4: the commits and files of
# build/linux, snapshots of a commit, and tool messages of the tip against
# those of the base. Sourced after common.sh, never run; used by
# lib/matrix.sh, lib/sparse-check.sh and lib/kerneldoc.sh.

# tree_commit REV: REV's commit id in build/linux, or a clear error (also
# when build/linux has no base tag: make tree has not run).
tree_commit() {
	git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null ||
		die "build/linux has no $BASE_TAG: run make tree first"
	git -C "$TREE" rev-parse -q --verify "$1^{commit}" ||
		die "'$1' is not a commit of build/linux (run make tree first?)"
}

# touched_files ID PATHSPEC...: the files the series adds or changes at
# commit ID (against the base tag), limited to PATHSPECs.
touched_files() {
	local id=$1
	shift
	git -C "$TREE" diff --no-renames --name-only --diff-filter=AM "$BASE_TAG" "$id" -- "$@"
}

# touched_objects ID: the objects of the kernel .c files the series adds
# or changes at ID (tools/ holds userspace programs, not kbuild objects).
touched_objects() {
	touched_files "$1" '*.c' ':!tools/' | sed 's/\.c$/.o/'
}

# snapshot_worktree DIR ID LOG: DIR (an absolute path), a detached
# worktree of build/linux at commit ID; build/linux's own working tree is
# not touched. A later commit is checked out there, which rewrites (and
# dates) only the files that differ. git's messages go to LOG. Prints DIR.
snapshot_worktree() {
	local dir=$1 id=$2 logf=$3
	case $dir in /*) ;; *) die "snapshot_worktree: '$dir' is not an absolute path" ;; esac
	if [ ! -e "$dir/.git" ]; then
		log "worktree ${dir#"$ROOT"/} at ${id:0:12} (about a minute)"
		mkdir -p "${dir%/*}"
		git -C "$TREE" worktree prune
		run_logged "$logf" "git worktree add ${dir#"$ROOT"/}" \
			git -C "$TREE" worktree add -q --detach "$dir" "$id" || exit 1
	elif [ "$(git -C "$dir" rev-parse HEAD)" != "$id" ]; then
		run_logged "$logf" "checkout of ${id:0:12} in ${dir#"$ROOT"/}" \
			git -C "$dir" checkout -q -f --detach "$id" || exit 1
	fi
	echo "$dir"
}

# unplaced: messages (stdin) comparable between trees: no line or column
# after a file name ("f.c:12:3: warning: ..." from gcc and sparse,
# "Warning: f.h:284 ..." from kernel-doc), no code offset (modpost).
unplaced() {
	sed -E -e 's#^([^: ]+):[0-9]+(:[0-9]+)?:#\1:#' \
		-e 's#^([A-Za-z]+: [^: ]+):[0-9]+ #\1 #' -e 's#\+0x[0-9a-f]+#+0x#g'
}

# new_lines BASE TIP: the lines of file TIP (a file: it is read twice) that file BASE does not have,
# compared without their places (unplaced), as many times as TIP has them
# more often than BASE; printed as TIP has them, in TIP's order.
new_lines() {
	awk -v tipfile="$2" '
		FILENAME == ARGV[1] { base[$0]++; next }
		{ getline raw <tipfile; if (base[$0]-- <= 0) print raw }
	' <(unplaced <"$1") <(unplaced <"$2")
}

# old_lines BASE TIP: the lines of TIP that BASE has too (the complement
# of new_lines), as TIP has them.
old_lines() {
	awk -v tipfile="$2" '
		FILENAME == ARGV[1] { base[$0]++; next }
		{ getline raw <tipfile; if (base[$0]-- > 0) print raw }
	' <(unplaced <"$1") <(unplaced <"$2")
}

# section TITLE LINES: TITLE and LINES indented, when LINES is not empty.
section() {
	local line
	[ -n "$2" ] || return 0
	echo "$1"
	while IFS= read -r line; do printf '  %s\n' "$line"; done <<<"$2"
}

# count_lines LINES: how many lines LINES has (0 when empty).
count_lines() {
	if [ -z "$1" ]; then echo 0; else wc -l <<<"$1"; fi
}

# parse_commit_option SCRIPT ARG...: sets rev from "--commit REV", the one
# option of SCRIPT; anything else stops SCRIPT with its usage.
parse_commit_option() {
	local script=$1
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--commit)
			[ $# -ge 2 ] || die "$script: --commit needs a commit of build/linux"
			# shellcheck disable=SC2034 # the caller's
			rev=$2
			shift 2 ;;
		*) die "$script: unknown option '$1' (usage: $script [--commit REV])" ;;
		esac
	done
}

# exclusive DIR SCRIPT: hold DIR/lock (fd 9) until SCRIPT exits, or stop
# it: two runs would build in the same directories.
exclusive() {
	mkdir -p "$1"
	exec 9>"$1/lock"
	flock -n 9 || die "another $2 is running (it holds ${1#"$ROOT"/}/lock)"
}
