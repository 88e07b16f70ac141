// train.c — one training step: forward and backward over a batch, then Adam
// with the warm-up schedule (§5.3), label smoothing and dropout (§5.4).
#include "train.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

struct tf_workspace {
    tf_acts a, d;      // activations and their gradients, max_len tokens each side
    float *masks;      // dropout masks, one block
    tf_model grad;     // this thread's share of the gradient
    double loss;
    tf_lstm_defer *defer; // a recurrent model: its weight gradients summed once per batch
};

void tf_train_defaults(tf_train_cfg *c) {
    c->label_smoothing = 0.1f;
    c->dropout = 0.1f;
    c->beta1 = 0.9f;
    c->beta2 = 0.98f;
    c->adam_eps = 1e-9f;
    c->warmup = 4000;
    c->lr_scale = 1.0f;
    c->threads = 1;
    c->seed = 1;
    c->clip_norm = 0.0f;
    c->lr_const = 0.0f;
}

double tf_lr(const tf_train_cfg *c, int d_model, int step) {
    if (c->lr_const > 0.0f) return c->lr_const;
    double s = step < 1 ? 1 : step, wu = c->warmup < 1 ? 1 : c->warmup;
    return c->lr_scale * pow(d_model, -0.5) * fmin(pow(s, -0.5), s * pow(wu, -1.5));
}

// Lays the dropout masks of one workspace over its block (base NULL: counts).
static size_t mask_layout(tf_workspace *w, const tf_config *c, float *base) {
    size_t used = 0, sc = (size_t)w->a.S_cap * c->C, tc = (size_t)w->a.T_cap * c->C;
#define TAKE(p, n) ((p) = base ? base + used : NULL, used += (n))
    TAKE(w->a.src_drop, sc);
    TAKE(w->a.tgt_drop, tc);
    for (int l = 0; l < c->L_enc; l++) { TAKE(w->a.enc[l].drop1, sc); TAKE(w->a.enc[l].drop2, sc); }
    for (int l = 0; l < c->L_dec; l++) {
        TAKE(w->a.dec[l].drop1, tc); TAKE(w->a.dec[l].drop2, tc); TAKE(w->a.dec[l].drop3, tc);
    }
#undef TAKE
    return used;
}

// Turns the masks on (dropout) or off (NULL pointers: the plain forward).
static void masks_on(tf_workspace *w, const tf_config *c, int on) {
    if (on) { mask_layout(w, c, w->masks); return; }
    w->a.src_drop = w->a.tgt_drop = NULL;
    for (int l = 0; l < c->L_enc; l++) w->a.enc[l].drop1 = w->a.enc[l].drop2 = NULL;
    for (int l = 0; l < c->L_dec; l++) w->a.dec[l].drop1 = w->a.dec[l].drop2 = w->a.dec[l].drop3 = NULL;
}

// Masks for one sentence: 0 with probability p, else 1/(1−p) (inverted dropout).
static void fill(float *m, size_t n, float p, tf_rng *r) {
    float keep = 1.0f / (1.0f - p);
    for (size_t i = 0; i < n; i++) m[i] = tf_rng_uniform(r) < p ? 0.0f : keep;
}

static void fill_masks(tf_workspace *w, const tf_config *c, int S, int T, float p, tf_rng *r) {
    size_t s = (size_t)S * c->C, t = (size_t)T * c->C;
    fill(w->a.src_drop, s, p, r);
    fill(w->a.tgt_drop, t, p, r);
    for (int l = 0; l < c->L_enc; l++) { fill(w->a.enc[l].drop1, s, p, r); fill(w->a.enc[l].drop2, s, p, r); }
    for (int l = 0; l < c->L_dec; l++) {
        fill(w->a.dec[l].drop1, t, p, r); fill(w->a.dec[l].drop2, t, p, r); fill(w->a.dec[l].drop3, t, p, r);
    }
}

