// test_render.c — the pictures: colour maps against their published values,
// exported PNGs read back with cairo and checked pixel by pixel (size,
// background, a cell's colour is the colour of its value, masked cells carry
// the mask pattern), and a comparison with committed reference images.
#include "testutil.h"

#include <cairo.h>
#include <math.h>

#include "../src/cli/cli.h"

static const char *we = "assets/models/worked-example.safetensors";
static const char *we_src = "I really enjoy learning transformers";
static const char *we_tgt = "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم";

// One run of the worked example for every test (cmocka group setup).
static tf_model m;
static tf_run r;

static render_rgb hex(unsigned h) { return (render_rgb){((h >> 16) & 255) / 255.0, ((h >> 8) & 255) / 255.0, (h & 255) / 255.0}; }

static void check_rgb(render_rgb got, render_rgb want, double tol, const char *what) {
    double d = fmax(fabs(got.r - want.r), fmax(fabs(got.g - want.g), fabs(got.b - want.b)));
    if (d > tol)
        fail_msg("%s: (%.3f %.3f %.3f), expected (%.3f %.3f %.3f), off by %.3f", what, got.r, got.g, got.b, want.r, want.g, want.b, d);
}

// ---------------------------------------------------------------- colour maps
static void colormaps_match_published_values(void **state) {
    (void)state;
    // viridis at 0, ¼, ½, ¾, 1 (matplotlib / R viridis(5))
    const unsigned v[5] = {0x440154, 0x3B528B, 0x21908C, 0x5DC863, 0xFDE725};
    for (int k = 0; k < 5; k++) check_rgb(render_cmap_at(RENDER_CMAP_VIRIDIS, k / 4.0), hex(v[k]), 0.025, "viridis");
    // ColorBrewer RdBu: blue for negative, the white middle, red for positive
    check_rgb(render_cmap_at(RENDER_CMAP_RDBU, 0), hex(0x053061), 0.002, "rdbu(0)");
    check_rgb(render_cmap_at(RENDER_CMAP_RDBU, 0.5), hex(0xF7F7F7), 0.002, "rdbu(0.5)");
    check_rgb(render_cmap_at(RENDER_CMAP_RDBU, 1), hex(0x67001F), 0.002, "rdbu(1)");
    check_rgb(render_cmap_at(RENDER_CMAP_PUOR, 0.5), hex(0xF7F7F7), 0.002, "puor(0.5)");
    check_rgb(render_cmap_at(RENDER_CMAP_CIVIDIS, 1), hex(0xFFEA46), 0.002, "cividis(1)");
    check_rgb(render_cmap_at(RENDER_CMAP_GRAY, 0.25), (render_rgb){0.75, 0.75, 0.75}, 1e-9, "gray");
    check_rgb(render_cmap_at(RENDER_CMAP_VIRIDIS, -3), render_cmap_at(RENDER_CMAP_VIRIDIS, 0), 0, "clamped below");
    check_rgb(render_cmap_at(RENDER_CMAP_VIRIDIS, NAN), render_cmap_at(RENDER_CMAP_VIRIDIS, 0), 0, "NaN");
    // sequential maps get lighter monotonically (perceptually ordered)
    for (int m = 0; m < RENDER_CMAP_COUNT; m++) {
        if (render_cmap_is_diverging((render_cmap)m)) continue;
        double prev = m == RENDER_CMAP_GRAY ? 2 : -1;
        for (int k = 0; k <= 20; k++) {
            render_rgb c = render_cmap_at((render_cmap)m, k / 20.0);
            double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
            if (m == RENDER_CMAP_GRAY ? y >= prev : y <= prev) fail_msg("%s is not monotonic at %d/20", render_cmap_name((render_cmap)m), k);
            prev = y;
        }
    }
    render_cmap c;
    assert_int_equal(render_cmap_parse("cividis", &c), 0);
    assert_int_equal(c, RENDER_CMAP_CIVIDIS);
    assert_int_equal(render_cmap_parse("jet", &c), -1);
}

// ---------------------------------------------------------------- exported PNGs
typedef struct { const unsigned char *p; size_t n, at; } reader;

static cairo_status_t read_mem(void *closure, unsigned char *data, unsigned int len) {
    reader *r = closure;
    if (r->at + len > r->n) return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p + r->at, len);
    r->at += len;
    return CAIRO_STATUS_SUCCESS;
}

