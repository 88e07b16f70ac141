// unrolled.c — a recurrent model's map: the network unrolled in time, one
// cell per time step and layer. Time runs down the picture, as the rows of
// every matrix the window shows: the encoder's steps (in the order it reads
// them), the fixed-size v it hands on, then the decoder's steps. Across each
// row: the embedding, the layers, the attention (when the model has it) and
// the output. The stage being looked at lights its column; the time step
// being looked at lights its cell; the attention weights draw as arcs from a
// decoder step back to the encoder's steps.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef render_rect rect;

enum { COL_EMBED = 0 }; // then the layers, then (attention), then the output

typedef struct {
    int S, T, L, attn, ncol;
    double x0, lab_w, col_w, row_h, top, gap_h, fs, arc_w;
    double y_enc, y_v, y_dec; // where the encoder rows, the v gap and the decoder rows start
} geo;

static int col_attn(const geo *g) { return g->attn ? 1 + g->L : -1; }
static int col_out(const geo *g) { return 1 + g->L + g->attn; }

static rect cell(const geo *g, int dec, int row, int col) {
    double y = (dec ? g->y_dec : g->y_enc) + row * g->row_h;
    double x = g->x0 + g->lab_w + col * g->col_w;
    double px = g->col_w * 0.12, py = g->row_h * 0.14;
    return (rect){x + px, y + py, g->col_w - 2 * px, g->row_h - 2 * py};
}

// Which side, column and kind of place a stage is: dec 0/1, col, and v (enc.final).
static void place_of(const geo *g, const tf_stage *s, int *dec, int *col, int *v) {
    *dec = s->side == TF_SIDE_DEC || s->side == TF_SIDE_TGT || s->side == TF_SIDE_OUT;
    *v = s->op == TF_OP_FINAL_H || s->op == TF_OP_FINAL_C;
    if (s->op == TF_OP_EMBED) *col = COL_EMBED;
    else if (s->sublayer == TF_SUB_RECURRENT) *col = 1 + s->layer;
    else if (s->sublayer == TF_SUB_CROSS_ATTN) *col = col_attn(g);
    else if (s->side == TF_SIDE_OUT) *col = col_out(g);
    else *col = -1;
}

// The stage a click on a cell goes to: the same operation as the one looked at when it has one there.
static int target(const tf_trace *t, const geo *g, int stage, int dec, int col) {
    const tf_stage *s = stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    if (col == COL_EMBED) return tf_stage_lstm(t, dec ? TF_SIDE_TGT : TF_SIDE_SRC, -1, TF_OP_EMBED);
    if (col == col_attn(g)) return tf_stage_lstm(t, TF_SIDE_DEC, -1, s && s->sublayer == TF_SUB_CROSS_ATTN ? s->op : TF_OP_WEIGHTS);
    if (col == col_out(g)) return tf_stage_lstm(t, TF_SIDE_OUT, -1, s && s->side == TF_SIDE_OUT ? s->op : TF_OP_PROBS);
    tf_op op = s && s->sublayer == TF_SUB_RECURRENT ? s->op : TF_OP_HIDDEN;
    return tf_stage_lstm(t, dec ? TF_SIDE_DEC : TF_SIDE_ENC, col - 1, op);
}

