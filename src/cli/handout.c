// handout.c — a lesson as a printable handout: A4 pages that interleave the
// lesson's text (in its language and direction) with the diagram of each
// section's stage, self-check questions at the end and their answers on the
// last page. One PDF (cairo), or numbered PNG pages.
#include "cli.h"
#include "../lesson/i18n.h"
#include "../lesson/lesson.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PAGE_W 595.0  // A4 in points
#define PAGE_H 842.0
#define MARGIN 50.0
#define PNG_SCALE 2.0 // PNG pages at 144 dpi

typedef struct {
    io_format fmt;
    cairo_surface_t *pdf;       // the PDF, or NULL
    cairo_surface_t *page;      // the current PNG page
    cairo_t *cr;
    const char *out;            // the PDF file or the PNG folder
    int page_no, failed;
    double y;                   // where the next block goes
    const lesson *l;
    render_lesson_ctx lc;       // what the lesson's live values read; lc.stage: the section's stage
    render_theme th;
    render_opts o;             // the diagrams' options: the lesson's language
} handout;

static void footer(handout *h) {
    char buf[64];
    snprintf(buf, sizeof buf, "— %d —", h->page_no);
    render_text_style st = render_style(9, h->th.muted);
    st.align = RENDER_ALIGN_CENTER;
    render_text(h->cr, buf, PAGE_W / 2, PAGE_H - MARGIN * 0.6, &st);
}

// Finishes the current page: its footer, then the PDF page or the PNG file.
static void end_page(handout *h) {
    footer(h);
    if (h->fmt == IO_PDF) { cairo_show_page(h->cr); return; }
    unsigned char *png;
    size_t n;
    char path[4200];
    snprintf(path, sizeof path, "%s/page-%02d.png", h->out, h->page_no);
    if (io_png_surface(h->page, &png, &n) || io_write_file(path, (const char *)png, n)) h->failed = 1;
    else free(png);
    cairo_destroy(h->cr);
    cairo_surface_destroy(h->page);
    h->cr = NULL;
}

static void new_page(handout *h) {
    if (h->page_no > 0) end_page(h);
    if (h->fmt != IO_PDF) {
        h->page = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(PAGE_W * PNG_SCALE), (int)(PAGE_H * PNG_SCALE));
        h->cr = cairo_create(h->page);
        cairo_scale(h->cr, PNG_SCALE, PNG_SCALE);
    }
    render_set_rgb(h->cr, h->th.bg);
    cairo_paint(h->cr);
    h->page_no++;
    h->y = MARGIN;
}

static render_text_style text_style(const handout *h, double size) {
    render_text_style st = render_style(size, h->th.fg);
    st.width = PAGE_W - 2 * MARGIN;
    st.dir = h->l->rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    return st;
}

// Places a block of markup, starting a new page when it does not fit.
static void block(handout *h, const char *markup, const render_text_style *st, double gap) {
    double w, hh;
    render_markup_size(h->cr, markup, st, &w, &hh);
    if (h->y + hh > PAGE_H - MARGIN) new_page(h);
    render_markup(h->cr, markup, MARGIN, h->y, st);
    h->y += hh + gap;
}

static void diagram(handout *h, const tf_trace *t, const tf_model *m, int stage) {
    double dw, dh;
    render_view v = render_view_for(t, stage);
    render_default_size(t, stage, v, &dw, &dh);
    // laid out at 760 units wide, not 1200: on paper its type stays readable
    dh = dh * 760 / dw;
    dw = 760;
    double w = PAGE_W - 2 * MARGIN, scale = w / dw, hh = dh * scale;
    if (hh > PAGE_H * 0.45) { scale = PAGE_H * 0.45 / dh; hh = PAGE_H * 0.45; w = dw * scale; }
    if (h->y + hh > PAGE_H - MARGIN) new_page(h);
    cairo_save(h->cr);
    cairo_translate(h->cr, MARGIN + (PAGE_W - 2 * MARGIN - w) / 2, h->y);
    cairo_scale(h->cr, scale, scale);
    render_draw(h->cr, t, m, stage, v, &h->o, dw, dh);
    cairo_restore(h->cr);
    render_set_rgb(h->cr, h->th.grid);
    cairo_set_line_width(h->cr, 0.5);
    cairo_rectangle(h->cr, MARGIN + (PAGE_W - 2 * MARGIN - w) / 2, h->y, w, hh);
    cairo_stroke(h->cr);
    h->y += hh + 16;
}

static void section_text(handout *h, const lesson_section *sec, int answers) {
    char buf[9000], why[300];
    int q = 0;
    for (int i = 0; i < sec->n_blocks; i++) {
        const lesson_block *b = &sec->blocks[i];
        if (b->cond && render_lesson_cond(&h->lc, b->cond, why, sizeof why) != 1) continue;
        render_text_style st = text_style(h, 11);
        const char *mark = b->kind == LESSON_BULLET ? "•  " : b->kind == LESSON_NUMBERED ? "–  " : "";
        int k = snprintf(buf, sizeof buf, "%s", mark);
        if (b->kind == LESSON_QUESTION) k = snprintf(buf, sizeof buf, "<b>%d.</b>  ", ++q);
        if (b->kind == LESSON_ANSWER) k = snprintf(buf, sizeof buf, "<b>%d.</b>  ", q);
        lesson_expand(b->markup, render_lesson_value, &h->lc, buf + k, sizeof buf - (size_t)k);
        switch (b->kind) {
        case LESSON_HEADING: st.bold = 1; st.size = 12; block(h, buf, &st, 4); break;
        case LESSON_BULLET: case LESSON_NUMBERED: block(h, buf, &st, 3); break;
        case LESSON_QUESTION: if (!answers) block(h, buf, &st, 8); break;
        case LESSON_ANSWER: if (answers) block(h, buf, &st, 8); break;
        default: block(h, buf, &st, 7); break;
        }
    }
}

