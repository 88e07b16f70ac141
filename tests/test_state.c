// test_state.c — the window's view state without a window: every key's
// effect on what is shown, typing, and keeping the place across reruns.
#include "testutil.h"

#include <math.h>

#include "../src/app/draw.h"
#include "../src/cli/cli.h"

static tf_model m;
static tf_run r;

static int setup(void **state) {
    (void)state;
    tf_err e;
    if (tf_model_load(&m, "tests/fixtures/multihead.safetensors", &e)) return -1; // 2+2 layers, 4 heads, final norms
    return tf_run_sentence(&r, &m, "the white house falls", "la maison blanche tombe", &e);
}

static int teardown(void **state) {
    (void)state;
    tf_run_free(&r);
    tf_model_free(&m);
    return 0;
}

static const char *id(const app_state *s) { return r.trace.stages[s->stage].id; }

static void keys_walk_the_stages(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "the white house falls", "la maison blanche tombe");
    app_state_attach(&s, &r.trace);
    assert_string_equal(id(&s), "src.embed");
    app_state_key(&s, &r.trace, APP_KEY_PREV); // stays at the first
    assert_int_equal(s.stage, 0);
    app_state_key(&s, &r.trace, APP_KEY_NEXT);
    app_state_key(&s, &r.trace, APP_KEY_NEXT);
    assert_string_equal(id(&s), "src.input");
    app_state_key(&s, &r.trace, APP_KEY_LAST);
    assert_string_equal(id(&s), "out.probs");
    app_state_key(&s, &r.trace, APP_KEY_NEXT); // stays at the last
    assert_string_equal(id(&s), "out.probs");
    app_state_key(&s, &r.trace, APP_KEY_FIRST);
    assert_string_equal(id(&s), "src.embed");
}

static void layers_heads_and_jumps(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "x", "");
    app_state_attach(&s, &r.trace);
    app_state_key(&s, &r.trace, APP_KEY_LAYER_UP); // not in a layer: a message, no move
    assert_string_equal(id(&s), "src.embed");
    assert_true(s.message[0]);
    app_state_key(&s, &r.trace, APP_KEY_ENCODER);
    assert_string_equal(id(&s), "enc.0.self_attn.head.0.weights");
    app_state_key(&s, &r.trace, APP_KEY_HEAD_3);
    assert_string_equal(id(&s), "enc.0.self_attn.head.2.weights");
    app_state_key(&s, &r.trace, APP_KEY_LAYER_UP); // same stage, next layer
    assert_string_equal(id(&s), "enc.1.self_attn.head.2.weights");
    app_state_key(&s, &r.trace, APP_KEY_LAYER_UP); // no third layer
    assert_string_equal(id(&s), "enc.1.self_attn.head.2.weights");
    assert_non_null(strstr(s.message, "last"));
    app_state_key(&s, &r.trace, APP_KEY_HEAD_8); // only 4 heads
    assert_string_equal(id(&s), "enc.1.self_attn.head.2.weights");
    app_state_key(&s, &r.trace, APP_KEY_CROSS); // keeps layer and head
    assert_string_equal(id(&s), "dec.1.cross_attn.head.2.weights");
    app_state_key(&s, &r.trace, APP_KEY_LAYER_DOWN);
    assert_string_equal(id(&s), "dec.0.cross_attn.head.2.weights");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEATMAP);
    app_state_key(&s, &r.trace, APP_KEY_ALL_HEADS);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEADS);
    app_state_key(&s, &r.trace, APP_KEY_HEAD_1); // a head again
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEATMAP);
    assert_string_equal(id(&s), "dec.0.cross_attn.head.0.weights");
    app_state_key(&s, &r.trace, APP_KEY_DECODER);
    assert_string_equal(id(&s), "dec.0.self_attn.head.0.weights");
    app_state_goto(&s, &r.trace, "enc.1.ffn.hidden");
    app_state_key(&s, &r.trace, APP_KEY_HEAD_2); // from a layer's other stage into its attention
    assert_string_equal(id(&s), "enc.1.self_attn.head.1.weights");
    app_state_goto(&s, &r.trace, "enc.0.norm1");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_MATRIX);
    app_state_key(&s, &r.trace, APP_KEY_ALL_HEADS); // not an attention stage
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_MATRIX);
}

// ---------------------------------------------------------------- every key from every stage
// Where a key should land, by the documented ids (the reference the window's
// old string rules followed): -1 = stay.
static int with_layer(const tf_trace *t, const char *id, int layer) {
    char buf[96];
    const char *dot = strchr(id, '.'), *rest = dot ? strchr(dot + 1, '.') : NULL;
    if (!rest || dot[1] < '0' || dot[1] > '9') return -1; // not in a layer
    snprintf(buf, sizeof buf, "%.*s.%d%s", (int)(dot - id), id, layer, rest);
    return tf_trace_find(t, buf);
}

static int expected_landing(const tf_trace *t, int i, app_key k) {
    const char *id = t->stages[i].id;
    char buf[96];
    int layer = -1, head = -1;
    const char *dot = strchr(id, '.');
    if (dot && dot[1] >= '0' && dot[1] <= '9') layer = atoi(dot + 1);
    const char *h = strstr(id, ".head.");
    if (h) head = atoi(h + 6);
    switch (k) {
    case APP_KEY_NEXT: return i + 1 < t->n ? i + 1 : i;
    case APP_KEY_PREV: return i > 0 ? i - 1 : i;
    case APP_KEY_FIRST: return 0;
    case APP_KEY_LAST: return t->n - 1;
    case APP_KEY_LAYER_UP: case APP_KEY_LAYER_DOWN: return layer < 0 ? -1 : with_layer(t, id, layer + (k == APP_KEY_LAYER_UP ? 1 : -1));
    case APP_KEY_ENCODER: case APP_KEY_DECODER: case APP_KEY_CROSS: {
        const char *side = k == APP_KEY_ENCODER ? "enc" : "dec", *kind = k == APP_KEY_CROSS ? "cross_attn" : "self_attn";
        snprintf(buf, sizeof buf, "%s.%d.%s.head.%d.weights", side, layer > 0 ? layer : 0, kind, head > 0 ? head : 0);
        int j = tf_trace_find(t, buf);
        if (j >= 0) return j;
        snprintf(buf, sizeof buf, "%s.0.%s.head.0.weights", side, kind);
        return tf_trace_find(t, buf);
    }
    default: {
        int want = k - APP_KEY_HEAD_1;
        if (h) {
            snprintf(buf, sizeof buf, "%.*s.head.%d%s", (int)(h - id), id, want, strchr(h + 6, '.'));
            return tf_trace_find(t, buf);
        }
        if (layer < 0) return -1;
        snprintf(buf, sizeof buf, "%.3s.%d.%s.head.%d.weights", id, layer, strstr(id, "cross_attn") ? "cross_attn" : "self_attn", want);
        return tf_trace_find(t, buf);
    }
    }
}

