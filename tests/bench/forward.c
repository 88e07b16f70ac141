// forward.c — make bench: the model's forward pass (tokens, encoder,
// decoder, softmax, every stage recorded) on a sentence with its greedy
// translation as the target, REPS times; prints the median in ms. The
// browser build measures the same (window.tviz.forwardMs), so the two are
// set side by side (tests/bench/web_bench.mjs).
//   forward MODEL SENTENCE REPS
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../src/model/tf.h"
#include "bench.h"

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: forward MODEL SENTENCE REPS\n"); return 2; }
    int reps = atoi(argv[3]);
    if (reps < 1 || reps > 1000) { fprintf(stderr, "forward: REPS from 1 to 1000\n"); return 2; }
    tf_model m;
    tf_run r;
    tf_err e;
    if (tf_model_load(&m, argv[1], &e) || tf_run_greedy(&r, &m, argv[2], 0, &e)) { fprintf(stderr, "forward: %s\n", e.msg); return 1; }
    char *tgt = tf_join_tokens(r.tgt_words + 1, r.T - 1);
    tf_run_free(&r);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t || !tgt) return 1;
    for (int i = 0; i < reps; i++) {
        double a = now();
        if (tf_run_sentence(&r, &m, argv[2], tgt, &e)) { fprintf(stderr, "forward: %s\n", e.msg); return 1; }
        t[i] = now() - a;
        tf_run_free(&r);
    }
    printf("%.3f\n", median(t, reps) * 1e3);
    free(t);
    free(tgt);
    tf_model_free(&m);
    return 0;
}
