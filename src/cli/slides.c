// slides.c — `tviz export --slides`: a 16:9 PDF deck a teacher projects as
// it is, one page for every stage in the paper's order: the stage's title,
// its picture (the output's page shows the most likely next tokens), and the
// first two or three lines the lesson says about it, in the lesson's
// language and direction.
#include "cli.h"
#include "../lesson/i18n.h"
#include "../lesson/lesson.h"

#include <cairo-pdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SLIDE_W 960.0 // points: 13.33 × 7.5 in, 16:9
#define SLIDE_H 540.0
#define EDGE 34.0
#define LINES 3       // lines of the lesson a slide keeps

// The lesson's first paragraphs beside stage i, as plain text, cut to
// LINES lines of width w (with "…"); "" when the lesson says nothing there.
static void lesson_lines(cairo_t *cr, const lesson *l, render_lesson_ctx *lc, const tf_trace *t, int i, const render_text_style *st,
                         char *out, size_t n) {
    out[0] = 0;
    const lesson_section *sec = l ? lesson_for_stage(l, t->stages[i].id) : NULL;
    if (!sec) return;
    static char buf[9000], plain[9000], esc[20000];
    size_t k = 0;
    char why[300];
    lc->stage = i;
    for (int b = 0; b < sec->n_blocks && k < n / 2; b++) { // (more than the lines keep)
        const lesson_block *bl = &sec->blocks[b];
        if (bl->kind != LESSON_PARA && bl->kind != LESSON_BULLET && bl->kind != LESSON_NUMBERED) continue;
        if (bl->cond && render_lesson_cond(lc, bl->cond, why, sizeof why) != 1) continue;
        if (lesson_expand(bl->markup, render_lesson_value, lc, buf, sizeof buf) || render_markup_plain(buf, plain, sizeof plain)) continue;
        size_t len = strlen(plain);
        if (k + len + 2 >= n) { // the part that fits, ending at a whole character
            len = n - k - 2;
            while (len > 0 && ((unsigned char)plain[len] & 0xC0) == 0x80) len--;
        }
        if (k) out[k++] = ' ';
        memcpy(out + k, plain, len);
        k += len;
        out[k] = 0;
    }
    render_markup_escape(esc, sizeof esc, out);
    int starts[16];
    double over[16];
    int lines = render_markup_lines(cr, esc, st, starts, over, 16);
    if (lines > LINES) { // cut at the start of the line after the last kept, at a space
        size_t cut = (size_t)starts[LINES];
        while (cut > 0 && out[cut - 1] == ' ') cut--;
        if (cut + 4 < n) memcpy(out + cut, " …", 5);
    }
}

typedef struct {
    const io_run *c;
    const lesson *l;
    render_lesson_ctx lc;
    render_opts o;
    render_theme th;
} deck;

