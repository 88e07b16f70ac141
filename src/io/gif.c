// gif.c — animated GIF through giflib: each frame an image surface,
// quantized to its own 256 colours (giflib's median cut), LZW-compressed by
// giflib, looping forever with a delay per frame.
#include "io.h"

#include <gif_lib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct io_gif {
    GifFileType *gif;
    io_membuf out;
    int w, h, delay_cs, frames, failed;
    unsigned char *r, *g, *b, *idx; // (w·h) planes and the quantized frame
};

static int sink(GifFileType *gif, const GifByteType *data, int len) {
    io_membuf *b = gif->UserData;
    io_membuf_append(b, data, (size_t)len);
    return b->failed ? 0 : len;
}

io_gif *io_gif_begin(int w, int h, int delay_ms) {
    io_gif *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->w = w;
    g->h = h;
    g->delay_cs = (delay_ms + 5) / 10;
    size_t n = (size_t)w * h;
    g->r = malloc(n); g->g = malloc(n); g->b = malloc(n); g->idx = malloc(n);
    int err = 0;
    g->gif = g->r && g->g && g->b && g->idx ? EGifOpen(&g->out, sink, &err) : NULL;
    if (!g->gif || EGifPutScreenDesc(g->gif, w, h, 8, 0, NULL) == GIF_ERROR) { io_gif_free(g); return NULL; }
    EGifSetGifVersion(g->gif, true); // GIF89a: delays and the loop
    // loop forever (the Netscape application extension)
    static const GifByteType app[] = "NETSCAPE2.0", loop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR || EGifPutExtensionBlock(g->gif, 11, app) == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(g->gif) == GIF_ERROR) { io_gif_free(g); return NULL; }
    return g;
}

int io_gif_frame(io_gif *g, cairo_surface_t *sf) {
    if (!g || g->failed) return -1;
    cairo_surface_flush(sf);
    if (cairo_image_surface_get_width(sf) != g->w || cairo_image_surface_get_height(sf) != g->h) return g->failed = 1, -1;
    const unsigned char *px = cairo_image_surface_get_data(sf);
    int stride = cairo_image_surface_get_stride(sf);
    for (int y = 0; y < g->h; y++) { // premultiplied ARGB over white
        const uint32_t *row = (const uint32_t *)(px + (size_t)y * stride);
        size_t o = (size_t)y * g->w;
        for (int x = 0; x < g->w; x++) {
            uint32_t p = row[x], a = p >> 24;
            g->r[o + x] = (unsigned char)(((p >> 16) & 255) + 255 - a);
            g->g[o + x] = (unsigned char)(((p >> 8) & 255) + 255 - a);
            g->b[o + x] = (unsigned char)((p & 255) + 255 - a);
        }
    }
    int ncol = 256;
    GifColorType pal[256];
    if (GifQuantizeBuffer((unsigned)g->w, (unsigned)g->h, &ncol, g->r, g->g, g->b, g->idx, pal) == GIF_ERROR) return g->failed = 1, -1;
    // (median cut averages white with the near-white greys around it: a
    // cluster that close to white is white, so backgrounds stay white)
    for (int i = 0; i < ncol; i++)
        if (pal[i].Red >= 246 && pal[i].Green >= 246 && pal[i].Blue >= 246) pal[i].Red = pal[i].Green = pal[i].Blue = 255;
    int bits = 1;
    while ((1 << bits) < ncol) bits++;
    ColorMapObject *map = GifMakeMapObject(1 << bits, NULL);
    if (!map) return g->failed = 1, -1;
    memset(map->Colors, 0, sizeof(GifColorType) * (size_t)(1 << bits));
    memcpy(map->Colors, pal, sizeof(GifColorType) * (size_t)ncol);
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSE_DO_NOT, .UserInputFlag = false, .DelayTime = g->delay_cs, .TransparentColor = NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    size_t len = EGifGCBToExtension(&gcb, ext);
    int ok = EGifPutExtension(g->gif, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) != GIF_ERROR &&
             EGifPutImageDesc(g->gif, 0, 0, g->w, g->h, false, map) != GIF_ERROR;
    for (int y = 0; ok && y < g->h; y++) ok = EGifPutLine(g->gif, g->idx + (size_t)y * g->w, g->w) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!ok) return g->failed = 1, -1;
    g->frames++;
    return 0;
}

int io_gif_end(io_gif *g, unsigned char **out, size_t *n) {
    if (!g) return -1;
    int err = 0, ok = !g->failed && g->frames > 0;
    if (EGifCloseFile(g->gif, &err) == GIF_ERROR) ok = 0;
    g->gif = NULL;
    ok = ok && !g->out.failed;
    if (ok) { *out = g->out.p; *n = g->out.n; g->out.p = NULL; }
    io_gif_free(g);
    return ok ? 0 : -1;
}

void io_gif_free(io_gif *g) {
    if (!g) return;
    int err;
    if (g->gif) EGifCloseFile(g->gif, &err);
    free(g->out.p);
    free(g->r); free(g->g); free(g->b); free(g->idx);
    free(g);
}
