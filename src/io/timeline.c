// timeline.c — a model's training as points in time: the snapshots tviz
// train wrote beside it (<model>.snapshots/step-NNNNNN.safetensors), oldest
// first, and the model itself at the end. Each point is a whole model (F16
// snapshots are widened on load); its step, loss and held-out accuracy come
// from its __metadata__.
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_POINTS 64

// The step in a snapshot's file name, "step-000350.safetensors" -> 350; -1 if it is not one.
static long step_of_name(const char *name) {
    if (strncmp(name, "step-", 5)) return -1;
    char *end;
    long s = strtol(name + 5, &end, 10);
    if (end == name + 5 || strcmp(end, ".safetensors") || s < 0) return -1;
    return s;
}

typedef struct { long step; char *name; } found;
static int by_step(const void *a, const void *b) {
    long x = ((const found *)a)->step, y = ((const found *)b)->step;
    return x < y ? -1 : x > y;
}

// Snapshots fit the model when they read and write the same tokens with the same shapes.
static const char *mismatch(const tf_model *a, const tf_model *b) {
    const tf_config *x = &a->cfg, *y = &b->cfg;
    if (x->C != y->C || x->H != y->H || x->F != y->F || x->L_enc != y->L_enc || x->L_dec != y->L_dec) return "its sizes";
    if (a->src_vocab.n != b->src_vocab.n || a->tgt_vocab.n != b->tgt_vocab.n) return "its vocabulary";
    if (a->src_bpe.n != b->src_bpe.n || a->tgt_bpe.n != b->tgt_bpe.n) return "its subword merges";
    return NULL;
}

static void point_from(io_timeline *tl, int i, const tf_model *m) {
    tl->step[i] = m->train_step;
    tl->loss[i] = m->train_step >= 0 && m->step_loss == m->step_loss && m->step_loss >= 0 ? m->step_loss : NAN;
    tl->exact[i] = m->heldout_exact >= 0 && m->heldout_exact <= 1 ? m->heldout_exact : NAN;
}

int io_timeline_open(io_timeline *tl, const char *model_path, const tf_model *self) {
    memset(tl, 0, sizeof *tl);
    tl->self = -1;
    char dir[4200], path[4600];
    io_beside(dir, sizeof dir, model_path, ".snapshots"); // as tviz train names it
    snprintf(tl->dir, sizeof tl->dir, "%s", dir);
    DIR *d = opendir(dir);
    if (!d) return 0; // no snapshots: a timeline of none
    found *f = NULL;
    int nf = 0, cap = 0, rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) { // every snapshot, whatever their number: the choice below needs them sorted
        long s = step_of_name(de->d_name);
        if (s < 0) continue;
        if (nf == cap) {
            found *g = realloc(f, sizeof *f * (size_t)(cap = cap ? 2 * cap : 64));
            if (!g) { rc = -1; break; }
            f = g;
        }
        f[nf].step = s;
        f[nf].name = strdup(de->d_name);
        if (!f[nf].name) { rc = -1; break; }
        nf++;
    }
    closedir(d);
    if (rc) { for (int k = 0; k < nf; k++) free(f[k].name); free(f); return io_error(NULL, "out of memory"); }
    if (!nf) { free(f); return 0; }
    qsort(f, (size_t)nf, sizeof *f, by_step);
    // at most MAX_POINTS - 1 of them, spread evenly from the first to the last
    int take = nf < MAX_POINTS - 1 ? nf : MAX_POINTS - 1;
    tl->m = calloc((size_t)take + 1, sizeof *tl->m);
    tl->step = calloc((size_t)take + 1, sizeof *tl->step);
    tl->loss = calloc((size_t)take + 1, sizeof *tl->loss);
    tl->exact = calloc((size_t)take + 1, sizeof *tl->exact);
    if (!tl->m || !tl->step || !tl->loss || !tl->exact) { rc = io_error(NULL, "out of memory"); goto done; }
    for (int k = 0; k < take; k++) {
        int at = take == 1 ? nf - 1 : (int)((long)k * (nf - 1) / (take - 1));
        snprintf(path, sizeof path, "%s/%s", dir, f[at].name);
        tf_err e;
        if (tf_model_load(&tl->m[tl->n], path, &e)) { rc = io_error(path, "%s", e.msg); goto done; }
        const char *why = mismatch(&tl->m[tl->n], self);
        if (why) {
            tf_model_free(&tl->m[tl->n]);
            rc = io_error(path, "is not a snapshot of this model (%s differ); remove it from %s or open the model it belongs to", why, dir);
            goto done;
        }
        if (tl->m[tl->n].train_step < 0) tl->m[tl->n].train_step = (int)f[at].step; // (the name says it)
        point_from(tl, tl->n, &tl->m[tl->n]);
        tl->n++;
    }
    // the model itself last: in place of a snapshot at its own step (F16 of the same weights), else after them
    if (tl->n && self->train_step >= 0 && tl->step[tl->n - 1] == self->train_step) tf_model_free(&tl->m[--tl->n]);
    if (tl->n && (self->train_step < 0 || self->train_step > tl->step[tl->n - 1])) {
        tl->self = tl->n;
        point_from(tl, tl->n, self);
        if (tl->step[tl->n] < 0) tl->step[tl->n] = tl->step[tl->n - 1] + 1;
        tl->n++;
    } else if (tl->n) { // (a model older than its last snapshot: the snapshots alone)
        tl->self = -1;
    }
    tl->main = self;
    if (!tl->n) io_timeline_free(tl); // its one snapshot was the model itself: a timeline of none
