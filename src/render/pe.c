// pe.c — the sinusoidal positional encoding (§3.5) as the three figures
// teachers know: a positions × dimensions heatmap, a few dimensions as waves
// against position, and the dot product PE(i)·PE(j) between positions.
// Every value comes from tf_positional_encoding, the function the model adds.
//
// Letters: P positions drawn, D dimensions (the d_model of the figure).
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PE_DEFAULT_POSITIONS 50
#define PE_MIN_DIMS 128        // default D = max(d_model, 128): enough columns to see the frequencies fall
#define PE_MAX_POSITIONS 2048  // a P × P similarity image stays a few megabytes

// ---------------------------------------------------------------- figure basics
typedef struct {
    render_theme th;
    int P, D;            // positions, dimensions
    int model_C;         // d_model of the loaded model, 0 without one
    double fs, pad, lw;  // base font size, margin, line width
    const render_opts *o; // its language
} fig;

static void fig_init(fig *f, const tf_model *m, const render_opts *o, double w, double h) {
    f->th = render_theme_get(o);
    f->o = o;
    f->model_C = m ? m->cfg.C : 0;
    f->P = o->pe_positions > 0 ? o->pe_positions : PE_DEFAULT_POSITIONS;
    f->D = o->pe_dims > 0 ? o->pe_dims : f->model_C > PE_MIN_DIMS ? f->model_C : PE_MIN_DIMS;
    if (f->P > PE_MAX_POSITIONS) f->P = PE_MAX_POSITIONS;
    if (f->D > TF_MAX_C) f->D = TF_MAX_C;
    // 16 px at 1200 px wide, smaller for short pictures; text_scale for a projector
    f->fs = fmax(9, fmin(w / 75.0, h / 48.0)) * (o->text_scale > 0 ? o->text_scale : 1);
    f->pad = f->fs;
    f->lw = fmax(1, f->fs / 16) * (o->high_contrast ? 1.6 : 1);
}

// pe (rows, D) for positions 0 … rows-1, straight from the model's function.
static float *pe_table(int rows, int D) {
    float *pe = malloc(sizeof(float) * (size_t)rows * D);
    if (!pe) TF_OOM();
    tf_positional_encoding(pe, rows, D);
    return pe;
}

// "−0.5", "64", "12.3": short, with a real minus sign.
static const char *fmt_num(double v, char *buf, size_t n) {
    char tmp[32];
    if (fabs(v) < 1e-9) v = 0;
    snprintf(tmp, sizeof tmp, fabs(v) >= 100 ? "%.0f" : "%.3g", v);
    snprintf(buf, n, "%s%s", tmp[0] == '-' ? "−" : "", tmp[0] == '-' ? tmp + 1 : tmp);
    return buf;
}

// One line of text centred vertically on ymid.
static void text_mid(cairo_t *cr, const char *s, double x, double ymid, const render_text_style *st) {
    double tw, th;
    render_text_size(cr, s, st, &tw, &th);
    render_text(cr, s, x, ymid - th / 2, st);
}

static double text_width(cairo_t *cr, const char *s, const render_text_style *st) {
    double tw, th;
    render_text_size(cr, s, st, &tw, &th);
    return tw;
}

// Title (bold) and subtitle (pango markup, muted), both wrapped to the
// width; returns the y below them.
static double draw_header(cairo_t *cr, const fig *f, const char *title, const char *sub_markup, double w) {
    render_text_style ts = render_style(f->fs * 1.5, f->th.fg);
    ts.bold = 1;
    ts.width = fmax(w - 2 * f->pad, f->fs);
    // Right to left, the title and the subtitle start at the right (a forced
    // right-to-left paragraph's "left" is its start); the formula in the
    // subtitle is an isolate and stays left to right (formula_markup).
    if (f->o->rtl) ts.dir = RENDER_DIR_RTL;
    double y = f->pad * 0.8;
    y += render_text(cr, title, f->pad, y, &ts);
    render_text_style ss = render_style(f->fs * 0.95, f->th.muted);
    ss.width = ts.width;
    ss.dir = ts.dir;
    y += f->fs * 0.2;
    return y + render_markup(cr, sub_markup, f->pad, y, &ss);
}

