# SPDX-License-Identifier: GPL-2.0
# The zswap writeback series: harness targets. See README.md.
#
#   make                 get 7.3.4, apply patches/, build, run the KUnit suites
#   make check           everything CI runs (gates + "N passed, N failed, N skipped")
#   make ARCH=x86_64     the KUnit suites under QEMU (TCG unless KVM works)
#   make selftests       tools/testing/selftests/zswap in a QEMU guest (vng);
#                        VM=um for the quicker, less faithful UML guest
#   make stress          the selftests in a debug guest (KASAN, lockdep,
#                        kmemleak, hung tasks...; DEBUG=kcsan for KCSAN,
#                        DEBUG=all for both): every kernel report fails it
#   make mutants         every named mutation of the series must fail its test,
#                        and lib/stock-must-fail's cases must fail on 7.3.4
#                        (KIND=kunit, vm or stock picks one kind; ONLY=names)
#   make bench           arms A/B/C x scenarios open/heavy x workloads
#                        cache/oltp in QEMU guests (PROFILE=standard, the
#                        default, or quick: cache only); make bench-summary
#                        RESULTS=DIR redoes its tables; make bench-rows runs
#                        the design-choice kernels as the arms of one run
#                        (ROWS=..., ROUNDS=N, RESULTS=DIR to resume)
#   make bench-oom       the OOM matrix: cells (device x sibling x memory)
#                        x arms (stock, fallback-never, candidate rules);
#                        SCREEN=1 one round of stock and fallback-never,
#                        FOLLOW=1 the cells a screen flagged; CELLS=,
#                        ARMS=, ROUNDS=, RESULTS=DIR (resume)

ARCH ?= um
SHELL := /bin/bash
LIB := $(CURDIR)/lib

.PHONY: all deps tree kunit selftests stress bench bench-summary bench-rows bench-oom export check-export checkpatch bisect check clean help matrix mutants sparse kerneldoc b4

all: kunit

help:
	@sed -n '3,/^$$/{/^#/p}' Makefile

deps:
	@$(LIB)/deps.sh build $(if $(filter x86_64,$(ARCH)),qemu)

tree: deps
	@$(LIB)/tree.sh

kunit: tree
	@$(LIB)/kunit.sh --arch $(ARCH) $(if $(FILTER),--filter '$(FILTER)')

selftests: tree
	@$(LIB)/selftests.sh --vm $(or $(VM),qemu)

# The debug guest (lib/stress.sh): not a gate of make check, which it would
# take past an hour. Like bench, it makes the work tree only when there is
# none.
stress: $(if $(wildcard build/linux/.git),,tree)
	@$(LIB)/stress.sh --debug '$(or $(DEBUG),kasan)'

# The benchmark builds a snapshot of branch `series`; it makes the work
# tree only when there is none, so a tree being worked on is left alone.
bench: $(if $(wildcard build/linux/.git),,tree)
	@$(LIB)/bench.sh --profile $(or $(PROFILE),standard) $(if $(RESULTS),--results '$(RESULTS)')

bench-summary:
	@$(LIB)/bench.sh --summary '$(RESULTS)'

bench-rows: $(if $(wildcard build/linux/.git),,tree)
	@$(LIB)/bench-rows.sh $(if $(ROUNDS),--rounds '$(ROUNDS)') $(if $(RESULTS),--results '$(RESULTS)') $(ROWS)

# The OOM matrix (lib/bench-oom.sh): SCREEN=1 or FOLLOW=1 picks a mode.
bench-oom: $(if $(wildcard build/linux/.git),,tree)
	@$(LIB)/bench-oom.sh $(if $(SCREEN),--screen) $(if $(FOLLOW),--follow-up) $(if $(CELLS),--cells '$(CELLS)') $(if $(ARMS),--arms '$(ARMS)') $(if $(ROUNDS),--rounds '$(ROUNDS)') $(if $(RESULTS),--results '$(RESULTS)')

# The build matrix (lib/matrix.sh): a snapshot of branch `series`, or
# COMMIT=REV, against pristine 7.3.4 in each configuration (MATRIX_ROWS=
# picks some); like bench, it makes the work tree only when there is none.
matrix: $(if $(wildcard build/linux/.git),,tree)
	@$(LIB)/matrix.sh $(if $(COMMIT),--commit '$(COMMIT)') $(if $(MATRIX_ROWS),--rows '$(MATRIX_ROWS)')

# The mutation gate (lib/mutants.sh): every mutation of lib/mutants.txt
# must fail the test named for it, a KUnit case or (VM mutations) a
# selftest case in the QEMU guest; KIND=kunit|vm|stock picks one kind,
# ONLY=name,... some mutations. make check runs none of them (they would
# take it past an hour): it checks that every record still applies.
mutants: tree
	@$(LIB)/mutants.sh $(if $(KIND),--$(KIND)) $(if $(ONLY),--only '$(ONLY)')

export:
	@$(LIB)/export.sh export

check-export:
	@$(LIB)/export.sh check

checkpatch: tree
	@$(LIB)/checkpatch.sh

bisect: tree
	@$(LIB)/bisect.sh

# One gate each: sparse and kernel-doc on the files the series touches,
# against pristine 7.3.4 (COMMIT=REV checks another commit of build/linux);
# b4 reads patches/ as a list would carry it.
sparse: tree
	@$(LIB)/sparse-check.sh $(if $(COMMIT),--commit '$(COMMIT)')

kerneldoc: tree
	@$(LIB)/kerneldoc.sh $(if $(COMMIT),--commit '$(COMMIT)')

b4: tree
	@$(LIB)/b4.sh

check:
	@$(LIB)/check.sh

clean:
	rm -rf build
