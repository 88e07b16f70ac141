// test_shim.c — the browser build's cairo (src/web/cairo.c) and text
// (src/web/text.c), natively, with the page's CanvasKit replaced by a
// recorder of what it is asked to draw: device coordinates under
// transformations, line widths, clips kept by save/restore, surfaces kept
// alive by the patterns painting them (ASan sees any use after free),
// tviz's markup read into runs, UTF-8 bytes against UTF-16 positions.
#include <cairo.h> // src/web/include's
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/render/render.h"
#include "../../src/web/canvaskit.h"

// ---------------------------------------------------------------- the recorder
typedef struct {
    int canvases, canvases_freed, saves, restores, presents;
    int images, images_freed, shaders, shaders_freed, pars;
    int fills, strokes, rects, paints, clips, clip_rects;
    float last_rect[4], last_rgba[4], last_width, last_dash[8];
    int last_n_dash, last_shader, last_nearest;
    unsigned char verbs[256];
    float pts[512];
    int n_verbs, n_pts;
    float shader_m[6];
    int live_images[64];   // ids alive
    // text
    char par_text[512];
    float par_runs[64 * 12];
    int par_n_runs;
    float par_style[8];
    float par_m[6];
} recorder;
static recorder R;

static void reset(void) { memset(&R, 0, sizeof R); }

int ck_canvas_screen(int w, int h) { (void)w; (void)h; R.canvases++; return 1; }
int ck_canvas_new(int w, int h) { (void)w; (void)h; return 100 + ++R.canvases; }
void ck_canvas_free(int canvas) { (void)canvas; R.canvases_freed++; }
void ck_canvas_read(int canvas, unsigned char *px, int stride, int w, int h) { // every pixel opaque red: 0xFFFF0000
    (void)canvas;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) { uint32_t v = 0xFFFF0000u; memcpy(px + y * stride + 4 * x, &v, 4); }
}
void ck_present(int canvas) { (void)canvas; R.presents++; }
void ck_save(int canvas) { (void)canvas; R.saves++; }
void ck_restore(int canvas) { (void)canvas; R.restores++; }
void ck_path(const unsigned char *verbs, int n, const float *pts) {
    int np = 0;
    for (int i = 0; i < n; i++) np += verbs[i] == CK_CUBIC ? 6 : verbs[i] == CK_CLOSE ? 0 : 2;
    R.n_verbs = n < 256 ? n : 256;
    R.n_pts = np < 512 ? np : 512;
    memcpy(R.verbs, verbs, (size_t)R.n_verbs);
    memcpy(R.pts, pts, sizeof(float) * (size_t)R.n_pts);
}
void ck_fill(int canvas, const float *rgba, int shader, int aa) { (void)canvas; (void)aa; R.fills++; memcpy(R.last_rgba, rgba, 16); R.last_shader = shader; }
void ck_stroke(int canvas, const float *rgba, int shader, int aa, float width, int cap, int join, const float *dash, int n_dash, float off) {
    (void)canvas; (void)shader; (void)aa; (void)cap; (void)join; (void)off;
    R.strokes++;
    memcpy(R.last_rgba, rgba, 16);
    R.last_width = width;
    R.last_n_dash = n_dash;
    if (n_dash > 0) memcpy(R.last_dash, dash, sizeof(float) * (size_t)n_dash);
}
void ck_clip(int canvas, int aa) { (void)canvas; (void)aa; R.clips++; }
void ck_fill_rect(int canvas, float x0, float y0, float x1, float y1, const float *rgba, int aa) {
    (void)canvas; (void)aa;
    R.rects++;
    R.last_rect[0] = x0; R.last_rect[1] = y0; R.last_rect[2] = x1; R.last_rect[3] = y1;
    memcpy(R.last_rgba, rgba, 16);
}
void ck_clip_rect(int canvas, float x0, float y0, float x1, float y1, int aa) {
    (void)canvas; (void)aa;
    R.clip_rects++;
    R.last_rect[0] = x0; R.last_rect[1] = y0; R.last_rect[2] = x1; R.last_rect[3] = y1;
}
void ck_paint(int canvas, const float *rgba, int shader) { (void)canvas; R.paints++; memcpy(R.last_rgba, rgba, 16); R.last_shader = shader; }
int ck_image_new(const unsigned char *data, int w, int h, int stride, int opaque) {
    (void)opaque;
    volatile unsigned char sum = 0; // every byte read: ASan finds freed pixels
    for (int y = 0; y < h; y++) for (int x = 0; x < w * 4; x++) sum ^= data[y * stride + x];
    (void)sum;
    int id = 200 + ++R.images;
    for (int i = 0; i < 64; i++) if (!R.live_images[i]) { R.live_images[i] = id; break; }
    return id;
}
void ck_image_free(int image) {
    R.images_freed++;
    int found = 0;
    for (int i = 0; i < 64; i++) if (R.live_images[i] == image) { R.live_images[i] = 0; found = 1; }
    assert_true(found); // never freed twice, never one that was not made
}
int ck_shader_image(int image, const float *m6, int nearest) {
    (void)image;
    memcpy(R.shader_m, m6, sizeof R.shader_m);
    R.last_nearest = nearest;
    return 300 + ++R.shaders;
}
int ck_shader_linear(float x0, float y0, float x1, float y1, const float *stops, int n) {
    (void)x0; (void)y0; (void)x1; (void)y1; (void)stops; (void)n;
    return 300 + ++R.shaders;
}
void ck_shader_free(int shader) { (void)shader; R.shaders_freed++; }
// text: each paragraph is 10 units wide a UTF-16 unit, 20 high
static int par_len;
void ck_par_clear(void) {}
int ck_par_new(const char *utf8, const float *runs, int n_runs, const float *style) {
    snprintf(R.par_text, sizeof R.par_text, "%s", utf8);
    R.par_n_runs = n_runs < 64 ? n_runs : 64;
    memcpy(R.par_runs, runs, sizeof(float) * 12 * (size_t)R.par_n_runs);
    memcpy(R.par_style, style, sizeof R.par_style);
    par_len = 0;
    for (const unsigned char *p = (const unsigned char *)utf8; *p; p++)
        if ((*p & 0xC0) != 0x80) par_len += *p >= 0xF0 ? 2 : 1;
    return ++R.pars;
}
void ck_par_draw(int canvas, int par, const float *m6) { (void)canvas; (void)par; memcpy(R.par_m, m6, sizeof R.par_m); }
void ck_par_metrics(int par, float *out) { (void)par; out[0] = out[2] = out[4] = 10.0f * par_len; out[1] = 20; out[3] = 1; }
int ck_par_lines(int par, float *out, int max) { (void)par; if (max > 0) { out[0] = 0; out[1] = 0; out[2] = 10.0f * par_len; } return 1; }
int ck_par_index(int par, float x, float y) { (void)par; (void)y; return (int)(x / 10); }
float ck_par_caret(int par, int i16, int rtl) { (void)par; (void)rtl; return 10.0f * i16; }

