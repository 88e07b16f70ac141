// test_lstm_train.c — training the recurrent models: backpropagation through
// time against finite differences for every tensor, one step (loss, every
// gradient, clipping, two Adam steps) against PyTorch, and a short run that
// learns a task only a model that carries state can do.
#include "gradcheck.h"

#include <cjson/cJSON.h>
#include <math.h>

static const char *SRC_V = "<pad>\n<unk>\n<bos>\n<eos>\na\nb\nc\nd\ne\nf\ng";
static const char *TGT_V = "<pad>\n<unk>\n<bos>\n<eos>\np\nq\nr\ns\nt\nu\nv\nw\nx";

// A tiny recurrent model, its weights moved away from their initial values.
static void tiny(tf_model *m, int layers, int attention, int reverse) {
    tf_config c = {0};
    c.arch = TF_ARCH_LSTM;
    c.E = 5; c.C = 6; c.L_enc = layers; c.attention = attention ? TF_RNN_ATTN_DOT : TF_RNN_ATTN_NONE;
    c.reverse_source = reverse; c.src_append_eos = 1; c.max_len = 12; c.max_len_set = 1;
    tf_err e;
    if (tf_model_init(m, &c, SRC_V, TGT_V, 7, &e)) fail_msg("%s", e.msg);
    tf_rng r;
    tf_rng_seed(&r, 99);
    for (size_t i = 0; i < m->n_params; i++) m->owned[i] += 0.6f * (tf_rng_uniform(&r) - 0.5f);
}

static int S1[] = {4, 5, 6, 3}, T1i[] = {2, 4, 5, 6}, T1o[] = {4, 5, 6, 3};
static int S2[] = {7, 8, 9, 10, 4, 3}, T2i[] = {2, 7}, T2o[] = {7, 3};
static int S3[] = {10, 3}, T3i[] = {2, 9, 10, 4, 5}, T3o[] = {9, 10, 4, 5, 3};
static tf_example batch[] = {{S1, 4, T1i, 4, T1o}, {S2, 6, T2i, 2, T2o}, {S3, 2, T3i, 5, T3o}};

static double loss_of(tf_trainer *t) {
    double l;
    tf_err e;
    assert_int_equal(tf_train_grad(t, batch, 3, 1, &l, NULL, &e), 0);
    return l;
}

// Central differences (in double, on float weights: two step sizes) on the
// entry with the largest gradient and three random ones of every tensor.
static void gradcheck(int layers, int attention, int reverse) {
    tf_model m;
    tf_trainer t;
    tf_train_cfg cfg;
    tf_err e;
    tiny(&m, layers, attention, reverse);
    tf_train_defaults(&cfg);
    if (tf_trainer_init(&t, &m, &cfg, &e)) fail_msg("%s", e.msg);
    int checked = gradcheck_all(&m, &t, loss_of);
    int n = tf_model_tensors(&m, NULL);
    printf("  %d layer%s, attention %s, source %s: %d gradients of %d tensors agree with finite differences\n", layers,
           layers > 1 ? "s" : "", attention ? "dot" : "none", reverse ? "reversed" : "in order", checked, n);
    tf_trainer_free(&t);
    tf_model_free(&m);
}

static void test_gradcheck_one_layer(void **s) { (void)s; gradcheck(1, 0, 0); }
static void test_gradcheck_reversed_two_layers(void **s) { (void)s; gradcheck(2, 0, 1); }
static void test_gradcheck_attention_three_layers(void **s) { (void)s; gradcheck(3, 1, 1); }

// Clipping scales the whole gradient down to the norm asked, never up.
static void test_clipping(void **s) {
    (void)s;
    tf_model m;
    tf_trainer t;
    tf_train_cfg cfg;
    tf_err e;
    tiny(&m, 2, 1, 0);
    tf_train_defaults(&cfg);
    cfg.clip_norm = 0.05f;
    cfg.lr_const = 0.001f;
    assert_int_equal(tf_trainer_init(&t, &m, &cfg, &e), 0);
    loss_of(&t);
    double sq = 0;
    for (size_t i = 0; i < m.n_params; i++) sq += (double)t.grad.owned[i] * t.grad.owned[i];
    assert_true(sqrt(sq) > 0.05);
    float g0 = t.grad.owned[0];
    tf_adam_step(&t);
    CHECK_CLOSE(t.grad_norm, sqrt(sq), 1e-6 * sqrt(sq));
    double after = 0;
    for (size_t i = 0; i < m.n_params; i++) after += (double)t.grad.owned[i] * t.grad.owned[i];
    CHECK_CLOSE(sqrt(after), 0.05, 1e-5);
    CHECK_CLOSE(t.grad.owned[0], g0 * 0.05 / sqrt(sq), 1e-6);
    assert_true(tf_lr(&cfg, m.cfg.C, 1) == 0.001f && tf_lr(&cfg, m.cfg.C, 5000) == 0.001f);
    tf_trainer_free(&t);
    tf_model_free(&m);
}

