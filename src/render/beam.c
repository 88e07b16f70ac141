// beam.c — the beam view: a beam search (tf.h "beam search", t->beam) as a
// tree over the decoding steps, as Seq2Seq-Vis draws it. A column a step,
// <bos> first; in each, the step's best candidates by log P, best on top,
// each a box with its token and the log P of its hypothesis so far, joined
// to the hypothesis it extends. The kept hypotheses are bold, the pruned
// faded, the ended ones carry their score, and the chosen translation's path
// is outlined. The tree grows from the side the target language starts on
// (right to left for Persian and Arabic). o->beam_steps > 0 shows only the
// first steps (the animation).
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// 1 when the token's first strong letter is right-to-left (Hebrew, Arabic, Persian).
static int rtl_token(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned c = *p;
        int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (n > 1) c &= 0xFFu >> (n + 1);
        for (int k = 1; k < n; k++) {
            if (!p[k]) return 0; // (a cut character)
            c = (c << 6) | (p[k] & 0x3Fu);
        }
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c < 0x590)) return 0;
        if ((c >= 0x590 && c <= 0x8FF) || (c >= 0xFB1D && c <= 0xFEFC)) return 1;
        p += n;
    }
    return 0;
}

// 1 when node i is on the path of the chosen hypothesis (parents come before their children).
static int on_choice(const tf_beam *b, int choice, int i) {
    int k = choice;
    while (k > i) k = b->node[k].parent;
    return choice >= 0 && k == i;
}

