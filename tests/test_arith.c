// test_arith.c — the arithmetic card: the numbers it prints for a cell are
// read back out of its lines and checked against the trace (the q·k terms add
// up to the score, the softmax numerator over the denominator is the weight,
// LayerNorm's μ and σ² are those of the add row, the PE angle and its sine),
// its words name the right tokens and explain the causal mask, a cell outside
// the stage gets one clear line, and the card paints the theme.
#include "testutil.h"

#include <cairo.h>
#include <math.h>

#include "../src/render/render.h"

#define MAXL 48

// Fontconfig keeps its caches until the process ends (pango never frees its
// default font map): LeakSanitizer is told those are not leaks of ours.
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }

typedef struct {
    tf_model m;
    tf_run r;
} fixture;

typedef struct {
    fixture mh; // tests/fixtures/multihead.safetensors: C 16, H 4, 2 + 2 layers, final norms
    fixture we; // the worked example: C 4, H 2, Persian target
} fixtures;

static void load(fixture *f, const char *model, const char *src, const char *tgt) {
    tf_err e;
    if (tf_model_load(&f->m, model, &e)) fail_msg("%s: %s", model, e.msg);
    if (tf_run_sentence(&f->r, &f->m, src, tgt, &e)) fail_msg("%s: %s", src, e.msg);
}

static int setup(void **state) {
    fixtures *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    load(&fx->mh, "tests/fixtures/multihead.safetensors", "the white house falls", "la maison blanche tombe");
    load(&fx->we, "assets/models/worked-example.safetensors", "I really enjoy learning transformers",
         "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم");
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    fixtures *fx = *state;
    tf_run_free(&fx->mh.r);
    tf_model_free(&fx->mh.m);
    tf_run_free(&fx->we.r);
    tf_model_free(&fx->we.m);
    free(fx);
    return 0;
}

// ---------------------------------------------------------------- reading the lines back
static const tf_stage *stage(const fixture *f, const char *id) {
    int k = tf_trace_find(&f->r.trace, id);
    if (k < 0) fail_msg("no stage %s in the trace", id);
    return &f->r.trace.stages[k];
}

static float cell(const fixture *f, const char *id, int i, int j) {
    const tf_stage *s = stage(f, id);
    return s->data[(size_t)i * s->cols + j];
}

// The card's lines for a cell of stage id (with the model unless no_model).
static int card(const fixture *f, const char *id, int i, int j, int no_model, char lines[][200]) {
    int n = render_arith_lines(&f->r.trace, no_model ? NULL : &f->m, tf_trace_find(&f->r.trace, id), i, j, NULL, lines, MAXL);
    if (n < 2) fail_msg("%s [%d, %d]: only %d line(s)", id, i, j, n);
    return n;
}

// The first line (after the header) starting with prefix, or containing it when anywhere is set.
static const char *line_with(char lines[][200], int n, const char *prefix, int anywhere) {
    for (int k = 1; k < n; k++)
        if (anywhere ? strstr(lines[k], prefix) != NULL : !strncmp(lines[k], prefix, strlen(prefix))) return lines[k];
    return NULL;
}

static const char *need_line(char lines[][200], int n, const char *prefix, int anywhere) {
    const char *l = line_with(lines, n, prefix, anywhere);
    if (!l) {
        for (int k = 0; k < n; k++) print_message("  | %s\n", lines[k]);
        fail_msg("no line %s \"%s\"", anywhere ? "containing" : "starting with", prefix);
    }
    return l;
}

// The last line containing needle: the result of a card comes after its general formula.
static const char *need_last(char lines[][200], int n, const char *needle) {
    for (int k = n - 1; k > 0; k--)
        if (strstr(lines[k], needle)) return lines[k];
    fail_msg("no line containing \"%s\"", needle);
    return NULL;
}

