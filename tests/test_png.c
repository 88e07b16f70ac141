// test_png.c — io_png_encode (src/io/png.c) decoded by two independent
// readers: stb_image (Debian's libstb-dev, straight RGBA) and cairo's PNG
// reader (libpng and zlib, premultiplied again), pixel for pixel.
#include "testutil.h"

#include <cairo.h>
#include <stdint.h>

#include "../src/io/png.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

// cairo's ARGB32: one native-endian 0xAARRGGBB word per pixel.
static void put(unsigned char *px, int stride, int x, int y, uint32_t argb) { memcpy(px + (size_t)y * stride + (size_t)x * 4, &argb, 4); }
static uint32_t get(const unsigned char *px, int stride, int x, int y) {
    uint32_t p;
    memcpy(&p, px + (size_t)y * stride + (size_t)x * 4, 4);
    return p;
}

// Decodes with stb_image: straight RGBA (4 bytes a pixel); *channels gets the file's (3: RGB, 4: RGBA).
static unsigned char *stb_decode(const unsigned char *png, size_t n, int w, int h, int *channels) {
    int dw, dh;
    unsigned char *rgba = stbi_load_from_memory(png, (int)n, &dw, &dh, channels, 4);
    if (!rgba) fail_msg("stb_image cannot read it: %s", stbi_failure_reason());
    assert_int_equal(dw, w);
    assert_int_equal(dh, h);
    return rgba;
}

typedef struct { const unsigned char *p; size_t n, at; } reader;
static cairo_status_t read_mem(void *closure, unsigned char *data, unsigned int len) {
    reader *r = closure;
    if (r->at + len > r->n) return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p + r->at, len);
    r->at += len;
    return CAIRO_STATUS_SUCCESS;
}

// Decodes with cairo (libpng, zlib) back into premultiplied ARGB32 and
// compares every pixel with the original: un-premultiplying to the nearest
// straight value and premultiplying again is exact for every valid pixel.
static void cairo_matches(const unsigned char *png, size_t n, const unsigned char *px, int w, int h, int stride) {
    reader rd = {png, n, 0};
    cairo_surface_t *img = cairo_image_surface_create_from_png_stream(read_mem, &rd);
    assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    assert_int_equal(cairo_image_surface_get_width(img), w);
    assert_int_equal(cairo_image_surface_get_height(img), h);
    const unsigned char *d = cairo_image_surface_get_data(img);
    int ds = cairo_image_surface_get_stride(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t want = get(px, stride, x, y), got = get(d, ds, x, y);
            if (cairo_image_surface_get_format(img) == CAIRO_FORMAT_RGB24) got |= 0xff000000u; // (an RGB file: opaque)
            if (got != want) fail_msg("cairo reads pixel (%d, %d) as %08x, written %08x", x, y, got, want);
        }
    cairo_surface_destroy(img);
}

// png/unpremultiply: a half-transparent pixel comes back straight (hand-computed
// values), a transparent one as 0, 0, 0, 0; rows stride apart, the bytes
// between them (transparent garbage) never read.
static void unpremultiply(void **state) {
    (void)state;
    enum { W = 3, H = 2, STRIDE = 4 * W + 20 };
    unsigned char px[STRIDE * H];
    memset(px, 0x5a, sizeof px); // (the padding: alpha 0x5a, never a pixel)
    put(px, STRIDE, 0, 0, 0x80410021); // a 128: premultiplied 65, 0, 33 -> 129.49 -> 129, 0, 65.74 -> 66
    put(px, STRIDE, 1, 0, 0x00000000); // transparent
    put(px, STRIDE, 2, 0, 0xff0a141e); // opaque 10, 20, 30
    put(px, STRIDE, 0, 1, 0x01010001); // a 1: premultiplied 1, 0, 1 -> 255, 0, 255
    put(px, STRIDE, 1, 1, 0x40402111); // a 64: 64, 33, 17 -> 255, 131.48 -> 131, 67.73 -> 68
    put(px, STRIDE, 2, 1, 0xfffefdfc);
    static const unsigned char want[H][W][4] = {
        {{129, 0, 66, 128}, {0, 0, 0, 0}, {10, 20, 30, 255}},
        {{255, 0, 255, 1}, {255, 131, 68, 64}, {254, 253, 252, 255}},
    };
    unsigned char *png;
    size_t n;
    assert_int_equal(io_png_encode(px, W, H, STRIDE, &png, &n), 0);
    int channels;
    unsigned char *rgba = stb_decode(png, n, W, H, &channels);
    assert_int_equal(channels, 4);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                if (rgba[(y * W + x) * 4 + c] != want[y][x][c])
                    fail_msg("pixel (%d, %d) channel %d: %d, expected %d", x, y, c, rgba[(y * W + x) * 4 + c], want[y][x][c]);
    cairo_matches(png, n, px, W, H, STRIDE);
    stbi_image_free(rgba);
    free(png);
}

