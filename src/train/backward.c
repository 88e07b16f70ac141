// backward.c — the gradient of every operation of the forward pass, in the
// order of src/model/ops.c and model.c. Each function names the forward line
// it undoes. Gradients are added (+=) into their outputs, so a value used
// twice (a residual input, the memory read by every decoder layer, the tied
// target embedding) collects both uses.
// Letters: S, T, C, H, D, F, V as in tf.h; d<name> is ∂loss/∂<name>.
#include "train.h"
#include "vec.h"

#include <math.h>
#include <string.h>

#define splat(a) ((v8){(a), (a), (a), (a), (a), (a), (a), (a)}) // a: a plain load, evaluated once per lane

// undoes tf_linear: out (T,n_out) = x (T,n_in) Wᵀ + b
//   dx += dout W;  dW += doutᵀ x;  db += Σ_t dout   (dx, dW, db may be NULL)
CLONES
static void linear_backward(float *dx, float *dw, float *db, const float *dout, const float *x, const float *w,
                            int T, int n_in, int n_out) {
    if (db)
        for (int t = 0; t < T; t++)
            for (int o = 0; o < n_out; o++) db[o] += dout[(size_t)t * n_out + o];
    // dW: tiles of 4 rows × 16 columns summed over every token in registers,
    // then added once (the weights are written once per call, not per token)
    int o = dw ? 0 : n_out; // (dw NULL: dx alone)
    for (; o + 4 <= n_out; o += 4) {
        int i = 0;
        for (; i + 16 <= n_in; i += 16) {
            v8 a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0}, c0 = {0}, c1 = {0}, d0 = {0}, d1 = {0};
            for (int t = 0; t < T; t++) {
                const float *xt = x + (size_t)t * n_in + i, *g = dout + (size_t)t * n_out + o;
                v8 x0 = *(const v8 *)xt, x1 = *(const v8 *)(xt + 8), gk;
                gk = splat(g[0]); a0 += gk * x0; a1 += gk * x1;
                gk = splat(g[1]); b0 += gk * x0; b1 += gk * x1;
                gk = splat(g[2]); c0 += gk * x0; c1 += gk * x1;
                gk = splat(g[3]); d0 += gk * x0; d1 += gk * x1;
            }
            float *r = dw + (size_t)o * n_in + i;
            *(v8 *)r += a0; *(v8 *)(r + 8) += a1; r += n_in;
            *(v8 *)r += b0; *(v8 *)(r + 8) += b1; r += n_in;
            *(v8 *)r += c0; *(v8 *)(r + 8) += c1; r += n_in;
            *(v8 *)r += d0; *(v8 *)(r + 8) += d1;
        }
        for (; i < n_in; i++)
            for (int k = 0; k < 4; k++) {
                float sum = 0.0f;
                for (int t = 0; t < T; t++) sum += dout[(size_t)t * n_out + o + k] * x[(size_t)t * n_in + i];
                dw[(size_t)(o + k) * n_in + i] += sum;
            }
    }
    for (; o < n_out; o++)
        for (int t = 0; t < T; t++) {
            float g = dout[(size_t)t * n_out + o];
            if (g != 0.0f) axpy(dw + (size_t)o * n_in, g, x + (size_t)t * n_in, n_in);
        }
    if (!dx) return;
    // dx: tiles of 4 tokens × 16 columns summed over every output in registers
    int t = 0;
    for (; t + 4 <= T; t += 4) {
        const float *g = dout + (size_t)t * n_out;
        int i = 0;
        for (; i + 16 <= n_in; i += 16) {
            v8 a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0}, c0 = {0}, c1 = {0}, d0 = {0}, d1 = {0};
            for (int k = 0; k < n_out; k++) {
                const float *wk = w + (size_t)k * n_in + i;
                v8 w0 = *(const v8 *)wk, w1 = *(const v8 *)(wk + 8), gk;
                gk = splat(g[k]); a0 += gk * w0; a1 += gk * w1;
                gk = splat(g[n_out + k]); b0 += gk * w0; b1 += gk * w1;
                gk = splat(g[2 * (size_t)n_out + k]); c0 += gk * w0; c1 += gk * w1;
                gk = splat(g[3 * (size_t)n_out + k]); d0 += gk * w0; d1 += gk * w1;
            }
            float *r = dx + (size_t)t * n_in + i;
            *(v8 *)r += a0; *(v8 *)(r + 8) += a1; r += n_in;
            *(v8 *)r += b0; *(v8 *)(r + 8) += b1; r += n_in;
            *(v8 *)r += c0; *(v8 *)(r + 8) += c1; r += n_in;
            *(v8 *)r += d0; *(v8 *)(r + 8) += d1;
        }
        for (; i < n_in; i++)
            for (int q = 0; q < 4; q++) {
                float sum = 0.0f;
                for (int k = 0; k < n_out; k++) sum += g[(size_t)q * n_out + k] * w[(size_t)k * n_in + i];
                dx[(size_t)(t + q) * n_in + i] += sum;
            }
    }
    for (; t < T; t++) {
        const float *g = dout + (size_t)t * n_out;
        for (int k = 0; k < n_out; k++)
            if (g[k] != 0.0f) axpy(dx + (size_t)t * n_in, g[k], w + (size_t)k * n_in, n_in);
    }
}