// Exports (stage, view) of run r as a PNG through the real export path and
// decodes it again with cairo.
static cairo_surface_t *export_png(const char *id, render_view v, const render_opts *o, double w, double h, double scale) {
    int stage = id ? tf_trace_find(&r.trace, id) : -1;
    if (id && stage < 0) fail_msg("no stage %s", id);
    unsigned char *png;
    size_t n;
    assert_int_equal(io_draw(&(io_picture){.t = &r.trace, .m = &m, .stage = stage, .view = v, .opts = *o, .w = w, .h = h, .scale = scale, .fmt = IO_PNG}, &png, &n), 0);
    assert_true(n > 8 && !memcmp(png, "\x89PNG", 4));
    reader rd = {png, n, 0};
    cairo_surface_t *img = cairo_image_surface_create_from_png_stream(read_mem, &rd);
    free(png);
    assert_int_equal(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    return img;
}

static render_rgb pixel(cairo_surface_t *img, double x, double y) {
    int xi = (int)x, yi = (int)y;
    assert_true(xi >= 0 && yi >= 0 && xi < cairo_image_surface_get_width(img) && yi < cairo_image_surface_get_height(img));
    const unsigned char *d = cairo_image_surface_get_data(img);
    uint32_t p = *(const uint32_t *)(d + (size_t)yi * cairo_image_surface_get_stride(img) + (size_t)xi * 4);
    return (render_rgb){((p >> 16) & 255) / 255.0, ((p >> 8) & 255) / 255.0, (p & 255) / 255.0};
}

static int setup(void **state) {
    (void)state;
    tf_err e;
    if (tf_model_load(&m, we, &e)) return -1;
    return tf_run_sentence(&r, &m, we_src, we_tgt, &e);
}

static int teardown(void **state) {
    (void)state;
    tf_run_free(&r);
    tf_model_free(&m);
    return 0;
}

static void heatmap_pixels(void **state) {
    (void)state;
    render_opts o;
    render_opts_default(&o);
    const double W = 900, H = 800, S = 2; // a 2x PNG: 1800 × 1600 pixels
    const char *id = "dec.0.cross_attn.head.1.weights";
    cairo_surface_t *img = export_png(id, RENDER_VIEW_HEATMAP, &o, W, H, S);
    assert_int_equal(cairo_image_surface_get_width(img), 1800);
    assert_int_equal(cairo_image_surface_get_height(img), 1600);
    check_rgb(pixel(img, 3, 3), (render_rgb){1, 1, 1}, 0.001, "background");
    check_rgb(pixel(img, 1797, 1597), (render_rgb){1, 1, 1}, 0.001, "background, far corner");
    const tf_stage *s = &r.trace.stages[tf_trace_find(&r.trace, id)];
    for (int i = 0; i < s->rows; i++)
        for (int j = 0; j < s->cols; j++) {
            double rc[4];
            assert_int_equal(render_matrix_cell_rect(&r.trace, tf_trace_find(&r.trace, id), &o, W, H, i, j, rc), 0);
            // a point in the cell away from its centred number and its borders
            render_rgb want = render_cmap_at(RENDER_CMAP_VIRIDIS, s->data[i * s->cols + j]);
            char what[64];
            snprintf(what, sizeof what, "cell %d,%d = %.3f", i, j, (double)s->data[i * s->cols + j]);
            check_rgb(pixel(img, (rc[0] + rc[2] * 0.18) * S, (rc[1] + rc[3] * 0.18) * S), want, 2.5 / 255, what);
        }
    cairo_surface_destroy(img);
}

static void masked_cells_show_the_pattern(void **state) {
    (void)state;
    render_opts o;
    render_opts_default(&o);
    render_theme th = render_theme_get(&o);
    const char *id = "dec.0.self_attn.head.0.masked";
    int st = tf_trace_find(&r.trace, id);
    cairo_surface_t *img = export_png(id, RENDER_VIEW_HEATMAP, &o, 1000, 900, 1);
    // cell (0, 5) is masked: its pixels are the two hatch colours; (5, 0) is not
    double rc[4];
    int n_a = 0, n_b = 0, n_other = 0;
    assert_int_equal(render_matrix_cell_rect(&r.trace, st, &o, 1000, 900, 0, 5, rc), 0);
    for (double y = rc[1] + 3; y < rc[1] + rc[3] * 0.3; y += 1)
        for (double x = rc[0] + 3; x < rc[0] + rc[2] - 3; x += 1) {
            render_rgb p = pixel(img, x, y);
            if (fabs(p.r - th.mask_a.r) < 0.02 && fabs(p.g - th.mask_a.g) < 0.02) n_a++;
            else if (fabs(p.r - th.mask_b.r) < 0.02 && fabs(p.g - th.mask_b.g) < 0.02) n_b++;
            else n_other++;
        }
    if (n_a < 20 || n_b < 20) fail_msg("masked cell: %d light and %d dark hatch pixels", n_a, n_b);
    assert_true(n_other < (n_a + n_b) / 2); // anti-aliased edges only
    assert_int_equal(render_matrix_cell_rect(&r.trace, st, &o, 1000, 900, 5, 0, rc), 0);
    const tf_stage *s = &r.trace.stages[st];
    float v = s->data[5 * s->cols];
    double a = 0; // the diverging scale is symmetric about 0
    for (int k = 0; k < s->rows * s->cols; k++) if (isfinite(s->data[k])) a = fmax(a, fabs(s->data[k]));
    check_rgb(pixel(img, rc[0] + rc[2] * 0.18, rc[1] + rc[3] * 0.18), render_cmap_at(RENDER_CMAP_RDBU, (v + a) / (2 * a)), 2.5 / 255,
              "unmasked score");
    cairo_surface_destroy(img);
}

static void high_contrast_and_colormap_options(void **state) {
    (void)state;
    render_opts o;
    render_opts_default(&o);
    o.high_contrast = 1;
    o.cmap_set = 1;
    o.cmap = RENDER_CMAP_GRAY;
    const char *id = "src.input";
    cairo_surface_t *img = export_png(id, RENDER_VIEW_MATRIX, &o, 800, 500, 1);
    check_rgb(pixel(img, 2, 2), (render_rgb){0, 0, 0}, 0.001, "high-contrast background");
    const tf_stage *s = &r.trace.stages[tf_trace_find(&r.trace, id)];
    double lo = INFINITY, hi = -INFINITY, rc[4];
    for (int k = 0; k < s->rows * s->cols; k++) { lo = fmin(lo, s->data[k]); hi = fmax(hi, s->data[k]); }
    assert_int_equal(render_matrix_cell_rect(&r.trace, tf_trace_find(&r.trace, id), &o, 800, 500, 1, 0, rc), 0);
    double t = (s->data[1 * s->cols + 0] - lo) / (hi - lo); // a sequential map spans min..max
    check_rgb(pixel(img, rc[0] + rc[2] * 0.12, rc[1] + rc[3] * 0.15), (render_rgb){1 - t, 1 - t, 1 - t}, 2.5 / 255, "gray cell");
    cairo_surface_destroy(img);
}

// The numbers the compare view writes under attention weights: one-hot rows
// and mean entropy, on a hand-made stage (a fully masked row counts for neither).
static void probability_rows(void **state) {
    (void)state;
    float p[4][4] = {{1, 0, 0, 0}, {0.5f, 0.5f, 0, 0}, {0, 0, 0, 0}, {0.25f, 0.25f, 0.25f, 0.25f}};
    tf_stage s = {.rows = 4, .cols = 4, .kind = TF_KIND_PROB, .data = &p[0][0]};
    int oh = -1;
    double h = -1;
    render_prob_rows(&s, &oh, &h);
    assert_int_equal(oh, 1);
    CHECK_CLOSE(h, (0 + 1 + 2) / 3.0, 1e-9);
    p[1][0] = 0.995f;
    p[1][1] = 0.005f;
    render_prob_rows(&s, &oh, &h);
    assert_int_equal(oh, 2);
    char buf[200];
    render_opts o;
    render_opts_default(&o);
    assert_string_equal(render_without_text(&o, TF_WITHOUT_PE | TF_WITHOUT_RESIDUAL, buf, sizeof buf), "positional encoding, the residual connections");
}

// Every view, every format, draws without a cairo error and gives a file
// its reader accepts (PNG here; SVG and PDF are parsed in cli_test.sh).
static void every_view_draws(void **state) {
    (void)state;
    render_opts o;
    render_opts_default(&o);
    o.cell_row = 1;
    o.cell_col = 0;
    render_compare cmp = {.n_models = 2, .name = {"a", "b"}, .kind = {"Transformer", "LSTM"}, .n_buckets = 2, .bucket = {"1-5", "6-10"},
                          .pairs = {3, 0}, .exact = {{0.5, -1}, {1, -1}}, .tokens = {{0.5, -1}, {1, -1}}, .file = "x.tsv", .total = 3};
    o.compare = &cmp; // (the compare-length view's measurements)
    o.beside = &r.trace; // (the side-by-side view's second model: the same one will do)
    o.beside_model = &m;
    int st0 = tf_trace_find(&r.trace, "dec.0.self_attn.head.1.weights"), probs = tf_trace_find(&r.trace, "out.probs");
    // the compare view sets the run with parts switched off beside the same tokens with every part
    tf_model off = m;
    off.cfg.without = TF_WITHOUT_SCALE | TF_WITHOUT_MASK;
    tf_run ro, rc;
    tf_err e;
    assert_int_equal(tf_run_sentence(&ro, &off, we_src, we_tgt, &e), 0);
    assert_int_equal(tf_run_compare(&rc, &off, &ro, &e), 0);
    tf_run rb; // the beam view: a run decoded by beam search
    assert_int_equal(tf_run_beam(&rb, &m, we_src, 3, 0.6, &e), 0);
    for (int v = RENDER_VIEW_MATRIX; v < RENDER_VIEW_COUNT; v++) {
        char why[256];
        int st = v == RENDER_VIEW_TOPK || v == RENDER_VIEW_BEAM ? probs : st0; // (the top-k and beam views are the output's)
        const tf_trace *t = &r.trace;
        render_opts ov = o;
        if (v == RENDER_VIEW_BEAM) {
            assert_int_equal(render_view_check(t, st, (render_view)v, &o, why, sizeof why), -1); // (greedy: no beam to draw)
            assert_non_null(strstr(why, "--beam"));
            assert_int_equal(render_view_check(&rb.trace, st0, (render_view)v, &o, why, sizeof why), -1); // (not an output stage)
            assert_non_null(strstr(why, "out.probs"));
            t = &rb.trace;
            st = tf_trace_find(t, "out.probs");
        }
        if (v == RENDER_VIEW_COMPARE) {
            assert_int_equal(render_view_check(t, st, (render_view)v, &o, why, sizeof why), -1);
            assert_non_null(strstr(why, "--without"));
            t = &ro.trace;
            ov.with_all = &rc.trace;
        }
        assert_int_equal(render_view_check(t, st, (render_view)v, &ov, why, sizeof why), 0);
        for (int f = IO_PNG; f <= IO_PDF; f++) {
            unsigned char *out;
            size_t n;
            if (io_draw(&(io_picture){.t = t, .m = &m, .stage = st, .view = (render_view)v, .opts = ov, .w = 640, .h = 480, .scale = 1, .fmt = (io_format)f}, &out, &n))
                fail_msg("%s as format %d failed", render_view_name((render_view)v), f);
            static const char *magic[] = {"\x89PNG", "<?xm", "%PDF"};
            if (n < 100 || memcmp(out, magic[f], 4)) fail_msg("%s: bad %s output", render_view_name((render_view)v), magic[f] + 1);
            free(out);
        }
    }
    tf_run_free(&rb);
    tf_run_free(&rc);
    tf_run_free(&ro);
    char why[256];
    o.cell_row = 9;
    assert_int_equal(render_view_check(&r.trace, st0, RENDER_VIEW_ARITHMETIC, &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "outside"));
    assert_int_equal(render_view_check(&r.trace, tf_trace_find(&r.trace, "src.pe"), RENDER_VIEW_HEADS, &o, why, sizeof why), -1);
    // lines need attention weights, top-k the output
    assert_int_equal(render_view_check(&r.trace, tf_trace_find(&r.trace, "dec.0.self_attn.head.1.scores"), RENDER_VIEW_LINES, &o, why, sizeof why), -1);
    assert_int_equal(render_view_check(&r.trace, tf_trace_find(&r.trace, "src.pe"), RENDER_VIEW_LINES_HEADS, &o, why, sizeof why), -1);
    assert_int_equal(render_view_check(&r.trace, st0, RENDER_VIEW_TOPK, &o, why, sizeof why), -1);
    assert_non_null(strstr(why, "out.probs"));
    assert_int_equal(render_view_check(&r.trace, tf_trace_find(&r.trace, "out.logits"), RENDER_VIEW_TOPK, &o, why, sizeof why), 0);
}

// The lines view: each line's darkness over the background is its weight
// (opacity = weight), and a hovered word keeps only its own lines. Read
// from the pixels of the exported PNG, against the trace's weights.
static void lines_opacity_is_the_weight(void **state) {
    (void)state;
    tf_model fm;
    tf_run fr;
    tf_err e;
    char path[4096];
    assert_int_equal(io_load_model(&fm, "en-fa", path, sizeof path), 0);
    if (tf_run_sentence(&fr, &fm, we_src, NULL, &e)) fail_msg("%s", e.msg);
    tf_run saved = r;
    r = fr; // export_png reads r
    const char *id = "dec.1.cross_attn.head.3.weights";
    int st = tf_trace_find(&fr.trace, id);
    const tf_stage *s = &fr.trace.stages[st];
    const double W = 1600, H = 1400;
    render_opts o;
    render_opts_default(&o);
    int checked = 0;
    for (int i = 0; i < s->rows; i++) {
        o.focus_row = i; // this word's lines alone: they do not cross
        cairo_surface_t *img = export_png(id, RENDER_VIEW_LINES, &o, W, H, 1);
        const float *wr = s->data + (size_t)i * s->cols;
        int best = 0;
        for (int j = 1; j < s->cols; j++) if (wr[j] > wr[best]) best = j;
        double xq, yq, xk, yk, dark_best = 0;
        assert_int_equal(render_lines_anchor(&fr.trace, st, 0, &o, W, H, 1, i, &xq, &yq), 0);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < s->cols; j++) {
                if (pass == 0 && j != best) continue;
                assert_int_equal(render_lines_anchor(&fr.trace, st, 0, &o, W, H, 0, j, &xk, &yk), 0);
                // a third of the way from the attended word: lines of one word are apart there
                render_rgb p = pixel(img, xk + (xq - xk) / 3, yk + (yq - yk) / 3);
                double dark = 1 - p.r; // white background: 1 - r = weight · (1 - line's red)
                if (pass == 0) { dark_best = dark; assert_true(dark > 0.5 * wr[best]); continue; }
                if (wr[j] < 0.03 || j == best) continue;
                double want = wr[j] / wr[best];
                if (fabs(dark / dark_best - want) > 0.04)
                    fail_msg("row %d, key %d: the line is %.3f as dark as the strongest, its weight %.3f as large", i, j, dark / dark_best, want);
                checked++;
            }
        // another word's strongest line is not drawn
        int other = (i + 1) % s->rows, ob = 0;
        for (int j = 1; j < s->cols; j++) if (s->data[(size_t)other * s->cols + j] > s->data[(size_t)other * s->cols + ob]) ob = j;
        double xo, yo;
        render_lines_anchor(&fr.trace, st, 0, &o, W, H, 1, other, &xo, &yo);
        render_lines_anchor(&fr.trace, st, 0, &o, W, H, 0, ob, &xk, &yk);
        double mx = xk + (xo - xk) / 2, my = yk + (yo - yk) / 2, near = 1e9;
        for (int j = 0; j < s->cols; j++) { // (away from every line of the hovered word, which may cross it)
            double ax, ay;
            render_lines_anchor(&fr.trace, st, 0, &o, W, H, 0, j, &ax, &ay);
            double dx = xq - ax, dy = yq - ay, t0 = ((mx - ax) * dx + (my - ay) * dy) / (dx * dx + dy * dy);
            t0 = fmin(1, fmax(0, t0));
            near = fmin(near, hypot(ax + t0 * dx - mx, ay + t0 * dy - my));
        }
        if (near > 8) check_rgb(pixel(img, mx, my), (render_rgb){1, 1, 1}, 0.01, "a line of a word not hovered");
        cairo_surface_destroy(img);
    }
    printf("  lines: %d lines' opacities checked against their weights\n", checked);
    assert_true(checked >= 3);
    // the word under a point is the word drawn there
    int row, col;
    double x, y;
    o.focus_row = -1;
    assert_int_equal(render_lines_anchor(&fr.trace, st, 0, &o, W, H, 1, 4, &x, &y), 0);
    assert_int_equal(render_lines_hit(&fr.trace, st, 0, &o, W, H, x + 40, y, &row, &col), 0);
    assert_int_equal(row, 4);
    assert_int_equal(col, -1);
    assert_int_equal(render_lines_anchor(&fr.trace, st, 0, &o, W, H, 0, 2, &x, &y), 0);
    assert_int_equal(render_lines_hit(&fr.trace, st, 0, &o, W, H, x - 40, y, &row, &col), 0);
    assert_int_equal(row, -1);
    assert_int_equal(col, 2);
    assert_int_equal(render_lines_hit(&fr.trace, st, 0, &o, W, H, W / 2, y, &row, &col), -1); // among the lines
    r = saved;
    tf_run_free(&fr);
    tf_model_free(&fm);
}

