// arith.c — the arithmetic behind one cell of a stage, with the numbers read
// from the trace: the q·k terms of a score, the softmax of a row, LayerNorm's
// mean and variance, the sine of a positional encoding. Nothing is taken from
// a recomputed forward pass; every input is the cell of another stage (found
// by id), or a model weight when the model is given.
// Letters: S, T, C, H, D, F, V as in tf.h.
#include "render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LINE_BYTES 600 // one line of a card, NUL included (Persian and Arabic letters take 2 bytes)
#define MAX_LINES 48   // more than any card needs
#define MAX_TERMS 8    // a sum of up to 8 terms is shown in full, a longer one as 6 terms and "…"
#define HEAD_TERMS 6   // the terms shown of a longer sum

// What a line is, for the card's typography.
enum { K_HEAD, K_TEXT, K_NOTE, K_MATH, K_TERM, K_PICK, K_RESULT }; // K_PICK: the term of this cell

typedef struct {
    int kind;
    char text[LINE_BYTES];
} arith_line;

typedef struct {
    const tf_trace *t;
    const tf_model *m;   // NULL when unknown or not the model of this trace
    const tf_stage *s;
    int stage;           // the index of s
    int row, col;
    const render_opts *o; // its language (NULL: English)
    arith_line *out;
    int n, max;
} card;

// A short string returned by value: a formatted number, a subscript, a quoted label.
typedef struct { char s[192]; } str;

// ---------------------------------------------------------------- formatting
// Copies at most n bytes of src without cutting a UTF-8 character; 1 if cut.
static int utf8_copy(char *dst, const char *src, size_t n) {
    size_t len = strlen(src);
    int cut = len > n;
    if (cut) {
        len = n;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80) len--;
    }
    memcpy(dst, src, len);
    dst[len] = 0;
    return cut;
}

static const char *const superscript[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};

// A value with 4 decimals (render_format_value); exactly 0 as "0" (a masked
// weight, a ReLU cut); tiny values as 6.14×10⁻⁶ so they do not read as 0.
static str num(double v) {
    str r;
    double a = fabs(v);
    if (v == 0) {
        snprintf(r.s, sizeof r.s, "0");
        return r;
    }
    if (!(a < 5e-4)) {
        render_format_value((float)v, r.s, sizeof r.s, 4);
        return r;
    }
    int e = (int)floor(log10(a));
    double mant = v / pow(10, e);
    if (fabs(mant) >= 9.995) { mant /= 10; e++; }
    char m[16];
    render_format_value((float)mant, m, sizeof m, 2);
    char *dot = strchr(m, '.'), *end = m + strlen(m);
    while (dot && end > dot + 1 && end[-1] == '0') *--end = 0; // 1.50 -> 1.5, 1.00 -> 1
    if (dot && end == dot + 1) *dot = 0;
    int k = snprintf(r.s, sizeof r.s, "%s×10⁻", m);
    char digits[16];
    snprintf(digits, sizeof digits, "%d", -e);
    for (const char *d = digits; *d && k < (int)sizeof r.s - 4; d++) k += snprintf(r.s + k, sizeof r.s - (size_t)k, "%s", superscript[*d - '0']);
    return r;
}

// "a − b", with a negative b in parentheses: "0.5 − (−0.2)".
static str minus(double a, double b) {
    str r;
    snprintf(r.s, sizeof r.s, b < 0 ? "%s − (%s)" : "%s − %s", num(a).s, num(b).s);
    return r;
}

// n as subscript digits: 12 -> "₁₂".
static str sub(int n) {
    str r;
    char digits[16];
    snprintf(digits, sizeof digits, "%d", n);
    size_t k = 0;
    for (const char *d = digits; *d; d++) {
        r.s[k++] = '\xE2'; r.s[k++] = '\x82'; r.s[k++] = (char)(0x80 + (*d - '0'));
    }
    r.s[k] = 0;
    return r;
}

// Two indices as a subscript pair: "₂,₀".
static str sub2(int i, int j) {
    str r = sub(i);
    size_t k = strlen(r.s);
    r.s[k++] = ',';
    strcpy(r.s + k, sub(j).s); // at most 2 × 30 bytes
    return r;
}

// A token in quotes. A label that is not plain ASCII (Persian, Arabic, …)
// sits in a first-strong isolate (U+2068 … U+2069), so a right-to-left word
// is a run of its own and does not reorder the formula around it.
// In a right-to-left card the quotes are « » (as the Persian and Arabic lessons write them).
static str quoted(const char *label, int rtl) {
    char core[36];
    int cut = utf8_copy(core, label, 28);
    int ascii = 1;
    for (const char *p = core; *p; p++) if ((unsigned char)*p >= 0x80) ascii = 0;
    str r;
    const char *open = rtl ? "«" : "“", *close = rtl ? "»" : "”";
    snprintf(r.s, sizeof r.s, ascii ? "%s%s%s%s" : "%s\u2068%s%s\u2069%s", open, core, cut ? "…" : "", close);
    return r;
}

static str token(const card *c, tf_axis axis, int i) {
    char buf[16];
    return quoted(render_axis_label(c->t, axis, i, c->o, buf, sizeof buf), c->o && c->o->rtl);
}

// Appends a line (cut at a character boundary with "…" if too long).
__attribute__((format(printf, 3, 4))) static void put(card *c, int kind, const char *fmt, ...) {
    if (c->n >= c->max) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    arith_line *l = &c->out[c->n++];
    l->kind = kind;
    if (utf8_copy(l->text, buf, LINE_BYTES - 4)) strcat(l->text, "…");
}

// ---------------------------------------------------------------- the stages a cell depends on
static float at(const tf_stage *s, int r, int col) { return s->data[(size_t)r * s->cols + col]; }

// Stage k, or NULL and a line saying so when the trace lacks it (-1).
static const tf_stage *stage_or_note(card *c, int k, const char *what) {
    if (k < 0) put(c, K_NOTE, render_tr(c->o, "(the %s stage is not in this trace, so this step cannot be shown)"), what);
    return k < 0 ? NULL : &c->t->stages[k];
}

// The stage of this card's head or layer whose operation is op (src/model knows which).
static const tf_stage *with_op(card *c, tf_op op) { return stage_or_note(c, tf_stage_with_op(c->t, c->stage, op), tf_op_name(op)); }

// Input k of this stage, in the order of its formula (tf_stage_inputs).
static const tf_stage *input(card *c, int k) {
    int in[64], n = tf_stage_inputs(c->t, c->stage, in, 64);
    return stage_or_note(c, k < n ? in[k] : -1, "input");
}

static const tf_layer_w *layer_weights(const card *c) {
    if (!c->m || c->s->layer < 0) return NULL;
    if (c->s->side == TF_SIDE_ENC) return c->s->layer < c->m->cfg.L_enc ? &c->m->enc[c->s->layer] : NULL;
    return c->s->layer < c->m->cfg.L_dec ? &c->m->dec[c->s->layer] : NULL;
}

// d_k: the width of one head's output.
static int head_dim(card *c) {
    const tf_stage *o = with_op(c, TF_OP_HEAD_OUT);
    return o ? o->cols : 0;
}

// "[0.1000, −0.2000, …]": row r of s, all of it up to MAX_TERMS values, else the first few.
static str row_values(const tf_stage *s, int r) {
    str out;
    int n = s->cols <= MAX_TERMS ? s->cols : 5;
    size_t k = (size_t)snprintf(out.s, sizeof out.s, "[");
    for (int i = 0; i < n && k < sizeof out.s; i++)
        k += (size_t)snprintf(out.s + k, sizeof out.s - k, "%s%s", i ? ", " : "", num(at(s, r, i)).s);
    if (k < sizeof out.s) snprintf(out.s + k, sizeof out.s - k, "%s]", n < s->cols ? ", …" : "");
    return out;
}

// "0.1000 + 0.2000 − 0.3000": the values joined with their signs.
static str joined(const double *v, int k) {
    str r;
    size_t used = 0;
    r.s[0] = 0;
    for (int i = 0; i < k && used < sizeof r.s; i++)
        used += (size_t)snprintf(r.s + used, sizeof r.s - used, "%s%s", v[i] < 0 ? (i ? " − " : "−") : (i ? " + " : ""),
                                 num(fabs(v[i])).s);
    return r;
}