int render_unrolled(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o, double w, double h,
                    render_arch_box *boxes, int max) {
    (void)m;
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    int fin = tf_stage_lstm(t, TF_SIDE_ENC, -1, TF_OP_FINAL_H);
    if (!t || fin < 0) return 0;
    geo g = {0};
    g.S = t->S;
    g.T = t->T;
    g.L = t->stages[fin].rows;
    int wi = tf_stage_lstm(t, TF_SIDE_DEC, -1, TF_OP_WEIGHTS);
    g.attn = wi >= 0;
    g.ncol = 2 + g.L + g.attn;
    double ts = o && o->text_scale > 0 ? o->text_scale : 1, pad = fmin(w, h) * 0.03;
    // rows: header (column names) + S + gap (v) + T; the row height from the height, capped
    double head_fs = fmin(15 * ts, w / 22);
    g.top = pad + head_fs * 2.6;
    double rows = g.S + g.T + 1.6;
    g.row_h = fmin(44 * ts, (h - g.top - pad) / rows);
    g.gap_h = 1.6 * g.row_h;
    g.fs = fmin(13 * ts, g.row_h * 0.55);
    g.arc_w = g.attn ? w * 0.12 : 0;
    g.x0 = pad;
    g.lab_w = fmin(w * 0.28, 130 * ts);
    g.col_w = (w - 2 * pad - g.lab_w - g.arc_w) / g.ncol;
    int compact = g.col_w < 44 * ts; // a side panel: short names, no words in the cells
    if (compact) {
        g.lab_w = fmin(w * 0.24, 130 * ts);
        g.col_w = (w - 2 * pad - g.lab_w - g.arc_w) / g.ncol;
    }
    g.y_enc = g.top;
    g.y_v = g.y_enc + g.S * g.row_h;
    g.y_dec = g.y_v + g.gap_h;
    const tf_stage *s = stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    int lit_dec = -1, lit_col = -1, lit_v = 0;
    if (s) place_of(&g, s, &lit_dec, &lit_col, &lit_v);
    int step = o ? o->time_step : -1, steps = s ? tf_stage_time_steps(t, stage) : 0;
    if (step >= steps) step = -1;
    // title and column names
    render_text_style ht = render_style(head_fs, th.fg);
    ht.bold = 1;
    ht.max_width = w - 2 * pad;
    ht.align = o && o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    render_text(cr, render_tr(o, g.attn ? N_("The RNN with attention, unrolled in time") : N_("The seq2seq LSTM, unrolled in time")),
                o && o->rtl ? w - pad : pad, pad * 0.6, &ht);
    render_text_style cs = render_style(g.fs, th.muted);
    cs.align = RENDER_ALIGN_CENTER;
    cs.max_width = g.col_w * 1.1;
    char buf[160];
    for (int c = 0; c < g.ncol; c++) {
        if (c == COL_EMBED) snprintf(buf, sizeof buf, "%s", compact ? "E" : render_tr(o, "embed"));
        else if (c == col_attn(&g)) snprintf(buf, sizeof buf, "%s", compact ? "a" : render_tr(o, "attention"));
        else if (c == col_out(&g)) snprintf(buf, sizeof buf, "%s", compact ? "p" : render_tr(o, "output"));
        else if (compact) snprintf(buf, sizeof buf, "%d", c);
        else snprintf(buf, sizeof buf, render_tr(o, "layer %d"), c);
        render_text(cr, buf, g.x0 + g.lab_w + (c + 0.5) * g.col_w, g.top - g.fs * 1.6, &cs);
    }
    // the lit column of the lit side: a tint behind its cells
    if (lit_col >= 0 && !lit_v) {
        int n = lit_dec ? g.T : g.S;
        rect a = cell(&g, lit_dec, 0, lit_col), b = cell(&g, lit_dec, n - 1, lit_col);
        rect band = {a.x - g.col_w * 0.08, a.y - g.row_h * 0.1, a.w + g.col_w * 0.16, b.y + b.h - a.y + g.row_h * 0.2};
        render_rounded(cr, band, g.col_w * 0.15);
        cairo_set_source_rgba(cr, th.accent.r, th.accent.g, th.accent.b, 0.16);
        cairo_fill(cr);
    }
    double lw = (o && o->high_contrast ? 2.0 : 1.1) * fmax(0.6, g.row_h / 30), head = fmax(3, g.row_h * 0.18);
    // attention: from the attention cell of a decoder step to every encoder step of the top layer (the focused step only, when there is one)
    if (g.attn) {
        const tf_stage *ws = &t->stages[wi];
        int focus = lit_dec == 1 && step >= 0 ? step : -1;
        for (int r = 0; r < g.T && r < ws->rows; r++) {
            if (focus >= 0 && r != focus) continue;
            rect a = cell(&g, 1, r, col_attn(&g));
            for (int k = 0; k < g.S && k < ws->cols; k++) {
                double wt = ws->data[(size_t)r * ws->cols + k];
                rect e = cell(&g, 0, k, g.L);
                // behind the cells (drawn after): out of the top encoder layer, through the right margin, into the attention cell
                double x1 = e.x + e.w, y1 = e.y + e.h / 2, x0 = a.x + a.w, y0 = a.y + a.h / 2;
                double xr = g.x0 + g.lab_w + g.ncol * g.col_w + g.arc_w * (0.25 + 0.7 * (y0 - y1) / h);
                cairo_set_source_rgba(cr, th.accent.r, th.accent.g, th.accent.b, focus >= 0 ? fmin(1, 0.1 + wt) : 0.05 + 0.3 * wt);
                cairo_set_line_width(cr, lw * (focus >= 0 ? 1 + 5 * wt : 1 + 2 * wt));
                cairo_move_to(cr, x0, y0);
                cairo_curve_to(cr, xr, y0, xr, y1, x1, y1);
                cairo_stroke(cr);
            }
        }
    }
    // the cells, their labels and the arrows between them
    render_text_style ls = render_style(g.fs, th.fg), in = render_style(g.fs * 0.85, th.muted);
    ls.align = RENDER_ALIGN_RIGHT;
    ls.max_width = g.lab_w - 6;
    in.align = RENDER_ALIGN_CENTER;
    in.max_width = g.col_w * 0.9;
    int n_box = 0;
    for (int dec = 0; dec < 2; dec++) {
        int n = dec ? g.T : g.S;
        tf_axis ax = dec ? TF_AXIS_TGT : TF_AXIS_SRC;
        for (int r = 0; r < n; r++) {
            const char *tok = render_axis_label(t, ax, r, o, buf, sizeof buf);
            rect c0 = cell(&g, dec, r, 0);
            render_text(cr, tok, g.x0 + g.lab_w - 6, c0.y + c0.h / 2 - g.fs * 0.7, &ls);
            for (int c = 0; c < g.ncol; c++) {
                if (!dec && c > g.L) continue; // the encoder has no attention or output
                rect b = cell(&g, dec, r, c);
                int is_lstm = c >= 1 && c <= g.L;
                int here = lit_col == c && lit_dec == dec && !lit_v && step == r;
                render_rounded(cr, b, is_lstm ? b.h * 0.3 : b.h * 0.15);
                render_set_rgb(cr, here ? th.accent : is_lstm ? th.panel : th.bg);
                cairo_fill_preserve(cr);
                render_set_rgb(cr, here ? th.accent : th.grid);
                cairo_set_line_width(cr, lw);
                cairo_stroke(cr);
                if (compact) {
                } else if (c == COL_EMBED || c == col_out(&g) || c == col_attn(&g)) {
                    const char *what = c == COL_EMBED ? "E" : c == col_attn(&g) ? "a" : "p";
                    render_set_rgb(cr, th.muted);
                    render_text_style q = in;
                    if (here) q.color = th.bg;
                    render_text(cr, what, b.x + b.w / 2, b.y + b.h / 2 - g.fs * 0.6, &q);
                } else if (is_lstm) {
                    render_text_style q = in;
                    q.color = here ? th.bg : th.fg;
                    render_text(cr, "LSTM", b.x + b.w / 2, b.y + b.h / 2 - g.fs * 0.6, &q);
                }
                // across: into the next column; down: the state carried to the next step
                render_set_rgb(cr, th.fg);
                cairo_set_line_width(cr, lw);
                if (c + 1 < g.ncol && (dec || c < g.L)) {
                    rect nb = cell(&g, dec, r, c + 1);
                    render_arrow(cr, b.x + b.w, b.y + b.h / 2, nb.x, nb.y + nb.h / 2, head);
                }
                if (is_lstm && r + 1 < n) {
                    rect nb = cell(&g, dec, r + 1, c);
                    render_arrow(cr, b.x + b.w / 2, b.y + b.h, nb.x + nb.w / 2, nb.y, head);
                }
                if (boxes && n_box < max) {
                    int k = target(t, &g, stage, dec, c);
                    boxes[n_box] = (render_arch_box){b.x, b.y, b.w, b.h, TF_BLOCK_NONE, NULL, k, r};
                }
                n_box++;
            }
        }
    }
    // v: the encoder's last state of every layer, the decoder's first
    for (int l = 0; l < g.L; l++) {
        rect a = cell(&g, 0, g.S - 1, 1 + l), b = cell(&g, 1, 0, 1 + l);
        render_set_rgb(cr, lit_v ? th.accent : th.fg);
        cairo_set_line_width(cr, lit_v ? 2.5 * lw : 1.6 * lw);
        render_arrow(cr, a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y, head * 1.3);
    }
    rect va = cell(&g, 0, g.S - 1, 1), vb = cell(&g, 0, g.S - 1, g.L);
    rect vbox = {va.x, g.y_v + g.gap_h * 0.22, vb.x + vb.w - va.x, g.gap_h * 0.56};
    render_rounded(cr, vbox, vbox.h * 0.3);
    render_set_rgb(cr, lit_v ? th.accent : th.bg);
    cairo_fill_preserve(cr);
    render_set_rgb(cr, th.accent);
    cairo_set_line_width(cr, 1.5 * lw);
    cairo_stroke(cr);
    render_text_style vs = render_style(g.fs, lit_v ? th.bg : th.fg);
    vs.align = RENDER_ALIGN_CENTER;
    vs.bold = 1;
    vs.max_width = vbox.w;
    vs.dir = o && o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
    snprintf(buf, sizeof buf, render_tr(o, "v: the final (h, c) of %d layers × %d"), g.L, t->C);
    double tw = 0, th_ = 0;
    if (!compact) render_text_size(cr, buf, &vs, &tw, &th_);
    if (compact || tw > vbox.w - g.fs) snprintf(buf, sizeof buf, "v"); // the whole sentence where it fits
    render_text(cr, buf, vbox.x + vbox.w / 2, vbox.y + vbox.h / 2 - g.fs * 0.7, &vs);
    if (boxes && n_box < max) boxes[n_box] = (render_arch_box){vbox.x, vbox.y, vbox.w, vbox.h, TF_BLOCK_NONE, NULL, fin, -1};
    n_box++;
    render_text_style side = render_style(g.fs, th.muted);
    side.italic = 1;
    side.align = RENDER_ALIGN_RIGHT;
    side.max_width = g.lab_w - 6;
    render_text(cr, render_tr(o, "encoder"), g.x0 + g.lab_w - 6, g.top - g.fs * 1.6, &side);
    render_text(cr, render_tr(o, "decoder"), g.x0 + g.lab_w - 6, g.y_v + g.gap_h * 0.5 - g.fs * 0.7, &side);
    return n_box;
}