done:
    for (int k = 0; k < nf; k++) free(f[k].name);
    free(f);
    if (rc) io_timeline_free(tl);
    return rc;
}

const tf_model *io_timeline_model(const io_timeline *tl, int i) {
    if (i < 0 || i >= tl->n) return tl->main;
    return i == tl->self ? tl->main : &tl->m[i];
}

void io_timeline_set_without(io_timeline *tl, int without) {
    for (int i = 0; i < tl->n; i++)
        if (i != tl->self) tl->m[i].cfg.without = tl->m[i].cfg.trained_without | without;
}

void io_timeline_free(io_timeline *tl) {
    for (int i = 0; i < tl->n; i++) if (i != tl->self) tf_model_free(&tl->m[i]);
    free(tl->m);
    free(tl->step);
    free(tl->loss);
    free(tl->exact);
    char dir[sizeof tl->dir];
    memcpy(dir, tl->dir, sizeof dir);
    memset(tl, 0, sizeof *tl);
    tl->self = -1;
    memcpy(tl->dir, dir, sizeof dir);
}

int io_timeline_run(tf_run *r, const io_timeline *tl, int i, const char *src, const char *tgt, int decode_step, char **says, tf_err *e) {
    const tf_model *m = io_timeline_model(tl, i);
    if (says) *says = NULL;
    if (m == tl->main || !tl->main) {
        if (tgt) return tf_run_sentence(r, m, src, tgt, e);
        return decode_step ? tf_run_greedy(r, m, src, decode_step, e) : tf_run_sentence(r, m, src, NULL, e);
    }
    // a snapshot: on the target typed, else on the model's own translation (the same sentence at every step)
    char *forced = NULL;
    if (!tgt) {
        tf_run g;
        if (decode_step ? tf_run_greedy(&g, tl->main, src, decode_step, e) : tf_run_sentence(&g, tl->main, src, NULL, e)) return -1;
        forced = tf_join_tokens(g.tgt_words + 1, g.T - 1);
        tf_run_free(&g);
        if (!forced) return tf_fail(e, "out of memory");
    }
    // (a translation of no words: the decoder input is <bos> alone)
    int rc = forced && !forced[0] ? tf_run_greedy(r, m, src, 1, e) : tf_run_sentence(r, m, src, tgt ? tgt : forced, e);
    free(forced);
    if (rc || !says) return rc;
    // what the snapshot itself would translate
    tf_run own;
    tf_err e2;
    if (!tf_run_sentence(&own, m, src, NULL, &e2)) {
        *says = tf_join_tokens(own.tgt_words + 1, own.T - 1);
        tf_run_free(&own);
    }
    return 0;
}
