// data.c — a corpus as token ids, batches by length, and exact-match
// evaluation by greedy decoding.
#include "train.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

// Tokens of s (words, or pieces with merges) as ids into ids[*k...]; -1
// (with the token in e) if one is unknown.
static int words_to_ids(const tf_vocab *v, const tf_bpe *b, const char *s, const char *side, int *ids, int *k, int cap, tf_err *e) {
    char **w = NULL;
    int n = tf_tokens(b, s, &w, e);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        int id = tf_vocab_find(v, w[i]);
        if (id < 0 || *k >= cap) {
            if (id < 0) tf_fail(e, "the word \"%.60s\" is not in the model's %s vocabulary", w[i], side);
            else tf_fail(e, "the pair is longer than the model's max_len");
            tf_words_free(w, n);
            return -1;
        }
        ids[(*k)++] = id;
    }
    tf_words_free(w, n);
    return n;
}

int tf_dataset_build(tf_dataset *d, const tf_corpus *c, const tf_model *m, int *bad_pair, tf_err *e) {
    const tf_config *cf = &m->cfg;
    int L = cf->max_len;
    memset(d, 0, sizeof *d);
    d->ex = calloc((size_t)c->n ? (size_t)c->n : 1, sizeof *d->ex);
    // per pair: source (L) + decoder input (L) + output (L)
    d->ids = malloc(sizeof(int) * 3 * (size_t)L * (size_t)(c->n ? c->n : 1));
    if (!d->ex || !d->ids) { tf_dataset_free(d); return tf_fail(e, "out of memory for %d sentence pairs", c->n); }
    for (int i = 0; i < c->n; i++) {
        int *src = d->ids + (size_t)i * 3 * L, *tin = src + L, *tout = tin + L, S = 0, T = 1;
        tin[0] = m->tgt_vocab.bos;
        if (words_to_ids(&m->src_vocab, &m->src_bpe, c->p[i].src, "source", src, &S, L - cf->src_append_eos, e) < 0 ||
            words_to_ids(&m->tgt_vocab, &m->tgt_bpe, c->p[i].tgt, "target", tin, &T, L, e) < 0) {
            *bad_pair = i;
            tf_dataset_free(d);
            return -1;
        }
        if (cf->src_append_eos) src[S++] = m->src_vocab.eos;
        tf_source_order(cf, src, NULL, S); // a recurrent model may read it backwards
        memcpy(tout, tin + 1, sizeof(int) * (size_t)(T - 1));
        tout[T - 1] = m->tgt_vocab.eos;
        d->ex[i] = (tf_example){src, S, tin, T, tout};
        d->n_tokens += T;
    }
    d->n = c->n;
    return 0;
}

void tf_dataset_free(tf_dataset *d) {
    free(d->ex);
    free(d->ids);
    memset(d, 0, sizeof *d);
}

// ---------------------------------------------------------------- batches
static const tf_dataset *sort_d;
static const unsigned *sort_key;
static int by_length(const void *x, const void *y) {
    int i = *(const int *)x, j = *(const int *)y;
    const tf_example *a = &sort_d->ex[i], *b = &sort_d->ex[j];
    if (a->S + a->T != b->S + b->T) return (a->S + a->T) - (b->S + b->T);
    return sort_key[i] < sort_key[j] ? -1 : sort_key[i] > sort_key[j];
}

int tf_batches_make(tf_batches *b, const tf_dataset *d, int batch_tokens, uint64_t seed, tf_err *e) {
    memset(b, 0, sizeof *b);
    if (d->n < 1) return tf_fail(e, "the corpus has no sentence pairs");
    b->order = malloc(sizeof(int) * (size_t)d->n);
    b->start = malloc(sizeof(int) * (size_t)d->n);
    b->len = malloc(sizeof(int) * (size_t)d->n);
    unsigned *key = malloc(sizeof(unsigned) * (size_t)d->n);
    if (!b->order || !b->start || !b->len || !key) { free(key); tf_batches_free(b); return tf_fail(e, "out of memory"); }
    tf_rng r;
    tf_rng_seed(&r, seed);
    for (int i = 0; i < d->n; i++) { b->order[i] = i; key[i] = (unsigned)(tf_rng_next(&r) >> 32); }
    sort_d = d;
    sort_key = key;
    qsort(b->order, (size_t)d->n, sizeof(int), by_length);
    free(key);
    for (int i = 0, tok = 0; i < d->n; i++) {
        if (b->n == 0 || tok + d->ex[b->order[i]].T > batch_tokens) {
            b->start[b->n] = i;
            b->len[b->n++] = 0;
            tok = 0;
        }
        b->len[b->n - 1]++;
        tok += d->ex[b->order[i]].T;
        if (b->len[b->n - 1] > b->max_len) b->max_len = b->len[b->n - 1];
    }
    return 0;
}

