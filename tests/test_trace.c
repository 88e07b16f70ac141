// test_trace.c — the whole trace against PyTorch, stage by stage, and the
// invariants every trace must keep.
//
// The fixtures (tests/fixtures/*.trace.json) come from tests/ref/make_fixtures.py,
// an independent implementation that checks itself against torch.nn.Transformer.
// One of them is a model trained in PyTorch. `make fixtures` regenerates them.
#include "fixture_cases.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <omp.h>

#define TOL 1e-4 // |C - PyTorch| <= TOL · max(1, |PyTorch|) at every stage

// Loads a case's model with its parts switched off (cases.txt's fifth column).
static void load_model(tf_model *m, const fixture_case *c) {
    tf_err e;
    int bits;
    if (tf_model_load(m, c->model, &e)) fail_msg("%s: %s", c->model, e.msg);
    if (tf_without_parse(c->without, &bits, &e)) fail_msg("%s: %s", c->name, e.msg);
    m->cfg.without |= bits;
}

// Compares one run with its fixture; returns the largest difference seen.
static double compare_case(const fixture_case *c) {
    tf_model m;
    load_model(&m, c);
    double worst = compare_trace(c, "tests/fixtures", &m, TOL);
    tf_model_free(&m);
    return worst;
}

static void trace_matches_pytorch(void **state) {
    (void)state;
    fixture_case cs[16];
    int n = load_cases("tests/fixtures/cases.txt", cs, 16);
    // trained multi-head with norms, plain without, unknown word, greedy, worked example,
    // parts switched off, pre-LN (norm_first) matched against torch's own modules
    assert_true(n >= 13);
    for (int i = 0; i < n; i++) compare_case(&cs[i]);
}

// Greedy decoding produced the same words as PyTorch's greedy decoding.
static void greedy_matches_pytorch(void **state) {
    (void)state;
    const char *names[] = {"multihead.greedy", "plain.greedy", "plain.greedy.without-scale", "prenorm.greedy"};
    fixture_case cs[16];
    int n = load_cases("tests/fixtures/cases.txt", cs, 16);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        int i = 0;
        while (i < n && strcmp(cs[i].name, names[k])) i++;
        assert_true(i < n);
        char path[256];
        snprintf(path, sizeof path, "tests/fixtures/%s.json", names[k]);
        cJSON *ref = load_json(path);
        tf_model m;
        tf_err e;
        load_model(&m, &cs[i]);
        tf_run r;
        assert_int_equal(tf_run_sentence(&r, &m, cs[i].src, NULL, &e), 0);
        assert_true(r.greedy);
        check_tokens(cJSON_GetObjectItem(ref, "tgt_tokens"), r.trace.tgt_labels, r.T, "greedy output", names[k]);
        assert_int_equal(r.stopped_on_eos, cJSON_IsTrue(cJSON_GetObjectItem(ref, "stopped_on_eos")));
        tf_run_free(&r);
        tf_model_free(&m);
        cJSON_Delete(ref);
    }
}

