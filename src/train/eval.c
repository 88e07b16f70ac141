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

// log P(Y) / lp(Y) of greedy decoding's output (n ids after <bos> in ids, an
// <eos> after them when it ended there) under the beam's score: one forward
// pass on it (a: the source encoded), the log-softmax of each next token.
static double greedy_score(tf_acts *a, const tf_model *m, int *ids, int n, int ended, double alpha) {
    int V = m->cfg.V_tgt, T = n + 1;
    tf_decode(a, m, ids, T);
    double logp = 0;
    for (int t = 0; t < T; t++) {
        int next = t + 1 < T ? ids[t + 1] : m->tgt_vocab.eos;
        if (t + 1 == T && !ended) break;
        const float *z = a->logits + (size_t)t * V;
        logp += (double)z[next] - tf_log_sum_exp(z, V);
    }
    return logp / tf_length_penalty(n + ended, alpha);
}

// Beam search of width K on src: the choice's tokens (<eos> not included)
// into out; *vs 1, 0, -1 as the choice scores above, equal to, below greedy
// decoding's output (a workspace). Returns the length, or -1.
static int beam(tf_acts *a, const tf_model *m, const int *src, int S, int K, double alpha, int *out, int max, int *vs) {
    tf_beam b;
    tf_err e;
    if (tf_beam_search(&b, m, src, S, K, alpha, &e)) return -1;
    int n = b.choice < 0 ? 0 : tf_beam_tokens(&b, b.choice, out, max), ended = n > 0 && out[n - 1] == m->tgt_vocab.eos;
    double sb = b.choice < 0 ? 0 : b.node[b.choice].score;
    tf_beam_free(&b);
    if (ended) n--;
    int g[TF_DEFAULT_MAX_LEN * 4 + 1];
    int ng = tf_greedy(a, m, src, S, g + 1, TF_DEFAULT_MAX_LEN * 4), g_ended = ng < tf_decode_limit(&m->cfg, S);
    g[0] = m->tgt_vocab.bos;
    if (ng == n && g_ended == ended && !memcmp(g + 1, out, sizeof(int) * (size_t)n)) *vs = 0;
    else {
        double sg = greedy_score(a, m, g, ng, g_ended, alpha);
        *vs = sb > sg ? 1 : sb < sg ? -1 : 0;
    }
    return n;
}

// One pair: the translation of src (words, pieces joined back), in *text:
// greedy (K 0) or beam search (*vs as beam's). Returns 0, 1 when the source is
// longer than the model takes, -1 out of memory.
static int translate(tf_acts *a, const tf_model *m, const char *src, int K, double alpha, char **text, int *vs) {
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
    int k = K ? beam(a, m, ids, S, K, alpha, out, (int)(sizeof out / sizeof *out), vs) : tf_greedy(a, m, ids, S, out, (int)(sizeof out / sizeof *out));
    free(ids);
    if (k < 0) return -1;
    char **tok = malloc(sizeof(char *) * (size_t)(k ? k : 1));
    if (!tok) return -1;
    for (int i = 0; i < k; i++) tok[i] = m->tgt_vocab.tok[out[i]];
    *text = tf_join_tokens(tok, k);
    free(tok);
    return *text ? 0 : -1;
}

int tf_eval_corpus(const tf_model *m, const tf_corpus *c, int threads, tf_eval_result *r, char **outputs, tf_err *e) {
    return tf_eval_corpus_beam(m, c, threads, 0, 0, r, outputs, e);
}

int tf_eval_corpus_beam(const tf_model *m, const tf_corpus *c, int threads, int K, double alpha, tf_eval_result *r, char **outputs,
                        tf_err *e) {
    memset(r, 0, sizeof *r);
    int n = c->n, nt = threads < 1 ? 1 : threads, failed = 0;
    int *exact = calloc((size_t)(n ? n : 1), sizeof *exact), *right = calloc((size_t)(n ? n : 1), sizeof *right),
        *ref = calloc((size_t)(n ? n : 1), sizeof *ref), *too_long = calloc((size_t)(n ? n : 1), sizeof *too_long),
        *vs = calloc((size_t)(n ? n : 1), sizeof *vs);
    if (!exact || !right || !ref || !too_long || !vs) {
        free(exact); free(right); free(ref); free(too_long); free(vs);
        return tf_fail(e, "out of memory for evaluation");
    }
#pragma omp parallel num_threads(nt) reduction(+ : failed)
    {
        tf_acts a;
        int ok = !tf_acts_alloc(&a, &m->cfg, m->cfg.max_len, m->cfg.max_len, NULL);
        failed += !ok;
#pragma omp for schedule(dynamic, 8)
        for (int i = 0; i < n; i++) {
            if (!ok) continue;
            char *text = NULL, **got = NULL, **want = NULL;
            int rc = translate(&a, m, c->p[i].src, K, alpha, &text, &vs[i]);
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
        if (K && !too_long[i]) { r->beam_above += vs[i] > 0; r->beam_equal += vs[i] == 0; r->beam_below += vs[i] < 0; }
    }
    free(exact); free(right); free(ref); free(too_long); free(vs);
    if (failed) return tf_fail(e, "out of memory for evaluation");
    return 0;
}
