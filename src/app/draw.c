// draw.c — the window's picture: the navigator on the left, the stage in the
// middle, the text panel on the right, the sentences on top, the status line
// and buttons below. Reads the state; changes nothing.
#include "draw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../lesson/i18n.h"

// A sentence or two per kind of stage, shown until the lessons arrive.
static const char *const captions[TF_OP_COUNT] = {
    [TF_OP_EMBED] = N_("Each token becomes a vector: its row of the embedding table, multiplied by √d_model (or the model's embed_scale)."),
    [TF_OP_PE] = N_("Sines and cosines of different frequencies give every position its own pattern, so the model can tell word order."),
    [TF_OP_INPUT] = N_("The sum of the embedding and the positional encoding: what the first layer sees."),
    [TF_OP_Q] = N_("Queries: what each position is looking for. One matrix multiplication, all heads side by side."),
    [TF_OP_K] = N_("Keys: what each position offers to be found by."),
    [TF_OP_V] = N_("Values: what each position passes on when it is attended to."),
    [TF_OP_SCORES] = N_("How well each query matches each key: the dot products Q_h K_hᵀ of one head."),
    [TF_OP_SCALED] = N_("Divided by √d_k, so that large dot products do not push the softmax into regions with tiny gradients."),
    [TF_OP_MASKED] = N_("Positions a query may not see get −∞. In the decoder a word may not look at the words after it."),
    [TF_OP_WEIGHTS] = N_("Softmax turns each row into weights that sum to 1: how much each query attends to each key."),
    [TF_OP_HEAD_OUT] = N_("Each position's new vector: a weighted sum of the values, using the attention weights."),
    [TF_OP_CONCAT] = N_("The heads' outputs side by side, one block of d_k columns per head."),
    [TF_OP_OUT] = N_("The heads combined: Concat(head₁ … head_h) W_O."),
    [TF_OP_ADD] = N_("The residual connection: the sublayer's output added to its input."),
    [TF_OP_NORM] = N_("Layer normalisation: each row rescaled to mean 0 and variance 1, then by learned weights."),
    [TF_OP_FFN_HIDDEN] = N_("The feed-forward network's wide middle layer, after ReLU: max(0, x W₁ + b₁)."),
    [TF_OP_FFN_OUT] = N_("The feed-forward network's output: hidden W₂ + b₂, back to d_model columns."),
    [TF_OP_LOGITS] = N_("Scores for every word of the target vocabulary: the decoder's output times the (tied) embedding matrix."),
    [TF_OP_PROBS] = N_("Softmax over the vocabulary: the model's guess for the next word at each position."),
};

// The recurrent models' (family lstm) own words, where they differ.
static const char *const lstm_captions[TF_OP_COUNT] = {
    [TF_OP_EMBED] = N_("Each token becomes a vector: its row of the embedding table, as it is. A recurrent model neither scales it nor adds a position: it reads the words one after another."),
    [TF_OP_SCORES] = N_("How well this decoder step's state h_t matches each encoder state h̄_s: their dot product."),
    [TF_OP_WEIGHTS] = N_("Softmax turns each row into weights that sum to 1: where this decoder step looks in the source."),
    [TF_OP_CONTEXT] = N_("The context: the encoder's states weighted by this step's attention, Σ_s a_t(s) h̄_s."),
    [TF_OP_OUT] = N_("h̃ = tanh(W_c [context ; h_t] + b_c): the decoder's state joined with what it read; the output layer reads h̃."),
    [TF_OP_GATE_I] = N_("Input gate, between 0 and 1: how much of the candidate g enters the cell."),
    [TF_OP_GATE_F] = N_("Forget gate, between 0 and 1: how much of the previous cell c_(t−1) is kept."),
    [TF_OP_GATE_G] = N_("Cell candidate, between −1 and 1: what this step could write into the cell."),
    [TF_OP_GATE_O] = N_("Output gate, between 0 and 1: how much of tanh(c_t) the state h_t shows."),
    [TF_OP_CELL] = N_("The cell, the LSTM's memory: c_t = f ⊙ c_(t−1) + i ⊙ g."),
    [TF_OP_HIDDEN] = N_("The state h_t = o ⊙ tanh(c_t), handed to the next step and to the layer above."),
    [TF_OP_FINAL_H] = N_("v, its h part: the encoder's last state of every layer. Without attention it is all the decoder learns of the source."),
    [TF_OP_FINAL_C] = N_("v, its c part: the encoder's last cell of every layer, the decoder's first cell."),
    [TF_OP_LOGITS] = N_("Scores for every word of the target vocabulary: the top state times the output layer's weights, plus its bias."),
};

static const char *caption_for(const tf_stage *st, const tf_model *m) {
    if (st->sublayer == TF_SUB_FINAL_NORM) return _("A final layer normalisation after the whole stack.");
    if (st->op == TF_OP_FFN_HIDDEN && m && m->cfg.act == TF_ACT_SILU) // (a MarianMT model's activation)
        return _("The feed-forward network's wide middle layer, after SiLU (swish): z·σ(z) with z = x W₁ + b₁.");
    if (st->op == TF_OP_FFN_HIDDEN && m && m->cfg.act == TF_ACT_GELU)
        return _("The feed-forward network's wide middle layer, after GELU: z·Φ(z) with z = x W₁ + b₁.");
    const char *c = st->op < TF_OP_COUNT ? captions[st->op] : NULL;
    if (tf_stage_is_lstm(st) && st->op < TF_OP_COUNT && lstm_captions[st->op]) c = lstm_captions[st->op];
    return c ? _(c) : "";
}

static const char *ui_text(const char *msgid) { return _(msgid); }