static void every_key_from_every_stage(const tf_trace *t, const char *what) {
    static const app_key keys[] = {APP_KEY_NEXT, APP_KEY_PREV, APP_KEY_FIRST, APP_KEY_LAST, APP_KEY_LAYER_UP, APP_KEY_LAYER_DOWN,
                                   APP_KEY_ENCODER, APP_KEY_DECODER, APP_KEY_CROSS, APP_KEY_HEAD_1, APP_KEY_HEAD_2, APP_KEY_HEAD_3,
                                   APP_KEY_HEAD_4, APP_KEY_HEAD_5, APP_KEY_HEAD_6, APP_KEY_HEAD_7, APP_KEY_HEAD_8};
    int moves = 0, stays = 0;
    for (int i = 0; i < t->n; i++) {
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            app_state s;
            app_state_init(&s, "x", "");
            app_state_attach(&s, t);
            app_state_goto(&s, t, t->stages[i].id);
            app_state_key(&s, t, keys[k]);
            int want = expected_landing(t, i, keys[k]);
            if (want < 0) want = i;
            if (s.stage != want)
                fail_msg("%s: key %d from %s lands on %s, want %s", what, (int)keys[k], t->stages[i].id, t->stages[s.stage].id, t->stages[want].id);
            if (want == i && s.stage == i) stays++;
            else moves++;
        }
    }
    printf("  %s: %d stages × %zu keys: %d moves, %d stays, each where the ids say\n", what, t->n, sizeof keys / sizeof *keys, moves, stays);
}

static void navigation_keys_everywhere(void **state) {
    (void)state;
    every_key_from_every_stage(&r.trace, "2+2 layers, final norms");
    tf_model we, base;
    tf_run rw, rb;
    tf_err e;
    assert_int_equal(tf_model_load(&we, "assets/models/worked-example.safetensors", &e), 0);
    assert_int_equal(tf_run_sentence(&rw, &we, "I really enjoy learning transformers", NULL, &e), 0);
    every_key_from_every_stage(&rw.trace, "worked example");
    if (cli_preset_base(&base, 1, &e)) fail_msg("base preset: %s", e.msg);
    if (tf_run_sentence(&rb, &base, "the model reads the first sentence", "the model", &e)) fail_msg("base: %s", e.msg);
    assert_int_equal(rb.trace.n > 900, 1);
    every_key_from_every_stage(&rb.trace, "base preset (6+6 layers, 8 heads)");
    tf_run_free(&rw);
    tf_run_free(&rb);
    tf_model_free(&we);
    tf_model_free(&base);
}

static void toggles_zoom_and_escape(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "x", "");
    app_state_attach(&s, &r.trace);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_FULLSCREEN), APP_DO_FULLSCREEN);
    assert_true(s.fullscreen);
    app_state_key(&s, &r.trace, APP_KEY_PRESENT);
    app_state_key(&s, &r.trace, APP_KEY_CONTRAST);
    assert_true(s.presentation && s.high_contrast);
    app_state_key(&s, &r.trace, APP_KEY_ZOOM_IN);
    app_state_key(&s, &r.trace, APP_KEY_ZOOM_IN);
    assert_true(s.zoom > 1.5);
    s.pan_x = 40;
    app_state_key(&s, &r.trace, APP_KEY_ESCAPE); // Esc un-zooms
    assert_true(s.zoom == 1 && s.pan_x == 0);
    for (int i = 0; i < 40; i++) app_state_key(&s, &r.trace, APP_KEY_ZOOM_OUT);
    assert_true(s.zoom == 1); // never below fit
    for (int i = 0; i < 40; i++) app_state_key(&s, &r.trace, APP_KEY_ZOOM_IN);
    assert_true(s.zoom <= 32);
    s.pin_row = 1;
    s.pin_col = 2;
    app_state_key(&s, &r.trace, APP_KEY_NEXT); // a new stage drops the pin and the zoom
    assert_int_equal(s.pin_row, -1);
    assert_true(s.zoom == 1);
    app_state_key(&s, &r.trace, APP_KEY_HELP);
    assert_true(s.help);
    int before = s.stage;
    app_state_key(&s, &r.trace, APP_KEY_NEXT); // the first key closes the help
    assert_false(s.help);
    assert_int_equal(s.stage, before + 1);
    app_state_key(&s, &r.trace, APP_KEY_CHECK); // questions, answers, closed
    assert_int_equal(s.check, 1);
    app_state_key(&s, &r.trace, APP_KEY_CHECK);
    assert_int_equal(s.check, 2);
    app_state_key(&s, &r.trace, APP_KEY_CHECK);
    assert_int_equal(s.check, 0);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_LANGUAGE), APP_DO_LANGUAGE);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_EXPORT), APP_DO_EXPORT);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_QUIT), APP_DO_QUIT);
}

