// draw.c — the window's picture: the navigator on the left, the stage in the
// middle, the text panel on the right, the sentences on top, the status line
// and buttons below. Reads the state; changes nothing.
#include "draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// A sentence or two per kind of stage, shown until the lessons arrive.
static const struct { const char *name, *text; } captions[] = {
    {"embed", "Each token becomes a vector: its row of the embedding table, multiplied by √d_model (or the model's embed_scale)."},
    {"pe", "Sines and cosines of different frequencies give every position its own pattern, so the model can tell word order."},
    {"input", "The sum of the embedding and the positional encoding: what the first layer sees."},
    {"q", "Queries: what each position is looking for. One matrix multiplication, all heads side by side."},
    {"k", "Keys: what each position offers to be found by."},
    {"v", "Values: what each position passes on when it is attended to."},
    {"scores", "How well each query matches each key: the dot products Q_h K_hᵀ of one head."},
    {"scaled", "Divided by √d_k, so that large dot products do not push the softmax into regions with tiny gradients."},
    {"masked", "Positions a query may not see get −∞. In the decoder a word may not look at the words after it."},
    {"weights", "Softmax turns each row into weights that sum to 1: how much each query attends to each key."},
    {"out", "Each position's new vector: a weighted sum of the values, using the attention weights."},
    {"concat", "The heads' outputs side by side, one block of d_k columns per head."},
    {"add1", "The residual connection: the sublayer's output added to its input."},
    {"add2", "The residual connection: the sublayer's output added to its input."},
    {"add3", "The residual connection: the sublayer's output added to its input."},
    {"norm1", "Layer normalisation: each row rescaled to mean 0 and variance 1, then by learned weights."},
    {"norm2", "Layer normalisation: each row rescaled to mean 0 and variance 1, then by learned weights."},
    {"norm3", "Layer normalisation: each row rescaled to mean 0 and variance 1, then by learned weights."},
    {"norm", "A final layer normalisation after the whole stack."},
    {"hidden", "The feed-forward network's wide middle layer, after ReLU: max(0, x W₁ + b₁)."},
    {"logits", "Scores for every word of the target vocabulary: the decoder's output times the (tied) embedding matrix."},
    {"probs", "Softmax over the vocabulary: the model's guess for the next word at each position."},
};

static const char *caption_for(const tf_stage *st) {
    const char *name = st->name;
    if (!strcmp(name, "out") && st->head < 0) return "The heads combined: Concat(head₁ … head_h) W_O.";
    if (!strcmp(name, "out") && strstr(st->id, "ffn")) return "The feed-forward network's output: hidden W₂ + b₂, back to d_model columns.";
    for (size_t i = 0; i < sizeof captions / sizeof *captions; i++)
        if (!strcmp(captions[i].name, name)) return captions[i].text;
    return "";
}

render_opts app_render_opts(const app_state *s) {
    render_opts o;
    render_opts_default(&o);
    o.text_scale = s->presentation ? 1.4 : 1.0;
    o.high_contrast = s->high_contrast;
    o.cell_row = s->pin_row;
    o.cell_col = s->pin_col;
    return o;
}

static double ui_unit(const app_state *s, double w) {
    double u = w / 1280.0;
    u = u < 0.8 ? 0.8 : u > 1.6 ? 1.6 : u;
    return u * (s->presentation ? 1.35 : 1.0);
}

static int inside(app_rect r, double x, double y) { return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h; }

static void fill_rect(cairo_t *cr, app_rect r, render_rgb c) {
    render_set_rgb(cr, c);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_fill(cr);
}

static void box(cairo_t *cr, app_rect r, render_rgb fill, render_rgb line, double lw) {
    fill_rect(cr, r, fill);
    render_set_rgb(cr, line);
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, r.x + lw / 2, r.y + lw / 2, r.w - lw, r.h - lw);
    cairo_stroke(cr);
}