// The same picture as the committed reference, within a tolerance (fonts and
// anti-aliasing may move a few pixels; a wrong colour or layout does not pass).
static void compare_reference(cairo_surface_t *img, const char *ref_path) {
    cairo_surface_t *ref = cairo_image_surface_create_from_png(ref_path);
    if (cairo_surface_status(ref) != CAIRO_STATUS_SUCCESS) {
        if (getenv("TVIZ_UPDATE_REFERENCES")) { cairo_surface_write_to_png(img, ref_path); return; }
        fail_msg("cannot read %s (TVIZ_UPDATE_REFERENCES=1 writes it)", ref_path);
    }
    int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    assert_int_equal(cairo_image_surface_get_width(ref), w);
    assert_int_equal(cairo_image_surface_get_height(ref), h);
    long differ = 0;
    double total = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            render_rgb a = pixel(img, x, y), b = pixel(ref, x, y);
            double d = fabs(a.r - b.r) + fabs(a.g - b.g) + fabs(a.b - b.b);
            total += d;
            differ += d > 0.1;
        }
    double frac = (double)differ / ((double)w * h);
    printf("  %s: %.3f%% of pixels differ, mean difference %.5f\n", ref_path, 100 * frac, total / ((double)w * h));
    if (frac > 0.01) fail_msg("%s: %.2f%% of pixels differ from the reference", ref_path, 100 * frac);
    cairo_surface_destroy(ref);
}

