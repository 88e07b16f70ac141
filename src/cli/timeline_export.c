// timeline_export.c — `tviz export --timeline`: one stage at every training
// snapshot of the model, side by side (a strip), on the same sentence at
// every step: watching attention sharpen as the model learns.
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_timeline_open(const io_run *c, io_timeline *tl) {
    if (io_timeline_open(tl, c->path, &c->m)) return 1;
    if (!tl->n) return io_error(c->model, "has no training snapshots beside it (%s); tviz train writes them (--save-every, --snapshots)", tl->dir);
    return 0;
}

int cli_timeline_runs(const io_run *c, const io_timeline *tl, tf_run *runs) {
    for (int k = 0; k < tl->n; k++) {
        tf_err e;
        if (io_timeline_run(&runs[k], tl, k, c->src, c->tgt, 0, NULL, &e)) {
            for (int j = 0; j < k; j++) tf_run_free(&runs[j]);
            return io_error("--timeline", "step %d: %s", tl->step[k], e.msg);
        }
    }
    return 0;
}

void cli_timeline_caption(const io_timeline *tl, int k, const render_opts *o, char *buf, size_t n) {
    int len = snprintf(buf, n, render_tr(o, "step %d"), tl->step[k]);
    char num[32];
    if (tl->loss[k] == tl->loss[k] && len > 0 && (size_t)len < n) {
        render_format_value(tl->loss[k], num, sizeof num, 2);
        len += snprintf(buf + len, n - (size_t)len, render_tr(o, " · loss %s"), num);
    }
    if (tl->exact[k] == tl->exact[k] && len > 0 && (size_t)len < n) snprintf(buf + len, n - (size_t)len, " · %.0f%%", 100.0 * tl->exact[k]);
}

typedef struct {
    const tf_trace **traces;
    int *stage_of;
    const char **captions;
    int n;
    render_view view;
    const render_opts *o;
} strip;

static void draw_strip(cairo_t *cr, void *ctx, double w, double h) {
    const strip *s = ctx;
    render_strip(cr, s->traces, s->stage_of, s->n, s->captions, s->view, s->o, w, h);
}

int cli_export_timeline(const io_run *c, const io_picture *proto, const char *stage, const char *out) {
    static const render_view fit[] = {RENDER_VIEW_AUTO, RENDER_VIEW_MATRIX, RENDER_VIEW_HEATMAP, RENDER_VIEW_LINES, RENDER_VIEW_LINES_HEADS,
                                      RENDER_VIEW_TOPK, RENDER_VIEW_HEADS, RENDER_VIEW_GRID};
    int ok_view = 0;
    for (size_t k = 0; k < sizeof fit / sizeof *fit; k++) ok_view |= proto->view == fit[k];
    if (!ok_view)
        return io_error("--view", "a timeline shows a stage (heatmap, matrix, lines, lines-heads, top-k, heads or grid), not the %s view",
                        render_view_name(proto->view));
    if (!stage) return io_error("--timeline", "needs --stage ID, the stage to follow through training (e.g. dec.1.cross_attn.head.3.weights)");
    int st = tf_trace_find(&c->r.trace, stage);
    if (st < 0) return io_error(stage, "is not a stage of this model; ids look like src.pe or enc.0.self_attn.head.0.weights (tviz walk lists them)");
    char why[300];
    if (render_view_check(&c->r.trace, st, proto->view, &proto->opts, why, sizeof why)) return io_error("--view", "%s", why);
    io_timeline tl;
    if (cli_timeline_open(c, &tl)) return 1;
    int n = tl.n, rc = 1;
    tf_run *runs = calloc((size_t)n, sizeof *runs);
    const tf_trace **traces = calloc((size_t)n, sizeof *traces);
    int *stage_of = calloc((size_t)n, sizeof *stage_of);
    char (*cap)[160] = calloc((size_t)n, sizeof *cap);
    const char **captions = calloc((size_t)n, sizeof *captions);
    if (!runs || !traces || !stage_of || !cap || !captions) { io_error(NULL, "out of memory"); goto done; }
    if (cli_timeline_runs(c, &tl, runs)) { free(runs); runs = NULL; goto done; }
    for (int k = 0; k < n; k++) {
        traces[k] = &runs[k].trace;
        stage_of[k] = tf_trace_find(traces[k], stage);
        cli_timeline_caption(&tl, k, &proto->opts, cap[k], sizeof cap[k]);
        captions[k] = cap[k];
    }
    // a panel per step: as wide as the stage's columns make it, in one row
    const tf_stage *s = &c->r.trace.stages[st];
    double w = proto->w, h;
    double panel = s->cols > 64 ? 420 : fmin(fmax(120 + s->cols * 26, 240), 520);
    double dh = fmin(fmax(200 + s->rows * (s->cols > 64 ? 18 : 26), 420), 1400);
    if (proto->view != RENDER_VIEW_AUTO && proto->view != RENDER_VIEW_MATRIX && proto->view != RENDER_VIEW_HEATMAP) { panel = 700; dh = 700; }
    double dw = fmin(panel * n + 160, 12000);
    if (w > 0) h = w * dh / dw;
    else { w = dw; h = dh; }
    if (proto->fmt == IO_PNG && (w * proto->scale > 16384 || h * proto->scale > 16384)) {
        io_error("--scale", "the strip would be %.0f × %.0f pixels, more than 16384 a side; lower --width or --scale", w * proto->scale, h * proto->scale);
        goto done;
    }
    strip sp = {traces, stage_of, captions, n, proto->view, &proto->opts};
    unsigned char *bytes;
    size_t len;
    if (io_draw_with(proto->fmt, w, h, proto->scale, draw_strip, &sp, &bytes, &len)) { io_error(out, "could not draw the timeline (out of memory?); nothing was written"); goto done; }
    rc = io_write_file(out, (const char *)bytes, len);
    free(bytes);
    if (!rc) fprintf(stderr, "tviz: wrote %s: %s at %d points of training, steps %d to %d\n", out, stage, n, tl.step[0], tl.step[n - 1]);
done:
    if (runs) for (int k = 0; k < n; k++) tf_run_free(&runs[k]);
    free(runs);
    free(traces);
    free(stage_of);
    free(cap);
    free(captions);
    io_timeline_free(&tl);
    return rc;
}