// undoes tf_layernorm: out = (x − mean) / √(var + eps) · w + b, per row of x (T,C)
//   with x̂ = (x − mean)·rstd and g = dout ⊙ w:
//   dx += rstd · (g − mean(g) − x̂ · mean(g ⊙ x̂));  dw += Σ_t dout ⊙ x̂;  db += Σ_t dout
static void layernorm_backward(float *dx, float *dw, float *db, const float *dout, const float *x, const float *w,
                               float eps, int T, int C) {
    for (int t = 0; t < T; t++) {
        const float *xt = x + (size_t)t * C, *dy = dout + (size_t)t * C;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < C; c++) mean += xt[c];
        mean /= C;
        for (int c = 0; c < C; c++) { double dd = xt[c] - mean; var += dd * dd; }
        var /= C;
        float rstd = (float)(1.0 / sqrt(var + eps));
        double mg = 0.0, mgx = 0.0;
        for (int c = 0; c < C; c++) {
            float xh = (float)(xt[c] - mean) * rstd, g = dy[c] * w[c];
            mg += g;
            mgx += g * xh;
            dw[c] += dy[c] * xh;
            db[c] += dy[c];
        }
        mg /= C;
        mgx /= C;
        float *dxt = dx + (size_t)t * C;
        for (int c = 0; c < C; c++) {
            float xh = (float)(xt[c] - mean) * rstd;
            dxt[c] += rstd * (dy[c] * w[c] - (float)mg - xh * (float)mgx);
        }
    }
}

// undoes residual() in model.c: add = x + sub ⊙ mask (without the residual: add = sub ⊙ mask)
//   dx += dadd (with the residual);  dsub = dadd ⊙ mask (mask NULL: no dropout)
static void residual_backward(float *dx, float *dsub, const float *dadd, const float *mask, int with_residual, int n) {
    for (int i = 0; i < n; i++) {
        if (with_residual) dx[i] += dadd[i];
        dsub[i] = mask ? dadd[i] * mask[i] : dadd[i];
    }
}

