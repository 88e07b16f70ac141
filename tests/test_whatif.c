// test_whatif.c — parts of the Transformer switched off (what if?), on the
// fixture models: what each switch must do to the numbers, checked against
// an independent computation from the trace's own inputs, and the model file
// keys that record a variant (norm_first, without).
//
// The switched-off runs are also compared stage by stage with PyTorch in
// test_trace (cases.txt's fifth column); these are the consequences the
// lessons rely on.
#include "testutil.h"

#include <math.h>

static const tf_stage *stage(const tf_run *r, const char *id) {
    int i = tf_trace_find(&r->trace, id);
    if (i < 0) fail_msg("no stage %s", id);
    return &r->trace.stages[i];
}

static void load(tf_model *m, const char *path, int without) {
    tf_err e;
    if (tf_model_load(m, path, &e)) fail_msg("%s: %s", path, e.msg);
    m->cfg.without |= without;
}

static void run(tf_run *r, const tf_model *m, const char *src, const char *tgt) {
    tf_err e;
    if (tf_run_sentence(r, m, src, tgt, &e)) fail_msg("\"%s\": %s", src, e.msg);
}

// ---------------------------------------------------------------- pe
// Without positional encoding, self-attention cannot tell positions apart:
// the encoder maps the words in another order to the same rows in that
// order. perm[i] is the position in the first sentence of the second's word i.
// Returns the largest difference over every encoder stage whose rows are
// source tokens (columns too, for the attention squares).
static double encoder_permutation_gap(const tf_model *m, const char *a, const char *b, const int *perm) {
    tf_run ra, rb;
    run(&ra, m, a, NULL);
    run(&rb, m, b, NULL);
    assert_int_equal(ra.S, rb.S);
    double worst = 0;
    const tf_trace *t = &ra.trace;
    int checked = 0;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i], *u = &rb.trace.stages[i];
        if (s->side != TF_SIDE_SRC && s->side != TF_SIDE_ENC) continue;
        if (s->row_axis != TF_AXIS_SRC || s->op == TF_OP_PE) continue;
        assert_string_equal(s->id, u->id);
        checked++;
        for (int y = 0; y < s->rows; y++)
            for (int x = 0; x < s->cols; x++) {
                int xa = s->col_axis == TF_AXIS_SRC ? perm[x] : x;
                double d = fabs((double)u->data[(size_t)y * u->cols + x] - s->data[(size_t)perm[y] * s->cols + xa]);
                double scale = fmax(1.0, fabs((double)s->data[(size_t)perm[y] * s->cols + xa]));
                if (d / scale > worst) worst = d / scale;
            }
    }
    assert_true(checked > 10);
    tf_run_free(&ra);
    tf_run_free(&rb);
    return worst;
}

static void without_pe_the_encoder_is_permutation_equivariant(void **state) {
    (void)state;
    // "the white house falls" -> "falls house the white": word i of the second is word perm[i] of the first
    static const int perm[] = {3, 2, 0, 1};
    static const char *models[] = {"tests/fixtures/multihead.safetensors", "tests/fixtures/prenorm.safetensors"};
    for (int k = 0; k < 2; k++) {
        tf_model m;
        load(&m, models[k], TF_WITHOUT_PE);
        double gap = encoder_permutation_gap(&m, "the white house falls", "falls house the white", perm);
        printf("  %s without pe: shuffled words give the same rows shuffled, to %.2g\n", models[k], gap);
        if (!(gap <= 1e-5)) fail_msg("%s without pe: the encoder is not permutation-equivariant (%.3g)", models[k], gap);
        m.cfg.without = 0; // with positions, the order matters (so the check above can fail)
        gap = encoder_permutation_gap(&m, "the white house falls", "falls house the white", perm);
        printf("  %s with pe: the rows differ by up to %.2g\n", models[k], gap);
        assert_true(gap > 1e-2);
        tf_model_free(&m);
    }
    // the source <eos> a plain model appends stays last: a permutation of the words only
    static const int perm_eos[] = {2, 0, 1, 3};
    tf_model m;
    load(&m, "tests/fixtures/plain.safetensors", TF_WITHOUT_PE);
    double gap = encoder_permutation_gap(&m, "the cat sleeps", "sleeps the cat", perm_eos);
    if (!(gap <= 1e-5)) fail_msg("plain without pe: %.3g", gap);
    tf_model_free(&m);
}

