// animate.c — `tviz export --animate decoding|timeline|stages|beam`: an
// animated GIF (giflib, src/io/gif.c) for slides: greedy decoding growing token
// by token, one stage sharpening over training, a walk through a range of
// stages, or the tree of a beam search growing step by step. One frame a step, each with a caption line under the picture.
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const tf_trace *t;
    const tf_model *m;
    int stage;
    render_view view;
    const render_opts *o;
    const char *caption;
} frame;

// The view above, the caption in a band below it.
static void draw_frame(cairo_t *cr, const frame *f, double w, double h) {
    render_theme th = render_theme_get(f->o);
    double fs = fmax(12, fmin(24, h / 32)) * f->o->text_scale, band = fs * 2.4;
    render_view v = f->view;
    if (f->stage >= 0 && render_view_check(f->t, f->stage, v, f->o, (char[8]){0}, 8)) v = RENDER_VIEW_AUTO; // (a stage the view does not fit)
    render_draw(cr, f->t, f->m, f->stage, v, f->o, w, h - band);
    render_set_rgb(cr, th.panel);
    cairo_rectangle(cr, 0, h - band, w, band);
    cairo_fill(cr);
    render_text_style st = render_style(fs, th.fg);
    st.bold = 1;
    st.max_width = w - fs * 2;
    st.dir = f->o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    st.align = f->o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    double tw, tht;
    render_text_size(cr, f->caption, &st, &tw, &tht);
    render_text(cr, f->caption, f->o->rtl ? w - fs : fs, h - band + (band - tht) / 2, &st);
}

typedef struct {
    io_gif *gif;
    cairo_surface_t *sf;
    cairo_t *cr;
    double w, h, scale;
} animation;

static int add_frame(animation *a, const frame *f) {
    cairo_save(a->cr);
    cairo_scale(a->cr, a->scale, a->scale);
    draw_frame(a->cr, f, a->w, a->h);
    cairo_restore(a->cr);
    return io_gif_frame(a->gif, a->sf);
}

// The decoder input after <bos> as text (pieces joined), isolated (FSI … PDI)
// so that a Persian sentence keeps its order in any caption.
static void sentence_of(const tf_trace *t, char *buf, size_t n) {
    char *s = t->T > 1 ? tf_join_tokens((char *const *)t->tgt_labels + 1, t->T - 1) : NULL;
    snprintf(buf, n, "\u2068%s\u2069", s ? s : "<bos>");
    free(s);
}