// undoes tf_attention (ops.c), line by line from the bottom. d->out holds
// dout on entry; d's other fields are scratch of the same shapes (zeroed):
// d->concat, d->weights (dweights), d->scores (dscores), d->q, d->k, d->v.
// For self-attention dxq and dxkv are the same buffer.
static void attention_backward(tf_attn_w *g, float *dxq, float *dxkv, tf_attn_acts *d, const tf_attn_acts *a,
                               const tf_attn_w *w, const float *xq, const float *xkv, int scaled, int Tq, int Tk, int C, int H) {
    int D = C / H;
    size_t CC = (size_t)C * C;
    // out = concat W_Oᵀ + b_O
    linear_backward(d->concat, g->out_w, g->out_b, d->out, a->concat, w->out_w, Tq, C, C);
    float rsqrt_d = scaled ? 1.0f / sqrtf((float)D) : 1.0f; // (without scale: scaled = scores)
    for (int h = 0; h < H; h++) {
        size_t hoff = (size_t)h * Tq * Tk;
        const float *p = a->weights + hoff;
        float *dp = d->weights + hoff, *ds = d->scores + hoff;
        for (int i = 0; i < Tq; i++) {
            const float *dho = d->concat + (size_t)i * C + h * D; // d head_out row i = its columns of dconcat
            // head_out (Tq,D) = weights V_h:  dweights = dhead_out V_hᵀ;  dV_h += weightsᵀ dhead_out
            for (int j = 0; j < Tk; j++) {
                float pij = p[(size_t)i * Tk + j];
                dp[(size_t)i * Tk + j] = dotv(dho, a->v + (size_t)j * C + h * D, D);
                if (pij != 0.0f) axpy(d->v + (size_t)j * C + h * D, pij, dho, D);
            }
            // weights = softmax(masked):  dmasked = p ⊙ (dp − Σ_j p dp); masked cells have p = 0
            // masked = scaled (or −∞):     dscaled = dmasked
            // scaled = scores / √D:        dscores = dscaled / √D
            double s = 0.0;
            for (int j = 0; j < Tk; j++) s += (double)p[(size_t)i * Tk + j] * dp[(size_t)i * Tk + j];
            for (int j = 0; j < Tk; j++) {
                size_t ij = (size_t)i * Tk + j;
                ds[ij] = p[ij] * (dp[ij] - (float)s) * rsqrt_d;
            }
            // scores = Q_h K_hᵀ:  dQ_h = dscores K_h;  dK_h += dscoresᵀ Q_h
            for (int j = 0; j < Tk; j++) {
                float gij = ds[(size_t)i * Tk + j];
                if (gij == 0.0f) continue;
                axpy(d->q + (size_t)i * C + h * D, gij, a->k + (size_t)j * C + h * D, D);
                axpy(d->k + (size_t)j * C + h * D, gij, a->q + (size_t)i * C + h * D, D);
            }
        }
    }
    // q = xq W_Qᵀ + b_Q;  k = xkv W_Kᵀ + b_K;  v = xkv W_Vᵀ + b_V
    // b_K adds q_i·b_K to every score of row i, which softmax ignores: its
    // gradient is exactly 0 (summing dK would leave rounding noise that Adam
    // would turn into steps).
    linear_backward(dxq, g->in_w, g->in_b, d->q, xq, w->in_w, Tq, C, C);
    linear_backward(dxkv, g->in_w + CC, NULL, d->k, xkv, w->in_w + CC, Tk, C, C);
    linear_backward(dxkv, g->in_w + 2 * CC, g->in_b + 2 * C, d->v, xkv, w->in_w + 2 * CC, Tk, C, C);
}

// undoes ffn_forward (model.c): hidden = ReLU(x W1ᵀ + b1); out = hidden W2ᵀ + b2
// dl->ffn_out holds dout on entry; dl->ffn_hidden is scratch (zeroed).
static void ffn_backward(tf_layer_w *g, float *dx, tf_layer_acts *dl, const tf_layer_acts *la, const tf_layer_w *w,
                         const float *x, int T, int C, int F) {
    linear_backward(dl->ffn_hidden, g->w2, g->b2, dl->ffn_out, la->ffn_hidden, w->w2, T, F, C);
    for (size_t i = 0; i < (size_t)T * F; i++) if (la->ffn_hidden[i] <= 0.0f) dl->ffn_hidden[i] = 0.0f;
    linear_backward(dx, g->w1, g->b1, dl->ffn_hidden, x, w->w1, T, C, F);
}

// undoes embed_forward (model.c): input = (E[id] · scale + PE) ⊙ mask
static void embed_backward(float *dE, const float *dinput, const float *mask, float scale, const int *ids, int T, int C) {
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            size_t i = (size_t)t * C + c;
            dE[(size_t)ids[t] * C + c] += dinput[i] * (mask ? mask[i] : 1.0f) * scale;
        }
}

double tf_xent_backward(float *dlogits, const float *logits, const int *y, int T, int V, float eps, float scale) {
    // loss_t = −Σ_v q_v log p_v = lse − Σ_v q_v l_v,  lse = log Σ_v exp l_v
    double loss = 0.0, u = (double)eps / V;
    for (int t = 0; t < T; t++) {
        const float *l = logits + (size_t)t * V;
        float *dl = dlogits + (size_t)t * V;
        float mx = l[0];
        for (int v = 1; v < V; v++) if (l[v] > mx) mx = l[v];
        double sum = 0.0, sl = 0.0;
        for (int v = 0; v < V; v++) { sum += exp((double)l[v] - mx); sl += l[v]; }
        double lse = mx + log(sum);
        loss += lse - u * sl - (1.0 - eps) * l[y[t]];
        for (int v = 0; v < V; v++) dl[v] = (float)((exp((double)l[v] - lse) - u) * scale);
        dl[y[t]] -= (float)((1.0 - eps) * scale);
    }
    return loss;
}

