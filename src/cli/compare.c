// compare.c — several models measured on the same held-out file, by source
// length: what tviz eval prints side by side and what the compare-length view draws.
#include "cli.h"
#include "../train/train.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/data.h"

const char *cli_default_heldout(char *buf, size_t n) {
    const char *dir = io_data_dir(IO_MODELS);
    if (!dir) return NULL;
    snprintf(buf, n, "%s/en-fa.heldout.tsv", dir);
    return buf;
}

int cli_load_corpus(tf_corpus *c, const char *path) {
    int line = 0;
    tf_err e;
    if (tf_corpus_read(c, path, &line, &e)) {
        if (line > 0) {
            char where[4200];
            snprintf(where, sizeof where, "%s:%d", path, line);
            return io_error(where, "%s", e.msg);
        }
        return io_error(path, "%s", e.msg);
    }
    return 0;
}

int cli_compare_models(const char *const *models, int n, const char *file, int threads, const render_opts *o, render_compare *out,
                       char **outputs[]) {
    memset(out, 0, sizeof *out);
    if (n > RENDER_COMPARE_MAX) return io_error("--model", "at most %d models at a time", RENDER_COMPARE_MAX);
    tf_corpus c;
    if (cli_load_corpus(&c, file)) return 1;
    tf_err e;
    const char *base = strrchr(file, '/');
    snprintf(out->file, sizeof out->file, "%s", base ? base + 1 : file);
    out->total = c.n;
    out->n_buckets = TF_EVAL_BUCKETS;
    int rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        tf_model m;
        char path[4096];
        if (io_load_model(&m, models[k], path, sizeof path)) { rc = 1; break; }
        render_model_name(path, out->name[k], sizeof out->name[k]);
        render_model_kind(&m, o, out->kind[k], sizeof out->kind[k]);
        tf_eval_result r;
        if (outputs) outputs[k] = calloc((size_t)(c.n ? c.n : 1), sizeof *outputs[k]);
        if ((outputs && !outputs[k]) || tf_eval_corpus(&m, &c, threads, &r, outputs ? outputs[k] : NULL, &e))
            rc = io_error(models[k], "%s", outputs && !outputs[k] ? "out of memory" : e.msg);
        else {
            for (int b = 0; b < TF_EVAL_BUCKETS; b++) {
                const tf_eval_bucket *q = &r.by_len[b];
                snprintf(out->bucket[b], sizeof out->bucket[b], "%s", tf_eval_bucket_name(b));
                out->pairs[b] = q->n;
                out->exact[k][b] = q->n ? (double)q->exact / q->n : -1;
                out->tokens[k][b] = q->ref_words ? (double)q->right_words / (double)q->ref_words : -1;
            }
            out->exact_all[k] = r.all.n ? (double)r.all.exact / r.all.n : 0;
            out->tokens_all[k] = r.all.ref_words ? (double)r.all.right_words / (double)r.all.ref_words : 0;
            out->n_models = k + 1;
        }
        tf_model_free(&m);
    }
    // the last bucket (31+ words) only when the file has such sentences
    if (out->n_buckets == TF_EVAL_BUCKETS && !out->pairs[TF_EVAL_BUCKETS - 1]) out->n_buckets--;
    tf_corpus_free(&c);
    return rc;
}
