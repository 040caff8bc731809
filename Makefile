# kiln — a Lisp that compiles to eBPF.  `make` builds ./kiln; `make run` and `make test`
# first install any missing Debian package (as root), see `deps`.
CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc
LDLIBS  := -lbpf -lelf -lz

BUILD   := build
COMPILER_SRC := $(wildcard src/compiler/*.c)
CLI_SRC      := $(wildcard src/cli/*.c)
COMPILER_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(COMPILER_SRC)) $(BUILD)/gen/prelude.o
CLI_OBJS      := $(patsubst src/%.c,$(BUILD)/%.o,$(CLI_SRC))
UNIT_SRC      := $(wildcard tests/unit/test_*.c)
UNIT_BINS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TOOL_SRC      := $(wildcard tests/harness/*.c)
TOOL_BINS     := $(patsubst tests/harness/%.c,$(BUILD)/tests/%,$(TOOL_SRC))

# Debian packages kiln needs: libbpf/libelf/zlib to build and load, bpftool for the
# interop tests, clang/llvm only to build the tests' reference twins.
DEB_PKGS := gcc make libbpf-dev libelf-dev zlib1g-dev bpftool clang llvm iproute2

.PHONY: all deps run test clean examples test-bins
all: kiln

kiln: $(BUILD)/kiln
	ln -sf $(BUILD)/kiln kiln

$(BUILD)/kiln: $(CLI_OBJS) $(BUILD)/libkilnc.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The compiler as a library, for the CLI and the unit tests.
$(BUILD)/libkilnc.a: $(COMPILER_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/libkilnc.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/harness/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

test-bins: $(UNIT_BINS) $(TOOL_BINS)

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
	./kiln test-run examples/xdp-count.lisp --data-sample ipv4-tcp-syn --repeat 3

test: deps
	$(MAKE) --no-print-directory kiln test-bins
	@bash tests/run

clean:
	rm -rf $(BUILD) kiln