static void reference_images(void **state) {
    (void)state;
    render_opts o;
    render_opts_default(&o);
    cairo_surface_t *img = export_png("dec.0.self_attn.head.0.masked", RENDER_VIEW_HEATMAP, &o, 800, 700, 1);
    compare_reference(img, "tests/images/worked-example-masked.png");
    cairo_surface_destroy(img);
    img = export_png("src.input", RENDER_VIEW_MATRIX, &o, 800, 420, 1);
    compare_reference(img, "tests/images/worked-example-input.png");
    cairo_surface_destroy(img);
}

// {{expr}} of a lesson as the window reads it, without the bidi isolates around it.
static const char *lesson_value(render_lesson_ctx *c, const char *stage, const char *expr) {
    static char out[600], plain[600];
    c->stage = stage ? tf_trace_find(c->t, stage) : -1;
    if (stage) assert_true(c->stage >= 0);
    if (render_lesson_value(c, expr, out, sizeof out)) return NULL;
    size_t k = 0;
    for (const char *p = out; *p; p++) { // U+2066 LRI, U+2068 FSI, U+2069 PDI: e2 81 a6 / a8 / a9
        if ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x81 && ((unsigned char)p[2] == 0xa6 || (unsigned char)p[2] >= 0xa8)) { p += 2; continue; }
        plain[k++] = *p;
    }
    plain[k] = 0;
    return plain;
}

