// test_lstm.c — the recurrent models (seq2seq LSTM, RNN with dot attention)
// against PyTorch, stage by stage, and what must hold in any of their traces.
//
// The fixtures (tests/fixtures/lstm/) come from tests/ref/make_lstm_fixtures.py,
// which computes every gate by hand in float64 and checks itself against
// torch.nn.LSTM. `make lstm-fixtures` regenerates them.
#include "fixture_cases.h"

#include <cjson/cJSON.h>
#include <math.h>

#define TOL 1e-4 // |C - PyTorch| <= TOL · max(1, |PyTorch|) at every stage

// Compares one run with its fixture, printing the largest difference of every stage.
static void compare_case(const fixture_case *c) {
    char path[512];
    snprintf(path, sizeof path, "tests/fixtures/lstm/%s.trace.json", c->name);
    cJSON *ref = load_json(path);
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, c->model, &e)) fail_msg("%s: %s", c->model, e.msg);
    assert_int_equal(m.cfg.arch, TF_ARCH_LSTM);
    tf_run r;
    if (tf_run_sentence(&r, &m, c->src, c->tgt[0] ? c->tgt : NULL, &e)) fail_msg("%s: %s", c->name, e.msg);
    const tf_trace *t = &r.trace;
    check_tokens(cJSON_GetObjectItem(ref, "src_tokens"), t->src_labels, r.S, "source (in reading order)", c->name);
    check_tokens(cJSON_GetObjectItem(ref, "tgt_tokens"), t->tgt_labels, r.T, "decoder input", c->name);
    const cJSON *stages = cJSON_GetObjectItem(ref, "stages");
    if (cJSON_GetArraySize(stages) != t->n) fail_msg("%s: %d stages, PyTorch %d", c->name, t->n, cJSON_GetArraySize(stages));
    printf("  %s (%s): %d stages\n", c->name, c->model, t->n);
    int i = 0;
    double worst = 0;
    for (const cJSON *st = stages->child; st; st = st->next, i++) {
        const tf_stage *s = &t->stages[i];
        const char *id = check_stage_shape(st, s, i, c->name);
        double stage_worst = 0;
        int y = 0;
        for (const cJSON *row = cJSON_GetObjectItem(st, "data")->child; row; row = row->next, y++) {
            int x = 0;
            for (const cJSON *v = row->child; v; v = v->next, x++) {
                float got = s->data[(size_t)y * s->cols + x];
                double want = v->valuedouble, d = fabs(got - want);
                if (!(d <= TOL * fmax(1.0, fabs(want))))
                    fail_msg("%s: %s[%d][%d] = %.7g, PyTorch %.7g (difference %.2g)", c->name, id, y, x, (double)got, want, d);
                if (d > stage_worst) stage_worst = d;
            }
        }
        if (stage_worst > worst) worst = stage_worst;
        printf("    %-18s %3d x %-3d largest difference %.2e\n", s->id, s->rows, s->cols, stage_worst);
    }
    printf("  %s: largest difference of all %.2e\n", c->name, worst);
    tf_run_free(&r);
    tf_model_free(&m);
    cJSON_Delete(ref);
}

static void trace_matches_pytorch(void **state) {
    (void)state;
    fixture_case cs[32];
    int n = load_cases("tests/fixtures/lstm/cases.txt", cs, 32);
    assert_true(n >= 8); // 1, 2 and 3 layers; reversed or not; with and without attention; greedy; <unk>
    for (int i = 0; i < n; i++) compare_case(&cs[i]);
}