// The formula of §3.5 with the figure's d_model (and the model's own when
// it differs), then extra; sub- and superscripts a little larger than
// pango's <sub>/<sup>, so they stay readable on a projector.
static void formula_markup(const fig *f, char *buf, size_t n, const char *extra) {
    char sub[64], sup[64];
    int rise = (int)(f->fs * 0.95 * 0.42 * 1024); // pango units: 1024 per user unit
    snprintf(sub, sizeof sub, "<span size=\"78%%\" rise=\"%d\">", -rise / 2);
    snprintf(sup, sizeof sup, "<span size=\"78%%\" rise=\"%d\">", rise);
    int k = snprintf(buf, n,
                     "%sPE%s(pos, 2i)</span> = sin(pos / 10000%s2i/d</span>),   "
                     "PE%s(pos, 2i+1)</span> = cos(pos / 10000%s2i/d</span>),   d = d%smodel</span> = %d%s",
                     f->o->rtl ? "\u2066" : "", sub, sup, sub, sup, sub, f->D, f->o->rtl ? "\u2069" : "");
    if (f->model_C && f->model_C != f->D && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, render_tr(f->o, " (the loaded model: %d)"), f->model_C);
    if (extra && k >= 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, "\n%s", extra);
}

// The first step in steps (ascending) that puts labels at least need apart
// when one index is cell wide.
static int pick_step(const int *steps, int n, double cell, double need) {
    for (int i = 0; i < n; i++) if (steps[i] * cell >= need) return steps[i];
    return (int)ceil(need / fmax(cell, 1e-9));
}