// ---------------------------------------------------------------- invariants
static void check_invariants(const tf_model *m, const tf_run *r, const char *what) {
    const tf_trace *t = &r->trace;
    int n_prob = 0, n_causal = 0, n_norm = 0;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        for (size_t k = 0; k < (size_t)s->rows * s->cols; k++)
            if (isnan(s->data[k])) fail_msg("%s: %s holds NaN", what, s->id);
        if (s->kind == TF_KIND_PROB) { // softmax rows sum to 1
            n_prob++;
            for (int y = 0; y < s->rows; y++) {
                double sum = 0;
                for (int x = 0; x < s->cols; x++) sum += s->data[(size_t)y * s->cols + x];
                if (fabs(sum - 1.0) > 1e-5) fail_msg("%s: row %d of %s sums to %.8f", what, y, s->id, sum);
            }
        }
        if (s->side == TF_SIDE_DEC && s->sublayer == TF_SUB_SELF_ATTN && s->op == TF_OP_WEIGHTS && !(t->without & TF_WITHOUT_MASK)) {
            n_causal++; // causal mask: no query sees a later key, exactly
            for (int y = 0; y < s->rows; y++)
                for (int x = y + 1; x < s->cols; x++)
                    if (s->data[(size_t)y * s->cols + x] != 0.0f) fail_msg("%s: %s[%d][%d] = %g, not 0", what, s->id, y, x, (double)s->data[(size_t)y * s->cols + x]);
        }
        if (s->layer >= 0 && s->op == TF_OP_NORM) {
            n_norm++; // undo the affine part: mean 0, variance 1
            const tf_layer_w *lw = s->side == TF_SIDE_ENC ? &m->enc[s->layer] : &m->dec[s->layer];
            const float *w = s->index == 1 ? lw->n1w : s->index == 2 ? lw->n2w : lw->n3w;
            const float *b = s->index == 1 ? lw->n1b : s->index == 2 ? lw->n2b : lw->n3b;
            for (int y = 0; y < s->rows; y++) {
                double mean = 0, var = 0;
                for (int x = 0; x < s->cols; x++) mean += (s->data[(size_t)y * s->cols + x] - b[x]) / w[x];
                mean /= s->cols;
                for (int x = 0; x < s->cols; x++) { double z = (s->data[(size_t)y * s->cols + x] - b[x]) / w[x] - mean; var += z * z; }
                var /= s->cols;
                if (fabs(mean) > 1e-4 || fabs(var - 1.0) > 2e-3) fail_msg("%s: %s row %d: mean %g, variance %g", what, s->id, y, mean, var);
            }
        }
    }
    assert_true(n_prob > 0 && (n_causal > 0 || (t->without & TF_WITHOUT_MASK)) && n_norm > 0);
}

static void invariants_hold(void **state) {
    (void)state;
    fixture_case cs[16];
    int n = load_cases("tests/fixtures/cases.txt", cs, 16);
    for (int i = 0; i < n; i++) {
        tf_model m;
        tf_err e;
        tf_run r;
        load_model(&m, &cs[i]);
        assert_int_equal(tf_run_sentence(&r, &m, cs[i].src, cs[i].tgt[0] ? cs[i].tgt : NULL, &e), 0);
        check_invariants(&m, &r, cs[i].name);
        tf_run_free(&r);
        tf_model_free(&m);
    }
}

// ---------------------------------------------------------------- the slides
// The Persian lecture slides' worked example (d_model = 4): the embeddings,
// the PE table (computed values; the slides' second copy has a typo in row 2)
// and X = E + PE.
static const double slide_E[5][4] = {
    {0.1, 0.3, 0.4, 0.8}, {0.9, 0.1, 0.5, 0.2}, {0.7, 0.6, 0.1, 0.4}, {0.2, 0.8, 0.3, 0.7}, {0.5, 0.4, 0.9, 0.3}};
static const double slide_PE[5][4] = {
    {0.0, 1.0, 0.0, 1.0},
    {0.84147, 0.54030, 0.01000, 0.99995},
    {0.90930, -0.41615, 0.02000, 0.99980},
    {0.14112, -0.98999, 0.02999, 0.99955},
    {-0.75680, -0.65364, 0.03998, 0.99920}};