// undoes tf_encode (model.c), from d->memory down to the source embedding.
static void encode_backward(tf_model *g, tf_acts *d, const tf_acts *a, const tf_model *m, const int *src) {
    const tf_config *c = &m->cfg;
    int S = a->S, C = c->C, L = c->L_enc, pre = c->norm_first;
    int res = !(c->without & TF_WITHOUT_RESIDUAL), scaled = !(c->without & TF_WITHOUT_SCALE);
    // enc_norm = LayerNorm(x)   (when the model has a final norm; x is the last layer's output)
    if (c->has_enc_norm) {
        float *dlast = pre ? d->enc[L - 1].add2 : d->enc[L - 1].norm2;
        const float *last = pre ? a->enc[L - 1].add2 : a->enc[L - 1].norm2;
        layernorm_backward(dlast, g->enc_norm_w, g->enc_norm_b, d->enc_norm, last, m->enc_norm_w, c->eps, S, C);
    }
    for (int l = L - 1; l >= 0; l--) {
        const tf_layer_acts *la = &a->enc[l];
        tf_layer_acts *dl = &d->enc[l];
        const tf_layer_w *w = &m->enc[l];
        tf_layer_w *gw = &g->enc[l];
        const float *x = l ? (pre ? a->enc[l - 1].add2 : a->enc[l - 1].norm2) : a->src_input;
        float *dx = l ? (pre ? d->enc[l - 1].add2 : d->enc[l - 1].norm2) : d->src_input;
        if (pre) {
            // add2 = add1 + Dropout(FFN(norm2));  norm2 = LayerNorm(add1)
            residual_backward(dl->add1, dl->ffn_out, dl->add2, la->drop2, res, S * C);
            ffn_backward(gw, dl->norm2, dl, la, w, la->norm2, S, C, c->F);
            layernorm_backward(dl->add1, gw->n2w, gw->n2b, dl->norm2, la->add1, w->n2w, c->eps, S, C);
            // add1 = x + Dropout(SelfAttention(norm1));  norm1 = LayerNorm(x)
            residual_backward(dx, dl->self_attn.out, dl->add1, la->drop1, res, S * C);
            attention_backward(&gw->self_attn, dl->norm1, dl->norm1, &dl->self_attn, &la->self_attn, &w->self_attn, la->norm1,
                               la->norm1, scaled, S, S, C, c->H);
            layernorm_backward(dx, gw->n1w, gw->n1b, dl->norm1, x, w->n1w, c->eps, S, C);
            continue;
        }
        // norm2 = LayerNorm(add2);  add2 = norm1 + Dropout(FFN(norm1))
        layernorm_backward(dl->add2, gw->n2w, gw->n2b, dl->norm2, la->add2, w->n2w, c->eps, S, C);
        residual_backward(dl->norm1, dl->ffn_out, dl->add2, la->drop2, res, S * C);
        ffn_backward(gw, dl->norm1, dl, la, w, la->norm1, S, C, c->F);
        // norm1 = LayerNorm(add1);  add1 = x + Dropout(SelfAttention(x))
        layernorm_backward(dl->add1, gw->n1w, gw->n1b, dl->norm1, la->add1, w->n1w, c->eps, S, C);
        residual_backward(dx, dl->self_attn.out, dl->add1, la->drop1, res, S * C);
        attention_backward(&gw->self_attn, dx, dx, &dl->self_attn, &la->self_attn, &w->self_attn, x, x, scaled, S, S, C, c->H);
    }
    embed_backward(g->src_embed, d->src_input, a->src_drop, c->embed_scale, src, S, C);
}

