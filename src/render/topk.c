// topk.c — the next-token guesses a learner can read: for every row of the
// output layer (a decoder position), its k most likely tokens as labelled
// bars of their probabilities, most likely first. The token greedy decoding
// takes (the most likely) is marked, and so is the typed target's next token
// when the target was typed; when that one is not among the k, an extra
// column shows where it ranks.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const render_rgb target_rgb = {0.0, 0.55, 0.33};

// The indices of the k largest values of p (n), largest first.
static int top_indices(const float *p, int n, int k, int *out) {
    int m = 0;
    for (int j = 0; j < n; j++) {
        if (!(p[j] == p[j])) continue;
        if (m == k && !(p[j] > p[out[m - 1]])) continue;
        int at = m < k ? m++ : m - 1;
        while (at > 0 && p[j] > p[out[at - 1]]) { out[at] = out[at - 1]; at--; }
        out[at] = j;
    }
    return m;
}

// The token the typed target puts after decoder position i: its next
// decoder input, and after the last one the end of the sentence.
static int target_of(const tf_trace *t, int i) {
    if (i + 1 < t->T) return tf_trace_vocab_id(t, t->tgt_labels[i + 1]);
    return tf_trace_vocab_id(t, t->eos);
}

// 1-based rank of column j in row p (n).
static int rank_of(const float *p, int n, int j) {
    int r = 1;
    for (int c = 0; c < n; c++) r += p[c] > p[j] || (p[c] == p[j] && c < j);
    return r;
}

static void outline(cairo_t *cr, double x, double y, double w, double h, render_rgb c, double lw) {
    render_set_rgb(cr, c);
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, x + lw / 2, y + lw / 2, w - lw, h - lw);
    cairo_stroke(cr);
}

