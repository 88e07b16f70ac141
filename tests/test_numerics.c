// test_numerics.c — the operations at the edges of float arithmetic: huge
// scores, −∞ and fully masked rows, constant vectors, denormals, and a whole
// forward pass on a model with huge (but finite) weights. Every result is
// defined, and none is NaN.
#include "testutil.h"

#include <float.h>
#include <math.h>

static void assert_row_is_distribution(const float *p, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (!(p[i] >= 0.0f && p[i] <= 1.0f)) fail_msg("p[%d] = %g is not a probability", i, (double)p[i]);
        sum += p[i];
    }
    CHECK_CLOSE(sum, 1.0, 1e-6);
}

// ---------------------------------------------------------------- softmax
static void softmax_huge_scores(void **state) {
    (void)state;
    float p[4];
    const float huge[4] = {1e30f, 1e30f, -1e30f, 0}; // no overflow: the max is subtracted first
    tf_softmax_rows(p, huge, 1, 4);
    CHECK_CLOSE(p[0], 0.5, 1e-7);
    CHECK_CLOSE(p[1], 0.5, 1e-7);
    assert_true(p[2] == 0.0f && p[3] == 0.0f);
    // the largest floats: −FLT_MAX − FLT_MAX overflows to −∞, and exp(−∞) is exactly 0
    const float extreme[4] = {FLT_MAX, -FLT_MAX, FLT_MAX, 1.0f};
    tf_softmax_rows(p, extreme, 1, 4);
    CHECK_CLOSE(p[0], 0.5, 1e-7);
    CHECK_CLOSE(p[2], 0.5, 1e-7);
    assert_true(p[1] == 0.0f && p[3] == 0.0f);
    const float all_min[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX}; // equal scores, however small: uniform
    tf_softmax_rows(p, all_min, 1, 3);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(p[i], 1.0 / 3, 1e-7);
    // equal huge scores share the row, however large
    const float equal[2] = {1e30f, 1e30f};
    tf_softmax_rows(p, equal, 1, 2);
    CHECK_CLOSE(p[0], 0.5, 1e-7);
}

static void softmax_masked_rows(void **state) {
    (void)state;
    float p[4];
    const float masked[4] = {0.5f, -INFINITY, 2.0f, -INFINITY};
    tf_softmax_rows(p, masked, 1, 4);
    assert_true(p[1] == 0.0f && p[3] == 0.0f); // masked weights are exactly 0
    CHECK_CLOSE(p[0] + p[2], 1.0, 1e-7);
    CHECK_CLOSE(p[2] / p[0], exp(1.5), 1e-5);
    // a fully masked row: all zeros (it attends to nothing), never NaN; the next row is unaffected
    const float rows[2][3] = {{-INFINITY, -INFINITY, -INFINITY}, {0, 0, 0}};
    float q[6];
    tf_softmax_rows(q, &rows[0][0], 2, 3);
    for (int i = 0; i < 3; i++) assert_true(q[i] == 0.0f && !signbit(q[i]));
    for (int i = 3; i < 6; i++) CHECK_CLOSE(q[i], 1.0 / 3, 1e-7);
    // the model never produces +∞ or NaN scores, but softmax defines them: +∞ entries share the row, NaN counts as −∞
    const float inf[4] = {INFINITY, 3.0f, INFINITY, -INFINITY};
    tf_softmax_rows(p, inf, 1, 4);
    assert_true(p[0] == 0.5f && p[1] == 0.0f && p[2] == 0.5f && p[3] == 0.0f);
    const float nan[3] = {NAN, 1.0f, 1.0f};
    tf_softmax_rows(p, nan, 1, 3);
    assert_true(p[0] == 0.0f);
    CHECK_CLOSE(p[1], 0.5, 1e-7);
    const float all_nan[2] = {NAN, NAN};
    tf_softmax_rows(p, all_nan, 1, 2);
    assert_true(p[0] == 0.0f && p[1] == 0.0f);
}

