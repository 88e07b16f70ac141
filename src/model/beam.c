// beam.c — beam search (the paper's §6.1; scoring of Wu et al. 2016): tf.h
// "beam search" states the rules. Every model family decodes through the
// same step function greedy decoding uses (tf_decode_next); each live
// hypothesis keeps its own activations, and a child takes its parent's
// decoder state (tf_decode_continue_from) before its step.
// Letters: S source, T decoder input, V the target vocabulary.
#include "tf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tf_decode_limit(const tf_config *c, int S) {
    int n = S + 50;
    return n < c->max_len - 1 ? n : c->max_len - 1;
}

double tf_length_penalty(int len, double alpha) { return pow((5.0 + len) / 6.0, alpha); }

double tf_log_sum_exp(const float *z, int n) {
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < n; j++) if (z[j] > mx) mx = z[j];
    for (int j = 0; j < n; j++) sum += exp((double)z[j] - mx);
    return mx + log(sum);
}

int tf_beam_check(const tf_model *m, int K, double alpha, tf_err *e) {
    int V = m->cfg.V_tgt;
    if (K < 1) return tf_fail(e, "a beam holds at least one hypothesis; give --beam 1 or more (1 is greedy decoding)");
    if (K > V) return tf_fail(e, "a beam of %d is wider than the target vocabulary (%d tokens); give --beam %d or less", K, V, V < TF_BEAM_MAX ? V : TF_BEAM_MAX);
    if (K > TF_BEAM_MAX) return tf_fail(e, "a beam of %d is wider than tviz keeps; give --beam %d or less", K, TF_BEAM_MAX);
    if (!(alpha >= 0) || isinf(alpha)) return tf_fail(e, "the length penalty α must be a number of 0 or more (the paper: 0.6)");
    return 0;
}

void tf_beam_free(tf_beam *b) {
    free(b->first);
    free(b->node);
    memset(b, 0, sizeof *b);
}

int tf_beam_step_of(const tf_beam *b, int node) {
    int t = 0;
    while (t < b->n_steps && node >= b->first[t + 1]) t++;
    return t;
}

int tf_beam_tokens(const tf_beam *b, int node, int *ids, int max) {
    int n = 0;
    for (int k = node; k >= 0; k = b->node[k].parent) n++;
    int i = n;
    for (int k = node; k >= 0; k = b->node[k].parent)
        if (--i < max) ids[i] = b->node[k].token;
    return n < max ? n : max;
}

// One candidate: hypothesis h extended by token, with log P.
typedef struct { double logp; int h, token; } cand;

// Inserts c into best (n of at most cap, by logp descending; ties keep the
// earlier arrival, which is the lower hypothesis, then the lower id).
static void offer(cand *best, int *n, int cap, cand c) {
    if (*n == cap && !(c.logp > best[cap - 1].logp)) return;
    int at = *n < cap ? (*n)++ : cap - 1;
    while (at > 0 && c.logp > best[at - 1].logp) { best[at] = best[at - 1]; at--; }
    best[at] = c;
}

