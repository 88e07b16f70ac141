// lines.c — attention as lines between words, the picture BertViz made
// familiar: the attended words (keys: the columns of the weights) in a column
// on the left, the attending words (queries: the rows) on the right, and a
// line for every pair whose opacity is its weight. One head in one colour, or
// every head of the layer in its own. A word under the mouse keeps only its
// lines and shows their weights.
//
// Any stage of probabilities between two token axes fits: the Transformer's
// self- and cross-attention weights, and a recurrent model's attention.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int render_lines_fit(const tf_stage *s) {
    int tok_r = s->row_axis == TF_AXIS_SRC || s->row_axis == TF_AXIS_TGT;
    int tok_c = s->col_axis == TF_AXIS_SRC || s->col_axis == TF_AXIS_TGT;
    return s->kind == TF_KIND_PROB && tok_r && tok_c;
}

// The colour of head h among the heads of a layer: Tableau 10, told apart by
// most readers with a colour-vision deficiency, on white and on black.
static render_rgb head_rgb(int h) {
    static const unsigned c[10] = {0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xB07AA1, 0x9C755F, 0xEDC948, 0xFF9DA7, 0xBAB0AC};
    unsigned v = c[h % 10];
    return (render_rgb){((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0};
}

typedef struct {
    double fs;               // base font size
    double header_h;         // title and subtitle
    double top, bottom;      // the band the words are spread over
    double xl, xr;           // the left column's words end at xl, the right column's start at xr
    double lab_w;            // room for a word
    double word_fs;
    double dy_l, dy_r;       // spacing of the words
    double y0_l, y0_r;       // centre of the first word
    int step_l, step_r;      // a label every n-th word (ticks for the others)
    double legend_y;         // the heads' colours (all heads), or 0
} lines_layout;

static int thin(double need, double have) {
    static const int steps[] = {1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) if (steps[i] * have >= need) return steps[i];
    return 100;
}

static double widest(cairo_t *cr, const tf_trace *t, tf_axis axis, int n, const render_text_style *st) {
    double mw = 0, w, h;
    char buf[16];
    for (int i = 0; i < n; i++) {
        render_text_size(cr, tf_axis_label(t, axis, i, buf, sizeof buf), st, &w, &h);
        if (w > mw) mw = w;
    }
    return mw;
}

static void lines_layout_of(cairo_t *cr, const tf_trace *t, const tf_stage *s, int all_heads, const render_opts *o, double w, double h,
                            lines_layout *L) {
    memset(L, 0, sizeof *L);
    L->fs = fmax(11, fmin(22, fmin(w / 75.0, h / 40.0))) * o->text_scale;
    double fs = L->fs, pad = fs * 0.9, line = o->rtl ? 1.8 : 1.35;
    L->header_h = pad * 0.8 + fs * 1.5 * line + fs * line + pad * 0.6;
    L->top = L->header_h + fs * 2.2; // the columns' captions
    L->bottom = h - pad - (all_heads ? fs * 2.6 : fs * 0.6);
    if (all_heads) L->legend_y = h - pad - fs * 1.6;
    int n = s->rows > s->cols ? s->rows : s->cols;
    double band = fmax(L->bottom - L->top, 1);
    double dy = fmin(band / n, fs * 3.4);
    L->word_fs = fmax(7, fmin(fs * 1.15, dy * 0.72));
    L->dy_l = fmin(band / s->cols, fs * 3.4);
    L->dy_r = fmin(band / s->rows, fs * 3.4);
    L->step_l = thin(L->word_fs * 1.2, L->dy_l);
    L->step_r = thin(L->word_fs * 1.2, L->dy_r);
    L->y0_l = L->top + (band - L->dy_l * s->cols) / 2 + L->dy_l / 2;
    L->y0_r = L->top + (band - L->dy_r * s->rows) / 2 + L->dy_r / 2;
    render_text_style st = render_style(L->word_fs, (render_rgb){0, 0, 0});
    st.bold = 1; // as wide as a highlighted word
    double lw = fmax(widest(cr, t, s->col_axis, s->cols, &st), widest(cr, t, s->row_axis, s->rows, &st));
    L->lab_w = fmin(lw + fs * 0.4, w * 0.22);
    // the lines take the middle; the words their widths on either side (and
    // room for the weights shown beside a hovered word's partners)
    double num_w = fs * 3.2;
    L->xl = fmax(pad + L->lab_w + num_w, w * 0.2);
    L->xr = w - L->xl;
}

static double word_y(const lines_layout *L, int right, int i) { return right ? L->y0_r + i * L->dy_r : L->y0_l + i * L->dy_l; }

// The stages drawn: stage alone, or every head of its layer.
static int stages_of(const tf_trace *t, int stage, int all_heads, int *out, int max) {
    if (!all_heads || t->stages[stage].head < 0) { out[0] = stage; return 1; }
    int n = 0, k;
    for (int h = 0; n < max && (k = tf_stage_other_head(t, stage, h)) >= 0; h++) out[n++] = k;
    return n ? n : (out[0] = stage, 1);
}

static void header(cairo_t *cr, const tf_trace *t, int stage, int all_heads, int n_heads, const lines_layout *L, const render_theme *th,
                   const render_opts *o, double w) {
    const tf_stage *s = &t->stages[stage];
    char title[400], sub[600], base[300];
    render_stage_title(t, stage, o, base, sizeof base);
    if (all_heads && n_heads > 1) {
        // "Decoder layer 2 · Cross-attention · Head 1 — Attention weights": the head's part replaced by "all 4 heads"
        char heads[64];
        snprintf(heads, sizeof heads, render_tr(o, "all %d heads"), n_heads);
        char one[48];
        snprintf(one, sizeof one, render_tr(o, "Head %d"), s->head + 1);
        char *at = strstr(base, one);
        if (at) snprintf(title, sizeof title, "%.*s%s%s", (int)(at - base), base, heads, at + strlen(one));
        else snprintf(title, sizeof title, "%s · %s", base, heads);
    } else snprintf(title, sizeof title, "%s", base);
    double pad = L->fs * 0.9;
    render_text_style ts = render_style(L->fs * 1.5, th->fg);
    ts.bold = 1;
    double y = pad * 0.8;
    y += render_heading(cr, title, pad, y, w, o, &ts);
    const char *how = render_tr(o, "a line per pair of words, as opaque as its weight; hover a word for its lines alone");
    if (o->rtl) snprintf(sub, sizeof sub, "\u2068%s\u2069    ·    %s", render_tr(o, s->formula), how);
    else snprintf(sub, sizeof sub, "%s    ·    %s", s->formula, how);
    render_text_style ss = render_style(L->fs, th->muted);
    render_heading(cr, sub, pad, y + L->fs * 0.15, w, o, &ss);
}

void render_lines(cairo_t *cr, const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (stage < 0 || stage >= t->n || !render_lines_fit(&t->stages[stage])) return;
    const tf_stage *s = &t->stages[stage];
    int ids[TF_MAX_H];
    int nh = stages_of(t, stage, all_heads, ids, TF_MAX_H);
    all_heads = all_heads && nh > 1;
    lines_layout L;
    lines_layout_of(cr, t, s, all_heads, o, w, h, &L);
    header(cr, t, stage, all_heads, nh, &L, &th, o, w);
    int fr = o->focus_row >= 0 && o->focus_row < s->rows ? o->focus_row : -1;
    int fc = fr < 0 && o->focus_col >= 0 && o->focus_col < s->cols ? o->focus_col : -1;
    // the columns' captions
    render_text_style cs = render_style(L.fs * 0.95, th.muted);
    cs.italic = !o->rtl;
    cs.align = RENDER_ALIGN_RIGHT;
    cs.max_width = L.xl - L.fs;
    // (just above each column's first word)
    render_text(cr, render_axis_caption(s, 1, o), L.xl, fmax(L.header_h, L.y0_l - L.dy_l / 2 - L.fs * 1.9), &cs);
    cs.align = RENDER_ALIGN_LEFT;
    render_text(cr, render_axis_caption(s, 0, o), L.xr, fmax(L.header_h, L.y0_r - L.dy_r / 2 - L.fs * 1.9), &cs);
    // the lines: from the end of an attended word to the start of an attending one
    double gap = L.fs * 0.5, x0 = L.xl + gap, x1 = L.xr - gap;
    double lw = fmax(1.2, fmin(fmin(L.dy_l, L.dy_r) * 0.16, L.fs * 0.28));
    render_rgb one = o->high_contrast ? th.accent : (render_rgb){0.13, 0.37, 0.72};
    cairo_save(cr);
    cairo_set_line_width(cr, lw);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_FAST); // (hundreds of long thin lines: cairo's quicker rasteriser)
    for (int k = 0; k < nh; k++) {
        const tf_stage *hs = &t->stages[ids[k]];
        if (hs->rows != s->rows || hs->cols != s->cols) continue;
        render_rgb c = all_heads ? head_rgb(k) : one;
        for (int i = 0; i < s->rows; i++) {
            if (fr >= 0 && i != fr) continue;
            for (int j = 0; j < s->cols; j++) {
                if (fc >= 0 && j != fc) continue;
                float v = hs->data[(size_t)i * s->cols + j];
                if (!(v >= 0.005f)) continue; // invisible (and masked weights are 0)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, v > 1 ? 1 : v);
                cairo_move_to(cr, x0, word_y(&L, 0, j));
                cairo_line_to(cr, x1, word_y(&L, 1, i));
                cairo_stroke(cr);
            }
        }
    }
    cairo_restore(cr);
    // the words, a label every step-th (a tick for the others); the hovered one
    // and its partners stand out, with their weights beside them (one head)
    char buf[16], num[32];
    const float *d = s->data;
    for (int side = 0; side < 2; side++) {
        int n = side ? s->rows : s->cols, step = side ? L.step_r : L.step_l, focus = side ? fr : fc, other = side ? fc : fr;
        tf_axis axis = side ? s->row_axis : s->col_axis;
        for (int i = 0; i < n; i++) {
            double y = word_y(&L, side, i);
            int hot = focus == i, partner = other >= 0;
            float wgt = partner ? (side ? d[(size_t)i * s->cols + other] : d[(size_t)other * s->cols + i]) : 0;
            if (i % step && !hot) {
                render_set_rgb(cr, th.grid);
                cairo_set_line_width(cr, 1);
                cairo_move_to(cr, side ? L.xr - gap * 0.8 : L.xl + gap * 0.2, y);
                cairo_rel_line_to(cr, gap * 0.6, 0);
                cairo_stroke(cr);
                continue;
            }
            render_text_style ws = render_style(L.word_fs, hot ? th.accent : th.fg);
            ws.bold = hot;
            ws.align = side ? RENDER_ALIGN_LEFT : RENDER_ALIGN_RIGHT;
            ws.max_width = L.lab_w;
            double tw, tht;
            const char *lab = render_axis_label(t, axis, i, o, buf, sizeof buf);
            render_text_size(cr, lab, &ws, &tw, &tht);
            render_text(cr, lab, side ? L.xr : L.xl, y - tht / 2, &ws);
            if (partner && !all_heads) { // the weight of the line to the hovered word
                render_text_style ns = render_style(L.word_fs * 0.8, wgt >= 0.005f ? th.fg : th.muted);
                ns.align = side ? RENDER_ALIGN_LEFT : RENDER_ALIGN_RIGHT;
                ns.mono = 1;
                render_format_value(wgt, num, sizeof num, 2);
                double nw, nh;
                render_text_size(cr, num, &ns, &nw, &nh);
                // beside the word, on its outer side
                double nx = side ? L.xr + fmin(tw, L.lab_w) + L.fs * 0.5 : L.xl - fmin(tw, L.lab_w) - L.fs * 0.5;
                render_text(cr, num, nx, y - nh / 2, &ns);
            }
        }
    }
    if (all_heads) { // the heads' colours, from the start side of the language
        render_text_style ls = render_style(L.fs * 0.9, th.fg);
        double x = L.fs * 0.9, sw = L.fs * 1.1, tw, tht;
        char lab[48];
        for (int k = 0; k < nh; k++) {
            snprintf(lab, sizeof lab, render_tr(o, "Head %d"), t->stages[ids[k]].head + 1);
            render_text_size(cr, lab, &ls, &tw, &tht);
            if (x + sw + tw > w) break;
            double bx = o->rtl ? w - x - sw : x, tx = o->rtl ? w - x - sw - L.fs * 0.35 - tw : x + sw + L.fs * 0.35;
            render_set_rgb(cr, head_rgb(k));
            cairo_rectangle(cr, bx, L.legend_y + (tht - sw) / 2, sw, sw);
            cairo_fill(cr);
            render_text(cr, lab, tx, L.legend_y, &ls);
            x += sw + tw + L.fs * 1.6;
        }
    }
}

// The layout of a stage drawn as lines at this size, measured on a scratch
// surface; NULL when the stage is not drawn as lines.
static const tf_stage *layout_at(const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h, lines_layout *L) {
    if (stage < 0 || stage >= t->n || !render_lines_fit(&t->stages[stage])) return NULL;
    const tf_stage *s = &t->stages[stage];
    int ids[TF_MAX_H];
    all_heads = all_heads && stages_of(t, stage, all_heads, ids, TF_MAX_H) > 1;
    cairo_surface_t *one = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(one);
    lines_layout_of(cr, t, s, all_heads, o, w, h, L);
    cairo_destroy(cr);
    cairo_surface_destroy(one);
    return s;
}

int render_lines_hit(const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h, double x, double y, int *row,
                     int *col) {
    lines_layout L;
    const tf_stage *s = layout_at(t, stage, all_heads, o, w, h, &L);
    if (!s) return -1;
    // a word's band: its row of the column, from the edge of its label to the middle of the lines
    double mid = (L.xl + L.xr) / 2;
    int right = x >= mid;
    if (right ? x > L.xr + L.lab_w + L.fs : x < L.xl - L.lab_w - L.fs) return -1;
    if (fabs(x - mid) < (L.xr - L.xl) * 0.3) return -1; // the middle of the lines: no word
    double dy = right ? L.dy_r : L.dy_l, y0 = right ? L.y0_r : L.y0_l;
    int n = right ? s->rows : s->cols, i = (int)floor((y - y0) / dy + 0.5);
    if (i < 0 || i >= n || fabs(y - (y0 + i * dy)) > fmax(dy / 2, 1)) return -1;
    *row = right ? i : -1;
    *col = right ? -1 : i;
    return 0;
}

int render_lines_anchor(const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h, int right, int i, double *x,
                        double *y) {
    lines_layout L;
    const tf_stage *s = layout_at(t, stage, all_heads, o, w, h, &L);
    if (!s || i < 0 || i >= (right ? s->rows : s->cols)) return -1;
    double gap = L.fs * 0.5;
    *x = right ? L.xr - gap : L.xl + gap;
    *y = word_y(&L, right, i);
    return 0;
}
