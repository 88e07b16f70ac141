// bench.h — what the benchmarks time with: a monotonic clock, medians, and
// the memory's read bandwidth (the floor a forward pass is set beside).
#ifndef BENCH_H
#define BENCH_H

#include <stdlib.h>
#include <time.h>

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Sorts v in place.
static inline double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#ifdef _OPENMP
// Read bandwidth: sum a buffer far larger than the caches, on one core or
// on all of them (each thread its own slice), median of 7 passes.
static inline double memory_bandwidth(int all_cores) {
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
#endif

#endif
