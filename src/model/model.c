// model.c — the encoder-decoder forward pass (§3.1) and a whole run on a sentence.
// Letters: S, T, C, H, D, F, V as in tf.h.
#include "tf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- activations
// One sizes table lays out every activation in one block (as llm.c does).
// With base NULL it only counts.
static float *take(float *base, size_t *used, size_t n) {
    float *p = base ? base + *used : NULL;
    *used += n;
    return p;
}

static void attn_layout(tf_attn_acts *a, float *base, size_t *u, int Tq, int Tk, int C, int H) {
    a->q = take(base, u, (size_t)Tq * C);
    a->k = take(base, u, (size_t)Tk * C);
    a->v = take(base, u, (size_t)Tk * C);
    a->scores = take(base, u, (size_t)H * Tq * Tk);
    a->scaled = take(base, u, (size_t)H * Tq * Tk);
    a->masked = take(base, u, (size_t)H * Tq * Tk);
    a->weights = take(base, u, (size_t)H * Tq * Tk);
    a->head_out = take(base, u, (size_t)Tq * C);
    a->concat = take(base, u, (size_t)Tq * C);
    a->out = take(base, u, (size_t)Tq * C);
}

static void layer_layout(tf_layer_acts *l, float *base, size_t *u, int T, int S, int C, int H, int F, int dec) {
    attn_layout(&l->self_attn, base, u, T, T, C, H);
    if (dec) attn_layout(&l->cross_attn, base, u, T, S, C, H);
    else memset(&l->cross_attn, 0, sizeof l->cross_attn);
    l->add1 = take(base, u, (size_t)T * C);
    l->norm1 = take(base, u, (size_t)T * C);
    l->add2 = take(base, u, (size_t)T * C);
    l->norm2 = take(base, u, (size_t)T * C);
    l->add3 = dec ? take(base, u, (size_t)T * C) : NULL;
    l->norm3 = dec ? take(base, u, (size_t)T * C) : NULL;
    l->ffn_hidden = take(base, u, (size_t)T * F);
    l->ffn_out = take(base, u, (size_t)T * C);
}

static size_t acts_layout(tf_acts *a, const tf_config *c, float *base) {
    size_t u = 0;
    int S = a->S_cap, T = a->T_cap, C = c->C, H = c->H, F = c->F;
    a->src_embed = take(base, &u, (size_t)S * C);
    a->src_pe = take(base, &u, (size_t)S * C);
    a->src_input = take(base, &u, (size_t)S * C);
    for (int l = 0; l < c->L_enc; l++) layer_layout(&a->enc[l], base, &u, S, S, C, H, F, 0);
    a->enc_norm = c->has_enc_norm ? take(base, &u, (size_t)S * C) : NULL;
    a->tgt_embed = take(base, &u, (size_t)T * C);
    a->tgt_pe = take(base, &u, (size_t)T * C);
    a->tgt_input = take(base, &u, (size_t)T * C);
    for (int l = 0; l < c->L_dec; l++) layer_layout(&a->dec[l], base, &u, T, S, C, H, F, 1);
    a->dec_norm = c->has_dec_norm ? take(base, &u, (size_t)T * C) : NULL;
    a->logits = take(base, &u, (size_t)T * c->V_tgt);
    a->probs = take(base, &u, (size_t)T * c->V_tgt);
    // what a stack hands on: its final norm, else its last layer's output (post-LN: the last norm; pre-LN: the last add)
    a->memory = a->enc_norm ? a->enc_norm : c->norm_first ? a->enc[c->L_enc - 1].add2 : a->enc[c->L_enc - 1].norm2;
    a->dec_out = a->dec_norm ? a->dec_norm : c->norm_first ? a->dec[c->L_dec - 1].add3 : a->dec[c->L_dec - 1].norm3;
    return u;
}

