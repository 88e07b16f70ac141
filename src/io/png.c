// png.c — PNG bytes with stb_image_write (Debian's libstb-dev) and zlib,
// from cairo's premultiplied ARGB32 pixels. No cairo: the desktop and the
// browser build compile this file as it is.
#include "png.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// The header's implementation, here once, its functions static to this file;
// its own warnings silenced for it alone (the project's flags stay on).
// Its deflate is zlib's, through its own hook, STBIW_ZLIB_COMPRESS (below).
static unsigned char *zlib_deflate(unsigned char *data, int len, int *out_len, int quality);
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBIW_ZLIB_COMPRESS zlib_deflate
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

// ---------------------------------------------------------------- deflate
// stb's own deflate compares up to ten earlier places byte by byte for
// every match: 44 ms of CPU for make bench's 1200 × 1000 heatmap at its
// fastest setting, too slow to stay 10× faster than matplotlib. Its
// documented hook takes zlib's instead (Debian's zlib; the browser build
// compiles zlib's source package), at level 1: tviz's pictures are long
// runs and rows that repeat the row above, which level 1 finds.
static unsigned char *zlib_deflate(unsigned char *data, int len, int *out_len, int quality) {
    (void)quality;
    uLongf n = compressBound((uLong)len);
    unsigned char *out = malloc(n);
    if (!out) return NULL;
    if (compress2(out, &n, data, (uLong)len, 1) != Z_OK || n > INT_MAX) { free(out); return NULL; }
    *out_len = (int)n;
    return out;
}

static inline uint32_t pixel(const unsigned char *px, int stride, int x, int y) {
    uint32_t p;
    memcpy(&p, px + (size_t)y * stride + (size_t)x * 4, 4);
    return p;
}

int io_png_encode(const unsigned char *px, int w, int h, int stride, unsigned char **out, size_t *n) {
    if (w <= 0 || h <= 0 || (size_t)w * 4 + 1 > (size_t)INT_MAX / (size_t)h || stride < w * 4) return -1; // (stb's sizes are ints)
    int opaque = 1;
    for (int y = 0; y < h && opaque; y++) {
        uint32_t all = 0xffffffffu; // (every pixel's bits and-ed: a loop without branches)
        for (int x = 0; x < w; x++) all &= pixel(px, stride, x, y);
        opaque = all >> 24 == 255;
    }
    int c = opaque ? 3 : 4; // bytes per pixel written
    unsigned char *bytes = malloc((size_t)w * h * c);
    if (!bytes) return -1;
    unsigned char *d = bytes;
    for (int y = 0; y < h && opaque; y++)
        for (int x = 0; x < w; x++, d += 3) {
            uint32_t p = pixel(px, stride, x, y);
            d[0] = (unsigned char)(p >> 16);
            d[1] = (unsigned char)(p >> 8);
            d[2] = (unsigned char)p;
        }
    for (int y = 0; y < h && !opaque; y++)
        for (int x = 0; x < w; x++, d += 4) {
            uint32_t p = pixel(px, stride, x, y);
            unsigned a = p >> 24, r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            if (a && a < 255) { // (a channel above its alpha, never cairo's, saturates)
                r = (r * 255 + a / 2) / a; g = (g * 255 + a / 2) / a; b = (b * 255 + a / 2) / a;
                r = r > 255 ? 255 : r; g = g > 255 ? 255 : g; b = b > 255 ? 255 : b;
            }
            d[0] = (unsigned char)r;
            d[1] = (unsigned char)g;
            d[2] = (unsigned char)b;
            d[3] = (unsigned char)a;
        }
    int len = 0;
    stbi_write_force_png_filter = 0; // rows unfiltered: stb's choice per row costs more than it saves here (make bench)
    unsigned char *png = stbi_write_png_to_mem(bytes, w * c, w, h, c, &len);
    free(bytes);
    if (!png) return -1;
    *out = png;
    *n = (size_t)len;
    return 0;
}