// Greedy decoding gave PyTorch's tokens and stopped for the same reason.
static void greedy_matches_pytorch(void **state) {
    (void)state;
    fixture_case cs[32];
    int n = load_cases("tests/fixtures/lstm/cases.txt", cs, 32), checked = 0;
    for (int i = 0; i < n; i++) {
        if (cs[i].tgt[0]) continue;
        char path[600];
        snprintf(path, sizeof path, "tests/fixtures/lstm/%.64s.json", cs[i].name);
        cJSON *ref = load_json(path);
        tf_model m;
        tf_err e;
        assert_int_equal(tf_model_load(&m, cs[i].model, &e), 0);
        tf_run r;
        assert_int_equal(tf_run_sentence(&r, &m, cs[i].src, NULL, &e), 0);
        assert_true(r.greedy);
        check_tokens(cJSON_GetObjectItem(ref, "tgt_tokens"), r.trace.tgt_labels, r.T, "greedy output", cs[i].name);
        assert_int_equal(r.stopped_on_eos, cJSON_IsTrue(cJSON_GetObjectItem(ref, "stopped_on_eos")));
        tf_run_free(&r);
        tf_model_free(&m);
        cJSON_Delete(ref);
        checked++;
    }
    assert_true(checked >= 3);
}

// ---------------------------------------------------------------- what every trace keeps
static const tf_stage *find(const tf_trace *t, const char *id) {
    int i = tf_trace_find(t, id);
    if (i < 0) fail_msg("no stage %s", id);
    return &t->stages[i];
}

static void invariants_hold(void **state) {
    (void)state;
    const char *models[] = {"tests/fixtures/lstm/lstm2_rev.safetensors", "tests/fixtures/lstm/lstm3_attn_rev.safetensors"};
    for (int k = 0; k < 2; k++) {
        tf_model m;
        tf_err e;
        assert_int_equal(tf_model_load(&m, models[k], &e), 0);
        tf_run r;
        assert_int_equal(tf_run_sentence(&r, &m, "we like reading the books", "ما از خواندن کتاب لذت", &e), 0);
        const tf_trace *t = &r.trace;
        int C = m.cfg.C, L = m.cfg.L_enc;
        char id[64];
        for (int side = 0; side < 2; side++)
            for (int l = 0; l < L; l++) {
                const char *sd = side ? "dec" : "enc";
                snprintf(id, sizeof id, "%s.%d.i", sd, l); const tf_stage *i = find(t, id);
                snprintf(id, sizeof id, "%s.%d.f", sd, l); const tf_stage *f = find(t, id);
                snprintf(id, sizeof id, "%s.%d.g", sd, l); const tf_stage *g = find(t, id);
                snprintf(id, sizeof id, "%s.%d.o", sd, l); const tf_stage *o = find(t, id);
                snprintf(id, sizeof id, "%s.%d.c", sd, l); const tf_stage *c = find(t, id);
                snprintf(id, sizeof id, "%s.%d.h", sd, l); const tf_stage *h = find(t, id);
                assert_int_equal(c->rows, side ? r.T : r.S);
                for (int x = 0; x < c->rows; x++)
                    for (int j = 0; j < C; j++) {
                        size_t q = (size_t)x * C + j;
                        // σ gates in [0, 1], tanh in [−1, 1]; c_t and h_t follow their formulas exactly
                        assert_true(i->data[q] >= 0 && i->data[q] <= 1 && f->data[q] >= 0 && f->data[q] <= 1 && o->data[q] >= 0 && o->data[q] <= 1);
                        assert_true(g->data[q] >= -1 && g->data[q] <= 1 && h->data[q] >= -1 && h->data[q] <= 1);
                        float prev = x ? c->data[q - C] : side ? find(t, "enc.final.c")->data[(size_t)l * C + j] : 0.0f;
                        CHECK_CLOSE(c->data[q], f->data[q] * prev + i->data[q] * g->data[q], 1e-6);
                        CHECK_CLOSE(h->data[q], o->data[q] * tanhf(c->data[q]), 1e-6);
                    }
                if (!side) // v is the last row of every encoder layer
                    for (int j = 0; j < C; j++) {
                        assert_true(find(t, "enc.final.h")->data[(size_t)l * C + j] == h->data[(size_t)(r.S - 1) * C + j]);
                        assert_true(find(t, "enc.final.c")->data[(size_t)l * C + j] == c->data[(size_t)(r.S - 1) * C + j]);
                    }
            }
        // reversed source: the encoder reads "books the reading like we <eos>"
        assert_string_equal(t->src_labels[0], "books");
        assert_string_equal(t->src_labels[r.S - 1], "<eos>");
        for (int y = 0; y < r.T; y++) {
            double sum = 0;
            for (int v = 0; v < m.cfg.V_tgt; v++) sum += find(t, "out.probs")->data[(size_t)y * m.cfg.V_tgt + v];
            CHECK_CLOSE(sum, 1.0, 1e-5);
        }
        if (m.cfg.attention == TF_RNN_ATTN_DOT) {
            const tf_stage *w = find(t, "dec.attn.weights");
            assert_int_equal(w->rows, r.T);
            assert_int_equal(w->cols, r.S);
            assert_int_equal(w->kind, TF_KIND_PROB);
            for (int y = 0; y < r.T; y++) {
                double sum = 0;
                for (int x = 0; x < r.S; x++) sum += w->data[(size_t)y * r.S + x];
                CHECK_CLOSE(sum, 1.0, 1e-5);
            }
        } else assert_int_equal(tf_trace_find(t, "dec.attn.weights"), -1);
        tf_run_free(&r);
        tf_model_free(&m);
    }
}

