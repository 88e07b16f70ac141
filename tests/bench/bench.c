// bench.c — `make bench`: how fast tviz loads a model and runs one fully
// instrumented forward pass (every stage recorded), beside the physical
// floor: the time to read the weights once from memory.
// Usage: bench MODEL...   Prints medians of several runs; asserts nothing.
#include "../../src/model/tf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Read bandwidth: sum a buffer far larger than the caches, on one core or
// on all of them (each thread its own slice), median of 7 passes.
static double memory_bandwidth(int all_cores) {
    size_t n = (size_t)256 << 20; // bytes
    float *buf = malloc(n);
    if (!buf) return 0;
    long count = (long)(n / sizeof(float));
#pragma omp parallel for schedule(static)
    for (long i = 0; i < count; i++) buf[i] = (float)(i & 7);
    double t[7];
    volatile float sink = 0;
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        float total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total) if (all_cores)
        for (long c = 0; c < count / 4096; c++) { // 16 KB chunks
            float s[16] = {0};
            const float *p = buf + c * 4096;
            for (int i = 0; i < 4096; i += 16)
                for (int j = 0; j < 16; j++) s[j] += p[i + j];
            for (int j = 0; j < 16; j++) total += s[j];
        }
        t[r] = now() - t0;
        sink += total;
    }
    (void)sink;
    free(buf);
    return (double)n / median(t, 7);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bench MODEL...\n"); return 2; }
    const char *src = "I really enjoy learning transformers", *tgt = "I really enjoy learning transformers";
    double bw1 = memory_bandwidth(0), bw = memory_bandwidth(1);
    printf("memory read bandwidth: %.1f GB/s on one core, %.1f GB/s on all %d (median of 7 passes over 256 MB)\n\n",
           bw1 / 1e9, bw / 1e9, omp_get_max_threads());
    printf("%-44s %10s %12s %12s %12s %8s\n", "model", "params", "load (ms)", "forward (ms)", "floor (ms)", "ratio");
    for (int k = 1; k < argc; k++) {
        tf_model m;
        tf_err e;
        double tl[5], tf[15];
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            if (tf_model_load(&m, argv[k], &e)) { fprintf(stderr, "bench: %s: %s\n", argv[k], e.msg); return 1; }
            tl[r] = now() - t0;
            if (r < 4) tf_model_free(&m);
        }
        int runs = m.cfg.C >= 256 ? 9 : 15;
        int stages = 0;
        for (int r = -1; r < runs; r++) { // r = -1 warms up the thread pool
            tf_run run;
            double t0 = now();
            if (tf_run_sentence(&run, &m, src, tgt, &e)) { fprintf(stderr, "bench: %s\n", e.msg); return 1; }
            if (r >= 0) tf[r] = now() - t0;
            stages = run.trace.n;
            tf_run_free(&run);
        }
        double floor_s = (double)m.n_params * sizeof(float) / bw;
        double fwd = median(tf, runs);
        printf("%-44s %10zu %12.3f %12.3f %12.3f %7.2fx\n", argv[k], m.n_params, median(tl, 5) * 1e3, fwd * 1e3, floor_s * 1e3, fwd / floor_s);
        printf("    (d_model %d, %d heads, %d+%d layers, d_ff %d; %d stages recorded; source 5 tokens, decoder input 6)\n",
               m.cfg.C, m.cfg.H, m.cfg.L_enc, m.cfg.L_dec, m.cfg.F, stages);
        tf_model_free(&m);
    }
    printf("\nforward = median of tf_run_sentence (tokenize, encoder, decoder, softmax, trace) with a given target;\n"
           "floor = parameter bytes / all-core memory bandwidth, the time to read every weight once; goal: forward <= 2x floor.\n"
           "Threads: OMP_NUM_THREADS (default: one per core).\n");
    return 0;
}
