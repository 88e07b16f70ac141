// bench_train.c — `make bench`, training: milliseconds per Adam step and
// tokens per second on a fixed batch, with one thread and with all cores,
// beside PyTorch on the CPU for the same model and batch (when Debian's
// python3-torch is installed); then the wall time of `tviz train` to 95%
// held-out exact match.
// Usage: bench_train MODEL [TVIZ]   Prints medians; asserts nothing.
#include "../../src/train/train.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

enum { PAIRS = 64, S = 9, T = 10, STEPS = 15 };

static double step_ms(tf_model *m, int threads, const tf_example *batch) {
    tf_train_cfg cfg;
    tf_train_defaults(&cfg);
    cfg.threads = threads;
    if (m->cfg.arch == TF_ARCH_LSTM) { cfg.lr_const = 0.001f; cfg.clip_norm = 5.0f; cfg.dropout = 0.0f; } // tviz train --arch lstm
    tf_trainer t;
    tf_err e;
    if (tf_trainer_init(&t, m, &cfg, &e)) { fprintf(stderr, "bench_train: %s\n", e.msg); exit(1); }
    double ms[STEPS];
    for (int i = 0; i < STEPS + 2; i++) {
        double t0 = now(), loss;
        tf_train_grad(&t, batch, PAIRS, 1, &loss, NULL, &e);
        tf_adam_step(&t);
        if (i >= 2) ms[i - 2] = (now() - t0) * 1e3;
    }
    tf_trainer_free(&t);
    return median(ms, STEPS);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bench_train MODEL [TVIZ]\n"); return 2; }
    tf_model loaded, m;
    tf_err e;
    if (tf_model_load(&loaded, argv[1], &e) || tf_model_clone(&m, &loaded, &e)) { fprintf(stderr, "bench_train: %s: %s\n", argv[1], e.msg); return 1; }
    const tf_config *c = &m.cfg;
    static int ids[PAIRS][3][T];
    tf_example batch[PAIRS];
    tf_rng r;
    tf_rng_seed(&r, 3);
    for (int i = 0; i < PAIRS; i++) {
        for (int j = 0; j < T; j++) {
            ids[i][0][j] = 4 + (int)(tf_rng_next(&r) % (uint64_t)(c->V_src - 4));
            ids[i][1][j] = 4 + (int)(tf_rng_next(&r) % (uint64_t)(c->V_tgt - 4));
            ids[i][2][j] = 4 + (int)(tf_rng_next(&r) % (uint64_t)(c->V_tgt - 4));
        }
        batch[i] = (tf_example){ids[i][0], S, ids[i][1], T, ids[i][2]};
    }
    int cores = omp_get_num_procs();
    int lstm = c->arch == TF_ARCH_LSTM;
    if (lstm)
        printf("training step of %s (%zu parameters: LSTM, embed_dim %d, hidden_size %d, %d+%d layers, attention %s, vocabularies %d and %d)\n",
               argv[1], m.n_params, c->E, c->C, c->L_enc, c->L_dec, c->attention == TF_RNN_ATTN_DOT ? "dot" : "none", c->V_src, c->V_tgt);
    else
    printf("training step of %s (%zu parameters: d_model %d, %d heads, %d+%d layers, d_ff %d, vocabularies %d and %d)\n",
           argv[1], m.n_params, c->C, c->H, c->L_enc, c->L_dec, c->F, c->V_src, c->V_tgt);
    printf("batch: %d pairs of %d source and %d target tokens; forward, backward, Adam; median of %d steps\n", PAIRS, S, T, STEPS);
    double tok = PAIRS * (S + T);
    for (int th = 1; th <= cores; th += cores - 1 > 0 ? cores - 1 : 1) {
        double ms = step_ms(&m, th, batch);
        printf("  tviz     %d thread%s %8.2f ms/step  %8.0f tokens/s\n", th, th == 1 ? " " : "s", ms, tok / ms * 1e3);
        char cmd[512];
        if (lstm) // PyTorch runs the 64 pairs as one batch (they have the same lengths); tviz runs each on its own
            snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/bench/bench_lstm_torch.py %d %d %d %d %d %d %d %d %d %d %d 2>/dev/null",
                     c->E, c->C, c->L_enc, c->attention == TF_RNN_ATTN_DOT, c->V_src, c->V_tgt, PAIRS, S, T, th, STEPS);
        else
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/bench/bench_torch.py %d %d %d %d %d %d %d %d %d %d %d 2>/dev/null",
                 c->C, c->H, c->L_enc, c->F, c->V_src, c->V_tgt, PAIRS, S, T, th, STEPS);
        FILE *p = popen(cmd, "r");
        double tms = 0;
        if (p && fscanf(p, "%lf", &tms) == 1)
            printf("  PyTorch  %d thread%s %8.2f ms/step  %8.0f tokens/s   (tviz %.1fx %s)\n", th, th == 1 ? " " : "s", tms,
                   tok / tms * 1e3, tms > ms ? tms / ms : ms / tms, tms > ms ? "faster" : "slower");
        else printf("  PyTorch  not measured: needs Debian's python3-torch (apt-get install python3-torch)\n");
        if (p) pclose(p);
        if (cores == 1) break;
    }
    tf_model_free(&m);
    tf_model_free(&loaded);
    if (argc < 3 || lstm) return 0;
    // `tviz train` from scratch with the shipped model's recipe, to 95% held-out exact match
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/tviz-bench-train && mkdir -p /tmp/tviz-bench-train && %s train -o /tmp/tviz-bench-train/m.safetensors "
             "--eval-every 100 --save-every 0 2>&1", argv[2]);
    FILE *p = popen(cmd, "r");
    char line[512];
    double t95 = -1;
    long s95 = -1;
    while (p && fgets(line, sizeof line, p)) {
        long step;
        double secs, pct;
        int right, total;
        if (t95 < 0 && sscanf(line, "held-out exact match at step %ld (%lf s): %d of %d (%lf%%)", &step, &secs, &right, &total, &pct) == 5 &&
            pct >= 95.0) { t95 = secs; s95 = step; }
        if (strstr(line, "tviz: wrote")) printf("  %s", line);
    }
    if (p) pclose(p);
    if (t95 >= 0) printf("tviz train (%d cores): 95%% held-out exact match at step %ld, %.0f s from the start\n", cores, s95, t95);
    else printf("tviz train did not reach 95%% held-out exact match\n");
    return 0;
}
