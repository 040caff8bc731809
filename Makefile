# kiln — a Lisp that compiles to eBPF.  `make` builds ./kiln; `make run` and `make test`
# first install any missing Debian package (as root), see `deps`. `make test-asan` runs the
# whole suite again against a build with AddressSanitizer and UBSan (in build-asan/),
# `make test-tsan` the concurrency unit test under ThreadSanitizer (in build-tsan/),
# `make test-valgrind` the compiler under valgrind over every example and test program.
#
# CFLAGS, CPPFLAGS and LDFLAGS are the user's, from the command line or the environment
# (`make CFLAGS='-O0 -g'`): they add to kiln's own flags (KL_CPPFLAGS, KL_CFLAGS), which no
# setting of them can drop. SANITIZE is what test-asan and test-tsan build with.
CC      ?= gcc
CFLAGS  ?= -O2 -g
KL_CPPFLAGS := -Iinclude -Isrc
KL_CFLAGS   := -std=gnu11 -Wall -Wextra -Wno-unused-parameter
KL_LDFLAGS  :=
SANITIZE    :=
COMPILE  = $(CC) $(KL_CPPFLAGS) $(CPPFLAGS) $(KL_CFLAGS) $(CFLAGS) $(SANITIZE)
LINK     = $(CC) $(KL_CFLAGS) $(CFLAGS) $(SANITIZE) $(LDFLAGS)
LDLIBS  := -lbpf -lelf -ldw -lz -lpthread

