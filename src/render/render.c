// render.c — views, options and theme, and the one entry point that draws a
// view of a stage.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *view_names[RENDER_VIEW_COUNT] = {
    "auto", "matrix", "heatmap", "heads", "grid", "pe-heatmap", "pe-curves", "pe-similarity", "architecture", "arithmetic",
    "lines", "lines-heads", "top-k", "compare-length", "side-by-side", "compare", "loss", "beam"};

void render_opts_default(render_opts *o) {
    memset(o, 0, sizeof *o);
    o->text_scale = 1.0;
    o->cell_row = o->cell_col = -1;
    o->focus_row = o->focus_col = -1;
    o->time_step = -1;
}

const char *render_tr(const render_opts *o, const char *msgid) {
    return o && o->translate && msgid && *msgid ? o->translate(msgid) : msgid;
}

render_theme render_theme_get(const render_opts *o) {
    if (o && o->high_contrast)
        return (render_theme){.bg = {0, 0, 0}, .fg = {1, 1, 1}, .muted = {0.85, 0.85, 0.85}, .grid = {0.6, 0.6, 0.6},
                              .accent = {1.0, 0.85, 0.0}, .panel = {0.12, 0.12, 0.12},
                              .mask_a = {0.25, 0.25, 0.25}, .mask_b = {0.75, 0.75, 0.75}};
    return (render_theme){.bg = {1, 1, 1}, .fg = {0.10, 0.10, 0.12}, .muted = {0.40, 0.40, 0.45}, .grid = {0.80, 0.80, 0.82},
                          .accent = {0.90, 0.38, 0.0}, .panel = {0.96, 0.96, 0.97},
                          .mask_a = {0.86, 0.86, 0.86}, .mask_b = {0.62, 0.62, 0.62}};
}

