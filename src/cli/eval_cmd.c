// eval_cmd.c — `tviz eval`: how well a model translates a corpus file, by
// source length, so models can be compared on the same held-out file.
#include "cli.h"
#include "../train/train.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *eval_help =
    "Usage: tviz eval [--model M]... [--without PARTS] [--beam K [--alpha A]] [--threads N] [--show] FILE.tsv\n"
    "Translates every source sentence of FILE (source<TAB>target[<TAB>alignment], as tviz corpus\n"
    "writes) greedily and compares the output with the target, word for word:\n"
    "  exact match     the share of sentences translated exactly\n"
    "  token accuracy  the share of target words the output has at the same position\n"
    "overall and by the number of source words (1-5, 6-10, 11-15, 16-20, 21-30, 31+).\n"
    "Pieces of a subword model are joined back into words first. --show prints every\n"
    "sentence translated wrongly with the output and the reference. Default model: " IO_DEFAULT_MODEL ".\n"
    "With several --model options every model is measured on the same file and the\n"
    "table shows them side by side (tviz export --view compare-length draws it); the shipped\n"
    "models are measured on assets/models/en-fa.heldout.tsv (share/tviz/models/ once installed).\n"
    "--without pe,scale,mask,residual switches those parts of the Transformer off (what if?; one model).\n"
    "--beam K translates with beam search of width K (the paper: 4) and length penalty --alpha A\n"
    "(default 0.6), one model, and counts the sentences whose beam choice scores above, equal to\n"
    "and below greedy decoding's output, by the beam's score log P(Y) / ((5 + |Y|) / 6)^A.\n";

// Several models side by side: exact match, then token accuracy, by source length.
static int side_by_side(const char *const *models, int n, const char *file, int threads, int show) {
    render_opts o;
    render_opts_default(&o);
    render_compare c;
    char **out[RENDER_COMPARE_MAX] = {0};
    int rc = cli_compare_models(models, n, file, threads, &o, &c, show ? out : NULL);
    if (!rc) {
        tf_corpus cor = {0};
        tf_err e;
        int line;
        if (show && !tf_corpus_read(&cor, file, &line, &e))
            for (int i = 0; i < cor.n; i++)
                for (int k = 0; k < n; k++) {
                    char **g, **w;
                    const char *got = out[k][i];
                    int ng = got ? tf_split_words(got, &g, NULL) : -1, nw = tf_split_words(cor.p[i].tgt, &w, NULL), same = ng == nw;
                    for (int q = 0; same && q < nw; q++) same = !strcmp(g[q], w[q]);
                    if (!same) printf("wrong (%s): %s\n  got:  %s\n  want: %s\n", c.name[k], cor.p[i].src, got ? got : "(longer than the model's max_len)", cor.p[i].tgt);
                    if (ng > 0) tf_words_free(g, ng);
                    if (nw > 0) tf_words_free(w, nw);
                }
        tf_corpus_free(&cor);
        printf("%d models on %s: %d sentence pairs\n", n, file, c.total);
        for (int k = 0; k < n; k++) printf("  %-16s %s\n", c.name[k], c.kind[k]);
        for (int table = 0; table < 2; table++) {
            printf("\n%s by source length\n%-12s %7s", table ? "token accuracy" : "exact match", "source words", "pairs");
            for (int k = 0; k < n; k++) printf(" %16.16s", c.name[k]);
            printf("\n");
            for (int b = 0; b <= c.n_buckets; b++) {
                int all = b == c.n_buckets;
                printf("%-12s %7d", all ? "all" : c.bucket[b], all ? c.total : c.pairs[b]);
                for (int k = 0; k < n; k++) {
                    double v = all ? (table ? c.tokens_all[k] : c.exact_all[k]) : (table ? c.tokens[k][b] : c.exact[k][b]);
                    if (v < 0) printf(" %16s", "-");
                    else printf(" %15.1f%%", 100 * v);
                }
                printf("\n");
            }
        }
    }
    for (int k = 0; k < n; k++) {
        for (int i = 0; out[k] && i < c.total; i++) free(out[k][i]);
        free(out[k]);
    }
    return rc;
}

static void row(const char *name, const tf_eval_bucket *b) {
    if (!b->n) { printf("%-12s %7d %14s %16s\n", name, 0, "-", "-"); return; }
    printf("%-12s %7d %13.1f%% %15.1f%%\n", name, b->n, 100.0 * b->exact / b->n, b->ref_words ? 100.0 * (double)b->right_words / (double)b->ref_words : 0.0);
}

