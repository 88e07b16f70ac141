// matrix.c — a stage as a labelled matrix (tokens × dimensions) or an
// attention heatmap (queries × keys), and attention heads as small multiples.
// One layout function places everything, so drawing and hit testing agree.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- titles and captions
// "Encoder" or "Encoder layer 2": where a stage is, in the language of o.
static void where(const tf_stage *s, const render_opts *o, char *buf, size_t n) {
    static const char *const sides[] = {N_("Source"), N_("Encoder"), N_("Target"), N_("Decoder"), N_("Output")};
    if (s->layer < 0) snprintf(buf, n, "%s", render_tr(o, sides[s->side]));
    else if (s->side == TF_SIDE_ENC) snprintf(buf, n, render_tr(o, "Encoder layer %d"), s->layer + 1);
    else snprintf(buf, n, render_tr(o, "Decoder layer %d"), s->layer + 1);
}

static const char *sublayer_name(const tf_stage *s, const render_opts *o) {
    switch (s->sublayer) {
    case TF_SUB_CROSS_ATTN: return s->family == TF_FAMILY_LSTM ? render_tr(o, "Attention (Luong, dot)") : render_tr(o, "Cross-attention");
    case TF_SUB_RECURRENT: return render_tr(o, "LSTM");
    case TF_SUB_FINAL_STATE: return render_tr(o, "The state handed to the decoder");
    case TF_SUB_SELF_ATTN: return s->side == TF_SIDE_DEC ? render_tr(o, "Masked self-attention") : render_tr(o, "Self-attention");
    case TF_SUB_FFN: return render_tr(o, "Feed-forward");
    default: return NULL;
    }
}

void render_stage_title(const tf_trace *t, int stage, const render_opts *o, char *buf, size_t n) {
    const tf_stage *s = &t->stages[stage];
    const char *sub = sublayer_name(s, o);
    char at[96], head[48] = "";
    where(s, o, at, sizeof at);
    if (s->head >= 0) snprintf(head, sizeof head, render_tr(o, "Head %d"), s->head + 1);
    snprintf(buf, n, "%s%s%s%s%s — %s", at, sub ? " · " : "", sub ? sub : "", head[0] ? " · " : "", head, render_tr(o, s->title));
}

const char *render_axis_caption(const tf_stage *s, int cols, const render_opts *o) {
    tf_axis a = cols ? s->col_axis : s->row_axis;
    int attn = tf_stage_is_attention_square(s);
    if (s->family == TF_FAMILY_LSTM) { // rows are time steps, in the order the network reads them
        switch (a) {
        case TF_AXIS_SRC: return render_tr(o, cols ? N_("source steps (top encoder layer)") : N_("time steps: source tokens, as the encoder reads them"));
        case TF_AXIS_TGT: return render_tr(o, N_("time steps: decoder input"));
        case TF_AXIS_LAYER: return render_tr(o, "layer");
        case TF_AXIS_DIM: return render_tr(o, s->op == TF_OP_EMBED ? N_("dimension (embed_dim)") : N_("hidden unit (hidden_size)"));
        default: break;
        }
    }
    switch (a) {
    case TF_AXIS_SRC: return render_tr(o, attn ? (cols ? N_("keys: source words") : N_("queries: source words")) : N_("source tokens"));
    case TF_AXIS_TGT:
        return render_tr(o, attn ? (cols ? N_("keys: target words") : N_("queries: target words")) : N_("target tokens (decoder input)"));
    case TF_AXIS_VOCAB: return render_tr(o, "target vocabulary");
    default:
        return render_tr(o, s->op == TF_OP_FFN_HIDDEN ? N_("hidden unit (d_ff)") : s->head >= 0 ? N_("dimension of the head (d_k)")
                                                                                              : N_("dimension (d_model)"));
    }
}

// A heading line at the top of a view, from the start side of the language
// (the right for Persian and Arabic); returns its height.
double render_heading(cairo_t *cr, const char *text, double pad, double y, double w, const render_opts *o, render_text_style *st) {
    st->max_width = w - 2 * pad;
    st->dir = o && o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    st->align = o && o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    return render_text(cr, text, o && o->rtl ? w - pad : pad, y, st);
}

// ---------------------------------------------------------------- colour scale
typedef struct {
    render_cmap cmap;
    double lo, hi;          // values mapped to the two ends
    int prob;               // probabilities: fixed [0, 1]
} scale;

static void scale_for(scale *sc, const tf_stage *const *stages, int n, const render_opts *o) {
    int prob = stages[0]->kind == TF_KIND_PROB;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < (size_t)stages[k]->rows * stages[k]->cols; i++) {
            float v = stages[k]->data[i];
            if (!isfinite(v)) continue;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    if (!(lo <= hi)) lo = hi = 0;
    sc->prob = prob;
    sc->cmap = o->cmap_set ? o->cmap : prob ? RENDER_CMAP_VIRIDIS : RENDER_CMAP_RDBU;
    if (prob) { sc->lo = 0; sc->hi = 1; }
    else if (render_cmap_is_diverging(sc->cmap)) { // centred on 0
        double a = fmax(fabs(lo), fabs(hi));
        if (a == 0) a = 1;
        sc->lo = -a; sc->hi = a;
    } else { sc->lo = lo; sc->hi = hi > lo ? hi : lo + 1; }
}

static render_rgb value_rgb(const scale *sc, float v) { return render_cmap_at(sc->cmap, (v - sc->lo) / (sc->hi - sc->lo)); }

static int is_dark(render_rgb c) { return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b < 0.5; }

// ---------------------------------------------------------------- layout
typedef struct {
    double fs;                   // base font size
    double title_h;              // height of the title block
    double gx, gy, gw, gh;       // the cell grid
    double cw, ch;               // one cell
    int row_step, col_step;      // label every n-th row / column
    int col_rot;                 // column labels slanted
    double row_lab_w, col_lab_h; // room for the labels
    double bar_x, bar_w;         // colour bar
    int numbers;                 // numbers inside the cells
    double cell_fs;
} layout;

static int nice_step(int need) {
    static const int steps[] = {1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 200, 256, 500, 512, 1000};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) if (steps[i] >= need) return steps[i];
    return need;
}

