// lstm_backward.c — backpropagation through time for the recurrent models of
// src/model/lstm.c: the output layer, Luong's dot attention, every decoder
// layer from the top, the decoder's start state back into the encoder's final
// state (v), every encoder layer from the top, the embeddings. Each step names
// the forward line it undoes; gradients are added (+=) into their outputs.
// Letters: S, T source and target steps, E embed_dim, C hidden_size, V vocabulary;
// d<name> is ∂loss/∂<name>.
#include "train.h"
#include "vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


// ---------------------------------------------------------------- deferred weight gradients
// Rows of one product y = x Wᵀ + b: the gradients dy and the inputs x.
typedef struct {
    int n_out, n_in, n;   // row widths; rows kept
    size_t cap;           // rows allocated
    float *dy, *x;        // (cap, n_out) (cap, n_in)
} rows;

struct tf_lstm_defer {
    int L;
    rows *ih, *hh;        // (2L) encoder layers then decoder layers: dpre with x, dpre with h_{t−1}
    rows gen;             // dlogits with the output layer's input
};

static void rows_add(rows *r, const float *dy, const float *x, int n) {
    if ((size_t)r->n + (size_t)n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        while (cap < (size_t)r->n + (size_t)n) cap *= 2;
        float *a = realloc(r->dy, sizeof(float) * cap * (size_t)r->n_out), *b = a ? realloc(r->x, sizeof(float) * cap * (size_t)r->n_in) : NULL;
        if (a) r->dy = a;
        if (!a || !b) TF_OOM();
        r->x = b;
        r->cap = cap;
    }
    memcpy(r->dy + (size_t)r->n * r->n_out, dy, sizeof(float) * (size_t)n * r->n_out);
    if (x) memcpy(r->x + (size_t)r->n * r->n_in, x, sizeof(float) * (size_t)n * r->n_in);
    else memset(r->x + (size_t)r->n * r->n_in, 0, sizeof(float) * (size_t)n * r->n_in); // (a zero start state)
    r->n += n;
}

tf_lstm_defer *tf_lstm_defer_new(const tf_model *m) {
    const tf_config *c = &m->cfg;
    tf_lstm_defer *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->L = c->L_enc;
    f->ih = calloc((size_t)2 * f->L, sizeof *f->ih);
    f->hh = calloc((size_t)2 * f->L, sizeof *f->hh);
    if (!f->ih || !f->hh) { tf_lstm_defer_free(f); return NULL; }
    for (int k = 0; k < 2 * f->L; k++) {
        f->ih[k] = (rows){4 * c->C, k % f->L ? c->C : c->E, 0, 0, NULL, NULL};
        f->hh[k] = (rows){4 * c->C, c->C, 0, 0, NULL, NULL};
    }
    f->gen = (rows){c->V_tgt, c->C, 0, 0, NULL, NULL};
    return f;
}

void tf_lstm_defer_free(tf_lstm_defer *f) {
    if (!f) return;
    for (int k = 0; f->ih && k < 2 * f->L; k++) { free(f->ih[k].dy); free(f->ih[k].x); }
    for (int k = 0; f->hh && k < 2 * f->L; k++) { free(f->hh[k].dy); free(f->hh[k].x); }
    free(f->ih);
    free(f->hh);
    free(f->gen.dy);
    free(f->gen.x);
    free(f);
}

void tf_lstm_defer_flush(tf_lstm_defer *f, tf_model *g, const tf_model *m) {
    for (int k = 0; k < 2 * f->L; k++) {
        tf_lstm_w *gw = k < f->L ? &g->lenc[k] : &g->ldec[k - f->L];
        const tf_lstm_w *w = k < f->L ? &m->lenc[k] : &m->ldec[k - f->L];
        // forward was: pre = x W_ihᵀ + b_ih + h_{t−1} W_hhᵀ + b_hh, for every step of every pair
        tf_linear_backward(NULL, gw->w_ih, gw->b_ih, f->ih[k].dy, f->ih[k].x, w->w_ih, f->ih[k].n, f->ih[k].n_in, f->ih[k].n_out);
        tf_linear_backward(NULL, gw->w_hh, gw->b_hh, f->hh[k].dy, f->hh[k].x, w->w_hh, f->hh[k].n, f->hh[k].n_in, f->hh[k].n_out);
        f->ih[k].n = f->hh[k].n = 0;
    }
    // forward was: logits = top Gᵀ + b
    tf_linear_backward(NULL, g->gen_w, g->gen_b, f->gen.dy, f->gen.x, m->gen_w, f->gen.n, f->gen.n_in, f->gen.n_out);
    f->gen.n = 0;
}

