# foliostat build. `make` builds ./foliostat; `make V=1` shows full commands; `make STATIC=1`
# links statically; `make check` runs all tests (integration tests need root); `make install`
# honours DESTDIR and PREFIX.

VERSION := 0.4.0
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
ifeq ($(filter x86 arm64,$(ARCH)),)
$(error ARCH=$(ARCH): foliostat builds for x86 and arm64)
endif
PREFIX ?= /usr/local
DESTDIR ?=

CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config

# Cross builds (`make ARCH=arm64` on x86): Debian's cross compiler and the target's multiarch
# libraries (scripts/install-deps.sh --cross arm64 installs both), linked statically so that
# the binary runs on any arm64 host, into build/<arch>/ beside the native build; STATIC=0 links
# them dynamically, with the --listen endpoint (the arm64 image's build). BPF objects
# are the same bytes on every little-endian architecture; only the vmlinux.h they see differs.
ifneq ($(ARCH),$(HOST_ARCH))
CROSS_TRIPLET := $(if $(filter arm64,$(ARCH)),aarch64-linux-gnu,$(ARCH)-linux-gnu)
CROSS_COMPILE ?= $(CROSS_TRIPLET)-
CC := $(CROSS_COMPILE)gcc
STATIC ?= 1
export PKG_CONFIG_LIBDIR := /usr/lib/$(CROSS_TRIPLET)/pkgconfig:/usr/share/pkgconfig
OUTPUT ?= build/$(ARCH)
endif
# `make TEST_HOOKS=1`: a second binary, with the test suite's hooks (user/test_hooks.h), in
# build/test-hooks/; a release build has none of them.
ifeq ($(TEST_HOOKS),1)
OUTPUT ?= build/test-hooks
TEST_HOOKS_CFLAGS := -DFOLIOSTAT_TEST_HOOKS
endif
# A test build (tests/integration_signals.sh): foliostat's waits for running BPF programs never
# use membarrier, as on a host that refuses it; into a folder of its own beside the release build.
ifeq ($(TEST_WITHOUT_MEMBARRIER),1)
OUTPUT ?= build/no-membarrier
TEST_CFLAGS := -DFS_TEST_WITHOUT_MEMBARRIER
endif
# make bench's third reference (scripts/bench.sh): foliostat's own programs charging every event
# to its CPU's interrupt group, with no stack test and no entry found, so that what finding the
# thread costs shows apart from what counting costs; into build/bench-unattributed/, never
# installed.
ifeq ($(BENCH_UNATTRIBUTED),1)
OUTPUT ?= build/bench-unattributed
BENCH_BPF_CFLAGS := -DFS_BENCH_UNATTRIBUTED
endif
# `make fuzz` (below): the parsers of outside input under libFuzzer, with clang's address and
# undefined-behaviour sanitizers, in objects of their own in build/fuzz/.
ifeq ($(FUZZ),1)
OUTPUT ?= build/fuzz
CC := $(CLANG)
CFLAGS ?= -O1 -g
FUZZ_CFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer -Wno-missing-field-initializers
endif
OUTPUT ?= build
# The loader binary; scripts/vmtest.sh builds a static one elsewhere with BINARY=.
BINARY ?= $(if $(filter build,$(OUTPUT)),foliostat,$(OUTPUT)/foliostat)

PKGS := libbpf libcap-ng
# The unit tests read the JSON foliostat writes (user/output/json_writer.c) back with jansson, a parser
# that is not foliostat's own; foliostat does not link it. Expanded only when they are built.
UNIT_PKGS := jansson
UNIT_PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(UNIT_PKGS))
UNIT_PKG_LIBS = $(shell $(PKG_CONFIG) $(if $(filter 1,$(STATIC)),--static) --libs $(UNIT_PKGS))
# The --listen endpoint: libmicrohttpd, in dynamic builds only (Debian has no static libraries
# for all it links with); a static build gets user/serve/http_server_absent.c, which says so.
ifeq ($(STATIC),1)
HTTP_SERVER := user/serve/http_server_absent.c
else
# --web.config.file: libyaml parses it, libcrypt (libxcrypt) checks its bcrypt hashes.
PKGS += libmicrohttpd yaml-0.1 libcrypt
HTTP_SERVER := user/serve/http_server.c user/serve/password_budget.c user/serve/web_config.c
endif
ifeq ($(STATIC),1)
PKG_LIBS := $(shell $(PKG_CONFIG) --static --libs $(PKGS))
LDFLAGS += -static
else
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
endif
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))

