// vec.h — the two small vector loops both backward passes use, written with
// GCC's vector extension (eight floats at a time, then the tail), and CLONES:
// a function built twice, for AVX2+FMA machines and for any x86-64.
#ifndef TVIZ_TRAIN_VEC_H
#define TVIZ_TRAIN_VEC_H

typedef float v8 __attribute__((vector_size(32), aligned(4), may_alias));

// y (n) += a · x (n)
static inline __attribute__((always_inline)) void axpy(float *y, float a, const float *x, int n) {
    v8 av = {a, a, a, a, a, a, a, a};
    int i = 0;
    for (; i + 8 <= n; i += 8) *(v8 *)(y + i) += av * *(const v8 *)(x + i);
    for (; i < n; i++) y[i] += a * x[i];
}

// a (n) · b (n), summed in the same order on every machine
static inline __attribute__((always_inline)) float dotv(const float *a, const float *b, int n) {
    v8 s = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8) s += *(const v8 *)(a + i) * *(const v8 *)(b + i);
    float r = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; i < n; i++) r += a[i] * b[i];
    return r;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

#endif