// A sum of k terms (the first MAX_TERMS of them in first) ending in total:
// "lhs = t₀ + t₁ + t₂ = total", or "lhs = Σ of the 64 terms = total".
static void put_sum(card *c, int kind, const char *lhs, const double *first, int k, double total) {
    if (k <= MAX_TERMS) put(c, kind, "%s = %s = %s", lhs, joined(first, k).s, num(total).s);
    else put(c, kind, render_tr(c->o, "%s = Σ of the %d terms = %s"), lhs, k, num(total).s);
}

// One term of a long sum: all of them up to MAX_TERMS, else the first few and "…".
static int show_term(card *c, int d, int n) {
    if (n <= MAX_TERMS || d < HEAD_TERMS) return 1;
    if (d == HEAD_TERMS) put(c, K_TERM, render_tr(c->o, "… and %d more terms"), n - HEAD_TERMS);
    return 0;
}

// ---------------------------------------------------------------- attention
// scores[i][j] = Σ_d q[i][hD+d] · k[j][hD+d]
static void arith_scores(card *c) {
    const tf_stage *q = input(c, 0), *k = input(c, 1);
    int h = c->s->head, D = head_dim(c), i = c->row, j = c->col;
    if (!q || !k || D <= 0) return;
    put(c, K_TEXT, render_tr(c->o, "Query %s against key %s: the dot product of q = row %d of Q and k = row %d of K, in head %d's columns %d…%d."),
        token(c, c->s->row_axis, i).s, token(c, c->s->col_axis, j).s, i, j, h + 1, h * D, h * D + D - 1); // (heads count from 1, as titled)
    if (c->s->sublayer == TF_SUB_CROSS_ATTN)
        put(c, K_NOTE, render_tr(c->o, "Cross-attention: the query comes from the decoder (%s), the key from the encoder output (%s)."), q->id, k->id);
    else put(c, K_NOTE, render_tr(c->o, "Q and K are the stages %s and %s."), q->id, k->id);
    double first[MAX_TERMS];
    for (int d = 0; d < D; d++) {
        float a = at(q, i, h * D + d), b = at(k, j, h * D + d);
        if (d < MAX_TERMS) first[d] = (double)a * b;
        if (show_term(c, d, D))
            put(c, K_TERM, "q%s·k%s = %s × %s = %s", sub(d).s, sub(d).s, num(a).s, num(b).s, num((double)a * b).s);
    }
    put_sum(c, K_RESULT, "q·k", first, D, at(c->s, i, j));
}

// scaled = scores / √d_k
static void arith_scaled(card *c) {
    const tf_stage *sc = input(c, 0);
    int D = head_dim(c);
    if (!sc || D <= 0) return;
    float score = at(sc, c->row, c->col);
    put(c, K_MATH, render_tr(c->o, "score q·k = %s   (%s)"), num(score).s, sc->id);
    if (c->t->without & TF_WITHOUT_SCALE) { // what if: the division is switched off
        put(c, K_TEXT, render_tr(c->o, "What if: the division by √d_k is switched off, so the score goes to softmax as it is."));
        put(c, K_RESULT, "%s = %s", num(score).s, num(at(c->s, c->row, c->col)).s);
        put(c, K_NOTE, render_tr(c->o, "With d_k = %d, q·k has a variance of about %d instead of 1: softmax then gives nearly all the weight "
                       "to the largest score."), D, D);
        return;
    }
    put(c, K_MATH, "d_k = %d,   √d_k = %s", D, num(sqrt(D)).s);
    put(c, K_RESULT, "%s ÷ %s = %s", num(score).s, num(sqrt(D)).s, num(at(c->s, c->row, c->col)).s);
    put(c, K_NOTE, render_tr(c->o, "Why divide: if the d_k components of q and k are independent with mean 0 and variance 1, "
                   "q·k has mean 0 and variance d_k."));
    put(c, K_NOTE, render_tr(c->o, "Large scores would push softmax into regions with tiny gradients; ÷ √d_k brings the variance back "
                   "to 1 (paper §3.2.1, footnote 4)."));
}

// masked = −∞ where key j > query i in the decoder's self-attention, else scaled
static void arith_masked(card *c) {
    const tf_stage *ss = input(c, 0);
    if (!ss) return;
    int i = c->row, j = c->col;
    str scaled = num(at(ss, i, j)), q = token(c, c->s->row_axis, i), k = token(c, c->s->col_axis, j);
    if (c->s->side == TF_SIDE_DEC && c->s->sublayer == TF_SUB_SELF_ATTN && (c->t->without & TF_WITHOUT_MASK)) {
        put(c, K_TEXT, render_tr(c->o, "What if: the causal mask is switched off, so every score is kept, even for keys after the query."));
        if (j > i) put(c, K_NOTE, render_tr(c->o, "Key %d %s comes after query %d %s: the position that predicts the word after %s can read that word here."),
                       j, k.s, i, q.s, q.s);
    } else if (c->s->side == TF_SIDE_DEC && c->s->sublayer == TF_SUB_SELF_ATTN) {
        if (j > i) {
            put(c, K_TEXT, render_tr(c->o, "−∞ because key %d %s comes after query %d %s (causal mask): position %d may not look ahead."), j, k.s, i, q.s, i);
            put(c, K_MATH, render_tr(c->o, "scaled score %s  →  −∞"), scaled.s);
            put(c, K_RESULT, render_tr(c->o, "masked%s = −∞"), sub2(i, j).s);
            put(c, K_NOTE, render_tr(c->o, "exp(−∞) = 0, so after softmax this key gets weight exactly 0: while predicting the word "
                           "after %s, the decoder cannot peek at the words that follow it."), q.s);
            return;
        }
        put(c, K_TEXT, render_tr(c->o, "Key %d %s does not come after query %d %s, so the causal mask keeps this score."), j, k.s, i, q.s);
        put(c, K_NOTE, render_tr(c->o, "Only keys after the query (j > i, above the diagonal) become −∞."));
    } else {
        if (c->s->sublayer == TF_SUB_CROSS_ATTN) put(c, K_TEXT, render_tr(c->o, "Nothing is masked here: every target position may look at every source word."));
        else put(c, K_TEXT, render_tr(c->o, "Nothing is masked here: the encoder sees the whole source sentence (one sentence has no padding)."));
    }
    put(c, K_RESULT, render_tr(c->o, "masked%s = scaled%s = %s"), sub2(i, j).s, sub2(i, j).s, num(at(c->s, i, j)).s);
}

// Softmax of row i of z at column j (the masked scores, or the logits):
// exp(z_ij − max) / Σ_k exp(z_ik − max). sym names z, res the result; the
// columns are keys (attention) or tokens (the vocabulary).
static void softmax_cell(card *c, const tf_stage *z, const char *sym, const char *res, int keys) {
    int i = c->row, j = c->col, n = z->cols, arg = -1;
    for (int k = 0; k < n; k++)
        if (isfinite(at(z, i, k)) && (arg < 0 || at(z, i, k) > at(z, i, arg))) arg = k;
    if (arg < 0) {
        put(c, K_TEXT, render_tr(c->o, "Every key of row %d is masked, so every weight is 0 (never NaN)."), i);
        put(c, K_RESULT, "%s%s = 0", res, sub2(i, j).s);
        return;
    }
    const char *column = keys ? render_tr(c->o, "key %s") : render_tr(c->o, "token %s");
    char who[240];
    double mx = at(z, i, arg), den = 0, first[MAX_TERMS];
    put(c, K_MATH, "%s%s,ⱼ = exp(%s%s,ⱼ − max) ÷ Σₖ exp(%s%s,ₖ − max)", res, sub(i).s, sym, sub(i).s, sym, sub(i).s);
    snprintf(who, sizeof who, column, token(c, z->col_axis, arg).s);
    put(c, K_MATH, "max = %s   (%s)", num(mx).s, who);
    put(c, K_NOTE, render_tr(c->o, "Subtracting the row's largest value keeps exp from overflowing; it cancels in the division."));
    if (n <= MAX_TERMS) put(c, K_MATH, keys ? render_tr(c->o, "exp(%s%s,ₖ − max) for each key k:") : render_tr(c->o, "exp(%s%s,ₖ − max) for each token k:"), sym, sub(i).s);
    for (int k = 0; k < n; k++) {
        float zk = at(z, i, k);
        double e = isfinite(zk) ? exp(zk - mx) : 0;
        den += e;
        if (k < MAX_TERMS) first[k] = e;
        if (n > MAX_TERMS) continue;
        int kind = k == j ? K_PICK : K_TERM;
        char what[300];
        snprintf(who, sizeof who, column, token(c, z->col_axis, k).s);
        if (!isfinite(zk)) snprintf(what, sizeof what, k == j ? render_tr(c->o, "%s, masked, this cell") : render_tr(c->o, "%s, masked"), who);
        else snprintf(what, sizeof what, k == j ? render_tr(c->o, "%s, this cell") : "%s", who);
        if (isfinite(zk)) put(c, kind, "exp(%s) = %s   (%s)", minus(zk, mx).s, num(e).s, what);
        else put(c, kind, "exp(−∞) = 0   (%s)", what);
    }
    float zj = at(z, i, j);
    double num_j = isfinite(zj) ? exp(zj - mx) : 0;
    if (n > MAX_TERMS) {
        if (isfinite(zj)) put(c, K_MATH, render_tr(c->o, "numerator: exp(%s%s − max) = exp(%s) = %s"), sym, sub2(i, j).s, minus(zj, mx).s, num(num_j).s);
        else put(c, K_MATH, render_tr(c->o, "numerator: exp(%s%s − max) = exp(−∞) = 0   (masked)"), sym, sub2(i, j).s);
        put(c, K_MATH, keys ? render_tr(c->o, "denominator: Σ over the %d keys = %s") : render_tr(c->o, "denominator: Σ over the %d tokens = %s"), n, num(den).s);
    } else {
        put_sum(c, K_MATH, render_tr(c->o, "denominator Σ"), first, n, den);
    }
    put(c, K_RESULT, "%s%s = %s ÷ %s = %s", res, sub2(i, j).s, isfinite(zj) ? num(num_j).s : "0", num(den).s, num(at(c->s, i, j)).s);
}