static void softmax_denormals(void **state) {
    (void)state;
    float p[3];
    const float tiny[3] = {1e-40f, -1e-40f, FLT_TRUE_MIN}; // below FLT_MIN: denormal scores are all ~0
    assert_true(fpclassify(tiny[0]) == FP_SUBNORMAL);
    tf_softmax_rows(p, tiny, 1, 3);
    for (int i = 0; i < 3; i++) CHECK_CLOSE(p[i], 1.0 / 3, 1e-7);
    // a weight that underflows to a denormal or 0 is still ≥ 0, and the row sums to 1
    const float spread[3] = {0.0f, -87.0f, -100.0f}; // e^−87 ~ 1.6e−38 (near FLT_MIN), e^−100 ~ 3.7e−44 denormal
    tf_softmax_rows(p, spread, 1, 3);
    assert_row_is_distribution(p, 3);
    assert_true(p[2] > 0.0f && p[2] < FLT_MIN);
}

// ---------------------------------------------------------------- LayerNorm
static void layernorm_constant_vector(void **state) {
    (void)state;
    const float w[4] = {2, 2, 2, 2}, b[4] = {1, -1, 0.5f, 0};
    float z[4];
    // variance 0: (x − mean) = 0 exactly, so the output is the bias, not NaN
    const float c[4] = {7, 7, 7, 7};
    tf_layernorm(z, c, w, b, 1e-5f, 1, 4);
    for (int i = 0; i < 4; i++) assert_true(z[i] == b[i]);
    const float big[4] = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
    tf_layernorm(z, big, w, b, 1e-5f, 1, 4);
    for (int i = 0; i < 4; i++) assert_true(z[i] == b[i]);
    const float zero[4] = {0, 0, 0, 0};
    tf_layernorm(z, zero, w, b, 1e-5f, 1, 4);
    for (int i = 0; i < 4; i++) assert_true(z[i] == b[i]);
}

static void layernorm_extremes(void **state) {
    (void)state;
    const float w[3] = {1, 1, 1}, b[3] = {0, 0, 0};
    float z[3];
    // ±FLT_MAX: the mean and variance in double do not overflow; the output is the standardised row
    const float x[3] = {FLT_MAX, -FLT_MAX, -FLT_MAX};
    tf_layernorm(z, x, w, b, 1e-5f, 1, 3);
    CHECK_CLOSE(z[0], sqrt(2.0), 1e-5);
    CHECK_CLOSE(z[1], -1 / sqrt(2.0), 1e-5);
    CHECK_CLOSE(z[2], -1 / sqrt(2.0), 1e-5);
    // denormal inputs: the variance is far below eps, so the output is ~(x − mean)/√eps ≈ 0, then + b
    const float d[3] = {1e-40f, -1e-40f, 3e-40f};
    tf_layernorm(z, d, w, b, 1e-5f, 1, 3);
    for (int i = 0; i < 3; i++) assert_true(isfinite(z[i]) && fabsf(z[i]) < 1e-30f);
    // a huge gain saturates at ±FLT_MAX instead of becoming ±∞
    const float wh[3] = {FLT_MAX, FLT_MAX, FLT_MAX};
    const float y[3] = {1, 2, 3};
    tf_layernorm(z, y, wh, b, 1e-5f, 1, 3);
    assert_true(z[0] == -FLT_MAX && z[1] == 0.0f && z[2] == FLT_MAX);
}