void render_set_rgb(cairo_t *cr, render_rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

const char *render_view_name(render_view v) { return v < RENDER_VIEW_COUNT ? view_names[v] : "?"; }
const char *render_view_names(void) {
    return "heatmap, matrix, heads, grid, lines, lines-heads, top-k, pe-heatmap, pe-curves, pe-similarity, architecture, arithmetic, "
           "compare-length, side-by-side, compare, loss, beam";
}

const char *render_axis_label(const tf_trace *t, tf_axis axis, int i, const render_opts *o, char *buf, size_t n) {
    if (axis != TF_AXIS_LAYER) return tf_axis_label(t, axis, i, buf, n);
    snprintf(buf, n, render_tr(o, "layer %d"), i + 1);
    return buf;
}

// ---------------------------------------------------------------- shapes the diagrams share
void render_rounded(cairo_t *cr, render_rect r, double rad) {
    rad = fmin(rad, fmin(r.w, r.h) / 2);
    cairo_new_sub_path(cr);
    cairo_arc(cr, r.x + r.w - rad, r.y + rad, rad, -M_PI / 2, 0);
    cairo_arc(cr, r.x + r.w - rad, r.y + r.h - rad, rad, 0, M_PI / 2);
    cairo_arc(cr, r.x + rad, r.y + r.h - rad, rad, M_PI / 2, M_PI);
    cairo_arc(cr, r.x + rad, r.y + rad, rad, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

void render_arrow(cairo_t *cr, double x0, double y0, double x1, double y1, double head) {
    double a = atan2(y1 - y0, x1 - x0);
    double bx = x1 - head * cos(a), by = y1 - head * sin(a);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, bx, by);
    cairo_stroke(cr);
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, bx + head * 0.42 * sin(a), by - head * 0.42 * cos(a));
    cairo_line_to(cr, bx - head * 0.42 * sin(a), by + head * 0.42 * cos(a));
    cairo_close_path(cr);
    cairo_fill(cr);
}

// ---------------------------------------------------------------- what if?
const char *render_part_name(const render_opts *o, int part) {
    static const char *const names[TF_WITHOUT_PARTS] = {N_("positional encoding"), N_("the division by √d_k"), N_("the causal mask"),
                                                        N_("the residual connections")};
    return part >= 0 && part < TF_WITHOUT_PARTS ? render_tr(o, names[part]) : "?";
}

const char *render_without_text(const render_opts *o, int without, char *buf, size_t n) {
    size_t k = 0;
    if (n) buf[0] = 0;
    for (int p = 0; p < TF_WITHOUT_PARTS && k < n; p++) {
        if (!(without & (1 << p))) continue;
        int w = snprintf(buf + k, n - k, "%s%s", k ? render_tr(o, ", ") : "", render_part_name(o, p));
        if (w > 0) k += (size_t)w;
    }
    return buf;
}


int render_view_parse(const char *name, render_view *out) {
    for (int i = 0; i < RENDER_VIEW_COUNT; i++)
        if (!strcmp(name, view_names[i])) { *out = (render_view)i; return 0; }
    return -1;
}

render_view render_view_for(const tf_trace *t, int stage) {
    if (stage < 0 || stage >= t->n) return RENDER_VIEW_ARCHITECTURE;
    return tf_stage_is_attention_square(&t->stages[stage]) ? RENDER_VIEW_HEATMAP : RENDER_VIEW_MATRIX;
}

int render_view_check(const tf_trace *t, int stage, render_view v, const render_opts *o, char *why, size_t n) {
    const tf_stage *s = stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    switch (v) {
    case RENDER_VIEW_HEATMAP:
    case RENDER_VIEW_MATRIX:
        if (!s) { snprintf(why, n, "the %s view needs a stage; give --stage ID", view_names[v]); return -1; }
        return 0;
    case RENDER_VIEW_HEADS:
    case RENDER_VIEW_GRID:
        if (!s || s->head < 0) {
            snprintf(why, n, "the %s view shows attention heads; choose a stage such as enc.0.self_attn.head.0.weights", view_names[v]);
            return -1;
        }
        return 0;
    case RENDER_VIEW_LINES:
    case RENDER_VIEW_LINES_HEADS:
        if (!s || !render_lines_fit(s) || (v == RENDER_VIEW_LINES_HEADS && s->head < 0)) {
            snprintf(why, n, "the %s view draws attention weights%s; choose a stage such as enc.0.self_attn.head.0.weights", view_names[v],
                     v == RENDER_VIEW_LINES_HEADS ? " of a layer's heads" : "");
            return -1;
        }
        return 0;
    case RENDER_VIEW_TOPK:
        if (!s || s->col_axis != TF_AXIS_VOCAB) { snprintf(why, n, "the top-k view shows the most likely next tokens; choose out.probs or out.logits"); return -1; }
        return 0;
    case RENDER_VIEW_BEAM:
        if (!s || s->side != TF_SIDE_OUT) { snprintf(why, n, "the beam view shows how the output was chosen; choose out.probs or out.logits"); return -1; }
        if (!t->beam) { snprintf(why, n, "the beam view draws beam search; give --beam K (the paper: --beam 4)"); return -1; }
        return 0;
    case RENDER_VIEW_ARITHMETIC:
        if (!s) { snprintf(why, n, "the arithmetic view needs a stage and --cell ROW,COL"); return -1; }
        if (o->cell_row < 0 || o->cell_col < 0) { snprintf(why, n, "the arithmetic view needs --cell ROW,COL (0-based) of %s", s->id); return -1; }
        if (o->cell_row >= s->rows || o->cell_col >= s->cols) {
            snprintf(why, n, "cell %d,%d is outside %s, which is %d × %d; rows go 0..%d and columns 0..%d", o->cell_row, o->cell_col,
                     s->id, s->rows, s->cols, s->rows - 1, s->cols - 1);
            return -1;
        }
        return 0;
    case RENDER_VIEW_COMPARE_LENGTH:
        if (!o->compare || o->compare->n_models < 1) {
            snprintf(why, n, "the compare-length view measures models on a held-out file; give them as --model A --model B …");
            return -1;
        }
        return 0;
    case RENDER_VIEW_SIDE_BY_SIDE:
        if (!o->beside) {
            snprintf(why, n, "the side-by-side view needs a second model: give two --model (a Transformer and a recurrent model)");
            return -1;
        }
        return 0;
    case RENDER_VIEW_COMPARE:
        if (!s) { snprintf(why, n, "the compare view needs a stage; give --stage ID"); return -1; }
        if (!o->with_all || !t->without) {
            snprintf(why, n, "the compare view sets a stage beside itself with parts switched off; give --without pe,scale,mask,residual");
            return -1;
        }
        if (o->with_all->n != t->n || stage >= o->with_all->n || o->with_all->stages[stage].rows != s->rows ||
            o->with_all->stages[stage].cols != s->cols) {
            snprintf(why, n, "the two runs to compare differ in shape; compare runs of one model on one sentence");
            return -1;
        }
        return 0;
    default:
        return 0;
    }
}

void render_default_size(const tf_trace *t, int stage, render_view v, double *w, double *h) {
    *w = 1200;
    *h = 900;
    const tf_stage *s = stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    switch (v) {
    case RENDER_VIEW_ARCHITECTURE: *w = 1000; *h = 1100; break;
    case RENDER_VIEW_ARITHMETIC: *w = 1000; *h = 800; break;
    case RENDER_VIEW_PE_CURVES: *w = 1200; *h = 700; break;
    case RENDER_VIEW_HEADS: *w = 1600; *h = 900; break;
    case RENDER_VIEW_GRID: *w = 1800; *h = 1400; break;
    case RENDER_VIEW_LINES:
    case RENDER_VIEW_LINES_HEADS:
        *w = 1200;
        if (s) *h = fmin(fmax(300 + (s->rows > s->cols ? s->rows : s->cols) * 40, 600), 1600);
        break;
    case RENDER_VIEW_TOPK:
        *w = 1400;
        if (s) *h = fmin(fmax(260 + s->rows * 46, 500), 2400);
        break;
    case RENDER_VIEW_COMPARE_LENGTH: *w = 1200; *h = 760; break;
    case RENDER_VIEW_SIDE_BY_SIDE: *w = 1800; *h = 900; break;
    case RENDER_VIEW_LOSS: *w = 1200; *h = 700; break;
    case RENDER_VIEW_BEAM:
        if (t->beam) {
            *w = fmin(fmax(1200, 180.0 * (t->beam->n_steps + 1)), 4000);
            *h = fmin(fmax(600, 260 + 2 * t->beam->K * 64.0), 2400);
        }
        break;
    case RENDER_VIEW_COMPARE:
        *w = 1800;
        if (s) *h = fmin(fmax(330 + s->rows * fmin(60, 520.0 / fmax(s->cols, 1)), 560), 1100);
        break;
    case RENDER_VIEW_MATRIX:
    case RENDER_VIEW_HEATMAP:
    case RENDER_VIEW_AUTO:
        if (!s) break;
        if (s->cols > 64) *w = 1800;
        // Tall enough for the rows at the cell size the layout allows
        // (square cells of up to 112 px for attention, 48 px high otherwise),
        // plus the title and labels: no half-empty pictures of small matrices.
        int attn = s->head >= 0 && s->col_axis != TF_AXIS_DIM;
        double cell = attn ? fmin(112, (*w - 400) / s->cols) : 48;
        *h = fmin(fmax(240 + s->rows * cell, 420), 1100);
        break;
    default: break;
    }
}

void render_draw(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, render_view v, const render_opts *o,
                 double w, double h) {
    if (v == RENDER_VIEW_AUTO) v = render_view_for(t, stage);
    cairo_save(cr);
    switch (v) {
    case RENDER_VIEW_MATRIX:
    case RENDER_VIEW_HEATMAP: render_matrix(cr, t, stage, o, w, h); break;
    case RENDER_VIEW_HEADS: render_heads(cr, t, stage, o, w, h); break;
    case RENDER_VIEW_GRID: render_grid(cr, t, stage, o, w, h); break;
    case RENDER_VIEW_PE_HEATMAP: render_pe_heatmap(cr, m, o, w, h); break;
    case RENDER_VIEW_PE_CURVES: render_pe_curves(cr, m, o, w, h); break;
    case RENDER_VIEW_PE_SIMILARITY: render_pe_similarity(cr, m, o, w, h); break;
    case RENDER_VIEW_ARCHITECTURE: render_architecture(cr, t, m, stage, o, w, h, NULL, 0); break;
    case RENDER_VIEW_ARITHMETIC: render_arithmetic(cr, t, m, stage, o, w, h); break;
    case RENDER_VIEW_LINES: render_lines(cr, t, stage, 0, o, w, h); break;
    case RENDER_VIEW_LINES_HEADS: render_lines(cr, t, stage, 1, o, w, h); break;
    case RENDER_VIEW_TOPK: render_topk(cr, t, stage, o, w, h); break;
    case RENDER_VIEW_COMPARE_LENGTH: if (o->compare) render_compare_length(cr, o->compare, o, w, h); break;
    case RENDER_VIEW_SIDE_BY_SIDE: render_side_by_side(cr, t, m, o, w, h); break;
    case RENDER_VIEW_COMPARE: render_whatif_compare(cr, t, stage, o, w, h); break;
    case RENDER_VIEW_BEAM: render_beam(cr, t, o, w, h); break;
    case RENDER_VIEW_LOSS: {
        static const char *const none = "";
        if (o->n_models > 0) render_loss_compare(cr, o->models, o->model_names, o->n_models, o, w, h);
        else if (m) render_loss_compare(cr, &m, &none, 1, o, w, h);
        break;
    }
    default: break;
    }
    cairo_restore(cr);
}
