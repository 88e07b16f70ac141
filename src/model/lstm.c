// lstm.c — the recurrent models the Transformer replaced, as the source
// documents describe them (DESIGN.md "Recurrent models"):
//   - the sequence-to-sequence LSTM of Sutskever, Vinyals and Le (2014) §2: an
//     encoder LSTM reads the source (reversed when reverse_source is 1), its
//     final (h, c) of every layer, the fixed-size v, starts a decoder LSTM of
//     the same depth, which predicts the target one token at a time;
//   - with attention = dot, Luong et al. (2015), global dot attention without
//     input feeding: scores_s = h_tᵀ h̄_s over the top encoder layer's states,
//     weights = softmax, context = Σ_s weights_s h̄_s, h̃_t = tanh(W_c [context ; h_t] + b_c),
//     and the output layer reads h̃_t.
// Each layer is torch.nn.LSTM's (gate order i, f, g, o):
//   i = σ(W_ii x + b_ii + W_hi h + b_hi)   f = σ(…)   g = tanh(…)   o = σ(…)
//   c_t = f ⊙ c_{t−1} + i ⊙ g              h_t = o ⊙ tanh(c_t)
// Letters here: S source length, T target length, E embed_dim, C hidden_size
// (DESIGN.md's H), L layers, V vocabulary. Rows are time steps in the order the
// network reads them.
#include "tf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_(s) (s) // words a learner reads: translated by src/render (make pot finds them)

// ---------------------------------------------------------------- activations
static float *take(float *base, size_t *used, size_t n) {
    float *p = base ? base + *used : NULL;
    *used += n;
    return p;
}

static void layer_layout(tf_lstm_acts *l, float *base, size_t *u, int X, int C) {
    l->i = take(base, u, (size_t)X * C);
    l->f = take(base, u, (size_t)X * C);
    l->g = take(base, u, (size_t)X * C);
    l->o = take(base, u, (size_t)X * C);
    l->c = take(base, u, (size_t)X * C);
    l->h = take(base, u, (size_t)X * C);
}

// The activations' places in one block (base NULL: only counts the floats).
size_t tf_lstm_acts_layout(tf_acts *a, const tf_config *c, float *base) {
    size_t u = 0;
    int S = a->S_cap, T = a->T_cap, C = c->C, L = c->L_enc, X = S > T ? S : T;
    a->src_embed = take(base, &u, (size_t)S * c->E);
    for (int l = 0; l < L; l++) layer_layout(&a->lenc[l], base, &u, S, C);
    a->final_h = take(base, &u, (size_t)L * C);
    a->final_c = take(base, &u, (size_t)L * C);
    a->tgt_embed = take(base, &u, (size_t)T * c->E);
    for (int l = 0; l < L; l++) layer_layout(&a->ldec[l], base, &u, T, C);
    if (c->attention == TF_RNN_ATTN_DOT) {
        a->attn_scores = take(base, &u, (size_t)T * S);
        a->attn_weights = take(base, &u, (size_t)T * S);
        a->attn_context = take(base, &u, (size_t)T * C);
        a->attn_out = take(base, &u, (size_t)T * C);
        a->top = a->attn_out;
    } else {
        a->attn_scores = a->attn_weights = a->attn_context = a->attn_out = NULL;
        a->top = a->ldec[L - 1].h;
    }
    a->logits = take(base, &u, (size_t)T * c->V_tgt);
    a->probs = take(base, &u, (size_t)T * c->V_tgt);
    a->gates = take(base, &u, (size_t)(X + 1) * 4 * C); // + one row: the recurrent product of a step
    return u;
}

// ---------------------------------------------------------------- forward
static inline float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

typedef float v8 __attribute__((vector_size(32), aligned(4), may_alias));