static void typing_a_sentence(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "the cat", "");
    app_state_attach(&s, &r.trace);
    app_state_key(&s, &r.trace, APP_KEY_EDIT_SOURCE);
    assert_int_equal(s.editing, 1);
    assert_string_equal(s.edit, "the cat");
    app_state_text(&s, " sleeps");
    assert_string_equal(s.edit, "the cat sleeps");
    app_state_cursor(&s, -1, 1); // Home
    app_state_text(&s, "«");     // two bytes
    assert_string_equal(s.edit, "«the cat sleeps");
    app_state_cursor(&s, -1, 0);
    assert_int_equal(s.cursor, 0);
    app_state_cursor(&s, +1, 0); // over the whole character
    assert_int_equal(s.cursor, 2);
    app_state_backspace(&s);
    assert_string_equal(s.edit, "the cat sleeps");
    app_state_cursor(&s, +1, 1); // End
    app_state_text(&s, "می‌برم");
    app_state_backspace(&s); // removes the last letter, not a byte of it
    assert_string_equal(s.edit, "the cat sleepsمی‌بر");
    app_state_cursor(&s, -1, 1);
    app_state_delete(&s);
    assert_string_equal(s.edit, "he cat sleepsمی‌بر");
    assert_int_equal(app_state_commit(&s), APP_DO_RERUN);
    assert_string_equal(s.src, "he cat sleepsمی‌بر");
    assert_int_equal(s.editing, 0);
    app_state_key(&s, &r.trace, APP_KEY_EDIT_TARGET);
    app_state_text(&s, "le chat");
    app_state_key(&s, &r.trace, APP_KEY_ESCAPE); // Esc abandons the edit
    assert_string_equal(s.tgt, "");
    char big[APP_TEXT_MAX + 10];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    app_state_key(&s, &r.trace, APP_KEY_EDIT_TARGET);
    app_state_text(&s, big); // too long: ignored, nothing overflows
    assert_true(strlen(s.edit) < APP_TEXT_MAX);
}

// After a rerun (a new sentence) the view stays on the same stage.
static void rerun_keeps_the_place(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "x", "");
    app_state_attach(&s, &r.trace);
    app_state_goto(&s, &r.trace, "dec.1.cross_attn.head.3.scaled");
    tf_run r2;
    tf_err e;
    assert_int_equal(tf_run_sentence(&r2, &m, "a red car", "une voiture rouge", &e), 0);
    app_state_attach(&s, &r2.trace);
    assert_string_equal(r2.trace.stages[s.stage].id, "dec.1.cross_attn.head.3.scaled");
    tf_run_free(&r2);
}

// [ and ] step through greedy decoding one token at a time.
static void decoding_steps(void **state) {
    (void)state;
    tf_run g;
    tf_err e;
    assert_int_equal(tf_run_sentence(&g, &m, "a black cat sleeps", NULL, &e), 0);
    int full = g.T; // <bos> un chat noir dort
    assert_int_equal(full, 5);
    app_state s;
    app_state_init(&s, "a black cat sleeps", "");
    app_state_attach(&s, &g.trace);
    assert_int_equal(app_state_key(&s, &g.trace, APP_KEY_STEP_FORWARD), APP_DO_NOTHING); // already complete
    assert_int_equal(app_state_key(&s, &g.trace, APP_KEY_STEP_BACK), APP_DO_RERUN);
    assert_int_equal(s.decode_step, full - 1);
    tf_run step;
    assert_int_equal(tf_run_greedy(&step, &m, s.src, s.decode_step, &e), 0);
    assert_int_equal(step.T, full - 1);
    for (int i = 0; i < step.T; i++) assert_int_equal(step.tgt_ids[i], g.tgt_ids[i]); // the same tokens, one fewer
    for (int k = 0; k < 10; k++) app_state_key(&s, &step.trace, APP_KEY_STEP_BACK);
    assert_int_equal(s.decode_step, 1); // <bos> alone: the first prediction
    app_state_key(&s, &step.trace, APP_KEY_STEP_FORWARD);
    assert_int_equal(s.decode_step, 2);
    for (int k = 0; k < 10; k++) app_state_key(&s, &step.trace, APP_KEY_STEP_FORWARD);
    assert_int_equal(s.decode_step, 0); // complete again
    tf_run_free(&step);
    tf_run_free(&g);
    app_state t;
    app_state_init(&t, "x", "la maison");
    app_state_attach(&t, &r.trace);
    assert_int_equal(app_state_key(&t, &r.trace, APP_KEY_STEP_BACK), APP_DO_NOTHING); // a given target: no stepping
    assert_true(t.message[0]);
}