// One sentence field: label, text (or the text being typed with its caret).
static void sentence_field(cairo_t *cr, const app_state *s, const render_theme *th, app_rect r, double u, int field,
                           const char *label, const char *text, const char *placeholder) {
    int editing = s->editing == field;
    box(cr, r, editing ? th->bg : th->panel, editing ? th->accent : th->grid, editing ? 2.5 : 1);
    render_text_style ls = render_style(13 * u, th->muted);
    double lw, lh;
    render_text_size(cr, label, &ls, &lw, &lh);
    render_text(cr, label, r.x + 8 * u, r.y + (r.h - lh) / 2, &ls);
    render_text_style ts = render_style(16 * u, text[0] || editing ? th->fg : th->muted);
    ts.max_width = r.w - lw - 24 * u;
    const char *shown = editing ? s->edit : text[0] ? text : placeholder;
    double tw, tth;
    render_text_size(cr, shown[0] ? shown : " ", &ts, &tw, &tth);
    double tx = r.x + lw + 16 * u, ty = r.y + (r.h - tth) / 2;
    render_text(cr, shown, tx, ty, &ts);
    if (editing) {
        double cx = tx + render_text_caret(cr, s->edit, &ts, s->cursor);
        render_set_rgb(cr, th->accent);
        cairo_set_line_width(cr, 2);
        cairo_move_to(cr, cx, ty);
        cairo_line_to(cr, cx, ty + tth);
        cairo_stroke(cr);
    }
}

static void button(cairo_t *cr, const render_theme *th, app_rect r, double u, const char *label) {
    box(cr, r, th->panel, th->grid, 1);
    render_text_style st = render_style(14 * u, th->fg);
    st.align = RENDER_ALIGN_CENTER;
    st.bold = 1;
    render_text(cr, label, r.x + r.w / 2, r.y + r.h / 2 - 10 * u, &st);
}

// A lesson section: paragraphs, headings and lists, laid out in the
// lesson's direction (right to left for Persian and Arabic: right-aligned,
// bullets on the right). Returns the y below it.
static double lesson_text(cairo_t *cr, const lesson *l, const lesson_section *sec, const render_theme *th, double x, double y,
                          double tw, double u, int show_answers) {
    render_text_style st = render_style(15 * u, th->fg);
    st.width = tw;
    st.dir = l->rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    char buf[9000];
    for (int i = 0; i < sec->n_blocks; i++) {
        const lesson_block *b = &sec->blocks[i];
        if (b->kind == LESSON_ANSWER && !show_answers) continue;
        render_text_style bs = st;
        const char *m = b->markup;
        if (b->kind == LESSON_HEADING) { bs.bold = 1; bs.size = 16 * u; }
        if (b->kind == LESSON_BULLET || b->kind == LESSON_NUMBERED) {
            snprintf(buf, sizeof buf, "%s %s", b->kind == LESSON_BULLET ? "•" : "–", b->markup);
            m = buf;
        }
        if (b->kind == LESSON_QUESTION) { bs.bold = 1; snprintf(buf, sizeof buf, "? %s", b->markup); m = buf; }
        if (b->kind == LESSON_ANSWER) { bs.color = th->accent; snprintf(buf, sizeof buf, "✓ %s", b->markup); m = buf; }
        y += render_markup(cr, m, x, y, &bs) + (b->kind == LESSON_PARA ? 9 : 4) * u;
    }
    return y;
}