# A cross build without its toolchain says what to install (vmtest installs it itself).
ifneq ($(ARCH),$(HOST_ARCH))
ifeq ($(filter vmtest vmlinux clean,$(MAKECMDGOALS)),)
ifeq ($(shell command -v $(CC) && $(PKG_CONFIG) --exists $(PKGS) && echo ok),)
$(error $(CC) or the $(ARCH) libraries are missing: run scripts/install-deps.sh --cross $(ARCH))
endif
endif
endif

# user/: main.c (the wiring), runs and the collector, small helpers every layer uses, and a
# folder per layer: collect (the BPF lifecycle, reading the maps, the kernel's own counters),
# resident (--resident), group (windows of processes, rows by cgroup or name, the exporter's
# series), output (the renderers, the figure registry, JSON and the sanitizing of text), serve
# (the --listen endpoint), cli (options, the command, privileges, --check). Which may include
# which: scripts/check-layers.py.
USER_DIRS := user user/collect user/group user/output user/serve user/cli user/resident
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -MMD -MP -I$(OUTPUT) -Ibpf $(addprefix -I,$(USER_DIRS)) \
	  $(PKG_CFLAGS) \
	  -DFOLIOSTAT_VERSION='"$(VERSION)"' $(TEST_HOOKS_CFLAGS) $(TEST_CFLAGS) $(FUZZ_CFLAGS)
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf -MMD -MP \
	      $(BENCH_BPF_CFLAGS)

