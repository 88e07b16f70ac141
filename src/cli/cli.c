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
    "  tviz train -o FILE [options]   train a small English→Persian translator (tviz train --help)\n"
    "  tviz translate [--model M] [SENTENCE ...]   greedy translation, one line each\n"
    "  tviz icon [--size N] -o FILE   draw tviz's icon (PNG, or SVG for FILE.svg)\n"
    "  tviz --help | --version\n"
    "\n"
    "Options of trace and walk:\n"
    "  --model M     a model file, or a shipped name (default: " CLI_DEFAULT_MODEL ")\n"
    "  --src TEXT    the source sentence (default: \"" CLI_DEFAULT_SENTENCE "\")\n"
    "  --tgt TEXT    the target sentence; without it the model decodes greedily\n"
    "  -o FILE       trace: write the JSON here instead of standard output\n"
    "  --stage PAT   walk: only stages whose id matches PAT (a glob, e.g. 'enc.0.*.weights')\n"
    "  --no-pause    walk: print everything without waiting for Enter\n"
    "\n"
    "A shipped model is named without its folder (--model worked-example). `tviz CMD --help`\n"
    "shows one command's help, `man tviz` all of them and the window's keys.\n";

int cli_error(const char *where, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tf_one_line(msg, sizeof msg); // one line, whatever a file or an argument holds
    char w[512];
    snprintf(w, sizeof w, "%s", where ? where : "");
    tf_one_line(w, sizeof w);
    where = where ? w : NULL;
    if (where) fprintf(stderr, "tviz: %s: %s\n", where, msg);
    else fprintf(stderr, "tviz: %s\n", msg);
    return 1;
}

int cli_number(const char *opt, const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return cli_error(opt, "\"%s\" is not a number from %g to %g", s, lo, hi);
    *out = v;
    return 0;
}

int cli_whole(const char *opt, const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return cli_error(opt, "\"%s\" is not a whole number from %ld to %ld", s, lo, hi);
    *out = v;
    return 0;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char *alias, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (!strncmp(a, name, n) && a[n] == '=') { *val = a + n + 1; return 1; }
    if (strcmp(a, name) && !(alias && !strcmp(a, alias))) return 0;
    if (*i + 1 >= argc) { cli_error(a, "needs a value; see tviz --help"); return -1; }
    *val = argv[++*i];
    return 1;
}

const char *cli_no_lessons(void) {
    static char msg[256];
    snprintf(msg, sizeof msg, "not found (%s); set TVIZ_DATA_DIR or reinstall", io_data_looked(IO_LESSONS));
    return msg;
}

void cli_find_data(void) {
    lesson_set_dir(io_data_dir(IO_LESSONS));
    i18n_set_dir(io_data_dir(IO_LOCALE));
}

int cli_resolve_model(const char *name, char *out, size_t n) {
    struct stat st;
    if (!*name) return cli_error("--model", "is empty; give a model file or a shipped name such as " CLI_DEFAULT_MODEL);
    int is_path = strchr(name, '/') || strstr(name, ".safetensors");
    if (is_path || !stat(name, &st)) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    int k = io_shipped_model(name, out, n);
    if (!k) return 0;
    if (k == IO_NO_DATA)
        return cli_error(name, "not found: no such file here, and no shipped models (%s); give a .safetensors file, "
                               "set TVIZ_DATA_DIR or reinstall", io_data_looked(IO_MODELS));
    char names[512];
    io_shipped_models(names, sizeof names);
    return cli_error(name, "no such model file or shipped model; the shipped ones are %s, or give a path to a .safetensors file",
                     names[0] ? names : "(none)");
}

int cli_load_model(tf_model *m, const char *name, char *path, size_t n) {
    if (cli_resolve_model(name, path, n)) return 1;
    tf_err e;
    if (tf_model_load(m, path, &e)) return cli_error(name, "%s", e.msg); // as typed: a shipped model's folder is not the user's
    return 0;
}

int cli_write_file(const char *path, const char *data, size_t len) {
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) return cli_error("stdout", "write failed (%s)", strerror(errno));
        return 0;
    }
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        // a device or a pipe (/dev/stdout, a FIFO): write into it, never rename over it
        if (S_ISDIR(st.st_mode)) return cli_error(path, "is a folder; give a file name");
        FILE *f = fopen(path, "wb");
        if (!f) return cli_error(path, "cannot write here (%s)", strerror(errno));
        int ok = fwrite(data, 1, len, f) == len, err = errno;
        if (fclose(f)) { ok = 0; err = errno; }
        return ok ? 0 : cli_error(path, "writing failed (%s)", strerror(err));
    }
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp) return cli_error(path, "the path is too long");
    FILE *f = fopen(tmp, "wb");
    if (!f) return cli_error(path, "cannot write here (%s); check that the folder exists and is writable", strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    int err = errno;
    if (fclose(f)) { ok = 0; err = errno; }
    if (ok && rename(tmp, path)) { ok = 0; err = errno; }
    if (!ok) {
        remove(tmp);
        return cli_error(path, "writing failed (%s); nothing was written", strerror(err));
    }
    return 0;
}

int cli_is_command(const char *a) {
    static const char *cmds[] = {"trace", "walk", "model", "export", "lesson", "corpus", "train", "translate", "icon", "help", "--help", "-h", "--version", "version"};
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
    return cli_error(cmd, "unknown command; the commands are trace, walk, export, model, lesson, corpus, train, translate and icon (see tviz --help)");
}