// The right-hand panel: what this stage is, its formula, the hovered cell,
// and the pinned cell's arithmetic.
// Returns the height of what it drew, which may be taller than the panel:
// the wheel scrolls it (s->panel_scroll).
static double text_panel(cairo_t *cr, const app_state *s, const app_world *wd, const render_theme *th, app_rect r, double u) {
    fill_rect(cr, r, th->panel);
    cairo_save(cr);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_clip(cr);
    cairo_translate(cr, 0, -s->panel_scroll);
    const tf_trace *t = &wd->r->trace;
    const tf_stage *st = &t->stages[s->stage];
    double x = r.x + 14 * u, y = r.y + 12 * u, tw = r.w - 28 * u;
    char buf[400];
    render_text_style small = render_style(13 * u, th->muted);
    small.dir = RENDER_DIR_LTR;
    snprintf(buf, sizeof buf, "Stage %d of %d · %s", s->stage + 1, t->n, st->id);
    small.width = tw;
    y += render_text(cr, buf, x, y, &small) + 6 * u;
    render_stage_title(t, s->stage, buf, sizeof buf);
    render_text_style title = render_style(19 * u, th->fg);
    title.bold = 1;
    title.width = tw;
    title.dir = RENDER_DIR_LTR;
    y += render_text(cr, buf, x, y, &title) + 8 * u;
    render_text_style formula = render_style(15 * u, th->fg);
    formula.width = tw;
    formula.dir = RENDER_DIR_LTR;
    formula.mono = 1;
    y += render_text(cr, st->formula, x, y, &formula) + 4 * u;
    snprintf(buf, sizeof buf, "%d × %d", st->rows, st->cols);
    y += render_text(cr, buf, x, y, &small) + 10 * u;
    const lesson_section *chk = wd->lesson && s->check ? lesson_section_named(wd->lesson, "check") : NULL;
    const lesson_section *ls = wd->lesson ? lesson_for_stage(wd->lesson, st->id) : NULL;
    if (chk) { // Q: the self-check, answers on the second press
        render_text_style hs = render_style(13 * u, th->muted);
        hs.width = tw;
        hs.dir = RENDER_DIR_LTR;
        y += render_text(cr, s->check == 1 ? "Self-check (Q again shows the answers, Esc closes)" : "Self-check with answers (Q or Esc closes)",
                         x, y, &hs) + 8 * u;
        y = lesson_text(cr, wd->lesson, chk, th, x, y, tw, u, s->check == 2) + 6 * u;
    } else if (ls) y = lesson_text(cr, wd->lesson, ls, th, x, y, tw, u, 0) + 6 * u;
    else {
        render_text_style body = render_style(15 * u, th->fg);
        body.width = tw;
        body.dir = RENDER_DIR_LTR;
        y += render_text(cr, caption_for(st), x, y, &body) + 12 * u;
    }
    if (wd->r->n_src_unk || wd->r->n_tgt_unk) {
        int k = snprintf(buf, sizeof buf, "⚠ Not in the vocabulary, read as <unk>:");
        for (int i = 0; i < wd->r->S && k < (int)sizeof buf - 40; i++)
            if (wd->r->src_ids[i] == wd->m->src_vocab.unk) k += snprintf(buf + k, sizeof buf - (size_t)k, " “%s”", wd->r->src_words[i]);
        for (int i = 0; i < wd->r->T && k < (int)sizeof buf - 40; i++)
            if (!wd->r->greedy && wd->r->tgt_ids[i] == wd->m->tgt_vocab.unk) k += snprintf(buf + k, sizeof buf - (size_t)k, " “%s”", wd->r->tgt_words[i]);
        render_text_style warn = render_style(14 * u, th->accent);
        warn.width = tw;
    warn.dir = RENDER_DIR_LTR;
        y += render_text(cr, buf, x, y, &warn) + 10 * u;
    }
    if (wd->r->greedy) {
        int k = snprintf(buf, sizeof buf, "Greedy decoding, %d of %d tokens ([ ] step):", wd->r->T, s->decode_step ? s->decode_full : wd->r->T);
        // the sentence as one isolated run: a Persian one reads right to left
        k += snprintf(buf + k, sizeof buf - (size_t)k, " \u2068");
        for (int i = 1; i < wd->r->T && k < (int)sizeof buf - 40; i++) k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s", i > 1 ? " " : "", t->tgt_labels[i]);
        k += snprintf(buf + k, sizeof buf - (size_t)k, "\u2069");
        render_text_style dec = render_style(14 * u, th->fg);
        dec.width = tw;
    dec.dir = RENDER_DIR_LTR;
        y += render_text(cr, buf, x, y, &dec) + 10 * u;
    }
    if (s->hover_row >= 0 && s->hover_col >= 0 && s->hover_row < st->rows && s->hover_col < st->cols) {
        char a[16], b[16], v[32];
        float val = st->data[(size_t)s->hover_row * st->cols + s->hover_col];
        // labels may be Persian or Arabic: isolate them (FSI … PDI) in the English line
        snprintf(buf, sizeof buf, "[%d, %d]  \u2068%s\u2069 · \u2068%s\u2069  =  %s", s->hover_row, s->hover_col,
                 tf_axis_label(t, st->row_axis, s->hover_row, a, sizeof a), tf_axis_label(t, st->col_axis, s->hover_col, b, sizeof b),
                 render_format_value(val, v, sizeof v, 4));
        render_text_style hv = render_style(15 * u, th->fg);
        hv.bold = 1;
        hv.width = tw;
    hv.dir = RENDER_DIR_LTR;
        y += render_text(cr, buf, x, y, &hv) + 4 * u;
        y += render_text(cr, "Click the cell to pin how it is computed.", x, y, &small) + 10 * u;
    }
    if (s->pin_row >= 0) { // the arithmetic card: the panel's height at least, below the text
        render_opts o = app_render_opts(s);
        o.text_scale *= 0.85;
        double ch = fmax(r.y + r.h - y, 560 * u);
        cairo_save(cr);
        cairo_translate(cr, r.x, y);
        render_arithmetic(cr, t, wd->m, s->stage, &o, r.w, ch);
        cairo_restore(cr);
        y += ch;
    }
    cairo_restore(cr);
    double content = y - r.y + 12 * u;
    if (content - s->panel_scroll > r.h + 1) { // more below: say so
        render_text_style more = render_style(13 * u, th->accent);
        more.bold = 1;
        more.align = RENDER_ALIGN_RIGHT;
        fill_rect(cr, (app_rect){r.x, r.y + r.h - 22 * u, r.w, 22 * u}, th->panel);
        render_text(cr, "▼ more (scroll)", r.x + r.w - 12 * u, r.y + r.h - 20 * u, &more);
    }
    return content;
}