static void arith_weights(card *c) {
    const tf_stage *z = input(c, 0);
    if (!z) return;
    put(c, K_TEXT, render_tr(c->o, "Softmax over row %d (query %s) of the masked scores %s:"), c->row, token(c, c->s->row_axis, c->row).s, z->id);
    softmax_cell(c, z, "s", "a", 1);
    if (isinf(at(z, c->row, c->col)))
        put(c, K_TEXT, render_tr(c->o, "Key %d comes after query %d (causal mask), so its score is −∞ and exp(−∞) = 0: its weight is exactly 0."),
            c->col, c->row);
    double sum = 0, first[MAX_TERMS];
    for (int k = 0; k < c->s->cols; k++) {
        sum += at(c->s, c->row, k);
        if (k < MAX_TERMS) first[k] = at(c->s, c->row, k);
    }
    if (c->s->cols <= MAX_TERMS)
        put(c, K_TEXT, render_tr(c->o, "Row %d sums to 1: %s = %s. The query shares its attention among the keys."), c->row,
            joined(first, c->s->cols).s, num(sum).s);
    else put(c, K_TEXT, render_tr(c->o, "The %d weights of row %d sum to %s: the query shares its attention among the keys."), c->s->cols, c->row, num(sum).s);
}

// head_out[i][d] = Σ_j a[i][j] · v[j][hD+d]
static void arith_head_out(card *c) {
    int h = c->s->head, D = c->s->cols, i = c->row, d = c->col;
    const tf_stage *a = input(c, 0), *v = input(c, 1);
    if (!a || !v) return;
    put(c, K_TEXT, render_tr(c->o, "Query %s mixes the values with its attention weights: Σⱼ a%s,ⱼ · vⱼ with vⱼ = V[j, %d] (column %d of head %d)."),
        token(c, c->s->row_axis, i).s, sub(i).s, h * D + d, d, h + 1);
    if (c->s->sublayer == TF_SUB_CROSS_ATTN) put(c, K_NOTE, render_tr(c->o, "Weights from %s, values from %s (computed from the encoder output)."), a->id, v->id);
    else put(c, K_NOTE, render_tr(c->o, "Weights from %s, values from %s."), a->id, v->id);
    double first[MAX_TERMS];
    for (int j = 0; j < a->cols; j++) {
        float w = at(a, i, j), x = at(v, j, h * D + d);
        if (j < MAX_TERMS) first[j] = (double)w * x;
        if (show_term(c, j, a->cols))
            put(c, K_TERM, render_tr(c->o, "a%s · v%s = %s × %s = %s   (key %s)"), sub2(i, j).s, sub(j).s, num(w).s, num(x).s, num((double)w * x).s,
                token(c, a->col_axis, j).s);
    }
    put_sum(c, K_RESULT, "Σ", first, a->cols, at(c->s, i, d));
}

// concat[i][hD+d] = head_h[i][d]
static void arith_concat(card *c) {
    int D = head_dim(c);
    if (D <= 0) return;
    int h = c->col / D, d = c->col % D;
    const tf_stage *ho = input(c, h);
    if (!ho) return;
    put(c, K_TEXT, render_tr(c->o, "Concat lays the %d heads' outputs side by side, %d columns each: column %d is column %d of head %d."),
        c->s->cols / D, D, c->col, d, h + 1);
    put(c, K_RESULT, render_tr(c->o, "head.%d.out [%d, %d] = %s"), h, c->row, d, num(at(ho, c->row, d)).s);
    const tf_stage *out = with_op(c, TF_OP_OUT);
    if (out) put(c, K_NOTE, render_tr(c->o, "Nothing is computed here; the next step, ·W_O (%s), mixes the heads."), out->id);
}

// ---------------------------------------------------------------- linear layers
// out[i][o] = Σ_c x[i][c] · W[c][o] + b[o], W given in torch's layout (n_out, n_in);
// relu: then max(0, ·). W NULL: the weights are unknown; bname NULL: no bias.
static void arith_linear(card *c, const tf_stage *x, const char *wname, const char *bname, const float *W, const float *b,
                         int relu) {
    int i = c->row, o = c->col, n = x->cols;
    float v = at(c->s, i, o);
    // the model's activation in ReLU's place (a MarianMT checkpoint: SiLU or GELU)
    tf_act act = relu && c->m ? c->m->cfg.act : TF_ACT_RELU;
    const char *an = act == TF_ACT_SILU ? "SiLU" : "GELU";
    if (relu && act != TF_ACT_RELU) {
        if (bname) put(c, K_TEXT, render_tr(c->o, "Row %d of the input times column %d of %s, plus the bias %s[%d], then %s."), i, o, wname, bname, o, an);
        put(c, K_MATH, render_tr(c->o, "x = %s   (row %d of %s)"), row_values(x, i).s, i, x->id);
        double z = 0;
        if (W) {
            const float *w = W + (size_t)o * n;
            for (int k = 0; k < n; k++) {
                z += (double)at(x, i, k) * w[k];
                if (show_term(c, k, n))
                    put(c, K_TERM, "x%s × %s[%d, %d] = %s × %s = %s", sub(k).s, wname, k, o, num(at(x, i, k)).s, num(w[k]).s,
                        num((double)at(x, i, k) * w[k]).s);
            }
            if (bname) z += b[o];
            put(c, K_MATH, "z = Σ + %s[%d] = %s", bname ? bname : "0", o, num(z).s);
            put(c, K_RESULT, "%s(z) = z · %s(z) = %s · %s = %s", an, act == TF_ACT_SILU ? "σ" : "Φ", num(z).s,
                num(act == TF_ACT_SILU ? 1.0 / (1.0 + exp(-z)) : 0.5 * (1.0 + erf(z / sqrt(2.0)))).s, num(v).s);
        } else put(c, K_RESULT, "%s(x · %s column %d + %s[%d]) = %s", an, wname, o, bname ? bname : "0", o, num(v).s);
        put(c, K_NOTE, act == TF_ACT_SILU ? render_tr(c->o, "SiLU (swish) is z·σ(z): a positive z passes almost unchanged, a negative one is squeezed towards 0.")
                                          : render_tr(c->o, "GELU is z·Φ(z), Φ the normal distribution's CDF: like ReLU, but smooth."));
        return;
    }
    if (bname) put(c, K_TEXT, relu ? render_tr(c->o, "Row %d of the input times column %d of %s, plus the bias %s[%d], then ReLU.")
                                   : render_tr(c->o, "Row %d of the input times column %d of %s, plus the bias %s[%d]."), i, o, wname, bname, o);
    else put(c, K_TEXT, render_tr(c->o, "Row %d of the input times column %d of %s (this model has no bias here)."), i, o, wname);
    put(c, K_MATH, render_tr(c->o, "x = %s   (row %d of %s)"), row_values(x, i).s, i, x->id);
    if (!W) {
        put(c, K_NOTE, render_tr(c->o, "The weights %s and %s are in the model file, not in the trace; open the model to see each term."), wname, bname);
        if (relu) put(c, K_RESULT, render_tr(c->o, "max(0, x · %s column %d + %s[%d]) = %s"), wname, o, bname, o, num(v).s);
        else put(c, K_RESULT, render_tr(c->o, "x · %s column %d + %s[%d] = %s"), wname, o, bname, o, num(v).s);
        if (relu) put(c, K_NOTE, v == 0 ? render_tr(c->o, "ReLU keeps a positive sum and turns a negative one into 0 (as here).")
                                        : render_tr(c->o, "ReLU keeps a positive sum and turns a negative one into 0."));
        return;
    }
    const float *w = W + (size_t)o * n;
    double sum = 0;
    for (int k = 0; k < n; k++) {
        float xk = at(x, i, k);
        sum += (double)xk * w[k];
        if (show_term(c, k, n))
            put(c, K_TERM, "x%s × %s[%d, %d] = %s × %s = %s", sub(k).s, wname, k, o, num(xk).s, num(w[k]).s, num((double)xk * w[k]).s);
    }
    if (!bname) {
        put(c, K_RESULT, "Σ = %s", num(v).s);
        return;
    }
    double bias = b[o];
    str s = num(sum), bb = num(fabs(bias));
    const char *op = bias < 0 ? "−" : "+";
    if (!relu) {
        put(c, K_RESULT, "Σ %s %s[%d] = %s %s %s = %s", op, bname, o, s.s, op, bb.s, num(v).s);
        return;
    }
    put(c, K_MATH, "z = Σ %s %s[%d] = %s %s %s = %s", op, bname, o, s.s, op, bb.s, num(sum + bias).s);
    put(c, K_RESULT, "max(0, %s) = %s", num(sum + bias).s, num(v).s);
    put(c, K_NOTE, render_tr(c->o, "ReLU keeps a positive z and turns a negative one into 0."));
}

