# SPDX-License-Identifier: BSD-2-Clause
#
# boottrace: everything generated goes under $(OUTPUT); `make clean` removes it.
#   make            build build/collector and build/analyze
#   make test       install missing packages, build, run unit + integration tests,
#                   the kernel matrix (vmtest), then again under ASan+UBSan, then
#                   the fuzzers (see test:)
#   make vmtest     the integration tests that matter on other kernels, under QEMU
#   make demo       install missing packages, build, boot the samples, report
#                   in $(DEMO_OUT) (demo-out)
#   make install    PREFIX=/usr/local DESTDIR= (binaries, man pages, the systemd
#                   unit, the Prometheus examples)
#   V=1             show the commands

OUTPUT ?= build
DEMO_OUT ?= demo-out
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
EXAMPLESDIR ?= $(PREFIX)/share/doc/boottrace/examples
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
UNISTD_H ?= $(firstword $(wildcard /usr/include/$(shell uname -m)-linux-gnu/asm/unistd_64.h /usr/include/asm/unistd_64.h))

CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
	-Wno-format-truncation -DBOOTTRACE_VERSION='"$(VERSION)"' -I. -I$(OUTPUT) -MMD -MP
# the collector unwinds --profile's user stacks with elfutils' libdwfl (collector/profile/unwind.c)
LDLIBS := -lbpf -ldw -lelf -lz -lcgroup -lm
# analyze names profile frames with elfutils (analyze/read/symbols.c)
# and demangles C++ names with libstdc++'s __cxa_demangle (analyze/read/demangle.c)
ANALYZE_LDLIBS := -ldw -lelf -ldebuginfod -lz -l:libstdc++.so.6
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -I. -I$(OUTPUT) \
	-idirafter /usr/include/$(shell uname -m)-linux-gnu

ifeq ($(SANITIZE),1)
override CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
override LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean test unit integration vmtest demo deps install uninstall bench
.PHONY: test-asan test-valgrind fuzz fuzz-build fuzz-replay

