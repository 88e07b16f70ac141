# tviz — `make run` opens tviz on the default model and sentence,
# `make test` builds and runs every test (also under ASan + UBSan).
# Missing Debian packages are installed first (as root), or the one command
# to install them is printed.

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -fopenmp
DEFS    := -DTVIZ_ASSETS_DIR='"$(CURDIR)/assets"'
LDLIBS  := -lcjson -lm -fopenmp
SAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Debian packages the build and tests need.
DEB_PKGS := gcc libc6-dev make pkg-config libcjson-dev libcmocka-dev

MODEL_SRC := $(wildcard src/model/*.c)
CLI_SRC   := $(wildcard src/cli/*.c)
LIB_SRC   := $(MODEL_SRC) $(CLI_SRC)
HDRS      := $(wildcard src/*/*.h)
TESTS     := test_ops test_weights test_trace

B  := build
BA := build/asan

.PHONY: all run test test-unit test-asan bench deps fixtures worked-example clean
all: $(B)/tviz

# ---------------------------------------------------------------- dependencies
$(B)/.deps: Makefile
	@mkdir -p $(B)
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing missing Debian packages: $$missing"; \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing || exit 1; \
	  else \
	    echo "tviz needs these Debian packages; install them with:"; \
	    echo "  sudo apt-get install -y $$missing"; exit 1; \
	  fi; \
	fi
	@touch $@
deps: $(B)/.deps

# ---------------------------------------------------------------- builds
$(B)/tviz: src/main.c $(LIB_SRC) $(HDRS) $(B)/.deps
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -o $@ src/main.c $(LIB_SRC) $(LDLIBS)

$(BA)/tviz: src/main.c $(LIB_SRC) $(HDRS) $(B)/.deps
	@mkdir -p $(BA)
	$(CC) $(SAN) $(WARN) $(DEFS) -o $@ src/main.c $(LIB_SRC) $(LDLIBS)

$(B)/%: tests/%.c tests/testutil.h $(LIB_SRC) $(HDRS) $(B)/.deps
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -o $@ $< $(LIB_SRC) $(LDLIBS) -lcmocka

$(BA)/%: tests/%.c tests/testutil.h $(LIB_SRC) $(HDRS) $(B)/.deps
	@mkdir -p $(BA)
	$(CC) $(SAN) $(WARN) $(DEFS) -o $@ $< $(LIB_SRC) $(LDLIBS) -lcmocka

# ---------------------------------------------------------------- run, test, bench
run: $(B)/tviz
	./$(B)/tviz

test: test-unit test-asan

test-unit: $(B)/tviz $(addprefix $(B)/,$(TESTS))
	@for t in $(TESTS); do ./$(B)/$$t || exit 1; done
	@TVIZ=./$(B)/tviz sh tests/cli_test.sh

test-asan: $(BA)/tviz $(addprefix $(BA)/,$(TESTS))
	@echo "== the same tests under AddressSanitizer + UndefinedBehaviorSanitizer =="
	@for t in $(TESTS); do ./$(BA)/$$t || exit 1; done
	@TVIZ=./$(BA)/tviz sh tests/cli_test.sh

$(B)/bench: tests/bench/bench.c $(LIB_SRC) $(HDRS) $(B)/.deps
	$(CC) -O2 -g $(WARN) $(DEFS) -o $@ $< $(LIB_SRC) $(LDLIBS)

$(B)/base.safetensors: $(B)/tviz
	./$(B)/tviz model init --preset base --seed 1 -o $@

bench: $(B)/bench $(B)/base.safetensors
	./$(B)/bench assets/models/worked-example.safetensors $(B)/base.safetensors

# ---------------------------------------------------------------- generated files (committed)
# The shipped worked example, made by tviz itself.
worked-example: $(B)/tviz
	./$(B)/tviz model init --preset worked-example -o assets/models/worked-example.safetensors

WE     := assets/models/worked-example.safetensors
WE_SRC := I really enjoy learning transformers
WE_TGT := من واقعاً از یادگیری ترنسفورمرها لذت می‌برم
# Reference traces from PyTorch (needs Debian's python3-torch; CI does not).
fixtures:
	/usr/bin/python3 tests/ref/make_fixtures.py
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --out tests/fixtures/worked-example.trace.json
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --tgt "$(WE_TGT)" \
	  --out tests/fixtures/worked-example.forced.trace.json
	printf 'worked-example\t$(WE)\t$(WE_SRC)\t\nworked-example.forced\t$(WE)\t$(WE_SRC)\t$(WE_TGT)\n' >> tests/fixtures/cases.txt

clean:
	rm -rf $(B)
