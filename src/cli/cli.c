// cli.c — dispatch, options, model names, safe file writing.
#include "cli.h"
#include "../io/data.h"
#include "../lesson/i18n.h"
#include "../lesson/lesson.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char *usage =
    "tviz " TF_VERSION " — the Transformer of \"Attention Is All You Need\", made visible\n"
    "\n"
    "Usage:\n"
    "  tviz                       step through the default model and sentence\n"
    "  tviz trace [options]       write every intermediate as JSON\n"
    "  tviz walk  [options]       step through every stage in the terminal\n"
    "  tviz export [options] --stage ID -o FILE   one view as PNG, SVG or PDF\n"
    "  tviz export [options] --all -o DIR         every stage and figure, with an index\n"
    "  tviz model init --preset base|worked-example [--seed N] -o FILE\n"
    "  tviz model info MODEL      config, tensors and parameter count\n"
    "  tviz lesson check [DIR]    check the lesson files of every language\n"
    "  tviz corpus [--seed N] -o DIR   write the English→Persian training corpus\n"
    "  tviz corpus --check FILE   check a corpus file (source<TAB>target[<TAB>alignment])\n"
    "  tviz corpus --check-lists [DIR]   check the corpus word lists (assets/corpus/*.tsv)\n"
    "  tviz train -o FILE [options]   train a small English→Persian translator (tviz train --help)\n"
    "  tviz translate [--model M] [--beam K] [SENTENCE ...]   a translation, one line each\n"
    "  tviz icon [--size N] -o FILE   draw tviz's icon (PNG, or SVG for FILE.svg)\n"
    "  tviz eval [--model M] FILE.tsv   exact match and token accuracy by source length\n"
    "  tviz --help | --version\n"
    "\n"
    "Options of trace and walk:\n"
    "  --model M     a model file, a MarianMT checkpoint folder, or a shipped name (default: " IO_DEFAULT_MODEL ")\n"
    "  --src TEXT    the source sentence (default: \"" IO_DEFAULT_SENTENCE "\")\n"
    "  --tgt TEXT    the target sentence; without it the model decodes greedily\n"
    "  -o FILE       trace: write the JSON here instead of standard output\n"
    "  --stage PAT   walk: only stages whose id matches PAT (a glob, e.g. 'enc.0.*.weights')\n"
    "  --no-pause    walk: print everything without waiting for Enter\n"
    "  --without PARTS   switch parts of the Transformer off (what if?): pe, scale, mask,\n"
    "                residual, separated by commas (also export, translate, eval and the window)\n"
    "  --beam K      beam search of width K instead of greedy decoding (the paper: 4), with\n"
    "  --alpha A     its length penalty α (default 0.6); also export, translate, eval and the window\n"
    "\n"
    "A shipped model is named without its folder (--model worked-example). `tviz CMD --help`\n"
    "shows one command's help, `man tviz` all of them and the window's keys.\n";

int cli_number(const char *opt, const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return io_error(opt, "\"%s\" is not a number from %g to %g", s, lo, hi);
    *out = v;
    return 0;
}

int cli_whole(const char *opt, const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return io_error(opt, "\"%s\" is not a whole number from %ld to %ld", s, lo, hi);
    *out = v;
    return 0;
}

void cli_find_data(void) {
    lesson_set_dir(io_data_dir(IO_LESSONS));
    i18n_set_dir(io_data_dir(IO_LOCALE));
}

int cli_is_command(const char *a) {
    static const char *cmds[] = {"trace", "walk", "model", "export", "lesson", "corpus", "train", "translate", "icon", "eval", "help", "--help", "-h", "--version", "version"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) if (!strcmp(a, cmds[i])) return 1;
    return 0;
}

int cli_main(int argc, char **argv) {
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { fputs(usage, stdout); return 0; }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) { printf("tviz %s\n", TF_VERSION); return 0; }
    if (!strcmp(cmd, "trace")) return cmd_trace(argc - 1, argv + 1);
    if (!strcmp(cmd, "walk")) return cmd_walk(argc - 1, argv + 1);
    if (!strcmp(cmd, "model")) return cmd_model(argc - 1, argv + 1);
    if (!strcmp(cmd, "export")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "lesson")) return cmd_lesson(argc - 1, argv + 1);
    if (!strcmp(cmd, "corpus")) return cmd_corpus(argc - 1, argv + 1);
    if (!strcmp(cmd, "train")) return cmd_train(argc - 1, argv + 1);
    if (!strcmp(cmd, "translate")) return cmd_translate(argc - 1, argv + 1);
    if (!strcmp(cmd, "icon")) return cmd_icon(argc - 1, argv + 1);
    if (!strcmp(cmd, "eval")) return cmd_eval(argc - 1, argv + 1);
    return io_error(cmd, "unknown command; the commands are trace, walk, export, model, lesson, corpus, train, translate, eval and icon (see tviz --help)");
}

static const char *ui_text(const char *msgid) { return _(msgid); }

void cli_language(render_opts *o, const char *lang) {
    i18n_init();
    i18n_set_language(lang);
    o->translate = ui_text;
    o->rtl = lesson_is_rtl(lang);
}
