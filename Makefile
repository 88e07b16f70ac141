# tviz — `make run` opens tviz on the default model and sentence,
# `make test` builds and runs every test (also under ASan + UBSan + LeakSanitizer,
# `make check-sanitize`), a short run of each fuzzer (`make fuzz` fuzzes longer)
# and a window session under valgrind (`make valgrind`).
# Missing Debian packages are installed first (as root), or the one command
# to install them is printed.

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -fopenmp
DEFS    := -DTVIZ_ASSETS_DIR='"$(CURDIR)/assets"' -DTVIZ_LESSONS_DIR='"$(CURDIR)/lessons"' \
           -DTVIZ_LOCALE_DIR='"$(CURDIR)/build/locale"'
PKGS    := pangocairo cairo-svg cairo-pdf stb sdl2
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
INC     = $(PKGCFLAGS)
LDLIBS  = -lcjson -lm -fopenmp $(PKGLIBS)
SAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Debian packages the build and tests need.
DEB_PKGS := gcc libc6-dev make pkg-config libcjson-dev libcmocka-dev \
            libcairo2-dev libpango1.0-dev libstb-dev fonts-noto-core fonts-dejavu-core \
            libsdl2-dev poppler-utils librsvg2-bin xvfb xauth imagemagick procps \
            clang libclang-rt-14-dev valgrind gettext

