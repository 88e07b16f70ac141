// test_beam.c — beam search (§6.1, Wu et al.'s length penalty) against an
// independent computation in PyTorch, step by step, for the three model
// families; beam 1 against greedy decoding; what a beam size and α may be.
//
// The fixtures (tests/fixtures/beam/) come from tests/ref/make_beam_fixtures.py:
// every hypothesis's next-token log-probabilities from the reference forward
// passes in float64, the selection with numpy. `make beam-fixtures` regenerates them.
#include "fixture_cases.h"

#include <cjson/cJSON.h>
#include <math.h>

#define TOL 1e-4 // |log P (C) - log P (PyTorch)| <= TOL · max(1, |log P|)

static const char *const cases[] = {"multihead.k3", "multihead.k1", "lstm2_attn.k3", "lstm1.k2", "lstm3_attn_rev.k4"};

static const char *fate_name(tf_beam_fate f) { return f == TF_BEAM_KEPT ? "kept" : f == TF_BEAM_ENDED ? "ended" : "pruned"; }

static void compare_case(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "tests/fixtures/beam/%s.json", name);
    cJSON *ref = load_json(path);
    const char *model = cJSON_GetObjectItem(ref, "model")->valuestring;
    int K = cJSON_GetObjectItem(ref, "size")->valueint;
    double alpha = cJSON_GetObjectItem(ref, "alpha")->valuedouble;
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, model, &e)) fail_msg("%s: %s", model, e.msg);
    tf_run r;
    if (tf_run_beam(&r, &m, cJSON_GetObjectItem(ref, "src")->valuestring, K, alpha, &e)) fail_msg("%s: %s", name, e.msg);
    const tf_beam *b = r.beam;
    assert_non_null(b);
    assert_ptr_equal(r.trace.beam, b);
    check_tokens(cJSON_GetObjectItem(ref, "src_tokens"), r.trace.src_labels, r.S, "source (in reading order)", name);
    assert_int_equal(b->limit, cJSON_GetObjectItem(ref, "limit")->valueint);
    const cJSON *steps = cJSON_GetObjectItem(ref, "steps");
    if (cJSON_GetArraySize(steps) != b->n_steps) fail_msg("%s: %d steps, PyTorch %d", name, b->n_steps, cJSON_GetArraySize(steps));
    double worst = 0;
    int t = 0;
    for (const cJSON *st = steps->child; st; st = st->next, t++) {
        int n = b->first[t + 1] - b->first[t];
        if (cJSON_GetArraySize(st) != n) fail_msg("%s: step %d has %d candidates, PyTorch %d", name, t, n, cJSON_GetArraySize(st));
        int i = 0;
        for (const cJSON *c = st->child; c; c = c->next, i++) {
            const tf_beam_node *nd = &b->node[b->first[t] + i];
            const char *tok = cJSON_GetObjectItem(c, "token")->valuestring;
            int parent = cJSON_GetObjectItem(c, "parent")->valueint;
            int got_parent = nd->parent < 0 ? -1 : nd->parent - b->first[t - 1];
            const char *fate = cJSON_GetObjectItem(c, "fate")->valuestring;
            if (strcmp(m.tgt_vocab.tok[nd->token], tok) || got_parent != parent || strcmp(fate_name(nd->fate), fate))
                fail_msg("%s: step %d candidate %d is %s (parent %d, %s), PyTorch %s (parent %d, %s)", name, t, i,
                         m.tgt_vocab.tok[nd->token], got_parent, fate_name(nd->fate), tok, parent, fate);
            double want = cJSON_GetObjectItem(c, "logp")->valuedouble, d = fabs(nd->logp - want);
            if (!(d <= TOL * fmax(1, fabs(want)))) fail_msg("%s: step %d candidate %d: log P %.7g, PyTorch %.7g", name, t, i, nd->logp, want);
            if (d > worst) worst = d;
            if (nd->fate == TF_BEAM_ENDED) {
                double ws = cJSON_GetObjectItem(c, "score")->valuedouble;
                if (!(fabs(nd->score - ws) <= TOL * fmax(1, fabs(ws)))) fail_msg("%s: step %d candidate %d: score %.7g, PyTorch %.7g", name, t, i, nd->score, ws);
            }
        }
    }
    const cJSON *ch = cJSON_GetObjectItem(ref, "choice");
    int ct = cJSON_GetObjectItem(ch, "step")->valueint, ci = cJSON_GetObjectItem(ch, "index")->valueint;
    if (b->choice != b->first[ct] + ci) fail_msg("%s: chose node %d, PyTorch step %d candidate %d", name, b->choice, ct, ci);
    // the run's decoder input is <bos> and the chosen tokens (its <eos> not among them)
    const cJSON *toks = cJSON_GetObjectItem(ref, "tokens");
    int n = cJSON_GetArraySize(toks), with_eos = !strcmp(cJSON_GetArrayItem(toks, n - 1)->valuestring, "<eos>");
    assert_int_equal(r.stopped_on_eos, with_eos);
    assert_int_equal(r.T, 1 + n - with_eos);
    for (int i = 0; i < r.T - 1; i++) assert_string_equal(r.trace.tgt_labels[i + 1], cJSON_GetArrayItem(toks, i)->valuestring);
    printf("  %s (%s, K %d, α %g): %d steps, %d candidates, largest log P difference %.2e\n", name, model, K, alpha, b->n_steps,
           b->n_nodes, worst);
    tf_run_free(&r);
    tf_model_free(&m);
    cJSON_Delete(ref);
}