int tf_acts_alloc(tf_acts *a, const tf_config *cfg, int S_cap, int T_cap, tf_err *e) {
    int lstm = cfg->arch == TF_ARCH_LSTM;
    size_t (*layout)(tf_acts *, const tf_config *, float *) = lstm ? tf_lstm_acts_layout : acts_layout;
    memset(a, 0, sizeof *a);
    a->S_cap = S_cap;
    a->T_cap = T_cap;
    if (lstm) {
        a->lenc = calloc((size_t)cfg->L_enc, sizeof *a->lenc);
        a->ldec = calloc((size_t)cfg->L_dec, sizeof *a->ldec);
        if (!a->lenc || !a->ldec) goto oom;
    } else {
        a->enc = calloc((size_t)cfg->L_enc, sizeof *a->enc);
        a->dec = calloc((size_t)cfg->L_dec, sizeof *a->dec);
        if (!a->enc || !a->dec) goto oom;
    }
    a->n_floats = layout(a, cfg, NULL);
    a->block = calloc(a->n_floats, sizeof(float));
    if (!a->block) goto oom;
    layout(a, cfg, a->block);
    return 0;
oom:
    tf_acts_free(a);
    return tf_fail(e, "out of memory for the activations of %d + %d tokens; use a shorter sentence", S_cap, T_cap);
}

void tf_acts_free(tf_acts *a) {
    free(a->block);
    free(a->enc);
    free(a->dec);
    free(a->lenc);
    free(a->ldec);
    memset(a, 0, sizeof *a);
}

// ---------------------------------------------------------------- forward
// ids (T) -> embed (T,C) = E[id] · scale; pe (T,C); input = embed + pe   (§3.4, §3.5)
// (without pe: pe = 0, input = embed; training: input ⊙= dropout mask)
// (pe_split: MarianMT's two halves, tf_positional_encoding_split)
static void embed_forward(float *embed, float *pe, float *input, const float *drop, const float *E, float scale,
                          const int *ids, int with_pe, int pe_split, int T, int C) {
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) embed[(size_t)t * C + c] = tf_sat(E[(size_t)ids[t] * C + c] * scale);
    if (with_pe && pe_split) tf_positional_encoding_split(pe, T, C);
    else if (with_pe) tf_positional_encoding(pe, T, C);
    else memset(pe, 0, sizeof(float) * (size_t)T * C);
    tf_add(input, embed, pe, T * C);
    if (drop) tf_mul(input, input, drop, T * C);
}

// Residual connection (§3.1, §5.4): add = x + Dropout(sub), the mask only when
// training. Without it (the what-if "residual"): add = Dropout(sub).
static void residual(float *add, const float *x, float *sub, const float *drop, int with_residual, int n) {
    if (drop) tf_mul(sub, sub, drop, n);
    if (with_residual) tf_add(add, x, sub, n);
    else memcpy(add, sub, sizeof(float) * (size_t)n);
}

// x (T,C) -> hidden (T,F) = ReLU(x W1ᵀ + b1) -> out (T,C) = hidden W2ᵀ + b2   (§3.3)
// (act: the model's activation in ReLU's place; ReLU for every tviz model)
static void ffn_forward(float *hidden, float *out, const tf_layer_w *w, const float *x, tf_act act, int T, int C, int F) {
    tf_linear_fast(hidden, x, w->w1, w->b1, T, C, F);
    tf_activation(hidden, hidden, T * F, act);
    tf_linear_fast(out, hidden, w->w2, w->b2, T, F, C);
}