static const int decimal_steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000};
static const int binary_steps[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
#define NSTEPS(a) ((int)(sizeof(a) / sizeof((a)[0])))

// Tick marks and index labels for a grid of cells: rows down the left edge
// at gx, columns under the bottom edge at gy + gh.
static void cell_ticks(cairo_t *cr, const fig *f, double gx, double gy, double gw, double gh, int rows, int cols,
                       const int *rsteps, int nr, const int *csteps, int nc) {
    render_text_style st = render_style(f->fs * 0.85, f->th.fg);
    char buf[16];
    double tick = f->fs * 0.3, ch = gh / rows, cw = gw / cols;
    snprintf(buf, sizeof buf, "%d", cols - 1);
    int cstep = pick_step(csteps, nc, cw, text_width(cr, buf, &st) + f->fs * 1.2);
    int rstep = pick_step(rsteps, nr, ch, f->fs * 2.2);
    render_set_rgb(cr, f->th.fg);
    cairo_set_line_width(cr, f->lw);
    st.align = RENDER_ALIGN_RIGHT;
    for (int i = 0; i < rows; i += rstep) {
        double y = gy + (i + 0.5) * ch;
        cairo_move_to(cr, gx, y);
        cairo_rel_line_to(cr, -tick, 0);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", i);
        text_mid(cr, buf, gx - tick - f->fs * 0.25, y, &st);
    }
    st.align = RENDER_ALIGN_CENTER;
    for (int j = 0; j < cols; j += cstep) {
        double x = gx + (j + 0.5) * cw;
        cairo_move_to(cr, x, gy + gh);
        cairo_rel_line_to(cr, 0, tick);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", j);
        render_text(cr, buf, x, gy + gh + tick + f->fs * 0.1, &st);
    }
}

// Axis captions: one under the plot (centred on cx, top at y), one rotated
// along the left edge (left at x, centred on cy).
static void captions(cairo_t *cr, const fig *f, const char *bottom, double cx, double y, const char *left, double x, double cy) {
    render_text_style cs = render_style(f->fs * 0.95, f->th.muted);
    cs.italic = !f->o->rtl;
    cs.align = RENDER_ALIGN_CENTER;
    render_text(cr, render_tr(f->o, bottom), cx, y, &cs);
    cs.angle = -M_PI / 2;
    render_text(cr, render_tr(f->o, left), x, cy, &cs);
}

// A vertical colour bar (lo at the bottom) with labelled ticks to its right
// and a caption under it.
static void colorbar(cairo_t *cr, const fig *f, render_cmap cmap, double lo, double hi, const double *ticks, int nt,
                     const char *caption, double x, double y, double bh) {
    double bw = f->fs * 1.1;
    cairo_pattern_t *g = cairo_pattern_create_linear(0, y + bh, 0, y);
    for (int k = 0; k <= 32; k++) {
        render_rgb c = render_cmap_at(cmap, k / 32.0);
        cairo_pattern_add_color_stop_rgb(g, k / 32.0, c.r, c.g, c.b);
    }
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    render_set_rgb(cr, f->th.fg);
    cairo_set_line_width(cr, f->lw);
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_stroke(cr);
    render_text_style st = render_style(f->fs * 0.85, f->th.fg);
    char buf[32];
    for (int k = 0; k < nt; k++) {
        double ty = y + bh - bh * (ticks[k] - lo) / (hi - lo);
        cairo_move_to(cr, x + bw, ty);
        cairo_rel_line_to(cr, f->fs * 0.3, 0);
        cairo_stroke(cr);
        text_mid(cr, fmt_num(ticks[k], buf, sizeof buf), x + bw + f->fs * 0.45, ty, &st);
    }
    render_text_style cs = render_style(f->fs * 0.85, f->th.muted);
    render_text(cr, caption, x, y + bh + f->fs * 0.5, &cs);
}

// Room the colour bar and its labels take to the right of a plot.
static double colorbar_room(cairo_t *cr, const fig *f, const char *widest_label, const char *caption) {
    render_text_style st = render_style(f->fs * 0.85, f->th.fg);
    double labels = f->fs * 1.1 + f->fs * 0.45 + text_width(cr, widest_label, &st);
    return f->fs * 1.5 + fmax(labels, text_width(cr, caption, &st)) + f->fs * 0.3;
}

// v (rows, cols) as an image, one pixel a cell, scaled into place: a 50 × 512
// table does not become 25 600 rectangles.
static void draw_cells(cairo_t *cr, const float *v, int rows, int cols, render_cmap cmap, double lo, double hi,
                       double x, double y, double cw, double ch) {
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, cols, rows);
    unsigned char *px = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int i = 0; i < rows; i++) {
        uint32_t *row = (uint32_t *)(px + (size_t)i * stride);
        for (int j = 0; j < cols; j++) {
            render_rgb c = render_cmap_at(cmap, (v[(size_t)i * cols + j] - lo) / (hi - lo));
            row[j] = (uint32_t)(c.r * 255 + 0.5) << 16 | (uint32_t)(c.g * 255 + 0.5) << 8 | (uint32_t)(c.b * 255 + 0.5);
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_rectangle(cr, x, y, cw * cols, ch * rows);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, cw, ch);
    cairo_set_source_surface(cr, img, 0, 0);
    // upscaled cells stay sharp; a downscaled image averages its neighbours
    cairo_pattern_set_filter(cairo_get_source(cr), cw < 1 || ch < 1 ? CAIRO_FILTER_GOOD : CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
}

static void paint_bg(cairo_t *cr, const fig *f, double w, double h) {
    render_set_rgb(cr, f->th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
}

static void frame(cairo_t *cr, const fig *f, double x, double y, double w, double h) {
    render_set_rgb(cr, f->th.fg);
    cairo_set_line_width(cr, f->lw);
    cairo_rectangle(cr, x, y, w, h);
    cairo_stroke(cr);
}

// ---------------------------------------------------------------- heatmap
void render_pe_heatmap(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h) {
    fig f;
    fig_init(&f, m, o, w, h);
    paint_bg(cr, &f, w, h);
    char title[160], sub[900], buf[16];
    snprintf(title, sizeof title, render_tr(o, "Sinusoidal positional encoding — %d positions × %d dimensions"), f.P, f.D);
    formula_markup(&f, sub, sizeof sub, NULL);
    double top = draw_header(cr, &f, title, sub, w) + f.fs * 1.0;
    render_text_style ls = render_style(f.fs * 0.85, f.th.fg);
    snprintf(buf, sizeof buf, "%d", f.P - 1);
    double gx = f.pad + f.fs * 1.6 + text_width(cr, buf, &ls) + f.fs * 0.7;
    double right = w - f.pad - colorbar_room(cr, &f, "−0.5", render_tr(o, "PE value"));
    double bottom = h - f.pad - f.fs * 1.5 - f.fs * 1.5;
    double gw = right - gx, gh = bottom - top;
    if (gw < 8 || gh < 8) return;
    // (P, D): row pos, column dimension; −1 … 1 mapped onto the colour map
    float *pe = pe_table(f.P, f.D);
    render_cmap cmap = o->cmap_set ? o->cmap : RENDER_CMAP_RDBU;
    draw_cells(cr, pe, f.P, f.D, cmap, -1, 1, gx, top, gw / f.D, gh / f.P);
    free(pe);
    frame(cr, &f, gx, top, gw, gh);
    cell_ticks(cr, &f, gx, top, gw, gh, f.P, f.D, decimal_steps, NSTEPS(decimal_steps), binary_steps, NSTEPS(binary_steps));
    captions(cr, &f, N_("dimension  (even 2i: sin, odd 2i+1: cos)"), gx + gw / 2, bottom + f.fs * 1.5, "position", f.pad,
             top + gh / 2);
    static const double ticks[] = {-1, -0.5, 0, 0.5, 1};
    colorbar(cr, &f, cmap, -1, 1, ticks, 5, render_tr(o, "PE value"), right + f.fs * 1.5, top, fmax(gh - f.fs * 1.8, f.fs * 4));
}

// ---------------------------------------------------------------- curves
// Okabe & Ito's colour-blind safe palette, ordered for a light and a dark background.
static const unsigned light_lines[8] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9, 0x1A1A1F, 0x999933};
static const unsigned dark_lines[8] = {0x56B4E9, 0xE69F00, 0x009E73, 0xCC79A7, 0xF0E442, 0xD55E00, 0xFFFFFF, 0x0072B2};

static render_rgb hex_rgb(unsigned h) { return (render_rgb){((h >> 16) & 255) / 255.0, ((h >> 8) & 255) / 255.0, (h & 255) / 255.0}; }

// The dimensions to plot: the user's, else a sin/cos pair of a fast
// wavelength and two slower ones (8, 9, 20, 40 for D = 128: wavelengths
// 11, 27 and 112 positions, the same for any D). Returns how many.
static int curve_dims(const fig *f, const render_opts *o, int *dims) {
    int n = 0;
    if (o->n_curve_dims > 0) {
        for (int k = 0; k < o->n_curve_dims && k < 8; k++)
            if (o->pe_curve_dims[k] >= 0 && o->pe_curve_dims[k] < f->D) dims[n++] = o->pe_curve_dims[k];
        if (n) return n;
    }
    int want[4] = {(f->D / 16) & ~1, ((f->D / 16) & ~1) + 1, (f->D * 5 / 32) & ~1, (f->D * 5 / 16) & ~1};
    for (int k = 0; k < 4; k++) {
        int d = want[k], dup = 0;
        for (int i = 0; i < n; i++) dup |= dims[i] == d;
        if (d < f->D && !dup) dims[n++] = d;
    }
    return n;
}

static void line_style(cairo_t *cr, const fig *f, int dim, double width) {
    cairo_set_line_width(cr, width);
    double dash[2] = {f->fs * 0.7, f->fs * 0.35};
    cairo_set_dash(cr, dash, dim & 1 ? 2 : 0, 0); // cos dashed, sin solid: tellable apart in grey print too
}

void render_pe_curves(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h) {
    fig f;
    fig_init(&f, m, o, w, h);
    paint_bg(cr, &f, w, h);
    int dims[8], nd = curve_dims(&f, o, dims);
    char title[160], sub[1000], buf[64];
    snprintf(title, sizeof title, "%s", render_tr(o, "Positional encoding as waves of different wavelengths"));
    formula_markup(&f, sub, sizeof sub, render_tr(o, "Lines: the formula between positions; dots: the values the model adds at whole positions."));
    double top = draw_header(cr, &f, title, sub, w) + f.fs * 1.2;
    // (max(P, 2), D): position 1 gives each dimension's angular frequency ω
    float *pe = pe_table(f.P > 1 ? f.P : 2, f.D);
    double omega[8], wave[8];
    char names[8][32], waves[8][48];
    render_text_style ls = render_style(f.fs * 0.9, f.th.fg), ws = render_style(f.fs * 0.78, f.th.muted);
    double legend_w = 0;
    for (int k = 0; k < nd; k++) {
        int d = dims[k], b = d & ~1;
        // sin ω and cos ω of one pair at position 1 (ω ≤ 1, so atan2 recovers it)
        omega[k] = b + 1 < f.D ? atan2(pe[f.D + b], pe[f.D + b + 1]) : asin(pe[f.D + b]);
        wave[k] = 2 * M_PI / omega[k];
        snprintf(names[k], sizeof names[k], d & 1 ? render_tr(o, "dim %d (cos)") : render_tr(o, "dim %d (sin)"), d);
        snprintf(waves[k], sizeof waves[k], render_tr(o, "wavelength %s positions"), fmt_num(wave[k], buf, sizeof buf));
        legend_w = fmax(legend_w, fmax(text_width(cr, names[k], &ls), text_width(cr, waves[k], &ws)));
    }
    double swatch = f.fs * 2.4;
    double right = w - f.pad - (f.fs * 1.5 + swatch + f.fs * 0.6 + legend_w);
    render_text_style ts = render_style(f.fs * 0.85, f.th.fg);
    double gx = f.pad + f.fs * 1.6 + text_width(cr, "−0.5", &ts) + f.fs * 0.7;
    double bottom = h - f.pad - f.fs * 1.5 - f.fs * 1.5;
    double gw = right - gx, gh = bottom - top;
    if (gw < 8 || gh < 8) { free(pe); return; }
    // value v at position p -> (X(p), Y(v)); the value axis spans −1.15 … 1.15
    double span = f.P > 1 ? f.P - 1 : 1, ylim = 1.15;
#define X(p) (gx + gw * (p) / span)
#define Y(v) (top + gh * (ylim - (v)) / (2 * ylim))
    // grid: values every 0.5, positions at a round step
    int step = pick_step(decimal_steps, NSTEPS(decimal_steps), gw / span, f.fs * 3);
    cairo_set_line_width(cr, f.lw * 0.8);
    render_set_rgb(cr, f.th.grid);
    for (int k = -2; k <= 2; k++) { cairo_move_to(cr, gx, Y(k * 0.5)); cairo_line_to(cr, gx + gw, Y(k * 0.5)); }
    for (int p = 0; p < f.P; p += step) { cairo_move_to(cr, X(p), top); cairo_line_to(cr, X(p), bottom); }
    cairo_stroke(cr);
    render_set_rgb(cr, f.th.muted);
    cairo_set_line_width(cr, f.lw * 1.2);
    cairo_move_to(cr, gx, Y(0));
    cairo_line_to(cr, gx + gw, Y(0));
    cairo_stroke(cr);
    // axes with ticks
    render_set_rgb(cr, f.th.fg);
    cairo_set_line_width(cr, f.lw);
    cairo_move_to(cr, gx, top);
    cairo_line_to(cr, gx, bottom);
    cairo_line_to(cr, gx + gw, bottom);
    cairo_stroke(cr);
    ts.align = RENDER_ALIGN_RIGHT;
    for (int k = -2; k <= 2; k++) {
        cairo_move_to(cr, gx, Y(k * 0.5));
        cairo_rel_line_to(cr, -f.fs * 0.3, 0);
        cairo_stroke(cr);
        text_mid(cr, fmt_num(k * 0.5, buf, sizeof buf), gx - f.fs * 0.5, Y(k * 0.5), &ts);
    }
    ts.align = RENDER_ALIGN_CENTER;
    for (int p = 0; p < f.P; p += step) {
        cairo_move_to(cr, X(p), bottom);
        cairo_rel_line_to(cr, 0, f.fs * 0.3);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", p);
        render_text(cr, buf, X(p), bottom + f.fs * 0.4, &ts);
    }
    captions(cr, &f, N_("position"), gx + gw / 2, bottom + f.fs * 1.5, N_("PE value"), f.pad, top + gh / 2);
    // the curves: the formula sampled between positions, a dot at each whole one
    const unsigned *pal = f.th.bg.r < 0.5 ? dark_lines : light_lines;
    double r = f.fs * 0.2 * (o->high_contrast ? 1.25 : 1), lw = f.lw * 2.2;
    int dots = gw / span >= r * 3;
    int n = (int)fmin(20000, fmax(gw / 1.5, span * 16)); // a dozen samples per wavelength at least
    cairo_save(cr);
    cairo_rectangle(cr, gx, top, gw, gh);
    cairo_clip(cr);
    for (int k = 0; k < nd; k++) {
        int d = dims[k];
        render_set_rgb(cr, hex_rgb(pal[k]));
        line_style(cr, &f, d, lw);
        for (int i = 0; i <= n; i++) {
            double p = span * i / n, v = d & 1 ? cos(omega[k] * p) : sin(omega[k] * p);
            if (i) cairo_line_to(cr, X(p), Y(v));
            else cairo_move_to(cr, X(p), Y(v));
        }
        cairo_stroke(cr);
        if (!dots) continue;
        for (int p = 0; p < f.P; p++) {
            cairo_new_sub_path(cr);
            cairo_arc(cr, X(p), Y(pe[(size_t)p * f.D + d]), r, 0, 2 * M_PI);
        }
        cairo_fill(cr);
    }
    cairo_restore(cr);
    // legend: a line sample with a dot, the name, the wavelength in positions
    double lx = right + f.fs * 1.5, ly = top;
    for (int k = 0; k < nd; k++) {
        double lh, tw;
        render_text_size(cr, names[k], &ls, &tw, &lh);
        double cy = ly + lh / 2;
        render_set_rgb(cr, hex_rgb(pal[k]));
        line_style(cr, &f, dims[k], lw);
        cairo_move_to(cr, lx, cy);
        cairo_rel_line_to(cr, swatch, 0);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_new_path(cr);
        cairo_arc(cr, lx + swatch / 2, cy, r, 0, 2 * M_PI);
        cairo_fill(cr);
        render_text(cr, names[k], lx + swatch + f.fs * 0.6, ly, &ls);
        ly += lh;
        ly += render_text(cr, waves[k], lx + swatch + f.fs * 0.6, ly, &ws) + f.fs * 0.7;
    }
#undef X
#undef Y
    free(pe);
}

// ---------------------------------------------------------------- similarity
// Round ticks between lo and hi (about five), and the two ends themselves;
// returns how many (at most 12).
static int bar_ticks(double lo, double hi, double bh, double fs, double *ticks) {
    double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), step = mag;
    if (raw / mag >= 5) step = 5 * mag;
    else if (raw / mag >= 2) step = 2 * mag;
    int n = 0;
    ticks[n++] = lo;
    double keep = (hi - lo) * fs * 1.4 / bh; // no label closer than this to an end
    for (double v = ceil(lo / step) * step; v < hi && n < 11; v += step)
        if (v - lo > keep && hi - v > keep) ticks[n++] = v;
    ticks[n++] = hi;
    return n;
}

