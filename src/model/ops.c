// ops.c — the kernels of section 3, one plain function each.
// Letters: S, T, C, H, D, F, V as in tf.h.
#include "tf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_fail(tf_err *e, const char *fmt, ...) {
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        tf_one_line(e->msg, sizeof e->msg);
    }
    return -1;
}

static tf_oom_handler oom_handler; // set once, at start-up

void tf_set_oom_handler(tf_oom_handler h) { oom_handler = h; }

_Noreturn void tf_oom(const char *file, int line) {
    if (oom_handler) oom_handler(file, line);
    abort();
}

// Control characters quoted from a file (a newline in a vocabulary, an escape
// sequence) would break the one-line message or the terminal: "\n", "\x1B".
void tf_one_line(char *s, size_t cap) {
    char tmp[1024];
    size_t o = 0;
    int changed = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 5 < sizeof tmp; p++) {
        if (*p >= 0x20 && *p != 0x7F) { tmp[o++] = (char)*p; continue; }
        changed = 1;
        if (*p == '\n') o += (size_t)snprintf(tmp + o, 3, "\\n");
        else if (*p == '\t') o += (size_t)snprintf(tmp + o, 3, "\\t");
        else if (*p == '\r') o += (size_t)snprintf(tmp + o, 3, "\\r");
        else o += (size_t)snprintf(tmp + o, 5, "\\x%02X", *p);
    }
    if (!changed) return;
    tmp[o] = 0;
    snprintf(s, cap, "%s", tmp);
}

void tf_rng_seed(tf_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull; if (!r->s) r->s = 1; }