// q, k, v, the attention output, the two FFN layers and the logits.
static void arith_projection(card *c) {
    const tf_stage *s = c->s;
    const tf_layer_w *lw = layer_weights(c);
    const tf_attn_w *aw = lw ? (s->sublayer == TF_SUB_CROSS_ATTN ? &lw->cross_attn : &lw->self_attn) : NULL;
    size_t CC = (size_t)c->t->C * c->t->C;
    const tf_stage *x = input(c, 0);
    if (!x) return;
    switch (s->op) {
    case TF_OP_LOGITS: {
        if (c->m && !c->m->cfg.has_generator)
            put(c, K_NOTE, render_tr(c->o, "The generator G is tied to the target embedding (§3.4): column %d of G is the embedding of %s."), c->col,
                token(c, s->col_axis, c->col).s);
        int bias = !c->m || c->m->gen_b; // without the model, assume a bias may be there
        arith_linear(c, x, "G", bias ? "b" : NULL, c->m ? c->m->gen_w : NULL, c->m ? c->m->gen_b : NULL, 0);
        break;
    }
    case TF_OP_OUT: arith_linear(c, x, "W_O", "b_O", aw ? aw->out_w : NULL, aw ? aw->out_b : NULL, 0); break;
    case TF_OP_Q: case TF_OP_K: case TF_OP_V: {
        int which = s->op - TF_OP_Q;
        static const char *const wn[3] = {"W_Q", "W_K", "W_V"}, *const bn[3] = {"b_Q", "b_K", "b_V"};
        arith_linear(c, x, wn[which], bn[which], aw ? aw->in_w + which * CC : NULL, aw ? aw->in_b + which * c->t->C : NULL, 0);
        break;
    }
    case TF_OP_FFN_HIDDEN: arith_linear(c, x, "W₁", "b₁", lw ? lw->w1 : NULL, lw ? lw->b1 : NULL, 1); break;
    default: { // ffn.out
        arith_linear(c, x, "W₂", "b₂", lw ? lw->w2 : NULL, lw ? lw->b2 : NULL, 0);
        int zeros = 0;
        for (int k = 0; k < x->cols; k++) zeros += at(x, c->row, k) == 0;
        if (zeros) put(c, K_NOTE, render_tr(c->o, "%d of the %d hidden values in this row are 0 after ReLU, so their terms vanish."), zeros, x->cols);
    }
    }
}

// ---------------------------------------------------------------- residuals and norms
// add = x + Sublayer(x)
static void arith_add(card *c) {
    const tf_stage *x = input(c, 0), *y = input(c, 1);
    if (!x || !y) return;
    int i = c->row, j = c->col;
    if (c->t->without & TF_WITHOUT_RESIDUAL) { // what if: no residual connection
        put(c, K_TEXT, render_tr(c->o, "What if: the residual connection is switched off, so the sublayer's output replaces its input."));
        put(c, K_MATH, render_tr(c->o, "x = %s   (%s [%d, %d], not added)"), num(at(x, i, j)).s, x->id, i, j);
        put(c, K_RESULT, render_tr(c->o, "Sublayer(x) = %s"), num(at(c->s, i, j)).s);
        put(c, K_NOTE, render_tr(c->o, "Without the shortcut, what the layer was given survives only through the sublayer."));
        return;
    }
    put(c, K_TEXT, render_tr(c->o, "Residual connection: the sublayer's output is added to its own input, %s (paper §3.1)."), c->s->formula);
    put(c, K_MATH, "x = %s   (%s [%d, %d])", num(at(x, i, j)).s, x->id, i, j);
    put(c, K_MATH, render_tr(c->o, "Sublayer(x) = %s   (%s [%d, %d])"), num(at(y, i, j)).s, y->id, i, j);
    float b = at(y, i, j);
    put(c, K_RESULT, "%s %s %s = %s", num(at(x, i, j)).s, b < 0 ? "−" : "+", num(fabs(b)).s, num(at(c->s, i, j)).s);
    put(c, K_NOTE, render_tr(c->o, "The residual path lets the input (and its gradient) pass straight through the layer."));
}

// LayerNorm: (x − μ) / √(σ² + ε) · γ + β over the C features of one row
static void arith_norm(card *c) {
    const tf_stage *s = c->s, *x = input(c, 0);
    const float *g = NULL, *b = NULL;
    const tf_layer_w *lw = layer_weights(c);
    if (s->layer < 0) { // enc.norm / dec.norm
        int enc = s->side == TF_SIDE_ENC;
        if (c->m) { g = enc ? c->m->enc_norm_w : c->m->dec_norm_w; b = enc ? c->m->enc_norm_b : c->m->dec_norm_b; }
    } else if (lw) {
        int k = s->index;
        g = k == 1 ? lw->n1w : k == 2 ? lw->n2w : lw->n3w;
        b = k == 1 ? lw->n1b : k == 2 ? lw->n2b : lw->n3b;
    }
    if (!x) return;
    int i = c->row, j = c->col, C = x->cols;
    double mu = 0, var = 0;
    for (int k = 0; k < C; k++) mu += at(x, i, k);
    mu /= C;
    for (int k = 0; k < C; k++) var += (at(x, i, k) - mu) * (at(x, i, k) - mu);
    var /= C;
    put(c, K_TEXT, render_tr(c->o, "LayerNorm over the %d features of token %s (row %d of %s):"), C, token(c, s->row_axis, i).s, i, x->id);
    put(c, K_MATH, "x = %s", row_values(x, i).s);
    put(c, K_MATH, "μ = Σx ÷ %d = %s", C, num(mu).s);
    put(c, K_MATH, "σ² = Σ(x − μ)² ÷ %d = %s", C, num(var).s);
    str v = num(var), j_ = sub(j);
    if (!g || !b) { // no model (or one without this norm)
        put(c, K_MATH, "x̂%s = (x%s − μ) ÷ √(σ² + ε) = (%s) ÷ √(%s + ε)", j_.s, j_.s, minus(at(x, i, j), mu).s, v.s);
        put(c, K_RESULT, "x̂%s × γ%s + β%s = %s", j_.s, j_.s, j_.s, num(at(s, i, j)).s);
        put(c, K_NOTE, render_tr(c->o, "ε, γ and β are in the model file, not in the trace."));
        return;
    }
    double eps = c->m->cfg.eps, xhat = (at(x, i, j) - mu) / sqrt(var + eps);
    put(c, K_MATH, "x̂%s = (x%s − μ) ÷ √(σ² + ε) = (%s) ÷ √(%s + %s) = %s", j_.s, j_.s, minus(at(x, i, j), mu).s, v.s, num(eps).s, num(xhat).s);
    put(c, K_MATH, render_tr(c->o, "γ%s = %s,   β%s = %s   (the learned scale and shift)"), j_.s, num(g[j]).s, j_.s, num(b[j]).s);
    put(c, K_RESULT, "x̂%s × γ%s + β%s = %s × %s %s %s = %s", j_.s, j_.s, j_.s, num(xhat).s, num(g[j]).s, b[j] < 0 ? "−" : "+",
        num(fabs(b[j])).s, num(at(s, i, j)).s);
    put(c, K_NOTE, render_tr(c->o, "Each row is brought to mean 0 and variance 1; γ and β then set its scale and shift."));
}

