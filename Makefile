# kiln — a Lisp that compiles to eBPF.  `make` builds ./kiln; `make run` and `make test`
# first install any missing Debian package (as root), see `deps`.
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc
LDLIBS  := -lbpf -lelf -ldw -lz -lpthread

BUILD   := build
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
VERSION := 0.1.0
COMPILER_SRC := $(wildcard src/compiler/*.c)
LIB_SRC      := $(wildcard src/lib/*.c)
CLI_SRC      := $(wildcard src/cli/*.c)
COMPILER_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(COMPILER_SRC)) $(BUILD)/gen/prelude.o
LIB_OBJS      := $(COMPILER_OBJS) $(patsubst src/%.c,$(BUILD)/%.o,$(LIB_SRC))
PIC_OBJS      := $(patsubst $(BUILD)/%.o,$(BUILD)/pic/%.o,$(LIB_OBJS))
CLI_OBJS      := $(patsubst src/%.c,$(BUILD)/%.o,$(CLI_SRC))
UNIT_SRC      := $(wildcard tests/unit/test_*.c)
UNIT_BINS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TOOL_SRC      := $(wildcard tests/harness/*.c)
TOOL_BINS     := $(patsubst tests/harness/%.c,$(BUILD)/tests/%,$(TOOL_SRC))

# Debian packages kiln needs: libbpf/libelf/zlib to build and load, bpftool for the
# interop tests, clang/llvm only to build the tests' reference twins, iproute2 for the
# veth pairs and network namespaces of the attach tests, ping (iputils-ping) to send packets,
# libdw (libdw-dev) for the file:line of user stack frames from DWARF, libclang-rt-14-dev for
# clang's libFuzzer and sanitizer runtimes (`make fuzz`)
DEB_PKGS := gcc make libbpf-dev libelf-dev libdw-dev zlib1g-dev bpftool clang llvm iproute2 iputils-ping pkg-config \
	libclang-rt-14-dev

.PHONY: all deps run test clean examples test-bins install uninstall lib
all: kiln lib

kiln: $(BUILD)/kiln
	ln -sf $(BUILD)/kiln kiln

lib: $(BUILD)/libkiln.a $(BUILD)/libkiln.so

$(BUILD)/kiln: $(CLI_OBJS) $(BUILD)/libkiln.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# libkiln: the compiler and the runtime (maps, pinning, objects, attach, info, test-run).
# The CLI and the tests link the static library; `make install` installs both, with the
# shared library exporting only the kiln_* API (src/lib/libkiln.map).
$(BUILD)/libkiln.a: $(LIB_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libkiln.so: $(PIC_OBJS) src/lib/libkiln.map
	$(CC) $(CFLAGS) -shared -fPIC -Wl,-soname,libkiln.so.0 -Wl,--version-script=src/lib/libkiln.map \
		-o $@ $(PIC_OBJS) $(LDLIBS)

install: lib kiln
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR)/kiln
	install -m 755 $(BUILD)/kiln $(DESTDIR)$(PREFIX)/bin/kiln
	install -m 644 $(BUILD)/libkiln.a $(DESTDIR)$(LIBDIR)/libkiln.a
	install -m 755 $(BUILD)/libkiln.so $(DESTDIR)$(LIBDIR)/libkiln.so.$(VERSION)
	ln -sf libkiln.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libkiln.so.0
	ln -sf libkiln.so.0 $(DESTDIR)$(LIBDIR)/libkiln.so
	install -m 644 include/kiln/*.h $(DESTDIR)$(INCDIR)/kiln/
	printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: kiln\nDescription: %s\nVersion: %s\nRequires.private: libbpf libelf zlib\nLibs: -L$${libdir} -lkiln\nLibs.private: -ldw -lpthread\nCflags: -I$${includedir}\n' \
		'$(PREFIX)' '$(LIBDIR)' '$(INCDIR)' 'a Lisp that compiles to eBPF, and its runtime' '$(VERSION)' \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/kiln.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kiln $(DESTDIR)$(LIBDIR)/libkiln.* $(DESTDIR)$(LIBDIR)/pkgconfig/kiln.pc
	rm -rf $(DESTDIR)$(INCDIR)/kiln

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# test_stack walks its own user stack through the kernel: it needs frame pointers
$(BUILD)/tests/unit/test_stack: private CFLAGS += -fno-omit-frame-pointer

$(BUILD)/tests/%: tests/harness/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

test-bins: $(UNIT_BINS) $(TOOL_BINS) lib

$(BUILD)/compiler/tables.o: src/compiler/helpers.inc

# The prelude (src/compiler/prelude.lisp) is compiled into the binary as a C string.
$(BUILD)/gen/prelude.c: src/compiler/prelude.lisp
	@mkdir -p $(dir $@)
	{ echo '/* generated from src/compiler/prelude.lisp by the Makefile */'; \
	  echo 'const char kl_prelude_text[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@
$(BUILD)/gen/prelude.o: $(BUILD)/gen/prelude.c
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/%.o: src/%.c $(wildcard src/*/*.h include/kiln/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<
$(BUILD)/pic/gen/prelude.o: $(BUILD)/gen/prelude.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<
$(BUILD)/pic/%.o: src/%.c $(wildcard src/*/*.h include/kiln/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" != 0 ]; then echo "kiln: missing packages:$$missing (run as root to install)"; exit 1; fi; \
		echo "kiln: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

examples: kiln
	@mkdir -p $(BUILD)/examples
	@for f in examples/*.lisp; do ./kiln compile $$f -o $(BUILD)/examples/$$(basename $${f%.lisp}).o || exit 1; done

run: deps
	$(MAKE) --no-print-directory kiln
	@$(MAKE) --no-print-directory examples
	@mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null || true
	@echo "kiln: examples/execsnoop.lisp, live for 3 seconds, while make starts a few processes"
	@./kiln run examples/execsnoop.lisp --duration 3 & kiln=$$!; sleep 1; \
		for c in "uname -r" "ls /" "date" "/no/such/program"; do sh -c "$$c" >/dev/null 2>&1; done; \
		wait $$kiln

test: deps
	$(MAKE) --no-print-directory kiln test-bins
	@bash tests/run

clean:
	rm -rf $(BUILD) kiln

# `make fuzz`: libFuzzer harnesses (tests/fuzz/); their replay builds are test-bins
include tests/fuzz/fuzz.mk