// ---------------------------------------------------------------- linear, add, saturation
static void saturation(void **state) {
    (void)state;
    assert_true(tf_sat(INFINITY) == FLT_MAX);
    assert_true(tf_sat(-INFINITY) == -FLT_MAX);
    assert_true(tf_sat(NAN) == 0.0f);
    assert_true(tf_sat(1.5f) == 1.5f && tf_sat(-FLT_MAX) == -FLT_MAX && tf_sat(1e-40f) == 1e-40f);
    float out[2];
    const float a[2] = {FLT_MAX, -FLT_MAX}, b[2] = {FLT_MAX, FLT_MAX};
    tf_add(out, a, b, 2);
    assert_true(out[0] == FLT_MAX && out[1] == 0.0f);
    // x (1,2) @ Wᵀ (2,3): products overflow (1e30·1e30), and +∞ + −∞ would be NaN
    const float x[2] = {1e30f, 1e30f}, w[6] = {1e30f, 1e30f, 1e30f, -1e30f, -1e30f, -1e30f}, bias[3] = {0, 0, 0};
    float y[3];
    tf_linear(y, x, w, bias, 1, 2, 3);
    assert_true(y[0] == FLT_MAX); // +∞ saturates
    assert_true(y[1] == 0.0f);    // +∞ − ∞: undefined, given as 0
    assert_true(y[2] == -FLT_MAX);
}

// ---------------------------------------------------------------- a forward pass
// A model whose every weight is scaled to ~1e30 (finite): activations
// overflow everywhere, yet every stage is finite and the output rows are
// probability distributions.
static void forward_huge_weights(void **state) {
    (void)state;
    tf_config c;
    memset(&c, 0, sizeof c);
    c.C = 8; c.H = 2; c.F = 16; c.L_enc = 2; c.L_dec = 2;
    c.eps = 1e-5f; c.embed_scale_is_sqrt = 1; c.has_enc_norm = 1; c.has_dec_norm = 1;
    c.max_len = 16; c.max_len_set = 1;
    tf_model m;
    tf_err e;
    assert_int_equal(tf_model_init(&m, &c, "<unk>\n<bos>\n<eos>\na\nb\nc", NULL, 5, &e), 0);
    int nt = tf_model_tensors(&m, NULL);
    tf_tensor_info *ti = calloc((size_t)nt, sizeof *ti);
    tf_model_tensors(&m, ti);
    for (int k = 0; k < nt; k++) {
        size_t n = (size_t)ti[k].shape[0] * (ti[k].rank == 2 ? (size_t)ti[k].shape[1] : 1);
        float *d = (float *)(uintptr_t)ti[k].data;
        for (size_t i = 0; i < n; i++) d[i] = (i % 3 == 2 ? -3e30f : 3e30f) * (d[i] == 0 ? 1 : d[i] > 0 ? 1 : -1);
    }
    free(ti);
    for (int greedy = 0; greedy < 2; greedy++) {
        tf_run r;
        if (tf_run_sentence(&r, &m, "a b c a", greedy ? NULL : "b c", &e)) fail_msg("%s", e.msg);
        int overflowed = 0;
        for (int s = 0; s < r.trace.n; s++) {
            const tf_stage *st = &r.trace.stages[s];
            for (int i = 0; i < st->rows * st->cols; i++) {
                float v = st->data[i];
                if (isnan(v) || (isinf(v) && !(st->kind == TF_KIND_MASKED && v < 0)))
                    fail_msg("%s[%d] = %g: want finite (or −∞ where masked)", st->id, i, (double)v);
                overflowed += fabsf(v) == FLT_MAX;
            }
            if (st->kind == TF_KIND_PROB)
                for (int row = 0; row < st->rows; row++) assert_row_is_distribution(st->data + (size_t)row * st->cols, st->cols);
        }
        assert_true(overflowed > 0); // the weights really were big enough to overflow somewhere
        tf_run_free(&r);
    }
    tf_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(softmax_huge_scores),
        cmocka_unit_test(softmax_masked_rows),
        cmocka_unit_test(softmax_denormals),
        cmocka_unit_test(layernorm_constant_vector),
        cmocka_unit_test(layernorm_extremes),
        cmocka_unit_test(saturation),
        cmocka_unit_test(forward_huge_weights),
    };
    return cmocka_run_group_tests_name("numerics", tests, NULL, NULL);
}