// Without PE the PE stage is all zeros and the input is the scaled embedding, exactly.
static void without_pe_the_input_is_the_embedding(void **state) {
    (void)state;
    tf_model m;
    load(&m, "tests/fixtures/multihead.safetensors", TF_WITHOUT_PE);
    tf_run r;
    run(&r, &m, "a black cat sleeps", "un chat noir dort");
    assert_int_equal(r.trace.without, TF_WITHOUT_PE);
    for (int side = 0; side < 2; side++) {
        const tf_stage *e = stage(&r, side ? "tgt.embed" : "src.embed"), *p = stage(&r, side ? "tgt.pe" : "src.pe"),
                       *x = stage(&r, side ? "tgt.input" : "src.input");
        for (int i = 0; i < e->rows * e->cols; i++) {
            assert_true(p->data[i] == 0.0f);
            assert_true(x->data[i] == e->data[i]);
        }
        assert_string_equal(p->title, "Positional encoding (switched off)");
    }
    tf_run_free(&r);
    tf_model_free(&m);
}

// ---------------------------------------------------------------- scale
// Q_h K_hᵀ computed here in double from the trace's q and k stages.
static double qk(const tf_stage *q, const tf_stage *k, int h, int D, int i, int j) {
    double s = 0;
    for (int d = 0; d < D; d++) s += (double)q->data[(size_t)i * q->cols + h * D + d] * k->data[(size_t)j * k->cols + h * D + d];
    return s;
}

// Every head of every attention: scaled == Q_h K_hᵀ (/ √d_k when scaling is
// on), and the weights are the softmax of that.
static void check_scaling(const tf_run *r, int D, int scaled) {
    const tf_trace *t = &r->trace;
    int heads = 0;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        if (s->op != TF_OP_SCALED) continue;
        heads++;
        const tf_stage *q = &t->stages[tf_stage_with_op(t, i, TF_OP_Q)], *k = &t->stages[tf_stage_with_op(t, i, TF_OP_K)];
        const tf_stage *w = &t->stages[tf_stage_with_op(t, i, TF_OP_WEIGHTS)], *mk = &t->stages[tf_stage_with_op(t, i, TF_OP_MASKED)];
        double div = scaled ? sqrt(D) : 1.0;
        for (int y = 0; y < s->rows; y++) {
            double mx = -INFINITY, sum = 0;
            for (int x = 0; x < s->cols; x++) {
                double want = qk(q, k, s->head, D, y, x) / div;
                if (!(fabs(s->data[(size_t)y * s->cols + x] - want) <= 1e-5 * fmax(1, fabs(want))))
                    fail_msg("%s[%d][%d] = %.7g, Q_h·K_hᵀ%s = %.7g", s->id, y, x, (double)s->data[(size_t)y * s->cols + x],
                             scaled ? " / √d_k" : "", want);
                float mv = mk->data[(size_t)y * s->cols + x];
                if (isfinite(mv) && mv > mx) mx = mv;
            }
            for (int x = 0; x < s->cols; x++) {
                float mv = mk->data[(size_t)y * s->cols + x];
                if (isfinite(mv)) sum += exp(mv - mx);
            }
            for (int x = 0; x < s->cols; x++) {
                float mv = mk->data[(size_t)y * s->cols + x];
                double want = isfinite(mv) ? exp(mv - mx) / sum : 0;
                CHECK_CLOSE(w->data[(size_t)y * s->cols + x], want, 1e-6);
            }
        }
    }
    assert_true(heads > 0);
}

static void without_scale_the_scores_are_qk(void **state) {
    (void)state;
    static const char *models[] = {"tests/fixtures/multihead.safetensors", "tests/fixtures/plain.safetensors", "tests/fixtures/prenorm.safetensors"};
    for (int k = 0; k < 3; k++) {
        for (int scaled = 0; scaled < 2; scaled++) {
            tf_model m;
            load(&m, models[k], scaled ? 0 : TF_WITHOUT_SCALE);
            tf_run r;
            run(&r, &m, "the cat sleeps", NULL);
            check_scaling(&r, m.cfg.D, scaled);
            if (!scaled) assert_string_equal(stage(&r, "enc.0.self_attn.head.0.scaled")->title, "Scores, not scaled");
            tf_run_free(&r);
            tf_model_free(&m);
        }
    }
}

