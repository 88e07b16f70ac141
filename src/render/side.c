// side.c — the same sentence through two models, side by side, for a
// teacher's slide: where each decoder step looks in the source. For the
// Transformer, its aligning (else its sharpest) cross-attention head; for an RNN with attention,
// Luong's weights; for the seq2seq LSTM without attention, v, all its decoder
// ever sees of the source. The Transformer stands on the left.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The stage to show of a model's trace: see above. A Transformer whose file
// names its aligning head (tviz train keeps it) shows that head.
static int pick_stage(const tf_trace *t, const tf_model *m) {
    if (!t || t->n < 1) return -1;
    int aligning = tf_trace_aligning_stage(t, m);
    if (aligning >= 0) return aligning;
    if (tf_stage_is_lstm(&t->stages[0])) {
        int w = tf_stage_lstm(t, TF_SIDE_DEC, -1, TF_OP_WEIGHTS);
        return w >= 0 ? w : tf_stage_lstm(t, TF_SIDE_ENC, -1, TF_OP_FINAL_H);
    }
    // the cross-attention head whose rows lean most on one key each (mean of the row maxima)
    int best = -1;
    double best_v = -1;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        if (s->sublayer != TF_SUB_CROSS_ATTN || s->op != TF_OP_WEIGHTS || s->rows < 1) continue;
        double sum = 0;
        for (int r = 0; r < s->rows; r++) {
            float mx = 0;
            for (int c = 0; c < s->cols; c++) mx = fmaxf(mx, s->data[(size_t)r * s->cols + c]);
            sum += mx;
        }
        if (sum / s->rows > best_v) { best_v = sum / s->rows; best = i; }
    }
    return best;
}

// The model's output after <bos>, pieces joined into words.
static void translation(const tf_trace *t, char *buf, size_t n) {
    buf[0] = 0;
    if (t->T < 2) return;
    char *s = tf_join_tokens((char *const *)t->tgt_labels + 1, t->T - 1);
    if (s) snprintf(buf, n, "%s", s);
    free(s);
}

static void panel(cairo_t *cr, const tf_trace *t, const tf_model *m, const render_opts *o, double x, double w, double h, double fs) {
    render_theme th = render_theme_get(o);
    char kind[200], text[600], out[400];
    if (m) render_model_kind(m, o, kind, sizeof kind);
    else snprintf(kind, sizeof kind, "?");
    translation(t, out, sizeof out);
    render_text_style ks = render_style(fs * 1.05, th.fg), os = render_style(fs, th.muted);
    ks.bold = 1;
    ks.width = os.width = w - 2 * fs;
    ks.dir = os.dir = o && o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    ks.align = os.align = o && o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    double y = fs * 0.6;
    y += render_text(cr, kind, x + fs, y, &ks);
    snprintf(text, sizeof text, render_tr(o, "output: %s"), out);
    y += render_text(cr, text, x + fs, y, &os) + fs * 0.4;
    int st = pick_stage(t, m);
    if (st < 0) return;
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h - y);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    render_opts q = *o;
    q.cell_row = q.cell_col = -1;
    render_matrix(cr, t, st, &q, w, h - y);
    cairo_restore(cr);
}

void render_side_by_side(cairo_t *cr, const tf_trace *t, const tf_model *m, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    double fs = fmin(15, w / 70) * (o && o->text_scale > 0 ? o->text_scale : 1);
    const tf_trace *b = o ? o->beside : NULL;
    const tf_model *bm = o ? o->beside_model : NULL;
    render_text_style ts = render_style(fs * 1.4, th.fg);
    ts.bold = 1;
    ts.width = w - 2 * fs;
    ts.align = o && o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    double top = fs * 0.8 + render_text(cr, render_tr(o, "The same sentence through two models: where each decoder step looks in the source"), fs, fs * 0.6, &ts);
    if (!b) {
        render_text_style es = render_style(fs, th.muted);
        es.width = w - 2 * fs;
        render_text(cr, render_tr(o, "No second model to compare with: press R in a window that has one (en-fa, rnn-attn-en-fa), or give two --model to tviz export."),
                    fs, top + fs, &es);
        return;
    }
    // the Transformer on the left
    int a_lstm = t && t->n && tf_stage_is_lstm(&t->stages[0]), b_lstm = b->n && tf_stage_is_lstm(&b->stages[0]);
    const tf_trace *left = a_lstm && !b_lstm ? b : t, *right = left == t ? b : t;
    const tf_model *lm = left == t ? m : bm, *rm = left == t ? bm : m;
    cairo_save(cr);
    cairo_translate(cr, 0, top);
    panel(cr, left, lm, o, 0, w / 2, h - top, fs);
    panel(cr, right, rm, o, w / 2, w / 2, h - top, fs);
    render_set_rgb(cr, th.grid);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, w / 2, 0);
    cairo_line_to(cr, w / 2, h - top);
    cairo_stroke(cr);
    cairo_restore(cr);
}