COMMON_SRCS := $(wildcard common/*.c)
# analyze/ has main.c and shared helpers on top, the rest in its wings
# (analyze/README.md): read/, stats/, boot/, out/.
ANALYZE_SRCS := $(filter-out analyze/main.c,$(wildcard analyze/*.c analyze/*/*.c))
COLLECTOR_SRCS := $(filter-out collector/main.c,$(wildcard collector/*.c collector/*/*.c))
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TOOL_SRCS := $(wildcard tests/tools/*.c)
SAMPLE_SRCS := $(wildcard samples/*.c)
BENCH_SRCS := $(filter-out %.bpf.c,$(wildcard bench/*.c))
BPF_SRCS := $(wildcard bpf/*.bpf.c)

COMMON_OBJS := $(COMMON_SRCS:%.c=$(OUTPUT)/obj/%.o)
ANALYZE_OBJS := $(ANALYZE_SRCS:%.c=$(OUTPUT)/obj/%.o)
COLLECTOR_OBJS := $(COLLECTOR_SRCS:%.c=$(OUTPUT)/obj/%.o)
TESTS := $(TEST_SRCS:tests/unit/%.c=$(OUTPUT)/tests/%)
TOOLS := $(TOOL_SRCS:tests/tools/%.c=$(OUTPUT)/tests/%)
SAMPLES := $(SAMPLE_SRCS:samples/%.c=$(OUTPUT)/samples/%)
BENCHES := $(BENCH_SRCS:bench/%.c=$(OUTPUT)/bench/%) \
	$(patsubst bench/%.bpf.c,$(OUTPUT)/bench/%.bpf.o,$(wildcard bench/*.bpf.c))
# the compat object is a second build of bpf/boottrace_legacy.bpf.c (below)
BPF_OBJS := $(BPF_SRCS:bpf/%.bpf.c=$(OUTPUT)/%.bpf.o) $(OUTPUT)/boottrace_compat.bpf.o
SKELS := $(BPF_OBJS:%.bpf.o=%.skel.h)
GENERATED := $(OUTPUT)/syscall_names.h $(SKELS)

all: $(OUTPUT)/collector $(OUTPUT)/analyze $(SAMPLES) $(TOOLS) $(TESTS) $(BENCHES)

# --- kernel side -------------------------------------------------------------

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# --- legacy object (issue 4): loads on kernel 4.15 ----------------------------
# No vmlinux.h and no CO-RE (4.15 has no BTF), cpu v2 (v3's jmp32 is 5.1).
# tests/tools/bpfcheck proves the result 4.15-safe, and refuses
# tests/bpf/bad_legacy.bpf.c (tests/integration/test_legacy_object.sh).
LEGACY_BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -mcpu=v2 -I. -I$(OUTPUT) \
	-idirafter /usr/include/$(shell uname -m)-linux-gnu

$(OUTPUT)/boottrace_legacy.bpf.o: bpf/boottrace_legacy.bpf.c $(wildcard bpf/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(LEGACY_BPF_CFLAGS) -c $< -o $@

# --- compat object (issue 15): kernels 4.18+, cgroup mode ---------------------
# The same source built with -DBT_COMPAT: cgroup mode through
# bpf_get_current_cgroup_id (helper 80, 4.18) and bpf/cgroups_compat.bpf.h,
# pidtree mode as the legacy object. bpfcheck proves its floor, 4.18.
$(OUTPUT)/boottrace_compat.bpf.o: bpf/boottrace_legacy.bpf.c $(wildcard bpf/*.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(LEGACY_BPF_CFLAGS) -DBT_COMPAT -c $< -o $@

$(OUTPUT)/tests/bad_legacy.bpf.o: tests/bpf/bad_legacy.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(LEGACY_BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/tests/bpfcheck: $(OUTPUT)/obj/tests/tools/bpfcheck.o
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ -lelf -o $@

# prints collector/profile/interp.c's CPython offsets
$(OUTPUT)/tests/interp_offsets: $(OUTPUT)/obj/tests/tools/interp_offsets.o $(OUTPUT)/libcollector.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# loads the legacy object through collector/kernel/backend_perf.c
$(OUTPUT)/tests/legacy_pidtree: $(OUTPUT)/obj/tests/tools/legacy_pidtree.o $(OUTPUT)/libcollector.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lpthread -o $@

all: $(OUTPUT)/tests/bad_legacy.bpf.o

# reads Go function tables through common/gosym.c
$(OUTPUT)/tests/gosym_dump: $(OUTPUT)/obj/tests/tools/gosym_dump.o $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(ANALYZE_LDLIBS) -o $@

# Go programs of the tests (tests/tools/go/NAME/main.go, the standard
# library only: nothing is downloaded), built with golang-go into
# $(OUTPUT)/tests/NAME, with a GOPATH and GOCACHE of their own under
# $(OUTPUT) (no $$HOME needed, as root in CI). goburn is built stripped
# (-s -w: no .symtab, no DWARF), a profile's known truth named only from its
# pclntab, and so is goleaf (a frameless leaf under two callers); gooracle
# is Go's debug/gosym, the truth for common/gosym.c.
# Skipped without go (make deps installs it; the tests then say so).
GO ?= go
GO_TOOLS := $(patsubst tests/tools/go/%/main.go,$(OUTPUT)/tests/%,$(wildcard tests/tools/go/*/main.go))
GO_ENV := GO111MODULE=off GOFLAGS= CGO_ENABLED=0 GOPATH=$(abspath $(OUTPUT))/go \
	GOCACHE=$(abspath $(OUTPUT))/go/cache
ifneq ($(shell command -v $(GO)),)
all: $(GO_TOOLS)
endif
$(OUTPUT)/tests/goburn $(OUTPUT)/tests/goleaf: GO_LDFLAGS := -s -w
$(GO_TOOLS): $(OUTPUT)/tests/%: tests/tools/go/%/main.go | $(OUTPUT)
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(GO_ENV) $(GO) build -ldflags '$(GO_LDFLAGS)' -o $@ $<

# Not a PIE: its text is at 0x401000 in memory but 0x1000 in the file, so a
# uprobe placed by address instead of file offset would miss (test_marks).
$(OUTPUT)/tests/usdt_sites: override LDFLAGS += -no-pie

# The syscall name table comes from the kernel headers of the build machine.
$(OUTPUT)/syscall_names.h: scripts/gen-syscall-names.sh $(UNISTD_H) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-names.sh $(UNISTD_H) > $@

# --- user side ---------------------------------------------------------------

$(OUTPUT)/obj/%.o: %.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# Collector objects include the skeletons and the syscall table.
$(COLLECTOR_OBJS) $(OUTPUT)/obj/collector/main.o $(TEST_SRCS:%.c=$(OUTPUT)/obj/%.o): $(GENERATED)