render_opts app_render_opts(const app_state *s) {
    render_opts o;
    render_opts_default(&o);
    o.translate = ui_text; // every word drawn in the interface language
    o.rtl = lesson_is_rtl(s->lang);
    o.text_scale = s->presentation ? 1.4 : 1.0;
    o.high_contrast = s->high_contrast;
    o.cell_row = s->pin_row;
    o.cell_col = s->pin_col;
    o.focus_row = s->hover_row >= 0 && s->hover_col < 0 ? s->hover_row : -1; // a word of the lines view
    o.focus_col = s->hover_col >= 0 && s->hover_row < 0 ? s->hover_col : -1;
    o.typed_target = s->tgt[0] != 0;
    o.time_step = s->time_step;
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

// Text of the interface: in the interface's direction, and for a
// right-to-left one anchored at the right (x is then the right edge).
static render_text_style ui_style(double size, render_rgb c, int rtl) {
    render_text_style st = render_style(size, c);
    st.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    if (rtl) st.align = RENDER_ALIGN_RIGHT;
    return st;
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
    int rtl = lesson_is_rtl(s->lang); // the label at the right, the text beside it
    render_text_style ls = ui_style(13 * u, th->muted, rtl);
    double lw, lh;
    render_text_size(cr, label, &ls, &lw, &lh);
    render_text(cr, label, rtl ? r.x + r.w - 8 * u : r.x + 8 * u, r.y + (r.h - lh) / 2, &ls);
    render_text_style ts = render_style(16 * u, text[0] || editing ? th->fg : th->muted);
    ts.max_width = r.w - lw - 24 * u;
    const char *shown = editing ? s->edit : text[0] ? text : placeholder;
    double tw, tth;
    render_text_size(cr, shown[0] ? shown : " ", &ts, &tw, &tth);
    double tx = rtl ? r.x + r.w - lw - 16 * u - tw : r.x + lw + 16 * u, ty = r.y + (r.h - tth) / 2;
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

static void button(cairo_t *cr, const render_theme *th, app_rect r, double u, const char *label, int rtl) {
    box(cr, r, th->panel, th->grid, 1);
    render_text_style st = ui_style(14 * u, th->fg, rtl);
    st.align = RENDER_ALIGN_CENTER;
    st.bold = 1;
    render_text(cr, label, r.x + r.w / 2, r.y + r.h / 2 - 10 * u, &st);
}

// What the lesson's live values ({{expr}}, [if COND]) read: the model and
// sentence on screen, beside the current stage.
static render_lesson_ctx lesson_ctx(const app_state *s, const app_world *wd, char *name, size_t n) {
    return (render_lesson_ctx){&wd->r->trace, wd->m, render_model_name(wd->model_name, name, n), s->stage, wd->r->greedy};
}

static int block_shown(const lesson_block *b, const render_lesson_ctx *c) {
    char why[300];
    return !b->cond || render_lesson_cond(c, b->cond, why, sizeof why) == 1;
}

// The markup a lesson block is drawn with: its live values read, and a
// bullet, a dash, a question or an answer mark in front.
static const char *block_markup(const lesson_block *b, render_lesson_ctx *c, char *buf, size_t n) {
    const char *mark = b->kind == LESSON_BULLET ? "• " : b->kind == LESSON_NUMBERED ? "– " : b->kind == LESSON_QUESTION ? "? "
                     : b->kind == LESSON_ANSWER ? "✓ " : "";
    size_t k = strlen(mark);
    memcpy(buf, mark, k + 1);
    lesson_expand(b->markup, render_lesson_value, c, buf + k, n - k);
    return buf;
}

const glossary *app_glossary(const app_state *s, const app_world *wd) {
    for (int i = 0; i < wd->n_gloss; i++) if (!strcmp(wd->gloss[i].lang, s->lang)) return &wd->gloss[i];
    return NULL;
}

// A lesson section: paragraphs, headings and lists, laid out in the
// lesson's direction (right to left for Persian and Arabic: right-aligned,
// bullets on the right), glossary words underlined. Each block's place goes
// into lay for hovering. Returns the y below it.
static double lesson_text(cairo_t *cr, const lesson *l, const lesson_section *sec, const glossary *g, const render_theme *th,
                          render_lesson_ctx *c, double x, double y, double tw, double u, int show_answers, app_layout *lay) {
    render_text_style st = render_style(15 * u, th->fg);
    st.width = tw;
    st.dir = l->rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    char buf[9000], plain[9000];
    for (int i = 0; i < sec->n_blocks; i++) {
        const lesson_block *b = &sec->blocks[i];
        if ((b->kind == LESSON_ANSWER && !show_answers) || !block_shown(b, c)) continue;
        render_text_style bs = st;
        if (b->kind == LESSON_HEADING) { bs.bold = 1; bs.size = 16 * u; }
        if (b->kind == LESSON_QUESTION) bs.bold = 1;
        if (b->kind == LESSON_ANSWER) bs.color = th->accent;
        const char *m = block_markup(b, c, buf, sizeof buf);
        if (lay->n_texts < APP_MAX_TEXTS) lay->texts[lay->n_texts++] = (app_text_box){x, y, (int)(sec - l->sec), i, bs};
        glossary_hit hits[64];
        int marks[128], n = g && !render_markup_plain(m, plain, sizeof plain) ? glossary_find(g, plain, hits, 64) : 0;
        for (int k = 0; k < n; k++) { marks[2 * k] = hits[k].start; marks[2 * k + 1] = hits[k].end; }
        bs.marks = marks;
        bs.n_marks = n;
        bs.mark_color = th->muted;
        y += render_markup(cr, m, x, y, &bs) + (b->kind == LESSON_PARA ? 9 : 4) * u;
    }
    return y;
}

void app_panel_text(const app_state *s, const app_world *wd, char *out, size_t n) {
    char buf[9000], plain[9000], name[256];
    size_t k = 0;
    out[0] = 0;
    const lesson_section *sec = wd->lesson && wd->r ? lesson_for_stage(wd->lesson, wd->r->trace.stages[s->stage].id) : NULL;
    if (!sec) return;
    render_lesson_ctx c = lesson_ctx(s, wd, name, sizeof name);
    for (int i = 0; i < sec->n_blocks && k < n; i++) {
        const lesson_block *b = &sec->blocks[i];
        if (b->kind == LESSON_ANSWER || !block_shown(b, &c) || render_markup_plain(block_markup(b, &c, buf, sizeof buf), plain, sizeof plain)) continue;
        k += (size_t)snprintf(out + k, n - k, "%s%s", k ? " | " : "", plain);
    }
}

const char *app_panel_term(const app_state *s, const app_world *wd, const app_layout *lay, double x, double y) {
    const glossary *g = app_glossary(s, wd);
    const lesson *l = wd->lesson;
    if (!g || !l || !wd->r || !inside(lay->panel, x, y)) return NULL;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *cr = cairo_create(sf);
    const char *key = NULL;
    char buf[9000], plain[9000], name[256];
    render_lesson_ctx c = lesson_ctx(s, wd, name, sizeof name);
    for (int i = 0; i < lay->n_texts && !key; i++) {
        const app_text_box *tb = &lay->texts[i];
        if (tb->sec >= l->n || tb->blk >= l->sec[tb->sec].n_blocks) continue; // a layout of another lesson
        const char *m = block_markup(&l->sec[tb->sec].blocks[tb->blk], &c, buf, sizeof buf);
        int at = render_markup_index(cr, m, &tb->style, x - tb->x, y + s->panel_scroll - tb->y);
        int e = at >= 0 && !render_markup_plain(m, plain, sizeof plain) ? glossary_at(g, plain, at) : -1;
        if (e >= 0) key = g->key[e];
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    return key;
}

// The hovered glossary word in the other languages, in a small box by the mouse.
static void term_tooltip(cairo_t *cr, const app_state *s, const app_world *wd, const render_theme *th, double w, double h, double u) {
    const char *lang[16], *word[16];
    int n = 0;
    for (int i = 0; i < wd->n_gloss && n < 16; i++) {
        const char *gw = glossary_word(&wd->gloss[i], s->term);
        if (gw && strcmp(wd->gloss[i].lang, s->lang)) { lang[n] = wd->gloss[i].lang; word[n++] = gw; }
    }
    if (!n) return;
    int rtl = lesson_is_rtl(s->lang);
    render_text_style ls = render_style(12 * u, th->muted), ws = render_style(16 * u, th->fg);
    ws.bold = 1;
    double code_w = 0, code_h = 0, word_w = 0, line_h = 0, tw, tth;
    for (int i = 0; i < n; i++) {
        render_text_size(cr, lang[i], &ls, &tw, &code_h);
        code_w = fmax(code_w, tw);
        render_text_size(cr, word[i], &ws, &tw, &tth);
        word_w = fmax(word_w, tw);
        line_h = fmax(line_h, tth);
    }
    double pad = 8 * u, bw = code_w + word_w + 3 * pad, bh = n * (line_h + 2 * u) + 2 * pad;
    double bx = s->term_x + 12 * u, by = s->term_y + 18 * u;
    if (rtl) bx = s->term_x - 12 * u - bw; // opens towards the text, away from the panel's edge
    bx = fmax(2 * u, fmin(bx, w - bw - 2 * u));
    if (by + bh > h - 2 * u) by = s->term_y - 8 * u - bh;
    box(cr, (app_rect){bx, by, bw, bh}, th->bg, th->accent, 1.5);
    if (rtl) ws.align = RENDER_ALIGN_RIGHT;
    for (int i = 0; i < n; i++) { // language code on the outer side, the word beside it
        double y = by + pad + i * (line_h + 2 * u);
        render_text(cr, lang[i], rtl ? bx + bw - pad - code_w : bx + pad, y + (line_h - code_h) / 2, &ls);
        render_text(cr, word[i], rtl ? bx + bw - 2 * pad - code_w : bx + 2 * pad + code_w, y, &ws);
    }
}

// The text panel (right, or left in a right-to-left interface): what this
// stage is, its formula, the lesson, the hovered cell, and the pinned cell's
// arithmetic. Returns the height of what it drew, which may be taller than
// the panel: the wheel scrolls it (s->panel_scroll).
static double text_panel(cairo_t *cr, const app_state *s, const app_world *wd, const render_theme *th, app_rect r, double u,
                         app_layout *lay) {
    fill_rect(cr, r, th->panel);
    cairo_save(cr);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_clip(cr);
    cairo_translate(cr, 0, -s->panel_scroll);
    const tf_trace *t = &wd->r->trace;
    const tf_stage *st = &t->stages[s->stage];
    int rtl = lesson_is_rtl(s->lang);
    double x = r.x + 14 * u, y = r.y + 12 * u, tw = r.w - 28 * u;
    char buf[400];
    // Interface text runs in the interface's direction; the stage's title,
    // formula and numbers stay left to right, on the panel's reading side.
    render_text_style ui = render_style(13 * u, th->muted), math = ui;
    ui.width = math.width = tw;
    ui.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    math.dir = RENDER_DIR_LTR;
    math.align = rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    // The id isolated (it keeps its order in a right-to-left line) and in one
    // piece (split over two lines of right-to-left text, its halves would sit
    // at opposite ends): pango may not break inside it. Ids are [a-z0-9._],
    // nothing to escape; the translated words are escaped.
    char id[200], fmt[200];
    snprintf(id, sizeof id, "<span allow_breaks=\"false\">\u2068%s\u2069</span>", st->id);
    render_markup_escape(fmt, sizeof fmt, _("Stage %d of %d · %s"));
    snprintf(buf, sizeof buf, fmt, s->stage + 1, t->n, id);
    y += render_markup(cr, buf, x, y, &ui) + 6 * u;
    render_opts o = app_render_opts(s);
    render_stage_title(t, s->stage, &o, buf, sizeof buf);
    render_text_style title = math;
    title.size = 19 * u;
    title.color = th->fg;
    title.bold = 1;
    title.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR; // the title in the interface's language
    y += render_text(cr, buf, x, y, &title) + 8 * u;
    render_text_style formula = math;
    formula.size = 15 * u;
    formula.color = th->fg;
    formula.mono = 1;
    y += render_text(cr, render_tr(&o, st->formula), x, y, &formula) + 4 * u;
    snprintf(buf, sizeof buf, "%d × %d", st->rows, st->cols);
    y += render_text(cr, buf, x, y, &math) + 10 * u;
    const lesson_section *chk = wd->lesson && s->check ? lesson_section_named(wd->lesson, "check") : NULL;
    const lesson_section *ls = wd->lesson ? lesson_for_stage(wd->lesson, st->id) : NULL;
    const glossary *g = app_glossary(s, wd);
    char name[256];
    render_lesson_ctx c = lesson_ctx(s, wd, name, sizeof name);
    if (chk) { // Q: the self-check, answers on the second press
        y += render_text(cr, s->check == 1 ? _("Self-check (Q again shows the answers, Esc closes)") : _("Self-check with answers (Q or Esc closes)"),
                         x, y, &ui) + 8 * u;
        y = lesson_text(cr, wd->lesson, chk, g, th, &c, x, y, tw, u, s->check == 2, lay) + 6 * u;
    } else if (ls) y = lesson_text(cr, wd->lesson, ls, g, th, &c, x, y, tw, u, 0, lay) + 6 * u;
    else {
        render_text_style body = ui;
        body.size = 15 * u;
        body.color = th->fg;
        y += render_text(cr, caption_for(st, wd->m), x, y, &body) + 12 * u;
    }
    if (wd->r->n_src_unk || wd->r->n_tgt_unk) {
        int k = snprintf(buf, sizeof buf, "⚠ %s", _("Not in the vocabulary, read as <unk>:"));
        // each word isolated (FSI … PDI): it keeps its own direction in either interface
        for (int i = 0; i < wd->r->S && k < (int)sizeof buf - 40; i++)
            if (wd->r->src_ids[i] == wd->m->src_vocab.unk) k += snprintf(buf + k, sizeof buf - (size_t)k, " \u2068“%s”\u2069", wd->r->src_words[i]);
        for (int i = 0; i < wd->r->T && k < (int)sizeof buf - 40; i++)
            if (!wd->r->greedy && wd->r->tgt_ids[i] == wd->m->tgt_vocab.unk) k += snprintf(buf + k, sizeof buf - (size_t)k, " \u2068“%s”\u2069", wd->r->tgt_words[i]);
        render_text_style warn = ui;
        warn.size = 14 * u;
        warn.color = th->accent;
        y += render_text(cr, buf, x, y, &warn) + 10 * u;
    }
    if (wd->r->greedy) {
        int k = tf_stage_is_lstm(st) // ([ ] are the time steps of a recurrent model)
                    ? snprintf(buf, sizeof buf, _("Greedy decoding, %d tokens ([ ] step through time):"), wd->r->T)
                    : snprintf(buf, sizeof buf, _("Greedy decoding, %d of %d tokens ([ ] step):"), wd->r->T, s->decode_step ? s->decode_full : wd->r->T);
        // the sentence as one isolated run: a Persian one reads right to left
        k += snprintf(buf + k, sizeof buf - (size_t)k, " \u2068");
        for (int i = 1; i < wd->r->T && k < (int)sizeof buf - 40; i++) k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%s", i > 1 ? " " : "", t->tgt_labels[i]);
        k += snprintf(buf + k, sizeof buf - (size_t)k, "\u2069");
        render_text_style dec = ui;
        dec.size = 14 * u;
        dec.color = th->fg;
        y += render_text(cr, buf, x, y, &dec) + 10 * u;
    }
    if (s->hover_row >= 0 && s->hover_col >= 0 && s->hover_row < st->rows && s->hover_col < st->cols) {
        char a[64], b[64], v[32];
        render_opts lo = app_render_opts(s);
        float val = st->data[(size_t)s->hover_row * st->cols + s->hover_col];
        // labels may be Persian or Arabic: isolate them (FSI … PDI) in the left-to-right line
        snprintf(buf, sizeof buf, "[%d, %d]  \u2068%s\u2069 · \u2068%s\u2069  =  %s", s->hover_row, s->hover_col,
                 render_axis_label(t, st->row_axis, s->hover_row, &lo, a, sizeof a), render_axis_label(t, st->col_axis, s->hover_col, &lo, b, sizeof b),
                 render_format_value(val, v, sizeof v, 4));
        render_text_style hv = math;
        hv.size = 15 * u;
        hv.color = th->fg;
        hv.bold = 1;
        y += render_text(cr, buf, x, y, &hv) + 4 * u;
        y += render_text(cr, _("Click the cell to pin how it is computed."), x, y, &ui) + 10 * u;
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
    if (content - s->panel_scroll > r.h + 1) { // more below: say so, at the end of the reading line
        render_text_style more = ui_style(13 * u, th->accent, rtl);
        more.bold = 1;
        more.align = rtl ? RENDER_ALIGN_LEFT : RENDER_ALIGN_RIGHT;
        fill_rect(cr, (app_rect){r.x, r.y + r.h - 22 * u, r.w, 22 * u}, th->panel);
        snprintf(buf, sizeof buf, "▼ %s", _("more (scroll)"));
        render_text(cr, buf, rtl ? r.x + 12 * u : r.x + r.w - 12 * u, r.y + r.h - 20 * u, &more);
    }
    return content;
}

// What if? (W) A small panel over the view's top corner (its start side): a
// checkbox per part, ticked when the part is switched off; a part the model
// was trained without is ticked for good. Its rows are where clicks switch.
static void whatif_panel(cairo_t *cr, const app_state *s, const render_theme *th, app_rect view, double u, int rtl, app_layout *lay) {
    double pw = fmin(view.w - 16 * u, 360 * u), row = 30 * u, ph = 76 * u + TF_WITHOUT_PARTS * row;
    app_rect r = {rtl ? view.x + 8 * u : view.x + view.w - pw - 8 * u, view.y + 8 * u, pw, ph};
    lay->whatif_panel = r;
    box(cr, r, th->bg, th->accent, 2.5 * u);
    double edge = rtl ? r.x + r.w - 14 * u : r.x + 14 * u;
    render_text_style ts = ui_style(16 * u, th->fg, rtl);
    ts.bold = 1;
    ts.max_width = pw - 28 * u;
    render_text(cr, _("What if? Take a part away"), edge, r.y + 10 * u, &ts);
    int off = s->without | s->trained_without;
    for (int k = 0; k < TF_WITHOUT_PARTS; k++) {
        app_rect b = {r.x + 6 * u, r.y + 40 * u + k * row, pw - 12 * u, row - 2 * u};
        lay->whatif_box[k] = b;
        int locked = (s->trained_without >> k) & 1, ticked = (off >> k) & 1;
        if (k == s->whatif_focus) fill_rect(cr, b, th->panel);
        double cb = 16 * u, cx = rtl ? b.x + b.w - 10 * u - cb : b.x + 8 * u, cy = b.y + (b.h - cb) / 2;
        render_set_rgb(cr, locked ? th->muted : th->fg);
        cairo_set_line_width(cr, 1.6 * u);
        cairo_rectangle(cr, cx, cy, cb, cb);
        cairo_stroke(cr);
        if (ticked) { // a cross: the part is taken away
            render_set_rgb(cr, locked ? th->muted : th->accent);
            cairo_set_line_width(cr, 2.4 * u);
            cairo_move_to(cr, cx + 3 * u, cy + 3 * u); cairo_line_to(cr, cx + cb - 3 * u, cy + cb - 3 * u);
            cairo_move_to(cr, cx + cb - 3 * u, cy + 3 * u); cairo_line_to(cr, cx + 3 * u, cy + cb - 3 * u);
            cairo_stroke(cr);
        }
        char label[200];
        snprintf(label, sizeof label, locked ? _("%d  %s (trained without it)") : "%d  %s", k + 1, _(render_part_name(NULL, k)));
        render_text_style ls = ui_style(14 * u, locked ? th->muted : th->fg, rtl);
        ls.max_width = b.w - cb - 30 * u;
        render_text(cr, label, rtl ? cx - 10 * u : cx + cb + 10 * u, b.y + b.h / 2 - 10 * u, &ls);
    }
    render_text_style hs = ui_style(12 * u, th->muted, rtl);
    hs.max_width = pw - 28 * u;
    render_text(cr, _("1-4 or a click: off / on · X: compare · W: close"), edge, r.y + 46 * u + TF_WITHOUT_PARTS * row, &hs);
}

static void help_overlay(cairo_t *cr, const render_theme *th, double w, double h, double u, int rtl) {
    static const char *lines[][2] = {
        {"→  Space", N_("next stage")},          {"←  Backspace", N_("previous stage")},
        {"Home  End", N_("first / last stage")}, {"↑ PgUp  ↓ PgDn", N_("same stage, next / previous layer")},
        {"1 … 8", N_("attention head")},         {"0", N_("all heads side by side")},
        {"V", N_("attention as lines between the words (with 0: every head)")},
        {"G", N_("every layer and head of this attention")},
        {"K", N_("the most likely next tokens of each row")},
        {"B", N_("beam search or greedy decoding: the tree of the hypotheses")},
        {",  .  T", N_("watch it learn: previous / next training snapshot, the timeline")},
        {"N  D  C", N_("encoder / decoder self-attention, cross-attention")},
        {"[  ]", N_("greedy decoding: one token less / more; in a recurrent model, the time step")},
        {"R", N_("the same sentence through the Transformer and a recurrent model, side by side")},
        {"Tab  Shift+Tab", N_("type the source / target sentence (Enter runs it)")},
        {N_("click a block"), N_("jump there (the navigator)")},
        {N_("hover  click"), N_("a cell's value / pin its arithmetic")},
        {N_("wheel  +  −  F"), N_("zoom in / out, fit; drag to pan")},
        {"P  H  F11", N_("presentation type, high contrast, fullscreen")},
        {"Ctrl+S  E", N_("export the current view as PNG")},
        {"Ctrl+C", N_("copy the link to this view (for a page, or tviz --open)")},
        {"L", N_("next language of the lesson and the interface (en, fa, ar, …)")},
        {"Q", N_("self-check questions; again: the answers")},
        {"W", N_("what if? switch parts of the Transformer off (1-4, Enter, click)")},
        {"X", N_("compare the stage with and without them")},
        {N_("hover a lesson word"), N_("the word in the other languages")},
        {"?  F1  Esc", N_("this help / close it")},              {"Ctrl+Q", N_("quit")},
    };
    int n = (int)(sizeof lines / sizeof *lines);
    u = fmin(u, h * 0.96 / ((70 + n * 30) * 1.0)); // presentation type on a short window: the whole list still fits
    cairo_set_source_rgba(cr, 0, 0, 0, 0.55);
    cairo_paint(cr);
    double bw = fmin(w * 0.8, 760 * u), bh = (70 + n * 30) * u;
    app_rect r = {(w - bw) / 2, (h - bh) / 2, bw, bh};
    box(cr, r, th->bg, th->accent, 3);
    // mirrored for a right-to-left interface: keys on the right, what they do to their left
    double edge = rtl ? r.x + r.w - 24 * u : r.x + 24 * u, col = rtl ? r.x + r.w - 250 * u : r.x + 250 * u;
    render_text_style ts = ui_style(22 * u, th->fg, rtl);
    ts.bold = 1;
    render_text(cr, _("Keyboard keys"), edge, r.y + 16 * u, &ts);
    render_text_style ks = render_style(16 * u, th->fg), ds = ui_style(16 * u, th->muted, rtl);
    ks.bold = 1;
    ks.dir = RENDER_DIR_LTR; // key names are Latin; a translated word in them keeps its own direction
    ks.align = rtl ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    ks.max_width = 216 * u;
    ds.max_width = bw - 274 * u;
    for (int i = 0; i < n; i++) { // each text centred on its row: Arabic script is taller than Latin
        double mid = r.y + (58 + i * 30 + 11) * u, tw, th1, th2;
        render_text_size(cr, _(lines[i][0]), &ks, &tw, &th1);
        render_text_size(cr, _(lines[i][1]), &ds, &tw, &th2);
        render_text(cr, _(lines[i][0]), edge, mid - th1 / 2, &ks);
        render_text(cr, _(lines[i][1]), col, mid - th2 / 2, &ds);
    }
}

// The training timeline under the view: where training was at the point
// shown (step, loss, held-out exact match, what the snapshot translates by
// itself), and a slider over the run's loss curve with a mark at every
// snapshot; a click on it goes to the nearest one (app_state_press).
static void timeline_bar(cairo_t *cr, const app_state *s, const app_world *wd, const render_theme *th, app_layout *lay, double u, int rtl) {
    const io_timeline *tl = wd->tl;
    app_rect r = lay->timeline;
    fill_rect(cr, r, th->panel);
    render_set_rgb(cr, th->grid);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, r.x, r.y + 0.5);
    cairo_rel_line_to(cr, r.w, 0);
    cairo_stroke(cr);
    int at = s->snap < tl->n ? s->snap : tl->n - 1, last = tl->step[tl->n - 1] > 0 ? tl->step[tl->n - 1] : 1;
    char buf[600], num[32], num2[32];
    double pad = 10 * u, tw = fmin(r.w * 0.42, 380 * u);
    // the words: at the start side of the language
    double tx = rtl ? r.x + r.w - pad : r.x + pad, y = r.y + 6 * u;
    render_text_style hs = ui_style(14 * u, th->fg, rtl);
    hs.bold = 1;
    hs.max_width = tw;
    snprintf(buf, sizeof buf, _("Training step %d of %d"), tl->step[at], tl->step[tl->n - 1]);
    y += render_text(cr, buf, tx, y, &hs) + 2 * u;
    render_text_style ls = ui_style(12.5 * u, th->fg, rtl);
    ls.max_width = tw;
    if (tl->loss[at] == tl->loss[at]) render_format_value(tl->loss[at], num, sizeof num, 3);
    else snprintf(num, sizeof num, "?");
    if (tl->exact[at] == tl->exact[at]) snprintf(num2, sizeof num2, "%.0f%%", 100.0 * tl->exact[at]);
    else snprintf(num2, sizeof num2, "?");
    char iso1[48], iso2[48]; // numbers isolated: in order in a right-to-left line
    snprintf(iso1, sizeof iso1, "\u2068%s\u2069", num);
    snprintf(iso2, sizeof iso2, "\u2068%s\u2069", num2);
    snprintf(buf, sizeof buf, _("loss %s · held-out exact match %s"), iso1, iso2);
    y += render_text(cr, buf, tx, y, &ls) + 2 * u;
    render_text_style ss = ui_style(12.5 * u, th->muted, rtl);
    ss.max_width = tw;
    if (at == tl->self || !wd->snap_says) snprintf(buf, sizeof buf, "%s", _("the trained model (, . step through training, T hides this)"));
    else {
        char says[400];
        snprintf(says, sizeof says, "\u2068%s\u2069", wd->snap_says[0] ? wd->snap_says : "∅");
        snprintf(buf, sizeof buf, _("by itself it translates: %s"), says);
    }
    render_text(cr, buf, tx, y, &ss);
    // the slider: time left to right in every language, over the loss curve
    double sx0 = rtl ? r.x + pad * 2 : r.x + tw + pad * 3, sx1 = rtl ? r.x + r.w - tw - pad * 3 : r.x + r.w - pad * 2;
    double sy0 = r.y + 8 * u, sy1 = r.y + r.h - 24 * u;
    if (sx1 - sx0 < 40 * u) return;
    const tf_model *fm = tl->main;
    if (fm && fm->n_loss_curve > 1 && fm->loss_every > 0) {
        double hi = 0, lo = INFINITY;
        for (int i = 0; i < fm->n_loss_curve; i++) { hi = fmax(hi, fm->loss_curve[i]); lo = fmin(lo, fm->loss_curve[i]); }
        if (hi > lo) {
            cairo_set_source_rgba(cr, th->accent.r, th->accent.g, th->accent.b, 0.18);
            cairo_move_to(cr, sx0, sy1);
            for (int i = 0; i < fm->n_loss_curve; i++) {
                double st = (i + 0.5) * fm->loss_every, x = sx0 + (sx1 - sx0) * fmin(st / last, 1);
                cairo_line_to(cr, x, sy1 - (sy1 - sy0) * (fm->loss_curve[i] - lo) / (hi - lo));
            }
            cairo_line_to(cr, sx0 + (sx1 - sx0) * fmin(fm->n_loss_curve * fm->loss_every / (double)last, 1), sy1);
            cairo_close_path(cr);
            cairo_fill(cr);
        }
    }
    render_set_rgb(cr, th->muted);
    cairo_set_line_width(cr, 2 * u);
    cairo_move_to(cr, sx0, sy1);
    cairo_line_to(cr, sx1, sy1);
    cairo_stroke(cr);
    render_text_style ts = render_style(10.5 * u, th->muted);
    ts.align = RENDER_ALIGN_CENTER;
    double last_label = -1e9;
    lay->n_snap_x = 0;
    for (int i = 0; i < tl->n && i < 64; i++) {
        double x = sx0 + (sx1 - sx0) * fmax(0, fmin((double)tl->step[i] / last, 1));
        lay->snap_x[lay->n_snap_x++] = x;
        int cur = i == at;
        render_set_rgb(cr, cur ? th->accent : th->fg);
        cairo_arc(cr, x, sy1, (cur ? 6.5 : 3.5) * u, 0, 2 * M_PI);
        cairo_fill(cr);
        if (cur) { // a line up through the curve
            cairo_set_line_width(cr, 1.5 * u);
            cairo_move_to(cr, x, sy1);
            cairo_line_to(cr, x, sy0);
            cairo_stroke(cr);
        }
        snprintf(num, sizeof num, "%d", tl->step[i]);
        double lw, lh;
        render_text_size(cr, num, &ts, &lw, &lh);
        if (cur || x - lw / 2 > last_label + 4 * u || i == tl->n - 1) {
            if (!cur && i == tl->n - 1 && x - lw / 2 <= last_label + 4 * u) continue;
            ts.color = cur ? th->accent : th->muted;
            ts.bold = cur;
            render_text(cr, num, x, sy1 + 7 * u, &ts);
            last_label = x + lw / 2;
        }
    }
}

// One more item of the status line: "  ·  " and the item, isolated (FSI … PDI)
// so that ids and numbers keep their order in a right-to-left line.
static void status_add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void status_add(char *buf, size_t n, const char *fmt, ...) {
    size_t k = strlen(buf);
    if (k + 16 >= n) return;
    k += (size_t)snprintf(buf + k, n - k, "%s\u2068", k ? "  ·  " : "");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + k, n - k, fmt, ap);
    va_end(ap);
    k = m < 0 ? k : k + (size_t)m;
    if (k + 4 < n) snprintf(buf + k, n - k, "\u2069");
}

void app_draw(cairo_t *cr, const app_state *s, const app_world *wd, double w, double h, app_layout *lay) {
    render_opts o = app_render_opts(s);
    o.beside = wd->r2 ? &wd->r2->trace : NULL; // R: the same sentence through the other model
    o.beside_model = wd->m2;
    render_theme th = render_theme_get(&o);
    double u = ui_unit(s, w);
    int rtl = lesson_is_rtl(s->lang); // Persian, Arabic: the whole window mirrors (the matrices do not: they are math)
    memset(lay, 0, sizeof *lay);
    lay->rtl = rtl;
    render_set_rgb(cr, th.bg);
    cairo_paint(cr);
    double top = 52 * u, bottom = 40 * u;
    double nav_w = fmin(fmax(w * 0.2, 220 * u), 400 * u), panel_w = fmin(fmax(w * 0.26, 280 * u), 540 * u);
    if (w < 900 * u) panel_w = 0; // a small window keeps the view
    // top: the sentences, the source first in reading order
    double fw = (w - 24 * u) / 2;
    app_rect first = {8 * u, 8 * u, fw, top - 16 * u}, second = {16 * u + fw, 8 * u, fw, top - 16 * u};
    lay->src_box = rtl ? second : first;
    lay->tgt_box = rtl ? first : second;
    sentence_field(cr, s, &th, lay->src_box, u, 1, _("Source (Tab)"), s->src, "");
    sentence_field(cr, s, &th, lay->tgt_box, u, 2, _("Target (Shift+Tab)"), s->tgt, _("empty: the model decodes greedily"));
    // the navigator: left (right to left: right)
    lay->nav = (app_rect){rtl ? w - nav_w : 0, top, nav_w, h - top - bottom};
    const tf_trace *t = wd->r ? &wd->r->trace : NULL;
    cairo_save(cr);
    cairo_rectangle(cr, lay->nav.x, lay->nav.y, lay->nav.w, lay->nav.h);
    cairo_clip(cr);
    cairo_translate(cr, lay->nav.x, lay->nav.y);
    lay->n_boxes = render_architecture(cr, t, wd->m, t ? s->stage : -1, &o, lay->nav.w, lay->nav.h, lay->boxes, APP_MAX_BOXES);
    if (lay->n_boxes > APP_MAX_BOXES) lay->n_boxes = APP_MAX_BOXES;
    cairo_restore(cr);
    for (int i = 0; i < lay->n_boxes; i++) { lay->boxes[i].x += lay->nav.x; lay->boxes[i].y += lay->nav.y; }
    // middle: the stage, and below it the training timeline when it is shown
    lay->view = (app_rect){rtl ? panel_w : nav_w, top, w - nav_w - panel_w, h - top - bottom};
    if (t && s->timeline && wd->tl && wd->tl->n) {
        double tb = fmin(92 * u, lay->view.h * 0.3);
        lay->view.h -= tb;
        lay->timeline = (app_rect){lay->view.x, lay->view.y + lay->view.h, lay->view.w, tb};
        timeline_bar(cr, s, wd, &th, lay, u, rtl);
    }
    cairo_save(cr);
    cairo_rectangle(cr, lay->view.x, lay->view.y, lay->view.w, lay->view.h);
    cairo_clip(cr);
    if (t) {
        cairo_translate(cr, lay->view.x + s->pan_x, lay->view.y + s->pan_y);
        cairo_scale(cr, s->zoom, s->zoom);
        render_opts ov = o;
        if (wd->cmp) ov.with_all = &wd->cmp->trace;
        render_draw(cr, t, wd->m, s->stage, app_state_view(s, t), &ov, lay->view.w, lay->view.h);
    } else {
        render_text_style es = render_style(18 * u, th.fg);
        es.width = lay->view.w - 60 * u;
        render_text(cr, wd->load_error ? wd->load_error : _("No model loaded."), lay->view.x + 30 * u, lay->view.y + 40 * u, &es);
    }
    cairo_restore(cr);
    if (t && s->whatif) whatif_panel(cr, s, &th, lay->view, u, rtl, lay);
    // the text panel: right (right to left: left)
    lay->panel = (app_rect){rtl ? 0 : w - panel_w, top, panel_w, h - top - bottom};
    if (t && panel_w > 0) lay->panel_content_h = text_panel(cr, s, wd, &th, lay->panel, u, lay);
    // bottom: buttons and status; right to left, Prev is at the right and points right
    app_rect bar = {0, h - bottom, w, bottom};
    fill_rect(cr, bar, th.panel);
    double bwid = 96 * u, by = h - bottom + 5 * u, bh = bottom - 10 * u;
    lay->prev_btn = (app_rect){rtl ? w - 8 * u - bwid : 8 * u, by, bwid, bh};
    lay->next_btn = (app_rect){rtl ? w - 16 * u - 2 * bwid : 16 * u + bwid, by, bwid, bh};
    char label[128];
    snprintf(label, sizeof label, rtl ? "▶ %s" : "◀ %s", _("Prev"));
    button(cr, &th, lay->prev_btn, u, label, rtl);
    snprintf(label, sizeof label, rtl ? "%s ◀" : "%s ▶", _("Next"));
    button(cr, &th, lay->next_btn, u, label, rtl);
    char status[600] = "";
    status_add(status, sizeof status, "%s", wd->model_name);
    if (t) {
        const tf_stage *st = &t->stages[s->stage];
        status_add(status, sizeof status, "%s", st->id);
        status_add(status, sizeof status, "%d/%d", s->stage + 1, t->n);
        if (st->layer >= 0) status_add(status, sizeof status, _("layer %d"), st->layer + 1);
        render_view v = app_state_view(s, t);
        if (v == RENDER_VIEW_LINES || v == RENDER_VIEW_LINES_HEADS) status_add(status, sizeof status, "%s", _("lines"));
        else if (v == RENDER_VIEW_TOPK) status_add(status, sizeof status, "%s", _("most likely tokens"));
        else if (v == RENDER_VIEW_GRID) status_add(status, sizeof status, "%s", _("every layer and head"));
        if (t->beam) status_add(status, sizeof status, _("beam %d"), t->beam->K);
        if (st->head >= 0 && s->all_heads) status_add(status, sizeof status, "%s", _("all heads"));
        else if (st->head >= 0) status_add(status, sizeof status, _("head %d"), st->head + 1);
        int steps = tf_stage_time_steps(t, s->stage);
        if (steps > 0 && s->time_step >= 0 && s->time_step < steps) {
            char buf[64];
            render_opts lo = app_render_opts(s);
            status_add(status, sizeof status, _("time step %d of %d: %s"), s->time_step + 1, steps, render_axis_label(t, st->row_axis, s->time_step, &lo, buf, sizeof buf));
        } else if (wd->r->greedy && !tf_stage_is_lstm(st))
            status_add(status, sizeof status, _("decoding step %d/%d"), wd->r->T, s->decode_step ? s->decode_full : wd->r->T);
        if (s->zoom != 1) status_add(status, sizeof status, _("zoom %.0f%%"), s->zoom * 100);
        if (wd->tl && wd->tl->n && s->snap < wd->tl->n) status_add(status, sizeof status, _("training step %d"), wd->tl->step[s->snap]);
        char parts[300];
        if (t->without) status_add(status, sizeof status, _("what if: without %s"), render_without_text(&o, t->without, parts, sizeof parts));
        if (t->norm_first) status_add(status, sizeof status, "%s", _("pre-LN"));
    }
    double ty = h - bottom + (bottom - 18 * u) / 2;
    render_text_style ss = ui_style(13 * u, th.fg, rtl);
    ss.max_width = w * 0.55;
    render_text(cr, status, rtl ? w - 224 * u : 224 * u, ty, &ss);
    render_text_style ms = ui_style(13 * u, s->message_is_error ? (render_rgb){0.8, 0.1, 0.1} : th.accent, rtl);
    ms.align = rtl ? RENDER_ALIGN_LEFT : RENDER_ALIGN_RIGHT;
    ms.max_width = w * 0.38;
    ms.bold = 1;
    if (s->message_is_error && s->high_contrast) ms.color = (render_rgb){1, 0.4, 0.4};
    render_text(cr, s->message[0] ? s->message : _("? for help"), rtl ? 10 * u : w - 10 * u, ty, &ms);
    if (s->term[0] && !s->help) term_tooltip(cr, s, wd, &th, w, h, u);
    if (s->help) help_overlay(cr, &th, w, h, u, rtl);
}

int app_view_hit(const app_state *s, const app_world *wd, const app_layout *lay, double x, double y, int *row, int *col) {
    if (!wd->r || !inside(lay->view, x, y)) return -1;
    render_view v = app_state_view(s, &wd->r->trace);
    if (v == RENDER_VIEW_AUTO) v = render_view_for(&wd->r->trace, s->stage);
    int lines = v == RENDER_VIEW_LINES || v == RENDER_VIEW_LINES_HEADS;
    if (v != RENDER_VIEW_MATRIX && v != RENDER_VIEW_HEATMAP && !lines) return -1;
    render_opts o = app_render_opts(s);
    double vx = (x - lay->view.x - s->pan_x) / s->zoom, vy = (y - lay->view.y - s->pan_y) / s->zoom;
    if (lines) return render_lines_hit(&wd->r->trace, s->stage, v == RENDER_VIEW_LINES_HEADS, &o, lay->view.w, lay->view.h, vx, vy, row, col);
    return render_matrix_hit(&wd->r->trace, s->stage, &o, lay->view.w, lay->view.h, vx, vy, row, col);
}
