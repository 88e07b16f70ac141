# tviz — `make run` opens tviz on the default model and sentence,
# `make test` builds and runs every test (also under ASan + UBSan + LeakSanitizer,
# `make check-sanitize`), a short run of each fuzzer (`make fuzz` fuzzes longer)
# and a window session under valgrind (`make valgrind`).
# Missing Debian packages are installed first (as root), or the one command
# to install them is printed.

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -D_DEFAULT_SOURCE -fopenmp
# No folder of this checkout is compiled in: tviz finds its data relative to
# itself (src/io/data.h), from build/ as once installed.
DEFS    :=
PKGS    := pangocairo cairo-svg cairo-pdf sdl2
PKGCFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKGLIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
INC     = $(PKGCFLAGS)
CXX     ?= g++
# src/model/spm.cc, the C interface over Debian's libsentencepiece (C++): the
# one C++ file; everything links it with the C++ runtime.
CXXWARN := -std=c++17 -Wall -Wextra -Werror
SPM_LIBS := -lsentencepiece -lstdc++
LDLIBS  = -lcjson -lm -fopenmp $(SPM_LIBS) $(PKGLIBS) -lgif -lz
SAN     := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Debian packages the build and tests need (then: make install's checks, the
# man page and make deb; last, the browser build and its tests, with npm,
# Node.js's package manager, installed from Debian when the machine has none).
DEB_PKGS := gcc libc6-dev make pkg-config libcjson-dev libcmocka-dev \
            libcairo2-dev libpango1.0-dev fonts-noto-core fonts-dejavu-core \
            libsdl2-dev libgif-dev libstb-dev zlib1g-dev libsentencepiece-dev poppler-utils librsvg2-bin xvfb xauth imagemagick procps \
            clang libclang-rt-14-dev valgrind gettext \
            binutils man-db desktop-file-utils appstream dpkg-dev debhelper lintian \
            emscripten chromium sentencepiece

MODEL_SRC  := $(wildcard src/model/*.c)
MODEL_CXX  := $(wildcard src/model/*.cc)
RENDER_SRC := $(wildcard src/render/*.c)
LESSON_SRC := $(wildcard src/lesson/*.c)
CLI_SRC    := $(wildcard src/cli/*.c)
APP_SRC    := $(wildcard src/app/*.c)
TRAIN_SRC  := $(wildcard src/train/*.c)
IO_SRC     := $(wildcard src/io/*.c)
LIB_SRC    := $(MODEL_SRC) $(MODEL_CXX) $(TRAIN_SRC) $(RENDER_SRC) $(LESSON_SRC) $(IO_SRC) $(CLI_SRC) $(APP_SRC)
HDRS      := $(wildcard src/*/*.h)
# Each room (folder of src/) is an archive, build/libtviz-<room>.a (and
# build/asan/…); ROOMS is the link order: a room uses only those after it.
ROOMS     := app cli io render lesson train model
room_src   = $(filter src/$(1)/%,$(LIB_SRC))
archives   = $(foreach r,$(2),$(1)/libtviz-$(r).a)
# Interface translations: po/<lang>.po -> build/locale/<lang>/LC_MESSAGES/tviz.mo
MO        := $(patsubst po/%.po,build/locale/%/LC_MESSAGES/tviz.mo,$(wildcard po/*.po))
# Every file with words a learner reads: the window, every view (render), the
# stage titles and formula glosses (model/trace.c), the handout and export pages.
POT_SRC   := $(APP_SRC) src/web/web.c $(RENDER_SRC) src/model/trace.c src/model/lstm.c src/cli/handout.c src/cli/export.c src/cli/timeline_export.c src/cli/animate.c src/cli/slides.c
TESTS     := $(sort $(patsubst tests/%.c,%,$(wildcard tests/test_*.c)))

B  := build
BA := build/asan

.PHONY: all run test test-suites test-unit check-sanitize test-asan fuzz fuzz-smoke soak valgrind bench deps fixtures train-fixtures en-fa worked-example screenshots pot clean \
        lstm-fixtures beam-fixtures lstm-train-fixtures lstm-en-fa rnn-attn-en-fa marian-fixtures \
        en-fa-no-pe en-fa-no-mask en-fa-pre-ln \
        install uninstall test-install deb web serve
all: $(B)/tviz $(MO)

# ---------------------------------------------------------------- dependencies
ifeq ($(NODEPS),1)
# (debian/rules: dpkg-buildpackage has checked the package's Build-Depends)
$(B)/.deps:
	@mkdir -p $(B) && touch $@
else
$(B)/.deps: Makefile
	@mkdir -p $(B)
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done; \
	  command -v npm >/dev/null || echo npm); \
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
endif
deps: $(B)/.deps

# ---------------------------------------------------------------- builds
# Each source compiled once per build (normal, sanitizers), then linked.
$(B)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) $(INC) -c -o $@ $<

$(BA)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(SAN) $(WARN) $(DEFS) $(INC) -c -o $@ $<

$(B)/obj/%.o: src/%.cc $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CXX) $(CFLAGS) $(CXXWARN) -c -o $@ $<

$(BA)/obj/%.o: src/%.cc $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(CXX) $(SAN) $(CXXWARN) -c -o $@ $<

# (rm first: ar only adds and replaces members; an empty room is an empty archive)
define room_rules
$(1)/libtviz-$(2).a: $(patsubst src/%.cc,$(1)/obj/%.o,$(patsubst src/%.c,$(1)/obj/%.o,$(call room_src,$(2))))
	@mkdir -p $$(@D)
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach b,$(B) $(BA),$(foreach r,$(ROOMS),$(eval $(call room_rules,$(b),$(r)))))

$(B)/tviz: src/main.c $(call archives,$(B),$(ROOMS))
	$(CC) $(CFLAGS) $(WARN) $(DEFS) $(INC) -o $@ src/main.c $(call archives,$(B),$(ROOMS)) $(LDLIBS)

# (tests/san_keep_libs.c: no library is unloaded, so LeakSanitizer can name what they allocate)
$(BA)/tviz: src/main.c tests/san_keep_libs.c $(call archives,$(BA),$(ROOMS))
	$(CC) $(SAN) $(WARN) $(DEFS) $(INC) -o $@ src/main.c tests/san_keep_libs.c $(call archives,$(BA),$(ROOMS)) \
	  -Wl,--export-dynamic-symbol=dlclose $(LDLIBS)

# The rooms a test links (default: all), and so its libraries: the model's
# (cJSON, libm, OpenMP), pangocairo with render, every package with io, cli or
# app. A model test links without SDL, cairo or pango.
ROOMS_test_numerics := model
ROOMS_test_ops      := model
ROOMS_test_trace    := model
ROOMS_test_weights  := model
ROOMS_test_stage    := model
ROOMS_test_lstm     := model
ROOMS_test_beam     := model
ROOMS_test_whatif   := model
ROOMS_test_marian   := render model
ROOMS_test_data     := io
ROOMS_test_png      := io
ROOMS_test_corpus   := train model
ROOMS_test_train    := train model
ROOMS_test_lstm_train := train model
ROOMS_test_lesson   := lesson
ROOMS_test_arith    := render model
ROOMS_test_i18n     := io render lesson model
rooms_of    = $(if $(ROOMS_$(1)),$(filter $(ROOMS_$(1)),$(ROOMS)),$(ROOMS))
RENDER_LIBS = $(shell pkg-config --libs pangocairo 2>/dev/null)
libs_of     = -lcjson -lm -fopenmp $(SPM_LIBS) $(if $(filter app cli io,$(1)),$(PKGLIBS) -lgif -lz,$(if $(filter render,$(1)),$(RENDER_LIBS)))

# $(call test_rules,build dir,flags,test)
define test_rules
$(1)/$(3): tests/$(3).c tests/testutil.h tests/gradcheck.h tests/fixture_cases.h $(call archives,$(1),$(call rooms_of,$(3)))
	$$(CC) $(2) $$(WARN) $$(DEFS) $$(INC) -o $$@ $$< $(call archives,$(1),$(call rooms_of,$(3))) $$(call libs_of,$(call rooms_of,$(3))) -lcmocka
endef
$(foreach t,$(TESTS),$(eval $(call test_rules,$(B),$$(CFLAGS),$(t))) $(eval $(call test_rules,$(BA),$$(SAN),$(t))))

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

# Two suites at a time (most are one process after another, so each keeps a
# core busy), each tviz on one thread (OpenMP's threads would only wait for
# the other suite's core); each suite's output is printed whole when it ends.
TEST_SUITES := check-sanitize test-unit test-web deb test-install fuzz-smoke valgrind
test:
	@OMP_NUM_THREADS=1 $(MAKE) --no-print-directory -j2 --output-sync=target test-suites
test-suites: $(TEST_SUITES)

test-unit: $(B)/tviz $(MO) $(B)/mkbad $(addprefix $(B)/,$(TESTS)) $(B)/test_shim
	@for t in $(TESTS) test_shim; do ./$(B)/$$t || exit 1; done
	@./$(B)/tviz lesson check
	@TVIZ=./$(B)/tviz sh tests/cli_test.sh
	@TVIZ=./$(B)/tviz MKBAD=./$(B)/mkbad sh tests/bad_input.sh
	@TVIZ=./$(B)/tviz SOAK=600 sh tests/window_test.sh
	@TVIZ=./$(B)/tviz sh tests/i18n_views.sh

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer +
# LeakSanitizer; any report fails it. intercept_tls_get_addr=0: up to GCC 13
# the runtime's __tls_get_addr interceptor takes a dynamic TLS block whose
# address happens to be 16 past a page for a pre-2.25 glibc header and reads
# a length from before it; LeakSanitizer's tracer then crashes at exit
# ("Tracer caught signal 11") with no report, depending only on where malloc
# put the block (seen with SDL's and Mesa's threads in the window tests).
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
check-sanitize: $(BA)/tviz $(MO) $(B)/mkbad $(addprefix $(BA)/,$(TESTS)) $(BA)/test_shim
	@echo "== the same tests under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer =="
	@for t in $(TESTS) test_shim; do $(SAN_ENV) ./$(BA)/$$t || exit 1; done
	@$(SAN_ENV) ./$(BA)/tviz lesson check
	@$(SAN_ENV) TVIZ=./$(BA)/tviz sh tests/cli_test.sh
	@$(SAN_ENV) TVIZ=./$(BA)/tviz MKBAD=./$(B)/mkbad sh tests/bad_input.sh
	@# (under ASan its quarantine makes resident memory meaningless: SOAK_FLAT=0.
	@# SDL's software renderer: Mesa's llvmpipe and disk-cache threads, still
	@# alive at exit, crash LeakSanitizer's stop-the-world tracer on CI machines.)
	@$(SAN_ENV) SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0 \
	  TVIZ=./$(BA)/tviz SOAK=200 SOAK_FLAT=0 sh tests/window_test.sh
test-asan: check-sanitize

# ---------------------------------------------------------------- fuzzing (libFuzzer, clang)
# One fuzzer per target: tests/fuzz/fuzz_<target>.c, seeds in tests/fuzz/<target>/,
# kept crash and regression inputs in tests/fuzz/regressions/<target>/.
# Adding a target is adding its name here.
FUZZ_TARGETS := loader tokenizer lesson corpus link marian
FUZZ_SECONDS ?= 60
FUZZ_SMOKE   ?= 10
FUZZ_CC      := clang
BF           := build/fuzz
FUZZ_CFLAGS  := -g -O1 -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-source-uses-openmp -D_DEFAULT_SOURCE \
                -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_SRC     := $(MODEL_SRC) src/train/corpus.c src/train/lexicon.c $(LESSON_SRC) src/render/lessonval.c src/render/text.c src/render/textfmt.c
FUZZ_OBJ     := $(patsubst src/%.c,$(BF)/obj/%.o,$(FUZZ_SRC)) $(patsubst src/%.cc,$(BF)/obj/%.o,$(MODEL_CXX))
.SECONDARY: $(FUZZ_OBJ)

$(BF)/obj/%.o: src/%.c $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEFS) $(PKGCFLAGS) -c -o $@ $<

$(BF)/obj/%.o: src/%.cc $(HDRS) $(B)/.deps
	@mkdir -p $(dir $@)
	clang++ $(filter-out -std=c11,$(FUZZ_CFLAGS)) -fno-sanitize=vptr -std=c++17 -c -o $@ $<

$(BF)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKGCFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) -lcjson -lm $(SPM_LIBS) $(shell pkg-config --libs pangocairo 2>/dev/null)

# The link of a view opens on the window's state (src/app: link.c, state.c, and
# draw.c, which state.c asks where things are), so it links every view too.
FUZZ_LINK_OBJ := $(patsubst src/%.c,$(BF)/obj/%.o,$(filter-out $(FUZZ_SRC),$(RENDER_SRC)) src/app/state.c src/app/draw.c src/app/link.c)
.SECONDARY: $(FUZZ_LINK_OBJ)
$(BF)/fuzz_link: tests/fuzz/fuzz_link.c tests/fuzz/fuzz.h $(FUZZ_OBJ) $(FUZZ_LINK_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKGCFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(FUZZ_LINK_OBJ) -lcjson -lm $(SPM_LIBS) $(shell pkg-config --libs pangocairo 2>/dev/null)

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

$(B)/bench: tests/bench/bench.c tests/bench/bench.h tests/bench/frames.h $(call archives,$(B),$(ROOMS))
	$(CC) -O2 -g $(WARN) $(DEFS) $(INC) -o $@ $< $(call archives,$(B),$(ROOMS)) $(LDLIBS)

$(B)/bench_marian: tests/bench/marian.c tests/bench/bench.h tests/bench/frames.h $(call archives,$(B),$(ROOMS))
	$(CC) -O2 -g $(WARN) $(DEFS) $(INC) -o $@ $< $(call archives,$(B),$(ROOMS)) $(LDLIBS)

# A MarianMT checkpoint of opus-mt-en-ar's shapes with random weights (about 300 MB,
# never committed): SentencePiece pieces from spm_train on the README, the rest made up.
$(B)/marian-base/config.json: $(B)/bench_marian README.md
	@mkdir -p $(B)/marian-base
	spm_train --input=README.md --model_prefix=$(B)/marian-base/spm --vocab_size=4000 --hard_vocab_limit=false \
	  --num_threads=1 --minloglevel=2 >/dev/null 2>&1
	cp $(B)/marian-base/spm.model $(B)/marian-base/source.spm && cp $(B)/marian-base/spm.model $(B)/marian-base/target.spm
	./$(B)/bench_marian --make $(B)/marian-base

$(B)/base.safetensors: $(B)/tviz
	./$(B)/tviz model init --preset base --seed 1 -o $@

$(B)/bench_train: tests/bench/bench_train.c tests/bench/bench.h $(call archives,$(B),train model)
	$(CC) -O2 -g $(WARN) $(DEFS) $(INC) -o $@ $< $(call archives,$(B),train model) $(call libs_of,train model)

$(B)/forward: tests/bench/forward.c tests/bench/bench.h $(call archives,$(B),model)
	$(CC) -O2 -g $(WARN) $(DEFS) -o $@ $< $(call archives,$(B),model) $(call libs_of,model)

bench: $(B)/bench $(B)/bench_train $(B)/base.safetensors $(B)/tviz $(B)/forward web $(B)/marian-base/config.json
	./$(B)/bench assets/models/worked-example.safetensors $(B)/base.safetensors ./$(B)/tviz
	@echo
	./$(B)/bench_marian $(B)/marian-base
	@echo
	node tests/bench/web_bench.mjs $(WEB) $(B)/base.safetensors ./$(B)/forward
	@echo
	./$(B)/bench_train assets/models/en-fa.safetensors ./$(B)/tviz
	@# the recurrent models: a step of each beside PyTorch's nn.LSTM on the same batch
	@for m in lstm-en-fa rnn-attn-en-fa; do [ -e assets/models/$$m.safetensors ] || continue; echo; \
	  ./$(B)/bench_train assets/models/$$m.safetensors || exit 1; done

# ---------------------------------------------------------------- generated files (committed)
# The shipped translator, trained by tviz from scratch on subword pieces (about
# 42 minutes alone on two cores; `time make en-fa`), and nine of its snapshots, from the
# untrained model to the end, stored as F16 (half the size) for the timeline: the
# step, loss and held-out accuracy of each are in its __metadata__.
EN_FA_SNAPSHOTS := 0 350 700 1400 2800 4200 5600 7000 8400
en-fa: $(B)/tviz
	rm -rf $(B)/en-fa.snapshots
	./$(B)/tviz train -o assets/models/en-fa.safetensors --bpe 2000 --d-model 128 --heads 4 --layers 2 --d-ff 512 \
	  --batch-tokens 1024 --warmup 400 --steps 8400 --eval-every 1400 --save-every 350 \
	  --snapshots $(B)/en-fa.snapshots --loss-png docs/en-fa-loss.png
	rm -rf assets/models/en-fa.snapshots && mkdir -p assets/models/en-fa.snapshots
	for s in $(EN_FA_SNAPSHOTS); do f=step-$$(printf %06d $$s).safetensors; \
	  ./$(B)/tviz model convert $(B)/en-fa.snapshots/$$f --f16 -o assets/models/en-fa.snapshots/$$f || exit 1; done

# The recurrent models, trained by tviz on the same corpus as en-fa
# (the built-in corpus, seed 1, 2,000 merges per language: the same merges, the
# same held-out pairs): the seq2seq LSTM of Sutskever et al. (no attention,
# source reversed) and an RNN with Luong's dot attention (source in order).
# 2 + 2 layers, embed_dim 128, hidden_size 256, 4,000 steps, Adam at 0.001, clipping at 5;
# shipped as F16 (half the size; the held-out figures in README.md are the
# shipped files'). Run them as: flock /tmp/tviz-train.lock make lstm-en-fa
RNN_TRAIN := --arch lstm --bpe 2000 --embed-dim 128 --hidden 256 --layers 2 --batch-tokens 1024 --steps 4000 \
             --eval-every 1000 --save-every 250
lstm-en-fa rnn-attn-en-fa: $(B)/tviz
	@mkdir -p $(B)/$@
	./$(B)/tviz train -o $(B)/$@/$@.safetensors $(RNN_TRAIN) $(if $(filter rnn-attn-en-fa,$@),--attention dot --reverse-source 0,--reverse-source 1) \
	  --snapshots $(B)/$@/snapshots --loss-png docs/$@-loss.png
	@cmp -s $(B)/$@/$@.heldout.tsv assets/models/en-fa.heldout.tsv || echo "note: the held-out pairs differ from assets/models/en-fa.heldout.tsv"
	./$(B)/tviz model convert $(B)/$@/$@.safetensors --f16 -o assets/models/$@.safetensors
# What if? The translator trained without a part of the Transformer, and pre-LN:
# the corpus and sizes of en-fa above (keep them the same), the held-out set
# en-fa's (same corpus seed, so not kept twice), no snapshots shipped. The
# schedule does not depend on the number of steps, so a shorter run is the
# first part of a longer one: en-fa-no-mask and en-fa-pre-ln stop at 2,800 steps
# (a third of en-fa's, well inside the 30 minutes on two cores) and are compared
# with en-fa's step-2800 snapshot; en-fa-no-pe was trained for all 8,400.
# Run each alone: flock /tmp/tviz-train.lock make en-fa-no-mask
EN_FA_RUN := --bpe 2000 --d-model 128 --heads 4 --layers 2 --d-ff 512 --batch-tokens 1024 --warmup 400 --eval-every 1400
en-fa-no-pe: WHATIF := --without pe --steps 8400
en-fa-no-mask: WHATIF := --without mask --steps 2800
en-fa-pre-ln: WHATIF := --norm-first --steps 2800
en-fa-no-pe en-fa-no-mask en-fa-pre-ln: $(B)/tviz
	rm -rf $(B)/$@.snapshots
	./$(B)/tviz train -o assets/models/$@.safetensors $(EN_FA_RUN) $(WHATIF) \
	  --save-every 1400 --snapshots $(B)/$@.snapshots --loss-png $(B)/$@.loss.png
	rm -f assets/models/$@.heldout.tsv

# The shipped worked example, made by tviz itself.
worked-example: $(B)/tviz
	./$(B)/tviz model init --preset worked-example -o assets/models/worked-example.safetensors

WE     := assets/models/worked-example.safetensors
WE_SRC := I really enjoy learning transformers
WE_TGT := من واقعاً از یادگیری ترنسفورمرها لذت می‌برم
# README's pictures, made by tviz (window under Xvfb, and export).
screenshots: $(B)/tviz $(MO) web
	sh docs/screenshots.sh $(B)/tviz

# Reference traces from PyTorch (needs Debian's python3-torch; CI does not): post-LN and
# pre-LN (norm_first) models checked against torch's own modules, and runs with parts
# switched off (what if?), the fifth column of cases.txt.
fixtures:
	/usr/bin/python3 tests/ref/make_fixtures.py
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --out tests/fixtures/worked-example.trace.json
	/usr/bin/python3 tests/ref/make_fixtures.py --model $(WE) --src "$(WE_SRC)" --tgt "$(WE_TGT)" \
	  --out tests/fixtures/worked-example.forced.trace.json
	printf 'worked-example\t$(WE)\t$(WE_SRC)\t\t\nworked-example.forced\t$(WE)\t$(WE_SRC)\t$(WE_TGT)\t\n' >> tests/fixtures/cases.txt

# Reference traces of the recurrent models (seq2seq LSTM, RNN with dot attention): random
# models of 1-3 layers, reversed source or not, computed by hand and checked against torch.nn.LSTM.
lstm-fixtures:
	/usr/bin/python3 tests/ref/make_lstm_fixtures.py

# Tiny MarianMT checkpoints and their reference traces (PyTorch, Debian's spm_train and spm_encode).
marian-fixtures:
	/usr/bin/python3 tests/ref/make_marian_fixtures.py

# Reference beam searches (tests/fixtures/beam/): a Transformer, an RNN with attention and a
# plain LSTM of the fixtures above, every step's candidates computed in float64 by PyTorch.
beam-fixtures:
	/usr/bin/python3 tests/ref/make_beam_fixtures.py

# Reference training of the recurrent models: loss, gradients (BPTT by autograd), clipping, two Adam steps.
lstm-train-fixtures:
	/usr/bin/python3 tests/ref/lstm_train_step.py

# Reference training step (gradients, two Adam steps) on a tiny model; checks tviz reads it identically.
train-fixtures: $(B)/tviz
	/usr/bin/python3 tests/ref/train_step.py

# ---------------------------------------------------------------- the browser (make web, make serve)
# The same C sources compiled to WebAssembly by Debian's emscripten: the
# model, the lessons, the views (src/render, but text.c, whose pango is
# replaced by src/web/text.c over CanvasKit's Paragraph), the window's state,
# drawing and session (src/app, but the SDL window app.c), the SDL-free parts
# of src/io, and src/web (cairo's calls over CanvasKit, the page's events).
# build/web/ is a static folder any web host serves as it is.
WEB        := $(B)/web
WEB_SRC    := $(MODEL_SRC) $(LESSON_SRC) $(filter-out src/render/text.c,$(RENDER_SRC)) \
              $(filter-out src/app/app.c,$(APP_SRC)) src/io/data.c src/io/io.c src/io/timeline.c src/io/png.c $(wildcard src/web/*.c)
ZLIB_SRC   := adler32 compress crc32 deflate trees zutil
WEB_OBJ    := $(patsubst src/%.c,$(B)/wasm/%.o,$(WEB_SRC)) $(B)/wasm/cJSON.o $(patsubst %,$(B)/wasm/zlib/%.o,$(ZLIB_SRC))
# (acorn from Debian's node-acorn; emscripten's cache copied where it may write)
EMCC       := NODE_PATH=/usr/share/nodejs EM_CACHE=$(CURDIR)/$(B)/em-cache emcc
WEB_CFLAGS := -O3 -msimd128 -std=c11 -Wall -Wextra -Werror -Wno-unknown-pragmas -D_DEFAULT_SOURCE -Isrc/web/include -I$(B)/cjson/include -I$(B)/stb/include \
              -I$(B)/zlib/include
WEB_LDFLAGS := -O3 -msimd128 -sMODULARIZE=1 -sEXPORT_NAME=createTviz -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB \
              -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,FS -sFORCE_FILESYSTEM=1 -sENVIRONMENT=web \
              --js-library src/web/canvaskit.js
NPM        := $(B)/npm
FONTS      := /usr/share/fonts/truetype/noto/NotoSans-Regular.ttf /usr/share/fonts/truetype/noto/NotoSans-Bold.ttf \
              /usr/share/fonts/truetype/noto/NotoSans-Italic.ttf /usr/share/fonts/truetype/noto/NotoSans-BoldItalic.ttf \
              /usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf /usr/share/fonts/truetype/noto/NotoSansArabic-Bold.ttf \
              /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf \
              /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf /usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf

$(B)/em-cache/.ok: $(B)/.deps
	@rm -rf $(B)/em-cache && mkdir -p $(B)/em-cache && cp -r /usr/share/emscripten/cache/. $(B)/em-cache/ && touch $@

# cJSON and zlib from Debian's own source packages (src/web/get-source.sh: apt-get source, privately)
$(B)/cjson/include/cjson/cJSON.h: src/web/get-source.sh $(B)/.deps
	sh src/web/get-source.sh cjson $(B)/cjson
	mkdir -p $(dir $@) && cp $(B)/cjson/cjson-*/cJSON.h $@ && cp $(B)/cjson/cjson-*/cJSON.c $(B)/cjson/cJSON.c
$(B)/zlib/include/zlib.h: src/web/get-source.sh $(B)/.deps
	sh src/web/get-source.sh zlib $(B)/zlib
	mkdir -p $(dir $@) && cp $(B)/zlib/zlib-*/zlib.h $(B)/zlib/zlib-*/zconf.h $(dir $@)
$(B)/wasm/zlib/%.o: $(B)/zlib/include/zlib.h $(B)/em-cache/.ok
	@mkdir -p $(dir $@)
	$(EMCC) -O3 -I$(B)/zlib/include -c -o $@ $$(ls -d $(B)/zlib/zlib-*/ | head -1)$*.c

# stb_image_write, header-only, from Debian's libstb-dev (only its folder on the include path: not the system's C headers)
$(B)/stb/include/stb: $(B)/.deps
	@mkdir -p $(dir $@) && ln -sfn /usr/include/stb $@

$(B)/wasm/cJSON.o: $(B)/cjson/include/cjson/cJSON.h $(B)/em-cache/.ok
	@mkdir -p $(dir $@)
	$(EMCC) -O2 -std=c89 -I$(B)/cjson/include/cjson -c -o $@ $(B)/cjson/cJSON.c

$(B)/wasm/%.o: src/%.c $(HDRS) $(wildcard src/web/*.h src/web/include/*.h) $(B)/cjson/include/cjson/cJSON.h $(B)/stb/include/stb \
               $(B)/zlib/include/zlib.h $(B)/em-cache/.ok
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -c -o $@ $<

# npm's packages, pinned by src/web/package-lock.json, installed into build/npm
$(NPM)/.ok: src/web/package.json src/web/package-lock.json $(B)/.deps
	@mkdir -p $(NPM) && cp src/web/package.json src/web/package-lock.json $(NPM)/
	cd $(NPM) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

$(WEB)/tviz-wasm.js: $(WEB_OBJ) src/web/canvaskit.js $(MO)
	@mkdir -p $(WEB)/data
	rm -rf $(WEB)/data/lessons $(WEB)/data/locale && cp -r lessons $(WEB)/data/lessons && cp -r $(B)/locale $(WEB)/data/locale
	$(EMCC) $(WEB_LDFLAGS) -o $@ $(WEB_OBJ) --preload-file $(WEB)/data/lessons@/data/lessons --preload-file $(WEB)/data/locale@/data/locale

web: $(B)/tviz $(WEB)/tviz-wasm.js $(NPM)/.ok src/web/index.html src/web/tviz.js $(wildcard assets/models/*.safetensors)
	@mkdir -p $(WEB)/canvaskit $(WEB)/fonts $(WEB)/models
	cp $(NPM)/node_modules/canvaskit-wasm/bin/canvaskit.js $(NPM)/node_modules/canvaskit-wasm/bin/canvaskit.wasm $(WEB)/canvaskit/
	cp $(FONTS) $(WEB)/fonts/
	cp src/web/index.html src/web/tviz.js $(WEB)/
	./$(B)/tviz icon --size 64 -o $(WEB)/icon.png
	rm -rf $(WEB)/models && mkdir -p $(WEB)/models && cp -r assets/models/*.safetensors assets/models/*.snapshots $(WEB)/models/
	node src/web/manifest.mjs $(WEB) > $(WEB)/manifest.json
	@echo "build/web/ is ready: any static web host serves it as it is (make serve: http://127.0.0.1:8321/)"

serve: web
	node src/web/serve.mjs $(WEB) 8321

# The browser's cairo and text (src/web), natively, with CanvasKit replaced by a recorder.
SHIM_SRC := src/web/cairo.c src/web/text.c src/render/textfmt.c
$(B)/test_shim: tests/web/test_shim.c $(SHIM_SRC) $(HDRS) src/web/canvaskit.h src/web/include/cairo.h $(B)/.deps
	$(CC) $(CFLAGS) $(WARN) -Isrc/web/include -o $@ tests/web/test_shim.c $(SHIM_SRC) -lm -lcmocka
$(BA)/test_shim: tests/web/test_shim.c $(SHIM_SRC) $(HDRS) src/web/canvaskit.h src/web/include/cairo.h $(B)/.deps
	@mkdir -p $(BA)
	$(CC) $(SAN) $(WARN) -Isrc/web/include -o $@ tests/web/test_shim.c $(SHIM_SRC) -lm -lcmocka

# The browser build in Debian's chromium (tests/web/web_test.mjs); its pictures stay in build/web-test/.
test-web: web $(B)/tviz
	node tests/web/web_test.mjs ./$(B)/tviz $(WEB) $(B)/web-test

# ---------------------------------------------------------------- install (Debian's layout)
# make install [PREFIX=/usr/local] [DESTDIR=]: bin/tviz; share/tviz/models and
# share/tviz/lessons (found by tviz relative to bin/, src/io/data.h);
# share/locale/<lang>/LC_MESSAGES/tviz.mo; the man page; the desktop entry,
# its icon (drawn by tviz icon) and AppStream metainfo. make uninstall
# removes exactly these. make deb builds the Debian package (debian/) in
# build/deb and checks it with lintian.
PREFIX     ?= /usr/local
BINDIR     := $(PREFIX)/bin
DATADIR    := $(PREFIX)/share
APP_ID     := io.github.tviz.tviz
ICON_SIZES := 16 24 32 48 64 128 256 512
ICONS      := $(foreach n,$(ICON_SIZES),$(B)/icons/$(n)x$(n)/$(APP_ID).png) $(B)/icons/scalable/$(APP_ID).svg
DATA_FILES := $(wildcard assets/models/*.safetensors assets/models/*.snapshots/*.safetensors assets/corpus/*.tsv lessons/*/*)
LANGS      := $(patsubst po/%.po,%,$(wildcard po/*.po))
all: $(ICONS)

$(B)/icons/scalable/$(APP_ID).svg: $(B)/tviz
	@mkdir -p $(dir $@)
	./$(B)/tviz icon -o $@
$(B)/icons/%/$(APP_ID).png: $(B)/tviz
	@mkdir -p $(dir $@)
	./$(B)/tviz icon --size $(firstword $(subst x, ,$*)) -o $@

install: all
	install -D -m 755 $(B)/tviz $(DESTDIR)$(BINDIR)/tviz
	@# assets/models/X -> share/tviz/models/X, lessons/L/X -> share/tviz/lessons/L/X
	@set -e; for f in $(DATA_FILES); do install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/tviz/$${f#assets/}"; done
	@set -e; for l in $(LANGS); do install -D -m 644 $(B)/locale/$$l/LC_MESSAGES/tviz.mo $(DESTDIR)$(DATADIR)/locale/$$l/LC_MESSAGES/tviz.mo; done
	install -D -m 644 dist/tviz.1 $(DESTDIR)$(DATADIR)/man/man1/tviz.1
	install -D -m 644 dist/$(APP_ID).desktop $(DESTDIR)$(DATADIR)/applications/$(APP_ID).desktop
	install -D -m 644 dist/$(APP_ID).metainfo.xml $(DESTDIR)$(DATADIR)/metainfo/$(APP_ID).metainfo.xml
	@set -e; for n in $(ICON_SIZES); do \
	  install -D -m 644 $(B)/icons/$${n}x$$n/$(APP_ID).png $(DESTDIR)$(DATADIR)/icons/hicolor/$${n}x$$n/apps/$(APP_ID).png; done
	install -D -m 644 $(B)/icons/scalable/$(APP_ID).svg $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/apps/$(APP_ID).svg

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tviz
	rm -rf $(DESTDIR)$(DATADIR)/tviz
	for l in $(LANGS); do rm -f $(DESTDIR)$(DATADIR)/locale/$$l/LC_MESSAGES/tviz.mo; done
	rm -f $(DESTDIR)$(DATADIR)/man/man1/tviz.1 $(DESTDIR)$(DATADIR)/applications/$(APP_ID).desktop \
	      $(DESTDIR)$(DATADIR)/metainfo/$(APP_ID).metainfo.xml $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/apps/$(APP_ID).svg
	for n in $(ICON_SIZES); do rm -f $(DESTDIR)$(DATADIR)/icons/hicolor/$${n}x$$n/apps/$(APP_ID).png; done

# Installs into a temporary DESTDIR, runs the installed tviz from elsewhere,
# validates the desktop entry, metainfo and man page, and uninstalls.
test-install: all
	@TVIZ=./$(B)/tviz MAKE="$(MAKE)" sh tests/install_test.sh

# The Debian package, built from a copy of this tree in build/deb (the .deb
# lands beside the copy, not in the checkout's parent), then lintian.
DEB_DIR := $(B)/deb
deb: $(B)/tviz
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/tviz
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C $(DEB_DIR)/tviz
	cd $(DEB_DIR)/tviz && dpkg-buildpackage -us -uc -b -j2
	lintian --fail-on error --display-info $(DEB_DIR)/tviz_*.deb
	@# the package's files, unpacked anywhere, translate as the build does
	dpkg-deb -x $(DEB_DIR)/tviz_*.deb $(DEB_DIR)/root
	test "$$(cd $(DEB_DIR) && root/usr/bin/tviz translate 'She reads the book')" = "$$(./$(B)/tviz translate 'She reads the book')"
	@ls -l $(DEB_DIR)/*.deb

clean:
	rm -rf $(B)