// ---------------------------------------------------------------- embeddings and positions
// PE(pos, 2i) = sin(pos / 10000^(2i/C)), PE(pos, 2i+1) = cos(…)
static void arith_pe(card *c) {
    int pos = c->row, d = c->col, two_i = d & ~1, C = c->s->cols;
    if (c->t->without & TF_WITHOUT_PE) {
        put(c, K_TEXT, render_tr(c->o, "What if: the positional encoding is switched off, so every position adds 0."));
        put(c, K_RESULT, "PE%s = 0", sub2(pos, d).s);
        put(c, K_NOTE, render_tr(c->o, "The model then sees the words but not their order: self-attention gives the same result for "
                       "any order of the same words, only in that order."));
        return;
    }
    int split = c->m && c->m->cfg.pe_split, h = (C + 1) / 2, use_cos = d & 1; // (MarianMT: sin | cos halves)
    if (split) { use_cos = d >= h; two_i = 2 * (use_cos ? d - h : d); }
    double e = (double)two_i / C, base = pow(10000.0, e), angle = pos / base;
    if (split)
        put(c, K_TEXT, render_tr(c->o, "Position %d (%s), dimension %d: this model puts sin in the first half of the dimensions and cos of the "
                                       "same angles in the second half, so here i = %d."), pos, token(c, c->s->row_axis, pos).s, d, two_i / 2);
    else put(c, K_TEXT, d & 1 ? render_tr(c->o, "Position %d (%s), dimension %d = 2i + 1 with i = %d: odd dimensions use cos, even ones sin.")
                              : render_tr(c->o, "Position %d (%s), dimension %d = 2i with i = %d: even dimensions use sin, odd ones cos."),
        pos, token(c, c->s->row_axis, pos).s, d, two_i / 2);
    put(c, K_MATH, render_tr(c->o, "2i ÷ d_model = %d ÷ %d = %s,   10000^%s = %s"), two_i, C, num(e).s, num(e).s, num(base).s);
    put(c, K_MATH, render_tr(c->o, "angle = pos ÷ 10000^(2i/d_model) = %d ÷ %s = %s"), pos, num(base).s, num(angle).s);
    put(c, K_RESULT, "%s(%s) = %s", use_cos ? "cos" : "sin", num(angle).s, num(at(c->s, pos, d)).s);
    put(c, K_NOTE, render_tr(c->o, "Each pair of dimensions is a wave with wavelength 2π·10000^(2i/d_model) = %s positions: low dimensions "
                   "change fast, high ones slowly, so every position gets its own pattern (paper §3.5)."), num(2 * M_PI * base).s);
}

// embed[t][d] = E[id][d] · scale
static void arith_embed(card *c) {
    int src = c->s->side == TF_SIDE_SRC, i = c->row, d = c->col, id = -1;
    char buf[16];
    const char *label = render_axis_label(c->t, c->s->row_axis, i, c->o, buf, sizeof buf);
    const tf_vocab *voc = c->m ? (src ? &c->m->src_vocab : &c->m->tgt_vocab) : NULL;
    if (voc) id = tf_vocab_find(voc, label);
    else if (!src) id = tf_trace_vocab_id(c->t, label);
    str tok = quoted(label, c->o && c->o->rtl);
    if (id < 0) put(c, K_TEXT, src ? render_tr(c->o, "Token %s: its embedding is its row of E, the source embedding table.")
                                   : render_tr(c->o, "Token %s: its embedding is its row of E, the target embedding table."), tok.s);
    else put(c, K_TEXT, src ? render_tr(c->o, "Token %s is id %d of the source vocabulary; its embedding is row %d of E.")
                            : render_tr(c->o, "Token %s is id %d of the target vocabulary; its embedding is row %d of E."), tok.s, id, id);
    if (!src) put(c, K_NOTE, render_tr(c->o, "The decoder input is the target shifted right by one: <bos> first (paper §3.1)."));
    if (!c->m || id < 0) {
        char idbuf[16] = "id";
        if (id >= 0) snprintf(idbuf, sizeof idbuf, "%d", id);
        put(c, K_RESULT, "E[%s, %d] × scale = %s", idbuf, d, num(at(c->s, i, d)).s);
        put(c, K_NOTE, render_tr(c->o, "The embedding table is in the model file, not in the trace."));
        return;
    }
    float e = (src ? c->m->src_embed : c->m->tgt_embed)[(size_t)id * c->m->cfg.C + d], scale = c->m->cfg.embed_scale;
    put(c, K_MATH, "E[%d, %d] = %s", id, d, num(e).s);
    if (c->m->cfg.embed_scale_is_sqrt) put(c, K_MATH, render_tr(c->o, "scale = √d_model = √%d = %s"), c->m->cfg.C, num(scale).s);
    else put(c, K_MATH, render_tr(c->o, "scale = %s   (this model's embed_scale; the paper uses √d_model, §3.4)"), num(scale).s);
    put(c, K_RESULT, "%s × %s = %s", num(e).s, num(scale).s, num(at(c->s, i, d)).s);
}

// input = embed + pe
static void arith_input(card *c) {
    const tf_stage *e = input(c, 0), *p = input(c, 1);
    if (!e || !p) return;
    int i = c->row, j = c->col;
    put(c, K_TEXT, render_tr(c->o, "What the word is (its embedding) plus where it stands (its positional encoding)."));
    put(c, K_MATH, "E = %s   (%s [%d, %d])", num(at(e, i, j)).s, e->id, i, j);
    put(c, K_MATH, "PE = %s   (%s [%d, %d])", num(at(p, i, j)).s, p->id, i, j);
    float pe = at(p, i, j);
    put(c, K_RESULT, "%s %s %s = %s", num(at(e, i, j)).s, pe < 0 ? "−" : "+", num(fabs(pe)).s, num(at(c->s, i, j)).s);
}

// ---------------------------------------------------------------- the output
static void arith_probs(card *c) {
    const tf_stage *z = input(c, 0);
    if (!z) return;
    int i = c->row;
    put(c, K_TEXT, render_tr(c->o, "Probability that the token after %s (position %d) is %s: softmax over the %d logits of row %d (out.logits)."),
        token(c, c->s->row_axis, i).s, i, token(c, c->s->col_axis, c->col).s, z->cols, i);
    softmax_cell(c, z, "z", "p", 0);
    int best = 0;
    for (int k = 1; k < c->s->cols; k++) if (at(c->s, i, k) > at(c->s, i, best)) best = k;
    put(c, K_TEXT, best == c->col ? render_tr(c->o, "Most probable token after %s: %s (p = %s), this cell.")
                                  : render_tr(c->o, "Most probable token after %s: %s (p = %s)."),
        token(c, c->s->row_axis, i).s, token(c, c->s->col_axis, best).s, num(at(c->s, i, best)).s);
}

// ---------------------------------------------------------------- recurrent models
// The weights of this stage's LSTM layer (NULL without the model).
static const tf_lstm_w *lstm_weights(const card *c) {
    int dec = 0, l = tf_stage_lstm_layer(c->s, &dec);
    if (!c->m || c->m->cfg.arch != TF_ARCH_LSTM || l < 0 || l >= c->m->cfg.L_enc) return NULL;
    return dec ? &c->m->ldec[l] : &c->m->lenc[l];
}

// The state a layer's step t starts from: row t−1 of its own h (or c), or at t = 0 zeros
// (encoder) or the encoder's final state of this layer (decoder: v). Returns NULL for zeros;
// *from names it.
static const float *previous(card *c, tf_op op, int t, const char **from, int *row) {
    *from = NULL;
    *row = -1;
    if (t > 0) {
        const tf_stage *s = with_op(c, op);
        if (!s) return NULL;
        *from = s->id;
        *row = t - 1;
        return s->data + (size_t)(t - 1) * s->cols;
    }
    if (c->s->side != TF_SIDE_DEC) return NULL;
    int k = tf_stage_lstm(c->t, TF_SIDE_ENC, -1, op == TF_OP_CELL ? TF_OP_FINAL_C : TF_OP_FINAL_H);
    const tf_stage *v = stage_or_note(c, k, "enc.final");
    if (!v || c->s->layer >= v->rows) return NULL;
    *from = v->id;
    *row = c->s->layer;
    return v->data + (size_t)c->s->layer * v->cols;
}