uint64_t tf_rng_next(tf_rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

float tf_rng_uniform(tf_rng *r) { return (float)(tf_rng_next(r) >> 40) / 16777216.0f; }

// x (T,n_in) @ Wᵀ, W (n_out,n_in) as torch stores it, + b (n_out) -> out (T,n_out)
// The definition, as a student reads it; the model calls tf_linear_fast.
void tf_linear(float *out, const float *x, const float *w, const float *b, int T, int n_in, int n_out) {
    for (int t = 0; t < T; t++)
        for (int o = 0; o < n_out; o++) {
            float s = b ? b[o] : 0.0f;
            for (int i = 0; i < n_in; i++) s += x[(size_t)t * n_in + i] * w[(size_t)o * n_in + i];
            out[(size_t)t * n_out + o] = tf_sat(s); // (∞ − ∞ in a sum: 0)
        }
}

// A vector of 8 floats that may sit at any address (GCC/Clang vector
// extension): SSE by default, AVX2 in the clone of tf_linear_fast below.
typedef float v8 __attribute__((vector_size(32), aligned(4), may_alias));

static inline float hsum(const v8 *p) { // by pointer: passing a 32-byte vector by value changes ABI with AVX
    v8 v = *p;
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

// K rows of x (n each, ld apart) against J (1 or 2) consecutive rows of W
// (n each) -> r[k·J + j]. Each step loads the J weight vectors once for all K
// rows, and the K·J sums are independent chains. K and J are constants
// wherever this is inlined, so the sums live in registers (K·J + J + 1 of the
// 16 AVX registers: K ≤ 8 with J = 1, K ≤ 6 with J = 2).
// Every sum runs in the same order whatever K and J: 8 lanes, then the tail.
static inline __attribute__((always_inline)) void dot_block(float *r, const float *x, size_t ld, const float *w, int n,
                                                           const int K, const int J) {
    v8 s[8][2] = {{{0}}};
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        v8 w0 = *(const v8 *)(w + i), w1 = J == 2 ? *(const v8 *)(w + n + i) : w0;
#pragma GCC unroll 8
        for (int k = 0; k < K; k++) {
            v8 xk = *(const v8 *)(x + k * ld + i);
            s[k][0] += xk * w0;
            if (J == 2) s[k][1] += xk * w1;
        }
    }
#pragma GCC unroll 8
    for (int k = 0; k < K; k++)
        for (int j = 0; j < J; j++) {
            float d = hsum(&s[k][j]);
            for (int q = i; q < n; q++) d += x[k * ld + q] * w[(size_t)j * n + q];
            r[k * J + j] = d;
        }
}

static inline __attribute__((always_inline)) void dot_rows(float *r, const float *x, size_t ld, const float *w, int n,
                                                          int K, const int J) {
    switch (K) { // one inlined copy per block size
    case 1: dot_block(r, x, ld, w, n, 1, J); break;
    case 2: dot_block(r, x, ld, w, n, 2, J); break;
    case 3: dot_block(r, x, ld, w, n, 3, J); break;
    case 4: dot_block(r, x, ld, w, n, 4, J); break;
    case 5: dot_block(r, x, ld, w, n, 5, J); break;
    case 6: dot_block(r, x, ld, w, n, 6, J); break;
    case 7: dot_block(r, x, ld, w, n, 7, J); break;
    default: dot_block(r, x, ld, w, n, 8, J); break;
    }
}

#define XP_FLOATS 16384 // the stack copy of x: 64 KB
#define TILE 64         // output columns per task

// The same product as tf_linear, fast; equal up to rounding (its sums run in
// 8 lanes). It allocates nothing.
// - Each row of W is read from memory once, for blocks of up to 8 rows of x,
//   which stay in cache: for a sentence the pass costs about one read of W.
// - Rows of x a power of two apart share cache sets: when x fits in XP_FLOATS
//   it is copied onto the stack, its rows one cache line further apart.
// - Rows longer than 1024 (d_ff) do not fit in L1 eight at a time: two rows of
//   W share each pass over x, which halves the reads of x.
// - Output columns go in tiles of TILE, split over the cores (OpenMP); a
//   tile's results are gathered in y and stored a row at a time, not strided.
// Each output is computed the same way whichever thread gets it.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void tf_linear_fast(float *out, const float *x, const float *w, const float *b, int T, int n_in, int n_out) {
    float xp[XP_FLOATS];
    size_t ld = (size_t)n_in;
    if ((size_t)T * ((size_t)n_in + 16) <= XP_FLOATS) {
        ld = (size_t)n_in + 16;
        for (int t = 0; t < T; t++) memcpy(xp + t * ld, x + (size_t)t * n_in, sizeof(float) * (size_t)n_in);
        x = xp;
    }
    const int J = n_in > 1024 ? 2 : 1, KB = J == 2 ? 6 : 8, tiles = (n_out + TILE - 1) / TILE;
#pragma omp parallel for schedule(static) if ((size_t)n_out * n_in >= 65536)
    for (int tile = 0; tile < tiles; tile++) {
        int o0 = tile * TILE, no = n_out - o0 < TILE ? n_out - o0 : TILE;
        float y[8][TILE], r[16];
        for (int t = 0; t < T; t += KB) {
            const float *xt = x + t * ld;
            int K = T - t < KB ? T - t : KB, o = 0;
            for (; J == 2 && o + 2 <= no; o += 2) {
                dot_rows(r, xt, ld, w + (size_t)(o0 + o) * n_in, n_in, K, 2);
                for (int k = 0; k < K; k++)
                    for (int j = 0; j < 2; j++) y[k][o + j] = tf_sat(r[k * 2 + j] + (b ? b[o0 + o + j] : 0.0f));
            }
            for (; o < no; o++) {
                dot_rows(r, xt, ld, w + (size_t)(o0 + o) * n_in, n_in, K, 1);
                for (int k = 0; k < K; k++) y[k][o] = tf_sat(r[k] + (b ? b[o0 + o] : 0.0f)); // (∞ − ∞ in a sum: 0)
            }
            for (int k = 0; k < K; k++) memcpy(out + (size_t)(t + k) * n_out + o0, y[k], sizeof(float) * (size_t)no);
        }
    }
}

// a (n) · b (n) -> scalar, for the attention scores.
static float dot(const float *a, const float *b, int n) {
    float r;
    dot_block(&r, a, 0, b, n, 1, 1);
    return r;
}

// softmax over each row of x (rows,cols) -> out. The max is subtracted first,
// so huge scores (±FLT_MAX) do not overflow. −∞ entries give exactly 0; a row
// that is −∞ everywhere gives zeros, never NaN. (Not produced by the model,
// whose scores are finite or −∞: +∞ entries share the row equally, NaN counts as −∞.)
// Rows go to the cores when there are many values (the output over a 60,000-piece
// vocabulary); each row is computed the same way whichever thread gets it.
void tf_softmax_rows(float *out, const float *x, int rows, int cols) {
#pragma omp parallel for schedule(static) if ((size_t)rows * cols >= 65536)
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *o = out + (size_t)r * cols;
        float mx = -INFINITY;
        for (int c = 0; c < cols; c++) if (xr[c] > mx) mx = xr[c];
        if (mx == -INFINITY) { memset(o, 0, sizeof(float) * cols); continue; }
        double sum = 0.0;
        if (mx == INFINITY) for (int c = 0; c < cols; c++) { o[c] = xr[c] == INFINITY; sum += o[c]; }
        else for (int c = 0; c < cols; c++) { o[c] = xr[c] == xr[c] ? expf(xr[c] - mx) : 0.0f; sum += o[c]; }
        float inv = (float)(1.0 / sum);
        for (int c = 0; c < cols; c++) o[c] *= inv;
    }
}