static void worked_example_shows_the_slides(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    tf_run r;
    assert_int_equal(tf_model_load(&m, "assets/models/worked-example.safetensors", &e), 0);
    assert_int_equal(m.cfg.C, 4);
    assert_int_equal(m.cfg.H, 2);
    assert_int_equal(m.cfg.L_enc, 1);
    assert_int_equal(m.cfg.L_dec, 1);
    assert_int_equal(tf_run_sentence(&r, &m, "I really enjoy learning transformers", NULL, &e), 0);
    const tf_trace *t = &r.trace;
    const char *words[5] = {"I", "really", "enjoy", "learning", "transformers"};
    const tf_stage *E = &t->stages[tf_trace_find(t, "src.embed")];
    const tf_stage *PE = &t->stages[tf_trace_find(t, "src.pe")];
    const tf_stage *X = &t->stages[tf_trace_find(t, "src.input")];
    assert_int_equal(E->rows, 5);
    assert_int_equal(E->cols, 4);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(t->src_labels[i], words[i]);
        for (int j = 0; j < 4; j++) {
            CHECK_CLOSE(E->data[i * 4 + j], slide_E[i][j], 1e-7);
            CHECK_CLOSE(PE->data[i * 4 + j], slide_PE[i][j], 1e-5); // the slides cut to 5 decimals
            CHECK_CLOSE(X->data[i * 4 + j], slide_E[i][j] + slide_PE[i][j], 1e-5);
        }
    }
    CHECK_CLOSE(PE->data[4 * 4 + 1], cos(4.0), 1e-7); // the slides' PE(4, 1) = cos(4) = −0.65364
    tf_run_free(&r);
    tf_model_free(&m);
}

// Stage ids in DESIGN.md's order, and every one of them present.
static void stage_ids_follow_the_design(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    tf_run r;
    assert_int_equal(tf_model_load(&m, "tests/fixtures/multihead.safetensors", &e), 0);
    assert_int_equal(tf_run_sentence(&r, &m, "the red car runs", "la voiture rouge court", &e), 0);
    const tf_trace *t = &r.trace;
    int L = 2, H = 4;
    // src 3 + per enc layer (3 + 5H + 2 + 6) + enc.norm + tgt 3 + per dec layer (2·(5 + 5H) + 8) + dec.norm + out 2
    assert_int_equal(t->n, 3 + L * (11 + 5 * H) + 1 + 3 + L * (18 + 10 * H) + 1 + 2);
    const char *order[] = {"src.embed", "src.pe", "src.input", "enc.0.self_attn.q", "enc.0.self_attn.k", "enc.0.self_attn.v",
                           "enc.0.self_attn.head.0.scores", "enc.0.self_attn.head.0.scaled", "enc.0.self_attn.head.0.masked",
                           "enc.0.self_attn.head.0.weights", "enc.0.self_attn.head.0.out", "enc.0.self_attn.head.1.scores"};
    for (int i = 0; i < (int)(sizeof order / sizeof *order); i++) assert_string_equal(t->stages[i].id, order[i]);
    const char *later[] = {"enc.0.self_attn.concat", "enc.0.self_attn.out", "enc.0.add1", "enc.0.norm1", "enc.0.ffn.hidden",
                           "enc.0.ffn.out", "enc.0.add2", "enc.0.norm2", "enc.1.self_attn.q", "enc.norm", "tgt.embed", "tgt.pe",
                           "tgt.input", "dec.0.self_attn.q", "dec.0.add1", "dec.0.norm1", "dec.0.cross_attn.q",
                           "dec.0.cross_attn.head.3.weights", "dec.0.add2", "dec.0.norm2", "dec.0.ffn.hidden", "dec.0.ffn.out",
                           "dec.0.add3", "dec.0.norm3", "dec.1.norm3", "dec.norm", "out.logits", "out.probs"};
    int prev = -1;
    for (int i = 0; i < (int)(sizeof later / sizeof *later); i++) {
        int k = tf_trace_find(t, later[i]);
        if (k <= prev) fail_msg("%s is at %d, not after stage %d", later[i], k, prev);
        prev = k;
    }
    // Shapes and axes of cross-attention: target rows, source columns.
    const tf_stage *cw = &t->stages[tf_trace_find(t, "dec.1.cross_attn.head.2.weights")];
    assert_int_equal(cw->rows, r.T);
    assert_int_equal(cw->cols, r.S);
    assert_int_equal(cw->row_axis, TF_AXIS_TGT);
    assert_int_equal(cw->col_axis, TF_AXIS_SRC);
    assert_int_equal(cw->side, TF_SIDE_DEC);
    assert_int_equal(cw->sublayer, TF_SUB_CROSS_ATTN);
    assert_int_equal(cw->op, TF_OP_WEIGHTS);
    assert_int_equal(cw->family, TF_FAMILY_TRANSFORMER);
    assert_int_equal(cw->step, -1);
    assert_int_equal(cw->layer, 1);
    assert_int_equal(cw->head, 2);
    assert_int_equal(cw->kind, TF_KIND_PROB);
    const tf_stage *mk = &t->stages[tf_trace_find(t, "dec.0.self_attn.head.0.masked")];
    assert_int_equal(mk->kind, TF_KIND_MASKED);
    assert_true(isinf(mk->data[1]) && mk->data[1] < 0); // query 0 cannot see key 1
    const tf_stage *pr = &t->stages[tf_trace_find(t, "out.probs")];
    assert_int_equal(pr->cols, m.cfg.V_tgt);
    assert_int_equal(pr->col_axis, TF_AXIS_VOCAB);
    assert_int_equal(tf_trace_find(t, "dec.0.cross_attn.head.4.weights"), -1);
    // A model without final norms has no enc.norm / dec.norm stages.
    tf_run_free(&r);
    tf_model_free(&m);
    assert_int_equal(tf_model_load(&m, "tests/fixtures/plain.safetensors", &e), 0);
    assert_int_equal(tf_run_sentence(&r, &m, "the cat sleeps", "the cat", &e), 0);
    assert_int_equal(tf_trace_find(&r.trace, "enc.norm"), -1);
    assert_int_equal(tf_trace_find(&r.trace, "dec.norm"), -1);
    assert_int_equal(r.S, 4); // src_append_eos adds <eos>
    assert_string_equal(r.trace.src_labels[3], "<eos>");
    tf_run_free(&r);
    tf_model_free(&m);
}