// W (n_out,n) @ x (n) + b -> out (n_out): one step's recurrent product, on
// this thread (a step is too small to share; the sentences of a batch are shared instead).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void matvec(float *out, const float *w, const float *x, const float *b, int n_out, int n) {
    int r = 0;
    for (; r + 4 <= n_out; r += 4) {
        const float *w0 = w + (size_t)r * n, *w1 = w0 + n, *w2 = w1 + n, *w3 = w2 + n;
        v8 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            v8 xv = *(const v8 *)(x + i);
            s0 += *(const v8 *)(w0 + i) * xv; s1 += *(const v8 *)(w1 + i) * xv;
            s2 += *(const v8 *)(w2 + i) * xv; s3 += *(const v8 *)(w3 + i) * xv;
        }
        float d[4];
        v8 *sv[4] = {&s0, &s1, &s2, &s3};
        for (int k = 0; k < 4; k++) {
            v8 v = *sv[k];
            d[k] = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
        }
        for (; i < n; i++) { d[0] += w0[i] * x[i]; d[1] += w1[i] * x[i]; d[2] += w2[i] * x[i]; d[3] += w3[i] * x[i]; }
        for (int k = 0; k < 4; k++) out[r + k] = tf_sat(d[k] + b[r + k]);
    }
    for (; r < n_out; r++) {
        float d = 0.0f;
        for (int i = 0; i < n; i++) d += w[(size_t)r * n + i] * x[i];
        out[r] = tf_sat(d + b[r]);
    }
}

// One torch.nn.LSTM layer over steps from … X−1 (the earlier ones already
// computed): x (X,n_in) from the state (h0, c0) (C each; NULL: zeros) -> la's
// gates, c and h (X,C). pre (X+1, 4C) is scratch.
static void layer_forward(tf_lstm_acts *la, float *pre, const tf_lstm_w *w, const float *x, const float *h0,
                          const float *c0, int from, int X, int n_in, int C) {
    float *rec = pre + (size_t)X * 4 * C;
    // pre (X,4C) = x (X,n_in) @ W_ihᵀ (n_in,4C) + b_ih: every step's input part at once
    tf_linear_fast(pre + (size_t)from * 4 * C, x + (size_t)from * n_in, w->w_ih, w->b_ih, X - from, n_in, 4 * C);
    for (int t = from; t < X; t++) {
        const float *hp = t ? la->h + (size_t)(t - 1) * C : h0, *cp = t ? la->c + (size_t)(t - 1) * C : c0;
        float *p = pre + (size_t)t * 4 * C;
        // rec (4C) = W_hh (4C,C) @ h_{t−1} (C) + b_hh
        if (hp) matvec(rec, w->w_hh, hp, w->b_hh, 4 * C, C);
        else memcpy(rec, w->b_hh, sizeof(float) * 4 * (size_t)C);
        float *i = la->i + (size_t)t * C, *f = la->f + (size_t)t * C, *g = la->g + (size_t)t * C, *o = la->o + (size_t)t * C;
        float *c = la->c + (size_t)t * C, *h = la->h + (size_t)t * C;
        for (int j = 0; j < C; j++) {
            i[j] = sigmoid(p[j] + rec[j]);
            f[j] = sigmoid(p[C + j] + rec[C + j]);
            g[j] = tanhf(p[2 * C + j] + rec[2 * C + j]);
            o[j] = sigmoid(p[3 * C + j] + rec[3 * C + j]);
            c[j] = tf_sat(f[j] * (cp ? cp[j] : 0.0f) + i[j] * g[j]);
            h[j] = o[j] * tanhf(c[j]);
        }
    }
}

// ids (X) -> out (X,E) = E[id]: no scaling, no positional encoding (the order is in the recurrence)
static void embed(float *out, const float *E, const int *ids, int X, int n) {
    for (int t = 0; t < X; t++) memcpy(out + (size_t)t * n, E + (size_t)ids[t] * n, sizeof(float) * (size_t)n);
}

void tf_lstm_encode(tf_acts *a, const tf_model *m, const int *src, int S) {
    const tf_config *c = &m->cfg;
    int C = c->C;
    a->S = S;
    embed(a->src_embed, m->src_embed, src, S, c->E);
    const float *x = a->src_embed;
    for (int l = 0; l < c->L_enc; l++) {
        tf_lstm_acts *la = &a->lenc[l];
        layer_forward(la, a->gates, &m->lenc[l], x, NULL, NULL, 0, S, l ? C : c->E, C);
        // v: the last step's state of every layer
        memcpy(a->final_h + (size_t)l * C, la->h + (size_t)(S - 1) * C, sizeof(float) * (size_t)C);
        memcpy(a->final_c + (size_t)l * C, la->c + (size_t)(S - 1) * C, sizeof(float) * (size_t)C);
        x = la->h;
    }
}