// One layer over X steps, backwards. On entry dh (X,C) holds ∂loss/∂h_t from
// above (the next layer, the attention, the output layer); dh_last and
// dc_last (C, or NULL) what flows into the last step's h and c from outside
// (the decoder's start state, for the encoder). x (X,n_in) and (h0, c0) (NULL:
// zeros) are what the forward read. Adds the weights' gradients into gw and
// ∂loss/∂x into dx (X,n_in); ∂loss/∂h0 and ∂loss/∂c0 into dh0, dc0 (C, or NULL).
// dpre (X,4C) and carry (2C) are scratch. With defer (ih, hh) the weights'
// gradients are kept there as rows instead.
CLONES static void layer_backward(tf_lstm_w *gw, rows *ih, rows *hh, float *dx, float *dh0, float *dc0, float *dpre, float *carry,
                           const tf_lstm_acts *la, const float *dh, const float *dh_last, const float *dc_last,
                           const tf_lstm_w *w, const float *x, const float *h0, const float *c0, int X, int n_in, int C) {
    float *dh_next = carry, *dc_next = carry + C; // ∂loss/∂h_t and ∂loss/∂c_t arriving from step t+1
    for (int j = 0; j < C; j++) {
        dh_next[j] = dh_last ? dh_last[j] : 0.0f;
        dc_next[j] = dc_last ? dc_last[j] : 0.0f;
    }
    for (int t = X - 1; t >= 0; t--) {
        const float *i = la->i + (size_t)t * C, *f = la->f + (size_t)t * C, *g = la->g + (size_t)t * C, *o = la->o + (size_t)t * C;
        const float *c = la->c + (size_t)t * C, *cp = t ? la->c + (size_t)(t - 1) * C : c0;
        float *p = dpre + (size_t)t * 4 * C;
        for (int j = 0; j < C; j++) {
            float dht = dh[(size_t)t * C + j] + dh_next[j], tc = tanhf(c[j]);
            // forward was: h_t = o ⊙ tanh(c_t)
            float dot_ = dht * tc, dct = dc_next[j] + dht * o[j] * (1.0f - tc * tc);
            // forward was: c_t = f ⊙ c_{t−1} + i ⊙ g
            float dft = dct * (cp ? cp[j] : 0.0f), dit = dct * g[j], dgt = dct * i[j];
            dc_next[j] = dct * f[j];
            // the gates' pre-activations: σ' = σ(1 − σ), tanh' = 1 − tanh²
            p[j] = dit * i[j] * (1.0f - i[j]);
            p[C + j] = dft * f[j] * (1.0f - f[j]);
            p[2 * C + j] = dgt * (1.0f - g[j] * g[j]);
            p[3 * C + j] = dot_ * o[j] * (1.0f - o[j]);
        }
        // forward was: pre = … + W_hh h_{t−1} + b_hh   ->   dh_{t−1} = W_hhᵀ dpre_t
        memset(dh_next, 0, sizeof(float) * (size_t)C);
        for (int r = 0; r < 4 * C; r++) if (p[r] != 0.0f) axpy(dh_next, p[r], w->w_hh + (size_t)r * C, C);
    }
    if (dh0) for (int j = 0; j < C; j++) dh0[j] += dh_next[j];
    if (dc0) for (int j = 0; j < C; j++) dc0[j] += dc_next[j];
    // forward was: pre (X,4C) = x W_ihᵀ + b_ih + h_prev W_hhᵀ + b_hh, h_prev = [h0 ; h_0 … h_{X−2}]
    if (ih) { // dx now; the weights' share later, with every other pair's rows
        tf_linear_backward(dx, NULL, NULL, dpre, x, w->w_ih, X, n_in, 4 * C);
        rows_add(ih, dpre, x, X);
        rows_add(hh, dpre, h0, 1);
        if (X > 1) rows_add(hh, dpre + 4 * (size_t)C, la->h, X - 1);
        return;
    }
    tf_linear_backward(dx, gw->w_ih, gw->b_ih, dpre, x, w->w_ih, X, n_in, 4 * C);
    tf_linear_backward(NULL, gw->w_hh, gw->b_hh, dpre + 4 * (size_t)C, la->h, w->w_hh, X - 1, C, 4 * C);
    if (h0) tf_linear_backward(NULL, gw->w_hh, NULL, dpre, h0, w->w_hh, 1, C, 4 * C);
    for (int r = 0; r < 4 * C; r++) gw->b_hh[r] += dpre[r]; // (step 0's share of b_hh)
}

// forward was: out (X,E) = E[ids]
static void embed_backward(float *gE, const float *dout, const int *ids, int X, int E) {
    for (int t = 0; t < X; t++) axpy(gE + (size_t)ids[t] * E, 1.0f, dout + (size_t)t * E, E);
}

