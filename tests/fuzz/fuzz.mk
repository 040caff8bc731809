# tests/fuzz/fuzz.mk — the fuzz harnesses, included by the Makefile. Every tests/fuzz/fuzz_NAME.c
# defines LLVMFuzzerTestOneInput and is built twice:
#   $(BUILD)/fuzz/fuzz_NAME        libFuzzer, by clang with ASan and UBSan, linked with libkiln
#                                  and the CLI (less main.c) built again the same way into
#                                  $(BUILD)/fuzz/obj/ (its own flags, not CFLAGS)
#   $(BUILD)/tests/fuzz/fuzz_NAME  the suite's build (CC, CFLAGS) with tests/fuzz/replay.c as its
#                                  main(): tests/suites/fuzz-regress.sh runs it over the crash
#                                  inputs kept in tests/fuzz/regress/NAME/ in every `make test`
# `make fuzz` makes the seed corpora and dictionaries (tests/fuzz/seeds.sh) and runs each
# harness FUZZ_TIME seconds, FUZZ_JOBS at a time (tests/fuzz/run.sh); it fails on any crash,
# leak, sanitizer report or timeout, keeping the input under $(BUILD)/fuzz/crash/NAME/.
FUZZ_SRC      := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES    := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))
FUZZ_BINS     := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_REPLAYS  := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRC))
# the CLI without main and the REPL (which links libedit): what the harnesses call into
CLI_LIB_OBJS  := $(filter-out $(BUILD)/cli/main.o $(BUILD)/host/repl.o,$(CLI_OBJS))
FUZZ_OBJS     := $(patsubst $(BUILD)/%,$(BUILD)/fuzz/obj/%,$(LIB_OBJS) $(CLI_LIB_OBJS))
FUZZ_CC       ?= clang
FUZZ_CFLAGS   := -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter \
		 -fsanitize=address,undefined -fno-sanitize-recover=all -Iinclude -Isrc
FUZZ_TIME     ?= 60
FUZZ_JOBS     ?= 2

.PHONY: fuzz fuzz-bins
fuzz-bins: $(FUZZ_BINS)
# built for the pattern rules below, and kept (not intermediate files make would delete)
.SECONDARY: $(FUZZ_OBJS)

fuzz: fuzz-bins $(BUILD)/kiln
	bash tests/fuzz/seeds.sh $(BUILD)/fuzz
	FUZZ_TIME=$(FUZZ_TIME) FUZZ_JOBS=$(FUZZ_JOBS) bash tests/fuzz/run.sh $(BUILD)/fuzz $(FUZZ_NAMES)

# the generated sources: the prelude's text and its index
$(BUILD)/fuzz/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(BUILD)/fuzz/obj/%.o: src/%.c $(wildcard src/*/*.h include/kiln/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/sink.h $(FUZZ_OBJS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter-out %.h,$^) $(LDLIBS)

# The replay build: compiled and linked as the unit tests are (kiln's flags, the user's, and
# SANITIZE in test-asan's build-asan/, where the inputs run under ASan and UBSan).
$(BUILD)/tests/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/sink.h $(CLI_LIB_OBJS) $(BUILD)/libkiln.a
	@mkdir -p $(dir $@)
	$(COMPILE) $(LDFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS)

test-bins: $(FUZZ_REPLAYS)