// Post-LN (the paper):  x = LayerNorm(x + Sublayer(x))   add_k, norm_k
// Pre-LN (norm_first):  x = x + Sublayer(LayerNorm(x))   norm_k (the sublayer's input), add_k
void tf_encode(tf_acts *a, const tf_model *m, const int *src, int S) {
    if (m->cfg.arch == TF_ARCH_LSTM) { tf_lstm_encode(a, m, src, S); return; }
    const tf_config *c = &m->cfg;
    int C = c->C, H = c->H, pre = c->norm_first;
    int res = !(c->without & TF_WITHOUT_RESIDUAL), scaled = !(c->without & TF_WITHOUT_SCALE);
    a->S = S;
    embed_forward(a->src_embed, a->src_pe, a->src_input, a->src_drop, m->src_embed, c->embed_scale, src,
                  !(c->without & TF_WITHOUT_PE), c->pe_split, S, C);
    const float *x = a->src_input;
    for (int l = 0; l < c->L_enc; l++) {
        tf_layer_acts *la = &a->enc[l];
        const tf_layer_w *w = &m->enc[l];
        if (pre) {
            // x = x + SelfAttention(LayerNorm(x)); x = x + FFN(LayerNorm(x))
            tf_layernorm(la->norm1, x, w->n1w, w->n1b, c->eps, S, C);
            tf_attention_ex(&la->self_attn, &w->self_attn, la->norm1, la->norm1, 0, scaled, S, S, C, H);
            residual(la->add1, x, la->self_attn.out, la->drop1, res, S * C);
            tf_layernorm(la->norm2, la->add1, w->n2w, w->n2b, c->eps, S, C);
            ffn_forward(la->ffn_hidden, la->ffn_out, w, la->norm2, c->act, S, C, c->F);
            residual(la->add2, la->add1, la->ffn_out, la->drop2, res, S * C);
            x = la->add2;
            continue;
        }
        // x = LayerNorm(x + SelfAttention(x)); x = LayerNorm(x + FFN(x))
        tf_attention_ex(&la->self_attn, &w->self_attn, x, x, 0, scaled, S, S, C, H);
        residual(la->add1, x, la->self_attn.out, la->drop1, res, S * C);
        tf_layernorm(la->norm1, la->add1, w->n1w, w->n1b, c->eps, S, C);
        ffn_forward(la->ffn_hidden, la->ffn_out, w, la->norm1, c->act, S, C, c->F);
        residual(la->add2, la->norm1, la->ffn_out, la->drop2, res, S * C);
        tf_layernorm(la->norm2, la->add2, w->n2w, w->n2b, c->eps, S, C);
        x = la->norm2;
    }
    if (c->has_enc_norm) tf_layernorm(a->enc_norm, x, m->enc_norm_w, m->enc_norm_b, c->eps, S, C);
}

void tf_decode(tf_acts *a, const tf_model *m, const int *tgt, int T) { tf_decode_rows(a, m, tgt, T, 0); }

void tf_decode_rows(tf_acts *a, const tf_model *m, const int *tgt, int T, int first) {
    if (m->cfg.arch == TF_ARCH_LSTM) { tf_lstm_decode(a, m, tgt, T); return; }
    const tf_config *c = &m->cfg;
    int C = c->C, H = c->H, S = a->S, pre = c->norm_first;
    int res = !(c->without & TF_WITHOUT_RESIDUAL), scaled = !(c->without & TF_WITHOUT_SCALE);
    int causal = !(c->without & TF_WITHOUT_MASK);
    a->T = T;
    embed_forward(a->tgt_embed, a->tgt_pe, a->tgt_input, a->tgt_drop, m->tgt_embed, c->embed_scale, tgt,
                  !(c->without & TF_WITHOUT_PE), c->pe_split, T, C);
    const float *x = a->tgt_input;
    for (int l = 0; l < c->L_dec; l++) {
        tf_layer_acts *la = &a->dec[l];
        const tf_layer_w *w = &m->dec[l];
        if (pre) {
            // x = x + MaskedSelfAttention(LayerNorm(x))
            tf_layernorm(la->norm1, x, w->n1w, w->n1b, c->eps, T, C);
            tf_attention_ex(&la->self_attn, &w->self_attn, la->norm1, la->norm1, causal, scaled, T, T, C, H);
            residual(la->add1, x, la->self_attn.out, la->drop1, res, T * C);
            // x = x + CrossAttention(LayerNorm(x), memory)
            tf_layernorm(la->norm2, la->add1, w->n2w, w->n2b, c->eps, T, C);
            if (first) tf_attention_kv_kept(&la->cross_attn, &w->cross_attn, la->norm2, scaled, T, S, C, H);
            else tf_attention_ex(&la->cross_attn, &w->cross_attn, la->norm2, a->memory, 0, scaled, T, S, C, H);
            residual(la->add2, la->add1, la->cross_attn.out, la->drop2, res, T * C);
            // x = x + FFN(LayerNorm(x))
            tf_layernorm(la->norm3, la->add2, w->n3w, w->n3b, c->eps, T, C);
            ffn_forward(la->ffn_hidden, la->ffn_out, w, la->norm3, c->act, T, C, c->F);
            residual(la->add3, la->add2, la->ffn_out, la->drop3, res, T * C);
            x = la->add3;
            continue;
        }
        // x = LayerNorm(x + MaskedSelfAttention(x))
        tf_attention_ex(&la->self_attn, &w->self_attn, x, x, causal, scaled, T, T, C, H);
        residual(la->add1, x, la->self_attn.out, la->drop1, res, T * C);
        tf_layernorm(la->norm1, la->add1, w->n1w, w->n1b, c->eps, T, C);
        // x = LayerNorm(x + CrossAttention(x, memory))
        if (first) tf_attention_kv_kept(&la->cross_attn, &w->cross_attn, la->norm1, scaled, T, S, C, H); // (K, V of the memory: as before)
        else tf_attention_ex(&la->cross_attn, &w->cross_attn, la->norm1, a->memory, 0, scaled, T, S, C, H);
        residual(la->add2, la->norm1, la->cross_attn.out, la->drop2, res, T * C);
        tf_layernorm(la->norm2, la->add2, w->n2w, w->n2b, c->eps, T, C);
        // x = LayerNorm(x + FFN(x))
        ffn_forward(la->ffn_hidden, la->ffn_out, w, la->norm2, c->act, T, C, c->F);
        residual(la->add3, la->norm2, la->ffn_out, la->drop3, res, T * C);
        tf_layernorm(la->norm3, la->add3, w->n3w, w->n3b, c->eps, T, C);
        x = la->norm3;
    }
    if (c->has_dec_norm) tf_layernorm(a->dec_norm, x, m->dec_norm_w, m->dec_norm_b, c->eps, T, C);
    // y (T,C) @ Gᵀ (C,V) + b -> logits (T,V); softmax -> probs   (rows from first on)
    size_t V = (size_t)c->V_tgt;
    tf_linear_fast(a->logits + first * V, a->dec_out + (size_t)first * C, m->gen_w, m->gen_b, T - first, C, c->V_tgt);
    tf_softmax_rows(a->probs + first * V, a->logits + first * V, T - first, c->V_tgt);
}