int tf_trainer_init(tf_trainer *t, tf_model *m, const tf_train_cfg *cfg, tf_err *e) {
    memset(t, 0, sizeof *t);
    t->m = m;
    t->cfg = *cfg;
    const tf_config *c = &m->cfg;
    if (!m->owned || m->map) return tf_fail(e, "the model's weights are not in one writable block; copy it with tf_model_clone first");
    if (tf_model_clone(&t->grad, m, e)) return -1;
    size_t n = m->n_params;
    t->adam_m = calloc(n, sizeof(float));
    t->adam_v = calloc(n, sizeof(float));
    t->n_ws = cfg->threads < 1 ? 1 : cfg->threads;
    t->ws = calloc((size_t)t->n_ws, sizeof *t->ws);
    if (!t->adam_m || !t->adam_v || !t->ws) goto oom;
    for (int k = 0; k < t->n_ws; k++) {
        tf_workspace *w = &t->ws[k];
        if (tf_acts_alloc(&w->a, c, c->max_len, c->max_len, e) || tf_acts_alloc(&w->d, c, c->max_len, c->max_len, e) ||
            tf_model_clone(&w->grad, m, e)) { tf_trainer_free(t); return -1; }
        if (c->arch == TF_ARCH_LSTM) { // (no dropout in the recurrent models)
            if (!(w->defer = tf_lstm_defer_new(m))) goto oom;
            continue;
        }
        w->masks = malloc(sizeof(float) * mask_layout(w, c, NULL));
        if (!w->masks) goto oom;
        masks_on(w, c, 0);
    }
    return 0;
oom:
    tf_trainer_free(t);
    return tf_fail(e, "out of memory for training");
}

void tf_trainer_free(tf_trainer *t) {
    for (int k = 0; t->ws && k < t->n_ws; k++) {
        tf_acts_free(&t->ws[k].a);
        tf_acts_free(&t->ws[k].d);
        free(t->ws[k].masks);
        tf_lstm_defer_free(t->ws[k].defer);
        tf_model_free(&t->ws[k].grad);
    }
    free(t->ws);
    tf_model_free(&t->grad);
    free(t->adam_m);
    free(t->adam_v);
    memset(t, 0, sizeof *t);
}

static int check_example(const tf_example *x, const tf_config *c, int i, tf_err *e) {
    if (x->S < 1 || x->S > c->max_len || x->T < 1 || x->T > c->max_len)
        return tf_fail(e, "sentence pair %d has %d source and %d target tokens; this model takes 1 to %d", i + 1, x->S,
                       x->T, c->max_len);
    for (int j = 0; j < x->S; j++)
        if (x->src[j] < 0 || x->src[j] >= c->V_src) return tf_fail(e, "sentence pair %d: source token id %d is outside the vocabulary", i + 1, x->src[j]);
    for (int j = 0; j < x->T; j++)
        if (x->tgt[j] < 0 || x->tgt[j] >= c->V_tgt || x->out[j] < 0 || x->out[j] >= c->V_tgt)
            return tf_fail(e, "sentence pair %d: a target token id is outside the vocabulary", i + 1);
    return 0;
}