// ---------------------------------------------------------------- against PyTorch
static cJSON *fixture(const char *name) {
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/lstm/train/%s.json", name);
    char *txt = read_file(path, NULL);
    assert_non_null(txt);
    cJSON *j = cJSON_Parse(txt);
    free(txt);
    assert_non_null(j);
    return j;
}

// Largest |a − b| / (atol + |b|) over a tensor, with b from the fixture.
static double worst(const float *a, const cJSON *b, size_t n, double atol) {
    assert_int_equal((size_t)cJSON_GetArraySize(b), n);
    double w = 0;
    size_t i = 0;
    for (const cJSON *x = b->child; x; x = x->next, i++) {
        double r = fabs(a[i] - x->valuedouble) / (atol + fabs(x->valuedouble));
        if (r > w) w = r;
    }
    return w;
}

static void step_against_pytorch(const char *name) {
    cJSON *j = fixture(name);
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/lstm/train/%s.safetensors", name);
    tf_model loaded, m;
    tf_err e;
    if (tf_model_load(&loaded, path, &e)) fail_msg("%s: %s", path, e.msg);
    assert_int_equal(tf_model_clone(&m, &loaded, &e), 0);
    tf_model_free(&loaded);
    const cJSON *jb = cJSON_GetObjectItem(j, "batch");
    int n = cJSON_GetArraySize(jb), ids[3][3][16];
    tf_example b[3];
    assert_int_equal(n, 3);
    for (int k = 0; k < n; k++) {
        const char *key[3] = {"src", "tgt_in", "tgt_out"};
        int len[3];
        for (int q = 0; q < 3; q++) {
            const cJSON *a = cJSON_GetObjectItem(cJSON_GetArrayItem(jb, k), key[q]);
            len[q] = cJSON_GetArraySize(a);
            for (int i = 0; i < len[q]; i++) ids[k][q][i] = cJSON_GetArrayItem(a, i)->valueint;
        }
        b[k] = (tf_example){ids[k][0], len[0], ids[k][1], len[1], ids[k][2]};
    }
    tf_train_cfg cfg;
    tf_train_defaults(&cfg);
    cfg.label_smoothing = (float)cJSON_GetObjectItem(j, "label_smoothing")->valuedouble;
    cfg.lr_const = (float)cJSON_GetObjectItem(j, "lr")->valuedouble;
    cfg.clip_norm = (float)cJSON_GetObjectItem(j, "clip")->valuedouble;
    cfg.beta1 = (float)cJSON_GetArrayItem(cJSON_GetObjectItem(j, "betas"), 0)->valuedouble;
    cfg.beta2 = (float)cJSON_GetArrayItem(cJSON_GetObjectItem(j, "betas"), 1)->valuedouble;
    cfg.adam_eps = (float)cJSON_GetObjectItem(j, "eps")->valuedouble;
    tf_trainer t;
    assert_int_equal(tf_trainer_init(&t, &m, &cfg, &e), 0);
    int nt = tf_model_tensors(&m, NULL);
    tf_tensor_info *ti = calloc((size_t)nt, sizeof *ti), *tg = calloc((size_t)nt, sizeof *tg);
    tf_model_tensors(&m, ti);
    tf_model_tensors(&t.grad, tg);
    assert_int_equal(nt, cJSON_GetArraySize(cJSON_GetObjectItem(j, "tensors")));
    for (int k = 0; k < nt; k++)
        assert_string_equal(ti[k].name, cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tensors"), k), 0)->valuestring);
    for (int step = 0; step < 2; step++) {
        double loss;
        int ntok;
        assert_int_equal(tf_train_grad(&t, b, 3, 1, &loss, &ntok, &e), 0);
        assert_int_equal(ntok, cJSON_GetObjectItem(j, "n_tokens")->valueint);
        double want = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "loss"), step)->valuedouble;
        if (fabs(loss - want) > 1e-5 * want) fail_msg("%s step %d: loss %.9f, PyTorch %.9f", name, step + 1, loss, want);
        if (step == 0) {
            double wg = 0;
            for (int k = 0; k < nt; k++) {
                size_t len = (size_t)ti[k].shape[0] * (ti[k].rank == 2 ? ti[k].shape[1] : 1);
                double w = worst(tg[k].data, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "grad"), ti[k].name), len, 1e-4);
                if (w > 1e-3) fail_msg("%s: gradient of %s off by %.2g (relative)", name, ti[k].name, w);
                if (w > wg) wg = w;
            }
            printf("  %s: loss %.7f (PyTorch %.7f), every gradient within %.1e (relative)\n", name, loss, want, wg);
        }
        tf_adam_step(&t);
        double gn = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "grad_norm"), step)->valuedouble;
        CHECK_CLOSE(t.grad_norm, gn, 1e-5 * gn);
        const cJSON *after = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "params_after"), step);
        double wp = 0;
        for (int k = 0; k < nt; k++) {
            size_t len = (size_t)ti[k].shape[0] * (ti[k].rank == 2 ? ti[k].shape[1] : 1);
            double w = worst(ti[k].data, cJSON_GetObjectItem(after, ti[k].name), len, 1e-3);
            if (w > 1e-3) fail_msg("%s after step %d: %s off by %.2g (relative)", name, step + 1, ti[k].name, w);
            if (w > wp) wp = w;
        }
        printf("  %s after Adam step %d (gradient norm %.4f, clipped to %g): every weight within %.1e\n", name, step + 1, t.grad_norm,
               (double)cfg.clip_norm, wp);
    }
    free(ti);
    free(tg);
    tf_trainer_free(&t);
    tf_model_free(&m);
    cJSON_Delete(j);
}