// ---------------------------------------------------------------- mask
static void without_mask_the_decoder_sees_later_positions(void **state) {
    (void)state;
    static const char *models[] = {"tests/fixtures/multihead.safetensors", "tests/fixtures/prenorm.safetensors"};
    for (int k = 0; k < 2; k++) {
        for (int masked = 0; masked < 2; masked++) {
            tf_model m;
            load(&m, models[k], masked ? 0 : TF_WITHOUT_MASK);
            tf_run r;
            run(&r, &m, "the white house falls", "la maison blanche tombe");
            const tf_trace *t = &r.trace;
            int seen = 0;
            for (int i = 0; i < t->n; i++) {
                const tf_stage *s = &t->stages[i];
                if (s->side != TF_SIDE_DEC || s->sublayer != TF_SUB_SELF_ATTN) continue;
                if (s->op == TF_OP_MASKED)
                    for (int c = 0; c < s->rows * s->cols; c++)
                        if (!masked && isinf(s->data[c])) fail_msg("%s: cell %d is −∞ without a mask", s->id, c);
                if (s->op != TF_OP_WEIGHTS) continue;
                seen++;
                for (int y = 0; y < s->rows; y++) {
                    double sum = 0;
                    for (int x = 0; x < s->cols; x++) {
                        float v = s->data[(size_t)y * s->cols + x];
                        sum += v;
                        if (x > y && masked && v != 0.0f) fail_msg("%s[%d][%d] = %g with the mask", s->id, y, x, (double)v);
                        if (x > y && !masked && !(v > 0.0f)) fail_msg("%s[%d][%d] = %g: without the mask it must be above 0", s->id, y, x, (double)v);
                    }
                    if (fabs(sum - 1) > 1e-5) fail_msg("%s: row %d sums to %.8f", s->id, y, sum);
                }
            }
            assert_int_equal(seen, m.cfg.L_dec * m.cfg.H);
            tf_run_free(&r);
            tf_model_free(&m);
        }
    }
}

// ---------------------------------------------------------------- residual
// Without the residual, each add holds its sublayer's output alone, bit for bit.
static void without_residual_the_sublayer_replaces_its_input(void **state) {
    (void)state;
    static const char *models[] = {"tests/fixtures/multihead.safetensors", "tests/fixtures/prenorm.safetensors"};
    for (int k = 0; k < 2; k++) {
        tf_model m;
        load(&m, models[k], TF_WITHOUT_RESIDUAL);
        tf_run r;
        run(&r, &m, "the white house falls", "la maison blanche tombe");
        const tf_trace *t = &r.trace;
        int adds = 0;
        for (int i = 0; i < t->n; i++) {
            const tf_stage *s = &t->stages[i];
            if (s->op != TF_OP_ADD) continue;
            int in[4], n = tf_stage_inputs(t, i, in, 4);
            assert_int_equal(n, 2);
            const tf_stage *sub = &t->stages[in[1]];
            assert_true(sub->op == TF_OP_OUT || sub->op == TF_OP_FFN_OUT);
            assert_memory_equal(s->data, sub->data, sizeof(float) * (size_t)s->rows * s->cols);
            adds++;
        }
        assert_int_equal(adds, 2 * m.cfg.L_enc + 3 * m.cfg.L_dec);
        tf_run_free(&r);
        tf_model_free(&m);
    }
}

// ---------------------------------------------------------------- names
static void parts_are_named(void **state) {
    (void)state;
    tf_err e;
    int bits = -1;
    assert_int_equal(tf_without_parse("pe, scale", &bits, &e), 0);
    assert_int_equal(bits, TF_WITHOUT_PE | TF_WITHOUT_SCALE);
    assert_int_equal(tf_without_parse("residual,mask,pe,scale", &bits, &e), 0);
    assert_int_equal(bits, TF_WITHOUT_ALL);
    assert_int_equal(tf_without_parse("", &bits, &e), 0);
    assert_int_equal(bits, 0);
    assert_int_equal(tf_without_parse("none", &bits, &e), 0);
    assert_int_equal(bits, 0);
    assert_int_equal(tf_without_parse("pe,attention", &bits, &e), -1);
    assert_non_null(strstr(e.msg, "\"attention\" is not a part"));
    assert_non_null(strstr(e.msg, "pe, scale, mask and residual"));
    assert_int_equal(tf_without_parse("pes", &bits, &e), -1); // a prefix is not a name
    char buf[64];
    assert_string_equal(tf_without_format(TF_WITHOUT_MASK | TF_WITHOUT_PE, buf, sizeof buf), "pe,mask");
    assert_string_equal(tf_without_format(0, buf, sizeof buf), "");
    assert_string_equal(tf_without_format(TF_WITHOUT_ALL, buf, sizeof buf), "pe,scale,mask,residual");
}