static void beam_matches_pytorch(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) compare_case(cases[i]);
}

// beam/one-is-greedy: K 1 writes exactly what greedy decoding writes, on every
// fixture sentence of every model family (and when it stops at the limit).
static void one_is_greedy(void **state) {
    (void)state;
    const char *lists[] = {"tests/fixtures/cases.txt", "tests/fixtures/lstm/cases.txt"};
    int checked = 0, at_limit = 0;
    for (int l = 0; l < 2; l++) {
        fixture_case cs[32];
        int n = load_cases(lists[l], cs, 32);
        for (int i = 0; i < n; i++) {
            tf_model m;
            tf_err e;
            if (tf_model_load(&m, cs[i].model, &e)) fail_msg("%s: %s", cs[i].model, e.msg);
            if (cs[i].without[0] && tf_without_parse(cs[i].without, &m.cfg.without, &e)) fail_msg("%s", e.msg);
            m.cfg.without |= m.cfg.trained_without;
            const char *srcs[2] = {cs[i].src, cs[i].tgt[0] ? "the cat" : NULL};
            for (int k = 0; k < 2 && srcs[k]; k++) {
                tf_run g, b;
                if (tf_run_greedy(&g, &m, srcs[k], 0, &e)) fail_msg("%s: %s", cs[i].name, e.msg);
                if (tf_run_beam(&b, &m, srcs[k], 1, 0.6, &e)) fail_msg("%s: %s", cs[i].name, e.msg);
                if (g.T != b.T || memcmp(g.tgt_ids, b.tgt_ids, sizeof(int) * (size_t)g.T) || g.stopped_on_eos != b.stopped_on_eos)
                    fail_msg("%s \"%s\": greedy wrote %d tokens, beam 1 %d", cs[i].name, srcs[k], g.T, b.T);
                checked++;
                at_limit += !g.stopped_on_eos;
                tf_run_free(&g);
                tf_run_free(&b);
            }
            tf_model_free(&m);
        }
    }
    printf("  beam 1 = greedy on %d sentences (%d stopped by the length limit)\n", checked, at_limit);
    assert_true(at_limit > 0 && at_limit < checked); // both ways of stopping were met
}

// beam/invariants: every step's candidates by log P, best first; log P never
// rises along a hypothesis; the choice has the highest score of those ended.
static void invariants(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, "tests/fixtures/plain.safetensors", &e)) fail_msg("%s", e.msg);
    tf_run r;
    if (tf_run_beam(&r, &m, "I really enjoy learning transformers", 5, 0.6, &e)) fail_msg("%s", e.msg);
    const tf_beam *b = r.beam;
    int ended = 0;
    for (int t = 0; t < b->n_steps; t++)
        for (int i = b->first[t]; i < b->first[t + 1]; i++) {
            const tf_beam_node *nd = &b->node[i];
            if (i > b->first[t]) assert_true(nd->logp <= b->node[i - 1].logp);
            if (nd->parent >= 0) {
                assert_true(nd->parent >= b->first[t - 1] && nd->parent < b->first[t]);
                assert_int_equal(b->node[nd->parent].fate, TF_BEAM_KEPT);
                assert_true(nd->logp <= b->node[nd->parent].logp);
            }
            if (nd->fate == TF_BEAM_ENDED) {
                ended++;
                int len = t + 1;
                CHECK_CLOSE(nd->score, nd->logp / pow((5.0 + len) / 6.0, 0.6), 1e-12);
                assert_true(nd->score <= b->node[b->choice].score);
            }
        }
    assert_true(ended >= 1);
    int ids[128];
    int n = tf_beam_tokens(b, b->choice, ids, 128);
    assert_int_equal(n, tf_beam_step_of(b, b->choice) + 1);
    tf_run_free(&r);
    tf_model_free(&m);
}

// beam/bad-size: the sizes and α a search refuses, each with its reason.
static void bad_size(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, "tests/fixtures/multihead.safetensors", &e)) fail_msg("%s", e.msg);
    tf_run r;
    assert_int_equal(tf_run_beam(&r, &m, "the cat", 0, 0.6, &e), -1);
    assert_non_null(strstr(e.msg, "at least one"));
    assert_int_equal(tf_run_beam(&r, &m, "the cat", m.cfg.V_tgt + 1, 0.6, &e), -1);
    assert_non_null(strstr(e.msg, "wider than the target vocabulary"));
    assert_int_equal(tf_run_beam(&r, &m, "the cat", 2, -0.1, &e), -1);
    assert_non_null(strstr(e.msg, "α"));
    assert_int_equal(tf_run_beam(&r, &m, "the cat", 2, NAN, &e), -1);
    assert_int_equal(tf_beam_check(&m, m.cfg.V_tgt < TF_BEAM_MAX ? m.cfg.V_tgt : TF_BEAM_MAX, 0, &e), 0);
    tf_model_free(&m);
}

int main(void) {
    (void)check_stage_shape; // (fixture_cases.h's; this test has no stages to compare)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beam_matches_pytorch),
        cmocka_unit_test(one_is_greedy),
        cmocka_unit_test(invariants),
        cmocka_unit_test(bad_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