$(OUTPUT)/libcommon.a: $(COMMON_OBJS)
$(OUTPUT)/libanalyze.a: $(ANALYZE_OBJS)
$(OUTPUT)/libcollector.a: $(COLLECTOR_OBJS)
$(OUTPUT)/lib%.a:
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT)/collector: $(OUTPUT)/obj/collector/main.o $(OUTPUT)/libcollector.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/analyze: $(OUTPUT)/obj/analyze/main.o $(OUTPUT)/libanalyze.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(ANALYZE_LDLIBS) -lm -lpthread -o $@

# Unit tests (cmocka) link every library; each is one file tests/unit/test_*.c.
$(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/unit/%.o $(OUTPUT)/libcollector.a $(OUTPUT)/libanalyze.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $(TEST_LDFLAGS_$*) $^ -lcmocka $(ANALYZE_LDLIBS) $(LDLIBS) -o $@
# test_collector_lifecycle fails each allocation in turn: it wraps the allocator
TEST_LDFLAGS_test_collector_lifecycle := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
# test_collector_v8 is a fake node: its v8dbg_* symbols in its .dynsym
TEST_LDFLAGS_test_collector_v8 := -rdynamic

# Helper programs used by the integration tests (tests/tools/*.c).
# burn is a profile's known truth: its callers must be on its sampled stacks.
$(OUTPUT)/obj/tests/tools/burn.o $(OUTPUT)/obj/tests/tools/crasher.o: override CFLAGS += -fno-omit-frame-pointer -fno-optimize-sibling-calls
$(OUTPUT)/obj/tests/tools/wrapburn.o $(OUTPUT)/obj/tests/tools/remap.o: override CFLAGS += -fno-omit-frame-pointer -fno-optimize-sibling-calls
# burn_libc is DWARF unwinding's: built as Debian builds libc, without frame pointers
$(OUTPUT)/obj/tests/tools/burn_libc.o: override CFLAGS += -O2 -fomit-frame-pointer
# offcpu_wait: the off-CPU stacks' truth, built as Debian builds programs (-O2 -g, no frame pointers)
$(OUTPUT)/obj/tests/tools/offcpu_wait.o: override CFLAGS += -O2 -g -fomit-frame-pointer
# burn_libc_df: the same with its CFI in .debug_frame only (-g, no unwind
# tables): test_collector_profile_dwarf moves it to a debug file
all: $(OUTPUT)/tests/burn_libc_df
$(OUTPUT)/tests/burn_libc_df: $(OUTPUT)/obj/tests/tools/burn_libc_df.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ -o $@
$(OUTPUT)/obj/tests/tools/burn_libc_df.o: tests/tools/burn_libc.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-c $< -o $@
# remap's two libraries (tests/tools/remap/spin.c): the same code at the same
# offsets under two names, so two build ids; frame pointers, as burn's
all: $(OUTPUT)/tests/libspin_a.so $(OUTPUT)/tests/libspin_b.so
$(OUTPUT)/tests/libspin_%.so: tests/tools/remap/spin.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fPIC -shared -fno-omit-frame-pointer -Wl,--build-id=sha1 -DSPIN=spin_$* \
		$< -o $@
$(OUTPUT)/tests/%: $(OUTPUT)/obj/tests/tools/%.o $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ -lpthread -o $@

$(OUTPUT)/bench/%: $(OUTPUT)/obj/bench/%.o $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# BPF programs of the benchmarks (bench/*.bpf.c), loaded by bench/floor.
$(OUTPUT)/bench/%.bpf.o: bench/%.bpf.c $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/samples/%: $(OUTPUT)/obj/samples/%.o
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ -o $@

$(OUTPUT):
	$(Q)mkdir -p $@

# --- tests, demo, install ----------------------------------------------------

deps:
	$(Q)scripts/install-deps.sh

# make test: unit + integration tests + fuzz regression inputs, the kernel
# matrix (vmtest), then the first again built with ASan + UBSan (test-asan),
# then the fuzz targets for
# $(TEST_FUZZ_SECONDS) s each (20 with CI=true, else 10; FUZZ_SECONDS=N to
# choose). Valgrind runs on analyze in the first stage
# (tests/integration/test_valgrind_analyze.sh), and so does the soak
# (tests/integration/test_soak.sh: SOAK_SECONDS, 60 with CI=true, else 30). tests/stages.sh runs every
# stage even after a failure and closes with the sum of their
# "N passed, N failed, N skipped"; any failure fails make test.
test: deps
	$(Q)$(MAKE) --no-print-directory all fuzz-replay
	$(Q)OUTPUT=$(OUTPUT) MAKE="$(MAKE)" FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) tests/stages.sh