# threads.bpf.c defines the shared maps; libbpf 1.1's linker needs the definition before the
# extern declarations of the other objects.
BPF_SRCS := bpf/threads.bpf.c $(filter-out bpf/threads.bpf.c,$(wildcard bpf/*.bpf.c))
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
USER_SRCS := $(filter-out user/main.c user/serve/%,$(wildcard $(addsuffix /*.c,$(USER_DIRS)))) \
	     $(HTTP_SERVER)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/%.o,$(USER_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%.o,$(UNIT_SRCS))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.PHONY: all clean check unit-tests fuzz fuzz-targets docs pictures install uninstall vmlinux bench vmtest vmtest-suite deb \
	image

all: $(BINARY) $(OUTPUT)/workload

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# All concerns are linked into one object, so one skeleton loads and attaches them together.
$(OUTPUT)/foliostat.bpf.o: $(BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/foliostat.skel.h: $(OUTPUT)/foliostat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name foliostat_bpf > $@

# Every user object may include the skeleton (directly or through loader.h).
$(USER_OBJS) $(OUTPUT)/main.o: $(OUTPUT)/foliostat.skel.h

$(OUTPUT)/%.o: user/%.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# Every thread's counts pass through counters.c's and words.c's loops once per read: let them be
# vectorized.
$(OUTPUT)/collect/counters.o $(OUTPUT)/words.o: CFLAGS += -O3

# Switching between STATIC=1 and a dynamic build must relink: the stamp records which was last.
LINK_STAMP := $(OUTPUT)/.link-static-$(if $(filter 1,$(STATIC)),yes,no)
$(LINK_STAMP): | $(OUTPUT)
	$(Q)rm -f $(OUTPUT)/.link-static-* && touch $@

$(BINARY): $(OUTPUT)/main.o $(USER_OBJS) $(LINK_STAMP)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $(filter %.o,$^) $(PKG_LIBS) -lm -o $@

# The workload the integration tests drive: plain C, no libraries, so it also links statically.
$(OUTPUT)/workload: tests/workload.c $(LINK_STAMP) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -std=gnu11 $(LDFLAGS) $< -lpthread -o $@

$(OUTPUT)/tests/%.o: tests/unit/%.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(UNIT_PKG_CFLAGS) -Itests/unit -c $< -o $@

$(OUTPUT)/unit-tests: $(UNIT_OBJS) $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(PKG_LIBS) $(UNIT_PKG_LIBS) -lm -o $@

# irqcheck: foliostat's interrupt-context test judged on events of known context.
$(OUTPUT)/tests/irqcheck.bpf.o: tests/irqcheck.bpf.c | $(OUTPUT)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/irqcheck.bpf.o: $(filter-out $(OUTPUT)/bpf/folios.bpf.o,$(BPF_OBJS)) \
			  $(OUTPUT)/tests/irqcheck.bpf.o
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/irqcheck.skel.h: $(OUTPUT)/irqcheck.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name irqcheck_bpf > $@

$(OUTPUT)/irqcheck: tests/irqcheck.c $(OUTPUT)/irqcheck.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $< $(PKG_LIBS) -o $@

# tlbcontrol: the kernel-count test's control program on tlb:tlb_flush (tests/control/).
$(OUTPUT)/tlbcontrol.bpf.o: tests/control/tlbcontrol.bpf.c | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/tlbcontrol.skel.h: $(OUTPUT)/tlbcontrol.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name tlbcontrol_bpf > $@

$(OUTPUT)/tlbcontrol: tests/control/tlbcontrol.c $(OUTPUT)/tlbcontrol.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $< $(PKG_LIBS) -o $@

# The overhead benchmark's own programs (scripts/bench.sh): the fault loop and the floor tracer.
$(OUTPUT)/faultbench: tests/bench/faultbench.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -std=gnu11 $< -lpthread -o $@

$(OUTPUT)/floor.bpf.o: tests/bench/floor.bpf.c tests/bench/tracepoints.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itests/bench -c $< -o $@

$(OUTPUT)/floor.skel.h: $(OUTPUT)/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(OUTPUT)/floor: tests/bench/floor.c $(OUTPUT)/floor.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $< $(PKG_LIBS) -o $@

# The limit (scripts/bench.sh's "empty"): the floor's programs with empty bodies, from the same
# sources, its skeleton under the floor's name in a folder of its own.
$(OUTPUT)/bench-empty:
	$(Q)mkdir -p $@

$(OUTPUT)/bench-empty/floor.bpf.o: tests/bench/floor.bpf.c tests/bench/tracepoints.h | $(OUTPUT)/bench-empty
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DFS_DISPATCH_ONLY -Itests/bench -c $< -o $@

$(OUTPUT)/bench-empty/floor.skel.h: $(OUTPUT)/bench-empty/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(OUTPUT)/empty: tests/bench/floor.c $(OUTPUT)/bench-empty/floor.skel.h
	$(call msg,BINARY,$@)
	$(Q)$(CC) -I$(OUTPUT)/bench-empty $(CFLAGS) -DTRACER='"empty"' $< $(PKG_LIBS) -o $@

$(OUTPUT)/churn: tests/bench/churn.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -std=gnu11 $< -lm -o $@

bench: foliostat $(OUTPUT)/faultbench $(OUTPUT)/floor $(OUTPUT)/empty $(OUTPUT)/churn \
       $(OUTPUT)/workload
	$(Q)scripts/bench.sh

# The Debian package (debian/), built from a copy of the tracked files into build/deb/
# (scripts/build-deb.sh).
deb:
	$(Q)scripts/build-deb.sh

# The OCI image, for x86-64 and arm64 (IMAGE_ARCHS="x86" for one), with podman:
# build/image/foliostat-VERSION-ARCH.oci.tar (scripts/build-image.sh).
IMAGE_ARCHS ?= x86 arm64
image:
	$(Q)scripts/build-image.sh $(IMAGE_ARCHS)

# Boot Debian 12's own Linux 6.1 (x86-64, or arm64 with ARCH=arm64) under QEMU and run
# foliostat there (scripts/vmtest.sh).
vmtest:
	$(Q)scripts/vmtest.sh $(ARCH)

# The integration suite (what `make check` runs) on Debian 12's own Linux 6.1 with a Debian 12
# userland, under QEMU (scripts/vmtest-suite.sh); NAME=filter runs the tests whose name has it.
vmtest-suite: foliostat $(OUTPUT)/workload $(OUTPUT)/unit-tests $(OUTPUT)/irqcheck $(OUTPUT)/floor \
	      $(OUTPUT)/tlbcontrol
	$(Q)$(MAKE) --no-print-directory TEST_HOOKS=1
	$(Q)scripts/vmtest-suite.sh $(NAME)

unit-tests: $(OUTPUT)/unit-tests

# The fuzz targets (tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/corpus/NAME/), built with
# FUZZ=1; `make fuzz` runs each for FUZZ_SECONDS (tests/fuzz/run.sh), the test suite for a few
# (tests/integration_fuzz.sh).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/%,$(wildcard tests/fuzz/fuzz_*.c))

$(OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c $(USER_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer,address,undefined $(filter %.c %.o,$^) $(PKG_LIBS) -lm \
		-o $@

fuzz-targets: $(FUZZ_TARGETS)

fuzz:
	$(Q)$(MAKE) --no-print-directory FUZZ=1 fuzz-targets
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)

# The docs' pictures (docs/images: the dashboard, allocations by order over time) and their data,
# from a real run of known workloads on this host, as root (tests/integration_pictures.sh).
pictures: foliostat $(OUTPUT)/workload $(OUTPUT)/unit-tests
	$(Q)PICTURES_OUT=docs/images tests/run-tests.sh test_pictures_of_a_real_run

# The man pages' and docs/prometheus.md's generated parts and the record's schema, from the figure
# registry (user/output/record_layout.c, metric_families.c; the schema's frame is
# scripts/schema-frame.json), and the options' docs (foliostat(8)'s OPTIONS, README.md's table,
# the bash completion's list) from the option rows (user/cli/option_rows.c): `make docs` writes
# them; tests/integration_docs.sh checks the checked-in copies are what it writes.
$(OUTPUT)/gen-docs: scripts/gen-docs.c scripts/option-docs.c scripts/option-docs.h $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c %.o,$^) $(PKG_LIBS) -lm -o $@

docs: $(OUTPUT)/gen-docs
	$(Q)for page in man/foliostat.8 man/foliostat-json.5 man/foliostat-metrics.7 README.md \
			contrib/bash-completion/foliostat docs/prometheus.md; do \
		$(OUTPUT)/gen-docs $$page >$(OUTPUT)/page.new && mv $(OUTPUT)/page.new $$page || exit 1; \
	done
	$(Q)$(OUTPUT)/gen-docs --schema-figures >$(OUTPUT)/schema-figures.json
	$(Q)scripts/gen-schema.py scripts/schema-frame.json $(OUTPUT)/schema-figures.json \
		>$(OUTPUT)/foliostat.schema.json.new
	$(Q)mv $(OUTPUT)/foliostat.schema.json.new docs/foliostat.schema.json

check: foliostat $(OUTPUT)/workload $(OUTPUT)/unit-tests $(OUTPUT)/irqcheck $(OUTPUT)/floor \
       $(OUTPUT)/tlbcontrol
	$(Q)$(MAKE) --no-print-directory TEST_HOOKS=1
	$(Q)tests/run-tests.sh

# vmlinux/$(ARCH)/vmlinux.h from BTF: this kernel's, or for another architecture a kernel image
# or BTF file of it (BTF=...; `make vmtest ARCH=arm64` fetches Debian's arm64 kernel).
vmlinux:
ifeq ($(ARCH),$(HOST_ARCH))
	$(Q)scripts/gen-vmlinux.sh $(or $(BTF),/sys/kernel/btf/vmlinux) $(ARCH)
else
	$(if $(BTF),,$(error make vmlinux ARCH=$(ARCH) needs BTF=PATH: a kernel image or BTF file of that architecture))
	$(Q)scripts/gen-vmlinux.sh $(BTF) $(ARCH)
endif

# Bash completion where Debian's bash-completion looks (its completionsdir, below PREFIX).
COMPLETIONS_DIR := $(PREFIX)/share/bash-completion/completions

# The exporter's systemd unit, naming the binary this PREFIX installs, in PREFIX's unit
# directory (systemd reads both /usr/local/lib/systemd/system and /usr/lib/systemd/system);
# the Grafana dashboard, for importing into Grafana (nothing on this host reads it).
UNIT_DIR := $(PREFIX)/lib/systemd/system
DASHBOARD_DIR := $(PREFIX)/share/foliostat/grafana

install: $(BINARY)
	install -D -m 0755 $(BINARY) $(DESTDIR)$(PREFIX)/sbin/foliostat
	install -D -m 0644 man/foliostat.8 $(DESTDIR)$(PREFIX)/share/man/man8/foliostat.8
	install -D -m 0644 man/foliostat-json.5 $(DESTDIR)$(PREFIX)/share/man/man5/foliostat-json.5
	install -D -m 0644 man/foliostat-metrics.7 \
		$(DESTDIR)$(PREFIX)/share/man/man7/foliostat-metrics.7
	install -D -m 0644 contrib/bash-completion/foliostat $(DESTDIR)$(COMPLETIONS_DIR)/foliostat
	install -D -m 0644 docs/foliostat.schema.json $(DESTDIR)$(PREFIX)/share/foliostat/foliostat.schema.json
	install -d $(DESTDIR)$(UNIT_DIR)
	sed 's|/usr/local/sbin/foliostat|$(PREFIX)/sbin/foliostat|g' contrib/systemd/foliostat.service \
		>$(DESTDIR)$(UNIT_DIR)/foliostat.service
	chmod 0644 $(DESTDIR)$(UNIT_DIR)/foliostat.service
	install -d $(DESTDIR)$(PREFIX)/share/foliostat/systemd
	sed 's|/usr/local/sbin/foliostat|$(PREFIX)/sbin/foliostat|g' contrib/systemd/foliostat-self.conf \
		>$(DESTDIR)$(PREFIX)/share/foliostat/systemd/foliostat-self.conf
	chmod 0644 $(DESTDIR)$(PREFIX)/share/foliostat/systemd/foliostat-self.conf
	install -D -m 0644 contrib/grafana/foliostat.json $(DESTDIR)$(DASHBOARD_DIR)/foliostat.json
	install -D -m 0644 contrib/prometheus/foliostat-rules.yml \
		$(DESTDIR)$(PREFIX)/share/foliostat/prometheus/foliostat-rules.yml

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/sbin/foliostat $(DESTDIR)$(PREFIX)/share/man/man8/foliostat.8 \
		$(DESTDIR)$(PREFIX)/share/man/man5/foliostat-json.5 \
		$(DESTDIR)$(PREFIX)/share/man/man7/foliostat-metrics.7 \
		$(DESTDIR)$(COMPLETIONS_DIR)/foliostat $(DESTDIR)$(UNIT_DIR)/foliostat.service \
		$(DESTDIR)$(DASHBOARD_DIR)/foliostat.json \
		$(DESTDIR)$(PREFIX)/share/foliostat/foliostat.schema.json \
		$(DESTDIR)$(PREFIX)/share/foliostat/systemd/foliostat-self.conf \
		$(DESTDIR)$(PREFIX)/share/foliostat/prometheus/foliostat-rules.yml
	rmdir $(DESTDIR)$(DASHBOARD_DIR) $(DESTDIR)$(PREFIX)/share/foliostat/systemd \
		$(DESTDIR)$(PREFIX)/share/foliostat/prometheus \
		$(DESTDIR)$(PREFIX)/share/foliostat 2>/dev/null || true

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) foliostat

# Every object's header dependencies, in the folders of user/ too (a header edited rebuilds
# what includes it).
-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/*/*.d)