// Global dot attention (Luong et al. 2015 §3.1, "dot"), decoder steps
// from … T−1: ht (T,C) the top decoder layer, hs (S,C) the top encoder layer.
static void attention_forward(tf_acts *a, const tf_model *m, const float *ht, const float *hs, int from, int T, int S, int C) {
    float *cat = a->gates; // (T, 2C) scratch: [context ; h_t]
    // scores (T,S) = h_t · h̄_s
    tf_linear_fast(a->attn_scores + (size_t)from * S, ht + (size_t)from * C, hs, NULL, T - from, C, S);
    tf_softmax_rows(a->attn_weights + (size_t)from * S, a->attn_scores + (size_t)from * S, T - from, S);
    for (int t = from; t < T; t++) {
        // context_t (C) = Σ_s weights[t][s] · h̄_s
        float *ctx = a->attn_context + (size_t)t * C;
        memset(ctx, 0, sizeof(float) * (size_t)C);
        for (int s = 0; s < S; s++) {
            float w = a->attn_weights[(size_t)t * S + s];
            for (int j = 0; j < C; j++) ctx[j] += w * hs[(size_t)s * C + j];
        }
        memcpy(cat + (size_t)t * 2 * C, ctx, sizeof(float) * (size_t)C);
        memcpy(cat + (size_t)t * 2 * C + C, ht + (size_t)t * C, sizeof(float) * (size_t)C);
    }
    // h̃ (T,C) = tanh([context ; h_t] (T,2C) @ W_cᵀ (2C,C) + b_c)
    float *out = a->attn_out + (size_t)from * C;
    tf_linear_fast(out, cat + (size_t)from * 2 * C, m->attn_cw, m->attn_cb, T - from, 2 * C, C);
    for (size_t k = 0; k < (size_t)(T - from) * C; k++) out[k] = tanhf(out[k]);
}

// The decoder's steps from … T−1 (the earlier ones computed by an earlier call).
static void decode_from(tf_acts *a, const tf_model *m, const int *tgt, int from, int T) {
    const tf_config *c = &m->cfg;
    int C = c->C, S = a->S, L = c->L_dec, V = c->V_tgt;
    a->T = T;
    embed(a->tgt_embed + (size_t)from * c->E, m->tgt_embed, tgt + from, T - from, c->E);
    const float *x = a->tgt_embed;
    for (int l = 0; l < L; l++) { // layer l starts from the encoder's final state of layer l
        tf_lstm_acts *la = &a->ldec[l];
        layer_forward(la, a->gates, &m->ldec[l], x, a->final_h + (size_t)l * C, a->final_c + (size_t)l * C, from, T, l ? C : c->E, C);
        x = la->h;
    }
    if (c->attention == TF_RNN_ATTN_DOT) attention_forward(a, m, a->ldec[L - 1].h, a->lenc[c->L_enc - 1].h, from, T, S, C);
    // logits (T,V) = top (T,C) @ Gᵀ (C,V) + b; probs = softmax
    tf_linear_fast(a->logits + (size_t)from * V, a->top + (size_t)from * C, m->gen_w, m->gen_b, T - from, C, V);
    tf_softmax_rows(a->probs + (size_t)from * V, a->logits + (size_t)from * V, T - from, V);
}

void tf_lstm_decode(tf_acts *a, const tf_model *m, const int *tgt, int T) { decode_from(a, m, tgt, 0, T); }

void tf_decode_next(tf_acts *a, const tf_model *m, const int *tgt, int T) {
    if (m->cfg.arch == TF_ARCH_LSTM && T > 1 && a->T == T - 1) decode_from(a, m, tgt, T - 1, T); // one more step
    // the Transformer: every stage again, but the output layer (V columns) only for the new position,
    // which is all that changes there under the causal mask
    else if (T > 1 && a->T == T - 1 && !(m->cfg.without & TF_WITHOUT_MASK)) tf_decode_rows(a, m, tgt, T, T - 1);
    else tf_decode(a, m, tgt, T);
}

void tf_decode_continue_from(tf_acts *dst, const tf_acts *src, const tf_model *m, int T) {
    dst->T = T;
    if (m->cfg.arch != TF_ARCH_LSTM) return; // the Transformer recomputes every position from the tokens
    size_t n = (size_t)T * m->cfg.C;         // a recurrent model goes on from h and c of every decoder layer
    for (int l = 0; l < m->cfg.L_dec; l++) {
        memcpy(dst->ldec[l].h, src->ldec[l].h, sizeof(float) * n);
        memcpy(dst->ldec[l].c, src->ldec[l].c, sizeof(float) * n);
    }
}