int cli_export_animation(const io_run *c, const io_picture *proto, const char *mode, const char *stage, const char *to, const char *delay,
                         const char *size, const char *out) {
    const char *dot = strrchr(out, '.');
    if (!dot || strcmp(dot, ".gif")) return io_error(out, "an animation is a GIF; give -o FILE.gif");
    int kind = !strcmp(mode, "decoding") ? 0 : !strcmp(mode, "timeline") ? 1 : !strcmp(mode, "stages") ? 2 : !strcmp(mode, "beam") ? 3 : -1;
    if (kind < 0) return io_error("--animate", "\"%s\" is not an animation; use decoding, timeline, stages or beam", mode);
    const tf_trace *t = &c->r.trace;
    if (kind == 3 && !t->beam) return io_error("--animate", "beam draws beam search growing; give --beam K too (the paper: --beam 4)");
    if (kind == 3 && !stage) stage = "out.probs";
    if (!stage) return io_error("--animate", "needs --stage ID, the stage to animate (for stages: the first of the walk)");
    int st = tf_trace_find(t, stage);
    if (st < 0) return io_error(stage, "is not a stage of this model; ids look like src.pe or enc.0.self_attn.head.0.weights (tviz walk lists them)");
    long delay_ms = 800;
    if (delay && cli_whole("--delay", delay, 20, 60000, &delay_ms)) return 1;
    double w = 800, h = 600;
    if (size) {
        int sw, sh;
        char extra;
        if (sscanf(size, "%dx%d%c", &sw, &sh, &extra) != 2 || sw < 100 || sh < 100 || sw > 4096 || sh > 4096)
            return io_error("--size", "\"%s\" is not WIDTHxHEIGHT from 100x100 to 4096x4096, e.g. 800x600", size);
        w = sw;
        h = sh;
    } else if (proto->w > 0) { w = proto->w; h = w * 0.75; }
    char why[300];
    if (kind == 3 && render_view_check(t, st, RENDER_VIEW_BEAM, &proto->opts, why, sizeof why)) return io_error(stage, "%s", why);
    if (proto->view != RENDER_VIEW_AUTO && render_view_check(t, st, proto->view, &proto->opts, why, sizeof why)) return io_error("--view", "%s", why);
    int last = st;
    if (kind == 2) {
        if (to) {
            last = tf_trace_find(t, to);
            if (last < 0) return io_error(to, "is not a stage of this model; give the last stage of the walk with --to ID");
            if (last < st) return io_error(to, "comes before %s; --to names the last stage of the walk, after --stage", stage);
        } else last = st + 7 < t->n ? st + 7 : t->n - 1;
        if (last - st + 1 > 400) return io_error("--to", "the walk would have %d frames; at most 400", last - st + 1);
    } else if (to) return io_error("--to", "only a walk through stages (--animate stages) has a last stage");
    int pw = (int)ceil(w * proto->scale), ph = (int)ceil(h * proto->scale);
    animation a = {io_gif_begin(pw, ph, (int)delay_ms), cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph), NULL, w, h, proto->scale};
    if (!a.gif || cairo_surface_status(a.sf) != CAIRO_STATUS_SUCCESS) { io_gif_free(a.gif); cairo_surface_destroy(a.sf); return io_error(NULL, "out of memory"); }
    a.cr = cairo_create(a.sf);
    int rc = 0, frames = 0;
    char cap[700], words[500];
    const render_opts *o = &proto->opts;
    if (kind == 0) { // greedy decoding, one more token a frame, to the end of the sentence
        tf_run full;
        tf_err e;
        if (tf_run_sentence(&full, &c->m, c->src, NULL, &e)) { rc = io_error("--src", "%s", e.msg); goto done; }
        int T = full.T;
        tf_run_free(&full);
        for (int k = 1; k <= T && !rc; k++) {
            tf_run r;
            if (tf_run_greedy(&r, &c->m, c->src, k, &e)) { rc = io_error("--src", "%s", e.msg); break; }
            int sk = tf_trace_find(&r.trace, stage);
            sentence_of(&r.trace, words, sizeof words);
            snprintf(cap, sizeof cap, render_tr(o, "decoding step %d of %d: %s"), k, T, words);
            frame f = {&r.trace, &c->m, sk, proto->view, o, cap};
            if (add_frame(&a, &f)) rc = io_error(out, "could not draw frame %d (out of memory?); nothing was written", k);
            frames++;
            tf_run_free(&r);
        }
    } else if (kind == 1) { // the same stage at every snapshot of training
        io_timeline tl;
        if (cli_timeline_open(c, &tl)) { rc = 1; goto done; }
        for (int k = 0; k < tl.n && !rc; k++) {
            tf_run r;
            tf_err e;
            if (io_timeline_run(&r, &tl, k, c->src, c->tgt, 0, NULL, &e)) { rc = io_error("--animate", "step %d: %s", tl.step[k], e.msg); break; }
            cli_timeline_caption(&tl, k, o, cap, sizeof cap);
            frame f = {&r.trace, io_timeline_model(&tl, k), tf_trace_find(&r.trace, stage), proto->view, o, cap};
            if (add_frame(&a, &f)) rc = io_error(out, "could not draw frame %d (out of memory?); nothing was written", k + 1);
            frames++;
            tf_run_free(&r);
        }
        io_timeline_free(&tl);
    } else if (kind == 3) { // the beam's tree, one more decoding step a frame
        render_opts bo = *o;
        int n = t->beam->n_steps;
        for (int k = 1; k <= n && !rc; k++) {
            bo.beam_steps = k;
            snprintf(cap, sizeof cap, render_tr(o, "beam search step %d of %d"), k, n);
            frame f = {t, &c->m, st, RENDER_VIEW_BEAM, &bo, cap};
            if (add_frame(&a, &f)) rc = io_error(out, "could not draw frame %d (out of memory?); nothing was written", k);
            frames++;
        }
    } else { // a walk through the stages, in the paper's order
        for (int i = st; i <= last && !rc; i++) {
            char title[300];
            render_stage_title(t, i, o, title, sizeof title);
            snprintf(cap, sizeof cap, "%d/%d  ·  %s", i + 1, t->n, title);
            frame f = {t, &c->m, i, proto->view, o, cap};
            if (add_frame(&a, &f)) rc = io_error(out, "could not draw frame %d (out of memory?); nothing was written", i - st + 1);
            frames++;
        }
    }
done:
    cairo_destroy(a.cr);
    cairo_surface_destroy(a.sf);
    if (rc) { io_gif_free(a.gif); return rc; }
    unsigned char *bytes;
    size_t len;
    if (io_gif_end(a.gif, &bytes, &len)) return io_error(out, "could not encode the GIF (out of memory?); nothing was written");
    rc = io_write_file(out, (const char *)bytes, len);
    free(bytes);
    if (!rc) fprintf(stderr, "tviz: wrote %s: %d frames of %d × %d, %ld ms each\n", out, frames, pw, ph, delay_ms);
    return rc;
}