// The window's picture without a window: every kind of state draws, the
// layout is sane, and the mouse finds the cell it is over.
static void window_picture(void **state) {
    (void)state;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create(sf);
    app_world wd = {.m = &m, .r = &r, .model_name = "multihead"};
    app_state s;
    app_layout lay;
    app_state_init(&s, "the white house falls", "la maison blanche tombe");
    app_state_attach(&s, &r.trace);
    app_key script[] = {APP_KEY_NEXT, APP_KEY_CROSS, APP_KEY_ALL_HEADS, APP_KEY_HELP, APP_KEY_HELP, APP_KEY_PRESENT,
                        APP_KEY_CONTRAST, APP_KEY_ZOOM_IN, APP_KEY_LAST, APP_KEY_EDIT_SOURCE, APP_KEY_ESCAPE, APP_KEY_FIRST};
    for (size_t k = 0; k < sizeof script / sizeof *script; k++) {
        app_state_key(&s, &r.trace, script[k]);
        app_draw(cr, &s, &wd, 1280, 800, &lay);
        assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    }
    assert_true(lay.n_boxes >= 10);      // the navigator's blocks
    assert_true(lay.view.w > 400 && lay.view.h > 400);
    app_state_init(&s, "x", "");
    app_state_attach(&s, &r.trace);
    app_state_goto(&s, &r.trace, "dec.0.cross_attn.head.1.weights");
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    int stage = s.stage, row = -1, col = -1;
    render_opts o = app_render_opts(&s);
    double rc[4];
    assert_int_equal(render_matrix_cell_rect(&r.trace, stage, &o, lay.view.w, lay.view.h, 2, 3, rc), 0);
    assert_int_equal(app_view_hit(&s, &wd, &lay, lay.view.x + rc[0] + rc[2] / 2, lay.view.y + rc[1] + rc[3] / 2, &row, &col), 0);
    assert_int_equal(row, 2);
    assert_int_equal(col, 3);
    s.zoom = 2; // zoomed in: a cell is twice as far from the view's corner
    assert_int_equal(render_matrix_cell_rect(&r.trace, stage, &o, lay.view.w, lay.view.h, 0, 0, rc), 0);
    assert_true(2 * (rc[0] + rc[2] / 2) < lay.view.w);
    assert_int_equal(app_view_hit(&s, &wd, &lay, lay.view.x + 2 * (rc[0] + rc[2] / 2), lay.view.y + 2 * (rc[1] + rc[3] / 2), &row, &col), 0);
    assert_int_equal(row, 0);
    assert_int_equal(col, 0);
    s.pin_row = 2;
    s.pin_col = 3;
    s.hover_row = 1;
    s.hover_col = 1;
    app_draw(cr, &s, &wd, 700, 500, &lay); // small window: no side panel
    app_world none = {.m = &m, .r = NULL, .model_name = "broken", .load_error = "tviz: broken.safetensors: truncated"};
    app_draw(cr, &s, &none, 1280, 800, &lay);
    assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// Looks over the panel's lesson blocks for a point where the mouse finds
// glossary key `want`; 0 and the point if there is one.
static int find_term(const app_state *s, const app_world *wd, const app_layout *lay, const char *want, double *x, double *y) {
    for (int i = 0; i < lay->n_texts; i++)
        for (double py = lay->texts[i].y + 4; py < lay->texts[i].y + 60 && py < lay->panel.y + lay->panel.h; py += 8)
            for (double px = lay->panel.x + 4; px < lay->panel.x + lay->panel.w; px += 6) {
                const char *k = app_panel_term(s, wd, lay, px, py);
                if (k && !strcmp(k, want)) { *x = px; *y = py; return 0; }
            }
    return -1;
}

static int differing_pixels(cairo_surface_t *a, cairo_surface_t *b, int x0, int y0, int w, int h) {
    cairo_surface_flush(a);
    cairo_surface_flush(b);
    int stride = cairo_image_surface_get_stride(a), n = 0;
    const unsigned char *pa = cairo_image_surface_get_data(a), *pb = cairo_image_surface_get_data(b);
    for (int y = y0; y < y0 + h; y++)
        for (int x = x0; x < x0 + w; x++) n += memcmp(pa + y * stride + 4 * x, pb + y * stride + 4 * x, 4) != 0;
    return n;
}

// Persian and Arabic mirror the window; the lesson's glossary words are
// found under the mouse, and their tooltip is drawn.
// Pointer input against the layout a real frame leaves: clicks on the
// sentence boxes, buttons, navigator and cells; panning, zooming about the
// pointer, hovering, and the panel's scroll kept within its text.
static void pointer_input(void **state) {
    (void)state;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create(sf);
    lesson les;
    char err[300];
    assert_int_equal(lesson_load(&les, "lessons/en/inside-transformer.md", "en", err, sizeof err), 0);
    app_world wd = {.m = &m, .r = &r, .model_name = "multihead", .lesson = &les};
    app_state s;
    app_layout lay;
    app_state_init(&s, "the white house falls", "la maison blanche tombe");
    app_state_attach(&s, &r.trace);
#define FRAME() app_draw(cr, &s, &wd, 1280, 800, &lay)
#define MID(rc) (rc).x + (rc).w / 2, (rc).y + (rc).h / 2
    FRAME();
    // buttons
    app_state_press(&s, &wd, &lay, MID(lay.next_btn));
    assert_string_equal(id(&s), "src.pe");
    app_state_press(&s, &wd, &lay, MID(lay.prev_btn));
    assert_string_equal(id(&s), "src.embed");
    // the navigator: a block goes to its stage, in the layer being looked at when on its side
    app_state_goto(&s, &r.trace, "enc.1.norm2");
    FRAME();
    int found = 0;
    for (int i = 0; i < lay.n_boxes; i++) {
        const render_arch_box *b = &lay.boxes[i];
        app_state_goto(&s, &r.trace, "enc.1.norm2");
        app_state_press(&s, &wd, &lay, b->x + b->w / 2, b->y + b->h / 2);
        const char *want = b->block == TF_BLOCK_ENC_FF ? "enc.1.ffn.hidden" : b->block == TF_BLOCK_DEC_CROSS ? "dec.0.cross_attn.q"
                         : b->block == TF_BLOCK_SRC_PE ? "src.pe" : b->block == TF_BLOCK_SOFTMAX ? "out.probs" : NULL;
        if (want) { assert_string_equal(id(&s), want); found++; }
    }
    assert_int_equal(found, 4);
    // a cell: a click pins it, a second click unpins it
    app_state_goto(&s, &r.trace, "dec.0.cross_attn.head.1.weights");
    FRAME();
    render_opts o = app_render_opts(&s);
    double rc[4];
    assert_int_equal(render_matrix_cell_rect(&r.trace, s.stage, &o, lay.view.w, lay.view.h, 2, 3, rc), 0);
    double cx = lay.view.x + rc[0] + rc[2] / 2, cy = lay.view.y + rc[1] + rc[3] / 2;
    assert_int_equal(app_state_motion(&s, &wd, &lay, cx, cy), 1); // hover
    assert_int_equal(s.hover_row, 2);
    assert_int_equal(s.hover_col, 3);
    assert_int_equal(app_state_motion(&s, &wd, &lay, cx + 1, cy), 0); // the same cell: nothing to redraw
    app_state_press(&s, &wd, &lay, cx, cy);
    assert_true(s.pin_row == 2 && s.pin_col == 3);
    app_state_press(&s, &wd, &lay, cx, cy);
    assert_true(s.pin_row == -1 && s.pin_col == -1);
    // the wheel over the view zooms about the pointer: the cell under it stays under it
    app_state_motion(&s, &wd, &lay, cx, cy);
    for (int k = 0; k < 3; k++) app_state_wheel(&s, &wd, &lay, +1);
    assert_true(fabs(s.zoom - 1.25 * 1.25 * 1.25) < 1e-9);
    int row = -1, col = -1;
    assert_int_equal(app_view_hit(&s, &wd, &lay, cx, cy, &row, &col), 0);
    assert_true(row == 2 && col == 3);
    double vx = (cx - lay.view.x - s.pan_x) / s.zoom, want_vx = rc[0] + rc[2] / 2;
    assert_true(fabs(vx - want_vx) < 1e-6);
    // a press and a move in the zoomed view pan it; the release does not pin
    double px = s.pan_x, py = s.pan_y;
    app_state_press(&s, &wd, &lay, cx, cy);
    assert_int_equal(app_state_motion(&s, &wd, &lay, cx + 30, cy - 20), 1);
    app_state_release(&s, &wd, &lay, cx + 30, cy - 20);
    assert_true(fabs(s.pan_x - (px + 30)) < 1e-9 && fabs(s.pan_y - (py - 20)) < 1e-9);
    assert_int_equal(s.pin_row, -1);
    // a press and release without moving in the zoomed view is a click: it pins
    app_state_press(&s, &wd, &lay, cx + 30, cy - 20);
    app_state_release(&s, &wd, &lay, cx + 30, cy - 20);
    assert_true(s.pin_row == 2 && s.pin_col == 3);
    for (int k = 0; k < 20; k++) app_state_wheel(&s, &wd, &lay, -1);
    assert_true(s.zoom == 1 && s.pan_x == 0 && s.pan_y == 0); // all the way out: fitted again
    // the wheel over the panel scrolls its text, never past either end
    FRAME();
    assert_true(lay.panel.w > 100 && lay.panel_content_h > lay.panel.h);
    app_state_motion(&s, &wd, &lay, MID(lay.panel));
    app_state_wheel(&s, &wd, &lay, +3);
    assert_true(s.panel_scroll == 0);
    app_state_wheel(&s, &wd, &lay, -2);
    assert_true(s.panel_scroll == 96);
    for (int k = 0; k < 200; k++) app_state_wheel(&s, &wd, &lay, -1);
    assert_true(fabs(s.panel_scroll - (lay.panel_content_h - lay.panel.h)) < 1e-9);
    assert_true(s.zoom == 1); // (the view did not zoom)
    // a click in a sentence box starts typing it
    app_state_press(&s, &wd, &lay, MID(lay.tgt_box));
    assert_int_equal(s.editing, 2);
    assert_string_equal(s.edit, "la maison blanche tombe");
    app_state_key(&s, &r.trace, APP_KEY_ESCAPE);
    app_state_press(&s, &wd, &lay, MID(lay.src_box));
    assert_int_equal(s.editing, 1);
#undef FRAME
#undef MID
    lesson_free(&les);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

static void mirrored_layout_and_glossary_hover(void **state) {
    (void)state;
    lesson len, lfa;
    glossary g[3];
    char err[300];
    const char *langs[] = {"en", "fa", "ar"};
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "lessons/%s/glossary.txt", langs[i]);
        if (glossary_load(&g[i], path, langs[i], err, sizeof err)) fail_msg("%s:%s", path, err);
    }
    if (lesson_load(&len, "lessons/en/inside-transformer.md", "en", err, sizeof err)) fail_msg("%s", err);
    if (lesson_load(&lfa, "lessons/fa/inside-transformer.md", "fa", err, sizeof err)) fail_msg("%s", err);
    cairo_surface_t *sa = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800), *sb = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *ca = cairo_create(sa), *cb = cairo_create(sb);
    app_world wd = {.m = &m, .r = &r, .model_name = "multihead", .lesson = &len, .gloss = g, .n_gloss = 3};
    app_state s;
    app_layout lay;
    app_state_init(&s, "the white house falls", "la maison blanche tombe");
    app_state_attach(&s, &r.trace);
    assert_int_equal(app_state_goto(&s, &r.trace, "enc.0.self_attn.head.0.weights"), 0);
    app_draw(ca, &s, &wd, 1280, 800, &lay);
    assert_false(lay.rtl); // left to right: navigator, view, panel; Prev before Next
    assert_true(lay.nav.x == 0 && lay.panel.x + lay.panel.w == 1280 && lay.view.x == lay.nav.w);
    assert_true(lay.prev_btn.x < lay.next_btn.x && lay.src_box.x < lay.tgt_box.x);
    assert_true(lay.n_texts > 3);
    double x, y;
    assert_int_equal(find_term(&s, &wd, &lay, "softmax", &x, &y), 0);
    assert_true(x > lay.panel.x);
    assert_null(app_panel_term(&s, &wd, &lay, lay.view.x + 20, lay.view.y + 20)); // not in the panel
    assert_null(app_panel_term(&s, &wd, &lay, x, lay.panel.y + 3));              // above the lesson
    // the tooltip: drawn at the mouse, nowhere without a word
    snprintf(s.term, sizeof s.term, "softmax");
    s.term_x = x;
    s.term_y = y;
    app_draw(cb, &s, &wd, 1280, 800, &lay);
    assert_true(differing_pixels(sa, sb, (int)x - 60, (int)y + 10, 120, 60) > 500);
    assert_int_equal(differing_pixels(sa, sb, 0, 0, 1280, 200), 0);
    // Persian: the same stage, mirrored; the Persian lesson's words are found too
    snprintf(s.lang, sizeof s.lang, "fa");
    s.term[0] = 0;
    wd.lesson = &lfa;
    app_draw(ca, &s, &wd, 1280, 800, &lay);
    assert_true(lay.rtl);
    assert_true(lay.panel.x == 0 && lay.nav.x + lay.nav.w == 1280 && lay.view.x == lay.panel.w);
    assert_true(lay.prev_btn.x > lay.next_btn.x && lay.src_box.x > lay.tgt_box.x);
    assert_int_equal(find_term(&s, &wd, &lay, "softmax", &x, &y), 0); // سافت‌مکس
    assert_true(x > lay.panel.x + lay.panel.w / 2); // the paragraph's first word, at its right
    assert_string_equal(app_glossary(&s, &wd)->lang, "fa");
    cairo_destroy(ca);
    cairo_destroy(cb);
    cairo_surface_destroy(sa);
    cairo_surface_destroy(sb);
    lesson_free(&len);
    lesson_free(&lfa);
    for (int i = 0; i < 3; i++) glossary_free(&g[i]);
}