// ---------------------------------------------------------------- model files
static char *with_metadata(const char *path, const char *key, const char *value, size_t *n) {
    // the fixture's header with one more __metadata__ entry (the header grows; offsets are relative to its end)
    size_t len;
    char *file = read_file(path, &len);
    assert_non_null(file);
    uint64_t hl;
    memcpy(&hl, file, 8);
    char *meta = strstr(file + 8, "\"__metadata__\":{");
    assert_non_null(meta);
    meta += strlen("\"__metadata__\":{");
    char add[256];
    int k = snprintf(add, sizeof add, "\"%s\":\"%s\",", key, value);
    size_t pad = (8 - (hl + (size_t)k) % 8) % 8;
    char *out = malloc(len + (size_t)k + pad);
    assert_non_null(out);
    uint64_t nhl = hl + (uint64_t)k + pad;
    memcpy(out, &nhl, 8);
    size_t before = (size_t)(meta - file) - 8;
    memcpy(out + 8, file + 8, before);
    memcpy(out + 8 + before, add, (size_t)k);
    memcpy(out + 8 + before + k, file + 8 + before, hl - before);
    memset(out + 8 + hl + k, ' ', pad);
    memcpy(out + 8 + nhl, file + 8 + hl, len - 8 - hl);
    *n = len + (size_t)k + pad;
    free(file);
    return out;
}

static void variants_are_kept_in_the_model_file(void **state) {
    (void)state;
    tf_model m, back;
    tf_err e;
    load(&m, "tests/fixtures/prenorm.safetensors", 0);
    assert_int_equal(m.cfg.norm_first, 1);
    assert_int_equal(m.cfg.trained_without, 0);
    m.cfg.trained_without = m.cfg.without = TF_WITHOUT_PE | TF_WITHOUT_MASK;
    char path[256];
    snprintf(path, sizeof path, "%s/variant.safetensors", test_tmpdir());
    assert_int_equal(tf_model_save(&m, path, &e), 0);
    assert_int_equal(tf_model_load(&back, path, &e), 0);
    assert_int_equal(back.cfg.norm_first, 1);
    assert_int_equal(back.cfg.trained_without, TF_WITHOUT_PE | TF_WITHOUT_MASK);
    assert_int_equal(back.cfg.without, TF_WITHOUT_PE | TF_WITHOUT_MASK); // it runs as it was trained
    tf_run r;
    run(&r, &back, "the cat sleeps", NULL);
    assert_int_equal(r.trace.without, TF_WITHOUT_PE | TF_WITHOUT_MASK);
    assert_int_equal(r.trace.norm_first, 1);
    assert_int_not_equal(tf_trace_find(&r.trace, "enc.0.pre_norm1"), -1);
    assert_int_equal(tf_trace_find(&r.trace, "enc.0.norm1"), -1);
    tf_run_free(&r);
    tf_model_free(&back);
    tf_model_free(&m);
    unlink(path);
    // what a broken key says
    size_t n;
    char *bad = with_metadata("tests/fixtures/multihead.safetensors", "without", "pe,wings", &n);
    assert_int_equal(tf_model_load_mem(&back, bad, n, &e), -1);
    assert_non_null(strstr(e.msg, "__metadata__ \"without\" is \"pe,wings\""));
    free(bad);
    bad = with_metadata("tests/fixtures/multihead.safetensors", "norm_first", "2", &n);
    assert_int_equal(tf_model_load_mem(&back, bad, n, &e), -1);
    assert_non_null(strstr(e.msg, "norm_first"));
    free(bad);
    bad = with_metadata("tests/fixtures/multihead.safetensors", "without", "scale", &n); // a valid one loads
    assert_int_equal(tf_model_load_mem(&back, bad, n, &e), 0);
    assert_int_equal(back.cfg.without, TF_WITHOUT_SCALE);
    tf_model_free(&back);
    free(bad);
}

