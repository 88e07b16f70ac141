// picture.c — a view drawn into PNG (stb_image_write), SVG or PDF (cairo's
// surfaces) bytes, for export and for the window's E key alike.
#include "io.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <pthread.h>
#include <stb_image_write.h>
#include <stdint.h>
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

static void stb_sink(void *ctx, void *data, int size) { io_membuf_append(ctx, data, (size_t)size); }

// cairo's ARGB32 is premultiplied, native-endian 0xAARRGGBB; PNG wants
// straight RGBA bytes, or RGB when every pixel is opaque (as every view is:
// each paints its background), which stb encodes a quarter faster.
// Returns the channels written: 3 or 4.
static int argb_to_png_bytes(unsigned char *dst, const unsigned char *src, int w, int h, int stride) {
    int opaque = 1;
    for (int y = 0; y < h && opaque; y++) {
        const uint32_t *row = (const uint32_t *)(src + (size_t)y * stride);
        for (int x = 0; x < w; x++) opaque &= (row[x] >> 24) == 255;
    }
    int ch = opaque ? 3 : 4;
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(src + (size_t)y * stride);
        unsigned char *d = dst + (size_t)y * w * ch;
        for (int x = 0; x < w; x++, d += ch) {
            uint32_t p = row[x];
            unsigned a = p >> 24, r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            if (a && a < 255) { r = (r * 255 + a / 2) / a; g = (g * 255 + a / 2) / a; b = (b * 255 + a / 2) / a; }
            d[0] = (unsigned char)r; d[1] = (unsigned char)g; d[2] = (unsigned char)b;
            if (ch == 4) d[3] = (unsigned char)a;
        }
    }
    return ch;
}

// stb's PNG settings, measured on tviz's pictures (flat cells, text on
// white): no per-row filter search and zlib level 5 encode a 1200 × 800
// heatmap about 4x faster than the defaults for files a few % larger.
// Process-wide globals: set once, whichever thread encodes first.
static void png_settings_once(void) {
    stbi_write_force_png_filter = 0;
    stbi_write_png_compression_level = 5;
}

static void png_settings(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, png_settings_once);
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
    png_settings();
    cairo_surface_flush(sf);
    int pw = cairo_image_surface_get_width(sf), ph = cairo_image_surface_get_height(sf);
    unsigned char *px = malloc((size_t)pw * ph * 4);
    io_membuf b = {0};
    int ok = px != NULL;
    if (ok) {
        int ch = argb_to_png_bytes(px, cairo_image_surface_get_data(sf), pw, ph, cairo_image_surface_get_stride(sf));
        ok = stbi_write_png_to_func(stb_sink, &b, pw, ph, ch, px, pw * ch) && !b.failed;
    }
    free(px);
    if (!ok) { free(b.p); return -1; }
    *out = b.p;
    *n = b.n;
    return 0;
}
