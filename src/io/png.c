// png.c — PNG bytes with stb_image_write (Debian's libstb-dev), from cairo's
// premultiplied ARGB32 pixels. libc and stb only: the desktop and the
// browser build compile this file as it is.
#include "png.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The header's implementation, here once, its functions static to this file;
// its own warnings silenced for it alone (the project's flags stay on).
// Its deflate is replaced through its own hook, STBIW_ZLIB_COMPRESS (below).
static unsigned char *deflate_fast(unsigned char *data, int len, int *out_len, int quality);
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBIW_ZLIB_COMPRESS deflate_fast
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

// ---------------------------------------------------------------- deflate (RFC 1950, 1951)
// stb's own deflate compares up to ten earlier places byte by byte for
// every match: 44 ms of CPU for make bench's 1200 × 1000 heatmap at its
// fastest setting, too slow to stay 10× faster than matplotlib. tviz's
// pictures are long runs and rows that repeat the row above, which one
// earlier place per 4-byte hash finds: 12 ms, for files 5% larger than
// stb's (96 against 91 KB; the same fixed Huffman codes).

typedef struct { unsigned char *p; size_t n; uint64_t bits; int nbits; } bit_writer;

// Appends the n low bits of v, least significant first (n <= 32).
static inline void put_bits(bit_writer *o, uint32_t v, int n) {
    o->bits |= (uint64_t)v << o->nbits;
    o->nbits += n;
    while (o->nbits >= 8) {
        o->p[o->n++] = (unsigned char)o->bits;
        o->bits >>= 8;
        o->nbits -= 8;
    }
}

// Huffman codes go out most significant bit first: reversed, for put_bits.
static uint32_t reversed(uint32_t code, int n) {
    uint32_t r = 0;
    for (int k = 0; k < n; k++, code >>= 1) r = r << 1 | (code & 1);
    return r;
}

// The fixed literal/length code (RFC 1951 3.2.6) of symbol s, 0..287.
typedef struct { uint16_t code; uint8_t n; } huff;
static huff fixed_code(int s) {
    if (s < 144) return (huff){(uint16_t)reversed(0x30 + s, 8), 8};
    if (s < 256) return (huff){(uint16_t)reversed(0x190 + s - 144, 9), 9};
    if (s < 280) return (huff){(uint16_t)reversed(s - 256, 7), 7};
    return (huff){(uint16_t)reversed(0xc0 + s - 280, 8), 8};
}

static int floor_log2(uint32_t x) {
    int b = 0;
    while (x >> (b + 1)) b++;
    return b;
}

// A match of len bytes (3..258) dist bytes back (1..32768): length symbol
// and extra bits, then distance symbol (5 bits) and extra bits.
static void put_match(bit_writer *o, const huff *lit, int len, int dist) {
    int l = len - 3, x = dist - 1;
    if (l == 255) put_bits(o, lit[285].code, lit[285].n);
    else if (l < 8) put_bits(o, lit[257 + l].code, lit[257 + l].n);
    else { // 4 symbols per power of two, b - 2 extra bits
        int b = floor_log2((uint32_t)l), hi = l >> (b - 2) & 3, s = 257 + 4 * (b - 1) + hi;
        put_bits(o, lit[s].code, lit[s].n);
        put_bits(o, (uint32_t)(l - ((4 + hi) << (b - 2))), b - 2);
    }
    if (x < 4) put_bits(o, reversed((uint32_t)x, 5), 5);
    else { // 2 symbols per power of two, b - 1 extra bits
        int b = floor_log2((uint32_t)x), hi = x >> (b - 1) & 1;
        put_bits(o, reversed((uint32_t)(2 * b + hi), 5), 5);
        put_bits(o, (uint32_t)(x - ((2 + hi) << (b - 1))), b - 1);
    }
}

static inline uint32_t load32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t load64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

#define HASH_BITS 15
static inline uint32_t hash4(uint32_t v) { return v * 2654435761u >> (32 - HASH_BITS); } // (Knuth's multiplicative hash)
#define WINDOW 32768
#define MAX_MATCH 258

