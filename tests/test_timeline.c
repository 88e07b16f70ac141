// test_timeline.c — a model's training snapshots as a timeline (src/io/timeline.c):
// found beside the model, in the order of their steps whatever their names'
// order on disk, the model itself in place of a snapshot at its own step,
// F16 snapshots widened, a snapshot of another model refused, and every
// point run on the same tokens so that the same stage and cell stay in view.
#include "testutil.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../src/cli/cli.h"

static char dir[64];

// A worked example (the slides' d_model 4) with other seeded weights, as a
// snapshot at step: its metadata says so.
static void snapshot(const char *path, int step, float loss, float exact, int f16) {
    tf_model m;
    tf_err e;
    if (cli_preset_worked_example(&m, &e)) fail_msg("%s", e.msg);
    tf_model w;
    tf_config c = m.cfg;
    // the worked example's vocabularies, new weights
    char *src = NULL, *tgt = NULL;
    size_t a = 0, b = 0;
    for (int i = 0; i < m.src_vocab.n; i++) a += strlen(m.src_vocab.tok[i]) + 1;
    for (int i = 0; i < m.tgt_vocab.n; i++) b += strlen(m.tgt_vocab.tok[i]) + 1;
    src = calloc(a + 1, 1);
    tgt = calloc(b + 1, 1);
    for (int i = 0; i < m.src_vocab.n; i++) { strcat(src, m.src_vocab.tok[i]); if (i + 1 < m.src_vocab.n) strcat(src, "\n"); }
    for (int i = 0; i < m.tgt_vocab.n; i++) { strcat(tgt, m.tgt_vocab.tok[i]); if (i + 1 < m.tgt_vocab.n) strcat(tgt, "\n"); }
    if (tf_model_init(&w, &c, src, tgt, (uint64_t)step + 11, &e)) fail_msg("%s", e.msg);
    w.train_step = step;
    w.step_loss = loss;
    w.heldout_exact = exact;
    if ((f16 ? tf_model_save_f16 : tf_model_save)(&w, path, &e)) fail_msg("%s", e.msg);
    tf_model_free(&w);
    tf_model_free(&m);
    free(src);
    free(tgt);
}

static void timeline_of_snapshots(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/tviz-tl-%d", (int)getpid());
    char path[128], snaps[128];
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/m.safetensors", dir);
    snprintf(snaps, sizeof snaps, "%s/m.snapshots", dir);
    mkdir(snaps, 0777);
    snapshot(path, 300, 1.5f, 0.5f, 0); // the model itself, at step 300
    // written out of order; one F16; one at the model's own step; a file that is not a snapshot
    char p[512];
    snprintf(p, sizeof p, "%s/step-000200.safetensors", snaps); snapshot(p, 200, 2.5f, 0.25f, 1);
    snprintf(p, sizeof p, "%s/step-000000.safetensors", snaps); snapshot(p, 0, 6.0f, 0.0f, 0);
    snprintf(p, sizeof p, "%s/step-000050.safetensors", snaps); snapshot(p, 50, 4.0f, NAN, 0);
    snprintf(p, sizeof p, "%s/step-000300.safetensors", snaps); snapshot(p, 300, 1.5f, 0.5f, 1);
    snprintf(p, sizeof p, "%s/step-000050.state", snaps);
    FILE *f = fopen(p, "w");
    fputs("not a model", f);
    fclose(f);
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, path, &e)) fail_msg("%s", e.msg);
    io_timeline tl;
    assert_int_equal(io_timeline_open(&tl, path, &m), 0);
    assert_int_equal(tl.n, 4); // 0, 50, 200 and the model itself (instead of step 300's F16 copy)
    int want[4] = {0, 50, 200, 300};
    for (int i = 0; i < 4; i++) assert_int_equal(tl.step[i], want[i]);
    assert_int_equal(tl.self, 3);
    assert_true(io_timeline_model(&tl, 3) == &m);
    assert_true(io_timeline_model(&tl, 2)->n_f16 > 0); // stored as F16, widened
    assert_true(fabsf(tl.loss[0] - 6.0f) < 1e-6f && fabsf(tl.exact[2] - 0.25f) < 1e-6f);
    assert_true(isnan(tl.exact[1])); // (the file did not say)
    // every point on the same sentence: the model's own translation at each
    tf_run r[4];
    char *says = NULL;
    for (int i = 0; i < 4; i++) {
        if (io_timeline_run(&r[i], &tl, i, "I really enjoy learning transformers", NULL, 0, i == 1 ? &says : NULL, &e)) fail_msg("%s", e.msg);
    }
    assert_true(r[3].greedy); // the model itself decodes
    for (int i = 0; i < 3; i++) {
        assert_false(r[i].greedy); // the snapshots read its translation
        assert_int_equal(r[i].T, r[3].T);
        for (int k = 0; k < r[3].T; k++) assert_string_equal(r[i].trace.tgt_labels[k], r[3].trace.tgt_labels[k]);
        int st = tf_trace_find(&r[i].trace, "dec.0.cross_attn.head.1.weights");
        assert_true(st >= 0);
        // and the numbers are their own: other weights, other attention
        int s3 = tf_trace_find(&r[3].trace, "dec.0.cross_attn.head.1.weights");
        assert_true(memcmp(r[i].trace.stages[st].data, r[3].trace.stages[s3].data, sizeof(float) * (size_t)r[3].trace.stages[s3].cols) != 0);
    }
    assert_non_null(says); // what the snapshot itself would say
    free(says);
    for (int i = 0; i < 4; i++) tf_run_free(&r[i]);
    // a typed target is read at every point
    if (io_timeline_run(&r[0], &tl, 0, "I really enjoy", "من واقعاً", 0, NULL, &e)) fail_msg("%s", e.msg);
    assert_int_equal(r[0].T, 3);
    tf_run_free(&r[0]);
    io_timeline_free(&tl);
    // a snapshot of another model: refused, naming it
    snprintf(p, sizeof p, "cp tests/fixtures/multihead.safetensors %s/step-000100.safetensors", snaps);
    assert_int_equal(system(p), 0);
    fflush(stderr);
    assert_int_equal(io_timeline_open(&tl, path, &m), 1);
    assert_int_equal(tl.n, 0);
    tf_model_free(&m);
    // no snapshots: a timeline of none
    snprintf(p, sizeof p, "rm -rf %s", snaps);
    assert_int_equal(system(p), 0);
    if (tf_model_load(&m, path, &e)) fail_msg("%s", e.msg);
    assert_int_equal(io_timeline_open(&tl, path, &m), 0);
    assert_int_equal(tl.n, 0);
    io_timeline_free(&tl);
    tf_model_free(&m);
    snprintf(p, sizeof p, "rm -rf %s", dir);
    assert_int_equal(system(p), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(timeline_of_snapshots),
    };
    return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