// V, K and G: lines, top-k and grid, each chosen by a key, kept while
// stepping where it applies, left by the same key or Esc; a word of the
// lines view is hovered by the pointer and keeps only its lines.
static void view_keys_lines_topk_grid(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "x", "la maison");
    app_state_attach(&s, &r.trace);
    app_state_key(&s, &r.trace, APP_KEY_LINES); // not at an attention stage: a message, nothing else
    assert_string_equal(id(&s), "src.embed");
    assert_int_equal(s.mode, APP_MODE_AUTO);
    assert_non_null(strstr(s.message, "V "));
    app_state_goto(&s, &r.trace, "enc.1.self_attn.head.2.scaled");
    app_state_key(&s, &r.trace, APP_KEY_LINES); // from a head's other stage: its weights
    assert_string_equal(id(&s), "enc.1.self_attn.head.2.weights");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_LINES);
    app_state_key(&s, &r.trace, APP_KEY_ALL_HEADS); // 0: every head's lines
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_LINES_HEADS);
    app_state_key(&s, &r.trace, APP_KEY_HEAD_1);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_LINES);
    app_state_key(&s, &r.trace, APP_KEY_CROSS); // stays lines on another attention
    assert_string_equal(id(&s), "dec.1.cross_attn.head.0.weights");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_LINES);
    app_state_key(&s, &r.trace, APP_KEY_PREV); // a stage that is not weights: its own view, the choice kept
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEATMAP);
    app_state_key(&s, &r.trace, APP_KEY_NEXT);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_LINES);
    app_state_key(&s, &r.trace, APP_KEY_LINES); // V again: back
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEATMAP);
    // G: every layer and head; 0 and G take turns
    app_state_key(&s, &r.trace, APP_KEY_GRID);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_GRID);
    app_state_key(&s, &r.trace, APP_KEY_ALL_HEADS);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_HEADS);
    app_state_key(&s, &r.trace, APP_KEY_GRID);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_GRID);
    app_state_key(&s, &r.trace, APP_KEY_ESCAPE); // Esc leaves it
    assert_int_equal(s.mode, APP_MODE_AUTO);
    app_state_goto(&s, &r.trace, "enc.0.ffn.hidden");
    app_state_key(&s, &r.trace, APP_KEY_GRID);
    assert_int_equal(s.mode, APP_MODE_AUTO);
    assert_non_null(strstr(s.message, "G "));
    // K: from anywhere to the output's most likely tokens; K again: the matrix
    app_state_key(&s, &r.trace, APP_KEY_TOPK);
    assert_string_equal(id(&s), "out.probs");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_TOPK);
    app_state_key(&s, &r.trace, APP_KEY_PREV);
    assert_string_equal(id(&s), "out.logits");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_TOPK);
    app_state_key(&s, &r.trace, APP_KEY_TOPK);
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_MATRIX);
    // the pointer over the lines view: the word under it, an attending one or an attended one
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create(sf);
    app_world wd = {.m = &m, .r = &r, .model_name = "multihead"};
    app_layout lay;
    app_state_goto(&s, &r.trace, "dec.0.cross_attn.head.1.weights");
    app_state_key(&s, &r.trace, APP_KEY_LINES);
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    render_opts o = app_render_opts(&s);
    double x, y;
    assert_int_equal(render_lines_anchor(&r.trace, s.stage, 0, &o, lay.view.w, lay.view.h, 1, 2, &x, &y), 0);
    assert_int_equal(app_state_motion(&s, &wd, &lay, lay.view.x + x + 20, lay.view.y + y), 1);
    assert_true(s.hover_row == 2 && s.hover_col == -1);
    o = app_render_opts(&s);
    assert_true(o.focus_row == 2 && o.focus_col == -1);
    app_state_press(&s, &wd, &lay, lay.view.x + x + 20, lay.view.y + y); // a word has no arithmetic to pin
    assert_int_equal(s.pin_row, -1);
    assert_int_equal(render_lines_anchor(&r.trace, s.stage, 0, &o, lay.view.w, lay.view.h, 0, 1, &x, &y), 0);
    app_state_motion(&s, &wd, &lay, lay.view.x + x - 20, lay.view.y + y);
    assert_true(s.hover_row == -1 && s.hover_col == 1);
    o = app_render_opts(&s);
    assert_true(o.focus_row == -1 && o.focus_col == 1);
    app_state_motion(&s, &wd, &lay, lay.view.x + lay.view.w / 2, lay.view.y + y); // among the lines: none
    assert_true(s.hover_row == -1 && s.hover_col == -1);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// , . and T: stepping through training snapshots; the slider under the view.