// The paper's base sizes run end to end with sane values.
static void base_preset_runs(void **state) {
    (void)state;
    tf_config c;
    tf_config_base(&c);
    c.has_enc_norm = c.has_dec_norm = 1;
    tf_model m;
    tf_err e;
    assert_int_equal(tf_model_init(&m, &c, "<unk>\n<bos>\n<eos>\nI\nreally\nenjoy\nlearning\ntransformers", NULL, 7, &e), 0);
    assert_int_equal(m.n_params, (size_t)6 * (4 * 512 * 512 + 4 * 512 + 2 * 512 * 2048 + 2048 + 512 + 4 * 512) + 2 * 512 +
                                     (size_t)6 * (8 * 512 * 512 + 8 * 512 + 2 * 512 * 2048 + 2048 + 512 + 6 * 512) + 2 * 512 + 8 * 512);
    tf_run r;
    assert_int_equal(tf_run_sentence(&r, &m, "I really enjoy learning transformers", "I enjoy", &e), 0);
    assert_int_equal(r.trace.stages[tf_trace_find(&r.trace, "enc.5.ffn.hidden")].cols, 2048);
    assert_int_equal(r.trace.stages[tf_trace_find(&r.trace, "dec.5.cross_attn.head.7.out")].cols, 64);
    check_invariants(&m, &r, "base");
    // One thread or all of them: the same bits (each output is computed by
    // exactly one thread, the same way).
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    tf_run r1;
    assert_int_equal(tf_run_sentence(&r1, &m, "I really enjoy learning transformers", "I enjoy", &e), 0);
    omp_set_num_threads(threads);
    assert_int_equal(r1.trace.n, r.trace.n);
    for (int i = 0; i < r.trace.n; i++) {
        const tf_stage *a = &r.trace.stages[i], *b = &r1.trace.stages[i];
        if (memcmp(a->data, b->data, sizeof(float) * (size_t)a->rows * a->cols))
            fail_msg("%s differs between %d threads and 1", a->id, threads);
    }
    tf_run_free(&r1);
    tf_run_free(&r);
    tf_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_matches_pytorch),
        cmocka_unit_test(greedy_matches_pytorch),
        cmocka_unit_test(invariants_hold),
        cmocka_unit_test(worked_example_shows_the_slides),
        cmocka_unit_test(stage_ids_follow_the_design),
        cmocka_unit_test(base_preset_runs),
    };
    return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