// Every stage says what it is as fields, and src/model answers the questions
// the window and the exporter ask without reading ids.
static void stages_know_what_they_are(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    assert_int_equal(tf_model_load(&m, "tests/fixtures/lstm/lstm3_attn_rev.safetensors", &e), 0);
    tf_run r;
    assert_int_equal(tf_run_sentence(&r, &m, "I really enjoy learning transformers", NULL, &e), 0);
    const tf_trace *t = &r.trace;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        assert_int_equal(s->family, TF_FAMILY_LSTM);
        assert_true(tf_stage_is_lstm(s));
        assert_int_equal(tf_stage_block(s), TF_BLOCK_NONE);
        assert_int_equal(tf_trace_lookup(t, s), i); // the fields name it uniquely
        int steps = tf_stage_time_steps(t, i);
        if (s->op == TF_OP_FINAL_H || s->op == TF_OP_FINAL_C) {
            assert_int_equal(steps, 0);
            assert_int_equal(s->row_axis, TF_AXIS_LAYER);
            assert_int_equal(s->rows, 3);
        } else assert_int_equal(steps, s->side == TF_SIDE_SRC || s->side == TF_SIDE_ENC ? r.S : r.T);
    }
    int h1 = tf_trace_find(t, "enc.1.h"), i1 = tf_trace_find(t, "enc.1.i");
    assert_int_equal(t->stages[i1].op, TF_OP_GATE_I);
    assert_true(tf_stage_is_gate(&t->stages[i1]));
    assert_false(tf_stage_is_gate(&t->stages[h1]));
    assert_int_equal(tf_stage_other_layer(t, h1, 2), tf_trace_find(t, "enc.2.h"));
    assert_int_equal(tf_stage_with_op(t, i1, TF_OP_CELL), tf_trace_find(t, "enc.1.c"));
    assert_int_equal(tf_stage_count_layers(t, h1), 3);
    int dec = -1;
    assert_int_equal(tf_stage_lstm_layer(&t->stages[tf_trace_find(t, "dec.2.f")], &dec), 2);
    assert_int_equal(dec, 1);
    assert_int_equal(tf_stage_lstm(t, TF_SIDE_ENC, -1, TF_OP_FINAL_H), tf_trace_find(t, "enc.final.h"));
    int w = tf_trace_find(t, "dec.attn.weights");
    assert_int_equal(tf_stage_attention(t, h1, TF_SIDE_DEC, TF_SUB_CROSS_ATTN), w);
    assert_int_equal(tf_stage_other_head(t, w, 1), -1);
    // what each is computed from, in its formula's order
    int in[8];
    assert_int_equal(tf_stage_inputs(t, tf_trace_find(t, "enc.1.c"), in, 8), 3);
    assert_int_equal(in[0], tf_trace_find(t, "enc.1.f"));
    assert_int_equal(tf_stage_inputs(t, tf_trace_find(t, "dec.0.g"), in, 8), 3);
    assert_int_equal(in[0], tf_trace_find(t, "tgt.embed"));
    assert_int_equal(in[1], tf_trace_find(t, "dec.0.h"));
    assert_int_equal(in[2], tf_trace_find(t, "enc.final.h"));
    assert_int_equal(tf_stage_inputs(t, tf_trace_find(t, "dec.attn.scores"), in, 8), 2);
    assert_int_equal(in[0], tf_trace_find(t, "dec.2.h"));
    assert_int_equal(in[1], tf_trace_find(t, "enc.2.h"));
    assert_int_equal(tf_stage_inputs(t, tf_trace_find(t, "out.logits"), in, 8), 1);
    assert_int_equal(in[0], tf_trace_find(t, "dec.attn.out"));
    assert_int_equal(tf_stage_inputs(t, tf_trace_find(t, "enc.final.h"), in, 8), 3);
    assert_string_equal(tf_op_name(t->stages[i1].op), "i");
    assert_string_equal(tf_sublayer_name(t->stages[i1].sublayer), "recurrent");
    char buf[16];
    assert_string_equal(tf_axis_label(t, TF_AXIS_LAYER, 1, buf, sizeof buf), "layer 2");
    tf_run_free(&r);
    tf_model_free(&m);
}