static double max_label_width(cairo_t *cr, const tf_trace *t, tf_axis axis, int n, int step, const render_text_style *st, const render_opts *o) {
    double mw = 0, w, h;
    char buf[64];
    if (axis == TF_AXIS_DIM) { // numbers: the largest index is the widest (no need to shape 2048 labels)
        render_text_size(cr, render_axis_label(t, axis, n - 1, o, buf, sizeof buf), st, &w, &h);
        return w;
    }
    for (int i = 0; i < n; i += step) {
        render_text_size(cr, render_axis_label(t, axis, i, o, buf, sizeof buf), st, &w, &h);
        if (w > mw) mw = w;
    }
    return mw;
}

// compact: a panel among small multiples (short title, no colour bar).
static void matrix_layout(cairo_t *cr, const tf_trace *t, const tf_stage *s, const render_opts *o, double w, double h,
                          int compact, layout *L) {
    memset(L, 0, sizeof *L);
    double base = compact ? fmax(6, fmin(16, fmin(w / 30.0, h / 22.0))) : fmax(11, fmin(22, fmin(w / 75.0, h / 28.0)));
    L->fs = base * o->text_scale;
    double fs = L->fs, pad = fs * 0.9;
    // (Persian and Arabic lines are taller than Latin ones at the same size)
    double line = o && o->rtl ? 1.8 : 1.35;
    L->title_h = compact ? fs * 1.6 : fs * 1.5 * line + fs * line + pad;
    L->bar_w = compact ? 0 : fs * 1.2 + fs * 5.5;
    int attn = tf_stage_is_attention_square(s);
    render_text_style st = render_style(fs * 0.9, (render_rgb){0, 0, 0});
    // rows: token labels need their width; thin them when rows are dense
    double avail_h = h - L->title_h - pad * 2 - fs * 2.5;
    L->row_step = nice_step((int)ceil(s->rows * fs * 1.15 / fmax(avail_h, 1)));
    double caption = compact ? 0 : fs * 1.5;
    L->row_lab_w = fmin(max_label_width(cr, t, s->row_axis, s->rows, L->row_step, &st, o), w * (compact ? 0.3 : 0.22)) + fs * 0.5;
    if (compact && fs < 7) L->row_lab_w = 0;
    double left = pad + caption + L->row_lab_w;
    double right = pad + L->bar_w;
    double gw = w - left - right;
    // columns: horizontal if they fit, else slanted, thinned so none overlap
    double cw0 = gw / s->cols;
    // (square attention cells may be narrower than the width allows: as tall as the rows let them be)
    if (attn) cw0 = fmin(cw0, fmax(h - L->title_h - caption - fs * 1.4 - pad, 1) / s->rows);
    // (no token label is narrower than half the font size: columns narrower than that
    // are slanted without shaping every label, so 60,000 vocabulary columns cost nothing)
    double col_w = s->col_axis != TF_AXIS_DIM && cw0 < fs * 0.5 ? HUGE_VAL : max_label_width(cr, t, s->col_axis, s->cols, 1, &st, o) + fs * 0.5;
    L->col_step = 1;
    if (col_w > cw0) {
        if (s->col_axis == TF_AXIS_DIM) L->col_step = nice_step((int)ceil(col_w / fmax(cw0, 1e-3)));
        else { L->col_rot = 1; L->col_step = nice_step((int)ceil(fs * 1.2 / fmax(cw0, 1e-3))); }
    }
    double cl = L->col_rot ? fmin(max_label_width(cr, t, s->col_axis, s->cols, L->col_step, &st, o), h * 0.2) * 0.72 + fs : fs * 1.4;
    L->col_lab_h = (compact && fs < 7) ? 0 : cl;
    double top = L->title_h + caption + L->col_lab_h;
    double gh = h - top - pad;
    // cells: square for attention, capped so small matrices stay compact
    double cw = gw / s->cols, ch = gh / s->rows;
    if (attn) cw = ch = fmin(cw, ch);
    cw = fmin(cw, compact ? cw : fs * 7);
    ch = fmin(ch, compact ? ch : fmax(fs * 3, attn ? cw : 0));
    if (attn) cw = ch = fmin(cw, ch);
    L->cw = cw;
    L->ch = ch;
    L->gw = cw * s->cols;
    L->gh = ch * s->rows;
    L->gx = left + (gw - L->gw) / 2;
    L->gy = top;
    L->bar_x = L->gx + L->gw + pad * 1.5;
    L->cell_fs = fmin(fs, fmin(ch * 0.42, cw / 3.6));
    L->numbers = L->cell_fs >= 8 && cw >= L->cell_fs * 3.2 && s->rows * s->cols <= 4096;
}