static void slide(cairo_t *cr, deck *d, int i) {
    const tf_trace *t = &d->c->r.trace;
    const tf_stage *s = &t->stages[i];
    int rtl = d->o.rtl;
    render_set_rgb(cr, d->th.bg);
    cairo_paint(cr);
    // the title, from the language's side
    char title[400];
    render_stage_title(t, i, &d->o, title, sizeof title);
    render_text_style ts = render_style(24, d->th.fg);
    ts.bold = 1;
    ts.width = SLIDE_W - 2 * EDGE;
    ts.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    double y = EDGE * 0.8;
    y += render_text(cr, title, EDGE, y, &ts) + 6;
    // the lesson's lines at the bottom, the picture between
    render_text_style ls = render_style(15, d->th.fg);
    ls.width = SLIDE_W - 2 * EDGE;
    ls.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    char text[4000];
    lesson_lines(cr, d->l, &d->lc, t, i, &ls, text, sizeof text);
    if (!text[0]) snprintf(text, sizeof text, "%s", render_tr(&d->o, s->formula));
    double tw, th;
    render_text_size(cr, text, &ls, &tw, &th);
    double text_y = SLIDE_H - EDGE - 14 - th;
    render_view v = s->col_axis == TF_AXIS_VOCAB ? RENDER_VIEW_TOPK : render_view_for(t, i);
    // the view laid out for the space it has, 700 units high: its type stays readable on a projector
    double aw = SLIDE_W - 2 * EDGE, ah = text_y - 12 - y, dh = 700, dw = dh * aw / ah, scale = ah / dh;
    double pw = dw * scale;
    cairo_save(cr);
    cairo_translate(cr, EDGE + (aw - pw) / 2, y);
    cairo_scale(cr, scale, scale);
    render_draw(cr, t, &d->c->m, i, v, &d->o, dw, dh);
    cairo_restore(cr);
    render_text(cr, text, EDGE, text_y, &ls);
    // the footer: where in the deck, and what made it
    char foot[400], model[256];
    snprintf(foot, sizeof foot, "%d / %d  ·  tviz  ·  %s", i + 1, t->n, render_model_name(d->c->path, model, sizeof model));
    render_text_style fs = render_style(9, d->th.muted);
    fs.align = rtl ? RENDER_ALIGN_LEFT : RENDER_ALIGN_RIGHT;
    render_text(cr, foot, rtl ? EDGE : SLIDE_W - EDGE, SLIDE_H - EDGE * 0.7, &fs);
}

int cli_export_slides(const io_run *c, const char *lang, const render_opts *proto, const char *out) {
    const char *dot = strrchr(out, '.');
    if (!dot || strcmp(dot, ".pdf")) return io_error(out, "a slide deck is a PDF; give -o FILE.pdf");
    char path[4200], err[600];
    lesson l;
    int have_lesson = 0;
    if (lesson_dir()) { // the lesson in that language, when there is one (else the formulas say it)
        snprintf(path, sizeof path, "%s/%s/inside-transformer.md", lesson_dir(), lang);
        struct stat st;
        if (!stat(path, &st)) {
            if (lesson_load(&l, path, lang, err, sizeof err)) return io_error(NULL, "lessons/%.30s/inside-transformer.md:%s", lang, err);
            have_lesson = 1;
        }
    }
    char model[256];
    deck d = {.c = c, .l = have_lesson ? &l : NULL, .lc = {&c->r.trace, &c->m, render_model_name(c->path, model, sizeof model), -1, c->r.greedy},
              .o = *proto};
    d.o.typed_target = !c->r.greedy;
    d.th = render_theme_get(&d.o);
    io_membuf bytes = {0};
    cairo_surface_t *pdf = cairo_pdf_surface_create_for_stream(io_membuf_sink, &bytes, SLIDE_W, SLIDE_H);
    char title[300];
    snprintf(title, sizeof title, "tviz: %s", have_lesson ? l.title : "Transformer");
    cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_TITLE, title);
    cairo_pdf_surface_set_metadata(pdf, CAIRO_PDF_METADATA_CREATOR, "tviz " TF_VERSION);
    cairo_t *cr = cairo_create(pdf);
    const tf_trace *t = &c->r.trace;
    for (int i = 0; i < t->n; i++) {
        slide(cr, &d, i);
        cairo_show_page(cr);
    }
    int rc = cairo_status(cr) != CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    cairo_surface_finish(pdf);
    if (rc || cairo_surface_status(pdf) != CAIRO_STATUS_SUCCESS || bytes.failed) rc = io_error(out, "could not make the PDF (out of memory?); nothing was written");
    cairo_surface_destroy(pdf);
    if (!rc) rc = io_write_file(out, (const char *)bytes.p, bytes.n);
    if (!rc) fprintf(stderr, "tviz: wrote %s (%d slides, %s)\n", out, t->n, lang);
    free(bytes.p);
    if (have_lesson) lesson_free(&l);
    return rc;
}