# --- sanitizers, valgrind, fuzzing -------------------------------------------
# test-asan: everything rebuilt with SANITIZE=1 into $(OUTPUT)/asan (its own
# vmlinux.h, skeletons and objects), then unit, integration and fuzz
# regression tests; a sanitizer report anywhere (also in a process whose exit
# status a test ignores) is a failure: reports go to files, tests/run.sh
# counts them. Valgrind cannot run ASan binaries: its test is left out here;
# so is the soak (test_soak: minutes of load whose RSS would measure ASan's
# allocator, already run in the first stage), and tests whose code paths
# other tests run under ASan too, for the suite's time (it reached 22 of its
# 25 minutes): 100 docker runs (test_runtime_docker_many: docker and
# docker_client boot fewer), podman and the runtimes in pidtree mode (the
# same client and naming code as docker and test_collector_watch_pidtree),
# 1,000 containers (test_load_containers) and PostgreSQL loading the TSV
# (test_collector_postgres: the escaping is unit-tested), the demo
# (test_demo: its `make demo` would build $(OUTPUT) without SANITIZE=1, and
# other tests run all it runs); and the random
# signals of test_fault_signals 3 times each, not 6. test_soak_containers
# measures the collector's RSS, which ASan's quarantine would hide;
# test_dist runs the installed collector under strace (LeakSanitizer cannot
# run under ptrace) and checks the unit and the install, not the code, and
# test_dist_systemd boots the installed collector in a Debian rootfs that
# has no libasan (it checks the unit under systemd, not the code); for
# the suite's 30 minutes, test_runtime_host_rows (test_collector_host_rows
# runs the host rows' code), test_collector_prometheus (test_collector_metrics
# runs the exporter's) and test_analyze_html (Chromium's screenshot of a page
# test_analyze_plot writes under ASan too), test_collector_profile_kernel
# (the matrix's: test_collector_profile runs the same user-space code),
# test_runtime_cri (pods booted through containerd's CRI, a minute and
# more: test_analyze_pods runs the pods' analysis on rows written by hand,
# test_collector_pod_boots the pods' metrics).
# A test with modes runs in two of them (TESTS_MODES): cgroup (the modern
# backend, the cgroup lifecycle) and legacy (backend_perf.c, the pidtree
# lifecycle) run every user-space path between them; compat is
# backend_perf.c in cgroup mode and modern pidtree the modern backend in
# pidtree mode, the same code in other pairs (the kernel sides differ, and
# the first stage and the matrix run them all).
# tests/lsan.supp holds the one leak that is not ours: elfutils 0.188's
# dwarf_getscopes() on dwz'd debug files (python3.11-dbg), as it says.
# The traced workloads (tests/tools, samples) run without LeakSanitizer: its
# exit-time tracer thread calls getppid(2), which the tests count exactly
# (options per binary name, through include_if_exists=DIR/%b).
ASAN_OUTPUT := $(OUTPUT)/asan
ASAN_DIR = $(abspath $(ASAN_OUTPUT))
test-asan:
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(ASAN_OUTPUT) SANITIZE=1 all fuzz-replay
	$(Q)rm -rf $(ASAN_OUTPUT)/sanitizer-reports $(ASAN_OUTPUT)/sanitizer-options
	$(Q)mkdir -p $(ASAN_OUTPUT)/sanitizer-reports $(ASAN_OUTPUT)/sanitizer-options
	$(Q)for b in $(notdir $(TOOLS) $(SAMPLES)); do \
		echo detect_leaks=0 > $(ASAN_OUTPUT)/sanitizer-options/$$b; done
	$(Q)OUTPUT=$(ASAN_OUTPUT) TESTS_EXCLUDE='test_valgrind_* test_soak test_collector_profile_kernel test_soak_containers test_dist test_dist_systemd test_runtime_host_rows test_collector_prometheus test_analyze_html test_runtime_docker_many test_runtime_podman test_runtime_pidtree test_load_containers test_collector_postgres test_demo test_runtime_cri' \
	TESTS_MODES='cgroup legacy' FAULT_ITERATIONS=3 \
	SANITIZER_REPORTS=$(ASAN_OUTPUT)/sanitizer-reports \
	ASAN_OPTIONS=log_path=$(ASAN_DIR)/sanitizer-reports/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:include_if_exists=$(ASAN_DIR)/sanitizer-options/%b \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	UBSAN_OPTIONS=log_path=$(ASAN_DIR)/sanitizer-reports/ubsan:print_stacktrace=1:halt_on_error=1 \
	tests/run.sh

test-valgrind: all
	$(Q)OUTPUT=$(OUTPUT) tests/run.sh integration test_valgrind