MODEL_SRC  := $(wildcard src/model/*.c)
RENDER_SRC := $(wildcard src/render/*.c)
LESSON_SRC := $(wildcard src/lesson/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
APP_SRC    := $(wildcard src/app/*.c)
TRAIN_SRC  := $(wildcard src/train/*.c)
IO_SRC     := $(wildcard src/io/*.c)
LIB_SRC    := $(MODEL_SRC) $(TRAIN_SRC) $(RENDER_SRC) $(LESSON_SRC) $(IO_SRC) $(CLI_SRC) $(APP_SRC)
HDRS      := $(wildcard src/*/*.h)
OBJ       := $(patsubst src/%.c,build/obj/%.o,$(LIB_SRC))
OBJA      := $(patsubst src/%.c,build/asan/obj/%.o,$(LIB_SRC))
# Interface translations: po/<lang>.po -> build/locale/<lang>/LC_MESSAGES/tviz.mo
MO        := $(patsubst po/%.po,build/locale/%/LC_MESSAGES/tviz.mo,$(wildcard po/*.po))
# Every file with words a learner reads: the window, every view (render), the
# stage titles and formula glosses (model/trace.c), the handout and export pages.
POT_SRC   := $(APP_SRC) $(RENDER_SRC) src/model/trace.c src/cli/handout.c src/cli/export.c
TESTS     := $(sort $(patsubst tests/%.c,%,$(wildcard tests/test_*.c)))

B  := build
BA := build/asan

.PHONY: all run test test-unit check-sanitize test-asan fuzz fuzz-smoke soak valgrind bench deps fixtures train-fixtures en-fa worked-example screenshots pot clean
all: $(B)/tviz $(MO)

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
# Each source compiled once per build (normal, sanitizers), then linked.
$(B)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) $(INC) -c -o $@ $<

$(BA)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $(WARN) $(DEFS) $(INC) -c -o $@ $<

$(B)/tviz: src/main.c $(OBJ)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) $(INC) -o $@ src/main.c $(OBJ) $(LDLIBS)

# (tests/san_keep_libs.c: no library is unloaded, so LeakSanitizer can name what they allocate)
$(BA)/tviz: src/main.c tests/san_keep_libs.c $(OBJA)
	$(CC) $(SAN) $(WARN) $(DEFS) $(INC) -o $@ src/main.c tests/san_keep_libs.c $(OBJA) -Wl,--export-dynamic-symbol=dlclose $(LDLIBS)

$(B)/test_%: tests/test_%.c tests/testutil.h $(OBJ)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) $(INC) -o $@ $< $(OBJ) $(LDLIBS) -lcmocka

$(BA)/test_%: tests/test_%.c tests/testutil.h $(OBJA)
	$(CC) $(SAN) $(WARN) $(DEFS) $(INC) -o $@ $< $(OBJA) $(LDLIBS) -lcmocka

# ---------------------------------------------------------------- translations
# msgfmt --check: a broken .po (bad format string, syntax) fails the build.
$(B)/locale/%/LC_MESSAGES/tviz.mo: po/%.po $(B)/.deps
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

# Refreshes the template from the sources, and merges it into every .po.
pot: $(B)/.deps
	xgettext --from-code=UTF-8 --language=C --keyword=_ --keyword=N_ --keyword=tr:2 --keyword=render_tr:2 --add-comments=TRANSLATORS: \
	  --package-name=tviz --sort-by-file --add-location=file -o po/tviz.pot $(POT_SRC)
	for po in po/*.po; do [ -e "$$po" ] || continue; msgmerge --quiet --update --backup=none --no-fuzzy-matching $$po po/tviz.pot; done

$(B)/mkbad: tests/mkbad.c $(B)/.deps
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -lcjson

# ---------------------------------------------------------------- run, test, bench
run: $(B)/tviz $(MO)
	./$(B)/tviz

test: test-unit check-sanitize fuzz-smoke valgrind

test-unit: $(B)/tviz $(MO) $(B)/mkbad $(addprefix $(B)/,$(TESTS))
	@for t in $(TESTS); do ./$(B)/$$t || exit 1; done
	@./$(B)/tviz lesson check
	@TVIZ=./$(B)/tviz sh tests/cli_test.sh
	@TVIZ=./$(B)/tviz MKBAD=./$(B)/mkbad sh tests/bad_input.sh
	@TVIZ=./$(B)/tviz sh tests/window_test.sh

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer +
# LeakSanitizer; any report fails it.
SAN_ENV := ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check-sanitize: $(BA)/tviz $(MO) $(B)/mkbad $(addprefix $(BA)/,$(TESTS))
	@echo "== the same tests under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer =="
	@for t in $(TESTS); do $(SAN_ENV) ./$(BA)/$$t || exit 1; done
	@$(SAN_ENV) ./$(BA)/tviz lesson check
	@$(SAN_ENV) TVIZ=./$(BA)/tviz sh tests/cli_test.sh
	@$(SAN_ENV) TVIZ=./$(BA)/tviz MKBAD=./$(B)/mkbad sh tests/bad_input.sh
	@# (under ASan its quarantine makes resident memory meaningless: SOAK_FLAT=0)
	@$(SAN_ENV) TVIZ=./$(BA)/tviz SOAK=500 SOAK_FLAT=0 sh tests/window_test.sh
test-asan: check-sanitize

# ---------------------------------------------------------------- fuzzing (libFuzzer, clang)
# One fuzzer per target: tests/fuzz/fuzz_<target>.c, seeds in tests/fuzz/<target>/,
# kept crash and regression inputs in tests/fuzz/regressions/<target>/.
# Adding a target is adding its name here.
FUZZ_TARGETS := loader tokenizer lesson corpus
FUZZ_SECONDS ?= 60
FUZZ_SMOKE   ?= 10
FUZZ_CC      := clang
BF           := build/fuzz
FUZZ_CFLAGS  := -g -O1 -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-source-uses-openmp -D_DEFAULT_SOURCE \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC     := $(MODEL_SRC) src/train/corpus.c src/train/lexicon.c $(LESSON_SRC) src/render/lessonval.c src/render/text.c
FUZZ_OBJ     := $(patsubst src/%.c,$(BF)/obj/%.o,$(FUZZ_SRC))
.SECONDARY: $(FUZZ_OBJ)

$(BF)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEFS) $(PKGCFLAGS) -c -o $@ $<

$(BF)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKGCFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) -lcjson -lm $(shell pkg-config --libs pangocairo 2>/dev/null)

# tests/fuzz/run.sh T SECONDS: the kept regressions once each, then SECONDS of
# fuzzing from the seeds (new inputs go to build/fuzz/corpus/T, a crash to build/fuzz/crash-T-*).
fuzz-smoke: $(addprefix $(BF)/fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do sh tests/fuzz/run.sh $$t $(FUZZ_SMOKE) || exit 1; done
fuzz: $(addprefix $(BF)/fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do sh tests/fuzz/run.sh $$t $(FUZZ_SECONDS) || exit 1; done

# ---------------------------------------------------------------- soak and valgrind
SOAK_EVENTS ?= 20000
soak: $(B)/tviz
	TVIZ=./$(B)/tviz SOAK=$(SOAK_EVENTS) SOAK_ONLY=1 sh tests/window_test.sh

valgrind: $(B)/tviz
	@sh tests/valgrind.sh ./$(B)/tviz

$(B)/bench: tests/bench/bench.c tests/bench/bench.h $(OBJ)
	$(CC) -O2 -g $(WARN) $(DEFS) $(INC) -o $@ $< $(OBJ) $(LDLIBS)

$(B)/base.safetensors: $(B)/tviz
	./$(B)/tviz model init --preset base --seed 1 -o $@

$(B)/bench_train: tests/bench/bench_train.c tests/bench/bench.h $(OBJ)
	$(CC) -O2 -g $(WARN) $(DEFS) $(INC) -o $@ $< $(OBJ) $(LDLIBS)

bench: $(B)/bench $(B)/bench_train $(B)/base.safetensors $(B)/tviz
	./$(B)/bench assets/models/worked-example.safetensors $(B)/base.safetensors ./$(B)/tviz
	@echo
	./$(B)/bench_train assets/models/en-fa.safetensors ./$(B)/tviz

# ---------------------------------------------------------------- generated files (committed)
# The shipped translator, trained by tviz from scratch on subword pieces (35-45
# minutes on two cores), with two early snapshots to show attention emerging.
en-fa: $(B)/tviz
	rm -rf $(B)/en-fa.snapshots
	./$(B)/tviz train -o assets/models/en-fa.safetensors --bpe 2000 --d-model 128 --heads 4 --layers 2 --d-ff 512 \
	  --batch-tokens 1024 --warmup 400 --steps 9000 --eval-every 2000 --snapshots $(B)/en-fa.snapshots --loss-png docs/en-fa-loss.png
	mkdir -p assets/models/en-fa.snapshots
	cp $(B)/en-fa.snapshots/step-000250.safetensors $(B)/en-fa.snapshots/step-000750.safetensors assets/models/en-fa.snapshots/

# The shipped worked example, made by tviz itself.
worked-example: $(B)/tviz
	./$(B)/tviz model init --preset worked-example -o assets/models/worked-example.safetensors

WE     := assets/models/worked-example.safetensors
WE_SRC := I really enjoy learning transformers
WE_TGT := من واقعاً از یادگیری ترنسفورمرها لذت می‌برم
# README's pictures, made by tviz (window under Xvfb, and export).
screenshots: $(B)/tviz $(MO)
	sh docs/screenshots.sh $(B)/tviz

# Reference traces from PyTorch (needs Debian's python3-torch; CI does not).
fixtures:
	/usr/bin/python3 tests/ref/make_fixtures.py
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --out tests/fixtures/worked-example.trace.json
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --tgt "$(WE_TGT)" \
	  --out tests/fixtures/worked-example.forced.trace.json
	printf 'worked-example\t$(WE)\t$(WE_SRC)\t\nworked-example.forced\t$(WE)\t$(WE_SRC)\t$(WE_TGT)\n' >> tests/fixtures/cases.txt

# Reference training step (gradients, two Adam steps) on a tiny model; checks tviz reads it identically.
train-fixtures: $(B)/tviz
	/usr/bin/python3 tests/ref/train_step.py

clean:
	rm -rf $(B)
