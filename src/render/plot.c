// plot.c — the training loss curve (tviz train writes it as PNG).
#include "render.h"

#include <math.h>
#include <stdio.h>

// A "nice" step for about n ticks over span: 1, 2 or 5 times a power of ten.
static double nice_step(double span, int n) {
    double raw = span / n, p = pow(10.0, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

void render_loss_curve(cairo_t *cr, const float *loss, int n, const float *acc, const int *acc_step, int n_acc,
                       const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    double ts = o->text_scale > 0 ? o->text_scale : 1.0, fs = 13 * ts;
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    render_text_style title = render_style(16 * ts, th.fg), label = render_style(fs, th.muted);
    title.bold = 1;
    render_text(cr, render_tr(o, "Training loss: label-smoothed cross-entropy per target token"), 16, 10, &title);
    double x0 = 70 * ts, y0 = 44 * ts, x1 = w - 24 * ts - (n_acc ? 40 * ts : 0), y1 = h - 46 * ts;
    if (n < 1 || x1 <= x0 || y1 <= y0) return;
    double top = 0;
    for (int i = 0; i < n; i++) if (isfinite(loss[i]) && loss[i] > top) top = loss[i];
    if (top <= 0) top = 1;
    double ys = nice_step(top, 5), xs = nice_step(n, 6);
    top = ceil(top / ys) * ys;
    cairo_set_line_width(cr, o->high_contrast ? 2 : 1);
    char buf[32];
    for (double v = 0; v <= top + ys / 2; v += ys) { // horizontal grid and loss ticks
        double y = y1 - v / top * (y1 - y0);
        render_set_rgb(cr, th.grid);
        cairo_move_to(cr, x0, y); cairo_line_to(cr, x1, y); cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%g", v);
        label.align = RENDER_ALIGN_RIGHT;
        render_text(cr, buf, x0 - 6, y - fs * 0.7, &label);
    }
    label.align = RENDER_ALIGN_CENTER;
    for (double s = 0; s <= n; s += xs) { // step ticks
        double x = x0 + s / n * (x1 - x0);
        snprintf(buf, sizeof buf, "%g", s);
        render_text(cr, buf, x, y1 + 4, &label);
    }
    render_text(cr, render_tr(o, "step"), (x0 + x1) / 2, y1 + 6 + fs * 1.3, &label);
    // each step's loss, faint; then a moving average over about 1% of the run
    render_rgb faint = th.accent;
    cairo_set_source_rgba(cr, faint.r, faint.g, faint.b, 0.25);
    for (int i = 0; i < n; i++) {
        double x = x0 + (i + 1.0) / n * (x1 - x0), y = y1 - fmin(loss[i], top) / top * (y1 - y0);
        if (i == 0) cairo_move_to(cr, x, y); else cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
    int win = n / 100 > 1 ? n / 100 : 1;
    double sum = 0;
    render_set_rgb(cr, th.accent);
    cairo_set_line_width(cr, o->high_contrast ? 3 : 2);
    for (int i = 0; i < n; i++) {
        sum += loss[i] - (i >= win ? loss[i - win] : 0);
        double avg = sum / (i + 1 < win ? i + 1 : win);
        double x = x0 + (i + 1.0) / n * (x1 - x0), y = y1 - fmin(avg, top) / top * (y1 - y0);
        if (i == 0) cairo_move_to(cr, x, y); else cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
    if (!n_acc) return;
    // held-out exact match (0–100%) on the right axis, as dots
    render_rgb good = {0.12, 0.47, 0.71};
    label.align = RENDER_ALIGN_LEFT;
    for (int p = 0; p <= 100; p += 25) {
        snprintf(buf, sizeof buf, "%d%%", p);
        render_text(cr, buf, x1 + 6, y1 - p / 100.0 * (y1 - y0) - fs * 0.7, &label);
    }
    render_set_rgb(cr, good);
    for (int i = 0; i < n_acc; i++) {
        double x = x0 + (double)acc_step[i] / n * (x1 - x0), y = y1 - acc[i] * (y1 - y0);
        cairo_arc(cr, x, y, 3.5 * ts, 0, 2 * M_PI);
        cairo_fill(cr);
    }
    render_text_style key = render_style(fs, good);
    key.align = RENDER_ALIGN_RIGHT;
    render_text(cr, render_tr(o, "● held-out exact match (right axis)"), x1, y0 - fs * 1.6, &key);
}