// LayerNorm over the C features of each row: (x - mean) / √(var + eps) · w + b
// with the biased variance, as torch.nn.LayerNorm. x (T,C) -> out (T,C)
void tf_layernorm(float *out, const float *x, const float *w, const float *b, float eps, int T, int C) {
    for (int t = 0; t < T; t++) {
        const float *xt = x + (size_t)t * C;
        float *o = out + (size_t)t * C;
        double mean = 0.0, var = 0.0;
        for (int c = 0; c < C; c++) mean += xt[c];
        mean /= C;
        for (int c = 0; c < C; c++) { double d = xt[c] - mean; var += d * d; }
        var /= C;
        double rstd = 1.0 / sqrt(var + eps); // a constant row: var 0, the output is b
        for (int c = 0; c < C; c++) o[c] = tf_sat((float)((xt[c] - mean) * rstd) * w[c] + b[c]);
    }
}

// PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(pos / 10000^(2i/C))  (§3.5)
// -> pe (T,C)
void tf_positional_encoding(float *pe, int T, int C) {
    for (int pos = 0; pos < T; pos++)
        for (int c = 0; c < C; c++) {
            int two_i = c & ~1;
            double angle = pos / pow(10000.0, (double)two_i / C);
            pe[(size_t)pos * C + c] = (float)((c & 1) ? cos(angle) : sin(angle));
        }
}

// PE (T,C), MarianMT's layout: angle(pos, j) = pos / 10000^(2j/C) in double,
// sin in column j for j < h, cos in column h + j, h = ⌈C/2⌉ (modeling_marian.py).
void tf_positional_encoding_split(float *pe, int T, int C) {
    int h = (C + 1) / 2;
    for (int pos = 0; pos < T; pos++)
        for (int c = 0; c < C; c++) {
            int j = c < h ? c : c - h; // the angle of sin column j and of cos column h + j
            double angle = pos / pow(10000.0, (double)(2 * j) / C);
            pe[(size_t)pos * C + c] = (float)(c < h ? sin(angle) : cos(angle));
        }
}

void tf_relu(float *out, const float *x, int n) { for (int i = 0; i < n; i++) out[i] = x[i] > 0.0f ? x[i] : 0.0f; }

// x·σ(x) = x / (1 + e^−x); for x far below 0 it tends to −0.
void tf_silu(float *out, const float *x, int n) {
    for (int i = 0; i < n; i++) out[i] = x[i] < -88.0f ? 0.0f : x[i] / (1.0f + expf(-x[i]));
}

