// run.c — the options every command shares (--model, --src, --tgt, and -o,
// --stage, --lang where a command takes them), and the run they ask for.
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data.h"

// The language LANGUAGE, LC_ALL, LC_MESSAGES or LANG names ("fa_IR.UTF-8" ->
// "fa"), when tviz has lessons in it; else English.
static const char *default_lang(void) {
    static char code[16];
    static const char *vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
        const char *e = getenv(vars[v]);
        if (!e || !*e) continue;
        size_t n = strcspn(e, "_.@:");
        if (n == 0 || n >= sizeof code) return "en";
        memcpy(code, e, n);
        code[n] = 0;
        char path[4200];
        struct stat st;
        const char *lessons = io_data_dir(IO_LESSONS);
        snprintf(path, sizeof path, "%s/%s", lessons ? lessons : ".", code);
        return lessons && !stat(path, &st) && S_ISDIR(st.st_mode) ? code : "en";
    }
    return "en";
}

int io_parse_without(const char *list, int *bits) {
    tf_err e;
    return tf_without_parse(list, bits, &e) ? io_error("--without", "%s", e.msg) : 0;
}

int io_beam_opt(int argc, char **argv, int *i, int *beam, double *alpha) {
    const char *v;
    char *end;
    int k;
    if ((k = io_opt(argc, argv, i, "--beam", NULL, &v))) {
        if (k < 0) return -1;
        long n = strtol(v, &end, 10);
        if (end == v || *end) { io_error("--beam", "\"%.40s\" is not a whole number; give the beam size, e.g. --beam 4", v); return -1; }
        if (n < 1) { io_error("--beam", "a beam holds at least one hypothesis; give --beam 1 or more (1 is greedy decoding)"); return -1; }
        *beam = n > TF_BEAM_MAX ? TF_BEAM_MAX + 1 : (int)n; // (too wide: io_beam_check says so)
        return 1;
    }
    if ((k = io_opt(argc, argv, i, "--alpha", NULL, &v))) {
        if (k < 0) return -1;
        double a = strtod(v, &end);
        if (end == v || *end || !(a == a) || a > 1e6) { io_error("--alpha", "\"%.40s\" is not a number; give the length penalty α, e.g. --alpha 0.6", v); return -1; }
        if (a < 0) { io_error("--alpha", "the length penalty α must be 0 or more (0: no penalty; the paper: 0.6)"); return -1; }
        *alpha = a;
        return 1;
    }
    return 0;
}

int io_beam_check(const tf_model *m, int beam, double alpha) {
    tf_err e;
    return beam && tf_beam_check(m, beam, alpha, &e) ? io_error("--beam", "%s", e.msg) : 0;
}

int io_run_start(io_run *c, int argc, char **argv, const char *cmd, const char *help, int allow, io_extra_opt extra, void *ctx) {
    memset(c, 0, sizeof *c);
    c->model = IO_DEFAULT_MODEL;
    c->src = IO_DEFAULT_SENTENCE;
    c->alpha = IO_DEFAULT_ALPHA;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *list;
        int k;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(help, stdout); return 2; }
        if ((k = io_opt(argc, argv, &i, "--model", "-m", &c->model))) {
            if (k < 0) return 1;
            if (c->n_models == IO_MAX_MODELS) return io_error(c->model, "one --model too many; give at most %d", IO_MAX_MODELS);
            c->models[c->n_models++] = c->model; // (the run is of the last one given)
            continue;
        }
        if ((k = io_opt(argc, argv, &i, "--src", NULL, &c->src))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--tgt", NULL, &c->tgt))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--without", NULL, &list))) {
            int bits;
            if (k < 0 || io_parse_without(list, &bits)) return 1;
            c->without |= bits;
            continue;
        }
        if ((k = io_beam_opt(argc, argv, &i, &c->beam, &c->alpha))) { if (k < 0) return 1; continue; }
        if ((allow & IO_OPT_OUT) && (k = io_opt(argc, argv, &i, "--output", "-o", &c->out))) { if (k < 0) return 1; continue; }
        if ((allow & IO_OPT_WALK) && (k = io_opt(argc, argv, &i, "--stage", NULL, &c->stage))) { if (k < 0) return 1; continue; }
        if ((allow & IO_OPT_WALK) && !strcmp(a, "--no-pause")) { c->no_pause = 1; continue; }
        if ((allow & IO_OPT_LANG) && (k = io_opt(argc, argv, &i, "--lang", NULL, &c->lang))) { if (k < 0) return 1; continue; }
        if (extra && (k = extra(ctx, argc, argv, &i))) { if (k < 0) return 1; continue; }
        if (!strcmp(cmd, "tviz")) return io_error(a, "unknown option; see tviz --help");
        return io_error(a, "unknown option for '%s'; see tviz %s --help", cmd, cmd);
    }
    if (c->beam && c->tgt) return io_error("--beam", "beam search decodes the target itself; give --tgt or --beam, not both");
    c->lang_given = c->lang != NULL;
    if ((allow & IO_OPT_LANG) && !c->lang) c->lang = default_lang();
    if (io_load_model(&c->m, c->model, c->path, sizeof c->path)) return 1;
    c->m.cfg.without |= c->without; // what if? (the model runs without the parts it was trained without anyway)
    tf_err e;
    if (io_beam_check(&c->m, c->beam, c->alpha)) { tf_model_free(&c->m); return 1; }
    if (c->beam ? tf_run_beam(&c->r, &c->m, c->src, c->beam, c->alpha, &e) : tf_run_sentence(&c->r, &c->m, c->src, c->tgt, &e)) {
        int rc = io_error(strstr(e.msg, "target") ? "--tgt" : "--src", "%s", e.msg);
        tf_model_free(&c->m);
        return rc;
    }
    // Unknown words are not an error, but the user should know.
    for (int i = 0; i < c->r.S; i++)
        if (c->r.src_ids[i] == c->m.src_vocab.unk && strcmp(c->r.src_words[i], "<unk>"))
            fprintf(stderr, "tviz: note: \"%.60s\" is not in the source vocabulary; the model reads it as <unk>\n", c->r.src_words[i]);
    for (int i = 0; c->tgt && i < c->r.T; i++)
        if (c->r.tgt_ids[i] == c->m.tgt_vocab.unk && strcmp(c->r.tgt_words[i], "<unk>"))
            fprintf(stderr, "tviz: note: \"%.60s\" is not in the target vocabulary; the model reads it as <unk>\n", c->r.tgt_words[i]);
    return 0;
}

int io_run_compare(io_run *c) {
    if (c->has_cmp) return 0;
    if (!c->m.cfg.without) return io_error("--without", "nothing is switched off to compare with; give the parts, e.g. --without scale");
    tf_err e;
    if (tf_run_compare(&c->cmp, &c->m, &c->r, &e)) return io_error(c->model, "%s", e.msg);
    c->has_cmp = 1;
    return 0;
}

void io_run_end(io_run *c) {
    if (c->has_cmp) tf_run_free(&c->cmp);
    tf_run_free(&c->r);
    tf_model_free(&c->m);
}