# fuzz: build the libFuzzer targets (clang, ASan + UBSan) into $(OUTPUT)/fuzz,
# seed their corpora from samples/ and fuzz/corpus/, run each for
# FUZZ_SECONDS; a crash fails and is copied to tests/fuzz-regressions/.
# fuzz-replay: the same targets built with $(CC) as plain programs that run
# given inputs once (tests/run.sh replays tests/fuzz-regressions/ with them).
FUZZ_TARGETS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_TARGETS:%=$(OUTPUT)/fuzz/%)
FUZZ_REPLAYS := $(FUZZ_TARGETS:%=$(OUTPUT)/fuzz-replay/%)
FUZZ_CFLAGS := -g -O1 -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -I$(OUTPUT) \
	-DBOOTTRACE_VERSION='"$(VERSION)"' -fno-omit-frame-pointer -fno-sanitize-recover=all \
	-fsanitize=fuzzer-no-link,address,undefined -MMD -MP
FUZZ_LIB_SRCS := $(COMMON_SRCS) $(ANALYZE_SRCS)
TEST_FUZZ_SECONDS := $(if $(filter command line environment,$(origin FUZZ_SECONDS)),$(FUZZ_SECONDS),$(if $(filter true,$(CI)),20,10))
FUZZ_SECONDS ?= 60

fuzz: $(FUZZ_BINS)
	$(Q)OUTPUT=$(OUTPUT) FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_BINS)
fuzz-replay: $(FUZZ_REPLAYS)

$(OUTPUT)/fuzz/obj/%.o: %.c | $(OUTPUT)
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/%: $(OUTPUT)/fuzz/obj/fuzz/%.o $(FUZZ_LIB_SRCS:%.c=$(OUTPUT)/fuzz/obj/%.o)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) -fsanitize=fuzzer,address,undefined $(FUZZ_LDFLAGS) $^ $(ANALYZE_LDLIBS) -lm -lpthread -o $@

$(OUTPUT)/fuzz-replay/%: $(OUTPUT)/obj/fuzz/%.o $(OUTPUT)/obj/fuzz/replay.o $(OUTPUT)/libanalyze.a $(OUTPUT)/libcommon.a
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $(FUZZ_LDFLAGS) $^ $(ANALYZE_LDLIBS) -lm -lpthread -o $@

# fuzz_reader cuts read(2) and pread(2) short to play a pipe, and keeps large
# blocks from one input to the next (see the file).
$(OUTPUT)/fuzz/fuzz_reader $(OUTPUT)/fuzz-replay/fuzz_reader: FUZZ_LDFLAGS := -Wl,--wrap=read,--wrap=pread,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

unit: all
	$(Q)OUTPUT=$(OUTPUT) tests/run.sh unit

integration: all
	$(Q)OUTPUT=$(OUTPUT) tests/run.sh integration

# vmtest: the kernel matrix (docs/vmtest.md): integration tests in each of
# their modes on Debian 12's stock kernel and the backports one under QEMU
# (fetched once into $(OUTPUT)/vm/kernels) and on the host's; part of make
# test (tests/stages.sh).
vmtest: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)OUTPUT=$(OUTPUT) tests/vm/vmtest.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)OUTPUT=$(OUTPUT) scripts/demo.sh $(DEMO_OUT)

bench: all
	$(Q)OUTPUT=$(OUTPUT) bench/run.sh

install: $(OUTPUT)/collector $(OUTPUT)/analyze
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(OUTPUT)/collector $(DESTDIR)$(SBINDIR)/collector
	install -m 0755 $(OUTPUT)/analyze $(DESTDIR)$(BINDIR)/analyze
	install -m 0644 man/collector.8 $(DESTDIR)$(MANDIR)/man8/collector.8
	install -m 0644 man/analyze.1 $(DESTDIR)$(MANDIR)/man1/analyze.1
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(EXAMPLESDIR)/prometheus
	sed 's|@SBINDIR@|$(SBINDIR)|g' dist/boottrace-collector.service > $(DESTDIR)$(UNITDIR)/boottrace-collector.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/boottrace-collector.service
	install -m 0644 dist/prometheus/*.yml $(DESTDIR)$(EXAMPLESDIR)/prometheus/

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/collector $(DESTDIR)$(BINDIR)/analyze \
	      $(DESTDIR)$(MANDIR)/man8/collector.8 $(DESTDIR)$(MANDIR)/man1/analyze.1 \
	      $(DESTDIR)$(UNITDIR)/boottrace-collector.service
	rm -rf $(DESTDIR)$(EXAMPLESDIR)

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

.SECONDARY:
-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)