// ---------------------------------------------------------------- a whole run
// The sentence as the model's tokens (tf_model_tokens: words, BPE or
// SentencePiece pieces) and their ids, with <bos> (the decoder's start token)
// first and <eos> last when asked.
static int tokenize(const tf_model *m, int target, const char *sentence, int add_bos, int add_eos,
                    int max_len, int **ids_out, char ***words_out, int *n_out, int *n_unk, tf_err *e) {
    const tf_vocab *v = target ? &m->tgt_vocab : &m->src_vocab;
    const char *what = target ? "target" : "source";
    size_t bad;
    if (tf_utf8_check(sentence, strlen(sentence), &bad))
        return tf_fail(e, "the %s sentence is not valid UTF-8 (byte %zu); retype it or save it as UTF-8", what, bad + 1);
    char **words = NULL;
    int n = tf_model_tokens(m, target, sentence, &words, e);
    if (n < 0) { // "the sentence …" -> "the target sentence …": say which one
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return strncmp(why, "the sentence ", 13) ? -1 : tf_fail(e, "the %s %s", what, why + 4);
    }
    if (n == 0) {
        tf_words_free(words, 0);
        return tf_fail(e, "the %s sentence is empty; type at least one word", what);
    }
    int total = n + add_bos + add_eos;
    if (total > max_len) {
        tf_words_free(words, n);
        return tf_fail(e, "the %s sentence has %d tokens but this model takes at most %d; shorten it",
                       what, total, max_len);
    }
    int *ids = malloc(sizeof(int) * (size_t)max_len);
    char **all = malloc(sizeof(char *) * (size_t)max_len);
    if (!ids || !all) {
        free(ids); free(all); tf_words_free(words, n);
        return tf_fail(e, "out of memory");
    }
    int k = 0;
    *n_unk = 0;
    if (add_bos) { ids[k] = v->bos; all[k++] = strdup("<bos>"); }
    for (int i = 0; i < n; i++) {
        int id = tf_model_token_id(m, target, words[i]);
        if (id < 0) { id = v->unk; (*n_unk)++; }
        ids[k] = id;
        all[k++] = words[i];
    }
    if (add_eos) { ids[k] = v->eos; all[k++] = strdup("<eos>"); }
    free(words);
    if ((add_bos && !all[0]) || (add_eos && !all[k - 1])) {
        tf_words_free(all, k); free(ids);
        return tf_fail(e, "out of memory");
    }
    *ids_out = ids;
    *words_out = all;
    *n_out = k;
    return 0;
}