static render_rgb mix(render_rgb a, render_rgb b, double t) {
    return (render_rgb){a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

// The centre of node i (-1: the first decoder input, <bos>) of the tree laid out in columns of col_w
// from x0 (mirrored when rtl), rows of row_h from y0.
typedef struct { double x0, y0, col_w, row_h, box_w, box_h, w; int rtl; } geom;

static void centre(const tf_beam *b, const geom *g, int i, double *x, double *y) {
    int t = i < 0 ? -1 : tf_beam_step_of(b, i), r = i < 0 ? 0 : i - b->first[t];
    double cx = g->x0 + (t + 1 + 0.5) * g->col_w;
    *x = g->rtl ? g->w - cx : cx;
    *y = g->y0 + (r + 0.5) * g->row_h;
}

void render_beam(cairo_t *cr, const tf_trace *t, const render_opts *o, double w, double h) {
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    const tf_beam *b = t->beam;
    if (!b || !t->vocab) return;
    int steps = o->beam_steps > 0 && o->beam_steps < b->n_steps ? o->beam_steps : b->n_steps, rows = 2 * b->K;
    int done = steps == b->n_steps; // the choice is known once the search is over
    double fs = fmax(11, fmin(22, fmin(w / 70.0, h / 34.0))) * o->text_scale, pad = fs * 0.9;
    // heading: what it is, the score
    char title[300], sub[500], buf[600];
    snprintf(title, sizeof title, render_tr(o, "Beam search: beam size %d, length penalty α = %g"), b->K, b->alpha);
    render_text_style ts = render_style(fs * 1.5, th.fg);
    ts.bold = 1;
    double y = pad * 0.8;
    y += render_heading(cr, title, pad, y, w, o, &ts);
    snprintf(sub, sizeof sub, o->rtl ? "\u2068%s\u2069    ·    %s" : "%s    ·    %s", "s(Y) = log P(Y) / lp(Y),  lp(Y) = ((5 + |Y|) / 6)^α",
             render_tr(o, "each box: a token and the log-probability of its hypothesis so far"));
    render_text_style ss = render_style(fs, th.muted);
    y += render_heading(cr, sub, pad, y + fs * 0.15, w, o, &ss) + fs * 0.3;
    // the chosen translation
    int choice = done ? b->choice : -1;
    char chosen[600] = "";
    if (choice >= 0) {
        int ids[512];
        const char *tok[512];
        int n = tf_beam_tokens(b, choice, ids, 512), k = 0;
        for (int i = 0; i < n; i++) if (strcmp(t->vocab[ids[i]], t->eos)) tok[k++] = t->vocab[ids[i]];
        char *text = tf_join_tokens((char *const *)tok, k);
        char v[24], sent[400];
        render_format_value((float)b->node[choice].score, v, sizeof v, 3);
        snprintf(sent, sizeof sent, "\u2068%s\u2069", text ? text : "");
        char score[40];
        snprintf(score, sizeof score, "\u2066%s\u2069", v); // (its minus stays before it in a right-to-left line)
        snprintf(chosen, sizeof chosen, render_tr(o, "chosen: %s (score %s)"), sent, score);
        free(text);
    } else snprintf(chosen, sizeof chosen, render_tr(o, "step %d of %d"), steps, b->n_steps);
    render_text_style cs = render_style(fs * 1.1, th.accent);
    cs.bold = 1;
    y += render_heading(cr, chosen, pad, y + fs * 0.2, w, o, &cs) + fs * 1.8; // (and the step numbers)
    // the legend at the bottom
    double legend_h = fs * 2.2;
    // the tree
    int rtl = 0;
    if (b->n_nodes > 0) rtl = rtl_token(t->vocab[b->node[choice >= 0 ? choice : 0].token]);
    if (!rtl && b->n_nodes > 0) // (a first token that is punctuation: the sentence's others)
        for (int i = 0; i < b->n_nodes && !rtl; i++) rtl = rtl_token(t->vocab[b->node[i].token]);
    geom g = {.x0 = pad, .y0 = y, .w = w, .rtl = rtl};
    g.col_w = (w - 2 * pad) / (steps + 1);
    g.row_h = (h - y - legend_h - pad) / rows;
    g.box_w = g.col_w * 0.84;
    g.box_h = fmin(g.row_h * 0.84, fs * 3.4);
    double bfs = fmin(fs, fmin(g.box_h / 2.6, g.box_w / 5.0));
    int n_nodes = b->first[steps];
    // edges first, under the boxes
    for (int i = 0; i < n_nodes; i++) {
        const tf_beam_node *nd = &b->node[i];
        double x0, y0, x1, y1;
        centre(b, &g, nd->parent, &x0, &y0);
        centre(b, &g, i, &x1, &y1);
        double dx = rtl ? -1 : 1;
        x0 += dx * g.box_w / 2;
        x1 -= dx * g.box_w / 2;
        int on = on_choice(b, choice, i);
        double alpha = nd->fate == TF_BEAM_PRUNED ? 0.25 : 0.8;
        render_rgb c = on ? th.accent : th.muted;
        cairo_set_source_rgba(cr, c.r, c.g, c.b, on ? 1.0 : alpha);
        cairo_set_line_width(cr, on ? fs * 0.28 : nd->fate == TF_BEAM_PRUNED ? fs * 0.06 : fs * 0.13);
        cairo_move_to(cr, x0, y0);
        cairo_curve_to(cr, (x0 + x1) / 2, y0, (x0 + x1) / 2, y1, x1, y1);
        cairo_stroke(cr);
    }
    // the nodes: <bos>, then every candidate
    for (int i = -1; i < n_nodes; i++) {
        const tf_beam_node *nd = i >= 0 ? &b->node[i] : NULL;
        double cx, cy;
        centre(b, &g, i, &cx, &cy);
        render_rect r = {cx - g.box_w / 2, cy - g.box_h / 2, g.box_w, g.box_h};
        int pruned = nd && nd->fate == TF_BEAM_PRUNED, ended = nd && nd->fate == TF_BEAM_ENDED, on = i < 0 || on_choice(b, choice, i);
        double fade = pruned ? 0.35 : 1.0;
        render_rounded(cr, r, fs * 0.4);
        cairo_set_source_rgba(cr, th.panel.r, th.panel.g, th.panel.b, fade);
        cairo_fill_preserve(cr);
        render_rgb edge = on && i >= 0 ? th.accent : th.grid;
        cairo_set_source_rgba(cr, edge.r, edge.g, edge.b, fade);
        cairo_set_line_width(cr, on && i >= 0 ? fs * 0.3 : ended ? fs * 0.14 : fs * 0.07);
        if (ended && !on) cairo_set_dash(cr, (double[]){fs * 0.3, fs * 0.2}, 2, 0);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        // the token, and its log P (and score, when it ended)
        render_rgb fg = pruned ? mix(th.fg, th.bg, 0.6) : th.fg;
        render_text_style st = render_style(bfs, fg);
        st.bold = !pruned;
        st.align = RENDER_ALIGN_CENTER;
        st.max_width = g.box_w - bfs * 0.6;
        double tw, th1;
        const char *tok = i < 0 ? t->tgt_labels[0] : t->vocab[nd->token]; // (the decoder's first input: <bos>, or a Marian model's pad)
        render_text_size(cr, tok, &st, &tw, &th1);
        double line = g.box_h / (i < 0 ? 1 : 2);
        render_text(cr, tok, cx, r.y + (line - th1) / 2 + (i < 0 ? 0 : bfs * 0.1), &st);
        if (nd) {
            char num[64], v[24];
            render_format_value((float)nd->logp, v, sizeof v, ended ? 2 : 3);
            if (ended) {
                char s2[24];
                render_format_value((float)nd->score, s2, sizeof s2, 2);
                snprintf(num, sizeof num, "%s → %s", v, s2);
            } else snprintf(num, sizeof num, "%s", v);
            render_text_style ns = render_style(bfs * 0.82, fg);
            ns.mono = 1;
            ns.align = RENDER_ALIGN_CENTER;
            ns.max_width = g.box_w - bfs * 0.4;
            ns.dir = RENDER_DIR_LTR;
            double nw, nh;
            render_text_size(cr, num, &ns, &nw, &nh);
            render_text(cr, num, cx, r.y + line + (line - nh) / 2 - bfs * 0.1, &ns);
        }
    }
    // the step numbers above the columns
    for (int s = 0; s <= steps; s++) {
        double cx, cy;
        centre(b, &g, s == 0 ? -1 : b->first[s - 1], &cx, &cy);
        render_text_style ls = render_style(fs * 0.8, th.muted);
        ls.align = RENDER_ALIGN_CENTER;
        char lab[16];
        snprintf(lab, sizeof lab, "%d", s);
        render_text(cr, lab, cx, g.y0 - fs * 1.1, &ls);
    }
    // legend
    snprintf(buf, sizeof buf, "%s   ·   %s   ·   %s   ·   %s", render_tr(o, "bold: kept in the beam"), render_tr(o, "faded: pruned"),
             render_tr(o, "dashed: ended (log P → score)"), render_tr(o, "outlined: the chosen translation"));
    render_text_style lg = render_style(fs * 0.9, th.muted);
    render_heading(cr, buf, pad, h - legend_h, w, o, &lg);
}