void tf_gelu(float *out, const float *x, int n) {
    for (int i = 0; i < n; i++) out[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

void tf_activation(float *out, const float *x, int n, tf_act act) {
    switch (act) {
    case TF_ACT_SILU: tf_silu(out, x, n); break;
    case TF_ACT_GELU: tf_gelu(out, x, n); break;
    default: tf_relu(out, x, n);
    }
}

void tf_add(float *out, const float *a, const float *b, int n) { for (int i = 0; i < n; i++) out[i] = tf_sat(a[i] + b[i]); }

void tf_mul(float *out, const float *a, const float *b, int n) { for (int i = 0; i < n; i++) out[i] = a[i] * b[i]; }

// Multi-head attention (§3.2.2), every intermediate kept.
// xq (Tq,C) @ W_Qᵀ -> q (Tq,C); xkv (Tk,C) @ W_Kᵀ, W_Vᵀ -> k, v (Tk,C)
// per head h (columns h·D … h·D+D-1):
//   scores (Tq,Tk) = Q_h K_hᵀ; scaled = scores / √D; masked: −∞ where j > i if causal
//   weights = softmax(masked); head_out (Tq,D) = weights V_h
// concat (Tq,C) = [head_0 … head_H-1]; out (Tq,C) = concat W_Oᵀ + b_O
void tf_attention(tf_attn_acts *a, const tf_attn_w *w, const float *xq, const float *xkv, int causal,
                  int Tq, int Tk, int C, int H) {
    tf_attention_ex(a, w, xq, xkv, causal, 1, Tq, Tk, C, H);
}

// (scaled 0, the what-if "scale": scaled = scores, softmax of the raw dot products)
// (xkv NULL: a->k and a->v hold the keys and values already)
static void attention(tf_attn_acts *a, const tf_attn_w *w, const float *xq, const float *xkv, int causal, int scaled,
                      int Tq, int Tk, int C, int H) {
    int D = C / H;
    size_t CC = (size_t)C * C;
    tf_linear_fast(a->q, xq, w->in_w, w->in_b, Tq, C, C);
    if (xkv) {
        tf_linear_fast(a->k, xkv, w->in_w + CC, w->in_b + C, Tk, C, C);
        tf_linear_fast(a->v, xkv, w->in_w + 2 * CC, w->in_b + 2 * C, Tk, C, C);
    }
    float rsqrt_d = scaled ? 1.0f / sqrtf((float)D) : 1.0f;
    for (int h = 0; h < H; h++) {
        size_t hoff = (size_t)h * Tq * Tk;
        float *sc = a->scores + hoff, *ss = a->scaled + hoff, *sm = a->masked + hoff, *wt = a->weights + hoff;
        for (int i = 0; i < Tq; i++)
            for (int j = 0; j < Tk; j++) {
                float s = tf_sat(dot(a->q + (size_t)i * C + h * D, a->k + (size_t)j * C + h * D, D));
                size_t ij = (size_t)i * Tk + j;
                sc[ij] = s;
                ss[ij] = s * rsqrt_d;
                sm[ij] = (causal && j > i) ? -INFINITY : ss[ij];
            }
        tf_softmax_rows(wt, sm, Tq, Tk);
        float *ho = a->head_out + (size_t)h * Tq * D;
        for (int i = 0; i < Tq; i++)
            for (int d = 0; d < D; d++) {
                float acc = 0.0f;
                for (int j = 0; j < Tk; j++) acc += wt[(size_t)i * Tk + j] * a->v[(size_t)j * C + h * D + d];
                ho[(size_t)i * D + d] = a->concat[(size_t)i * C + h * D + d] = tf_sat(acc);
            }
    }
    tf_linear_fast(a->out, a->concat, w->out_w, w->out_b, Tq, C, C);
}

void tf_attention_ex(tf_attn_acts *a, const tf_attn_w *w, const float *xq, const float *xkv, int causal, int scaled,
                     int Tq, int Tk, int C, int H) {
    attention(a, w, xq, xkv, causal, scaled, Tq, Tk, C, H);
}

void tf_attention_kv_kept(tf_attn_acts *a, const tf_attn_w *w, const float *xq, int scaled, int Tq, int Tk, int C, int H) {
    attention(a, w, xq, NULL, 0, scaled, Tq, Tk, C, H);
}

// ---------------------------------------------------------------- what if? (DESIGN.md "Transformer variants")
static const char *const without_names[TF_WITHOUT_PARTS] = {"pe", "scale", "mask", "residual"};

const char *tf_without_name(int part) { return part >= 0 && part < TF_WITHOUT_PARTS ? without_names[part] : "?"; }

int tf_without_parse(const char *list, int *bits, tf_err *e) {
    *bits = 0;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        size_t n = strcspn(p, ", ");
        int k = 0;
        while (k < TF_WITHOUT_PARTS && !(strlen(without_names[k]) == n && !strncmp(p, without_names[k], n))) k++;
        if (k < TF_WITHOUT_PARTS) *bits |= 1 << k;
        else if (!(n == 4 && !strncmp(p, "none", 4)))
            return tf_fail(e, "\"%.*s\" is not a part tviz can switch off; the parts are pe, scale, mask and residual",
                           (int)(n > 40 ? 40 : n), p);
        p += n;
    }
    return 0;
}

const char *tf_without_format(int bits, char *buf, size_t n) {
    size_t k = 0;
    if (n) buf[0] = 0;
    for (int i = 0; i < TF_WITHOUT_PARTS; i++)
        if (bits & (1 << i)) {
            int w = snprintf(buf + k, k < n ? n - k : 0, "%s%s", k ? "," : "", without_names[i]);
            if (w > 0) k += (size_t)w;
            if (k >= n) break;
        }
    return buf;
}