// "step 3, “learning”": a row of a recurrent stage is a time step.
static str step_name(card *c, int t) {
    str r;
    snprintf(r.s, sizeof r.s, render_tr(c->o, "step %d, %s"), t, token(c, c->s->row_axis, t).s);
    return r;
}

// One of the products of a gate: Σ_k W[r][k] · x[k], its first terms shown.
static double gate_product(card *c, const char *wname, const char *xname, const float *W, const float *x, int n) {
    double sum = 0, first[MAX_TERMS];
    for (int k = 0; k < n; k++) {
        double term = x ? (double)W[k] * x[k] : 0;
        sum += term;
        if (k < MAX_TERMS) first[k] = term;
        if (x && show_term(c, k, n))
            put(c, K_TERM, "%s%s × %s%s = %s × %s = %s", wname, sub(k).s, xname, sub(k).s, num(W[k]).s, num(x[k]).s, num(term).s);
    }
    char lhs[64];
    snprintf(lhs, sizeof lhs, "%s·%s", wname, xname);
    if (x) put_sum(c, K_MATH, lhs, first, n, sum);
    return sum;
}

// i, f, g, o: σ (tanh for g) of the input's product, its bias, the previous
// hidden state's product and its bias.
static void arith_gate(card *c) {
    static const char *const gate[4] = {"i", "f", "g", "o"};
    static const char *const what[4] = {
        N_("The input gate: how much of the candidate g enters the cell at this step (0 nothing, 1 all of it)."),
        N_("The forget gate: how much of the cell's previous value c_{t−1} is kept (1 all of it, 0 forgotten)."),
        N_("The cell candidate: the value that may be written into the cell, between −1 and 1."),
        N_("The output gate: how much of tanh(c_t) shows in the hidden state h_t, what the next layer and step read.")};
    int k = c->s->op - TF_OP_GATE_I, t = c->row, j = c->col, C = c->s->cols;
    const tf_stage *x = input(c, 0);
    if (!x || k < 0 || k > 3) return;
    const char *from;
    int prow;
    const float *hp = previous(c, TF_OP_HIDDEN, t, &from, &prow);
    put(c, K_TEXT, render_tr(c->o, "Dimension %d of the %s gate at %s: it reads this step's input x_t (row %d of %s) and the previous hidden state h_{t−1}."),
        j, gate[k], step_name(c, t).s, t, x->id);
    if (from) put(c, K_NOTE, render_tr(c->o, "h_{t−1} is row %d of %s."), prow, from);
    else put(c, K_NOTE, render_tr(c->o, "At the first step of the encoder there is no previous state: h_{t−1} = 0."));
    if (!hp && from) return;
    put(c, K_NOTE, "%s", render_tr(c->o, what[k]));
    const tf_lstm_w *w = lstm_weights(c);
    float v = at(c->s, t, j);
    if (!w) {
        put(c, K_NOTE, render_tr(c->o, "The weights W_ih, W_hh and the biases are in the model file, not in the trace; open the model to see each term."));
        put(c, K_RESULT, k == 2 ? "tanh(W_ih·x + b_ih + W_hh·h + b_hh) = %s" : "σ(W_ih·x + b_ih + W_hh·h + b_hh) = %s", num(v).s);
        return;
    }
    int r = k * C + j, n_in = x->cols; // the row of this gate and dimension in torch.nn.LSTM's [i; f; g; o] layout
    put(c, K_TEXT, render_tr(c->o, "Row %d of W_ih and W_hh (the %s gate's rows start at %d = %d × %d):"), r, gate[k], k * C, k, C);
    double ax = gate_product(c, "W", "x", w->w_ih + (size_t)r * n_in, x->data + (size_t)t * n_in, n_in);
    double ah = hp ? gate_product(c, "U", "h", w->w_hh + (size_t)r * C, hp, C) : 0;
    if (!hp) put(c, K_MATH, "U·h = 0   (h_{t−1} = 0)");
    double bi = w->b_ih[r], bh = w->b_hh[r], z = ax + bi + ah + bh;
    put(c, K_MATH, "z = W·x + b_ih + U·h + b_hh = %s + %s + %s + %s = %s", num(ax).s, num(bi).s, num(ah).s, num(bh).s, num(z).s);
    if (k == 2) put(c, K_RESULT, "g = tanh(z) = tanh(%s) = %s", num(z).s, num(v).s);
    else put(c, K_RESULT, "%s = σ(z) = 1 ÷ (1 + exp(−z)) = 1 ÷ (1 + exp(%s)) = %s", gate[k], num(-z).s, num(v).s);
}

// c_t = f ⊙ c_{t−1} + i ⊙ g
static void arith_cell(card *c) {
    int t = c->row, j = c->col;
    const tf_stage *f = with_op(c, TF_OP_GATE_F), *i = with_op(c, TF_OP_GATE_I), *g = with_op(c, TF_OP_GATE_G);
    if (!f || !i || !g) return;
    const char *from;
    int prow;
    const float *cp = previous(c, TF_OP_CELL, t, &from, &prow);
    double fv = at(f, t, j), iv = at(i, t, j), gv = at(g, t, j), pv = cp ? cp[j] : 0;
    put(c, K_TEXT, render_tr(c->o, "The cell state, the LSTM's memory, at %s, dimension %d: what the forget gate keeps of the old value, plus what the input gate lets in of the candidate."),
        step_name(c, t).s, j);
    put(c, K_MATH, "c_t = f_t ⊙ c_{t−1} + i_t ⊙ g_t");
    put(c, K_TERM, render_tr(c->o, "f = %s   (forget gate, %s)"), num(fv).s, f->id);
    if (from) put(c, K_TERM, render_tr(c->o, "c_{t−1} = %s   (row %d of %s)"), num(pv).s, prow, from);
    else put(c, K_TERM, render_tr(c->o, "c_{t−1} = 0   (the encoder starts from zeros)"));
    put(c, K_TERM, render_tr(c->o, "i = %s   (input gate, %s)"), num(iv).s, i->id);
    put(c, K_TERM, render_tr(c->o, "g = %s   (cell candidate, %s)"), num(gv).s, g->id);
    put(c, K_MATH, "%s × %s + %s × %s = %s + %s", num(fv).s, num(pv).s, num(iv).s, num(gv).s, num(fv * pv).s, num(iv * gv).s);
    put(c, K_RESULT, "c = %s", num(at(c->s, t, j)).s);
    put(c, K_NOTE, render_tr(c->o, "Because c is carried by a sum, not squashed at every step, a value can survive many steps: the path the gradient takes back through time."));
}

// h_t = o ⊙ tanh(c_t)
static void arith_hidden(card *c) {
    int t = c->row, j = c->col;
    const tf_stage *o = with_op(c, TF_OP_GATE_O), *cs = with_op(c, TF_OP_CELL);
    if (!o || !cs) return;
    double ov = at(o, t, j), cv = at(cs, t, j);
    put(c, K_TEXT, render_tr(c->o, "The hidden state at %s, dimension %d: the cell's value squashed by tanh, shown as much as the output gate allows."), step_name(c, t).s, j);
    put(c, K_MATH, "h_t = o_t ⊙ tanh(c_t)");
    put(c, K_TERM, render_tr(c->o, "o = %s   (output gate, %s)"), num(ov).s, o->id);
    put(c, K_TERM, render_tr(c->o, "c = %s   (%s),   tanh(c) = %s"), num(cv).s, cs->id, num(tanh(cv)).s);
    put(c, K_RESULT, "h = %s × %s = %s", num(ov).s, num(tanh(cv)).s, num(at(c->s, t, j)).s);
    put(c, K_NOTE, c->s->side == TF_SIDE_ENC ? render_tr(c->o, "h goes up to the next layer at this step, and on to this layer's next step.")
                                             : render_tr(c->o, "h goes up to the next layer at this step, and on to this layer's next step; the top layer's h feeds the output."));
}

// enc.final.h / .c: the last step of each encoder layer
static void arith_final(card *c) {
    int l = c->row, j = c->col, in[64], n = tf_stage_inputs(c->t, c->stage, in, 64);
    const tf_stage *src = stage_or_note(c, l < n ? in[l] : -1, "enc");
    if (!src) return;
    int last = src->rows - 1;
    put(c, K_TEXT, render_tr(c->o, "Row %d is encoder layer %d after its last step (%s): this is all the decoder learns of the source without attention, the fixed-size v of Sutskever et al."),
        l, l + 1, step_name(c, last).s);
    put(c, K_RESULT, render_tr(c->o, "= %s[%d, %d] = %s"), src->id, last, j, num(at(c->s, l, j)).s);
    put(c, K_NOTE, render_tr(c->o, "Decoder layer %d starts from it: its h_{t−1} and c_{t−1} at the first target step."), l + 1);
}

