// picture.c — a view drawn into PNG (libpng), SVG or PDF (cairo's
// surfaces) bytes, for export and for the window's E key alike.
#include "io.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
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


// PNG through libpng at zlib level 1 without row filters: measured on
// tviz's pictures (flat cells, text on white), 7x faster than
// stb_image_write at any of its levels, for files a few % smaller.
// cairo's ARGB32 is premultiplied, native-endian 0xAARRGGBB; an opaque
// surface (every view paints its background) goes to libpng as it is, its
// rows as B, G, R, unused (little-endian) or unused, R, G, B (big-endian);
// one with transparency is un-premultiplied into straight RGBA first.
static int is_opaque(const unsigned char *px, int w, int h, int stride) {
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(px + (size_t)y * stride);
        for (int x = 0; x < w; x++) if ((row[x] >> 24) != 255) return 0;
    }
    return 1;
}

static void png_sink(png_structp p, png_bytep data, png_size_t len) { io_membuf_append(png_get_io_ptr(p), data, len); }
static void png_flush_none(png_structp p) { (void)p; }

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
    int w = cairo_image_surface_get_width(sf), h = cairo_image_surface_get_height(sf), stride = cairo_image_surface_get_stride(sf);
    const unsigned char *px = cairo_image_surface_get_data(sf);
    int opaque = is_opaque(px, w, h, stride);
    unsigned char *rgba = opaque ? NULL : malloc((size_t)w * h * 4);
    if (!opaque && !rgba) return -1;
    if (!opaque)
        for (int y = 0; y < h; y++) {
            const uint32_t *row = (const uint32_t *)(px + (size_t)y * stride);
            unsigned char *d = rgba + (size_t)y * w * 4;
            for (int x = 0; x < w; x++, d += 4) {
                uint32_t p = row[x];
                unsigned a = p >> 24, r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
                if (a && a < 255) { r = (r * 255 + a / 2) / a; g = (g * 255 + a / 2) / a; b = (b * 255 + a / 2) / a; }
                d[0] = (unsigned char)r; d[1] = (unsigned char)g; d[2] = (unsigned char)b; d[3] = (unsigned char)a;
            }
        }
    io_membuf b = {0};
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    int ok = p && info;
    if (ok && setjmp(png_jmpbuf(p))) ok = 0; // (libpng's errors land here)
    else if (ok) {
        png_set_write_fn(p, &b, png_sink, png_flush_none);
        png_set_compression_level(p, 1);
        png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, 8, opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
        png_write_info(p, info);
        if (opaque) {
            const uint16_t one = 1;
            if (*(const unsigned char *)&one) { png_set_bgr(p); png_set_filler(p, 0, PNG_FILLER_AFTER); } // B G R x
            else png_set_filler(p, 0, PNG_FILLER_BEFORE);                                                  // x R G B
        }
        for (int y = 0; y < h; y++) png_write_row(p, opaque ? (png_const_bytep)(px + (size_t)y * stride) : rgba + (size_t)y * w * 4);
        png_write_end(p, info);
    }
    png_destroy_write_struct(p ? &p : NULL, info ? &info : NULL);
    free(rgba);
    if (!ok || b.failed) { free(b.p); return -1; }
    *out = b.p;
    *n = b.n;
    return 0;
}