// A model saved and loaded again is the same model; init makes a working one.
static void save_load_round_trip(void **state) {
    (void)state;
    tf_config c = {0};
    c.arch = TF_ARCH_LSTM;
    c.E = 6; c.C = 10; c.L_enc = 2; c.attention = TF_RNN_ATTN_DOT; c.reverse_source = 1; c.src_append_eos = 1;
    c.max_len = 12; c.max_len_set = 1;
    tf_model m, m2;
    tf_err e;
    if (tf_model_init(&m, &c, "<unk>\n<eos>\na\nb\nc", "<unk>\n<bos>\n<eos>\nx\ny", 7, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m.cfg.L_dec, 2);
    assert_int_equal(m.cfg.F, 40);
    // 2 layers × 2 sides × (4C·E or 4C·C, 4C·C, 4C, 4C) + W_c, b_c + embeddings + generator
    size_t want = 2 * ((40 * 6 + 400 + 80) + (40 * 10 + 400 + 80)) + 200 + 10 + 5 * 6 + 5 * 6 + 5 * 10 + 5;
    assert_int_equal(m.n_params, want);
    char path[256];
    snprintf(path, sizeof path, "%s/lstm.safetensors", test_tmpdir());
    assert_int_equal(tf_model_save(&m, path, &e), 0);
    if (tf_model_load(&m2, path, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m2.cfg.arch, TF_ARCH_LSTM);
    assert_int_equal(m2.cfg.attention, TF_RNN_ATTN_DOT);
    assert_int_equal(m2.cfg.reverse_source, 1);
    assert_int_equal(m2.cfg.E, 6);
    assert_int_equal(m2.n_params, want);
    tf_run r1, r2;
    assert_int_equal(tf_run_sentence(&r1, &m, "c b a", NULL, &e), 0);
    assert_int_equal(tf_run_sentence(&r2, &m2, "c b a", NULL, &e), 0);
    assert_int_equal(r1.T, r2.T);
    assert_memory_equal(r1.acts.probs, r2.acts.probs, sizeof(float) * (size_t)r1.T * 5);
    tf_run_free(&r1);
    tf_run_free(&r2);
    tf_model_free(&m2);
    // F16, as snapshots are stored
    assert_int_equal(tf_model_save_f16(&m, path, &e), 0);
    assert_int_equal(tf_model_load(&m2, path, &e), 0);
    assert_int_equal(m2.n_f16, 2 * 2 * 4 + 2 + 4);
    tf_model_free(&m2);
    // a clone owns its weights in one block, in file order
    tf_model cl;
    assert_int_equal(tf_model_clone(&cl, &m, &e), 0);
    assert_int_equal(cl.n_params, want);
    assert_memory_equal(cl.gen_w, m.gen_w, sizeof(float) * 50);
    tf_model_free(&cl);
    tf_model_free(&m);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_matches_pytorch),
        cmocka_unit_test(greedy_matches_pytorch),
        cmocka_unit_test(invariants_hold),
        cmocka_unit_test(stages_know_what_they_are),
        cmocka_unit_test(save_load_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