static uint32_t xorshift(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

// A picture with what tviz draws and what no compressor likes: white runs,
// flat cells repeated row after row, a gradient, noise, a one-pixel checker,
// a row repeated from further back than deflate's 32 KB window, and
// (alpha_too) every alpha from 0 to 255 with valid premultiplied colours.
static unsigned char *picture(int w, int h, int stride, int alpha_too) {
    unsigned char *px = malloc((size_t)stride * h);
    assert_non_null(px);
    memset(px, 0x33, (size_t)stride * h); // (padding)
    uint32_t s = 2463534242u;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t r, g, b;
            if (y < h / 4) r = g = b = 255;
            else if (y < h / 2) { uint32_t cell = (uint32_t)(x / 37 + (y / 29) * 7); r = cell * 53 & 255; g = cell * 101 & 255; b = cell * 197 & 255; }
            else if (x < w / 3) { r = (uint32_t)x * 255 / (uint32_t)w; g = (uint32_t)y & 255; b = 128; }
            else if (x < 2 * w / 3) { uint32_t v = xorshift(&s); r = v & 255; g = v >> 8 & 255; b = v >> 16 & 255; }
            else r = g = b = (x + y) % 2 ? 255 : 0;
            uint32_t a = 255;
            if (alpha_too) {
                a = (uint32_t)(x + y * w) % 256;
                r = (r * a + 127) / 255; g = (g * a + 127) / 255; b = (b * a + 127) / 255;
            }
            put(px, stride, x, y, a << 24 | r << 16 | g << 8 | b);
        }
    int far = 32768 / (w * 3 + 1) + 5; // rows back: beyond the window for RGB rows, and so for RGBA rows
    if (h > far + 1) memcpy(px + (size_t)(h - 1) * stride, px + (size_t)(h - 1 - far) * stride, (size_t)w * 4);
    return px;
}

// png/opaque: RGB in the file, every pixel as written, by both readers.
static void opaque(void **state) {
    (void)state;
    int w = 517, h = 389, stride = w * 4 + 64;
    unsigned char *px = picture(w, h, stride, 0);
    unsigned char *png;
    size_t n;
    assert_int_equal(io_png_encode(px, w, h, stride, &png, &n), 0);
    int channels;
    unsigned char *rgba = stb_decode(png, n, w, h, &channels);
    assert_int_equal(channels, 3);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = get(px, stride, x, y);
            const unsigned char *d = rgba + ((size_t)y * w + x) * 4;
            if (d[0] != (p >> 16 & 255) || d[1] != (p >> 8 & 255) || d[2] != (p & 255) || d[3] != 255)
                fail_msg("stb_image reads pixel (%d, %d) as %d %d %d %d, written %08x", x, y, d[0], d[1], d[2], d[3], p);
        }
    cairo_matches(png, n, px, w, h, stride);
    stbi_image_free(rgba);
    free(png);
    free(px);
}

// png/last-pixel-translucent: one pixel short of opaque, the last, makes the file RGBA.
static void last_pixel_translucent(void **state) {
    (void)state;
    int w = 64, h = 48, stride = w * 4 + 8;
    unsigned char *px = picture(w, h, stride, 0);
    put(px, stride, w - 1, h - 1, 0xfe7f0000);
    unsigned char *png;
    size_t n;
    assert_int_equal(io_png_encode(px, w, h, stride, &png, &n), 0);
    int channels;
    stbi_image_free(stb_decode(png, n, w, h, &channels));
    assert_int_equal(channels, 4);
    cairo_matches(png, n, px, w, h, stride);
    free(png);
    free(px);
}