BUILD   := build
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
VERSION := 0.1.0
COMPILER_SRC := $(wildcard src/compiler/*.c src/compiler/opt/*.c src/lisp/*.c)
LIB_SRC      := $(wildcard src/lib/*.c)
# src/kfacts/: the lists of kernel facts (map and program types) every layer reads
KFACTS_SRC   := $(wildcard src/kfacts/*.c)
TRACE_SRC    := $(wildcard src/trace/*.c)
# src/host/: the Lisp of Whistler session files, interpreted by `kiln run` (part of the CLI)
CLI_SRC      := $(wildcard src/cli/*.c) $(wildcard src/host/*.c)
COMPILER_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(COMPILER_SRC) $(KFACTS_SRC)) $(BUILD)/gen/prelude.o \
	$(BUILD)/gen/prelude_index.o
LIB_OBJS      := $(COMPILER_OBJS) $(patsubst src/%.c,$(BUILD)/%.o,$(LIB_SRC) $(TRACE_SRC))
PIC_OBJS      := $(patsubst $(BUILD)/%.o,$(BUILD)/pic/%.o,$(LIB_OBJS))
CLI_OBJS      := $(patsubst src/%.c,$(BUILD)/%.o,$(CLI_SRC))
UNIT_SRC      := $(wildcard tests/unit/test_*.c)
UNIT_BINS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TOOL_SRC      := $(wildcard tests/harness/*.c)
TOOL_BINS     := $(patsubst tests/harness/%.c,$(BUILD)/tests/%,$(TOOL_SRC))
# LD_PRELOAD shims of the tests (tests/shim/): built without the sanitizers
SHIM_SRC      := $(wildcard tests/shim/*.c)
SHIM_LIBS     := $(patsubst tests/shim/%.c,$(BUILD)/tests/%.so,$(SHIM_SRC))

# Debian packages kiln needs: libbpf/libelf/zlib to build and load, bpftool for the
# interop tests, clang/llvm only to build the tests' reference twins, iproute2 for the
# veth pairs and network namespaces of the attach tests, ping (iputils-ping) to send packets,
# libdw (libdw-dev) for the file:line of user stack frames from DWARF, strace to watch the
# system calls kiln makes (tests/suites/attach-calls.sh, kernel-btf.sh, targs.sh), capsh
# (libcap2-bin) to run kiln without CAP_BPF in the tests, nsenter (util-linux) to enter a
# test's netns,
# libclang-rt-14-dev for clang's libFuzzer and sanitizer runtimes (`make fuzz`), prometheus to
# scrape `kiln run --metrics` in tests/suites/metrics.sh, libedit (libedit-dev) for the line
# editing and history of `kiln repl`, sbcl to run Whistler's own session examples beside
# `kiln run` in tests/suites/sessions.sh and bench/sessions.sh, golang-go to build and vet the
# Go that `kiln gen go` writes (tests/suites/gen.sh and gen-hostile.sh), libmicrohttpd
# (libmicrohttpd-dev) for the HTTP server of `kiln run --metrics` (served from its own threads,
# no client can stall it), systemtap-sdt-dev (<sys/sdt.h>) and zip to build bpftrace's runtime
# suite's test programs, its usdt probes and archive (tests/trace/testprogs.sh)
DEB_PKGS := gcc make libbpf-dev libelf-dev libdw-dev zlib1g-dev bpftool clang llvm iproute2 iputils-ping pkg-config \
	libcap2-bin util-linux libclang-rt-14-dev strace bpftrace prometheus libedit-dev sbcl golang-go libmicrohttpd-dev \
	systemtap-sdt-dev zip

.PHONY: all deps bench bench-trace run test clean examples test-bins install uninstall lib test-asan test-tsan test-valgrind man completion kiln-libs peers
all: kiln lib

kiln: $(BUILD)/kiln
	ln -sf $(BUILD)/kiln kiln

lib: $(BUILD)/libkiln.a $(BUILD)/libkiln.so

$(BUILD)/kiln: $(CLI_OBJS) $(BUILD)/libkiln.a
	$(LINK) -o $@ $^ $(KILN_LIBS)

# The kiln command takes libbpf, libelf, libdw, libedit and what they need from the static
# archives their Debian -dev packages ship, libc staying shared: binding eleven shared
# libraries at every start was a quarter of a small compile's time (README.md, "Dependencies").
# STATIC_LIBS=0, or a missing archive, links them all shared. libkiln.so and the tests link
# them shared either way. libmicrohttpd (`kiln run --metrics`) is not linked: kiln opens it
# (dlopen) when --metrics asks for it, as binding it binds GnuTLS, whose start-up would cost
# every command more than the static archives save (src/cli/metrics_http.c).
STATIC_LIBS ?= 1
KL_ARCHIVES := bpf dw elf edit tinfo bsd md z lzma bz2
KL_NO_ARCHIVE = $(strip $(foreach l,$(KL_ARCHIVES),$(if $(filter /%,$(shell $(CC) -print-file-name=lib$(l).a)),,$(l))))
KILN_LIBS = $(if $(filter 1,$(STATIC_LIBS)),$(if $(KL_NO_ARCHIVE),$(LDLIBS) -ledit,\
	-Wl,-Bstatic $(addprefix -l,$(KL_ARCHIVES)) -Wl,-Bdynamic -lpthread),$(LDLIBS) -ledit)

kiln-libs:   # what the kiln command links (tests/suites/install.sh checks the binary against it)
	@echo '$(KILN_LIBS)'

# libkiln: the compiler and the runtime (maps, pinning, objects, attach, info, test-run).
# The CLI and the tests link the static library; `make install` installs both, with the
# shared library exporting only the kiln_* API (src/lib/libkiln.map).
$(BUILD)/libkiln.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libkiln.so: $(PIC_OBJS) src/lib/libkiln.map
	$(LINK) -shared -fPIC -Wl,-soname,libkiln.so.0 -Wl,--version-script=src/lib/libkiln.map \
		-o $@ $(PIC_OBJS) $(LDLIBS)

# kiln's version: VERSION, and the revision `git describe` gives when built in a checkout,
# defined for version.c only. The stamp changes (and version.o is rebuilt) only when they do.
KL_GIT := $(shell git describe --always --dirty 2>/dev/null)
$(BUILD)/gen/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION) $(KL_GIT)' | cmp -s - $@ || echo '$(VERSION) $(KL_GIT)' > $@
$(BUILD)/cli/version.o: $(BUILD)/gen/version.stamp
$(BUILD)/cli/version.o: private KL_CPPFLAGS += -DKL_VERSION='"$(VERSION)"' -DKL_GIT='"$(KL_GIT)"'
.PHONY: FORCE
FORCE:

# Man pages and the bash completion script, made by kiln itself from the same --help texts
# and option tables (`kiln help --man`, `kiln completion bash`): kiln(1) and kiln-COMMAND(1)
# for every command in src/cli/main.c's table.
man: $(BUILD)/kiln
	@rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	$(BUILD)/kiln help --man > $(BUILD)/man/kiln.1
	@for c in $$($(BUILD)/kiln help --commands); do \
		$(BUILD)/kiln help --man $$c > $(BUILD)/man/kiln-$$c.1 || exit 1; done
completion: $(BUILD)/kiln
	@mkdir -p $(BUILD)/completion
	$(BUILD)/kiln completion bash > $(BUILD)/completion/kiln

LDCONFIG ?= ldconfig
install: lib $(BUILD)/kiln man completion
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/kiln
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(BUILD)/completion/kiln $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kiln
	install -m 755 $(BUILD)/kiln $(DESTDIR)$(PREFIX)/bin/kiln
	install -m 644 $(BUILD)/libkiln.a $(DESTDIR)$(LIBDIR)/libkiln.a
	install -m 755 $(BUILD)/libkiln.so $(DESTDIR)$(LIBDIR)/libkiln.so.$(VERSION)
	ln -sf libkiln.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libkiln.so.0
	ln -sf libkiln.so.0 $(DESTDIR)$(LIBDIR)/libkiln.so
	install -m 644 include/kiln/*.h $(DESTDIR)$(INCDIR)/kiln/
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: kiln\nDescription: %s\nVersion: %s\nRequires.private: libbpf libelf zlib\nLibs: -L$${libdir} -lkiln\nLibs.private: -ldw -lpthread\nCflags: -I$${includedir}\n' \
		'$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' 'a Lisp that compiles to eBPF, and its runtime' '$(VERSION)' \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/kiln.pc
	@# the run-time linker's cache learns the new library where LIBDIR is one it searches
	@# (/usr/local/lib on Debian); not for a staged DESTDIR install; LDCONFIG= skips it
	if [ -z '$(DESTDIR)' ] && [ -n '$(LDCONFIG)' ] && command -v $(firstword $(LDCONFIG)) >/dev/null 2>&1; then $(LDCONFIG); fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kiln $(DESTDIR)$(LIBDIR)/libkiln.* $(DESTDIR)$(LIBDIR)/pkgconfig/kiln.pc
	rm -rf $(DESTDIR)$(INCDIR)/kiln
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/kiln.1 $(DESTDIR)$(PREFIX)/share/man/man1/kiln-*.1
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kiln

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(COMPILE) $(KL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# test_stack walks its own user stack through the kernel: it needs frame pointers; and one
# of its functions is renamed to a symbol holding an escape sequence and a newline (which no
# assembler takes), for the symbolizer to hand out escaped
$(BUILD)/tests/unit/test_stack: private KL_CFLAGS += -fno-omit-frame-pointer
$(BUILD)/tests/unit/test_stack: tests/unit/test_stack.c $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(COMPILE) $(KL_LDFLAGS) $(LDFLAGS) -o $@.tmp $^ $(LDLIBS)
	objcopy --redefine-sym "kiln_test_hostile_fn=$$(printf 'kiln_hostile\033[31m\nname')" $@.tmp
	mv $@.tmp $@
# test_concurrency makes the library's allocations fail one by one: it wraps malloc & co.
$(BUILD)/tests/unit/test_concurrency: private KL_LDFLAGS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

$(BUILD)/tests/%: tests/harness/%.c
	@mkdir -p $(dir $@)
	$(COMPILE) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%.so: tests/shim/%.c
	@mkdir -p $(dir $@)
	$(CC) $(KL_CFLAGS) $(CFLAGS) -shared -fPIC -o $@ $< -ldl

# ptlive attaches through libkiln, as `kiln run` does
$(BUILD)/tests/ptlive: tests/harness/ptlive.c $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(COMPILE) $(KL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

test-bins: $(UNIT_BINS) $(TOOL_BINS) $(SHIM_LIBS) lib

$(BUILD)/compiler/tables.o: src/compiler/helpers.inc

# The prelude (src/compiler/prelude.lisp) is compiled into the binary as a C string.
$(BUILD)/gen/prelude.c: src/compiler/prelude.lisp
	@mkdir -p $(dir $@)
	{ echo '/* generated from src/compiler/prelude.lisp by the Makefile */'; \
	  echo 'const char kl_prelude_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@
$(BUILD)/gen/prelude.o: $(BUILD)/gen/prelude.c
	$(COMPILE) -c -o $@ $<
# Which prelude form defines which macro or constant (src/compiler/prelude.h), worked out by
# the compiler itself reading the prelude (tools/prelude_index.c, which has an empty table of
# its own), so that a compilation reads only the prelude forms its program needs.
$(BUILD)/gen/prelude_index: tools/prelude_index.c $(filter-out $(BUILD)/gen/prelude_index.o,$(COMPILER_OBJS))
	$(COMPILE) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/gen/prelude_index.c: $(BUILD)/gen/prelude_index
	$< > $@.tmp && mv $@.tmp $@
$(BUILD)/gen/prelude_index.o: $(BUILD)/gen/prelude_index.c
	$(COMPILE) -c -o $@ $<
$(BUILD)/pic/gen/prelude_index.o: $(BUILD)/gen/prelude_index.c
	@mkdir -p $(dir $@)
	$(COMPILE) -fPIC -c -o $@ $<
$(BUILD)/%.o: src/%.c $(wildcard src/*/*.h src/*/*/*.h src/kfacts/*.def include/kiln/*.h)
	@mkdir -p $(dir $@)
	$(COMPILE) -c -o $@ $<
$(BUILD)/pic/gen/prelude.o: $(BUILD)/gen/prelude.c
	@mkdir -p $(dir $@)
	$(COMPILE) -fPIC -c -o $@ $<
$(BUILD)/pic/%.o: src/%.c $(wildcard src/*/*.h src/*/*/*.h src/kfacts/*.def include/kiln/*.h)
	@mkdir -p $(dir $@)
	$(COMPILE) -fPIC -c -o $@ $<

# the Debian packages in $(1) that are not installed yet, installed (as root)
define install-debs
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "kiln: missing packages:$$missing (run as root to install)"; exit 1; fi; \
		echo "kiln: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps:
	$(call install-debs,$(DEB_PKGS))

# bench: kiln against clang -O2 over the twin corpus (bench/bench.sh); gnuplot is only for this
bench: deps
	$(call install-debs,gnuplot-nox)
	$(MAKE) --no-print-directory kiln lib
	@bash bench/bench.sh

# bench-trace: kiln trace against bpftrace 0.17 (start-up, RSS, instructions; bench/trace.sh)
bench-trace: deps
	$(MAKE) --no-print-directory kiln
	@bash bench/trace.sh

examples: kiln
	@mkdir -p $(BUILD)/examples
	@for f in examples/*.lisp; do ./kiln compile $$f -o $(BUILD)/examples/$$(basename $${f%.lisp}).o || exit 1; done

# (kiln mounts tracefs and bpffs itself where they are missing and it runs as root: the
# examples read tracepoint formats when they compile)
run: deps
	$(MAKE) --no-print-directory kiln
	@$(MAKE) --no-print-directory examples
	@echo "kiln: examples/execsnoop.lisp, live for 3 seconds, while make starts a few processes"
	@./kiln run examples/execsnoop.lisp --duration 3 & kiln=$$!; sleep 1; \
		for c in "uname -r" "ls /" "date" "/no/such/program"; do sh -c "$$c" >/dev/null 2>&1; done; \
		wait $$kiln

test: deps
	$(MAKE) --no-print-directory kiln test-bins twins
	@bash tests/run

# peers: the two projects some suites and benches compare kiln with (README.md, "Peers"),
# cloned into KILN_PEERS (default peers/ here, where the tests look when it is unset):
# Whistler at the commit the tests were written against, bpftrace's sources at tag v0.17.0.
# Needs the network, and fails saying so without one; a peer already there is kept. Without
# the peers their cross-checks SKIP, and tests/run ends saying how many.
KILN_PEERS   ?= $(CURDIR)/peers
WHISTLER_URL ?= https://github.com/atgreen/Whistler
WHISTLER_REV ?= 5bb5865f126dcc17d62036b6d2a860912e423c18
BPFTRACE_URL ?= https://github.com/bpftrace/bpftrace
BPFTRACE_TAG ?= v0.17.0
peers:
	@WHISTLER_URL='$(WHISTLER_URL)' WHISTLER_REV='$(WHISTLER_REV)' BPFTRACE_URL='$(BPFTRACE_URL)' \
		BPFTRACE_TAG='$(BPFTRACE_TAG)' bash tools/peers.sh '$(KILN_PEERS)'

# twins: the corpus's C twins built once by clang -O2, in parallel, for every suite that
# compares with them (corpus, disasm, case: each compiles a twin itself only when its object
# here is missing or older than the source). clang's output does not depend on BUILD, so
# test-asan shares them.
TWIN_DIR  := build/twins
TWIN_OBJS := $(patsubst tests/corpus/%.c,$(TWIN_DIR)/%.clang.o,$(wildcard tests/corpus/*.c))
.PHONY: twins
twins: $(TWIN_OBJS)
$(TWIN_DIR)/%.clang.o: tests/corpus/%.c
	@mkdir -p $(TWIN_DIR)
	clang -O2 -g -target bpf -I/usr/include/$(shell gcc -print-multiarch) -c $< -o $@

# ---- the suite under sanitizers and valgrind ----
# test-asan: everything (kiln, libkiln, unit tests, harness tools) rebuilt in build-asan/ with
# AddressSanitizer (LeakSanitizer included) and UBSan, then the whole suite against it
# (tests/run takes BUILD and KILN from the environment). The sanitizers write their reports
# to files under build-asan/sanitizer/ (log_path) rather than to stderr, where a test that
# expects kiln to fail could take one for the failure it wanted: tests/run fails the run for
# every report file it finds there and prints it. UBSan stops at its first report
# (-fno-sanitize-recover). Leaks are reports too, except those tests/lsan.supp suppresses:
# only allocations made inside libbpf/libelf that they keep for the life of the process.
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_ENV = ASAN_OPTIONS=log_path=$(CURDIR)/build-asan/sanitizer/asan:detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
	UBSAN_OPTIONS=log_path=$(CURDIR)/build-asan/sanitizer/ubsan:print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
test-asan: deps
	$(MAKE) --no-print-directory BUILD=build-asan SANITIZE="$(ASAN_FLAGS)" build-asan/kiln test-bins twins
	@rm -rf build-asan/sanitizer && mkdir -p build-asan/sanitizer
	@$(ASAN_ENV) BUILD=$(CURDIR)/build-asan KILN=$(CURDIR)/build-asan/kiln SANITIZE="$(ASAN_FLAGS)" \
		KILN_SANITIZER_LOGS=$(CURDIR)/build-asan/sanitizer bash tests/run

# test-tsan: libkiln and the concurrency unit test (several threads compiling and opening
# objects at once) built in build-tsan/ with ThreadSanitizer; any data race fails it. (It
# compiles a tracepoint program, whose format is read from tracefs.)
TSAN_FLAGS := -fsanitize=thread
test-tsan: deps
	$(MAKE) --no-print-directory BUILD=build-tsan SANITIZE="$(TSAN_FLAGS)" build-tsan/tests/unit/test_concurrency
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-tsan/tests/unit/test_concurrency

# test-valgrind: ./kiln compile under valgrind's memcheck over every .lisp in examples/,
# tests/corpus/, tests/errors/ and tests/whistler/; any memcheck error or definite leak fails it.
test-valgrind: deps
	$(MAKE) --no-print-directory kiln
	@bash tests/valgrind.sh

clean:
	rm -rf $(BUILD) build-asan build-tsan kiln

# `make fuzz`: libFuzzer harnesses (tests/fuzz/); their replay builds are test-bins
include tests/fuzz/fuzz.mk
# test_trace_out calls kiln trace's printers, which are the CLI's (src/cli/trace_*.c)
$(BUILD)/tests/unit/test_trace_out: tests/unit/test_trace_out.c $(CLI_LIB_OBJS) $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(COMPILE) $(KL_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
