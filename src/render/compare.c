// compare.c — models side by side: held-out exact match against source
// length (tviz eval with several --model, tviz export --view compare-length),
// and what kind of model each is.
#include "render.h"

#include <math.h>
#include <stdio.h>

void render_model_kind(const tf_model *m, const render_opts *o, char *buf, size_t n) {
    const tf_config *c = &m->cfg;
    if (c->arch == TF_ARCH_LSTM) {
        const char *fmt = c->attention == TF_RNN_ATTN_DOT
                              ? (c->reverse_source ? N_("RNN with attention (LSTM), source reversed: hidden %d, %d+%d layers")
                                                   : N_("RNN with attention (LSTM): hidden %d, %d+%d layers"))
                              : (c->reverse_source ? N_("seq2seq LSTM, no attention, source reversed: hidden %d, %d+%d layers")
                                                   : N_("seq2seq LSTM, no attention: hidden %d, %d+%d layers"));
        snprintf(buf, n, render_tr(o, fmt), c->C, c->L_enc, c->L_dec);
    } else
        snprintf(buf, n, render_tr(o, "Transformer: d_model %d, %d heads, %d+%d layers"), c->C, c->H, c->L_enc, c->L_dec);
}

// Colour-blind safe line colours (Okabe and Ito), and dashes, so lines differ in print too.
static const render_rgb line_rgb[RENDER_COMPARE_MAX] = {
    {0.00, 0.45, 0.70}, {0.84, 0.37, 0.00}, {0.00, 0.62, 0.45}, {0.80, 0.47, 0.65},
    {0.90, 0.62, 0.00}, {0.34, 0.71, 0.91}, {0.35, 0.35, 0.35}, {0.94, 0.89, 0.26}};
static const double dashes[RENDER_COMPARE_MAX][2] = {{0, 0}, {10, 5}, {3, 4}, {12, 4}, {6, 3}, {2, 2}, {14, 6}, {4, 8}};

void render_compare_length(cairo_t *cr, const render_compare *c, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    double ts = o->text_scale > 0 ? o->text_scale : 1.0, fs = 13 * ts;
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    render_text_style title = render_style(18 * ts, th.fg), label = render_style(fs, th.muted), sub = render_style(fs, th.muted);
    title.bold = 1;
    title.width = sub.width = w - 40;
    title.align = sub.align = o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    double y = 14;
    y += render_text(cr, render_tr(o, "Held-out exact match by source length"), 20, y, &title) + 4;
    char buf[256];
    snprintf(buf, sizeof buf, render_tr(o, "%s: %d sentence pairs, each model decoding greedily; a sentence counts when every word is right"),
             c->file, c->total);
    y += render_text(cr, buf, 20, y, &sub) + 10 * ts;
    int nb = c->n_buckets, nm = c->n_models;
    if (nb < 1 || nm < 1) return;
    // the legend: one line per model, under the title
    double lx = 20 + (o->rtl ? 0 : 0), lh = fs * 1.6;
    for (int k = 0; k < nm; k++) {
        double ly = y + k * lh + lh / 2, x0 = o->rtl ? w - 20 - 44 * ts : lx;
        render_set_rgb(cr, line_rgb[k]);
        cairo_set_line_width(cr, (o->high_contrast ? 4 : 3) * ts);
        cairo_set_dash(cr, dashes[k], dashes[k][0] > 0 ? 2 : 0, 0);
        cairo_move_to(cr, x0, ly);
        cairo_line_to(cr, x0 + 40 * ts, ly);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        render_text_style ks = render_style(fs, th.fg);
        ks.max_width = w - 100 * ts;
        char line[300];
        snprintf(line, sizeof line, render_tr(o, "%s (%s): %.1f%% overall"), c->name[k], c->kind[k], 100 * c->exact_all[k]);
        ks.align = o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
        render_text(cr, line, o->rtl ? x0 - 8 * ts : x0 + 48 * ts, ly - fs * 0.7, &ks);
    }
    y += nm * lh + 8 * ts;
    // the plot: buckets along x (in order, left to right in every language: a number line), 0-100% up
    double x0 = 70 * ts, x1 = w - 30 * ts, y0 = y + 8, y1 = h - 64 * ts;
    if (x1 <= x0 || y1 <= y0) return;
    cairo_set_line_width(cr, o->high_contrast ? 2 : 1);
    for (int p = 0; p <= 100; p += 20) {
        double yy = y1 - p / 100.0 * (y1 - y0);
        render_set_rgb(cr, th.grid);
        cairo_move_to(cr, x0, yy);
        cairo_line_to(cr, x1, yy);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d%%", p);
        label.align = RENDER_ALIGN_RIGHT;
        render_text(cr, buf, x0 - 6, yy - fs * 0.7, &label);
    }
    double step = (x1 - x0) / nb;
    label.align = RENDER_ALIGN_CENTER;
    for (int b = 0; b < nb; b++) {
        double xx = x0 + (b + 0.5) * step;
        render_text(cr, c->bucket[b], xx, y1 + 6, &label);
        snprintf(buf, sizeof buf, render_tr(o, "%d pairs"), c->pairs[b]);
        render_text_style small = label;
        small.size = fs * 0.85;
        render_text(cr, buf, xx, y1 + 6 + fs * 1.3, &small);
    }
    render_text(cr, render_tr(o, "words in the source sentence"), (x0 + x1) / 2, y1 + 8 + fs * 2.6, &label);
    for (int k = 0; k < nm; k++) {
        render_set_rgb(cr, line_rgb[k]);
        cairo_set_line_width(cr, (o->high_contrast ? 4 : 3) * ts);
        cairo_set_dash(cr, dashes[k], dashes[k][0] > 0 ? 2 : 0, 0);
        int started = 0;
        for (int b = 0; b < nb; b++) {
            if (c->exact[k][b] < 0) { started = 0; continue; }
            double xx = x0 + (b + 0.5) * step, yy = y1 - c->exact[k][b] * (y1 - y0);
            if (started) cairo_line_to(cr, xx, yy); else cairo_move_to(cr, xx, yy);
            started = 1;
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        for (int b = 0; b < nb; b++) {
            if (c->exact[k][b] < 0) continue;
            double xx = x0 + (b + 0.5) * step, yy = y1 - c->exact[k][b] * (y1 - y0);
            cairo_arc(cr, xx, yy, 4.5 * ts, 0, 2 * M_PI);
            cairo_fill(cr);
        }
    }
}