void render_topk(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    if (stage < 0 || stage >= t->n || t->stages[stage].col_axis != TF_AXIS_VOCAB) return;
    const tf_stage *s = &t->stages[stage];
    // the probabilities: this stage's, or those computed from these logits
    int ps = s->kind == TF_KIND_PROB ? stage : tf_stage_with_op(t, stage, TF_OP_PROBS);
    const tf_stage *pr = ps >= 0 && t->stages[ps].rows == s->rows && t->stages[ps].cols == s->cols ? &t->stages[ps] : s;
    int logits = pr != s;
    int k = o->top_k > 0 ? o->top_k : 5;
    if (k > s->cols) k = s->cols;
    if (k > 50) k = 50;
    int typed = o->typed_target && s->row_axis == TF_AXIS_TGT;
    double fs = fmax(11, fmin(22, fmin(w / 75.0, h / 30.0))) * o->text_scale, pad = fs * 0.9, line = o->rtl ? 1.8 : 1.35;
    // header: title, then what is marked
    char title[300], sub[700];
    render_stage_title(t, stage, o, title, sizeof title);
    render_text_style ts = render_style(fs * 1.5, th.fg);
    ts.bold = 1;
    double y = pad * 0.8;
    y += render_heading(cr, title, pad, y, w, o, &ts);
    char most[300];
    snprintf(most, sizeof most, render_tr(o, "each row's %d most likely next tokens, most likely first"), k);
    if (logits) snprintf(most + strlen(most), sizeof most - strlen(most), " · %s", render_tr(o, "z: the logit"));
    snprintf(sub, sizeof sub, o->rtl ? "\u2068%s\u2069    ·    %s" : "%s    ·    %s", render_tr(o, s->formula), most);
    render_text_style ss = render_style(fs, th.muted);
    y += render_heading(cr, sub, pad, y + fs * 0.15, w, o, &ss) + fs * 0.5;
    // the legend: the chosen token, the typed target
    {
        render_text_style ls = render_style(fs * 0.9, th.fg);
        ls.dir = o->rtl ? RENDER_DIR_RTL : RENDER_DIR_AUTO;
        const char *items[2] = {render_tr(o, "chosen: the most likely, what greedy decoding takes"), render_tr(o, "the typed target's next token")};
        render_rgb cols[2] = {th.accent, target_rgb};
        double x = o->rtl ? w - pad : pad, sw = fs * 1.3, tw, tht;
        for (int n = 0; n < (typed ? 2 : 1); n++) {
            render_text_size(cr, items[n], &ls, &tw, &tht);
            double bx = o->rtl ? x - sw : x;
            outline(cr, bx, y + (tht - sw) / 2, sw, sw, cols[n], fmax(2, fs * 0.18));
            ls.align = o->rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
            render_text(cr, items[n], o->rtl ? bx - fs * 0.4 : bx + sw + fs * 0.4, y, &ls);
            x += (o->rtl ? -1 : 1) * (sw + tw + fs * 2.2);
        }
        y += fs * line + fs * 0.6;
    }
    // the table: a row per decoder position, k cells and the target's column
    char buf[32], num[32];
    render_text_style rs = render_style(fs * 0.95, th.fg);
    double lw = 0, tw, tht;
    for (int i = 0; i < s->rows; i++) {
        render_text_size(cr, render_axis_label(t, s->row_axis, i, o, buf, sizeof buf), &rs, &tw, &tht);
        lw = fmax(lw, tw);
    }
    lw = fmin(lw, w * 0.16) + fs * 0.8;
    // column captions
    render_text_style cs = render_style(fs * 0.85, th.muted);
    cs.italic = !o->rtl;
    cs.max_width = lw + fs * 6;
    render_text(cr, render_tr(o, "decoder input"), pad, y, &cs);
    double left = pad + lw, ncol = k + (typed ? 1.2 : 0), cw = (w - left - pad) / ncol;
    cs.align = RENDER_ALIGN_CENTER;
    cs.max_width = cw * 0.95;
    cs.italic = 0;
    for (int c = 0; c < k; c++) {
        snprintf(buf, sizeof buf, "%d", c + 1);
        render_text(cr, buf, left + (c + 0.5) * cw, y, &cs);
    }
    if (typed) render_text(cr, render_tr(o, "typed target"), left + k * cw + 0.6 * cw, y, &cs);
    y += fs * line;
    double rh = fmin((h - y - pad) / s->rows, fs * 3.2), cfs = fmin(fs, rh * 0.38), gap = fmax(1, fmin(rh, cw) * 0.06);
    int top[50];
    for (int i = 0; i < s->rows; i++) {
        double ry = y + i * rh;
        const float *p = pr->data + (size_t)i * s->cols;
        int n = top_indices(p, s->cols, k, top), want = typed ? target_of(t, i) : -1, shown = 0;
        render_text_style ls = render_style(fmin(fs * 0.95, rh * 0.45), th.fg);
        ls.align = RENDER_ALIGN_RIGHT;
        ls.max_width = lw - fs * 0.6;
        const char *lab = render_axis_label(t, s->row_axis, i, o, buf, sizeof buf);
        render_text_size(cr, lab, &ls, &tw, &tht);
        render_text(cr, lab, left - fs * 0.6, ry + (rh - tht) / 2, &ls);
        for (int c = 0; c <= n; c++) {
            int j, col = c;
            if (c == n) { // the typed target, when it is not among the k
                if (want < 0 || shown) break;
                j = want;
                col = k;
            } else j = top[c];
            double cx = left + col * cw + (c == n ? 0.2 * cw : 0) + gap, cy = ry + gap, cwid = cw - 2 * gap, chh = rh - 2 * gap;
            render_set_rgb(cr, th.panel);
            cairo_rectangle(cr, cx, cy, cwid, chh);
            cairo_fill(cr);
            // the bar along the bottom of the cell, as long as the probability
            float v = p[j];
            double bh = chh * 0.28;
            render_set_rgb(cr, render_cmap_at(o->cmap_set ? o->cmap : RENDER_CMAP_VIRIDIS, v));
            cairo_rectangle(cr, cx, cy + chh - bh, cwid * fmin(fmax(v, 0), 1), bh);
            cairo_fill(cr);
            // the token at the start, its probability at the end
            int chosen = c == 0, is_target = j == want;
            shown |= is_target && c < n;
            render_text_style tk = render_style(cfs, th.fg);
            tk.bold = chosen || is_target;
            render_text_style ns = render_style(cfs * 0.9, th.muted);
            ns.mono = 1;
            ns.align = RENDER_ALIGN_RIGHT;
            if (c == n) snprintf(num, sizeof num, "#%d  ", rank_of(p, s->cols, j));
            else num[0] = 0;
            size_t nl = strlen(num);
            render_format_value(v, num + nl, sizeof num - nl, 3);
            double nw, nh;
            render_text_size(cr, num, &ns, &nw, &nh);
            double ty = cy + (chh - bh - nh) / 2;
            render_text(cr, num, cx + cwid - cfs * 0.4, ty, &ns);
            if (logits) { // the logit itself, small, before the probability
                render_text_style zs = ns;
                zs.size = cfs * 0.75;
                char z[40];
                snprintf(z, sizeof z, "z %s", render_format_value(s->data[(size_t)i * s->cols + j], buf, sizeof buf, 2));
                double zw, zh;
                render_text_size(cr, z, &zs, &zw, &zh);
                if (nw + zw + cfs * 4 < cwid) render_text(cr, z, cx + cwid - cfs * 0.8 - nw, ty + (nh - zh) / 2, &zs);
            }
            tk.max_width = fmax(cwid - nw - cfs * 1.2, cfs);
            const char *tok = render_axis_label(t, TF_AXIS_VOCAB, j, o, buf, sizeof buf);
            double kw, kh;
            render_text_size(cr, tok, &tk, &kw, &kh);
            render_text(cr, tok, cx + cfs * 0.4, cy + (chh - bh - kh) / 2, &tk);
            double olw = fmax(2, fmin(rh, cw) * 0.07);
            if (chosen) outline(cr, cx, cy, cwid, chh, th.accent, olw);
            if (is_target) outline(cr, cx + (chosen ? olw : 0), cy + (chosen ? olw : 0), cwid - (chosen ? 2 * olw : 0), chh - (chosen ? 2 * olw : 0),
                                   target_rgb, olw);
        }
    }
}