// Luong's dot score: h_t · h̄_s
static void arith_rnn_scores(card *c) {
    const tf_stage *ht = input(c, 0), *hs = input(c, 1);
    if (!ht || !hs) return;
    int i = c->row, j = c->col, C = ht->cols;
    put(c, K_TEXT, render_tr(c->o, "Target step %d %s against source step %d %s: the dot product of the top decoder layer's h_t (%s) and the top encoder layer's h̄_s (%s)."),
        i, token(c, c->s->row_axis, i).s, j, token(c, c->s->col_axis, j).s, ht->id, hs->id);
    put(c, K_NOTE, render_tr(c->o, "No projections and no ÷ √d: Luong's \"dot\" score compares the two states as they are."));
    double first[MAX_TERMS];
    for (int d = 0; d < C; d++) {
        float a = at(ht, i, d), b = at(hs, j, d);
        if (d < MAX_TERMS) first[d] = (double)a * b;
        if (show_term(c, d, C)) put(c, K_TERM, "h%s·h̄%s = %s × %s = %s", sub(d).s, sub(d).s, num(a).s, num(b).s, num((double)a * b).s);
    }
    put_sum(c, K_RESULT, "h_t·h̄_s", first, C, at(c->s, i, j));
}

static void arith_rnn_weights(card *c) {
    const tf_stage *z = input(c, 0);
    if (!z) return;
    put(c, K_TEXT, render_tr(c->o, "Softmax over row %d (target step %s) of the scores %s: how much the decoder looks at each source step."), c->row,
        token(c, c->s->row_axis, c->row).s, z->id);
    softmax_cell(c, z, "s", "a", 1);
}

// context_t = Σ_s a_t(s) h̄_s
static void arith_context(card *c) {
    const tf_stage *w = input(c, 0), *hs = input(c, 1);
    if (!w || !hs) return;
    int i = c->row, j = c->col, S = w->cols;
    put(c, K_TEXT, render_tr(c->o, "Dimension %d of the context at target step %d: the source states' dimension %d, each weighted by its attention weight."), j, i, j);
    double first[MAX_TERMS];
    for (int s = 0; s < S; s++) {
        double term = (double)at(w, i, s) * at(hs, s, j);
        if (s < MAX_TERMS) first[s] = term;
        if (show_term(c, s, S))
            put(c, K_TERM, "a%s × h̄%s = %s × %s = %s   (%s)", sub(s).s, sub2(s, j).s, num(at(w, i, s)).s, num(at(hs, s, j)).s, num(term).s,
                token(c, w->col_axis, s).s);
    }
    put_sum(c, K_RESULT, "Σ", first, S, at(c->s, i, j));
}

// h̃ = tanh(W_c [context ; h_t] + b_c)
static void arith_combine(card *c) {
    const tf_stage *ctx = input(c, 0), *ht = input(c, 1);
    if (!ctx || !ht) return;
    int i = c->row, j = c->col, C = ctx->cols;
    put(c, K_TEXT, render_tr(c->o, "Dimension %d of h̃ at target step %d: row %d of W_c times the context and the decoder's h_t side by side, plus b_c, through tanh. The output layer reads h̃."),
        j, i, j);
    float v = at(c->s, i, j);
    if (!c->m || !c->m->attn_cw) {
        put(c, K_NOTE, render_tr(c->o, "The weights W_c and b_c are in the model file, not in the trace; open the model to see each term."));
        put(c, K_RESULT, "tanh(W_c [c_t ; h_t] + b_c) = %s", num(v).s);
        return;
    }
    const float *w = c->m->attn_cw + (size_t)j * 2 * C;
    double a = gate_product(c, "W", "c", w, ctx->data + (size_t)i * C, C);
    double b = gate_product(c, "W", "h", w + C, ht->data + (size_t)i * C, C);
    double bias = c->m->attn_cb[j], z = a + b + bias;
    put(c, K_MATH, "z = W·c + W·h + b_c = %s + %s + %s = %s", num(a).s, num(b).s, num(bias).s, num(z).s);
    put(c, K_RESULT, "h̃ = tanh(%s) = %s", num(z).s, num(v).s);
}

static void arith_rnn_embed(card *c) {
    int t = c->row, d = c->col;
    put(c, K_TEXT, render_tr(c->o, "Dimension %d of the embedding of %s, read as it is: no scaling, and no positional encoding, since the recurrence itself carries the order."),
        d, token(c, c->s->row_axis, t).s);
    if (c->s->side == TF_SIDE_SRC && c->m && c->m->cfg.reverse_source)
        put(c, K_NOTE, render_tr(c->o, "This model reads the source words last to first (Sutskever et al.): row %d is the %d-th token it reads."), t, t + 1);
    put(c, K_RESULT, "E[%s]%s = %s", token(c, c->s->row_axis, t).s, sub(d).s, num(at(c->s, t, d)).s);
}

static int explain_lstm(card *c) {
    switch (c->s->op) {
    case TF_OP_GATE_I: case TF_OP_GATE_F: case TF_OP_GATE_G: case TF_OP_GATE_O: arith_gate(c); return 1;
    case TF_OP_CELL: arith_cell(c); return 1;
    case TF_OP_HIDDEN: arith_hidden(c); return 1;
    case TF_OP_FINAL_H: case TF_OP_FINAL_C: arith_final(c); return 1;
    case TF_OP_SCORES: arith_rnn_scores(c); return 1;
    case TF_OP_WEIGHTS: arith_rnn_weights(c); return 1;
    case TF_OP_CONTEXT: arith_context(c); return 1;
    case TF_OP_OUT: arith_combine(c); return 1;
    case TF_OP_EMBED: arith_rnn_embed(c); return 1;
    default: return 0; // the logits and probabilities: as the Transformer's
    }
}

// ---------------------------------------------------------------- the lines
static void put_header(card *c) {
    const tf_stage *s = c->s;
    int i = c->row, j = c->col;
    str v = num(at(s, i, j)), r = token(c, s->row_axis, i), k = token(c, s->col_axis, j);
    if (s->col_axis == TF_AXIS_VOCAB) put(c, K_HEAD, render_tr(c->o, "%s [%d, %d] = %s — after %s, next token %s"), s->id, i, j, v.s, r.s, k.s);
    else if (tf_stage_is_attention_square(s)) put(c, K_HEAD, render_tr(c->o, "%s [%d, %d] = %s — query %s, key %s"), s->id, i, j, v.s, r.s, k.s);
    else put(c, K_HEAD, s->head >= 0 ? render_tr(c->o, "%s [%d, %d] = %s — query %s, dimension %d") : render_tr(c->o, "%s [%d, %d] = %s — token %s, dimension %d"),
             s->id, i, j, v.s, r.s, j);
}

static void explain(card *c) {
    if (c->s->family == TF_FAMILY_LSTM && explain_lstm(c)) return;
    switch (c->s->op) {
    case TF_OP_SCORES: arith_scores(c); break;
    case TF_OP_SCALED: arith_scaled(c); break;
    case TF_OP_MASKED: arith_masked(c); break;
    case TF_OP_WEIGHTS: arith_weights(c); break;
    case TF_OP_HEAD_OUT: arith_head_out(c); break;
    case TF_OP_CONCAT: arith_concat(c); break;
    case TF_OP_EMBED: arith_embed(c); break;
    case TF_OP_PE: arith_pe(c); break;
    case TF_OP_INPUT: arith_input(c); break;
    case TF_OP_ADD: arith_add(c); break;
    case TF_OP_NORM: arith_norm(c); break;
    case TF_OP_PROBS: arith_probs(c); break;
    default: arith_projection(c); break; // q, k, v, attention out, ffn.hidden, ffn.out, logits
    }
}