// state/beam-key: B turns beam search on (the output probabilities, the beam
// view once the run has a beam) and off again; not over a typed target.
static void beam_key(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "the white house falls", "la maison");
    app_state_attach(&s, &r.trace);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_BEAM), APP_DO_NOTHING); // a typed target: a message
    assert_int_equal(s.beam, 0);
    assert_non_null(strstr(s.message, "B "));
    s.tgt[0] = 0;
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_BEAM), APP_DO_RERUN);
    assert_int_equal(s.beam, 1);
    assert_int_equal(s.beam_k, 4);
    assert_string_equal(id(&s), "out.probs");
    assert_int_equal(app_state_view(&s, &r.trace), RENDER_VIEW_MATRIX); // (this run has no beam yet)
    tf_run b;
    tf_err e;
    if (tf_run_beam(&b, &m, s.src, s.beam_k, s.alpha, &e)) fail_msg("%s", e.msg);
    app_state_attach(&s, &b.trace);
    assert_int_equal(app_state_view(&s, &b.trace), RENDER_VIEW_BEAM);
    app_state_key(&s, &b.trace, APP_KEY_PREV); // out.logits: the beam's tree too
    assert_int_equal(app_state_view(&s, &b.trace), RENDER_VIEW_BEAM);
    app_state_key(&s, &b.trace, APP_KEY_PREV); // a stage that is no output: its own view
    assert_int_not_equal(app_state_view(&s, &b.trace), RENDER_VIEW_BEAM);
    app_state_key(&s, &b.trace, APP_KEY_NEXT);
    app_state_key(&s, &b.trace, APP_KEY_NEXT);
    assert_int_equal(app_state_view(&s, &b.trace), RENDER_VIEW_BEAM);
    assert_int_equal(app_state_key(&s, &b.trace, APP_KEY_BEAM), APP_DO_RERUN); // B again: greedy
    assert_int_equal(s.beam, 0);
    assert_int_not_equal(app_state_view(&s, &b.trace), RENDER_VIEW_BEAM);
    tf_run_free(&b);
}