// ---------------------------------------------------------------- pre-LN data flow
// What each stage of a pre-LN layer is computed from, and its block of Figure 1.
static void pre_ln_stages_know_their_inputs(void **state) {
    (void)state;
    tf_model m;
    load(&m, "tests/fixtures/prenorm.safetensors", 0);
    tf_run r;
    run(&r, &m, "a green car runs", "une voiture verte court");
    const tf_trace *t = &r.trace;
    struct { const char *id; const char *in[2]; } flow[] = {
        {"enc.0.pre_norm1", {"src.input", NULL}},
        {"enc.0.self_attn.q", {"enc.0.pre_norm1", NULL}},
        {"enc.0.add1", {"src.input", "enc.0.self_attn.out"}},
        {"enc.0.pre_norm2", {"enc.0.add1", NULL}},
        {"enc.0.ffn.hidden", {"enc.0.pre_norm2", NULL}},
        {"enc.0.add2", {"enc.0.add1", "enc.0.ffn.out"}},
        {"enc.1.pre_norm1", {"enc.0.add2", NULL}},
        {"enc.norm", {"enc.1.add2", NULL}},
        {"dec.0.cross_attn.q", {"dec.0.pre_norm2", NULL}},
        {"dec.0.cross_attn.k", {"enc.norm", NULL}},
        {"dec.1.pre_norm3", {"dec.1.add2", NULL}},
        {"dec.1.add3", {"dec.1.add2", "dec.1.ffn.out"}},
        {"dec.norm", {"dec.1.add3", NULL}},
    };
    for (size_t k = 0; k < sizeof flow / sizeof *flow; k++) {
        int i = tf_trace_find(t, flow[k].id), in[4];
        if (i < 0) fail_msg("no stage %s", flow[k].id);
        int n = tf_stage_inputs(t, i, in, 4);
        for (int j = 0; j < 2; j++) {
            if (!flow[k].in[j]) { assert_int_equal(n, j); break; }
            if (j >= n || strcmp(t->stages[in[j]].id, flow[k].in[j]))
                fail_msg("%s: input %d is %s, not %s", flow[k].id, j, j < n ? t->stages[in[j]].id : "missing", flow[k].in[j]);
        }
    }
    int i = tf_trace_find(t, "dec.0.pre_norm2");
    assert_int_equal(tf_stage_block(&t->stages[i]), TF_BLOCK_DEC_LN2);
    assert_int_equal(tf_block_stage(t, tf_trace_find(t, "dec.1.add1"), TF_BLOCK_DEC_LN2), tf_trace_find(t, "dec.1.pre_norm2"));
    assert_int_equal(tf_stage_block(&t->stages[tf_trace_find(t, "enc.1.add2")]), TF_BLOCK_ENC_AN2);
    assert_int_equal(tf_stage_other_layer(t, tf_trace_find(t, "enc.0.pre_norm2"), 1), tf_trace_find(t, "enc.1.pre_norm2"));
    tf_run_free(&r);
    tf_model_free(&m);
}

// ---------------------------------------------------------------- the shipped variants
// The translators trained without a part (make en-fa-no-pe, en-fa-no-mask,
// en-fa-pre-ln) show what the issue promised: without PE the encoder's rows
// for shuffled words are the same rows shuffled and "Ali sees Sara" reads as
// "Sara sees Ali"; without the mask the training loss ends far below en-fa's
// while greedy decoding fails; pre-LN runs pre-LN, with its curves.
static char *translate(const tf_model *m, const char *src) {
    tf_run r;
    tf_err e;
    if (tf_run_greedy(&r, m, src, 0, &e)) fail_msg("%s: %s", src, e.msg);
    char *text = tf_join_tokens(r.tgt_words + 1, r.T - 1);
    tf_run_free(&r);
    return text;
}

// en-fa at the variant's number of steps: the shipped model or its snapshot
// (a shorter run is the first part of a longer one: the schedule does not
// depend on the number of steps).
static void load_en_fa_at(tf_model *m, int step) {
    load(m, "assets/models/en-fa.safetensors", 0);
    if (m->train_step == step) return;
    tf_model_free(m);
    char path[96];
    snprintf(path, sizeof path, "assets/models/en-fa.snapshots/step-%06d.safetensors", step);
    load(m, path, 0);
    assert_int_equal(m->train_step, step);
}