static int build(const tf_trace *t, const tf_model *m, int stage, int row, int col, const render_opts *o, arith_line *out, int max) {
    card c = {.t = t, .out = out, .max = max, .row = row, .col = col, .o = o};
    if (!t || stage < 0 || stage >= t->n) {
        put(&c, K_HEAD, render_tr(c.o, "No stage to explain: choose a stage, then one of its cells."));
        return c.n;
    }
    const tf_stage *s = c.s = &t->stages[stage];
    c.stage = stage;
    if (row < 0 || col < 0) {
        put(&c, K_HEAD, render_tr(c.o, "Choose a cell of %s to see how its value is computed."), s->id);
        return c.n;
    }
    if (row >= s->rows || col >= s->cols) {
        put(&c, K_HEAD, render_tr(c.o, "Cell [%d, %d] is outside %s, which is %d × %d: rows go 0…%d and columns 0…%d."), row, col, s->id, s->rows,
            s->cols, s->rows - 1, s->cols - 1);
        return c.n;
    }
    c.m = m && m->cfg.C == t->C && m->cfg.V_tgt == t->V ? m : NULL; // weights only from this trace's model
    put_header(&c);
    explain(&c);
    return c.n;
}

int render_arith_lines(const tf_trace *t, const tf_model *m, int stage, int row, int col, const render_opts *o, char lines[][200], int max) {
    arith_line buf[MAX_LINES];
    int n = build(t, m, stage, row, col, o, buf, max < MAX_LINES ? max : MAX_LINES);
    for (int i = 0; i < n; i++) memcpy(lines[i], buf[i].text, LINE_BYTES);
    return n;
}

// ---------------------------------------------------------------- the card
// A line of the card; in a right-to-left card every line is aligned to the
// right, sentences run right to left and numbers and formulas left to right.
static render_text_style line_style(int kind, double fs, const render_theme *th, double width, int rtl) {
    render_text_style st = render_style(fs, th->fg);
    st.width = width;
    int sentence = kind == K_HEAD || kind == K_TEXT || kind == K_NOTE;
    st.dir = rtl && sentence ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    // (a right-to-left paragraph's "left" is where it starts: the right)
    st.align = rtl && !sentence ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    switch (kind) {
    case K_HEAD: st.size = fs * 1.1; st.bold = 1; break;
    case K_NOTE: st.size = fs * 0.92; st.italic = !rtl; st.color = th->muted; break;
    case K_MATH: st.size = fs * 1.12; break;
    case K_TERM: st.size = fs * 1.06; break;
    case K_PICK: st.size = fs * 1.06; st.bold = 1; break;
    case K_RESULT: st.size = fs * 1.3; st.bold = 1; break;
    default: break;
    }
    return st;
}

// Draws one paragraph, top-left at (x, y); returns its height. Every line
// gets the same height (pango's line_height), so a line with a Persian or
// Arabic token, whose font is taller, keeps the pitch and baseline of the
// others; a leading left-to-right mark keeps the paragraph left to right
// even when it starts with such a token (a right-to-left mark, for a
// sentence of a right-to-left card: st->dir).
static double paragraph(cairo_t *cr, const char *text, double x, double y, const render_text_style *st) {
    char buf[LINE_BYTES * 5 + 64];
    size_t k = (size_t)snprintf(buf, sizeof buf, "<span line_height='%d'>%s", (int)(st->size * 1.4 * 1024), // Pango units
                                st->dir == RENDER_DIR_RTL ? "\u200F" : "\u200E");
    k += render_markup_escape(buf + k, sizeof buf - k - 8, text);
    snprintf(buf + k, sizeof buf - k, "</span>");
    return render_markup(cr, buf, x, y, st);
}

// Lays out and draws the card at base font size fs; returns its height.
// scratch is a context to measure on (the result box needs its height before
// it is drawn); drawing on scratch itself only measures. notes 0 leaves out
// the asides (for a small panel).
static double card_pass(cairo_t *cr, cairo_t *scratch, const tf_stage *s, const arith_line *L, int n, const render_theme *th,
                        const render_opts *o, double fs, double w, int notes) {
    int hc = o->high_contrast, rtl = o->rtl;
    double pad = fs * 1.2, x = pad, inner = w - 2 * pad, y = pad * 0.8;
    if (s) { // the title says what the card is when there is room for it on one line
        char title[300];
        snprintf(title, sizeof title, render_tr(o, "%s · how one value is computed"), render_tr(o, s->title));
        render_text_style ts = line_style(K_HEAD, fs, th, 0, rtl);
        ts.size = fs * 1.45;
        double tw, tht;
        render_text_size(cr, title, &ts, &tw, &tht);
        ts.width = inner;
        y += paragraph(cr, tw <= inner ? title : render_tr(o, s->title), x, y, &ts);
        render_text_style fsub = line_style(K_MATH, fs, th, inner, rtl);
        fsub.size = fs * 0.95;
        fsub.color = th->muted;
        y += paragraph(cr, render_tr(o, s->formula), x, y, &fsub) + fs * 0.5;
    }
    int prev = -1;
    for (int k = 0; k < n; k++) {
        int kind = L[k].kind;
        if (kind == K_NOTE && !notes) continue;
        if (prev == K_HEAD) { // a rule under the header
            y += fs * 0.5;
            render_set_rgb(cr, th->grid);
            cairo_set_line_width(cr, hc ? 2 : 1);
            cairo_move_to(cr, x, y);
            cairo_rel_line_to(cr, inner, 0);
            cairo_stroke(cr);
            y += fs * 0.5;
        } else if (prev >= 0) {
            int terms = (kind == K_TERM || kind == K_PICK) && (prev == K_TERM || prev == K_PICK);
            y += terms ? 0 : kind == K_RESULT || prev == K_RESULT ? fs * 0.7 : fs * 0.3;
        }
        if (kind == K_RESULT) { // the value itself, in an accent box
            double bp = fs * 0.45, bar = fs * 0.35;
            render_text_style st = line_style(kind, fs, th, inner - 2 * bp - bar, rtl);
            double bh = paragraph(scratch, L[k].text, 0, 0, &st) + 2 * bp;
            render_rgb tint = {th->bg.r + (th->accent.r - th->bg.r) * 0.14, th->bg.g + (th->accent.g - th->bg.g) * 0.14,
                               th->bg.b + (th->accent.b - th->bg.b) * 0.14};
            render_set_rgb(cr, tint);
            cairo_rectangle(cr, x, y, inner, bh);
            cairo_fill(cr);
            render_set_rgb(cr, th->accent);
            cairo_rectangle(cr, rtl ? x + inner - bar : x, y, bar, bh); // the accent bar on the side the line starts
            cairo_fill(cr);
            cairo_set_line_width(cr, hc ? 2.5 : 1.2);
            cairo_rectangle(cr, x, y, inner, bh);
            cairo_stroke(cr);
            paragraph(cr, L[k].text, rtl ? x + bp : x + bar + bp, y + bp, &st);
            y += bh;
        } else {
            double indent = kind == K_TERM || kind == K_PICK ? fs * 1.5 : 0;
            render_text_style st = line_style(kind, fs, th, inner - indent, rtl);
            y += paragraph(cr, L[k].text, rtl ? x : x + indent, y, &st);
        }
        prev = kind;
    }
    return y + pad;
}

// The largest base font size up to fs0 at which the card fits the height h
// (bisection down to 6 px).
static double fit_size(cairo_t *scratch, const tf_stage *s, const arith_line *L, int n, const render_theme *th, const render_opts *o,
                       double fs0, double w, double h, int notes) {
    if (card_pass(scratch, scratch, s, L, n, th, o, fs0, w, notes) <= h) return fs0;
    double lo = 6, hi = fs0;
    for (int k = 0; k < 6; k++) {
        double mid = (lo + hi) / 2;
        if (card_pass(scratch, scratch, s, L, n, th, o, mid, w, notes) <= h) lo = mid;
        else hi = mid;
    }
    return lo;
}

void render_arithmetic(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o, double w, double h) {
    render_opts defaults;
    if (!o) { render_opts_default(&defaults); o = &defaults; }
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    arith_line L[MAX_LINES];
    int n = build(t, m, stage, o->cell_row, o->cell_col, o, L, MAX_LINES);
    const tf_stage *s = t && stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    // Size from the width and the user's text scale, then as large as still
    // fits the height (measured on a 1×1 scratch surface); when that is below
    // 12 px the asides go, if that gives larger text.
    cairo_surface_t *one = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *scratch = cairo_create(one);
    double fs0 = fmin(fmax(w / 30, 11), 20) * (o->text_scale > 0 ? o->text_scale : 1);
    int notes = 1;
    double fs = fit_size(scratch, s, L, n, &th, o, fs0, w, h, 1);
    if (fs < 12 && fs < fs0) {
        double bare = fit_size(scratch, s, L, n, &th, o, fs0, w, h, 0);
        if (bare > fs) { fs = bare; notes = 0; }
    }
    card_pass(cr, scratch, s, L, n, &th, o, fs, w, notes);
    cairo_destroy(scratch);
    cairo_surface_destroy(one);
}