static void snapshot_keys_and_slider(void **state) {
    (void)state;
    app_state s;
    app_state_init(&s, "x", "");
    app_state_attach(&s, &r.trace);
    // a model without snapshots: each key says so and changes nothing
    for (app_key k = APP_KEY_SNAP_PREV; k <= APP_KEY_TIMELINE; k++) {
        s.message[0] = 0;
        assert_int_equal(app_state_key(&s, &r.trace, k), APP_DO_NOTHING);
        assert_non_null(strstr(s.message, "snapshots"));
        assert_int_equal(s.timeline, 0);
    }
    // four points, opened at the last (the model itself), the timeline shown
    app_state_snapshots(&s, 4, 3);
    assert_true(s.timeline && s.snap == 3 && s.n_snaps == 4);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_SNAP_NEXT), APP_DO_NOTHING); // no later point
    assert_non_null(strstr(s.message, "last"));
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_SNAP_PREV), APP_DO_SNAPSHOT);
    assert_int_equal(s.snap, 2);
    app_state_key(&s, &r.trace, APP_KEY_SNAP_PREV);
    app_state_key(&s, &r.trace, APP_KEY_SNAP_PREV);
    assert_int_equal(s.snap, 0);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_SNAP_PREV), APP_DO_NOTHING);
    assert_non_null(strstr(s.message, "first"));
    // T hides the bar and goes back to the model itself; , brings it back
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_TIMELINE), APP_DO_SNAPSHOT);
    assert_true(!s.timeline && s.snap == 3);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_TIMELINE), APP_DO_NOTHING);
    assert_true(s.timeline && s.snap == 3);
    app_state_key(&s, &r.trace, APP_KEY_TIMELINE);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_SNAP_PREV), APP_DO_SNAPSHOT);
    assert_true(s.timeline && s.snap == 2);
    // the same stage and the pinned cell stay in view across a snapshot's run (here: the same trace again)
    app_state_goto(&s, &r.trace, "dec.1.cross_attn.head.2.weights");
    s.pin_row = 2;
    s.pin_col = 1;
    app_state_attach(&s, &r.trace);
    assert_string_equal(id(&s), "dec.1.cross_attn.head.2.weights");
    assert_true(s.pin_row == 2 && s.pin_col == 1);
    // the slider: a click goes to the nearest point
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create(sf);
    io_timeline tl = {.n = 4, .self = 3, .main = &m};
    int steps[4] = {0, 100, 400, 900};
    float loss[4] = {7.5f, 5.1f, 3.2f, 2.0f}, exact[4] = {0, 0.05f, 0.3f, 0.6f};
    tl.step = steps;
    tl.loss = loss;
    tl.exact = exact;
    app_world wd = {.m = &m, .r = &r, .model_name = "multihead", .tl = &tl, .snap_says = "la la"};
    app_layout lay;
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    assert_true(lay.timeline.w > 0 && lay.n_snap_x == 4);
    assert_true(lay.view.y + lay.view.h <= lay.timeline.y + 0.5); // the view ends where the bar starts
    for (int i = 1; i < 4; i++) assert_true(lay.snap_x[i] > lay.snap_x[i - 1]); // time runs left to right
    // (placed by step: 100 is nearer 0 than 400 is to 900)
    assert_true(lay.snap_x[1] - lay.snap_x[0] < lay.snap_x[3] - lay.snap_x[2]);
    double y = lay.timeline.y + lay.timeline.h / 2;
    assert_int_equal(app_state_press(&s, &wd, &lay, lay.snap_x[0] + 2, y), APP_DO_SNAPSHOT);
    assert_int_equal(s.snap, 0);
    assert_int_equal(app_state_press(&s, &wd, &lay, lay.snap_x[0] + 2, y), APP_DO_NOTHING); // already there
    assert_int_equal(app_state_press(&s, &wd, &lay, lay.snap_x[3] - 3, y), APP_DO_SNAPSHOT);
    assert_int_equal(s.snap, 3);
    // hidden: no bar, the view takes its place
    s.timeline = 0;
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    assert_true(lay.timeline.w == 0 && lay.n_snap_x == 0);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// What if? W opens the panel; 1-4, ↑ ↓ with Enter and clicks switch parts
// (each asks for a rerun, which keeps the stage); a part the model was
// trained without stays off; X shows the comparison, only when something is off.
static void whatif_panel_and_compare(void **state) {
    (void)state;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1280, 800);
    cairo_t *cr = cairo_create(sf);
    tf_model mo = m; // the model as the window reruns it (its cfg.without changes; the weights are shared)
    tf_run ro, rc;
    tf_err e;
    app_state s;
    app_layout lay;
    app_state_init(&s, "the white house falls", "la maison blanche tombe");
    app_state_attach(&s, &r.trace);
    app_state_goto(&s, &r.trace, "enc.1.self_attn.head.2.weights");
    // X with nothing off: a message, no comparison
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_COMPARE), APP_DO_NOTHING);
    assert_int_equal(s.compare, 0);
    assert_true(s.message[0]);
    // W: the panel; 2 switches the scaling off and asks for a rerun; the focus follows
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_WHATIF), APP_DO_NOTHING);
    assert_int_equal(s.whatif, 1);
    assert_int_equal(app_state_key(&s, &r.trace, APP_KEY_HEAD_2), APP_DO_RERUN);
    assert_int_equal(s.without, TF_WITHOUT_SCALE);
    assert_int_equal(s.whatif_focus, 1);
    assert_string_equal(id(&s), "enc.1.self_attn.head.2.weights"); // 2 switched, it did not go to head 2
    // the rerun app.c makes: the same stage, its numbers without √d_k
    mo.cfg.without = s.trained_without | s.without;
    assert_int_equal(tf_run_sentence(&ro, &mo, s.src, s.tgt, &e), 0);
    app_state_attach(&s, &ro.trace);
    assert_string_equal(ro.trace.stages[s.stage].id, "enc.1.self_attn.head.2.weights");
    assert_int_equal(ro.trace.without, TF_WITHOUT_SCALE);
    // ↓ ↓ Enter: the focus on the mask, switched off; ↑ Enter on the scaling: back on
    app_state_key(&s, &ro.trace, APP_KEY_LAYER_DOWN);
    assert_int_equal(app_state_key(&s, &ro.trace, APP_KEY_ENTER), APP_DO_RERUN);
    assert_int_equal(s.without, TF_WITHOUT_SCALE | TF_WITHOUT_MASK);
    app_state_key(&s, &ro.trace, APP_KEY_LAYER_UP);
    assert_int_equal(s.whatif_focus, 1);
    app_state_key(&s, &ro.trace, APP_KEY_ENTER);
    assert_int_equal(s.without, TF_WITHOUT_MASK);
    app_state_key(&s, &ro.trace, APP_KEY_HEAD_2); // scaling off again
    assert_string_equal(ro.trace.stages[s.stage].id, "enc.1.self_attn.head.2.weights");
    // a click on a part's row of the panel as drawn switches it: the residual off, then on
    app_world wd = {.m = &m, .r = &ro, .model_name = "multihead"};
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    assert_true(lay.whatif_panel.w > 0 && lay.whatif_box[3].h > 0);
    assert_int_equal(app_state_press(&s, &wd, &lay, lay.whatif_box[3].x + 40, lay.whatif_box[3].y + lay.whatif_box[3].h / 2), APP_DO_RERUN);
    assert_int_equal(s.without, TF_WITHOUT_MASK | TF_WITHOUT_SCALE | TF_WITHOUT_RESIDUAL);
    app_state_press(&s, &wd, &lay, lay.whatif_box[3].x + 40, lay.whatif_box[3].y + lay.whatif_box[3].h / 2);
    assert_int_equal(s.without, TF_WITHOUT_MASK | TF_WITHOUT_SCALE);
    // a click elsewhere in the panel changes nothing; W closes it, and 2 is a head again
    assert_int_equal(app_state_press(&s, &wd, &lay, lay.whatif_panel.x + 5, lay.whatif_panel.y + 5), APP_DO_NOTHING);
    app_state_key(&s, &ro.trace, APP_KEY_WHATIF);
    assert_int_equal(s.whatif, 0);
    // X: the compare view, drawn with the comparison run
    tf_run_free(&ro);
    mo.cfg.without = s.without;
    assert_int_equal(tf_run_sentence(&ro, &mo, s.src, s.tgt, &e), 0);
    app_state_attach(&s, &ro.trace);
    assert_int_equal(app_state_key(&s, &ro.trace, APP_KEY_COMPARE), APP_DO_RERUN);
    assert_int_equal(app_state_view(&s, &ro.trace), RENDER_VIEW_COMPARE);
    assert_int_equal(tf_run_compare(&rc, &mo, &ro, &e), 0);
    wd.cmp = &rc;
    app_draw(cr, &s, &wd, 1280, 800, &lay);
    assert_int_equal(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    app_state_key(&s, &ro.trace, APP_KEY_ESCAPE); // Esc leaves the comparison
    assert_int_equal(app_state_view(&s, &ro.trace), RENDER_VIEW_HEATMAP);
    app_state_key(&s, &ro.trace, APP_KEY_COMPARE);
    // every part on again: nothing left to compare
    app_state_key(&s, &ro.trace, APP_KEY_WHATIF);
    app_state_key(&s, &ro.trace, APP_KEY_HEAD_2);
    app_state_key(&s, &ro.trace, APP_KEY_HEAD_3);
    assert_int_equal(s.without, 0);
    assert_int_equal(s.compare, 0);
    // a model trained without positional encoding: that part stays off
    s.trained_without = TF_WITHOUT_PE;
    assert_int_equal(app_state_toggle_part(&s, 0), APP_DO_NOTHING);
    assert_int_equal(s.without, 0);
    assert_non_null(strstr(s.message, "trained without"));
    assert_int_equal(app_state_key(&s, &ro.trace, APP_KEY_WHATIF), APP_DO_NOTHING); // (closes it)
    assert_int_equal(app_state_key(&s, &ro.trace, APP_KEY_COMPARE), APP_DO_RERUN);  // PE off: something to compare
    tf_run_free(&rc);
    tf_run_free(&ro);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_walk_the_stages),
        cmocka_unit_test(layers_heads_and_jumps),
        cmocka_unit_test(navigation_keys_everywhere),
        cmocka_unit_test(toggles_zoom_and_escape),
        cmocka_unit_test(typing_a_sentence),
        cmocka_unit_test(rerun_keeps_the_place),
        cmocka_unit_test(decoding_steps),
        cmocka_unit_test(window_picture),
        cmocka_unit_test(pointer_input),
        cmocka_unit_test(mirrored_layout_and_glossary_hover),
        cmocka_unit_test(view_keys_lines_topk_grid),
        cmocka_unit_test(beam_key),
        cmocka_unit_test(snapshot_keys_and_slider),
        cmocka_unit_test(whatif_panel_and_compare),
    };
    return cmocka_run_group_tests_name("state", tests, setup, teardown);
}