// png/transparent: every alpha, un-premultiplied to straight RGBA; cairo's
// reader premultiplies it back to the very pixels written.
static void transparent(void **state) {
    (void)state;
    int w = 301, h = 257, stride = w * 4 + 4;
    unsigned char *px = picture(w, h, stride, 1);
    unsigned char *png;
    size_t n;
    assert_int_equal(io_png_encode(px, w, h, stride, &png, &n), 0);
    int channels;
    unsigned char *rgba = stb_decode(png, n, w, h, &channels);
    assert_int_equal(channels, 4);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t p = get(px, stride, x, y);
            const unsigned char *d = rgba + ((size_t)y * w + x) * 4;
            if (d[3] != p >> 24 || (d[3] == 0 && (d[0] || d[1] || d[2])))
                fail_msg("stb_image reads pixel (%d, %d) as %d %d %d %d, written %08x", x, y, d[0], d[1], d[2], d[3], p);
        }
    cairo_matches(png, n, px, w, h, stride);
    stbi_image_free(rgba);
    free(png);
    free(px);
}

// png/many-small: 500 small pictures of every size from 1 × 1 (a row of
// fewer bytes than a match, matches ending at the last byte), runs and noise
// mixed, half of them translucent, read back by cairo.
static void many_small(void **state) {
    (void)state;
    uint32_t s = 88172645u;
    for (int k = 0; k < 500; k++) {
        int w = 1 + (int)(xorshift(&s) % 40), h = 1 + (int)(xorshift(&s) % 30), stride = w * 4 + 4 * (int)(xorshift(&s) % 3);
        int translucent = k % 2, noise = (int)(xorshift(&s) % 100);
        unsigned char *px = malloc((size_t)stride * h);
        assert_non_null(px);
        uint32_t run = 0xff000000u | xorshift(&s);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                if ((int)(xorshift(&s) % 100) < noise) run = 0xff000000u | xorshift(&s);
                uint32_t a = translucent ? xorshift(&s) % 256 : 255, r = run >> 16 & 255, g = run >> 8 & 255, b = run & 255;
                put(px, stride, x, y, a << 24 | (r * a + 127) / 255 << 16 | (g * a + 127) / 255 << 8 | (b * a + 127) / 255);
            }
        unsigned char *png;
        size_t n;
        assert_int_equal(io_png_encode(px, w, h, stride, &png, &n), 0);
        cairo_matches(png, n, px, w, h, stride);
        free(png);
        free(px);
    }
}

// png/one-pixel and png/bad-size: the smallest picture; sizes refused before any work.
static void sizes(void **state) {
    (void)state;
    uint32_t one = 0xff102030;
    unsigned char *png;
    size_t n;
    assert_int_equal(io_png_encode((const unsigned char *)&one, 1, 1, 4, &png, &n), 0);
    cairo_matches(png, n, (const unsigned char *)&one, 1, 1, 4);
    free(png);
    assert_int_equal(io_png_encode((const unsigned char *)&one, 0, 1, 4, &png, &n), -1);
    assert_int_equal(io_png_encode((const unsigned char *)&one, 1, 0, 4, &png, &n), -1);
    assert_int_equal(io_png_encode((const unsigned char *)&one, 2, 1, 4, &png, &n), -1);         // stride < w·4
    assert_int_equal(io_png_encode((const unsigned char *)&one, 1 << 16, 1 << 16, 1 << 18, &png, &n), -1); // over stb's int sizes
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unpremultiply),
        cmocka_unit_test(opaque),
        cmocka_unit_test(last_pixel_translucent),
        cmocka_unit_test(transparent),
        cmocka_unit_test(many_small),
        cmocka_unit_test(sizes),
    };
    return cmocka_run_group_tests_name("png", tests, NULL, NULL);
}