void tf_backward(tf_model *g, tf_acts *d, const tf_acts *a, const tf_model *m, const int *src, const int *tgt) {
    const tf_config *c = &m->cfg;
    int T = a->T, S = a->S, C = c->C, L = c->L_dec, pre = c->norm_first;
    int res = !(c->without & TF_WITHOUT_RESIDUAL), scaled = !(c->without & TF_WITHOUT_SCALE);
    // logits = dec_out Gᵀ + b   (G is the target embedding when tied: its gradient adds up)
    linear_backward(d->dec_out, g->gen_w, g->gen_b, d->logits, a->dec_out, m->gen_w, T, C, c->V_tgt);
    // dec_norm = LayerNorm(x)
    if (c->has_dec_norm) {
        float *dlast = pre ? d->dec[L - 1].add3 : d->dec[L - 1].norm3;
        const float *last = pre ? a->dec[L - 1].add3 : a->dec[L - 1].norm3;
        layernorm_backward(dlast, g->dec_norm_w, g->dec_norm_b, d->dec_norm, last, m->dec_norm_w, c->eps, T, C);
    }
    for (int l = L - 1; l >= 0; l--) {
        const tf_layer_acts *la = &a->dec[l];
        tf_layer_acts *dl = &d->dec[l];
        const tf_layer_w *w = &m->dec[l];
        tf_layer_w *gw = &g->dec[l];
        const float *x = l ? (pre ? a->dec[l - 1].add3 : a->dec[l - 1].norm3) : a->tgt_input;
        float *dx = l ? (pre ? d->dec[l - 1].add3 : d->dec[l - 1].norm3) : d->tgt_input;
        if (pre) {
            // add3 = add2 + Dropout(FFN(norm3));  norm3 = LayerNorm(add2)
            residual_backward(dl->add2, dl->ffn_out, dl->add3, la->drop3, res, T * C);
            ffn_backward(gw, dl->norm3, dl, la, w, la->norm3, T, C, c->F);
            layernorm_backward(dl->add2, gw->n3w, gw->n3b, dl->norm3, la->add2, w->n3w, c->eps, T, C);
            // add2 = add1 + Dropout(CrossAttention(norm2, memory));  norm2 = LayerNorm(add1)
            residual_backward(dl->add1, dl->cross_attn.out, dl->add2, la->drop2, res, T * C);
            attention_backward(&gw->cross_attn, dl->norm2, d->memory, &dl->cross_attn, &la->cross_attn, &w->cross_attn,
                               la->norm2, a->memory, scaled, T, S, C, c->H);
            layernorm_backward(dl->add1, gw->n2w, gw->n2b, dl->norm2, la->add1, w->n2w, c->eps, T, C);
            // add1 = x + Dropout(MaskedSelfAttention(norm1));  norm1 = LayerNorm(x)
            residual_backward(dx, dl->self_attn.out, dl->add1, la->drop1, res, T * C);
            attention_backward(&gw->self_attn, dl->norm1, dl->norm1, &dl->self_attn, &la->self_attn, &w->self_attn, la->norm1,
                               la->norm1, scaled, T, T, C, c->H);
            layernorm_backward(dx, gw->n1w, gw->n1b, dl->norm1, x, w->n1w, c->eps, T, C);
            continue;
        }
        // norm3 = LayerNorm(add3);  add3 = norm2 + Dropout(FFN(norm2))
        layernorm_backward(dl->add3, gw->n3w, gw->n3b, dl->norm3, la->add3, w->n3w, c->eps, T, C);
        residual_backward(dl->norm2, dl->ffn_out, dl->add3, la->drop3, res, T * C);
        ffn_backward(gw, dl->norm2, dl, la, w, la->norm2, T, C, c->F);
        // norm2 = LayerNorm(add2);  add2 = norm1 + Dropout(CrossAttention(norm1, memory))
        layernorm_backward(dl->add2, gw->n2w, gw->n2b, dl->norm2, la->add2, w->n2w, c->eps, T, C);
        residual_backward(dl->norm1, dl->cross_attn.out, dl->add2, la->drop2, res, T * C);
        attention_backward(&gw->cross_attn, dl->norm1, d->memory, &dl->cross_attn, &la->cross_attn, &w->cross_attn,
                           la->norm1, a->memory, scaled, T, S, C, c->H);
        // norm1 = LayerNorm(add1);  add1 = x + Dropout(MaskedSelfAttention(x))
        layernorm_backward(dl->add1, gw->n1w, gw->n1b, dl->norm1, la->add1, w->n1w, c->eps, T, C);
        residual_backward(dx, dl->self_attn.out, dl->add1, la->drop1, res, T * C);
        attention_backward(&gw->self_attn, dx, dx, &dl->self_attn, &la->self_attn, &w->self_attn, x, x, scaled, T, T, C, c->H);
    }
    embed_backward(g->tgt_embed, d->tgt_input, a->tgt_drop, c->embed_scale, tgt, T, C);
    encode_backward(g, d, a, m, src);
}

// For the recurrent models (lstm_backward.c): linear_backward as it is.
void tf_linear_backward(float *dx, float *dw, float *db, const float *dout, const float *x, const float *w, int T, int n_in,
                        int n_out) {
    linear_backward(dx, dw, db, dout, x, w, T, n_in, n_out);
}