int tf_model_next_token(const tf_model *m, const float *row) {
    int V = m->cfg.V_tgt, skip = m->cfg.marian ? m->tgt_vocab.pad : -1, best = skip == 0 ? 1 : 0;
    for (int i = best + 1; i < V; i++) if (i != skip && row[i] > row[best]) best = i;
    return best;
}

// limit: greedy decoding stops once the decoder input has this many tokens
// (0: at <eos> or tf_decode_limit only). K > 0: beam search of width K instead.
static int run(tf_run *r, const tf_model *m, const char *src, const char *tgt, int limit, int K, double alpha, tf_err *e) {
    const tf_config *c = &m->cfg;
    memset(r, 0, sizeof *r);
    if (tokenize(m, 0, src, 0, c->src_append_eos, c->max_len,
                 &r->src_ids, &r->src_words, &r->S, &r->n_src_unk, e)) goto fail;
    tf_source_order(c, r->src_ids, r->src_words, r->S); // a recurrent model may read it backwards
    if (tgt) {
        if (tokenize(m, 1, tgt, 1, 0, c->max_len,
                     &r->tgt_ids, &r->tgt_words, &r->T, &r->n_tgt_unk, e)) goto fail;
    } else {
        r->greedy = 1;
        r->tgt_ids = malloc(sizeof(int) * ((size_t)c->max_len + 1)); // (+ 1: a beam's <eos>)
        r->tgt_words = calloc((size_t)c->max_len, sizeof(char *));
        if (!r->tgt_ids || !r->tgt_words) { tf_fail(e, "out of memory"); goto fail; }
        r->tgt_ids[0] = m->tgt_vocab.bos;
        r->T = 1;
    }
    if (K > 0 && !tgt) { // beam search chooses the target; the forward pass then runs on it
        if (!(r->beam = calloc(1, sizeof *r->beam))) { tf_fail(e, "out of memory"); goto fail; }
        if (tf_beam_search(r->beam, m, r->src_ids, r->S, K, alpha, e)) { free(r->beam); r->beam = NULL; goto fail; }
        if (r->beam->choice >= 0) {
            int n = tf_beam_tokens(r->beam, r->beam->choice, r->tgt_ids + 1, c->max_len);
            r->stopped_on_eos = r->tgt_ids[n] == m->tgt_vocab.eos;
            r->T = 1 + n - r->stopped_on_eos;
        }
    }
    int greedy = r->greedy && !r->beam, W = tf_decode_limit(c, r->S);
    if (tf_acts_alloc(&r->acts, c, r->S, greedy ? c->max_len : r->T, e)) goto fail;
    tf_encode(&r->acts, m, r->src_ids, r->S);
    tf_decode(&r->acts, m, r->tgt_ids, r->T);
    // Greedy decoding: append the most probable next token until <eos> or the limit.
    while (greedy) {
        if (r->T - 1 >= W) break;
        int next = tf_model_next_token(m, r->acts.probs + (size_t)(r->T - 1) * c->V_tgt);
        if (next == m->tgt_vocab.eos) { r->stopped_on_eos = 1; break; }
        if (limit > 0 && r->T >= limit) break;
        r->tgt_ids[r->T++] = next;
        tf_decode_next(&r->acts, m, r->tgt_ids, r->T);
    }
    if (r->greedy)
        for (int t = 0; t < r->T; t++) {
            r->tgt_words[t] = strdup(m->tgt_vocab.tok[r->tgt_ids[t]]);
            if (!r->tgt_words[t]) { tf_fail(e, "out of memory"); goto fail; }
        }
    r->src_labels = malloc(sizeof(char *) * (size_t)r->S);
    r->tgt_labels = malloc(sizeof(char *) * (size_t)r->T);
    if (!r->src_labels || !r->tgt_labels) { tf_fail(e, "out of memory"); goto fail; }
    for (int i = 0; i < r->S; i++) r->src_labels[i] = m->src_vocab.tok[r->src_ids[i]];
    for (int i = 0; i < r->T; i++) r->tgt_labels[i] = m->tgt_vocab.tok[r->tgt_ids[i]];
    if (tf_trace_build(&r->trace, m, &r->acts, r->src_labels, r->tgt_labels, e)) goto fail;
    r->trace.beam = r->beam;
    return 0;
fail:
    tf_run_free(r);
    return -1;
}

