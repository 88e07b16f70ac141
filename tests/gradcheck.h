// gradcheck.h — the backward pass against central differences, for every
// tensor a model holds: the entry with the largest gradient and three random
// ones, each with two step sizes (a ReLU kink or a clipped value within one of
// them spoils only that one). loss() runs a forward and backward pass on the
// test's batch and leaves the gradient in t->grad. Returns the entries checked.
#ifndef GRADCHECK_H
#define GRADCHECK_H

#include "testutil.h"
#include "../src/train/train.h"

#include <math.h>

static int gradcheck_all(tf_model *m, tf_trainer *t, double (*loss)(tf_trainer *)) {
    loss(t);
    float *g = malloc(sizeof(float) * m->n_params);
    memcpy(g, t->grad.owned, sizeof(float) * m->n_params);
    int n = tf_model_tensors(m, NULL), checked = 0;
    tf_tensor_info *ti = calloc((size_t)n, sizeof *ti);
    tf_model_tensors(m, ti);
    tf_rng r;
    tf_rng_seed(&r, 5);
    for (int k = 0; k < n; k++) {
        size_t off = (size_t)(ti[k].data - m->owned), len = (size_t)ti[k].shape[0] * (ti[k].rank == 2 ? ti[k].shape[1] : 1);
        size_t best = 0;
        for (size_t i = 1; i < len; i++) if (fabsf(g[off + i]) > fabsf(g[off + best])) best = i;
        size_t pick[4] = {best, tf_rng_next(&r) % len, tf_rng_next(&r) % len, tf_rng_next(&r) % len};
        for (int j = 0; j < 4; j++) {
            double an = g[off + pick[j]], num[2];
            for (int hi = 0; hi < 2; hi++) {
                float *p = &m->owned[off + pick[j]], keep = *p, h = hi ? 5e-4f : 1e-3f;
                *p = keep + h;
                double lp = loss(t);
                *p = keep - h;
                double lm = loss(t);
                *p = keep;
                num[hi] = (lp - lm) / (2.0 * h);
            }
            if (fabs(num[0] - an) > 2e-4 + 2e-2 * fabs(an) && fabs(num[1] - an) > 2e-4 + 2e-2 * fabs(an))
                fail_msg("%s[%zu]: backward %.6g, finite differences %.6g and %.6g", ti[k].name, pick[j], an, num[0], num[1]);
            checked++;
        }
        // every tensor gets a gradient (a pad row of an embedding excepted)
        if (!(fabsf(g[off + best]) > 0.0f) && !strstr(ti[k].name, "pad")) fail_msg("%s: no gradient at all", ti[k].name);
    }
    assert_int_equal(checked, 4 * n);
    free(ti);
    free(g);
    return checked;
}

#endif