static void lesson_live_values(void **state) {
    (void)state;
    render_lesson_ctx c = {&r.trace, &m, "worked-example", -1, r.greedy};
    // the slides' numbers, sin(1), their sum; sizes; tokens
    assert_string_equal(lesson_value(&c, NULL, "src.embed 0"), "(0.10,\u00a00.30,\u00a00.40,\u00a00.80)"); // as the cells show it
    assert_string_equal(lesson_value(&c, NULL, "src.pe 1 0"), "0.8415");
    assert_string_equal(lesson_value(&c, NULL, "src.input 1 0"), "1.7415");
    assert_string_equal(lesson_value(&c, NULL, "src.pe -1 -1"), "0.9992"); // the last cell: PE(4, 3) = cos(4 / 100)
    assert_string_equal(lesson_value(&c, NULL, "d_model"), "4");
    assert_string_equal(lesson_value(&c, NULL, "sqrt_d_k"), "1.4142");
    assert_string_equal(lesson_value(&c, NULL, "embed_scale"), "1");
    assert_string_equal(lesson_value(&c, NULL, "src_len"), "5");
    assert_string_equal(lesson_value(&c, NULL, "tgt_len"), "8");
    assert_string_equal(lesson_value(&c, NULL, "src -1"), "transformers");
    assert_string_equal(lesson_value(&c, NULL, "tgt 1"), "من");
    assert_string_equal(lesson_value(&c, NULL, "sentence"), we_src);
    assert_string_equal(lesson_value(&c, NULL, "translation"), we_tgt);
    assert_string_equal(lesson_value(&c, NULL, "model"), "worked-example");
    assert_string_equal(lesson_value(&c, NULL, "src_words"), "5"); // a word-level model: no pieces
    assert_string_equal(lesson_value(&c, NULL, "src_merges"), "0");
    assert_string_equal(lesson_value(&c, NULL, "split_word"), "I"); // none split: the first word
    assert_string_equal(lesson_value(&c, NULL, "split_pieces"), "I");
    // "this" is the stage beside the text; this:NAME a sibling of it
    const tf_stage *sc = &r.trace.stages[tf_trace_find(&r.trace, "enc.0.self_attn.head.1.scores")];
    char want[64];
    render_format_value(sc->data[2 * sc->cols + 3], want, sizeof want, 4);
    assert_string_equal(lesson_value(&c, "enc.0.self_attn.head.1.scaled", "this:scores 2 3"), want);
    // a row's sum, its largest weight and where it is, its zeros, its label
    const char *w = "dec.0.cross_attn.head.1.weights";
    const tf_stage *ws = &r.trace.stages[tf_trace_find(&r.trace, w)];
    int best = 0;
    for (int j = 1; j < ws->cols; j++) if (ws->data[3 * ws->cols + j] > ws->data[3 * ws->cols + best]) best = j;
    assert_string_equal(lesson_value(&c, w, "this 0 sum"), "1.0000");
    assert_string_equal(lesson_value(&c, w, "this 3 argmax"), r.trace.src_labels[best]);
    render_format_value(ws->data[3 * ws->cols + best], want, sizeof want, 4);
    assert_string_equal(lesson_value(&c, w, "this 3 max"), want);
    assert_string_equal(lesson_value(&c, w, "this -1 label"), "می‌برم");
    assert_string_equal(lesson_value(&c, w, "this rows"), "8");
    const tf_stage *hs = &r.trace.stages[tf_trace_find(&r.trace, "enc.0.ffn.hidden")];
    int zeros = 0;
    for (int j = 0; j < hs->cols; j++) zeros += hs->data[j] == 0;
    snprintf(want, sizeof want, "%d", zeros);
    assert_true(zeros > 0 && zeros < hs->cols);
    assert_string_equal(lesson_value(&c, "enc.0.ffn.hidden", "this 0 zeros"), want);
    // a row of more than 6 numbers: the first 4 and "…"
    const tf_stage *lg = &r.trace.stages[tf_trace_find(&r.trace, "out.logits")];
    char v[4][32], long_row[200];
    for (int j = 0; j < 4; j++) render_format_value(lg->data[j], v[j], sizeof v[j], 2);
    snprintf(long_row, sizeof long_row, "(%s,\u00a0%s,\u00a0%s,\u00a0%s,\u00a0…)", v[0], v[1], v[2], v[3]);
    assert_true(lg->cols > 6);
    assert_string_equal(lesson_value(&c, NULL, "out.logits 0"), long_row);
    // the isolates: numbers left to right, tokens in their own direction
    char raw[64];
    c.stage = -1;
    assert_int_equal(render_lesson_value(&c, "src.pe 1 0", raw, sizeof raw), 0);
    assert_string_equal(raw, "\u20660.8415\u2069");
    assert_int_equal(render_lesson_value(&c, "tgt 1", raw, sizeof raw), 0);
    assert_string_equal(raw, "\u2068من\u2069");
    // what cannot be read says why
    static const char *bad[] = {"src 5", "nosuch.stage 0 0", "this 0 0", "src.embed 0 4", "src.embed 9", "src.embed 0 bogus",
                                "bogus", "src.embed 0 0 0", "", "this:scores 0 0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char why[300];
        c.stage = -1;
        if (render_lesson_value(&c, bad[i], why, sizeof why) != -1 || !why[0]) fail_msg("\"%s\" read as \"%s\"", bad[i], why);
    }
    // conditions
    char why[300];
    c.stage = tf_trace_find(&r.trace, "enc.0.self_attn.head.0.weights");
    assert_int_equal(render_lesson_cond(&c, "model=worked-example", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&c, "model!=worked-example", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "!model=en-fa", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&c, "sharp", why, sizeof why), 0); // untrained: nearly uniform rows
    assert_int_equal(render_lesson_cond(&c, "!sharp", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&c, "flat", why, sizeof why), 1);
    c.stage = tf_trace_find(&r.trace, "dec.0.self_attn.head.0.weights"); // the mask's first row alone is one-hot: not counted
    assert_int_equal(render_lesson_cond(&c, "sharp", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "flat", why, sizeof why), 1);
    c.stage = tf_trace_find(&r.trace, "dec.0.cross_attn.q"); // not attention weights: neither
    assert_int_equal(render_lesson_cond(&c, "sharp", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "flat", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "has enc.norm", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "has src.pe", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&c, "greedy", why, sizeof why), 0); // the target is typed
    assert_int_equal(render_lesson_cond(&c, "pieces", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "split", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&c, "fluent", why, sizeof why), -1);
    assert_non_null(strstr(why, "not a condition"));
    assert_int_equal(render_lesson_cond(&c, "aligning", why, sizeof why), 0); // the worked example was never trained
    assert_int_equal(render_lesson_value(&c, "align_id", why, sizeof why), -1);
    // the trained translator: its first encoder head is sharp, and it decodes the sentence itself
    tf_model fm;
    tf_run fr;
    tf_err e;
    char path[4096];
    assert_int_equal(io_load_model(&fm, "en-fa", path, sizeof path), 0);
    if (tf_run_sentence(&fr, &fm, we_src, NULL, &e)) fail_msg("%s", e.msg);
    render_lesson_ctx f = {&fr.trace, &fm, "en-fa", tf_trace_find(&fr.trace, "enc.0.self_attn.head.0.weights"), fr.greedy};
    assert_int_equal(render_lesson_cond(&f, "sharp", why, sizeof why), 1);
    // the aligning head the file names (as tviz train measured it), as values
    if (fm.align_layer < 0) { fm.align_layer = 1; fm.align_head = 3; fm.align_rate = 0.887f; } // (a file from before it was kept)
    snprintf(want, sizeof want, "dec.%d.cross_attn.head.%d.weights", fm.align_layer, fm.align_head);
    assert_int_equal(render_lesson_cond(&f, "aligning", why, sizeof why), 1);
    assert_string_equal(lesson_value(&f, NULL, "align_id"), want);
    char num[64];
    snprintf(num, sizeof num, "%d", fm.align_layer + 1);
    assert_string_equal(lesson_value(&f, NULL, "align_layer"), num);
    snprintf(num, sizeof num, "%d", fm.align_head + 1);
    assert_string_equal(lesson_value(&f, NULL, "align_head"), num);
    snprintf(num, sizeof num, "%.0f%%", 100.0 * fm.align_rate);
    assert_string_equal(lesson_value(&f, NULL, "align_rate"), num);
    int ai = tf_trace_find(&fr.trace, want);
    assert_true(ai >= 0);
    const tf_stage *as = &fr.trace.stages[ai];
    int peak = 0;
    for (int j = 1; j < as->cols; j++) if (as->data[as->cols + j] > as->data[as->cols + peak]) peak = j;
    assert_string_equal(lesson_value(&f, NULL, "align 1 argmax"), fr.trace.src_labels[peak]);
    f.stage = tf_trace_find(&fr.trace, "dec.1.cross_attn.head.3.weights"); // the aligning head
    assert_int_equal(render_lesson_cond(&f, "sharp", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&f, "greedy", why, sizeof why), 1);
    assert_int_equal(render_lesson_cond(&f, "tied", why, sizeof why), 1); // its output layer is the target embedding
    assert_string_equal(lesson_value(&f, NULL, "translation"), we_tgt);
    assert_string_equal(lesson_value(&f, NULL, "src -1"), "<eos>");
    assert_string_equal(lesson_value(&f, NULL, "sentence"), we_src);
    assert_string_equal(lesson_value(&f, NULL, "embed_scale"), "11.314"); // √128: the shipped translator has d_model 128
    // its subword pieces: the first word of the sentence its merges split, by the merges themselves
    assert_int_equal(render_lesson_cond(&f, "pieces", why, sizeof why), 1);
    snprintf(want, sizeof want, "%d", fm.src_bpe.n);
    assert_string_equal(lesson_value(&f, NULL, "src_merges"), want);
    assert_string_equal(lesson_value(&f, NULL, "src_words"), "5");
    char split[128] = "", whole[64] = "";
    const char *words[] = {"I", "really", "enjoy", "learning", "transformers"};
    for (int i = 0; i < 5 && !split[0]; i++) {
        char **pc;
        int np = tf_bpe_word(&fm.src_bpe, words[i], &pc, &e);
        assert_true(np >= 1);
        for (int k = 0; np > 1 && k < np; k++) snprintf(split + strlen(split), sizeof split - strlen(split), "%s%s", k ? " " : "", pc[k]);
        if (np > 1) snprintf(whole, sizeof whole, "%s", words[i]);
        tf_words_free(pc, np);
    }
    assert_true(split[0]); // the shipped merges split at least one of the five words
    assert_int_equal(render_lesson_cond(&f, "split", why, sizeof why), 1);
    assert_string_equal(lesson_value(&f, NULL, "split_word"), whole);
    assert_string_equal(lesson_value(&f, NULL, "split_pieces"), split);
    tf_run_free(&fr);
    tf_model_free(&fm);
    // a model with an output matrix of its own, as torch.nn.Transformer setups often have: not tied
    tf_config gc = {.C = 4, .H = 2, .F = 8, .L_enc = 1, .L_dec = 1, .eps = 1e-5f, .embed_scale_is_sqrt = 1, .has_generator = 1};
    if (tf_model_init(&fm, &gc, "<unk>\n<bos>\n<eos>\na\nb", NULL, 1, &e)) fail_msg("%s", e.msg);
    if (tf_run_sentence(&fr, &fm, "a b", "a", &e)) fail_msg("%s", e.msg);
    render_lesson_ctx g = {&fr.trace, &fm, "own-generator", -1, fr.greedy};
    assert_int_equal(render_lesson_cond(&g, "tied", why, sizeof why), 0);
    assert_int_equal(render_lesson_cond(&g, "!tied", why, sizeof why), 1);
    tf_run_free(&fr);
    tf_model_free(&fm);
}