CLONES void tf_lstm_backward(tf_model *g, tf_acts *d, const tf_acts *a, const tf_model *m, const int *src, const int *tgt,
                             tf_lstm_defer *f) {
    const tf_config *c = &m->cfg;
    int S = a->S, T = a->T, C = c->C, E = c->E, L = c->L_enc, V = c->V_tgt;
    const float *hs = a->lenc[L - 1].h, *ht = a->ldec[L - 1].h; // top encoder and decoder layers (S,C) (T,C)
    // forward was: logits (T,V) = top (T,C) Gᵀ + b
    tf_linear_backward(d->top, f ? NULL : g->gen_w, f ? NULL : g->gen_b, d->logits, a->top, m->gen_w, T, C, V);
    if (f) rows_add(&f->gen, d->logits, a->top, T);
    if (c->attention == TF_RNN_ATTN_DOT) {
        float *cat = d->gates, *dcat = d->gates + (size_t)T * 2 * C; // (T,2C) each
        float *dht = d->ldec[L - 1].h, *dhs = d->lenc[L - 1].h, *dctx = d->attn_context, *dw = d->attn_weights, *dsc = d->attn_scores;
        // forward was: h̃ = tanh(z), z = [context ; h_t] W_cᵀ + b_c
        for (size_t k = 0; k < (size_t)T * C; k++) d->attn_out[k] *= 1.0f - a->attn_out[k] * a->attn_out[k];
        for (int t = 0; t < T; t++) {
            memcpy(cat + (size_t)t * 2 * C, a->attn_context + (size_t)t * C, sizeof(float) * (size_t)C);
            memcpy(cat + (size_t)t * 2 * C + C, ht + (size_t)t * C, sizeof(float) * (size_t)C);
        }
        memset(dcat, 0, sizeof(float) * (size_t)T * 2 * C);
        tf_linear_backward(dcat, g->attn_cw, g->attn_cb, d->attn_out, cat, m->attn_cw, T, 2 * C, C);
        for (int t = 0; t < T; t++) {
            axpy(dctx + (size_t)t * C, 1.0f, dcat + (size_t)t * 2 * C, C);
            axpy(dht + (size_t)t * C, 1.0f, dcat + (size_t)t * 2 * C + C, C);
        }
        for (int t = 0; t < T; t++) {
            const float *wt = a->attn_weights + (size_t)t * S, *dct = dctx + (size_t)t * C;
            float *dwt = dw + (size_t)t * S, *dst = dsc + (size_t)t * S;
            // forward was: context_t = Σ_s w_ts h̄_s
            for (int s = 0; s < S; s++) {
                dwt[s] += dotv(dct, hs + (size_t)s * C, C);
                axpy(dhs + (size_t)s * C, wt[s], dct, C);
            }
            // forward was: w_t = softmax(scores_t)   ->   dscore = w ⊙ (dw − Σ w dw)
            float sum = 0.0f;
            for (int s = 0; s < S; s++) sum += wt[s] * dwt[s];
            for (int s = 0; s < S; s++) dst[s] += wt[s] * (dwt[s] - sum);
            // forward was: scores_ts = h_t · h̄_s
            for (int s = 0; s < S; s++) {
                axpy(dht + (size_t)t * C, dst[s], hs + (size_t)s * C, C);
                axpy(dhs + (size_t)s * C, dst[s], ht + (size_t)t * C, C);
            }
        }
    }
    float *carry = d->gates + (size_t)(a->S_cap > a->T_cap ? a->S_cap : a->T_cap) * 4 * C; // the scratch row
    // the decoder, from the top; layer l started from the encoder's final state of layer l
    for (int l = L - 1; l >= 0; l--) {
        const float *x = l ? a->ldec[l - 1].h : a->tgt_embed;
        float *dx = l ? d->ldec[l - 1].h : d->tgt_embed;
        layer_backward(&g->ldec[l], f ? &f->ih[L + l] : NULL, f ? &f->hh[L + l] : NULL, dx, d->final_h + (size_t)l * C, d->final_c + (size_t)l * C, d->gates, carry, &a->ldec[l],
                       d->ldec[l].h, NULL, NULL, &m->ldec[l], x, a->final_h + (size_t)l * C, a->final_c + (size_t)l * C, T,
                       l ? C : E, C);
    }
    embed_backward(g->tgt_embed, d->tgt_embed, tgt, T, E);
    // the encoder, from the top; v (its last state) carries the decoder's gradient in
    for (int l = L - 1; l >= 0; l--) {
        const float *x = l ? a->lenc[l - 1].h : a->src_embed;
        float *dx = l ? d->lenc[l - 1].h : d->src_embed;
        layer_backward(&g->lenc[l], f ? &f->ih[l] : NULL, f ? &f->hh[l] : NULL, dx, NULL, NULL, d->gates, carry, &a->lenc[l], d->lenc[l].h, d->final_h + (size_t)l * C,
                       d->final_c + (size_t)l * C, &m->lenc[l], x, NULL, NULL, S, l ? C : E, C);
    }
    embed_backward(g->src_embed, d->src_embed, src, S, E);
}