static void help_overlay(cairo_t *cr, const render_theme *th, double w, double h, double u) {
    static const char *lines[][2] = {
        {"→  Space", "next stage"},          {"←  Backspace", "previous stage"},
        {"Home  End", "first / last stage"}, {"↑ PgUp  ↓ PgDn", "same stage, next / previous layer"},
        {"1 … 8", "attention head"},         {"0", "all heads side by side"},
        {"N  D  C", "encoder / decoder self-attention, cross-attention"},
        {"[  ]", "greedy decoding: one token less / more"},
        {"Tab  Shift+Tab", "type the source / target sentence (Enter runs it)"},
        {"click a block", "jump there (navigator on the left)"},
        {"hover  click", "a cell's value / pin its arithmetic"},
        {"wheel  +  −  F", "zoom in / out, fit; drag to pan"},
        {"P  H  F11", "presentation type, high contrast, fullscreen"},
        {"Ctrl+S  E", "export the current view as PNG"},
        {"L", "next lesson language (en, fa, ar, …)"},
        {"Q", "self-check questions; again: the answers"},
        {"?  F1  Esc", "this help / close it"},              {"Ctrl+Q", "quit"},
    };
    int n = (int)(sizeof lines / sizeof *lines);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.55);
    cairo_paint(cr);
    double bw = fmin(w * 0.8, 760 * u), bh = (70 + n * 30) * u;
    app_rect r = {(w - bw) / 2, (h - bh) / 2, bw, bh};
    box(cr, r, th->bg, th->accent, 3);
    render_text_style ts = render_style(22 * u, th->fg);
    ts.bold = 1;
    render_text(cr, "Keys", r.x + 24 * u, r.y + 16 * u, &ts);
    render_text_style ks = render_style(16 * u, th->fg), ds = render_style(16 * u, th->muted);
    ks.bold = 1;
    for (int i = 0; i < n; i++) {
        double y = r.y + (58 + i * 30) * u;
        render_text(cr, lines[i][0], r.x + 24 * u, y, &ks);
        render_text(cr, lines[i][1], r.x + 250 * u, y, &ds);
    }
}