// What if? The lesson's values and conditions of the switches: the twin rows
// of a repeated word (equal without positional encoding), one-hot rows and
// entropy, the parts switched off, where training ended.
static void whatif_live_values(void **state) {
    (void)state;
    tf_model off = m;
    tf_run ro;
    tf_err e;
    char why[300];
    for (int pe = 0; pe < 2; pe++) {
        off.cfg.without = pe ? 0 : TF_WITHOUT_PE | TF_WITHOUT_SCALE;
        assert_int_equal(tf_run_sentence(&ro, &off, "I really enjoy I", NULL, &e), 0);
        render_lesson_ctx c = {&ro.trace, &off, "worked-example", -1, ro.greedy};
        assert_string_equal(lesson_value(&c, NULL, "twin"), "I");
        assert_string_equal(lesson_value(&c, NULL, "twin_a"), "0");
        assert_string_equal(lesson_value(&c, NULL, "twin_b"), "3");
        const tf_stage *n2 = &ro.trace.stages[tf_trace_find(&ro.trace, "enc.0.norm2")];
        double gap = 0;
        for (int j = 0; j < n2->cols; j++) gap = fmax(gap, fabs(n2->data[j] - n2->data[3 * n2->cols + j]));
        char want[64];
        render_format_value((float)gap, want, sizeof want, 4);
        assert_string_equal(lesson_value(&c, "enc.0.norm2", "this twin_gap"), want);
        if (!pe) assert_true(gap == 0); // the same word, the same row: no position tells them apart
        else assert_true(gap > 1e-3);
        char row0[200];
        snprintf(row0, sizeof row0, "%s", lesson_value(&c, "enc.0.norm2", "this 0"));
        assert_string_equal(lesson_value(&c, "enc.0.norm2", "this twin"), row0);
        if (!pe) assert_string_equal(lesson_value(&c, "enc.0.norm2", "this twin2"), row0);
        assert_null(lesson_value(&c, "tgt.embed", "this twin_gap")); // its rows are not the source tokens
        // one-hot rows and entropy, as render_prob_rows counts them
        const tf_stage *w = &ro.trace.stages[tf_trace_find(&ro.trace, "enc.0.self_attn.head.0.weights")];
        int oh;
        double h;
        render_prob_rows(w, &oh, &h);
        snprintf(want, sizeof want, "%d", oh);
        assert_string_equal(lesson_value(&c, "enc.0.self_attn.head.0.weights", "this onehot"), want);
        snprintf(want, sizeof want, "%.2f", h);
        assert_string_equal(lesson_value(&c, "enc.0.self_attn.head.0.weights", "this entropy"), want);
        assert_null(lesson_value(&c, "enc.0.self_attn.q", "this onehot")); // not probabilities
        // conditions
        c.stage = tf_trace_find(&ro.trace, "enc.0.norm2");
        assert_int_equal(render_lesson_cond(&c, "without=pe", why, sizeof why), !pe);
        assert_int_equal(render_lesson_cond(&c, "!without=scale", why, sizeof why), pe);
        assert_int_equal(render_lesson_cond(&c, "without=mask", why, sizeof why), 0);
        assert_int_equal(render_lesson_cond(&c, "twin", why, sizeof why), 1);
        assert_int_equal(render_lesson_cond(&c, "norm_first", why, sizeof why), 0);
        assert_int_equal(render_lesson_cond(&c, "trained", why, sizeof why), 0); // the worked example was made, not trained
        assert_string_equal(lesson_value(&c, NULL, "train_loss"), "—");
        assert_int_equal(render_lesson_cond(&c, "without=wings", why, sizeof why), -1);
        assert_non_null(strstr(why, "without=pe"));
        tf_run_free(&ro);
    }
    // no repeated word: twin is the first token, at 0 and 0, and [if twin] does not hold
    render_lesson_ctx c = {&r.trace, &m, "worked-example", -1, r.greedy};
    assert_string_equal(lesson_value(&c, NULL, "twin"), "I");
    assert_string_equal(lesson_value(&c, NULL, "twin_b"), "0");
    assert_int_equal(render_lesson_cond(&c, "twin", why, sizeof why), 0);
}