// A seed for sentence i of the current step: masks do not depend on which
// thread runs the sentence.
static uint64_t sentence_seed(uint64_t seed, int step, int i) {
    uint64_t h = seed ^ 0x9E3779B97F4A7C15ull * (uint64_t)(step + 1);
    h ^= (uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

int tf_train_grad(tf_trainer *t, const tf_example *batch, int n, int dropout_on, double *loss, int *n_tokens, tf_err *e) {
    const tf_model *m = t->m;
    const tf_config *c = &m->cfg;
    int N = 0;
    for (int i = 0; i < n; i++) {
        if (check_example(&batch[i], c, i, e)) return -1;
        N += batch[i].T;
    }
    if (N == 0) return tf_fail(e, "the batch is empty");
    float scale = 1.0f / (float)N;
    int lstm = c->arch == TF_ARCH_LSTM, drop = dropout_on && t->cfg.dropout > 0.0f && !lstm;
    int nw = t->n_ws < n ? t->n_ws : n;
    // Sentence i goes to thread i·nw/n: the same split for a given thread count.
#pragma omp parallel num_threads(nw)
    {
        int k = omp_get_thread_num();
        tf_workspace *w = &t->ws[k];
        memset(w->grad.owned, 0, sizeof(float) * m->n_params);
        w->loss = 0.0;
        if (!lstm) masks_on(w, c, drop);
        for (int i = k * n / nw; i < (k + 1) * n / nw; i++) {
            const tf_example *x = &batch[i];
            if (drop) {
                tf_rng r;
                tf_rng_seed(&r, sentence_seed(t->cfg.seed, t->step, i));
                fill_masks(w, c, x->S, x->T, t->cfg.dropout, &r);
            }
            tf_encode(&w->a, m, x->src, x->S);
            tf_decode(&w->a, m, x->tgt, x->T);
            memset(w->d.block, 0, sizeof(float) * w->d.n_floats);
            w->d.S = x->S;
            w->d.T = x->T;
            w->loss += tf_xent_backward(w->d.logits, w->a.logits, x->out, x->T, c->V_tgt, t->cfg.label_smoothing, scale);
            if (lstm) tf_lstm_backward(&w->grad, &w->d, &w->a, m, x->src, x->tgt, w->defer);
            else tf_backward(&w->grad, &w->d, &w->a, m, x->src, x->tgt);
        }
        if (lstm) tf_lstm_defer_flush(w->defer, &w->grad, m);
        else masks_on(w, c, 0);
    }
    // Sum the threads' shares in a fixed order.
    memcpy(t->grad.owned, t->ws[0].grad.owned, sizeof(float) * m->n_params);
    double total = t->ws[0].loss;
    for (int k = 1; k < nw; k++) {
        tf_add(t->grad.owned, t->grad.owned, t->ws[k].grad.owned, (int)m->n_params);
        total += t->ws[k].loss;
    }
    *loss = total / N;
    if (n_tokens) *n_tokens = N;
    return 0;
}

void tf_adam_step(tf_trainer *t) {
    const tf_train_cfg *c = &t->cfg;
    // gradient-norm clipping (Sutskever et al. §3.4): g ·= clip / ‖g‖ when ‖g‖ > clip
    double sq = 0.0;
    for (size_t i = 0; i < t->m->n_params; i++) sq += (double)t->grad.owned[i] * t->grad.owned[i];
    t->grad_norm = sqrt(sq);
    double k = c->clip_norm / (t->grad_norm + 1e-6); // (as torch.nn.utils.clip_grad_norm_)
    if (c->clip_norm > 0.0f && k < 1.0)
        for (size_t i = 0; i < t->m->n_params; i++) t->grad.owned[i] *= (float)k;
    t->step++;
    double lr = tf_lr(c, t->m->cfg.C, t->step);
    // θ −= lr · m̂ / (√v̂ + ε), m̂ and v̂ the bias-corrected moments (Kingma & Ba; torch.optim.Adam)
    double bc1 = 1.0 - pow(c->beta1, t->step), bc2 = 1.0 - pow(c->beta2, t->step);
    float step_size = (float)(lr / bc1), rbc2 = (float)(1.0 / sqrt(bc2));
    float b1 = c->beta1, b2 = c->beta2, eps = c->adam_eps;
    float *p = t->m->owned, *g = t->grad.owned, *mm = t->adam_m, *vv = t->adam_v;
    for (size_t i = 0; i < t->m->n_params; i++) {
        mm[i] = b1 * mm[i] + (1.0f - b1) * g[i];
        vv[i] = b2 * vv[i] + (1.0f - b2) * g[i] * g[i];
        p[i] -= step_size * mm[i] / (sqrtf(vv[i]) * rbc2 + eps);
    }
}