void render_pe_similarity(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h) {
    fig f;
    fig_init(&f, m, o, w, h);
    paint_bg(cr, &f, w, h);
    int P = f.P, D = f.D;
    // pe (P, D) -> sim (P, P) = pe peᵀ
    float *pe = pe_table(P, D);
    float *sim = malloc(sizeof(float) * (size_t)P * P);
    if (!sim) TF_OOM();
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < P; i++)
        for (int j = i; j < P; j++) { // symmetric: one triangle
            double s = 0;
            for (int c = 0; c < D; c++) s += (double)pe[(size_t)i * D + c] * pe[(size_t)j * D + c];
            sim[(size_t)i * P + j] = sim[(size_t)j * P + i] = (float)s;
            lo = fmin(lo, s);
            hi = fmax(hi, s);
        }
    free(pe);
    char title[160], sub[1200], extra[300], buf[32];
    snprintf(title, sizeof title, "%s", render_tr(o, "Dot product of positional encodings: nearby positions are similar"));
    // for even D, PE(i)·PE(j) = Σ cos(ω (i − j)): D/2 on the diagonal, a function of i − j alone
    if (D % 2 == 0)
        snprintf(extra, sizeof extra, render_tr(o, "PE(i)·PE(j) for %d positions: largest on the diagonal (d/2 = %s), "
                 "and it depends only on the distance |i − j|."), P, fmt_num(D / 2.0, buf, sizeof buf));
    else
        snprintf(extra, sizeof extra, render_tr(o, "PE(i)·PE(j) for %d positions: close positions have similar encodings."), P);
    formula_markup(&f, sub, sizeof sub, extra);
    double top = draw_header(cr, &f, title, sub, w) + f.fs * 1.0;
    render_cmap cmap = o->cmap_set ? o->cmap : RENDER_CMAP_VIRIDIS;
    double clo = lo, chi = hi > lo ? hi : lo + 1;
    if (render_cmap_is_diverging(cmap)) { // centred on 0, as everywhere in tviz
        double a = fmax(fabs(clo), fabs(chi));
        clo = -a;
        chi = a;
    }
    render_text_style ls = render_style(f.fs * 0.85, f.th.fg);
    snprintf(buf, sizeof buf, "%d", P - 1);
    double left = f.pad + f.fs * 1.6 + text_width(cr, buf, &ls) + f.fs * 0.7;
    char wide[32];
    fmt_num(fabs(clo) > fabs(chi) ? clo : chi, wide, sizeof wide);
    double room = colorbar_room(cr, &f, wide, "PE(i)·PE(j)");
    double bottom = h - f.pad - f.fs * 1.5 - f.fs * 1.5;
    double side = fmin(w - left - f.pad - room, bottom - top); // square cells
    if (side < 8) { free(sim); return; }
    double gx = left + (w - left - f.pad - room - side) / 2, cell = side / P;
    draw_cells(cr, sim, P, P, cmap, clo, chi, gx, top, cell, cell);
    free(sim);
    frame(cr, &f, gx, top, side, side);
    cell_ticks(cr, &f, gx, top, side, side, P, P, decimal_steps, NSTEPS(decimal_steps), decimal_steps, NSTEPS(decimal_steps));
    captions(cr, &f, N_("position j"), gx + side / 2, top + side + f.fs * 1.5, N_("position i"), gx - (left - f.pad), top + side / 2);
    // the bar spans the colour map's range; ticks mark the real min and max
    double ticks[12], bh = fmax(side - f.fs * 1.8, f.fs * 4);
    int nt = hi > lo ? bar_ticks(lo, hi, bh * (hi - lo) / (chi - clo), f.fs, ticks) : (ticks[0] = lo, 1);
    colorbar(cr, &f, cmap, clo, chi, ticks, nt, "PE(i)·PE(j)", gx + side + f.fs * 1.5, top, bh);
}