void tf_batches_free(tf_batches *b) {
    free(b->order);
    free(b->start);
    free(b->len);
    memset(b, 0, sizeof *b);
}

int tf_batches_get(const tf_batches *b, const tf_dataset *d, long step, uint64_t seed, tf_example *out) {
    long epoch = step / b->n;
    int pos = (int)(step % b->n);
    // position pos of a seeded permutation of the batches: a Fisher–Yates
    // shuffle drawn afresh for this epoch, stopped once pos is fixed
    int *perm = malloc(sizeof(int) * (size_t)b->n), which = pos;
    if (perm) {
        tf_rng r;
        tf_rng_seed(&r, seed * 0x100000001B3ull + (uint64_t)epoch + 1);
        for (int i = 0; i < b->n; i++) perm[i] = i;
        for (int i = 0; i <= pos && i < b->n - 1; i++) {
            int j = i + (int)(tf_rng_next(&r) % (uint64_t)(b->n - i));
            int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
        }
        which = perm[pos];
        free(perm);
    }
    for (int i = 0; i < b->len[which]; i++) out[i] = d->ex[b->order[b->start[which] + i]];
    return b->len[which];
}

// ---------------------------------------------------------------- evaluation

int tf_greedy(tf_acts *a, const tf_model *m, const int *src, int S, int *out, int max) {
    const tf_config *c = &m->cfg;
    int ids[TF_DEFAULT_MAX_LEN * 4], T = 1, n = 0;
    int cap = tf_decode_limit(c, S) + 1; // decoder inputs, <bos> included
    if (cap > (int)(sizeof ids / sizeof *ids)) cap = (int)(sizeof ids / sizeof *ids);
    ids[0] = m->tgt_vocab.bos;
    tf_encode(a, m, src, S);
    tf_decode(a, m, ids, 1);
    while (T <= cap) {
        if (T > 1) tf_decode_next(a, m, ids, T);
        int next = tf_model_next_token(m, a->logits + (size_t)(T - 1) * c->V_tgt);
        if (next == m->tgt_vocab.eos || n >= max || T == cap) break;
        out[n++] = next;
        ids[T++] = next;
    }
    return n;
}

int tf_eval_exact(const tf_model *m, const tf_dataset *d, int threads, tf_err *e) {
    int nt = threads < 1 ? 1 : threads, right = 0, failed = 0;
#pragma omp parallel num_threads(nt) reduction(+ : right, failed)
    {
        tf_acts a;
        int out[TF_DEFAULT_MAX_LEN * 4], ok = !tf_acts_alloc(&a, &m->cfg, m->cfg.max_len, m->cfg.max_len, NULL);
        failed += !ok;
#pragma omp for schedule(dynamic, 16)
        for (int i = 0; i < d->n; i++) {
            if (!ok) continue;
            const tf_example *x = &d->ex[i];
            int n = tf_greedy(&a, m, x->src, x->S, out, (int)(sizeof out / sizeof *out));
            right += n == x->T - 1 && !memcmp(out, x->out, sizeof(int) * (size_t)n);
        }
        if (ok) tf_acts_free(&a);
    }
    if (failed) return tf_fail(e, "out of memory for evaluation");
    return right;
}

// The word each token of s belongs to (words split into pieces by b):
// word_of (cap) gets it; returns the number of tokens, -1 on error.
static int word_of_tokens(const tf_bpe *b, const char *s, int *word_of, int cap) {
    char **w;
    int n = tf_split_words(s, &w, NULL), k = 0;
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        int np = 1;
        if (b && b->n) {
            char **p;
            np = tf_bpe_word(b, w[i], &p, NULL);
            if (np < 0) { tf_words_free(w, n); return -1; }
            tf_words_free(p, np);
        }
        for (int j = 0; j < np; j++, k++) if (k < cap) word_of[k] = i;
    }
    tf_words_free(w, n);
    return k;
}