void app_draw(cairo_t *cr, const app_state *s, const app_world *wd, double w, double h, app_layout *lay) {
    render_opts o = app_render_opts(s);
    render_theme th = render_theme_get(&o);
    double u = ui_unit(s, w);
    memset(lay, 0, sizeof *lay);
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    double top = 52 * u, bottom = 40 * u;
    double nav_w = fmin(fmax(w * 0.2, 220 * u), 400 * u), panel_w = fmin(fmax(w * 0.26, 280 * u), 540 * u);
    if (w < 900 * u) panel_w = 0; // a small window keeps the view
    // top: the sentences
    double fw = (w - 24 * u) / 2;
    lay->src_box = (app_rect){8 * u, 8 * u, fw, top - 16 * u};
    lay->tgt_box = (app_rect){16 * u + fw, 8 * u, fw, top - 16 * u};
    sentence_field(cr, s, &th, lay->src_box, u, 1, "Source (Tab)", s->src, "");
    sentence_field(cr, s, &th, lay->tgt_box, u, 2, "Target (Shift+Tab)", s->tgt, "empty: the model decodes greedily");
    // left: the navigator
    lay->nav = (app_rect){0, top, nav_w, h - top - bottom};
    const tf_trace *t = wd->r ? &wd->r->trace : NULL;
    cairo_save(cr);
    cairo_rectangle(cr, lay->nav.x, lay->nav.y, lay->nav.w, lay->nav.h);
    cairo_clip(cr);
    cairo_translate(cr, lay->nav.x, lay->nav.y);
    lay->n_boxes = render_architecture(cr, t, wd->m, t ? s->stage : -1, &o, lay->nav.w, lay->nav.h, lay->boxes, APP_MAX_BOXES);
    if (lay->n_boxes > APP_MAX_BOXES) lay->n_boxes = APP_MAX_BOXES;
    cairo_restore(cr);
    for (int i = 0; i < lay->n_boxes; i++) { lay->boxes[i].x += lay->nav.x; lay->boxes[i].y += lay->nav.y; }
    // middle: the stage
    lay->view = (app_rect){nav_w, top, w - nav_w - panel_w, h - top - bottom};
    cairo_save(cr);
    cairo_rectangle(cr, lay->view.x, lay->view.y, lay->view.w, lay->view.h);
    cairo_clip(cr);
    if (t) {
        cairo_translate(cr, lay->view.x + s->pan_x, lay->view.y + s->pan_y);
        cairo_scale(cr, s->zoom, s->zoom);
        render_draw(cr, t, wd->m, s->stage, app_state_view(s, t), &o, lay->view.w, lay->view.h);
    } else {
        render_text_style es = render_style(18 * u, th.fg);
        es.width = lay->view.w - 60 * u;
        render_text(cr, wd->load_error ? wd->load_error : "No model loaded.", lay->view.x + 30 * u, lay->view.y + 40 * u, &es);
    }
    cairo_restore(cr);
    // right: the text panel
    lay->panel = (app_rect){w - panel_w, top, panel_w, h - top - bottom};
    if (t && panel_w > 0) lay->panel_content_h = text_panel(cr, s, wd, &th, lay->panel, u);
    // bottom: buttons and status
    app_rect bar = {0, h - bottom, w, bottom};
    fill_rect(cr, bar, th.panel);
    lay->prev_btn = (app_rect){8 * u, h - bottom + 5 * u, 96 * u, bottom - 10 * u};
    lay->next_btn = (app_rect){112 * u, h - bottom + 5 * u, 96 * u, bottom - 10 * u};
    button(cr, &th, lay->prev_btn, u, "◀ Prev");
    button(cr, &th, lay->next_btn, u, "Next ▶");
    char status[600];
    size_t k = (size_t)snprintf(status, sizeof status, "%s", wd->model_name);
#define STATUS(...) (k += k < sizeof status ? (size_t)snprintf(status + k, sizeof status - k, __VA_ARGS__) : 0)
    if (t) {
        const tf_stage *st = &t->stages[s->stage];
        STATUS("  ·  %s  ·  %d/%d", st->id, s->stage + 1, t->n);
        if (st->layer >= 0) STATUS("  ·  layer %d", st->layer + 1);
        if (st->head >= 0 && s->all_heads) STATUS("  ·  all heads");
        else if (st->head >= 0) STATUS("  ·  head %d", st->head + 1);
        if (wd->r->greedy) STATUS("  ·  decoding step %d/%d", wd->r->T, s->decode_step ? s->decode_full : wd->r->T);
        if (s->zoom != 1) STATUS("  ·  zoom %.0f%%", s->zoom * 100);
    }
#undef STATUS
    render_text_style ss = render_style(13 * u, th.fg);
    ss.max_width = w * 0.55;
    render_text(cr, status, 224 * u, h - bottom + (bottom - 18 * u) / 2, &ss);
    render_text_style ms = render_style(13 * u, s->message_is_error ? (render_rgb){0.8, 0.1, 0.1} : th.accent);
    ms.align = RENDER_ALIGN_RIGHT;
    ms.max_width = w * 0.38;
    ms.bold = 1;
    if (s->message_is_error && s->high_contrast) ms.color = (render_rgb){1, 0.4, 0.4};
    render_text(cr, s->message[0] ? s->message : "? for help", w - 10 * u, h - bottom + (bottom - 18 * u) / 2, &ms);
    if (s->help) help_overlay(cr, &th, w, h, u);
}

int app_view_hit(const app_state *s, const app_world *wd, const app_layout *lay, double x, double y, int *row, int *col) {
    if (!wd->r || !inside(lay->view, x, y)) return -1;
    render_view v = app_state_view(s, &wd->r->trace);
    if (v != RENDER_VIEW_MATRIX && v != RENDER_VIEW_HEATMAP) return -1;
    render_opts o = app_render_opts(s);
    double vx = (x - lay->view.x - s->pan_x) / s->zoom, vy = (y - lay->view.y - s->pan_y) / s->zoom;
    return render_matrix_hit(&wd->r->trace, s->stage, &o, lay->view.w, lay->view.h, vx, vy, row, col);
}