int cmd_eval(int argc, char **argv) {
    const char *model = IO_DEFAULT_MODEL, *file = NULL, *threads_s = NULL, *models[RENDER_COMPARE_MAX], *list;
    int show = 0, n_models = 0, without = 0, bits, beam = 0;
    double alpha = IO_DEFAULT_ALPHA;
    char heldout[4200];
    long threads = omp_get_num_procs();
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(eval_help, stdout); return 0; }
        if (!strcmp(argv[i], "--show")) { show = 1; continue; }
        if ((k = io_beam_opt(argc, argv, &i, &beam, &alpha))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--model", NULL, &model))) {
            if (k < 0) return 1;
            if (n_models == RENDER_COMPARE_MAX) return io_error("--model", "at most %d models at a time", RENDER_COMPARE_MAX);
            models[n_models++] = model;
            continue;
        }
        if ((k = io_opt(argc, argv, &i, "--without", NULL, &list))) { if (k < 0 || io_parse_without(list, &bits)) return 1; without |= bits; continue; }
        if ((k = io_opt(argc, argv, &i, "--threads", NULL, &threads_s))) { if (k < 0 || cli_whole("--threads", threads_s, 1, 256, &threads)) return 1; continue; }
        if (argv[i][0] == '-' && argv[i][1]) return io_error(argv[i], "unknown option for 'eval'; see tviz eval --help");
        if (file) return io_error(argv[i], "one corpus file at a time; see tviz eval --help");
        file = argv[i];
    }
    // --threads N holds for the kernels inside each worker too (they would
    // otherwise start the cores' number again and spin against each other).
    omp_set_num_threads((int)threads);
    if (!file) return io_error("eval", "needs a corpus file (source<TAB>target per line), e.g. tests/fixtures/everyday.tsv or the held-out file %s",
                               cli_default_heldout(heldout, sizeof heldout) ? "models/en-fa.heldout.tsv" : "en-fa.heldout.tsv");
    if (n_models > 1 && without) return io_error("--without", "switches parts off in one model; give one --model with it");
    if (n_models > 1 && beam) return io_error("--beam", "measures one model at a time; give one --model with it");
    if (n_models > 1) return side_by_side(models, n_models, file, (int)threads, show);
    tf_corpus c;
    if (cli_load_corpus(&c, file)) return 1;
    tf_err e;
    tf_model m;
    char path[4096];
    if (io_load_model(&m, model, path, sizeof path)) { tf_corpus_free(&c); return 1; }
    if (io_beam_check(&m, beam, alpha)) { tf_model_free(&m); tf_corpus_free(&c); return 1; }
    m.cfg.without |= without;
    char **out = calloc((size_t)c.n, sizeof *out);
    tf_eval_result r;
    int rc = 0;
    if (!out || tf_eval_corpus_beam(&m, &c, (int)threads, beam, alpha, &r, out, &e)) rc = io_error("eval", "%s", out ? e.msg : "out of memory");
    if (!rc) {
        if (show)
            for (int i = 0; i < c.n; i++) {
                char **g, **w;
                int ng = out[i] ? tf_split_words(out[i], &g, NULL) : -1, nw = tf_split_words(c.p[i].tgt, &w, NULL), same = ng == nw;
                for (int k = 0; same && k < nw; k++) same = !strcmp(g[k], w[k]);
                if (!same) printf("wrong: %s\n  got:  %s\n  want: %s\n", c.p[i].src, out[i] ? out[i] : "(longer than the model's max_len)", c.p[i].tgt);
                if (ng > 0) tf_words_free(g, ng);
                if (nw > 0) tf_words_free(w, nw);
            }
        char parts[64];
        if (m.cfg.without) printf("%s without %s on %s: %d sentence pairs\n", path, tf_without_format(m.cfg.without, parts, sizeof parts), file, c.n);
        else printf("%s on %s: %d sentence pairs\n", path, file, c.n);
        if (beam) printf("beam search: width %d, length penalty α %g\n", beam, alpha);
        printf("%-12s %7s %14s %16s\n", "source words", "pairs", "exact match", "token accuracy");
        for (int b = 0; b < TF_EVAL_BUCKETS; b++) if (b < 5 || r.by_len[b].n) row(tf_eval_bucket_name(b), &r.by_len[b]);
        row("all", &r.all);
        if (r.too_long) printf("(%d source sentences longer than the model's max_len %d counted as wrong)\n", r.too_long, m.cfg.max_len);
        if (beam) {
            int all = r.beam_above + r.beam_equal + r.beam_below;
            printf("beam's choice against greedy's output, by score: above %d (%.1f%%), equal %d (%.1f%%), below %d (%.1f%%)\n",
                   r.beam_above, all ? 100.0 * r.beam_above / all : 0.0, r.beam_equal, all ? 100.0 * r.beam_equal / all : 0.0,
                   r.beam_below, all ? 100.0 * r.beam_below / all : 0.0);
        }
    }
    for (int i = 0; out && i < c.n; i++) free(out[i]);
    free(out);
    tf_model_free(&m);
    tf_corpus_free(&c);
    return rc;
}