int tf_align_eval(const tf_model *m, const tf_corpus *c, const tf_dataset *d, double *acc) {
    const tf_config *cf = &m->cfg;
    int lstm = cf->arch == TF_ARCH_LSTM;
    if (lstm && cf->attention != TF_RNN_ATTN_DOT) return 0; // nothing aligns: v is all the decoder sees
    int H = cf->H, n_acc = cf->L_dec * (H + 1) * 2, words = 0, L = cf->max_len;
    long *hits = calloc((size_t)n_acc, sizeof *hits);
    int *src_word_of = malloc(sizeof(int) * (size_t)L), *tgt_word_of = malloc(sizeof(int) * (size_t)L);
    tf_acts a;
    if (!hits || !src_word_of || !tgt_word_of || tf_acts_alloc(&a, cf, L, L, NULL)) {
        free(hits); free(src_word_of); free(tgt_word_of);
        return -1;
    }
    for (int i = 0; i < d->n && i < c->n; i++) {
        const tf_pair *p = &c->p[i];
        const tf_example *x = &d->ex[i];
        if (!p->align) continue;
        // tokens to words: a word-level model's token i is word i; pieces map to their word
        int ns = word_of_tokens(&m->src_bpe, p->src, src_word_of, L), nt = word_of_tokens(&m->tgt_bpe, p->tgt, tgt_word_of, L);
        if (ns < 0 || nt < 0 || ns > L || nt > L) continue;
        for (int k = ns; k < x->S; k++) src_word_of[k] = -2; // <eos>
        if (lstm && cf->reverse_source) // the encoder's step j read token ns−1−j
            for (int k = 0, q = ns - 1; k < q; k++, q--) { int w = src_word_of[k]; src_word_of[k] = src_word_of[q]; src_word_of[q] = w; }
        tf_encode(&a, m, x->src, x->S);
        tf_decode(&a, m, x->tgt, x->T);
        if (lstm) { // one attention (dot, Luong): counted as layer 0, head 0 and the "mean of heads"
            for (int t = 0; t < nt && t < x->T - 1; t++) {
                int w = tgt_word_of[t];
                if (w < 0 || w >= p->n_tgt || p->align[w] < 0) continue;
                words++;
                for (int reading = 0; reading < 2; reading++) {
                    const float *r = a.attn_weights + (size_t)(t + reading) * x->S;
                    int best = 0;
                    for (int j = 1; j < x->S; j++) if (r[j] > r[best]) best = j;
                    hits[0 * 2 + reading] += src_word_of[best] == p->align[w];
                    hits[1 * 2 + reading] += src_word_of[best] == p->align[w];
                }
            }
            continue;
        }
        for (int t = 0; t < nt && t < x->T - 1; t++) { // target token t, of target word tgt_word_of[t]
            int w = tgt_word_of[t];
            if (w < 0 || w >= p->n_tgt) continue;
            int src_word = p->align[w];
            if (src_word < 0) continue;
            words++;
            for (int l = 0; l < cf->L_dec; l++)
                for (int reading = 0; reading < 2; reading++) {
                    int row = t + reading, best_mean = 0;
                    float mean_best = -1.0f;
                    for (int j = 0; j < x->S; j++) {
                        float sum = 0.0f;
                        for (int h = 0; h < H; h++) sum += a.dec[l].cross_attn.weights[((size_t)h * x->T + row) * x->S + j];
                        if (sum > mean_best) { mean_best = sum; best_mean = j; }
                    }
                    hits[(l * (H + 1) + H) * 2 + reading] += src_word_of[best_mean] == src_word;
                    for (int h = 0; h < H; h++) {
                        const float *r = a.dec[l].cross_attn.weights + ((size_t)h * x->T + row) * x->S;
                        int best = 0;
                        for (int j = 1; j < x->S; j++) if (r[j] > r[best]) best = j;
                        hits[(l * (H + 1) + h) * 2 + reading] += src_word_of[best] == src_word;
                    }
                }
        }
    }
    for (int k = 0; k < n_acc; k++) acc[k] = words ? (double)hits[k] / words : 0.0;
    free(hits); free(src_word_of); free(tgt_word_of);
    tf_acts_free(&a);
    return words;
}