int tf_run_sentence(tf_run *r, const tf_model *m, const char *src, const char *tgt, tf_err *e) {
    return run(r, m, src, tgt, 0, 0, 0, e);
}

int tf_run_greedy(tf_run *r, const tf_model *m, const char *src, int limit, tf_err *e) {
    return run(r, m, src, NULL, limit, 0, 0, e);
}

int tf_run_beam(tf_run *r, const tf_model *m, const char *src, int K, double alpha, tf_err *e) {
    if (tf_beam_check(m, K, alpha, e)) { memset(r, 0, sizeof *r); return -1; }
    return run(r, m, src, NULL, 0, K, alpha, e);
}

static char **copy_words(char *const *w, int n) {
    char **c = calloc((size_t)n + 1, sizeof *c);
    for (int i = 0; c && i < n; i++)
        if (!(c[i] = strdup(w[i]))) { tf_words_free(c, i); return NULL; }
    return c;
}

int tf_run_same_input(tf_run *r, const tf_model *m, const tf_run *like, tf_err *e) {
    const tf_config *c = &m->cfg;
    memset(r, 0, sizeof *r);
    r->S = like->S;
    r->T = like->T;
    r->n_src_unk = like->n_src_unk;
    r->n_tgt_unk = like->n_tgt_unk;
    r->greedy = like->greedy;
    r->stopped_on_eos = like->stopped_on_eos;
    r->src_ids = malloc(sizeof(int) * (size_t)r->S);
    r->tgt_ids = malloc(sizeof(int) * (size_t)r->T);
    r->src_labels = malloc(sizeof(char *) * (size_t)r->S);
    r->tgt_labels = malloc(sizeof(char *) * (size_t)r->T);
    r->src_words = copy_words(like->src_words, r->S);
    r->tgt_words = copy_words(like->tgt_words, r->T);
    if (!r->src_ids || !r->tgt_ids || !r->src_labels || !r->tgt_labels || !r->src_words || !r->tgt_words) {
        tf_fail(e, "out of memory");
        goto fail;
    }
    memcpy(r->src_ids, like->src_ids, sizeof(int) * (size_t)r->S);
    memcpy(r->tgt_ids, like->tgt_ids, sizeof(int) * (size_t)r->T);
    for (int i = 0; i < r->S; i++) r->src_labels[i] = m->src_vocab.tok[r->src_ids[i]];
    for (int i = 0; i < r->T; i++) r->tgt_labels[i] = m->tgt_vocab.tok[r->tgt_ids[i]];
    if (tf_acts_alloc(&r->acts, c, r->S, r->T, e)) goto fail;
    tf_encode(&r->acts, m, r->src_ids, r->S);
    tf_decode(&r->acts, m, r->tgt_ids, r->T);
    if (tf_trace_build(&r->trace, m, &r->acts, r->src_labels, r->tgt_labels, e)) goto fail;
    return 0;
fail:
    tf_run_free(r);
    return -1;
}

int tf_run_compare(tf_run *r, const tf_model *m, const tf_run *like, tf_err *e) {
    tf_model full = *m; // the same weights and vocabularies, every part switched on
    full.cfg.without = 0;
    return tf_run_same_input(r, &full, like, e);
}

void tf_run_free(tf_run *r) {
    tf_trace_free(&r->trace);
    tf_acts_free(&r->acts);
    if (r->src_words) tf_words_free(r->src_words, r->S);
    if (r->tgt_words) tf_words_free(r->tgt_words, r->T);
    free(r->src_ids);
    free(r->tgt_ids);
    free(r->src_labels);
    free(r->tgt_labels);
    if (r->beam) tf_beam_free(r->beam);
    free(r->beam);
    memset(r, 0, sizeof *r);
}