void tf_source_order(const tf_config *c, int *ids, char **words, int S) {
    if (c->arch != TF_ARCH_LSTM || !c->reverse_source) return;
    int n = S - (c->src_append_eos ? 1 : 0); // <eos> stays last: it tells the encoder the sentence is over
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        int t = ids[i]; ids[i] = ids[j]; ids[j] = t;
        if (words) { char *w = words[i]; words[i] = words[j]; words[j] = w; }
    }
}

// ---------------------------------------------------------------- the trace
enum { ROWS_S, ROWS_T, ROWS_L, COLS_E, COLS_C, COLS_S, COLS_V };

typedef struct {
    const char *name;      // id suffix
    const char *title;
    const char *formula;
    tf_op op;
    int rows, cols;        // ROWS_*, COLS_*
    tf_kind kind;
} lstm_def;

// One LSTM layer's stages, in the order its formula computes them.
static const lstm_def layer_defs[] = {
    {"i", N_("Input gate"), "i_t = σ(W_ii x_t + b_ii + W_hi h_{t−1} + b_hi)", TF_OP_GATE_I, 0, COLS_C, TF_KIND_SIGNED},
    {"f", N_("Forget gate"), "f_t = σ(W_if x_t + b_if + W_hf h_{t−1} + b_hf)", TF_OP_GATE_F, 0, COLS_C, TF_KIND_SIGNED},
    {"g", N_("Cell candidate"), "g_t = tanh(W_ig x_t + b_ig + W_hg h_{t−1} + b_hg)", TF_OP_GATE_G, 0, COLS_C, TF_KIND_SIGNED},
    {"o", N_("Output gate"), "o_t = σ(W_io x_t + b_io + W_ho h_{t−1} + b_ho)", TF_OP_GATE_O, 0, COLS_C, TF_KIND_SIGNED},
    {"c", N_("Cell state"), "c_t = f_t ⊙ c_{t−1} + i_t ⊙ g_t", TF_OP_CELL, 0, COLS_C, TF_KIND_SIGNED},
    {"h", N_("Hidden state"), "h_t = o_t ⊙ tanh(c_t)", TF_OP_HIDDEN, 0, COLS_C, TF_KIND_SIGNED},
};

static const lstm_def src_def =
    {"src.embed", N_("Source embedding"), N_("E[token], read in the encoder's order (no scaling, no positional encoding)"), TF_OP_EMBED, ROWS_S, COLS_E, TF_KIND_SIGNED};
static const lstm_def final_defs[] = {
    {"enc.final.h", N_("Final hidden state (v)"), N_("h after the last source token, one row per layer: the fixed-size v handed to the decoder"), TF_OP_FINAL_H, ROWS_L, COLS_C, TF_KIND_SIGNED},
    {"enc.final.c", N_("Final cell state"), N_("c after the last source token, one row per layer: the decoder starts from it"), TF_OP_FINAL_C, ROWS_L, COLS_C, TF_KIND_SIGNED},
};
static const lstm_def tgt_def =
    {"tgt.embed", N_("Target embedding"), N_("E[token], inputs shifted right by <bos> (no scaling, no positional encoding)"), TF_OP_EMBED, ROWS_T, COLS_E, TF_KIND_SIGNED};
static const lstm_def attn_defs[] = {
    {"dec.attn.scores", N_("Attention scores"), N_("score(t, s) = h_tᵀ h̄_s  (top decoder layer · top encoder layer)"), TF_OP_SCORES, ROWS_T, COLS_S, TF_KIND_SIGNED},
    {"dec.attn.weights", N_("Attention weights"), N_("a_t = softmax(scores), each row sums to 1"), TF_OP_WEIGHTS, ROWS_T, COLS_S, TF_KIND_PROB},
    {"dec.attn.context", N_("Context vector"), "c_t = Σ_s a_t(s) h̄_s", TF_OP_CONTEXT, ROWS_T, COLS_C, TF_KIND_SIGNED},
    {"dec.attn.out", N_("Attentional hidden state"), "h̃_t = tanh(W_c [c_t ; h_t] + b_c)", TF_OP_OUT, ROWS_T, COLS_C, TF_KIND_SIGNED},
};
static const lstm_def out_defs[] = {
    {"out.logits", N_("Logits"), N_("h̃_t·W_genᵀ + b  (h_t of the top decoder layer when the model has no attention)"), TF_OP_LOGITS, ROWS_T, COLS_V, TF_KIND_SIGNED},
    {"out.probs", N_("Output probabilities"), N_("softmax(logits) over the vocabulary"), TF_OP_PROBS, ROWS_T, COLS_V, TF_KIND_PROB},
};