static void test_step_against_pytorch(void **s) {
    (void)s;
    step_against_pytorch("attn");  // 2 layers, dot attention, reversed source, clipping acts
    step_against_pytorch("plain"); // 1 layer, no attention
}

// ---------------------------------------------------------------- learning
// Sentences of three words from seven, translated word for word: the decoder
// can only get them right by carrying what the encoder read, through v (or
// the attention). A short run learns most of the held-out ones.
static void short_run(int attention, int reverse, int want) {
    static const char *sw[] = {"a", "b", "c", "d", "e", "f", "g"}, *tw[] = {"p", "q", "r", "s", "t", "u", "v"};
    static tf_pair all[210];
    static char buf[210][2][32];
    int n = 0;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++)
            for (int k = 0; k < 7; k++) {
                if (i == j || j == k || i == k) continue;
                snprintf(buf[n][0], 32, "%s %s %s", sw[i], sw[j], sw[k]);
                snprintf(buf[n][1], 32, "%s %s %s", tw[i], tw[j], tw[k]);
                all[n] = (tf_pair){buf[n][0], buf[n][1], 3, NULL};
                n++;
            }
    tf_corpus train = {n - 20, n - 20, all}, held = {20, 20, all + n - 20};
    tf_config cfg = {0};
    cfg.arch = TF_ARCH_LSTM;
    cfg.E = 16; cfg.C = 32; cfg.L_enc = 1; cfg.attention = attention ? TF_RNN_ATTN_DOT : TF_RNN_ATTN_NONE;
    cfg.reverse_source = reverse; cfg.src_append_eos = 1; cfg.max_len = 8; cfg.max_len_set = 1;
    tf_model m;
    tf_err e;
    assert_int_equal(tf_model_init(&m, &cfg, "<pad>\n<unk>\n<bos>\n<eos>\na\nb\nc\nd\ne\nf\ng",
                                   "<pad>\n<unk>\n<bos>\n<eos>\np\nq\nr\ns\nt\nu\nv", 1, &e), 0);
    tf_dataset dt, dh;
    int bad;
    assert_int_equal(tf_dataset_build(&dt, &train, &m, &bad, &e), 0);
    assert_int_equal(tf_dataset_build(&dh, &held, &m, &bad, &e), 0);
    if (reverse) assert_int_equal(dt.ex[0].src[0], 4 + 2); // "a b c" is read "c b a <eos>"
    tf_batches b;
    assert_int_equal(tf_batches_make(&b, &dt, 64, 1, &e), 0);
    tf_train_cfg tc;
    tf_train_defaults(&tc);
    tc.lr_const = 0.01f;
    tc.clip_norm = 5.0f;
    tf_trainer t;
    assert_int_equal(tf_trainer_init(&t, &m, &tc, &e), 0);
    tf_example batch[64];
    double first = 0, last = 0;
    assert_true(tf_eval_exact(&m, &dh, 1, &e) < 5);
    for (long st = 0; st < 300; st++) {
        int k = tf_batches_get(&b, &dt, st, 1, batch);
        double l;
        assert_int_equal(tf_train_grad(&t, batch, k, 1, &l, NULL, &e), 0);
        tf_adam_step(&t);
        if (st < 10) first += l / 10;
        if (st >= 290) last += l / 10;
    }
    int right = tf_eval_exact(&m, &dh, 2, &e);
    printf("  attention %s, source %s: loss %.3f -> %.3f, %d of 20 held-out exactly\n", attention ? "dot" : "none",
           reverse ? "reversed" : "in order", first, last, right);
    assert_true(last < 0.3 * first);
    assert_true(right >= want);
    tf_trainer_free(&t);
    tf_batches_free(&b);
    tf_dataset_free(&dt);
    tf_dataset_free(&dh);
    tf_model_free(&m);
}

static void test_short_run_learns(void **s) {
    (void)s;
    short_run(0, 1, 15);
    short_run(1, 0, 15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradcheck_one_layer),
        cmocka_unit_test(test_gradcheck_reversed_two_layers),
        cmocka_unit_test(test_gradcheck_attention_three_layers),
        cmocka_unit_test(test_clipping),
        cmocka_unit_test(test_step_against_pytorch),
        cmocka_unit_test(test_short_run_learns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