// Text as pango markup: &, < and > escaped, and a text too long for the
// buffer cut before a whole character, never inside one (سلام: 2 bytes a letter).
static void markup_escape(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(render_markup_escape(out, sizeof out, "a<b & c>d"), strlen("a&lt;b &amp; c&gt;d"));
    assert_string_equal(out, "a&lt;b &amp; c&gt;d");
    char small[6];
    assert_int_equal(render_markup_escape(small, sizeof small, "\u0633\u0644\u0627\u0645"), 4); // two letters fit in 5 bytes, not two and a half
    assert_string_equal(small, "\u0633\u0644");
    assert_int_equal(render_markup_escape(small, sizeof small, "x&y"), 1); // "&amp;" does not fit after x: not half of it
    assert_string_equal(small, "x");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(colormaps_match_published_values),
        cmocka_unit_test(heatmap_pixels),
        cmocka_unit_test(masked_cells_show_the_pattern),
        cmocka_unit_test(high_contrast_and_colormap_options),
        cmocka_unit_test(every_view_draws),
        cmocka_unit_test(lines_opacity_is_the_weight),
        cmocka_unit_test(probability_rows),
        cmocka_unit_test(whatif_live_values),
        cmocka_unit_test(reference_images),
        cmocka_unit_test(lesson_live_values),
        cmocka_unit_test(markup_escape),
    };
    return cmocka_run_group_tests_name("render", tests, setup, teardown);
}