typedef struct {
    tf_trace *t;
    const tf_acts *a;
    const tf_config *c;
} lctx;

static void size_of(const lctx *x, int d, int *n, tf_axis *ax) {
    switch (d) {
    case ROWS_S: *n = x->a->S; *ax = TF_AXIS_SRC; return;
    case ROWS_T: *n = x->a->T; *ax = TF_AXIS_TGT; return;
    case ROWS_L: *n = x->c->L_enc; *ax = TF_AXIS_LAYER; return;
    case COLS_E: *n = x->c->E; *ax = TF_AXIS_DIM; return;
    case COLS_C: *n = x->c->C; *ax = TF_AXIS_DIM; return;
    case COLS_S: *n = x->a->S; *ax = TF_AXIS_SRC; return;
    default: *n = x->c->V_tgt; *ax = TF_AXIS_VOCAB; return;
    }
}

// Appends one stage (t->stages NULL only counts).
static void emit(lctx *x, const lstm_def *d, const char *id, tf_side side, int layer, tf_sublayer sub, int rows, const float *data) {
    tf_trace *t = x->t;
    if (t->stages) {
        tf_stage *s = &t->stages[t->n];
        snprintf(s->id, sizeof s->id, "%s", id);
        s->title = d->title;
        s->formula = d->formula;
        s->family = TF_FAMILY_LSTM;
        s->side = side;
        s->layer = layer;
        s->sublayer = sub;
        s->op = d->op;
        s->index = 0;
        s->head = -1;
        s->step = -1; // a stage holds every time step: one per row
        size_of(x, rows, &s->rows, &s->row_axis);
        size_of(x, d->cols, &s->cols, &s->col_axis);
        s->kind = d->kind;
        s->data = data;
    }
    t->n++;
}

static void emit_layer(lctx *x, const tf_lstm_acts *la, tf_side side, int l) {
    const float *data[6] = {la->i, la->f, la->g, la->o, la->c, la->h};
    char id[80];
    for (int k = 0; k < 6; k++) {
        snprintf(id, sizeof id, "%s.%d.%s", side == TF_SIDE_ENC ? "enc" : "dec", l, layer_defs[k].name);
        emit(x, &layer_defs[k], id, side, l, TF_SUB_RECURRENT, side == TF_SIDE_ENC ? ROWS_S : ROWS_T, data[k]);
    }
}

static void walk(lctx *x) {
    const tf_acts *a = x->a;
    emit(x, &src_def, src_def.name, TF_SIDE_SRC, -1, TF_SUB_NONE, ROWS_S, a->src_embed);
    for (int l = 0; l < x->c->L_enc; l++) emit_layer(x, &a->lenc[l], TF_SIDE_ENC, l);
    emit(x, &final_defs[0], final_defs[0].name, TF_SIDE_ENC, -1, TF_SUB_FINAL_STATE, ROWS_L, a->final_h);
    emit(x, &final_defs[1], final_defs[1].name, TF_SIDE_ENC, -1, TF_SUB_FINAL_STATE, ROWS_L, a->final_c);
    emit(x, &tgt_def, tgt_def.name, TF_SIDE_TGT, -1, TF_SUB_NONE, ROWS_T, a->tgt_embed);
    for (int l = 0; l < x->c->L_dec; l++) emit_layer(x, &a->ldec[l], TF_SIDE_DEC, l);
    if (x->c->attention == TF_RNN_ATTN_DOT) {
        const float *data[4] = {a->attn_scores, a->attn_weights, a->attn_context, a->attn_out};
        for (int k = 0; k < 4; k++) emit(x, &attn_defs[k], attn_defs[k].name, TF_SIDE_DEC, -1, TF_SUB_CROSS_ATTN, ROWS_T, data[k]);
    }
    emit(x, &out_defs[0], out_defs[0].name, TF_SIDE_OUT, -1, TF_SUB_NONE, ROWS_T, a->logits);
    emit(x, &out_defs[1], out_defs[1].name, TF_SIDE_OUT, -1, TF_SUB_NONE, ROWS_T, a->probs);
}

int tf_lstm_trace_build(tf_trace *t, const tf_model *m, const tf_acts *a) {
    lctx x = {.t = t, .a = a, .c = &m->cfg};
    t->n = 0;
    t->stages = NULL;
    walk(&x); // count
    int n = t->n;
    t->stages = calloc((size_t)n, sizeof *t->stages);
    if (!t->stages) return -1;
    t->n = 0;
    walk(&x); // fill
    return 0;
}