int tf_beam_search(tf_beam *b, const tf_model *m, const int *src, int S, int K, double alpha, tf_err *e) {
    const tf_config *c = &m->cfg;
    int V = c->V_tgt, W = tf_decode_limit(c, S), N = 2 * K, eos = m->tgt_vocab.eos;
    memset(b, 0, sizeof *b);
    if (tf_beam_check(m, K, alpha, e)) return -1;
    b->K = K;
    b->alpha = alpha;
    b->limit = W < 0 ? 0 : W;
    b->choice = -1;
    int steps = b->limit;
    // live[k] (k < n_live): the node its hypothesis ends at (-1 for <bos>); its
    // decoder input (T = step + 1 ids) is row k of cur, its activations acts[slot[k]].
    tf_acts acts[2 * TF_BEAM_MAX] = {0};
    int slot[TF_BEAM_MAX], next_slot[TF_BEAM_MAX], live[TF_BEAM_MAX], n_live = 1, n_ended = 0, rc = -1;
    int *ids = malloc(sizeof(int) * (size_t)(2 * K) * (size_t)(steps + 1)); // (2, K, steps + 1): decoder inputs now and next
    int *cur = ids, *nxt = ids ? ids + (size_t)K * (steps + 1) : NULL;
    cand *best = malloc(sizeof(cand) * (size_t)N);
    b->first = malloc(sizeof(int) * (size_t)(steps + 1));
    b->node = malloc(sizeof(tf_beam_node) * (size_t)(steps ? steps : 1) * (size_t)N);
    if (!ids || !best || !b->first || !b->node) { tf_fail(e, "out of memory for a beam of %d", K); goto done; }
    for (int k = 0; k < 2 * K; k++)
        if (tf_acts_alloc(&acts[k], c, S, steps + 1, e)) goto done;
    // every hypothesis starts from <bos>, on the one encoding of the source
    tf_encode(&acts[0], m, src, S);
    cur[0] = m->tgt_vocab.bos;
    tf_decode(&acts[0], m, cur, 1);
    for (int k = 1; k < 2 * K; k++) { // (the same encoding in every slot)
        memcpy(acts[k].block, acts[0].block, sizeof(float) * acts[0].n_floats);
        acts[k].S = S;
        acts[k].T = 1;
    }
    live[0] = -1;
    slot[0] = 0;
    b->first[0] = 0;
    int never = m->cfg.marian ? m->tgt_vocab.pad : -1; // (a Marian model's pad is never chosen, as in greedy decoding)
    for (int t = 0; t < steps && n_live > 0 && n_ended < K; t++) {
        // candidates: every live hypothesis (t tokens after <bos>) and every token
        int n = 0;
        for (int k = 0; k < n_live; k++) {
            const tf_acts *a = &acts[slot[k]];
            double lp = live[k] < 0 ? 0.0 : b->node[live[k]].logp;
            // log_softmax of the last row of the logits, in double
            const float *z = a->logits + (size_t)t * V;
            double lse = tf_log_sum_exp(z, V);
            for (int j = 0; j < V; j++)
                if (j != never) offer(best, &n, N, (cand){lp + ((double)z[j] - lse), k, j});
        }
        // their fates, best first; the kept go on in slots their parents do not hold
        int kept = 0, base = b->first[t], new_live[TF_BEAM_MAX], free_slot = 0, used[2 * TF_BEAM_MAX] = {0};
        for (int k = 0; k < n_live; k++) used[slot[k]] = 1;
        for (int r = 0; r < n; r++) {
            tf_beam_node *nd = &b->node[base + r];
            nd->parent = live[best[r].h];
            nd->token = best[r].token;
            nd->logp = best[r].logp;
            nd->score = 0;
            if (best[r].token == eos) {
                nd->fate = r < K ? TF_BEAM_ENDED : TF_BEAM_PRUNED;
                if (r < K) { nd->score = nd->logp / tf_length_penalty(t + 1, alpha); n_ended++; }
            } else if (kept < K) {
                if (t + 1 == W) { // the limit: it ends as it is
                    nd->fate = TF_BEAM_ENDED;
                    nd->score = nd->logp / tf_length_penalty(t + 1, alpha);
                    n_ended++;
                    new_live[kept++] = base + r;
                    continue;
                }
                nd->fate = TF_BEAM_KEPT;
                while (used[free_slot]) free_slot++;
                used[free_slot] = 1;
                int *row = nxt + (size_t)kept * (steps + 1);
                memcpy(row, cur + (size_t)best[r].h * (steps + 1), sizeof(int) * (size_t)(t + 1));
                row[t + 1] = best[r].token;
                tf_decode_continue_from(&acts[free_slot], &acts[slot[best[r].h]], m, t + 1);
                tf_decode_next(&acts[free_slot], m, row, t + 2);
                next_slot[kept] = free_slot;
                new_live[kept++] = base + r;
            } else nd->fate = TF_BEAM_PRUNED;
        }
        b->first[t + 1] = base + n;
        b->n_steps = t + 1;
        b->n_nodes = base + n;
        int *swap = cur; cur = nxt; nxt = swap;
        n_live = 0;
        for (int k = 0; k < kept; k++)
            if (b->node[new_live[k]].fate == TF_BEAM_KEPT) { live[n_live] = new_live[k]; slot[n_live++] = next_slot[k]; }
    }
    // the choice: the ended hypothesis of highest score, the first on a tie
    for (int i = 0; i < b->n_nodes; i++)
        if (b->node[i].fate == TF_BEAM_ENDED && (b->choice < 0 || b->node[i].score > b->node[b->choice].score)) b->choice = i;
    rc = 0;
done:
    for (int k = 0; k < 2 * K; k++) tf_acts_free(&acts[k]);
    free(ids);
    free(best);
    if (rc) tf_beam_free(b);
    return rc;
}