static void shipped_variants(void **state) {
    (void)state;
    tf_model pe, mask, pre, base, base_pe, base_mask, base_pre;
    load(&pe, "assets/models/en-fa-no-pe.safetensors", 0);
    load(&mask, "assets/models/en-fa-no-mask.safetensors", 0);
    load(&pre, "assets/models/en-fa-pre-ln.safetensors", 0);
    load(&base, "assets/models/en-fa.safetensors", 0);
    assert_int_equal(pe.cfg.without, TF_WITHOUT_PE);
    assert_int_equal(mask.cfg.without, TF_WITHOUT_MASK);
    assert_int_equal(pre.cfg.without, 0);
    assert_int_equal(pre.cfg.norm_first, 1);
    load_en_fa_at(&base_pe, pe.train_step);
    load_en_fa_at(&base_mask, mask.train_step);
    load_en_fa_at(&base_pre, pre.train_step);
    // the same sizes as en-fa, each with its loss curve
    const tf_model *all[3] = {&pe, &mask, &pre};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(all[k]->cfg.C, base.cfg.C);
        assert_int_equal(all[k]->cfg.L_enc, base.cfg.L_enc);
        assert_int_equal(all[k]->cfg.F, base.cfg.F);
        assert_true(all[k]->n_loss_curve > 0);
    }
    // no PE: shuffled words, the same rows shuffled; two orders, one translation
    // ("se@@ es" are two pieces: "Sara se@@ es Ali <eos>" from "Ali se@@ es Sara <eos>")
    static const int perm[] = {3, 1, 2, 0, 4};
    double gap = encoder_permutation_gap(&pe, "Ali sees Sara", "Sara sees Ali", perm);
    printf("  en-fa-no-pe: \"Sara sees Ali\" gives the rows of \"Ali sees Sara\" shuffled, to %.2g\n", gap);
    if (!(gap <= 1e-5)) fail_msg("en-fa-no-pe: shuffled words do not give shuffled rows (%.3g)", gap);
    char *a = translate(&pe, "Ali sees Sara"), *b = translate(&pe, "Sara sees Ali");
    printf("  en-fa-no-pe: \"Ali sees Sara\" -> %s, \"Sara sees Ali\" -> %s\n", a, b);
    assert_string_equal(a, b);
    free(a);
    free(b);
    a = translate(&base, "Ali sees Sara");
    b = translate(&base, "Sara sees Ali");
    assert_string_not_equal(a, b); // en-fa, with positions, tells them apart
    free(a);
    free(b);
    const tf_model *ref[3] = {&base_pe, &base_mask, &base_pre};
    for (int k = 0; k < 3; k++)
        printf("  %s at step %d: training loss %.3f (en-fa %.3f), held-out exact match %.3f (en-fa %.3f)\n",
               k == 0 ? "en-fa-no-pe" : k == 1 ? "en-fa-no-mask" : "en-fa-pre-ln", all[k]->train_step,
               (double)all[k]->step_loss, (double)ref[k]->step_loss, (double)all[k]->heldout_exact, (double)ref[k]->heldout_exact);
    // no mask: a far lower training loss than en-fa after as many steps, and
    // greedy decoding that fails on held-out pairs. The loss is label-smoothed
    // (ε = 0.1 spread over all V target tokens, as tviz train and torch do it),
    // so no model gets below the entropy of that target: the models are
    // compared by how far above that floor they end.
    double eps = 0.1, V = mask.tgt_vocab.n, q = 1 - eps + eps / V, u = eps / V;
    double floor_ = -q * log(q) - (V - 1) * u * log(u);
    printf("  label smoothing's floor %.3f: en-fa-no-mask %.3f above it, en-fa %.3f\n", floor_, mask.step_loss - floor_,
           base_mask.step_loss - floor_);
    assert_true(mask.step_loss > floor_ && base_mask.step_loss > floor_);
    assert_true(mask.step_loss - floor_ < 0.5 * (base_mask.step_loss - floor_));
    assert_true(mask.step_loss < base_mask.step_loss);
    assert_true(mask.heldout_exact < 0.5 * base_mask.heldout_exact);
    // pre-LN learns the task: its held-out exact match is within reach of en-fa's at as many steps
    assert_true(pre.heldout_exact > 0.5 * base_pre.heldout_exact);
    tf_model_free(&pe);
    tf_model_free(&mask);
    tf_model_free(&pre);
    tf_model_free(&base);
    tf_model_free(&base_pe);
    tf_model_free(&base_mask);
    tf_model_free(&base_pre);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(without_pe_the_encoder_is_permutation_equivariant),
        cmocka_unit_test(without_pe_the_input_is_the_embedding),
        cmocka_unit_test(without_scale_the_scores_are_qk),
        cmocka_unit_test(without_mask_the_decoder_sees_later_positions),
        cmocka_unit_test(without_residual_the_sublayer_replaces_its_input),
        cmocka_unit_test(parts_are_named),
        cmocka_unit_test(variants_are_kept_in_the_model_file),
        cmocka_unit_test(pre_ln_stages_know_their_inputs),
        cmocka_unit_test(shipped_variants),
    };
    return cmocka_run_group_tests_name("whatif", tests, NULL, NULL);
}
