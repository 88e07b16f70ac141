// picture.c — a view drawn into PNG (png.c), SVG or PDF (cairo's
// surfaces) bytes, for export and for the window's E key alike.
#include "io.h"
#include "png.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void io_membuf_append(io_membuf *b, const void *data, size_t len) {
    if (b->failed) return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + len) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) { b->failed = 1; return; }
        b->p = p;
        b->cap = cap;
    }
    if (len) memcpy(b->p + b->n, data, len); // (data may be NULL when len is 0)
    b->n += len;
}

cairo_status_t io_membuf_sink(void *closure, const unsigned char *data, unsigned int len) {
    io_membuf_append(closure, data, len);
    return ((io_membuf *)closure)->failed ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}


// Renders a drawing to bytes in out. Returns 0, or -1 (out of memory or a cairo error).
static int draw_into(io_format fmt, double w, double h, double scale, io_draw_fn fn, void *ctx, io_membuf *out) {
    cairo_surface_t *sf;
    int pw = (int)ceil(w * scale), ph = (int)ceil(h * scale);
    if (fmt == IO_PNG) sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    else if (fmt == IO_SVG) sf = cairo_svg_surface_create_for_stream(io_membuf_sink, out, w, h);
    else sf = cairo_pdf_surface_create_for_stream(io_membuf_sink, out, w, h);
    cairo_t *cr = cairo_create(sf);
    if (fmt == IO_PNG) cairo_scale(cr, scale, scale);
    fn(cr, ctx, w, h);
    int ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    if (fmt == IO_PNG && ok) {
        unsigned char *png;
        size_t n;
        ok = io_png_surface(sf, &png, &n) == 0;
        if (ok) { free(out->p); out->p = png; out->n = out->cap = n; }
    } else cairo_surface_finish(sf);
    ok = ok && cairo_surface_status(sf) == CAIRO_STATUS_SUCCESS && !out->failed;
    cairo_surface_destroy(sf);
    return ok ? 0 : -1;
}

int io_draw_with(io_format fmt, double w, double h, double scale, io_draw_fn fn, void *ctx, unsigned char **out, size_t *n) {
    io_membuf b = {0};
    if (draw_into(fmt, w, h, scale, fn, ctx, &b)) { free(b.p); return -1; }
    *out = b.p;
    *n = b.n;
    return 0;
}

static void draw_picture(cairo_t *cr, void *ctx, double w, double h) {
    const io_picture *j = ctx;
    render_draw(cr, j->t, j->m, j->stage, j->view, &j->opts, w, h);
}

int io_draw(const io_picture *p, unsigned char **out, size_t *n) {
    return io_draw_with(p->fmt, p->w, p->h, p->scale, draw_picture, (void *)p, out, n);
}

int io_png_surface(cairo_surface_t *sf, unsigned char **out, size_t *n) {
    cairo_surface_flush(sf);
    if (cairo_surface_status(sf) || cairo_image_surface_get_format(sf) != CAIRO_FORMAT_ARGB32) return -1;
    return io_png_encode(cairo_image_surface_get_data(sf), cairo_image_surface_get_width(sf), cairo_image_surface_get_height(sf),
                         cairo_image_surface_get_stride(sf), out, n);
}