// ---------------------------------------------------------------- drawing
static void hatch(cairo_t *cr, double x, double y, double w, double h, const render_theme *th) {
    cairo_save(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    render_set_rgb(cr, th->mask_a);
    cairo_paint(cr);
    render_set_rgb(cr, th->mask_b);
    cairo_set_line_width(cr, fmax(1, fmin(w, h) * 0.06));
    double step = fmax(4, fmin(w, h) / 5);
    for (double d = -h; d < w; d += step) {
        cairo_move_to(cr, x + d, y + h);
        cairo_line_to(cr, x + d + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

// The cells alone: vector rectangles for small matrices, an image scaled
// into place for big ones (2048 columns do not become 2048 rectangles) and
// for cells a few pixels wide (every layer and head of a long sentence: a
// rectangle each would be 100,000 of them, none bigger than a dot).
static void draw_cells(cairo_t *cr, const tf_stage *s, const scale *sc, const layout *L, const render_theme *th) {
    double cw = L->cw, ch = L->ch;
    cairo_user_to_device_distance(cr, &cw, &ch);
    if ((size_t)s->rows * s->cols > 4096 || (fabs(cw) < 4 && fabs(ch) < 4)) {
        // More columns than device pixels: average the colours of the columns
        // that fall into each pixel (what a box filter does, without
        // pixman's general resampler), then scale the image into place.
        double dx = L->gw, dy = 0;
        cairo_user_to_device_distance(cr, &dx, &dy);
        int iw = s->cols, px_w = (int)ceil(fabs(dx));
        if (px_w >= 1 && px_w < iw) iw = px_w;
        cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, iw, s->rows);
        unsigned char *px = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img);
        for (int i = 0; i < s->rows; i++) {
            uint32_t *row = (uint32_t *)(px + (size_t)i * stride);
            for (int x = 0; x < iw; x++) {
                int j0 = (int)((long)x * s->cols / iw), j1 = (int)((long)(x + 1) * s->cols / iw);
                double r = 0, g = 0, b = 0;
                for (int j = j0; j < j1; j++) {
                    float v = s->data[(size_t)i * s->cols + j];
                    render_rgb c = isinf(v) ? th->mask_b : value_rgb(sc, v);
                    r += c.r; g += c.g; b += c.b;
                }
                double k = 255.0 / (j1 - j0);
                row[x] = (uint32_t)(r * k + 0.5) << 16 | (uint32_t)(g * k + 0.5) << 8 | (uint32_t)(b * k + 0.5);
            }
        }
        cairo_surface_mark_dirty(img);
        cairo_save(cr);
        cairo_rectangle(cr, L->gx, L->gy, L->gw, L->gh);
        cairo_clip(cr);
        cairo_translate(cr, L->gx, L->gy);
        cairo_scale(cr, L->gw / iw, L->ch);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_paint(cr);
        cairo_restore(cr);
        cairo_surface_destroy(img);
        return;
    }
    char buf[32];
    for (int i = 0; i < s->rows; i++)
        for (int j = 0; j < s->cols; j++) {
            float v = s->data[(size_t)i * s->cols + j];
            double x = L->gx + j * L->cw, y = L->gy + i * L->ch;
            if (isinf(v) && v < 0) {
                hatch(cr, x, y, L->cw, L->ch, th);
                if (L->numbers) {
                    render_text_style st = render_style(L->cell_fs, th->fg);
                    st.align = RENDER_ALIGN_CENTER;
                    render_text(cr, "−∞", x + L->cw / 2, y + L->ch / 2 - L->cell_fs * 0.68, &st);
                }
                continue;
            }
            render_rgb c = value_rgb(sc, v);
            render_set_rgb(cr, c);
            // a hair of overlap hides seams between neighbouring cells
            cairo_rectangle(cr, x, y, L->cw + 0.5, L->ch + 0.5);
            cairo_fill(cr);
            if (L->numbers) {
                render_text_style st = render_style(L->cell_fs, is_dark(c) ? (render_rgb){1, 1, 1} : (render_rgb){0.05, 0.05, 0.05});
                st.align = RENDER_ALIGN_CENTER;
                render_text(cr, render_format_value(v, buf, sizeof buf, 2), x + L->cw / 2, y + L->ch / 2 - L->cell_fs * 0.68, &st);
            }
        }
    if (L->cw >= 6 && L->ch >= 6) { // grid lines
        render_set_rgb(cr, th->bg);
        cairo_set_line_width(cr, fmax(0.5, fmin(L->cw, L->ch) * 0.03));
        for (int i = 1; i < s->rows; i++) { cairo_move_to(cr, L->gx, L->gy + i * L->ch); cairo_rel_line_to(cr, L->gw, 0); }
        for (int j = 1; j < s->cols; j++) { cairo_move_to(cr, L->gx + j * L->cw, L->gy); cairo_rel_line_to(cr, 0, L->gh); }
        cairo_stroke(cr);
    }
}

static void draw_labels(cairo_t *cr, const tf_trace *t, const tf_stage *s, const layout *L, const render_theme *th, const render_opts *o) {
    char buf[16];
    render_text_style st = render_style(L->fs * 0.9, th->fg);
    if (L->row_lab_w > 0) {
        st.align = RENDER_ALIGN_RIGHT;
        st.max_width = L->row_lab_w - L->fs * 0.4;
        for (int i = 0; i < s->rows; i += L->row_step) {
            const char *l = render_axis_label(t, s->row_axis, i, o, buf, sizeof buf);
            render_text(cr, l, L->gx - L->fs * 0.4, L->gy + (i + 0.5) * L->ch - L->fs * 0.62, &st);
        }
    }
    if (L->col_lab_h > 0) {
        render_text_style cs = render_style(L->fs * 0.9, th->fg);
        for (int j = 0; j < s->cols; j += L->col_step) {
            const char *l = render_axis_label(t, s->col_axis, j, o, buf, sizeof buf);
            double x = L->gx + (j + 0.5) * L->cw;
            if (L->col_rot) {
                cs.angle = -M_PI / 4;
                cs.align = RENDER_ALIGN_LEFT;
                cs.max_width = (L->col_lab_h - L->fs) / 0.72;
                render_text(cr, l, x - L->fs * 0.3, L->gy - L->fs * 0.55, &cs);
            } else {
                cs.align = RENDER_ALIGN_CENTER;
                render_text(cr, l, x, L->gy - L->fs * 1.35, &cs);
            }
        }
    }
}

// A colour bar's box: the colour map along the linear pattern g (which it
// takes over), filled into (x, y, w, h) and outlined.
static void gradient_box(cairo_t *cr, cairo_pattern_t *g, const scale *sc, const render_theme *th, double x, double y, double w, double h) {
    for (int k = 0; k <= 32; k++) {
        render_rgb c = render_cmap_at(sc->cmap, k / 32.0);
        cairo_pattern_add_color_stop_rgb(g, k / 32.0, c.r, c.g, c.b);
    }
    cairo_rectangle(cr, x, y, w, h);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    render_set_rgb(cr, th->fg);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x, y, w, h);
    cairo_stroke(cr);
}

static void draw_colorbar(cairo_t *cr, const tf_stage *s, const scale *sc, const layout *L, const render_theme *th, double bar_h,
                          const render_opts *o) {
    double x = L->bar_x, y = L->gy, bw = L->fs * 1.2;
    cairo_pattern_t *g = cairo_pattern_create_linear(0, y + bar_h, 0, y);
    gradient_box(cr, g, sc, th, x, y, bw, bar_h);
    char buf[32];
    render_text_style st = render_style(L->fs * 0.85, th->fg);
    for (int k = 0; k <= 4; k++) {
        double v = sc->lo + (sc->hi - sc->lo) * k / 4.0, ty = y + bar_h - bar_h * k / 4.0;
        cairo_move_to(cr, x + bw, ty);
        cairo_rel_line_to(cr, L->fs * 0.3, 0);
        cairo_stroke(cr);
        render_text(cr, render_format_value((float)v, buf, sizeof buf, 2), x + bw + L->fs * 0.45, ty - L->fs * 0.6, &st);
    }
    const char *what = render_tr(o, sc->prob ? N_("probability")
                                    : s->kind == TF_KIND_MASKED || s->op == TF_OP_SCORES || s->op == TF_OP_SCALED ? N_("score") : N_("value"));
    render_text_style cap = render_style(L->fs * 0.85, th->muted);
    render_text(cr, what, x, y + bar_h + L->fs * 0.5, &cap);
    if (s->kind == TF_KIND_MASKED) { // legend for the mask pattern
        double sy = y + bar_h + L->fs * 2.1, sw = L->fs * 1.6;
        hatch(cr, x, sy, sw, sw, th);
        render_text(cr, render_tr(o, "−∞ masked"), x + sw + L->fs * 0.4, sy + sw / 2 - L->fs * 0.6, &cap);
    }
}

static void draw_selection(cairo_t *cr, const tf_stage *s, const layout *L, const render_opts *o, const render_theme *th) {
    // a recurrent model's time step: its row, outlined across the matrix
    if (s->family == TF_FAMILY_LSTM && (s->row_axis == TF_AXIS_SRC || s->row_axis == TF_AXIS_TGT) && o->time_step >= 0 && o->time_step < s->rows) {
        render_set_rgb(cr, th->accent);
        cairo_set_line_width(cr, fmax(2.5, L->fs * 0.28));
        cairo_rectangle(cr, L->gx - L->row_lab_w, L->gy + o->time_step * L->ch, L->gw + L->row_lab_w, fmax(L->ch, 2));
        cairo_stroke(cr);
    }
    if (o->cell_row < 0 || o->cell_col < 0 || o->cell_row >= s->rows || o->cell_col >= s->cols) return;
    render_set_rgb(cr, th->accent);
    cairo_set_line_width(cr, fmax(2, L->fs * 0.2));
    cairo_rectangle(cr, L->gx + o->cell_col * L->cw, L->gy + o->cell_row * L->ch, fmax(L->cw, 2), fmax(L->ch, 2));
    cairo_stroke(cr);
}

static void paint_bg(cairo_t *cr, const render_theme *th, double w, double h) {
    render_set_rgb(cr, th->bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
}

static void draw_header(cairo_t *cr, const tf_trace *t, int stage, const layout *L, const render_theme *th, double w,
                        const render_opts *o) {
    const tf_stage *s = &t->stages[stage];
    char title[300], sub[900];
    render_stage_title(t, stage, o, title, sizeof title);
    double pad = L->fs * 0.9;
    render_text_style ts = render_style(L->fs * 1.5, th->fg);
    ts.bold = 1;
    double y = pad * 0.8;
    y += render_heading(cr, title, pad, y, w, o, &ts);
    // the formula, the id and the size: each an isolate, so a right-to-left line keeps each in its order
    if (o && o->rtl) snprintf(sub, sizeof sub, "\u2068%s\u2069    ·    \u2068%s\u2069    ·    \u2068%d × %d\u2069", render_tr(o, s->formula), s->id, s->rows, s->cols);
    else snprintf(sub, sizeof sub, "%s    ·    %s    ·    %d × %d", render_tr(o, s->formula), s->id, s->rows, s->cols);
    if (t->without) { // what if? every stage of such a run says so
        char parts[300], what[400];
        size_t k = strlen(sub);
        snprintf(what, sizeof what, render_tr(o, "what if: without %s"), render_without_text(o, t->without, parts, sizeof parts));
        snprintf(sub + k, sizeof sub - k, o && o->rtl ? "    ·    \u2068%s\u2069" : "    ·    %s", what);
    }
    render_text_style ss = render_style(L->fs, th->muted);
    render_heading(cr, sub, pad, y + L->fs * 0.15, w, o, &ss);
}

static void draw_captions(cairo_t *cr, const tf_stage *s, const layout *L, const render_theme *th, const render_opts *o) {
    render_text_style cs = render_style(L->fs * 0.95, th->muted);
    cs.italic = !(o && o->rtl); // (no slanted Persian or Arabic)
    cs.align = RENDER_ALIGN_CENTER;
    render_text(cr, render_axis_caption(s, 1, o), L->gx + L->gw / 2, L->gy - L->col_lab_h - L->fs * 1.5, &cs);
    cs.angle = -M_PI / 2;
    render_text(cr, render_axis_caption(s, 0, o), L->gx - L->row_lab_w - L->fs * 1.6, L->gy + L->gh / 2, &cs);
}

void render_matrix(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    paint_bg(cr, &th, w, h);
    if (stage < 0 || stage >= t->n) return;
    const tf_stage *s = &t->stages[stage];
    layout L;
    matrix_layout(cr, t, s, o, w, h, 0, &L);
    scale sc;
    scale_for(&sc, &s, 1, o);
    draw_header(cr, t, stage, &L, &th, w, o);
    draw_captions(cr, s, &L, &th, o);
    draw_cells(cr, s, &sc, &L, &th);
    draw_labels(cr, t, s, &L, &th, o);
    draw_selection(cr, s, &L, o, &th);
    draw_colorbar(cr, s, &sc, &L, &th, fmin(fmax(L.gh, L.fs * 8), h - L.gy - L.fs * 5), o);
}

// The layout render_matrix uses at this size, measured on a scratch surface.
static void layout_of(const tf_trace *t, const tf_stage *s, const render_opts *o, double w, double h, layout *L) {
    cairo_surface_t *one = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(one);
    matrix_layout(cr, t, s, o, w, h, 0, L);
    cairo_destroy(cr);
    cairo_surface_destroy(one);
}

int render_matrix_cell_rect(const tf_trace *t, int stage, const render_opts *o, double w, double h, int row, int col, double rect[4]) {
    if (stage < 0 || stage >= t->n) return -1;
    const tf_stage *s = &t->stages[stage];
    if (row < 0 || col < 0 || row >= s->rows || col >= s->cols) return -1;
    layout L;
    layout_of(t, s, o, w, h, &L);
    rect[0] = L.gx + col * L.cw;
    rect[1] = L.gy + row * L.ch;
    rect[2] = L.cw;
    rect[3] = L.ch;
    return 0;
}

int render_matrix_hit(const tf_trace *t, int stage, const render_opts *o, double w, double h, double x, double y, int *row, int *col) {
    if (stage < 0 || stage >= t->n) return -1;
    const tf_stage *s = &t->stages[stage];
    layout L;
    layout_of(t, s, o, w, h, &L);
    if (x < L.gx || y < L.gy || x >= L.gx + L.gw || y >= L.gy + L.gh) return -1;
    *col = (int)((x - L.gx) / L.cw);
    *row = (int)((y - L.gy) / L.ch);
    if (*col >= s->cols) *col = s->cols - 1;
    if (*row >= s->rows) *row = s->rows - 1;
    return 0;
}

// ---------------------------------------------------------------- small multiples
// The same stage in another layer and head, or -1.
static int sibling(const tf_trace *t, int stage, int layer, int head) {
    int k = tf_stage_other_layer(t, stage, layer);
    return k < 0 ? -1 : tf_stage_other_head(t, k, head);
}

// The panels share one shape (every head of a layer, every layer of a
// stack), so their labels are measured once and the arrangement is
// arithmetic: the number of columns that gives the largest cells wins.
typedef struct {
    double fs;                 // the panels' font size
    double row_w, col_w;       // widest row and column label at fs * 0.9 (capped)
    double col_h_rot;          // height of slanted column labels
} panel_metrics;

static void panel_metrics_of(cairo_t *cr, const tf_trace *t, const tf_stage *s, double fs, double pw_cap, panel_metrics *P) {
    render_text_style st = render_style(fs * 0.9, (render_rgb){0, 0, 0});
    P->fs = fs;
    P->row_w = fmin(max_label_width(cr, t, s->row_axis, s->rows, 1, &st, NULL), fs * 9) + fs * 0.5;
    P->col_w = max_label_width(cr, t, s->col_axis, s->cols, 1, &st, NULL) + fs * 0.5;
    P->col_h_rot = fmin(P->col_w, fs * 9) * 0.72 + fs;
    (void)pw_cap;
}

// The layout of one panel of w × h at the metrics' font size: title on top,
// row labels at the left, column labels above the cells (slanted when they
// do not fit side by side), every label thinned until none overlap.
static void panel_layout(const tf_stage *s, const panel_metrics *P, double w, double h, layout *L) {
    memset(L, 0, sizeof *L);
    double fs = P->fs;
    L->fs = fs;
    L->title_h = fs * 1.55;
    L->row_lab_w = fmin(P->row_w, w * 0.32);
    int attn = tf_stage_is_attention_square(s);
    for (int pass = 0; pass < 2; pass++) { // slanted column labels first; level ones if the cells turn out wide enough
        L->col_lab_h = pass == 0 ? P->col_h_rot : fs * 1.45;
        double gw = fmax(w - L->row_lab_w - fs * 0.4, 1), gh = fmax(h - L->title_h - L->col_lab_h - fs * 0.3, 1);
        double cw = gw / s->cols, ch = gh / s->rows;
        if (attn) cw = ch = fmin(cw, ch);
        L->cw = cw;
        L->ch = ch;
        L->col_rot = pass == 0;
        if (pass == 0 && P->col_w > cw) break;
    }
    if (!L->col_rot && P->col_w > L->cw) L->col_rot = 1; // (cannot happen: kept for safety)
    L->gw = L->cw * s->cols;
    L->gh = L->ch * s->rows;
    L->gx = L->row_lab_w;
    L->gy = L->title_h + L->col_lab_h;
    L->row_step = nice_step((int)ceil(fs * 1.05 / fmax(L->ch, 1e-3)));
    L->col_step = L->col_rot ? nice_step((int)ceil(fs * 1.15 / fmax(L->cw, 1e-3))) : 1;
    if (s->col_axis == TF_AXIS_DIM && !L->col_rot) L->col_step = nice_step((int)ceil(P->col_w / fmax(L->cw, 1e-3)));
    L->cell_fs = fmin(fs, fmin(L->ch * 0.42, L->cw / 3.6));
    L->numbers = L->cell_fs >= 8 && L->cw >= L->cell_fs * 3.2 && s->rows * s->cols <= 4096;
}

// The size of the cells a panel of pw × ph gets (what the arrangement maximises).
static double panel_cell(const tf_stage *s, const panel_metrics *P, double pw, double ph) {
    layout L;
    panel_layout(s, P, pw, ph, &L);
    return fmin(L.cw, L.ch);
}

static void draw_panel(cairo_t *cr, const tf_trace *t, int idx, const scale *sc, const layout *L, const render_theme *th, double x, double y,
                       const char *label) {
    const tf_stage *s = &t->stages[idx];
    cairo_save(cr);
    cairo_translate(cr, x, y);
    render_text_style ts = render_style(L->fs * 1.1, th->fg);
    ts.bold = 1;
    ts.align = RENDER_ALIGN_CENTER;
    ts.max_width = L->gw + L->row_lab_w;
    render_text(cr, label, L->gx + L->gw / 2, L->fs * 0.1, &ts);
    draw_cells(cr, s, sc, L, th);
    draw_labels(cr, t, s, L, th, NULL); // (attention panels: words on both axes)
    cairo_restore(cr);
}

// Heads (and layers, for the grid) of the stage's attention: panels in a
// table that fills the picture, each with its title and its token labels,
// one colour scale for all and a shared colour bar.
static void draw_multiples(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h, int all_layers) {
    render_theme th = render_theme_get(o);
    paint_bg(cr, &th, w, h);
    if (stage < 0 || stage >= t->n || t->stages[stage].head < 0) return;
    const tf_stage *s = &t->stages[stage];
    int H = tf_stage_count_heads(t, stage), Lyr = tf_stage_count_layers(t, stage);
    int nl = all_layers ? Lyr : 1, first = all_layers ? 0 : s->layer;
    static const int max_panels = 64 * 64;
    const tf_stage **all = calloc((size_t)max_panels, sizeof *all);
    int *layer_of = calloc((size_t)max_panels, sizeof *layer_of);
    if (!all || !layer_of) { free(all); free(layer_of); return; }
    int n = 0;
    for (int l = 0; l < nl; l++)
        for (int hd = 0; hd < H && n < max_panels; hd++) {
            int k = sibling(t, stage, first + l, hd);
            if (k < 0) continue;
            layer_of[n] = first + l;
            all[n++] = &t->stages[k];
        }
    if (!n) { free(all); free(layer_of); return; }
    scale sc;
    scale_for(&sc, all, n, o);
    double fs = fmax(11, fmin(22, fmin(w / 75.0, h / 28.0))) * o->text_scale, pad = fs * 0.9;
    double line = o && o->rtl ? 1.8 : 1.35, title_h = fs * 1.5 * line + fs * line + pad;
    char title[600], at[96], which[300];
    render_text_style ts = render_style(fs * 1.5, th.fg);
    ts.bold = 1;
    tf_stage side = *s;
    if (all_layers) side.layer = -1;
    where(&side, o, at, sizeof at);
    if (all_layers) snprintf(which, sizeof which, render_tr(o, "%s, every layer and head"), render_tr(o, s->title));
    else snprintf(which, sizeof which, render_tr(o, "%s, all %d heads"), render_tr(o, s->title), H);
    snprintf(title, sizeof title, "%s · %s — %s", at, sublayer_name(s, o), which);
    double y = pad * 0.8 + render_heading(cr, title, pad, pad * 0.8, w, o, &ts);
    render_text_style ss = render_style(fs, th.muted);
    char subt[400], axes[300];
    snprintf(axes, sizeof axes, render_tr(o, "rows: %s, columns: %s"), render_axis_caption(s, 0, o), render_axis_caption(s, 1, o));
    snprintf(subt, sizeof subt, o && o->rtl ? "\u2068%s\u2069    ·    %s" : "%s    ·    %s", render_tr(o, s->formula), axes);
    render_heading(cr, subt, pad, y + fs * 0.15, w, o, &ss);
    // the panels take everything between the header and the colour bar
    double bar = fs * 7.5, top = title_h, left = pad;
    double aw = w - left - pad - bar, ah = h - top - pad;
    double pf = fmax(7.5, fmin(13, sqrt(fmax(aw * ah, 1) / n) / 24)) * o->text_scale; // the panels' type
    panel_metrics P;
    panel_metrics_of(cr, t, s, pf, aw, &P);
    int cols = all_layers ? H : 1;
    if (!all_layers) { // the arrangement with the largest cells
        double best = -1;
        for (int c = 1; c <= n; c++) {
            int r = (n + c - 1) / c;
            if (c > 1 && (r - 1) * c >= n) continue; // (an empty last row: the same as fewer columns)
            double cell = panel_cell(s, &P, aw / c, ah / r);
            if (cell > best * 1.0001) { best = cell; cols = c; }
        }
    }
    int rows = (n + cols - 1) / cols;
    double pw = aw / cols, ph = ah / rows, gap = pf * 0.8;
    layout L;
    panel_layout(s, &P, pw - gap, ph - gap, &L);
    // the table as wide and tall as its panels' cells make it, centred
    double step_x = L.gx + L.gw + gap, step_y = L.gy + L.gh + gap;
    double ox = left + fmax(0, (aw - (cols * step_x - gap)) / 2), oy = top + fmax(0, (ah - (rows * step_y - gap)) / 2);
    char label[96];
    for (int k = 0; k < n; k++) {
        int r = k / cols, c = k % cols;
        int hd = all[k]->head;
        if (all_layers) snprintf(label, sizeof label, render_tr(o, "Layer %d · Head %d"), layer_of[k] + 1, hd + 1);
        else snprintf(label, sizeof label, render_tr(o, "Head %d"), hd + 1);
        draw_panel(cr, t, (int)(all[k] - t->stages), &sc, &L, &th, ox + c * step_x, oy + r * step_y, label);
    }
    layout Lb = L;
    Lb.fs = fs;
    Lb.bar_x = w - bar + fs * 0.5;
    Lb.gy = top + fs * 1.5;
    draw_colorbar(cr, s, &sc, &Lb, &th, fmin(ah * 0.6, fs * 20), o);
    free(all);
    free(layer_of);
}

void render_heads(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h) {
    draw_multiples(cr, t, stage, o, w, h, 0);
}

void render_grid(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h) {
    draw_multiples(cr, t, stage, o, w, h, 1);
}

// ---------------------------------------------------------------- over training
void render_strip(cairo_t *cr, const tf_trace *const *traces, const int *stage_of, int n, const char *const *captions, render_view v,
                  const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    paint_bg(cr, &th, w, h);
    if (n <= 0) return;
    const tf_trace *t0 = traces[n - 1];
    int s0 = stage_of[n - 1];
    if (s0 < 0 || s0 >= t0->n) return;
    const tf_stage *s = &t0->stages[s0];
    double fs = fmax(11, fmin(22, fmin(w / (40.0 + 30 * n), h / 28.0))) * o->text_scale, pad = fs * 0.9;
    double line = o->rtl ? 1.8 : 1.35, top = fs * 1.5 * line + fs * line + pad;
    char title[400], base[300];
    render_stage_title(t0, s0, o, base, sizeof base);
    snprintf(title, sizeof title, render_tr(o, "%s, over training"), base);
    render_text_style ts = render_style(fs * 1.5, th.fg);
    ts.bold = 1;
    double y = pad * 0.8 + render_heading(cr, title, pad, pad * 0.8, w, o, &ts);
    render_text_style ss = render_style(fs, th.muted);
    char sub[600], axes[300];
    snprintf(axes, sizeof axes, render_tr(o, "rows: %s, columns: %s"), render_axis_caption(s, 0, o), render_axis_caption(s, 1, o));
    snprintf(sub, sizeof sub, o->rtl ? "\u2068%s\u2069    ·    %s" : "%s    ·    %s", render_tr(o, s->formula), axes);
    render_heading(cr, sub, pad, y + fs * 0.15, w, o, &ss);
    if (v == RENDER_VIEW_AUTO) v = render_view_for(t0, s0);
    int panels = v == RENDER_VIEW_MATRIX || v == RENDER_VIEW_HEATMAP;
    double bar = panels ? fs * 7.5 : 0, aw = w - 2 * pad - bar, ah = h - top - pad, pw = aw / n;
    if (!panels) { // any other view: each point drawn whole in its own box, its caption above it
        for (int k = 0; k < n; k++) {
            render_text_style cs = render_style(fs * 1.1, th.fg);
            cs.bold = 1;
            cs.align = RENDER_ALIGN_CENTER;
            cs.max_width = pw;
            render_text(cr, captions[k], pad + (k + 0.5) * pw, top, &cs);
            cairo_save(cr);
            cairo_rectangle(cr, pad + k * pw, top + fs * 1.8, pw, ah - fs * 1.8);
            cairo_clip(cr);
            cairo_translate(cr, pad + k * pw, top + fs * 1.8);
            render_draw(cr, traces[k], NULL, stage_of[k], v, o, pw, ah - fs * 1.8);
            cairo_restore(cr);
        }
        return;
    }
    // the stage's panels side by side, one colour scale for all of them
    const tf_stage *all[64];
    int m = n < 64 ? n : 64;
    for (int k = 0; k < m; k++) all[k] = &traces[k]->stages[stage_of[k]];
    scale sc;
    scale_for(&sc, all, m, o);
    double pf = fmax(7.5, fmin(13, sqrt(fmax(pw * ah, 1)) / 24)) * o->text_scale;
    panel_metrics P;
    panel_metrics_of(cr, t0, s, pf, pw, &P);
    double gap = pf * 1.2;
    layout L;
    panel_layout(s, &P, pw - gap, ah - gap, &L);
    double step_x = L.gx + L.gw + gap, ox = pad + fmax(0, (aw - (m * step_x - gap)) / 2), oy = top + fmax(0, (ah - (L.gy + L.gh)) / 2);
    for (int k = 0; k < m; k++) {
        const tf_stage *sk = all[k];
        if (sk->rows != s->rows || sk->cols != s->cols) continue; // (another shape: not comparable)
        draw_panel(cr, traces[k], stage_of[k], &sc, &L, &th, ox + k * step_x, oy, captions[k]);
    }
    layout Lb = L;
    Lb.fs = fs;
    Lb.bar_x = w - bar + fs * 0.5;
    Lb.gy = top + fs * 1.5;
    draw_colorbar(cr, s, &sc, &Lb, &th, fmin(ah * 0.6, fs * 16), o);
}

// ---------------------------------------------------------------- what if? the compare view
// Each row's entropy in bits (rows that are all 0, fully masked: -1).
static void row_entropy(const tf_stage *s, double *h) {
    for (int i = 0; i < s->rows; i++) {
        const float *p = s->data + (size_t)i * s->cols;
        double e = 0, tot = 0;
        for (int j = 0; j < s->cols; j++) {
            tot += p[j];
            if (p[j] > 0) e -= p[j] * log2(p[j]);
        }
        h[i] = tot > 0 ? e : -1;
    }
}

// One panel of the comparison: a caption above, the cells, the labels; for
// probabilities a strip at its right with each row's entropy as a bar (full
// width: log₂ of the columns, a uniform row) and its value.
static void compare_panel(cairo_t *cr, const tf_trace *t, const tf_stage *s, const scale *sc, const render_opts *o,
                          const render_theme *th, double x, double y, double w, double h, const char *caption, int entropy) {
    double strip = entropy ? fmin(w * 0.2, 90 * o->text_scale) : 0;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    layout L;
    matrix_layout(cr, t, s, o, w - strip, h, 1, &L);
    render_text_style ts = render_style(L.fs * 1.1, th->fg);
    ts.bold = 1;
    ts.align = RENDER_ALIGN_CENTER;
    ts.max_width = w;
    render_text(cr, caption, L.gx + L.gw / 2, L.fs * 0.2, &ts);
    draw_cells(cr, s, sc, &L, th);
    draw_labels(cr, t, s, &L, th, o);
    if (entropy && s->rows <= 4096) {
        double hb[4096], full = log2(fmax(2, s->cols)), sx = L.gx + L.gw + L.fs * 0.5, sw = strip - L.fs * 0.8;
        row_entropy(s, hb);
        render_text_style hs = render_style(fmin(L.fs * 0.85, fmax(L.ch * 0.5, 6)), th->fg);
        render_text_style cs = render_style(L.fs * 0.85, th->muted);
        cs.align = RENDER_ALIGN_CENTER;
        render_text(cr, render_tr(o, "entropy (bits)"), sx + sw / 2, L.gy - L.fs * 1.4, &cs);
        char buf[32];
        for (int i = 0; i < s->rows && sw > 4; i++) {
            if (hb[i] < 0) continue;
            double by = L.gy + i * L.ch + L.ch * 0.15, bh = L.ch * 0.7;
            render_set_rgb(cr, th->grid);
            cairo_rectangle(cr, sx, by, sw, bh);
            cairo_fill(cr);
            render_set_rgb(cr, th->accent);
            cairo_rectangle(cr, sx, by, sw * fmin(1, hb[i] / full), bh);
            cairo_fill(cr);
            if (L.ch >= 9) {
                snprintf(buf, sizeof buf, "%.2f", hb[i]);
                render_text(cr, buf, sx + 2, by + bh / 2 - hs.size * 0.68, &hs);
            }
        }
    }
    cairo_restore(cr);
}

// A horizontal colour bar from lo to hi with its ends and middle written, and what it shows.
static void compare_bar(cairo_t *cr, const scale *sc, double x, double y, double w, double fs, const char *what, const render_theme *th,
                        int o_rtl) {
    cairo_pattern_t *g = cairo_pattern_create_linear(x, 0, x + w, 0);
    gradient_box(cr, g, sc, th, x, y, w, fs);
    char buf[32];
    render_text_style st = render_style(fs * 0.85, th->fg);
    for (int k = 0; k <= 2; k++) {
        st.align = k == 0 ? RENDER_ALIGN_LEFT : k == 1 ? RENDER_ALIGN_CENTER : RENDER_ALIGN_RIGHT;
        render_text(cr, render_format_value((float)(sc->lo + (sc->hi - sc->lo) * k / 2.0), buf, sizeof buf, 2), x + w * k / 2.0, y + fs * 1.1, &st);
    }
    render_text_style ws = render_style(fs * 0.85, th->muted);
    ws.align = RENDER_ALIGN_CENTER;
    render_text(cr, what, x + w / 2, y - fs * (o_rtl ? 1.9 : 1.4), &ws);
}

void render_whatif_compare(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    paint_bg(cr, &th, w, h);
    if (stage < 0 || stage >= t->n || !o->with_all || o->with_all->n != t->n) return;
    const tf_stage *off = &t->stages[stage], *on = &o->with_all->stages[stage];
    if (on->rows != off->rows || on->cols != off->cols) return;
    // the difference: without − with (−∞ where either is masked)
    size_t n = (size_t)off->rows * off->cols;
    float *dd = malloc(sizeof(float) * (n ? n : 1));
    if (!dd) return;
    for (size_t i = 0; i < n; i++) {
        float a = off->data[i], b = on->data[i];
        dd[i] = isinf(a) || isinf(b) ? -INFINITY : tf_sat(a - b);
    }
    tf_stage diff = *off;
    diff.data = dd;
    diff.kind = TF_KIND_SIGNED;
    // the header: where, what, and what is switched off
    layout Lh;
    matrix_layout(cr, t, off, o, w, h, 0, &Lh);
    double fs = Lh.fs, pad = fs * 0.9;
    char title[400], parts[300], sub[700];
    render_stage_title(t, stage, o, title, sizeof title);
    render_text_style ts = render_style(fs * 1.5, th.fg);
    ts.bold = 1;
    double y = pad * 0.8;
    y += render_heading(cr, title, pad, y, w, o, &ts);
    render_without_text(o, t->without, parts, sizeof parts);
    snprintf(sub, sizeof sub, render_tr(o, "What if: without %s. The stage with every part, without, and their difference (without − with)."), parts);
    render_text_style ss = render_style(fs, th.accent);
    ss.bold = 1;
    y += render_heading(cr, sub, pad, y + fs * 0.15, w, o, &ss) + fs * 0.6;
    // the three panels, one scale for the first two, a diverging one for the difference
    int prob = off->kind == TF_KIND_PROB;
    const tf_stage *both[2] = {on, off};
    scale sc, sd;
    scale_for(&sc, both, 2, o);
    render_opts od = *o;
    od.cmap_set = 1;
    od.cmap = o->cmap_set && render_cmap_is_diverging(o->cmap) ? o->cmap : RENDER_CMAP_RDBU;
    const tf_stage *dp = &diff;
    scale_for(&sd, &dp, 1, &od);
    // Wide: three panels in a row, the colour bars and numbers below. Narrow
    // (the window's middle): with and without side by side, the difference
    // under them, the colour bars and numbers beside it.
    double top = y + fs * 0.4, avail = h - top;
    int wide = w >= 2.6 * avail;
    double pw = wide ? (w - 2 * pad) / 3 : (w - 2 * pad) / 2, ph = wide ? avail - fs * 6.6 : avail / 2;
    double xs[3], ys[3];
    for (int k = 0; k < 3; k++) { // the left panel is the start of reading: at the right in a right-to-left language
        int col = wide ? k : k % 2, cols = wide ? 3 : 2;
        xs[k] = o->rtl ? pad + (cols - 1 - col) * pw : pad + col * pw;
        ys[k] = wide || k < 2 ? top : top + ph;
    }
    char cap[300];
    compare_panel(cr, t, on, &sc, o, &th, xs[0], ys[0], pw * 0.97, ph, render_tr(o, "With every part"), prob);
    snprintf(cap, sizeof cap, render_tr(o, "Without %s"), parts);
    compare_panel(cr, t, off, &sc, o, &th, xs[1], ys[1], pw * 0.97, ph, cap, prob);
    compare_panel(cr, t, &diff, &sd, &od, &th, xs[2], ys[2], pw * 0.97, ph, render_tr(o, "Difference: without − with"), 0);
    // the colour bars, and what changed, in numbers
    double bw = fmin(pw * 0.6, fs * 18);
    double lx = wide ? pad : (o->rtl ? pad : pad + pw), ly = wide ? h - fs * 6.6 : top + ph, lw = wide ? w - 2 * pad : pw;
    if (wide) {
        compare_bar(cr, &sc, fmin(xs[0], xs[1]) + pw - bw / 2, ly + fs * 1.6, bw, fs, render_tr(o, prob ? N_("probability (with and without)") : N_("value (with and without)")), &th, o->rtl);
        compare_bar(cr, &sd, xs[2] + (pw - bw) / 2, ly + fs * 1.6, bw, fs, render_tr(o, "difference"), &th, o->rtl);
    } else {
        compare_bar(cr, &sc, lx + (lw - bw) / 2, ly + fs * 2.6, bw, fs, render_tr(o, prob ? N_("probability (with and without)") : N_("value (with and without)")), &th, o->rtl);
        compare_bar(cr, &sd, lx + (lw - bw) / 2, ly + fs * 6.6, bw, fs, render_tr(o, "difference"), &th, o->rtl);
    }
    char line[600];
    render_text_style ls = render_style(fs, th.fg);
    ls.width = lw;
    ls.dir = o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    ls.align = o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    if (prob) {
        int oh_on, oh_off;
        double h_on, h_off;
        render_prob_rows(on, &oh_on, &h_on);
        render_prob_rows(off, &oh_off, &h_off);
        snprintf(line, sizeof line, render_tr(o, "Rows almost one-hot (largest weight ≥ 0.99): %d of %d with every part, %d of %d without. "
                                                 "Mean entropy: %.2f bits with, %.2f bits without (uniform: %.2f)."),
                 oh_on, off->rows, oh_off, off->rows, h_on, h_off, log2(fmax(1, off->cols)));
    } else {
        double most = 0, mean = 0;
        size_t at = 0, counted = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(dd[i])) continue;
            mean += fabs(dd[i]);
            counted++;
            if (fabs(dd[i]) > most) { most = fabs(dd[i]); at = i; }
        }
        char b1[32], b2[32], lb[16];
        snprintf(line, sizeof line, render_tr(o, "Largest change: %s at row %s, column %d; mean change %s."),
                 render_format_value((float)most, b1, sizeof b1, 3), render_axis_label(t, off->row_axis, (int)(at / (size_t)off->cols), o, lb, sizeof lb),
                 (int)(at % (size_t)off->cols), render_format_value((float)(counted ? mean / counted : 0), b2, sizeof b2, 3));
    }
    render_text(cr, line, lx, wide ? h - fs * 2.2 : ly + fs * 9.6, &ls);
    free(dd);
}