// data (len bytes) -> a zlib stream, malloc'd (stb frees it), or NULL.
// One block of fixed codes; at each place the last earlier place with the
// same 4 bytes (a hash table of 2^15), taken when it is within the window.
static unsigned char *deflate_fast(unsigned char *data, int len, int *out_len, int quality) {
    (void)quality; // (stb passes its level, which picks its own search depth)
    // at most 9 bits a byte (a literal; a match of 4 or more takes at most 31 bits)
    bit_writer o = {malloc((size_t)len + (size_t)len / 8 + 64), 0, 0, 0};
    int32_t *head = calloc((size_t)1 << HASH_BITS, sizeof *head); // last place + 1, 0: none
    if (!o.p || !head) { free(o.p); free(head); return NULL; }
    huff lit[288];
    for (int s = 0; s < 288; s++) lit[s] = fixed_code(s);
    o.p[o.n++] = 0x78; // zlib header: deflate, 32 KB window,
    o.p[o.n++] = 0x01; // fastest (a multiple of 31 with the byte before)
    put_bits(&o, 1, 1); // the last block,
    put_bits(&o, 1, 2); // fixed codes
    int i = 0;
    while (i < len - 3) {
        uint32_t v = load32(data + i), h = hash4(v);
        int at = head[h] - 1;
        head[h] = i + 1;
        if (at >= 0 && i - at <= WINDOW && load32(data + at) == v) {
            int most = len - i < MAX_MATCH ? len - i : MAX_MATCH, m = 4;
            while (m + 8 <= most && load64(data + at + m) == load64(data + i + m)) m += 8;
            while (m < most && data[at + m] == data[i + m]) m++;
            put_match(&o, lit, m, i - at);
            if (m > 8) head[hash4(load32(data + i + m - 4))] = i + m - 4 + 1; // (where it ended: 10% smaller files)
            i += m;
        } else {
            put_bits(&o, lit[data[i]].code, lit[data[i]].n);
            i++;
        }
    }
    for (; i < len; i++) put_bits(&o, lit[data[i]].code, lit[data[i]].n);
    put_bits(&o, lit[256].code, lit[256].n); // end of block
    put_bits(&o, 0, 7);                      // (to a whole byte)
    free(head);
    // Adler-32 of data, big-endian: s1 = 1 + the bytes' sum, s2 = the sum
    // of every s1 after a byte; four bytes a step (s2 gains 4·s1 and the
    // bytes weighted 4, 3, 2, 1), modulo 65521 every 5552 bytes, before s2
    // could overflow.
    uint32_t s1 = 1, s2 = 0;
    for (int k = 0; k < len;) {
        int end = len - k > 5552 ? k + 5552 : len;
        for (; k + 4 <= end; k += 4) {
            s2 += 4 * s1 + 4u * data[k] + 3u * data[k + 1] + 2u * data[k + 2] + data[k + 3];
            s1 += (uint32_t)data[k] + data[k + 1] + data[k + 2] + data[k + 3];
        }
        for (; k < end; k++) { s1 += data[k]; s2 += s1; }
        s1 %= 65521;
        s2 %= 65521;
    }
    o.p[o.n++] = (unsigned char)(s2 >> 8);
    o.p[o.n++] = (unsigned char)s2;
    o.p[o.n++] = (unsigned char)(s1 >> 8);
    o.p[o.n++] = (unsigned char)s1;
    *out_len = (int)o.n;
    return o.p;
}

// Rows without filters: the fastest with this deflate. (Up, 2: files 8–12%
// smaller, 14–35% slower; stb's choice per row: 10–14% smaller, 4×
// slower.) stb's level picks its own deflate's search depth: unused here.
// Set once, as the program loads, so concurrent exports never write it.
__attribute__((constructor)) static void png_settings(void) { stbi_write_force_png_filter = 0; }

// Pixel (x, y) of rows stride bytes apart (memcpy: any stride, aligned or not).
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
    unsigned char *png = stbi_write_png_to_mem(bytes, w * c, w, h, c, &len);
    free(bytes);
    if (!png) return -1;
    *out = png;
    *n = (size_t)len;
    return 0;
}
