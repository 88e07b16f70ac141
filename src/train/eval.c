// eval.c — how well a model translates a corpus file: exact match and token
// accuracy, overall and by the length of the source sentence (tviz eval).
#include "train.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int tf_eval_bucket_of(int words) {
    return words <= 5 ? 0 : words <= 10 ? 1 : words <= 15 ? 2 : words <= 20 ? 3 : words <= 30 ? 4 : 5;
}

const char *tf_eval_bucket_name(int b) {
    static const char *const names[TF_EVAL_BUCKETS] = {"1-5", "6-10", "11-15", "16-20", "21-30", "31+"};
    return b >= 0 && b < TF_EVAL_BUCKETS ? names[b] : "?";
}

// One pair: the greedy translation of src (words, pieces joined back), in *text.
// Returns 0, 1 when the source is longer than the model takes, -1 out of memory.
static int translate(tf_acts *a, const tf_model *m, const char *src, char **text) {
    const tf_config *c = &m->cfg;
    char **t;
    int n = tf_model_tokens(m, 0, src, &t, NULL);
    if (n < 0) return 1;
    int S = n + c->src_append_eos;
    if (S < 1 || S > c->max_len) { tf_words_free(t, n); return 1; }
    int *ids = malloc(sizeof(int) * (size_t)S), out[TF_DEFAULT_MAX_LEN * 4];
    if (!ids) { tf_words_free(t, n); return -1; }
    for (int i = 0; i < n; i++) {
        int id = tf_model_token_id(m, 0, t[i]);
        ids[i] = id < 0 ? m->src_vocab.unk : id;
    }
    if (c->src_append_eos) ids[n] = m->src_vocab.eos;
    tf_source_order(c, ids, NULL, S);
    tf_words_free(t, n);
    int k = tf_greedy(a, m, ids, S, out, (int)(sizeof out / sizeof *out));
    free(ids);
    char **tok = malloc(sizeof(char *) * (size_t)(k ? k : 1));
    if (!tok) return -1;
    for (int i = 0; i < k; i++) tok[i] = m->tgt_vocab.tok[out[i]];
    *text = tf_join_tokens(tok, k);
    free(tok);
    return *text ? 0 : -1;
}

int tf_eval_corpus(const tf_model *m, const tf_corpus *c, int threads, tf_eval_result *r, char **outputs, tf_err *e) {
    memset(r, 0, sizeof *r);
    int n = c->n, nt = threads < 1 ? 1 : threads, failed = 0;
    int *exact = calloc((size_t)(n ? n : 1), sizeof *exact), *right = calloc((size_t)(n ? n : 1), sizeof *right),
        *ref = calloc((size_t)(n ? n : 1), sizeof *ref), *too_long = calloc((size_t)(n ? n : 1), sizeof *too_long);
    if (!exact || !right || !ref || !too_long) { free(exact); free(right); free(ref); free(too_long); return tf_fail(e, "out of memory for evaluation"); }
#pragma omp parallel num_threads(nt) reduction(+ : failed)
    {
        tf_acts a;
        int ok = !tf_acts_alloc(&a, &m->cfg, m->cfg.max_len, m->cfg.max_len, NULL);
        failed += !ok;
#pragma omp for schedule(dynamic, 8)
        for (int i = 0; i < n; i++) {
            if (!ok) continue;
            char *text = NULL, **got = NULL, **want = NULL;
            int rc = translate(&a, m, c->p[i].src, &text);
            if (rc < 0) { failed++; continue; }
            int nw = tf_split_words(c->p[i].tgt, &want, NULL);
            ref[i] = nw > 0 ? nw : 0;
            too_long[i] = rc == 1;
            if (rc == 0 && nw >= 0) {
                int ng = tf_split_words(text, &got, NULL);
                int same = 0;
                for (int k = 0; k < ng && k < nw; k++) same += !strcmp(got[k], want[k]);
                right[i] = same;
                exact[i] = ng == nw && same == nw;
                if (ng > 0) tf_words_free(got, ng);
            }
            if (nw > 0) tf_words_free(want, nw);
            if (outputs) outputs[i] = text;
            else free(text);
        }
        if (ok) tf_acts_free(&a);
    }
    for (int i = 0; i < n; i++) {
        char **w;
        int ns = tf_split_words(c->p[i].src, &w, NULL);
        if (ns > 0) tf_words_free(w, ns);
        tf_eval_bucket *b[2] = {&r->all, &r->by_len[tf_eval_bucket_of(ns)]};
        for (int k = 0; k < 2; k++) { b[k]->n++; b[k]->exact += exact[i]; b[k]->ref_words += ref[i]; b[k]->right_words += right[i]; }
        r->too_long += too_long[i];
    }
    free(exact); free(right); free(ref); free(too_long);
    if (failed) return tf_fail(e, "out of memory for evaluation");
    return 0;
}