// The stage whose diagram goes with a section: of the stages the window
// shows it beside, the first attention heatmap, else the first; -1 if none.
static int section_stage(const tf_trace *t, const lesson *l, const lesson_section *sec) {
    int first = -1;
    for (int i = 0; i < t->n; i++) {
        if (lesson_for_stage(l, t->stages[i].id) != sec) continue;
        if (t->stages[i].op == TF_OP_WEIGHTS) return i;
        if (first < 0) first = i;
    }
    return first;
}

int cli_handout(const io_run *c, const char *name, const char *lang, io_format fmt, const char *out) {
    char path[4200], shown[300], err[600];
    if (!lesson_dir()) return io_error("lessons", "%s", io_no_lessons());
    snprintf(path, sizeof path, "%s/%s/%s.md", lesson_dir(), lang, name);
    snprintf(shown, sizeof shown, "lessons/%.40s/%.200s.md", lang, name); // named as in the source tree, not where it was found
    lesson l;
    if (lesson_load(&l, path, lang, err, sizeof err)) {
        struct stat st;
        if (stat(path, &st)) return io_error(shown, "no such lesson; give one such as inside-transformer or rnn-or-transformer, and a language such as en, fa or ar");
        return io_error(NULL, "%s:%s", shown, err);
    }
    char model[256];
    handout h = {.fmt = fmt, .out = out, .l = &l,
                 .lc = {&c->r.trace, &c->m, render_model_name(c->path, model, sizeof model), -1, c->r.greedy}};
    render_opts_default(&h.o);
    cli_language(&h.o, lang); // the page headings and the diagrams in the lesson's language
    h.th = render_theme_get(&h.o);
    io_membuf bytes = {0};
    if (fmt == IO_PDF) {
        h.pdf = cairo_pdf_surface_create_for_stream(io_membuf_sink, &bytes, PAGE_W, PAGE_H);
        cairo_pdf_surface_set_metadata(h.pdf, CAIRO_PDF_METADATA_TITLE, l.title);
        cairo_pdf_surface_set_metadata(h.pdf, CAIRO_PDF_METADATA_CREATOR, "tviz " TF_VERSION);
        h.cr = cairo_create(h.pdf);
    } else {
        struct stat st;
        if (stat(out, &st) && mkdir(out, 0777)) { lesson_free(&l); return io_error(out, "cannot create the folder (%s); check that its parent exists", strerror(errno)); }
    }
    new_page(&h);
    const tf_trace *t = &c->r.trace;
    render_text_style title = text_style(&h, 22);
    title.bold = 1;
    block(&h, l.title, &title, 6);
    char sub[1200];
    snprintf(sub, sizeof sub, "tviz · %.200s · “%.700s”", strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path, c->src);
    render_text_style small = text_style(&h, 9);
    small.color = h.th.muted;
    small.dir = RENDER_DIR_AUTO;
    block(&h, sub, &small, 18);
    const lesson_section *check = NULL;
    for (int i = 0; i < l.n; i++) {
        const lesson_section *sec = &l.sec[i];
        if (!strcmp(sec->patterns[0], "check")) { check = sec; continue; }
        int stage = section_stage(t, &l, sec);
        h.lc.stage = stage;
        if (stage >= 0) { // a heading with the stage's title, then its diagram, then the text
            char head[240];
            render_stage_title(t, stage, &h.o, head, sizeof head);
            render_text_style hs = text_style(&h, 14);
            hs.bold = 1;
            hs.dir = RENDER_DIR_AUTO;
            if (h.y > MARGIN + 1 && h.y + 300 > PAGE_H - MARGIN) new_page(&h);
            block(&h, head, &hs, 6);
            diagram(&h, t, &c->m, stage);
        }
        section_text(&h, sec, 0);
        h.y += 10;
    }
    h.lc.stage = -1;
    if (check) {
        render_text_style hs = text_style(&h, 14);
        hs.bold = 1;
        new_page(&h);
        block(&h, _("Self-check"), &hs, 8);
        section_text(&h, check, 0);
        new_page(&h);
        block(&h, _("Answers"), &hs, 8);
        section_text(&h, check, 1);
    }
    end_page(&h);
    int rc = h.failed;
    if (fmt == IO_PDF) {
        cairo_destroy(h.cr);
        cairo_surface_finish(h.pdf);
        if (cairo_surface_status(h.pdf) != CAIRO_STATUS_SUCCESS || bytes.failed) rc = io_error(out, "could not make the PDF (out of memory?)");
        cairo_surface_destroy(h.pdf);
        if (!rc) rc = io_write_file(out, (const char *)bytes.p, bytes.n);
    }
    if (!rc) fprintf(stderr, "tviz: wrote %s (%d pages, %s)\n", out, h.page_no, lang);
    free(bytes.p);
    lesson_free(&l);
    return rc;
}