// ---------------------------------------------------------------- cairo
static cairo_t *screen_context(cairo_surface_t **sf) {
    *sf = cairo_web_screen_surface(800, 600);
    return cairo_create(*sf);
}

// cairo/rectangle/device: a rectangle under scale and translate reaches the page in device pixels
static void test_rect_device(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_scale(cr, 2, 2);
    cairo_translate(cr, 10, 5);
    cairo_set_source_rgba(cr, 0.25, 0.5, 0.75, 0.5);
    cairo_rectangle(cr, 1, 2, 30, 40);
    cairo_fill(cr);
    assert_int_equal(R.rects, 1);
    assert_float_equal(R.last_rect[0], 22, 1e-5); // (1 + 10) · 2
    assert_float_equal(R.last_rect[1], 14, 1e-5); // (2 + 5) · 2
    assert_float_equal(R.last_rect[2], 82, 1e-5);
    assert_float_equal(R.last_rect[3], 94, 1e-5);
    assert_float_equal(R.last_rgba[3], 0.5, 1e-6);
    cairo_destroy(cr);
    assert_int_equal(R.saves, R.restores); // the context's own save, undone
    cairo_surface_destroy(sf);
}

// cairo/rotate/path: a rectangle turned an eighth is a path (a quarter would still be a rectangle); its corners where the turn puts them
static void test_rotate(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_translate(cr, 100, 100);
    cairo_rotate(cr, M_PI / 4);
    cairo_rectangle(cr, 0, 0, 10, 20);
    cairo_fill(cr);
    assert_int_equal(R.rects, 0);
    assert_int_equal(R.fills, 1);
    assert_int_equal(R.n_verbs, 5);
    assert_int_equal(R.verbs[0], CK_MOVE);
    assert_int_equal(R.verbs[4], CK_CLOSE);
    // (10, 0) turned 45°: 100 + 10/√2 each; (10, 20): (100 + (10 − 20)/√2, 100 + (10 + 20)/√2)
    assert_float_equal(R.pts[2], 100 + 10 / sqrt(2), 1e-4);
    assert_float_equal(R.pts[3], 100 + 10 / sqrt(2), 1e-4);
    assert_float_equal(R.pts[4], 100 - 10 / sqrt(2), 1e-4);
    assert_float_equal(R.pts[5], 100 + 30 / sqrt(2), 1e-4);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// cairo/stroke/width: the width and dashes are scaled to pixels when stroked; rel_line_to moves by transformed distances
static void test_stroke(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_scale(cr, 3, 3);
    cairo_set_line_width(cr, 1.5);
    double dash[] = {2, 1};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, 1, 1);
    cairo_rel_line_to(cr, 4, 0);
    cairo_stroke(cr);
    assert_int_equal(R.strokes, 1);
    assert_float_equal(R.last_width, 4.5, 1e-5);
    assert_int_equal(R.last_n_dash, 2);
    assert_float_equal(R.last_dash[0], 6, 1e-5);
    assert_float_equal(R.last_dash[1], 3, 1e-5);
    assert_float_equal(R.pts[2], 15, 1e-5); // (1 + 4) · 3
    assert_float_equal(R.pts[3], 3, 1e-5);
    // the path is gone after stroke: a fill draws nothing
    cairo_fill(cr);
    assert_int_equal(R.fills + R.rects, 0);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// cairo/arc/circle: every point of a full circle's Béziers lies on it (ends within 1e-4, middles within 0.03%)
static void test_arc(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_arc(cr, 50, 40, 10, 0, 2 * M_PI);
    cairo_fill(cr);
    assert_int_equal(R.verbs[0], CK_MOVE);
    int cubics = 0;
    for (int i = 0; i < R.n_verbs; i++) cubics += R.verbs[i] == CK_CUBIC;
    assert_int_equal(cubics, 4);
    for (int k = 0; k < R.n_pts / 2; k += 1) {
        if (k % 3 != 0) continue; // (the end points; 0 is the move)
        double r = hypot(R.pts[2 * k] - 50, R.pts[2 * k + 1] - 40);
        assert_float_equal(r, 10, 1e-4);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// cairo/save-restore/clip: a clip inside save is undone by restore; the page's saves and restores pair up
static void test_clip(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_save(cr);
    cairo_rectangle(cr, 0, 0, 10, 10);
    cairo_clip(cr);
    assert_int_equal(R.clip_rects, 1);
    cairo_save(cr);
    cairo_arc(cr, 5, 5, 3, 0, 2 * M_PI);
    cairo_clip(cr);
    assert_int_equal(R.clips, 1);
    cairo_restore(cr);
    cairo_restore(cr);
    cairo_restore(cr); // one too many: ignored
    assert_int_equal(R.saves, R.restores + 1); // the context's own save is left
    cairo_destroy(cr);
    assert_int_equal(R.saves, R.restores);
    cairo_surface_destroy(sf);
}

// cairo/surface/lifetime: a surface destroyed while a pattern paints it stays alive until the pattern goes; its image is freed once
static void test_surface_lifetime(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 4, 3);
    unsigned char *px = cairo_image_surface_get_data(img);
    memset(px, 0x80, (size_t)cairo_image_surface_get_stride(img) * 3);
    cairo_surface_mark_dirty(img);
    cairo_scale(cr, 5, 5);
    cairo_set_source_surface(cr, img, 2, 1);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_surface_destroy(img); // (the pattern keeps it)
    cairo_rectangle(cr, 2, 1, 4, 3);
    cairo_fill(cr);
    assert_int_equal(R.images, 1);
    assert_true(R.last_shader != 0);
    assert_int_equal(R.last_nearest, 1);
    assert_float_equal(R.shader_m[0], 5, 1e-6);   // image pixels -> device: scale 5 …
    assert_float_equal(R.shader_m[4], 10, 1e-6);  // … at (2, 1) · 5
    assert_float_equal(R.shader_m[5], 5, 1e-6);
    cairo_paint(cr); // the same image again, not uploaded twice
    assert_int_equal(R.images, 1);
    cairo_set_source_rgb(cr, 0, 0, 0); // the pattern goes, and with it the surface and its image
    assert_int_equal(R.images_freed, 1);
    assert_int_equal(R.shaders_freed, R.shaders);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// cairo/image/readback: a context on an image surface draws on a canvas of its own, read back by flush; measuring makes none
static void test_readback(void **st) {
    (void)st;
    reset();
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 3, 2);
    cairo_t *cr = cairo_create(img);
    render_text_style ts = render_style(12, (render_rgb){0, 0, 0});
    double w, h;
    render_text_size(cr, "measure", &ts, &w, &h);
    assert_int_equal(R.canvases, 0);
    cairo_set_source_rgb(cr, 1, 0, 0);
    cairo_paint(cr);
    assert_int_equal(R.canvases, 1);
    cairo_destroy(cr);
    cairo_surface_flush(img);
    uint32_t v;
    memcpy(&v, cairo_image_surface_get_data(img) + cairo_image_surface_get_stride(img) + 8, 4);
    assert_int_equal(v, 0xFFFF0000u);
    cairo_surface_destroy(img);
    assert_int_equal(R.canvases_freed, 1);
}

// ---------------------------------------------------------------- text
// text/markup/plain: tags and entities read as pango reads them
static void test_markup_plain(void **st) {
    (void)st;
    char buf[200];
    assert_int_equal(render_markup_plain("<b>Q</b>&amp;K<span allow_breaks=\"false\"><tt>a &lt; b</tt></span>&#1605;", buf, sizeof buf), 0);
    assert_string_equal(buf, "Q&Ka < b\xd9\x85");
    assert_int_equal(render_markup_plain("<b>unclosed", buf, sizeof buf), -1);
    assert_int_equal(render_markup_plain("a &bogus; b", buf, sizeof buf), -1);
    assert_int_equal(render_markup_plain("<blink>x</blink>", buf, sizeof buf), -1);
}

// text/runs: styles and marks become runs in UTF-16 positions; a forced right-to-left paragraph says so
static void test_runs(void **st) {
    (void)st;
    reset();
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    render_text_style s = render_style(10, (render_rgb){0, 0, 0});
    s.width = 300;
    int marks[2] = {4, 12}; // the bytes of «کلید»: 4 letters, 8 bytes
    s.marks = marks;
    s.n_marks = 1;
    s.dir = RENDER_DIR_RTL;
    render_markup(cr, "<b>Q</b> = کلیدها", 5, 7, &s); // plain "Q = کلیدها": Q(0) ' '(1) '='(2) ' '(3) ک(4..5) ل ی د ه ا
    assert_string_equal(R.par_text, "Q = کلیدها");
    assert_float_equal(R.par_style[3], 1, 0); // right to left
    assert_float_equal(R.par_style[0], 300, 0);
    // runs: "Q" bold [0,1); " = " [1,4); «کلید» underlined [4,8); «ها» [8,10)
    assert_int_equal(R.par_n_runs, 4);
    float *r = R.par_runs;
    assert_float_equal(r[0], 0, 0); assert_float_equal(r[1], 1, 0); assert_int_equal((int)r[2] & 1, 1);
    assert_float_equal(r[12 + 0], 1, 0); assert_float_equal(r[12 + 1], 4, 0);
    assert_float_equal(r[24 + 0], 4, 0); assert_float_equal(r[24 + 1], 8, 0); assert_int_equal((int)r[24 + 2] & 8, 8);
    assert_float_equal(r[36 + 0], 8, 0); assert_float_equal(r[36 + 1], 10, 0); assert_int_equal((int)r[36 + 2] & 8, 0);
    assert_float_equal(R.par_m[4], 5, 1e-6); // drawn at (5, 7)
    assert_float_equal(R.par_m[5], 7, 1e-6);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// text/index/bytes: hit-testing returns a byte of the plain text (a Persian letter is 2 bytes, 1 UTF-16 unit)
static void test_index(void **st) {
    (void)st;
    cairo_surface_t *sf;
    cairo_t *cr = screen_context(&sf);
    render_text_style s = render_style(10, (render_rgb){0, 0, 0});
    // the recorder's letters are 10 wide: x 35 is the 4th UTF-16 unit, «ی», bytes 4..5 after «کل»… of «<i>x</i>کلید»
    assert_int_equal(render_markup_index(cr, "<i>x</i>کلید", &s, 35, 5), 1 + 2 + 2 + 0);
    assert_int_equal(render_markup_index(cr, "<i>x</i>کلید", &s, -1, 5), -1);
    assert_float_equal(render_text_caret(cr, "کلید", &s, 4), 20, 1e-6); // byte 4 = the 3rd letter = UTF-16 position 2
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rect_device), cmocka_unit_test(test_rotate), cmocka_unit_test(test_stroke),
        cmocka_unit_test(test_arc), cmocka_unit_test(test_clip), cmocka_unit_test(test_surface_lifetime),
        cmocka_unit_test(test_readback), cmocka_unit_test(test_markup_plain), cmocka_unit_test(test_runs),
        cmocka_unit_test(test_index),
    };
    return cmocka_run_group_tests_name("web shim (cairo and text over CanvasKit)", tests, NULL, NULL);
}