static int superscript_digit(const char **p) {
    static const char *const sup[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    for (int d = 0; d < 10; d++)
        if (!strncmp(*p, sup[d], strlen(sup[d]))) { *p += strlen(sup[d]); return d; }
    return -1;
}

// The numbers of s from the first `after` on (all of s when NULL), up to an
// annotation "   (" : "0.5", "−0.25", "6.1×10⁻⁶", "−∞". Only ASCII digits
// count (subscripts are indices); a binary minus ("a − b") negates the next
// number, so the list reads as addends.
static int numbers(const char *s, const char *after, double *out, int max) {
    const char *p = after ? strstr(s, after) : s;
    if (!p) fail_msg("no \"%s\" in \"%s\"", after, s);
    if (after) p += strlen(after);
    const char *stop = strstr(p, "   (");
    int n = 0, negate = 0;
    while (*p && (!stop || p < stop) && n < max) {
        if (!strncmp(p, "−∞", strlen("−∞"))) { out[n++] = -INFINITY; p += strlen("−∞"); negate = 0; continue; }
        if (!strncmp(p, "− ", strlen("− "))) { negate = !negate; p += strlen("− "); continue; }
        int neg = 0;
        if (!strncmp(p, "−", strlen("−")) && p[3] >= '0' && p[3] <= '9') { neg = 1; p += 3; }
        if (*p >= '0' && *p <= '9') {
            char *end;
            double v = strtod(p, &end);
            p = end;
            if (!strncmp(p, "×10⁻", strlen("×10⁻"))) {
                p += strlen("×10⁻");
                int e = 0, d;
                while ((d = superscript_digit(&p)) >= 0) e = e * 10 + d;
                v *= pow(10, -e);
            }
            out[n++] = (neg ? -v : v) * (negate ? -1 : 1);
            negate = 0;
            continue;
        }
        p++;
    }
    return n;
}

static double last_number(const char *s) {
    double v[64];
    int n = numbers(s, NULL, v, 64);
    if (n == 0) fail_msg("no number in \"%s\"", s);
    return v[n - 1];
}

// A printed value (render_format_value, 4 significant decimals) is within
// half a unit of its last digit of the exact one.
#define SHOWN(shown, exact) do { \
        double e_ = (exact), a_ = fabs(e_); \
        double tol_ = (a_ >= 1000 ? 0.5 : a_ >= 100 ? 5e-3 : a_ >= 10 ? 5e-4 : 5e-5) + 1e-6; \
        if (isinf(e_) ? (shown) != e_ : !(fabs((shown) - e_) <= tol_)) \
            fail_msg("%s = %.9g, shown as %.9g", #exact, e_, (double)(shown)); \
    } while (0)

// ---------------------------------------------------------------- attention
// Each term q_d·k_d uses Q and K of the head's columns, and the terms add up to the score.
static void check_scores(const fixture *f, const char *attn, int h, int i, int j) {
    char id[96], lines[MAXL][200], q_id[96], k_id[96];
    snprintf(id, sizeof id, "%shead.%d.scores", attn, h);
    snprintf(q_id, sizeof q_id, "%sq", attn);
    snprintf(k_id, sizeof k_id, "%sk", attn);
    int n = card(f, id, i, j, 0, lines), D = f->m.cfg.D, terms = 0;
    double sum = 0;
    for (int k = 1; k < n; k++) {
        if (strncmp(lines[k], "q", 1) || strncmp(lines[k] + 1, "\xE2\x82", 2)) continue; // "q₀·k₀ = …"
        double v[3];
        assert_int_equal(numbers(lines[k], "=", v, 3), 3);
        SHOWN(v[0], cell(f, q_id, i, h * D + terms));
        SHOWN(v[1], cell(f, k_id, j, h * D + terms));
        SHOWN(v[2], (double)cell(f, q_id, i, h * D + terms) * cell(f, k_id, j, h * D + terms));
        sum += v[2];
        terms++;
    }
    assert_int_equal(terms, D);
    CHECK_CLOSE(sum, cell(f, id, i, j), D * 5e-5);
    SHOWN(last_number(need_line(lines, n, "q·k = ", 0)), cell(f, id, i, j));
}

static void scores_terms_sum_to_the_cell(void **state) {
    fixtures *fx = *state;
    check_scores(&fx->mh, "enc.1.self_attn.", 2, 1, 3);
    check_scores(&fx->mh, "dec.0.cross_attn.", 3, 4, 0);
    check_scores(&fx->we, "dec.0.self_attn.", 1, 2, 1);
    char lines[MAXL][200];
    int n = card(&fx->mh, "dec.0.cross_attn.head.3.scores", 4, 0, 0, lines);
    need_line(lines, n, "the key from the encoder output", 1);
}

static void scaled_divides_by_sqrt_dk(void **state) {
    fixtures *fx = *state;
    char lines[MAXL][200];
    int n = card(&fx->mh, "enc.0.self_attn.head.1.scaled", 2, 3, 0, lines);
    need_line(lines, n, "d_k = 4,   √d_k = 2", 0);
    need_line(lines, n, "variance d_k", 1);
    double v[3];
    assert_int_equal(numbers(need_line(lines, n, "÷", 1), NULL, v, 3), 3); // score ÷ √d_k = scaled
    SHOWN(v[0], cell(&fx->mh, "enc.0.self_attn.head.1.scores", 2, 3));
    SHOWN(v[1], 2.0);
    SHOWN(v[2], cell(&fx->mh, "enc.0.self_attn.head.1.scaled", 2, 3));
}

static void masked_causal_cell_explains_the_mask(void **state) {
    fixtures *fx = *state;
    char lines[MAXL][200];
    // decoder self-attention, key 3 after query 1: −∞
    int n = card(&fx->we, "dec.0.self_attn.head.1.masked", 1, 3, 0, lines);
    assert_non_null(strstr(lines[0], "= −∞"));
    const char *why = need_line(lines, n, "−∞ because key 3 ", 0);
    assert_non_null(strstr(why, "comes after query 1"));
    assert_non_null(strstr(why, "(causal mask): position 1 may not look ahead"));
    assert_non_null(strstr(why, fx->we.r.trace.tgt_labels[3]));
    assert_true(isinf(last_number(need_line(lines, n, "masked₁,₃ = ", 0))));
    // below the diagonal the score passes unchanged
    n = card(&fx->we, "dec.0.self_attn.head.1.masked", 3, 1, 0, lines);
    need_line(lines, n, "does not come after", 1);
    SHOWN(last_number(need_line(lines, n, "masked₃,₁ = scaled₃,₁ = ", 0)), cell(&fx->we, "dec.0.self_attn.head.1.scaled", 3, 1));
    // encoder and cross-attention mask nothing
    n = card(&fx->mh, "enc.1.self_attn.head.0.masked", 0, 3, 0, lines);
    need_line(lines, n, "Nothing is masked here", 0);
    n = card(&fx->we, "dec.0.cross_attn.head.0.masked", 0, 4, 0, lines);
    need_line(lines, n, "Nothing is masked here", 0);
    assert_null(line_with(lines, n, "causal", 1));
}

// Each exp term is exp(s − max) of the masked row, they add up to the
// denominator, and numerator ÷ denominator is the weight.
static void check_softmax_row(const fixture *f, const char *id, const char *z_id, int i, int j) {
    char lines[MAXL][200];
    int n = card(f, id, i, j, 0, lines);
    const tf_stage *z = stage(f, z_id);
    double mx = -INFINITY;
    for (int k = 0; k < z->cols; k++) mx = fmax(mx, z->data[(size_t)i * z->cols + k]);
    SHOWN(last_number(need_line(lines, n, "max = ", 0)), mx);
    double den = 0, num_j = NAN;
    int terms = 0;
    for (int k = 1; k < n; k++) {
        if (strncmp(lines[k], "exp(", 4) || !strstr(lines[k], " = ")) continue; // one term: "exp(s − max) = e   (key …)"
        double v[4];
        int c = numbers(lines[k], NULL, v, 4), col = terms++;
        float zk = z->data[(size_t)i * z->cols + col];
        if (isinf(zk)) { // "exp(−∞) = 0", masked
            assert_int_equal(c, 2);
            assert_true(isinf(v[0]) && v[1] == 0);
            assert_non_null(strstr(lines[k], "masked"));
        } else { // "exp(s − max) = e": s, −max, e
            assert_int_equal(c, 3);
            SHOWN(v[0], zk);
            SHOWN(-v[1], mx);
            SHOWN(v[2], exp(zk - mx));
        }
        den += v[c - 1];
        if (col == j) { num_j = v[c - 1]; assert_non_null(strstr(lines[k], "this cell")); }
    }
    assert_int_equal(terms, z->cols);
    CHECK_CLOSE(last_number(need_line(lines, n, "denominator Σ = ", 0)), den, terms * 5e-5); // den adds rounded terms
    double r[3];
    const char *result = need_last(lines, n, " ÷ ");
    assert_int_equal(numbers(result, "=", r, 3), 3);
    CHECK_CLOSE(r[0], num_j, 1e-12);
    CHECK_CLOSE(r[1], den, terms * 5e-5);
    CHECK_CLOSE(r[0] / r[1], cell(f, id, i, j), 2e-4);
    SHOWN(r[2], cell(f, id, i, j));
}

static void weights_softmax_numerator_over_denominator(void **state) {
    fixtures *fx = *state;
    check_softmax_row(&fx->mh, "enc.0.self_attn.head.2.weights", "enc.0.self_attn.head.2.masked", 1, 2);
    check_softmax_row(&fx->mh, "dec.1.cross_attn.head.0.weights", "dec.1.cross_attn.head.0.masked", 3, 1);
    check_softmax_row(&fx->we, "dec.0.self_attn.head.1.weights", "dec.0.self_attn.head.1.masked", 2, 1);
    check_softmax_row(&fx->we, "dec.0.self_attn.head.1.weights", "dec.0.self_attn.head.1.masked", 2, 6); // a masked cell
    // the masked cell says why it is 0, and the row sums to 1
    char lines[MAXL][200];
    int n = card(&fx->we, "dec.0.self_attn.head.1.weights", 2, 6, 0, lines);
    need_line(lines, n, "Key 6 comes after query 2 (causal mask), so its score is −∞", 0);
    int masked = 0;
    for (int k = 0; k < n; k++) masked += !strncmp(lines[k], "exp(", 4) && strstr(lines[k], "exp(−∞) = 0") != NULL;
    assert_int_equal(masked, fx->we.r.T - 3); // keys 3 … T−1 come after query 2
    SHOWN(last_number(need_line(lines, n, "Row 2 sums to 1: ", 0)), 1.0);
}

static void head_out_weighted_sum_of_values(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    int h = 3, i = 2, d = 1, D = f->m.cfg.D;
    char lines[MAXL][200];
    int n = card(f, "dec.1.cross_attn.head.3.out", i, d, 0, lines);
    int terms = 0;
    double sum = 0;
    for (int k = 1; k < n; k++) {
        if (strncmp(lines[k], "a", 1) || !strstr(lines[k], " · v")) continue; // "a₂,₀ · v₀ = a × v = p"
        double v[3];
        assert_int_equal(numbers(lines[k], "=", v, 3), 3);
        SHOWN(v[0], cell(f, "dec.1.cross_attn.head.3.weights", i, terms));
        SHOWN(v[1], cell(f, "dec.1.cross_attn.v", terms, h * D + d));
        sum += v[2];
        terms++;
    }
    assert_int_equal(terms, f->r.S);
    CHECK_CLOSE(sum, cell(f, "dec.1.cross_attn.head.3.out", i, d), terms * 5e-5);
    SHOWN(last_number(need_line(lines, n, "Σ = ", 0)), cell(f, "dec.1.cross_attn.head.3.out", i, d));
}

static void concat_names_head_and_column(void **state) {
    fixtures *fx = *state;
    char lines[MAXL][200];
    int n = card(&fx->mh, "enc.0.self_attn.concat", 1, 9, 0, lines); // D = 4: column 9 = head 2, column 1
    need_line(lines, n, "column 9 is column 1 of head 3", 1); // head.2, titled "Head 3"
    const char *r = need_line(lines, n, "head.2.out [1, 1] = ", 0);
    SHOWN(last_number(r), cell(&fx->mh, "enc.0.self_attn.head.2.out", 1, 1));
}

// ---------------------------------------------------------------- linear layers
// x · W column + b with the model's weights: the terms, then "Σ + b = s + b = v".
static void check_linear(const fixture *f, const char *id, const char *x_id, const float *W, const float *b, int i, int o, int relu) {
    char lines[MAXL][200];
    int n = card(f, id, i, o, 0, lines);
    const tf_stage *x = stage(f, x_id);
    double sum = 0;
    for (int k = 0; k < x->cols; k++) sum += (double)x->data[(size_t)i * x->cols + k] * W[(size_t)o * x->cols + k];
    char row[96];
    snprintf(row, sizeof row, "(row %d of %s)", i, x_id);
    const char *xl = need_line(lines, n, row, 1);
    double xv[8];
    assert_true(numbers(xl, "x = ", xv, 8) >= 4);
    SHOWN(xv[0], x->data[(size_t)i * x->cols]); // the input row it comes from
    if (x->cols > 8) need_line(lines, n, "more terms", 1);
    double v[3];
    assert_int_equal(numbers(need_line(lines, n, relu ? "z = Σ " : "Σ ", 0), "] = ", v, 3), 3); // Σ ± b[o] = s ± b = value
    SHOWN(v[0], sum);
    SHOWN(v[1], b[o]);
    double z = sum + b[o];
    SHOWN(v[2], relu ? z : cell(f, id, i, o));
    if (relu) SHOWN(last_number(need_line(lines, n, "max(0, ", 0)), fmax(0, z));
    SHOWN(relu ? fmax(0, z) : z, cell(f, id, i, o));
}

static void linear_terms_and_bias_give_the_value(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    const tf_layer_w *e1 = &f->m.enc[1], *d0 = &f->m.dec[0];
    size_t CC = (size_t)f->m.cfg.C * f->m.cfg.C;
    check_linear(f, "enc.1.self_attn.q", "enc.0.norm2", e1->self_attn.in_w, e1->self_attn.in_b, 2, 5, 0);
    check_linear(f, "dec.0.cross_attn.k", "enc.norm", d0->cross_attn.in_w + CC, d0->cross_attn.in_b + f->m.cfg.C, 3, 7, 0);
    check_linear(f, "dec.0.cross_attn.out", "dec.0.cross_attn.concat", d0->cross_attn.out_w, d0->cross_attn.out_b, 1, 2, 0);
    check_linear(f, "dec.0.ffn.out", "dec.0.ffn.hidden", d0->w2, d0->b2, 4, 0, 0); // F = 32 terms: "… more terms"
    // ReLU: one cell cut to 0, one passed through
    const tf_stage *hid = stage(f, "enc.0.ffn.hidden");
    int cut = -1, pass = -1;
    for (int k = 0; k < hid->cols; k++) {
        if (hid->data[k] == 0 && cut < 0) cut = k;
        if (hid->data[k] > 0 && pass < 0) pass = k;
    }
    assert_true(cut >= 0 && pass >= 0);
    check_linear(f, "enc.0.ffn.hidden", "enc.0.norm1", f->m.enc[0].w1, f->m.enc[0].b1, 0, cut, 1);
    check_linear(f, "enc.0.ffn.hidden", "enc.0.norm1", f->m.enc[0].w1, f->m.enc[0].b1, 0, pass, 1);
    // the generator of the worked example is tied to the target embedding and has no bias
    const fixture *w = &fx->we;
    char lines[MAXL][200];
    int n = card(w, "out.logits", 1, 4, 0, lines);
    need_line(lines, n, "tied to the target embedding", 1);
    need_line(lines, n, "no bias", 1);
    SHOWN(last_number(need_line(lines, n, "Σ = ", 0)), cell(w, "out.logits", 1, 4));
    // without the model: what it is, and where the weights are
    n = card(f, "enc.1.self_attn.q", 2, 5, 1, lines);
    need_line(lines, n, "not in the trace", 1);
    need_line(lines, n, "(row 2 of enc.0.norm2)", 1);
    SHOWN(last_number(lines[n - 1]), cell(f, "enc.1.self_attn.q", 2, 5));
}

// ---------------------------------------------------------------- residuals and norms
static void add_shows_both_addends(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    const char *ids[][3] = {{"enc.1.add1", "enc.0.norm2", "enc.1.self_attn.out"},
                            {"dec.0.add1", "tgt.input", "dec.0.self_attn.out"},
                            {"dec.1.add2", "dec.1.norm1", "dec.1.cross_attn.out"},
                            {"dec.1.add3", "dec.1.norm2", "dec.1.ffn.out"}};
    for (int k = 0; k < 4; k++) {
        char lines[MAXL][200];
        int n = card(f, ids[k][0], 2, 11, 0, lines);
        need_line(lines, n, ids[k][1], 1);
        need_line(lines, n, ids[k][2], 1);
        double v[3];
        const char *r = lines[n - 2]; // the result, before the closing note
        assert_int_equal(numbers(r, NULL, v, 3), 3);
        SHOWN(v[0], cell(f, ids[k][1], 2, 11));
        SHOWN(v[1], cell(f, ids[k][2], 2, 11));
        SHOWN(v[2], cell(f, ids[k][0], 2, 11));
    }
}

// μ and σ² of the add row, x̂, then × γ + β with the model's weights.
static void check_norm(const fixture *f, const char *id, const char *x_id, const float *g, const float *b, int i, int j) {
    char lines[MAXL][200];
    int n = card(f, id, i, j, 0, lines);
    const tf_stage *x = stage(f, x_id);
    const float *row = x->data + (size_t)i * x->cols;
    double mu = 0, var = 0;
    for (int k = 0; k < x->cols; k++) mu += row[k];
    mu /= x->cols;
    for (int k = 0; k < x->cols; k++) var += (row[k] - mu) * (row[k] - mu);
    var /= x->cols;
    need_line(lines, n, x_id, 1);
    SHOWN(last_number(need_line(lines, n, "μ = ", 0)), mu);
    SHOWN(last_number(need_line(lines, n, "σ² = ", 0)), var);
    double xhat = (row[j] - mu) / sqrt(var + f->m.cfg.eps);
    SHOWN(last_number(need_line(lines, n, "x̂", 0)), xhat);
    double v[4];
    assert_int_equal(numbers(need_line(lines, n, " × γ", 1), "=", v, 4), 4); // x̂ × γ + β = value
    SHOWN(v[0], xhat);
    SHOWN(v[1], g[j]);
    SHOWN(v[2], b[j]);
    SHOWN(v[3], cell(f, id, i, j));
    CHECK_CLOSE(xhat * g[j] + b[j], cell(f, id, i, j), 1e-4);
}

static void norm_mean_and_variance_of_the_add_row(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    check_norm(f, "enc.0.norm1", "enc.0.add1", f->m.enc[0].n1w, f->m.enc[0].n1b, 1, 4);
    check_norm(f, "dec.1.norm3", "dec.1.add3", f->m.dec[1].n3w, f->m.dec[1].n3b, 3, 15);
    check_norm(f, "enc.norm", "enc.1.norm2", f->m.enc_norm_w, f->m.enc_norm_b, 2, 0);
    check_norm(f, "dec.norm", "dec.1.norm3", f->m.dec_norm_w, f->m.dec_norm_b, 0, 7);
    check_norm(&fx->we, "dec.0.norm2", "dec.0.add2", fx->we.m.dec[0].n2w, fx->we.m.dec[0].n2b, 5, 2);
    // without the model: still μ and σ², and where γ and β live
    char lines[MAXL][200];
    int n = card(f, "enc.0.norm1", 1, 4, 1, lines);
    need_line(lines, n, "μ = ", 0);
    need_line(lines, n, "ε, γ and β are in the model file", 0);
}

// ---------------------------------------------------------------- embeddings, positions, output
static void check_pe(const fixture *f, const char *id, int pos, int d) {
    char lines[MAXL][200];
    int n = card(f, id, pos, d, 0, lines);
    int C = f->m.cfg.C, two_i = d & ~1;
    double base = pow(10000.0, (double)two_i / C), angle = pos / base;
    char want[64];
    snprintf(want, sizeof want, "2i ÷ d_model = %d ÷ %d", two_i, C);
    need_line(lines, n, want, 0);
    SHOWN(last_number(need_line(lines, n, "angle = ", 0)), angle);
    const char *r = need_line(lines, n, d & 1 ? "cos(" : "sin(", 0);
    double v[2];
    assert_int_equal(numbers(r, NULL, v, 2), 2);
    SHOWN(v[0], angle);
    SHOWN(v[1], cell(f, id, pos, d));
    CHECK_CLOSE(d & 1 ? cos(v[0]) : sin(v[0]), v[1], 1e-4);
}

static void pe_angle_and_sine(void **state) {
    fixtures *fx = *state;
    check_pe(&fx->we, "src.pe", 2, 3); // cos(2 / 100)
    check_pe(&fx->we, "tgt.pe", 4, 1); // cos(4): the slides' −0.65364
    check_pe(&fx->mh, "src.pe", 3, 6); // sin(3 / 10000^(6/16))
    check_pe(&fx->mh, "tgt.pe", 4, 15);
}

static void embed_and_input(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    char lines[MAXL][200];
    // "house" in the source: its id, E[id][d], × √d_model
    int id = tf_vocab_find(&f->m.src_vocab, "house"), n = card(f, "src.embed", 2, 5, 0, lines);
    char want[64];
    snprintf(want, sizeof want, "is id %d of the source vocabulary", id);
    need_line(lines, n, want, 1);
    need_line(lines, n, "scale = √d_model = √16 = 4", 0);
    double v[3];
    assert_int_equal(numbers(lines[n - 1], NULL, v, 3), 3);
    SHOWN(v[0], f->m.src_embed[(size_t)id * f->m.cfg.C + 5]);
    SHOWN(v[1], 4.0);
    SHOWN(v[2], cell(f, "src.embed", 2, 5));
    // the decoder input: <bos> first
    n = card(f, "tgt.embed", 0, 1, 0, lines);
    assert_non_null(strstr(lines[0], "“<bos>”"));
    need_line(lines, n, "shifted right", 1);
    // input = E + PE
    n = card(f, "tgt.input", 3, 2, 0, lines);
    assert_int_equal(numbers(lines[n - 1], NULL, v, 3), 3);
    SHOWN(v[0], cell(f, "tgt.embed", 3, 2));
    SHOWN(v[1], cell(f, "tgt.pe", 3, 2));
    SHOWN(v[2], cell(f, "tgt.input", 3, 2));
}

static void probs_softmax_over_the_vocabulary(void **state) {
    fixtures *fx = *state;
    for (int k = 0; k < 2; k++) {
        const fixture *f = k ? &fx->we : &fx->mh;
        const tf_trace *t = &f->r.trace;
        int i = 2, col = 5, V = t->V;
        char lines[MAXL][200];
        int n = card(f, "out.probs", i, col, 0, lines);
        const tf_stage *z = stage(f, "out.logits"), *p = stage(f, "out.probs");
        const float *zr = z->data + (size_t)i * V, *pr = p->data + (size_t)i * V;
        double mx = -INFINITY, den = 0;
        int best = 0;
        for (int c = 0; c < V; c++) mx = fmax(mx, zr[c]);
        for (int c = 0; c < V; c++) den += exp(zr[c] - mx);
        for (int c = 1; c < V; c++) if (pr[c] > pr[best]) best = c;
        assert_true(V > 8); // numerator and denominator, not every term
        double v[3];
        assert_int_equal(numbers(need_line(lines, n, "numerator: ", 0), "=", v, 3), 3);
        SHOWN(v[0], zr[col]);
        SHOWN(-v[1], mx);
        SHOWN(v[2], exp(zr[col] - mx));
        SHOWN(last_number(need_line(lines, n, "denominator: Σ over the ", 0)), den);
        assert_int_equal(numbers(need_last(lines, n, " ÷ "), "=", v, 3), 3);
        SHOWN(v[2], pr[col]);
        CHECK_CLOSE(v[0] / v[1], pr[col], 2e-4);
        // which token the column is, and the row's most probable one
        assert_non_null(strstr(lines[0], t->vocab[col]));
        assert_non_null(strstr(lines[0], t->tgt_labels[i]));
        const char *top = need_line(lines, n, "Most probable token after ", 0);
        assert_non_null(strstr(top, t->vocab[best]));
        SHOWN(last_number(top), pr[best]);
    }
}

// ---------------------------------------------------------------- header, edges, every stage
static void header_names_the_tokens(void **state) {
    fixtures *fx = *state;
    char lines[MAXL][200], want[200], v[32];
    card(&fx->mh, "enc.0.self_attn.head.1.weights", 1, 2, 0, lines);
    snprintf(want, sizeof want, "enc.0.self_attn.head.1.weights [1, 2] = %s — query “white”, key “house”",
             render_format_value(cell(&fx->mh, "enc.0.self_attn.head.1.weights", 1, 2), v, sizeof v, 4));
    assert_string_equal(lines[0], want);
    // a Persian query and an English key, each in its own isolated run
    const tf_trace *t = &fx->we.r.trace;
    card(&fx->we, "dec.0.cross_attn.head.0.weights", 3, 2, 0, lines);
    snprintf(want, sizeof want, "query “\u2068%s\u2069”, key “enjoy”", t->tgt_labels[3]);
    assert_non_null(strstr(lines[0], want));
    assert_non_null(strstr(lines[0], "dec.0.cross_attn.head.0.weights [3, 2] = "));
    card(&fx->mh, "enc.1.norm2", 3, 9, 0, lines);
    assert_non_null(strstr(lines[0], "token “falls”, dimension 9"));
}

static void out_of_range_cell_says_so(void **state) {
    fixtures *fx = *state;
    const fixture *f = &fx->mh;
    const tf_trace *t = &f->r.trace;
    int k = tf_trace_find(t, "enc.0.add1");
    char lines[MAXL][200];
    assert_int_equal(render_arith_lines(t, &f->m, k, 99, 0, NULL, lines, MAXL), 1);
    assert_non_null(strstr(lines[0], "is outside enc.0.add1, which is 4 × 16"));
    assert_int_equal(render_arith_lines(t, &f->m, k, 0, 16, NULL, lines, MAXL), 1);
    assert_non_null(strstr(lines[0], "is outside"));
    assert_int_equal(render_arith_lines(t, &f->m, k, -1, -1, NULL, lines, MAXL), 1);
    assert_non_null(strstr(lines[0], "Choose a cell of enc.0.add1"));
    assert_int_equal(render_arith_lines(t, &f->m, t->n, 0, 0, NULL, lines, MAXL), 1);
    assert_int_equal(render_arith_lines(t, &f->m, -1, 0, 0, NULL, lines, MAXL), 1);
    assert_int_equal(render_arith_lines(t, &f->m, k, 0, 0, NULL, lines, 0), 0);
    assert_int_equal(render_arith_lines(t, &f->m, tf_trace_find(t, "dec.0.self_attn.head.0.weights"), 3, 1, NULL, lines, 3), 3);
    // a model that is not this trace's is not used for weights
    int n = render_arith_lines(&fx->we.r.trace, &f->m, tf_trace_find(&fx->we.r.trace, "enc.0.self_attn.q"), 0, 0, NULL, lines, MAXL);
    assert_non_null(line_with(lines, n, "not in the trace", 1));
}

// Every stage, at three cells, with and without the model: short valid
// UTF-8 lines, a header naming the stage, and a line that reaches the value.
static void every_stage_reaches_its_value(void **state) {
    fixtures *fx = *state;
    for (int fi = 0; fi < 2; fi++) {
        const fixture *f = fi ? &fx->we : &fx->mh;
        const tf_trace *t = &f->r.trace;
        for (int s = 0; s < t->n; s++) {
            const tf_stage *st = &t->stages[s];
            int cells[3][2] = {{0, 0}, {st->rows - 1, st->cols - 1}, {st->rows / 2, st->cols / 2}};
            for (int c = 0; c < 3; c++)
                for (int no_model = 0; no_model < 2; no_model++) {
                    int i = cells[c][0], j = cells[c][1];
                    char lines[MAXL][200];
                    int n = card(f, st->id, i, j, no_model, lines);
                    assert_true(n >= 3);
                    char head[120];
                    snprintf(head, sizeof head, "%s [%d, %d] = ", st->id, i, j);
                    if (strncmp(lines[0], head, strlen(head))) fail_msg("header \"%s\", expected \"%s…\"", lines[0], head);
                    float v = st->data[(size_t)i * st->cols + j];
                    int reached = 0;
                    for (int k = 0; k < n; k++) {
                        size_t bad, len = strlen(lines[k]);
                        if (len >= 199 || tf_utf8_check(lines[k], len, &bad)) fail_msg("%s: bad line \"%s\"", st->id, lines[k]);
                        if (strstr(lines[k], "is not in this trace")) fail_msg("%s: %s", st->id, lines[k]);
                        double all[64];
                        int m = k == 0 ? 0 : numbers(lines[k], NULL, all, 64);
                        if (m == 0) continue;
                        double x = all[m - 1];
                        reached |= isinf(v) ? isinf(x) : fabs(x - v) <= 5e-5 * fmax(1, fabs(v) * 10);
                    }
                    if (!reached) {
                        for (int k = 0; k < n; k++) print_message("  | %s\n", lines[k]);
                        fail_msg("%s [%d, %d]%s: no line ends in its value %g", st->id, i, j, no_model ? " without the model" : "", (double)v);
                    }
                }
        }
    }
}

// ---------------------------------------------------------------- the card
static render_rgb pixel(cairo_surface_t *sf, int x, int y) {
    const unsigned char *px = cairo_image_surface_get_data(sf) + (size_t)y * cairo_image_surface_get_stride(sf);
    uint32_t p = ((const uint32_t *)px)[x];
    return (render_rgb){((p >> 16) & 255) / 255.0, ((p >> 8) & 255) / 255.0, (p & 255) / 255.0};
}

static int same(render_rgb a, render_rgb b) { return fabs(a.r - b.r) < 0.02 && fabs(a.g - b.g) < 0.02 && fabs(a.b - b.b) < 0.02; }

// A recurrent model's cards (tests/fixtures/lstm/lstm3_attn_rev: 3 layers,
// attention, source reversed): every gate's z is the sum of its four terms and
// σ(z) (tanh(z) for g) is the gate's value in the trace; c = f·c_(t−1) + i·g and
// h = o·tanh(c) add up to the trace's c and h, in the encoder and the decoder.
static void lstm_gates_cell_and_state(void **state) {
    (void)state;
    fixture f;
    load(&f, "tests/fixtures/lstm/lstm3_attn_rev.safetensors", "I really enjoy learning transformers", "من واقعاً از یادگیری لذت می‌برم");
    char lines[MAXL][200], id[64];
    double v[8];
    int checked = 0;
    static const char *const sides[] = {"enc", "dec"}, *const gates = "ifgo";
    for (int sd = 0; sd < 2; sd++)
        for (int l = 0; l < 3; l++)
            for (int t = 0; t < 3; t++) {
                int j = (3 * l + t) % 5;
                for (int k = 0; k < 4; k++) {
                    snprintf(id, sizeof id, "%s.%d.%c", sides[sd], l, gates[k]);
                    int n = card(&f, id, t, j, 0, lines);
                    double want = cell(&f, id, t, j);
                    const char *zl = need_line(lines, n, "z = W·x + b_ih + U·h + b_hh =", 0);
                    if (numbers(zl, " = ", v, 8) != 5) fail_msg("%s: %s", id, zl);
                    double z = v[4];
                    CHECK_CLOSE(v[0] + v[1] + v[2] + v[3], z, 3e-4);
                    double g = k == 2 ? tanh(z) : 1 / (1 + exp(-z));
                    CHECK_CLOSE(g, want, 2e-4);
                    char res[8];
                    snprintf(res, sizeof res, "%c = ", gates[k]);
                    const char *rl = need_line(lines, n, res, 0);
                    int m = numbers(rl, NULL, v, 8);
                    CHECK_CLOSE(v[m - 1], want, 1e-4);
                    checked++;
                }
                snprintf(id, sizeof id, "%s.%d.c", sides[sd], l);
                int n = card(&f, id, t, j, 0, lines);
                const char *ml = need_line(lines, n, " × ", 1);
                if (numbers(ml, NULL, v, 8) != 6) fail_msg("%s: %s", id, ml);
                CHECK_CLOSE(v[0] * v[1] + v[2] * v[3], cell(&f, id, t, j), 2e-4);
                CHECK_CLOSE(v[0], cell(&f, (snprintf(id, sizeof id, "%s.%d.f", sides[sd], l), id), t, j), 1e-4);
                snprintf(id, sizeof id, "%s.%d.h", sides[sd], l);
                n = card(&f, id, t, j, 0, lines);
                const char *hl = need_line(lines, n, "h = ", 0);
                if (numbers(hl, NULL, v, 8) != 3) fail_msg("%s: %s", id, hl);
                CHECK_CLOSE(v[0] * v[1], cell(&f, id, t, j), 2e-4);
                CHECK_CLOSE(v[2], cell(&f, id, t, j), 1e-4);
                checked += 2;
            }
    printf("  lstm3_attn_rev: %d gate, cell and state cards add up to the trace\n", checked);
    tf_run_free(&f.r);
    tf_model_free(&f.m);
}

static void card_paints_theme_and_accent(void **state) {
    fixtures *fx = *state;
    const tf_trace *t = &fx->we.r.trace;
    int k = tf_trace_find(t, "dec.0.self_attn.head.1.weights");
    double sizes[2][2] = {{1000, 800}, {420, 600}};
    for (int hc = 0; hc < 2; hc++)
        for (int z = 0; z < 2; z++) {
            int w = (int)sizes[z][0], h = (int)sizes[z][1];
            cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
            cairo_t *cr = cairo_create(sf);
            render_opts o;
            render_opts_default(&o);
            o.high_contrast = hc;
            o.cell_row = 2;
            o.cell_col = 1;
            render_arithmetic(cr, t, &fx->we.m, k, &o, w, h);
            cairo_surface_flush(sf);
            render_theme th = render_theme_get(&o);
            assert_true(same(pixel(sf, 0, 0), th.bg));
            assert_true(same(pixel(sf, w - 1, h - 1), th.bg)); // the card fits: nothing drawn at the bottom edge
            int accent = 0, ink = 0;
            for (int y = 0; y < h; y += 2)
                for (int x = 0; x < w; x += 2) {
                    render_rgb p = pixel(sf, x, y);
                    accent += same(p, th.accent);
                    ink += same(p, th.fg);
                }
            if (accent < 20 || ink < 200) fail_msg("theme %d at %dx%d: %d accent, %d text pixels", hc, w, h, accent, ink);
            cairo_destroy(cr);
            cairo_surface_destroy(sf);
        }
    // no cell chosen, a stage out of range: the background and one line, no crash
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 420, 600);
    cairo_t *cr = cairo_create(sf);
    render_opts o;
    render_opts_default(&o);
    render_arithmetic(cr, t, &fx->we.m, k, &o, 420, 600);
    render_arithmetic(cr, t, NULL, t->n + 5, &o, 420, 600);
    cairo_surface_flush(sf);
    assert_true(same(pixel(sf, 0, 0), render_theme_get(&o).bg));
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// cmocka_unit_test with a hierarchical name that says what broke.
#define TEST(name, f) { name, f, NULL, NULL, NULL }

int main(void) {
    const struct CMUnitTest tests[] = {
        TEST("arith/scores/terms-sum-to-the-cell", scores_terms_sum_to_the_cell),
        TEST("arith/scaled/divides-by-sqrt-dk", scaled_divides_by_sqrt_dk),
        TEST("arith/masked/causal-cell-explains-the-mask", masked_causal_cell_explains_the_mask),
        TEST("arith/weights/numerator-over-denominator", weights_softmax_numerator_over_denominator),
        TEST("arith/head-out/weighted-sum-of-values", head_out_weighted_sum_of_values),
        TEST("arith/concat/names-head-and-column", concat_names_head_and_column),
        TEST("arith/linear/terms-and-bias-give-the-value", linear_terms_and_bias_give_the_value),
        TEST("arith/add/shows-both-addends", add_shows_both_addends),
        TEST("arith/norm/mean-and-variance-of-the-add-row", norm_mean_and_variance_of_the_add_row),
        TEST("arith/pe/angle-and-sine", pe_angle_and_sine),
        TEST("arith/embed-and-input/id-scale-and-sum", embed_and_input),
        TEST("arith/probs/softmax-over-the-vocabulary", probs_softmax_over_the_vocabulary),
        TEST("arith/header/names-the-tokens", header_names_the_tokens),
        TEST("arith/edges/out-of-range-cell-says-so", out_of_range_cell_says_so),
        TEST("arith/every-stage/reaches-its-value", every_stage_reaches_its_value),
        TEST("arith/lstm/gates-cell-and-state-add-up", lstm_gates_cell_and_state),
        TEST("arith/card/paints-theme-and-accent", card_paints_theme_and_accent),
    };
    return cmocka_run_group_tests_name("arith", tests, setup, teardown);
}
