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

// ---------------------------------------------------------------- several models (the loss view)
void render_loss_compare(cairo_t *cr, const tf_model *const *models, const char *const *names, int n, const render_opts *o,
                         double w, double h) {
    static const render_rgb hue[] = {{0.0, 0.447, 0.698}, {0.835, 0.369, 0.0}, {0.0, 0.62, 0.451}, {0.8, 0.475, 0.655},
                                     {0.337, 0.706, 0.914}, {0.902, 0.624, 0.0}}; // Okabe & Ito
    render_theme th = render_theme_get(o);
    double ts = o->text_scale > 0 ? o->text_scale : 1.0, fs = 14 * ts;
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    render_text_style title = render_style(18 * ts, th.fg), label = render_style(fs, th.muted);
    title.bold = 1;
    title.dir = o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    title.align = o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    title.max_width = w - 32;
    render_text(cr, render_tr(o, "Training loss per target token (label-smoothed cross-entropy), and held-out exact match"),
                o->rtl ? w - 16 : 16, 12, &title);
    int any_acc = 0;
    double steps = 0, top = 0;
    for (int k = 0; k < n; k++) {
        const tf_model *m = models[k];
        steps = fmax(steps, (double)m->n_loss_curve * m->loss_every);
        for (int i = 0; i < m->n_loss_curve; i++) if (isfinite(m->loss_curve[i]) && m->loss_curve[i] > top) top = m->loss_curve[i];
        for (int i = 0; i < m->n_heldout_curve; i++) steps = fmax(steps, m->heldout_steps[i]);
        any_acc |= m->n_heldout_curve > 0;
    }
    double legend_h = fs * 1.6 * n + fs;
    double x0 = 70 * ts, y0 = 54 * ts + legend_h, x1 = w - 30 * ts - (any_acc ? 44 * ts : 0), y1 = h - 50 * ts;
    char buf[300];
    if (steps <= 0 || top <= 0 || x1 <= x0 || y1 <= y0) {
        render_text(cr, render_tr(o, "These model files keep no training curves (tviz train writes them)."), 16, 60, &label);
        return;
    }
    double ys = nice_step(top, 5), xs = nice_step(steps, 6);
    top = ceil(top / ys) * ys;
    cairo_set_line_width(cr, o->high_contrast ? 2 : 1);
    label.align = RENDER_ALIGN_RIGHT;
    for (double v = 0; v <= top + ys / 2; v += ys) {
        double y = y1 - v / top * (y1 - y0);
        render_set_rgb(cr, th.grid);
        cairo_move_to(cr, x0, y); cairo_line_to(cr, x1, y); cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%g", v);
        render_text(cr, buf, x0 - 6, y - fs * 0.7, &label);
    }
    label.align = RENDER_ALIGN_CENTER;
    for (double s = 0; s <= steps + xs / 2; s += xs) {
        snprintf(buf, sizeof buf, "%g", s);
        render_text(cr, buf, x0 + s / steps * (x1 - x0), y1 + 4, &label);
    }
    render_text(cr, render_tr(o, "step"), (x0 + x1) / 2, y1 + 6 + fs * 1.3, &label);
    if (any_acc) {
        label.align = RENDER_ALIGN_LEFT;
        for (int p = 0; p <= 100; p += 25) {
            snprintf(buf, sizeof buf, "%d%%", p);
            render_text(cr, buf, x1 + 6, y1 - p / 100.0 * (y1 - y0) - fs * 0.7, &label);
        }
    }
    for (int k = 0; k < n; k++) {
        const tf_model *m = models[k];
        render_rgb c = hue[k % 6];
        render_set_rgb(cr, c);
        cairo_set_line_width(cr, (o->high_contrast ? 3 : 2) * ts);
        for (int i = 0; i < m->n_loss_curve; i++) { // each value the mean of loss_every steps, drawn at their middle
            double x = x0 + ((i + 0.5) * m->loss_every) / steps * (x1 - x0), y = y1 - fmin(m->loss_curve[i], top) / top * (y1 - y0);
            if (i == 0) cairo_move_to(cr, x, y); else cairo_line_to(cr, x, y);
        }
        cairo_stroke(cr);
        double dash[] = {4 * ts, 4 * ts};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_line_width(cr, 1.2 * ts);
        for (int i = 0; i < m->n_heldout_curve; i++) {
            double x = x0 + m->heldout_steps[i] / steps * (x1 - x0), y = y1 - m->heldout_curve[i] * (y1 - y0);
            if (i == 0) cairo_move_to(cr, x, y); else cairo_line_to(cr, x, y);
        }
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        for (int i = 0; i < m->n_heldout_curve; i++) {
            double x = x0 + m->heldout_steps[i] / steps * (x1 - x0), y = y1 - m->heldout_curve[i] * (y1 - y0);
            cairo_arc(cr, x, y, 4 * ts, 0, 2 * M_PI);
            cairo_fill(cr);
        }
        // the legend: the name, its last loss and held-out score
        double ly = 48 * ts + k * fs * 1.6;
        cairo_set_line_width(cr, 3 * ts);
        cairo_move_to(cr, x0, ly + fs * 0.7);
        cairo_line_to(cr, x0 + 28 * ts, ly + fs * 0.7);
        cairo_stroke(cr);
        render_text_style ks = render_style(fs, th.fg);
        int len = snprintf(buf, sizeof buf, "%s", names && names[k] ? names[k] : "");
        if (m->n_loss_curve && len >= 0 && (size_t)len < sizeof buf)
            len += snprintf(buf + len, sizeof buf - (size_t)len, render_tr(o, "  loss %.3f at step %d"), (double)m->loss_curve[m->n_loss_curve - 1],
                            m->n_loss_curve * m->loss_every);
        if (m->n_heldout_curve && len >= 0 && (size_t)len < sizeof buf)
            snprintf(buf + len, sizeof buf - (size_t)len, render_tr(o, ",  held-out exact match %.1f%% (● dashed, right axis)"),
                     100.0 * m->heldout_curve[m->n_heldout_curve - 1]);
        render_text(cr, buf, x0 + 36 * ts, ly, &ks);
    }
}
