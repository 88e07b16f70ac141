// test_link.c — the link of a view (src/app/link.c): reading and writing the
// fragment, percent-encoding against Python's urllib.parse.quote, every
// view and key through a link and back, and each malformed link's message.
#include "testutil.h"

#include <math.h>

#include "../src/app/link.h"
#include "../src/io/data.h"
#include "../src/lesson/i18n.h"

static tf_model m, lstm;
static tf_run r, r_scale, r_lstm; // the multi-head fixture; the same without the scaling (what if?); a recurrent model

static int setup(void **state) {
    (void)state;
    tf_err e;
    if (tf_model_load(&m, "tests/fixtures/multihead.safetensors", &e)) return -1; // 2+2 layers, 4 heads
    if (tf_run_sentence(&r, &m, "the white house falls", "la maison blanche tombe", &e)) return -1;
    m.cfg.without = TF_WITHOUT_SCALE;
    if (tf_run_sentence(&r_scale, &m, "the white house falls", "la maison blanche tombe", &e)) return -1;
    m.cfg.without = 0;
    if (tf_model_load(&lstm, "tests/fixtures/lstm/lstm3_attn_rev.safetensors", &e)) return -1; // 3 layers, reversed, attention
    if (tf_run_sentence(&r_lstm, &lstm, "i really enjoy learning transformers", NULL, &e)) return -1;
    setenv("LC_ALL", "C", 1); // (the hard case for gettext, as test_i18n's)
    i18n_set_dir(io_data_dir(IO_LOCALE));
    i18n_init();
    i18n_set_language("en");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tf_run_free(&r);
    tf_run_free(&r_scale);
    tf_run_free(&r_lstm);
    tf_model_free(&m);
    tf_model_free(&lstm);
    return 0;
}

static const char *id(const app_state *s, const tf_trace *t) { return t->stages[s->stage].id; }

static void fresh(app_state *s, const tf_trace *t) {
    app_state_init(s, "the white house falls", "la maison blanche tombe");
    app_state_attach(s, t);
}

// Every field the link has, equal.
static void assert_same_link(const app_link *a, const app_link *b) {
    assert_int_equal(a->has, b->has);
    if (a->has & LINK_MODEL) assert_string_equal(a->model, b->model);
    if (a->has & LINK_SRC) assert_string_equal(a->src, b->src);
    if (a->has & LINK_TGT) assert_string_equal(a->tgt, b->tgt);
    if (a->has & LINK_STAGE) assert_string_equal(a->stage, b->stage);
    if (a->has & LINK_LANG) assert_string_equal(a->lang, b->lang);
    assert_int_equal(a->view, b->view);
    assert_int_equal(a->without, b->without);
    assert_true(a->zoom == b->zoom && a->pan_x == b->pan_x && a->pan_y == b->pan_y);
    assert_int_equal(a->cell_row, b->cell_row);
    assert_int_equal(a->cell_col, b->cell_col);
    assert_int_equal(a->time, b->time);
}

static int parse(const char *text, app_link *l) {
    char why[600];
    int rc = link_parse(text, l, why, sizeof why);
    if (rc) print_message("link_parse(%s): %s\n", text, why);
    return rc;
}

// ---------------------------------------------------------------- reading
static void forms_of_a_link(void **state) {
    (void)state;
    const char *forms[] = {"https://example.org/course/tviz/index.html?x=1#model=en-fa&stage=src.pe&view=matrix&lang=fa",
                           "#model=en-fa&stage=src.pe&view=matrix&lang=fa", "model=en-fa&stage=src.pe&view=matrix&lang=fa",
                           "  #model=en-fa&&stage=src.pe&view=matrix&lang=fa\n", "file:///home/t/tviz/index.html#model=en-fa&stage=src.pe&view=matrix&lang=fa"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        app_link l;
        assert_int_equal(parse(forms[i], &l), 0);
        assert_int_equal(l.has, LINK_MODEL | LINK_STAGE | LINK_VIEW | LINK_LANG);
        assert_string_equal(l.model, "en-fa");
        assert_string_equal(l.stage, "src.pe");
        assert_int_equal(l.view, RENDER_VIEW_MATRIX);
        assert_string_equal(l.lang, "fa");
        assert_true(l.zoom == 1 && l.cell_row == -1 && l.time == -1 && l.without == 0); // the defaults of what it leaves out
    }
}

static void unknown_keys_and_repeated_keys(void **state) {
    (void)state;
    app_link l;
    // a key tviz does not know (a newer version's) is ignored, broken or not; the last of a key counts
    assert_int_equal(parse("#theme=dark&stage=enc.0.ffn.hidden&snapshot=%E2%9C%93&stage=src.pe&x&view=heads&view=matrix&%7A%6F%6F%6D=2", &l), 0);
    assert_int_equal(l.has, LINK_STAGE | LINK_VIEW | LINK_ZOOM); // (%7A%6F%6F%6D is "zoom")
    assert_string_equal(l.stage, "src.pe");
    assert_int_equal(l.view, RENDER_VIEW_MATRIX);
    assert_true(l.zoom == 2);
    assert_int_equal(parse("#view=auto&without=none&tgt=", &l), 0); // the stage's own view, nothing off, greedy decoding
    assert_int_equal(l.view, RENDER_VIEW_AUTO);
    assert_int_equal(l.without, 0);
    assert_string_equal(l.tgt, "");
}

// Percent-encoding as RFC 3986 has it, against Python's urllib.parse.quote(s, safe='')
// (which leaves exactly the unreserved characters): Persian with its zero-width
// non-joiner, Arabic, and the characters a query uses.
static void percent_encoding_persian_and_arabic(void **state) {
    (void)state;
    static const char *fa = "من واقعاً از یادگیری ترنسفورمرها لذت می‌برم", *ar = "أنا أستمتع حقاً بتعلم المحولات",
                      *marks = "a+b & c=d #1 100% ~x_y.z-w";
    static const char *fa_q = "%D9%85%D9%86%20%D9%88%D8%A7%D9%82%D8%B9%D8%A7%D9%8B%20%D8%A7%D8%B2%20%DB%8C%D8%A7%D8%AF%DA%AF%DB%8C%D8%B1%DB%8C%20"
                              "%D8%AA%D8%B1%D9%86%D8%B3%D9%81%D9%88%D8%B1%D9%85%D8%B1%D9%87%D8%A7%20%D9%84%D8%B0%D8%AA%20%D9%85%DB%8C%E2%80%8C%D8%A8%D8%B1%D9%85";
    static const char *ar_q = "%D8%A3%D9%86%D8%A7%20%D8%A3%D8%B3%D8%AA%D9%85%D8%AA%D8%B9%20%D8%AD%D9%82%D8%A7%D9%8B%20%D8%A8%D8%AA%D8%B9%D9%84%D9%85%20"
                              "%D8%A7%D9%84%D9%85%D8%AD%D9%88%D9%84%D8%A7%D8%AA";
    static const char *marks_q = "a%2Bb%20%26%20c%3Dd%20%231%20100%25%20~x_y.z-w";
    const char *texts[][2] = {{fa, fa_q}, {ar, ar_q}, {marks, marks_q}};
    for (int i = 0; i < 3; i++) {
        app_link l, back;
        memset(&l, 0, sizeof l);
        l.view = RENDER_VIEW_AUTO;
        l.zoom = 1;
        l.cell_row = l.cell_col = l.time = -1;
        l.has = LINK_SRC | LINK_TGT;
        snprintf(l.src, sizeof l.src, "%s", texts[i][0]);
        snprintf(l.tgt, sizeof l.tgt, "%s", texts[(i + 1) % 3][0]);
        char out[4096], want[4096];
        assert_int_equal(link_write(&l, out, sizeof out), 0);
        snprintf(want, sizeof want, "src=%s&tgt=%s", texts[i][1], texts[(i + 1) % 3][1]);
        assert_string_equal(out, want);
        assert_int_equal(parse(out, &back), 0);
        assert_same_link(&l, &back);
        // the same sentence unencoded (as typed into an address bar), and with lower-case hexadecimal
        snprintf(want, sizeof want, "#src=%s", texts[i][0]);
        if (i < 2) {
            assert_int_equal(parse(want, &back), 0);
            assert_string_equal(back.src, texts[i][0]);
        }
        for (char *p = out; *p; p++) if (p > out && p[-1] == '%') { p[0] = (char)(p[0] >= 'A' ? p[0] + 32 : p[0]); }
        assert_int_equal(parse(out, &back), 0);
        assert_string_equal(back.src, texts[i][0]);
    }
    // '+' is a space (forms, URLSearchParams); %2B a plus sign
    app_link l;
    assert_int_equal(parse("#src=I+really%2Benjoy+it", &l), 0);
    assert_string_equal(l.src, "I really+enjoy it");
}

// Every key, written in its order and read back the same; numbers in their shortest decimals.
static void every_key_round_trip(void **state) {
    (void)state;
    app_link l, back;
    memset(&l, 0, sizeof l);
    l.has = LINK_MODEL | LINK_SRC | LINK_TGT | LINK_STAGE | LINK_VIEW | LINK_LANG | LINK_WITHOUT | LINK_ZOOM | LINK_PAN | LINK_CELL | LINK_TIME;
    snprintf(l.model, sizeof l.model, "en-fa");
    snprintf(l.src, sizeof l.src, "She reads the book.");
    snprintf(l.tgt, sizeof l.tgt, "او کتاب را می‌خواند");
    snprintf(l.stage, sizeof l.stage, "dec.1.cross_attn.head.3.weights");
    l.view = RENDER_VIEW_LINES_HEADS;
    snprintf(l.lang, sizeof l.lang, "ar");
    l.without = TF_WITHOUT_PE | TF_WITHOUT_MASK;
    l.zoom = 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25 * 1.25; // fifteen presses of +
    l.pan_x = -12.3456;
    l.pan_y = 0.5;
    l.cell_row = 3;
    l.cell_col = 2047;
    l.time = 4;
    char out[4096];
    assert_int_equal(link_write(&l, out, sizeof out), 0);
    assert_string_equal(out, "model=en-fa&src=She%20reads%20the%20book.&tgt=%D8%A7%D9%88%20%DA%A9%D8%AA%D8%A7%D8%A8%20%D8%B1%D8%A7%20%D9%85%DB%8C%E2%80%8C"
                             "%D8%AE%D9%88%D8%A7%D9%86%D8%AF&stage=dec.1.cross_attn.head.3.weights&view=lines-heads&lang=ar&without=pe,mask"
                             "&zoom=28.421709430404007&pan=-12.3456,0.5&cell=3,2047&time=4");
    assert_int_equal(parse(out, &back), 0);
    assert_same_link(&l, &back);
    // every view the window has, by its name
    static const render_view views[] = {RENDER_VIEW_HEATMAP, RENDER_VIEW_MATRIX, RENDER_VIEW_HEADS, RENDER_VIEW_GRID, RENDER_VIEW_LINES,
                                        RENDER_VIEW_LINES_HEADS, RENDER_VIEW_TOPK, RENDER_VIEW_COMPARE, RENDER_VIEW_SIDE_BY_SIDE, RENDER_VIEW_AUTO};
    for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
        l.view = views[i];
        assert_int_equal(link_write(&l, out, sizeof out), 0);
        assert_int_equal(parse(out, &back), 0);
        assert_same_link(&l, &back);
    }
    // too small a buffer: -1 and an empty string, never a cut link
    assert_int_equal(link_write(&l, out, 40), -1);
    assert_string_equal(out, "");
}

// ---------------------------------------------------------------- the state, through a link and back
// The state's link, written, read and opened on a fresh state: the same view,
// stage, zoom, pan, pinned cell and time step, and the same link again.
static void through_a_link(const app_state *s, const tf_trace *t, const char *want_view) {
    app_link l, back;
    char text[4096], again[4096], why[600];
    link_of_state(s, t, "multihead", 800, 600, &l);
    assert_int_equal(link_write(&l, text, sizeof text), 0);
    assert_non_null(strstr(text, want_view));
    assert_int_equal(parse(text, &back), 0);
    assert_same_link(&l, &back);
    app_state o;
    app_state_init(&o, "another sentence", "");
    o.presentation = 1; // (what the viewer chose stays)
    app_state_attach(&o, t);
    app_state_key(&o, t, APP_KEY_LAST);
    app_state_key(&o, t, APP_KEY_ZOOM_IN);
    link_prepare(&o, &back);
    if (back.has & LINK_LANG) snprintf(o.lang, sizeof o.lang, "%s", back.lang); // (the caller loads its lessons)
    assert_string_equal(o.src, s->src);
    assert_string_equal(o.tgt, s->tgt);
    app_do d;
    if (link_apply(&o, t, &back, 800, 600, &d, why, sizeof why)) fail_msg("%s: %s", text, why);
    assert_int_equal(app_state_view(&o, t), app_state_view(s, t));
    assert_string_equal(id(&o, t), id(s, t));
    assert_true(o.zoom == s->zoom);
    assert_true(fabs(o.pan_x - s->pan_x) < 800 * 1e-4 && fabs(o.pan_y - s->pan_y) < 600 * 1e-4);
    assert_int_equal(o.pin_row, s->pin_row);
    assert_int_equal(o.pin_col, s->pin_col);
    assert_int_equal(o.time_step, s->time_step);
    assert_int_equal(o.presentation, 1);
    assert_int_equal(d, app_state_view(s, t) == RENDER_VIEW_COMPARE ? APP_DO_RERUN : app_state_view(s, t) == RENDER_VIEW_SIDE_BY_SIDE ? APP_DO_PARTNER : 0);
    link_of_state(&o, t, "multihead", 800, 600, &l);
    assert_int_equal(link_write(&l, again, sizeof again), 0);
    assert_string_equal(again, text);
}

static app_state keys(const tf_trace *t, const app_key *k) {
    app_state s;
    fresh(&s, t);
    for (; *k != APP_KEY_NONE; k++) app_state_key(&s, t, *k);
    return s;
}

static void every_view_through_a_link(void **state) {
    (void)state;
    const tf_trace *t = &r.trace;
    struct { app_key k[6]; const char *view; } cases[] = {
        {{APP_KEY_NONE}, "view=matrix"},
        {{APP_KEY_ENCODER, APP_KEY_HEAD_3, APP_KEY_NONE}, "view=heatmap"},
        {{APP_KEY_CROSS, APP_KEY_LAYER_UP, APP_KEY_ALL_HEADS, APP_KEY_NONE}, "view=heads"},
        {{APP_KEY_DECODER, APP_KEY_GRID, APP_KEY_NONE}, "view=grid"},
        {{APP_KEY_CROSS, APP_KEY_HEAD_4, APP_KEY_LINES, APP_KEY_NONE}, "view=lines"},
        {{APP_KEY_ENCODER, APP_KEY_LINES, APP_KEY_ALL_HEADS, APP_KEY_NONE}, "view=lines-heads"},
        {{APP_KEY_TOPK, APP_KEY_NONE}, "view=top-k"},
        {{APP_KEY_ENCODER, APP_KEY_SIDE_BY_SIDE, APP_KEY_NONE}, "view=side-by-side"},
        {{APP_KEY_LAST, APP_KEY_ZOOM_IN, APP_KEY_ZOOM_IN, APP_KEY_ZOOM_IN, APP_KEY_NONE}, "zoom=1.953125"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        app_state s = keys(t, cases[i].k);
        through_a_link(&s, t, cases[i].view);
    }
    // a pinned cell, zoomed and panned, in Persian
    app_state s = keys(t, (app_key[]){APP_KEY_CROSS, APP_KEY_HEAD_2, APP_KEY_ZOOM_IN, APP_KEY_ZOOM_IN, APP_KEY_NONE});
    s.pin_row = 2;
    s.pin_col = 3;
    s.pan_x = -123.4;
    s.pan_y = -56;
    snprintf(s.lang, sizeof s.lang, "fa");
    through_a_link(&s, t, "cell=2,3");
    // what if? the compare view, on the run without the scaling
    const tf_trace *ts = &r_scale.trace;
    fresh(&s, ts);
    s.without = TF_WITHOUT_SCALE;
    app_state_key(&s, ts, APP_KEY_ENCODER);
    assert_int_equal(app_state_key(&s, ts, APP_KEY_COMPARE), APP_DO_RERUN);
    through_a_link(&s, ts, "view=compare");
    app_link l;
    char text[4096];
    link_of_state(&s, ts, "multihead", 800, 600, &l);
    link_write(&l, text, sizeof text);
    assert_non_null(strstr(text, "&lang=en&without=scale"));
    // a recurrent model's time step, moved by ] as a learner does
    const tf_trace *tl = &r_lstm.trace;
    app_state_init(&s, "i really enjoy learning transformers", "");
    app_state_attach(&s, tl);
    assert_int_equal(app_state_goto(&s, tl, "enc.1.f"), 0);
    for (int k = 0; k < 3; k++) app_state_key(&s, tl, APP_KEY_STEP_FORWARD);
    assert_int_equal(s.time_step, 2);
    through_a_link(&s, tl, "time=2");
    assert_int_equal(app_state_goto(&s, tl, "dec.attn.weights"), 0);
    app_state_key(&s, tl, APP_KEY_LINES);
    through_a_link(&s, tl, "view=lines&lang=en&time=2");
}

// The unknown view size: no pan written; link_pan sets it once the size is known.
static void pan_waits_for_the_view(void **state) {
    (void)state;
    app_state s;
    fresh(&s, &r.trace);
    s.zoom = 1.5625;
    s.pan_x = -40;
    app_link l;
    link_of_state(&s, &r.trace, "multihead", 0, 0, &l);
    assert_false(l.has & LINK_PAN);
    assert_int_equal(parse("#stage=enc.0.ffn.hidden&zoom=2&pan=-0.5,-0.25", &l), 0);
    app_do d;
    char why[600];
    assert_int_equal(link_apply(&s, &r.trace, &l, 0, 0, &d, why, sizeof why), 0);
    assert_true(s.zoom == 2 && s.pan_x == 0 && s.pan_y == 0);
    link_pan(&s, &l, 1000, 400);
    assert_true(s.pan_x == -500 && s.pan_y == -100);
}

static void when_a_run_is_needed(void **state) {
    (void)state;
    app_state s;
    fresh(&s, &r.trace);
    app_link l;
    assert_int_equal(parse("#model=multihead&src=the%20white%20house%20falls&tgt=la%20maison%20blanche%20tombe&stage=src.pe", &l), 0);
    assert_int_equal(link_needs_run(&s, &l, "multihead"), 0);
    assert_int_equal(link_needs_run(&s, &l, "en-fa"), 1);
    assert_int_equal(parse("#src=the%20white%20house%20falls&stage=src.pe", &l), 0); // no tgt: greedy decoding
    assert_int_equal(link_needs_run(&s, &l, "multihead"), 1);
    assert_int_equal(parse("#tgt=la%20maison%20blanche%20tombe&without=mask", &l), 0);
    assert_int_equal(link_needs_run(&s, &l, "multihead"), 1);
    assert_int_equal(parse("#tgt=la%20maison%20blanche%20tombe&stage=enc.1.ffn.out", &l), 0);
    assert_int_equal(link_needs_run(&s, &l, "multihead"), 0);
    s.decode_step = 2; // the window shows a decoding step: the link shows the whole decoding
    assert_int_equal(link_needs_run(&s, &l, "multihead"), 1);
    link_prepare(&s, &l);
    assert_int_equal(s.decode_step, 0);
    assert_string_equal(s.src, "the white house falls");
}

// ---------------------------------------------------------------- bad links: one line, what is wrong and what to do
static void expect_parse_error(const char *text, const char *phrase) {
    app_link l;
    char why[600];
    if (link_parse(text, &l, why, sizeof why) == 0) fail_msg("link_parse accepted %.80s", text);
    if (!strstr(why, phrase)) fail_msg("link_parse(%.80s): \"%s\" lacks \"%s\"", text, why, phrase);
    assert_null(strchr(why, '\n'));
}

static void malformed_links(void **state) {
    (void)state;
    expect_parse_error("", "the link is empty; the view follows #");
    expect_parse_error("  #  ", "the link is empty");
    expect_parse_error("https://example.org/tviz/index.html", "the address has no # part");
    expect_parse_error("#src=I%2Greally", "percent-encoding is broken at character 7: % must be followed by two hexadecimal digits");
    expect_parse_error("#stage=src.pe&src=ab%", "broken at character 21");
    expect_parse_error("#src=من%2", "broken at character 8"); // (characters, not bytes)
    expect_parse_error("#src=%D9%85%D9", "src= in the link is not valid UTF-8 text once decoded (byte 3)");
    expect_parse_error("#tgt=%C0%AF", "tgt= in the link is not valid UTF-8"); // (an overlong '/')
    expect_parse_error("#src=I%0Aenjoy", "src= in the link holds a control character");
    expect_parse_error("#model=en%C2%85fa", "model= in the link holds a control character"); // (C1)
    expect_parse_error("#src=", "src= in the link is empty; give a value or leave the key out");
    expect_parse_error("#model", "model= in the link is empty");
    char big[700] = "#src=";
    memset(big + 5, 'a', 600);
    big[605] = 0;
    expect_parse_error(big, "src= in the link is longer than 511 bytes");
    expect_parse_error("#stage=enc.0/../x", "stage=enc.0/../x in the link is not a stage id; ids look like enc.0.self_attn.head.1.weights");
    expect_parse_error("#stage=enc%20x", "is not a stage id");
    expect_parse_error("#view=pie", "view=pie in the link is not a view of the window; the views are heatmap, matrix, heads");
    expect_parse_error("#view=pe-curves", "not a view of the window"); // (an export's view, not the window's)
    expect_parse_error("#view=%0A", "view=? in the link"); // (quoted on one line)
    expect_parse_error("#lang=../../etc", "lang=../../etc in the link is not a language code such as en, fa or ar");
    expect_parse_error("#without=pe,attention", "without=pe,attention in the link names a part tviz cannot switch off; the parts are pe, scale");
    const char *zooms[] = {"0.5", "33", "nan", "inf", "1e1", "0x10", "", "2,", "-2", "1.", ".5"};
    for (size_t i = 0; i < sizeof zooms / sizeof *zooms; i++) {
        char z[32];
        snprintf(z, sizeof z, "#zoom=%s", zooms[i]);
        expect_parse_error(z, "in the link is not a number from 1 (the whole view) to 32");
    }
    const char *pans[] = {"1", "a,b", "40,0", "0,-33", "1,2,3", ",1", "nan,0"};
    for (size_t i = 0; i < sizeof pans / sizeof *pans; i++) {
        char p[32];
        snprintf(p, sizeof p, "#pan=%s", pans[i]);
        expect_parse_error(p, "in the link is not two numbers X,Y from -32 to 32");
    }
    const char *cells[] = {"-1,2", "1.5,2", "3", "3,x", "99999999,0"};
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        char c[32];
        snprintf(c, sizeof c, "#cell=%s", cells[i]);
        expect_parse_error(c, "in the link is not ROW,COL, two whole numbers from 0");
    }
    expect_parse_error("#time=-1", "time=-1 in the link is not a time step");
    expect_parse_error("#time=x", "is not a time step, a whole number from 0");
    char *huge = malloc(LINK_MAX + 100);
    assert_non_null(huge);
    memset(huge, 'a', LINK_MAX + 50);
    memcpy(huge, "#src=", 5);
    huge[LINK_MAX + 50] = 0;
    expect_parse_error(huge, "the link is longer than 8192 bytes");
    free(huge);
}

// A link that reads but does not fit the model: its message, and the state as it was.
static void expect_apply_error(const tf_trace *t, const char *text, const char *phrase) {
    app_link l;
    char why[600];
    assert_int_equal(parse(text, &l), 0);
    app_state s, before;
    fresh(&s, t);
    app_state_key(&s, t, APP_KEY_CROSS);
    app_state_key(&s, t, APP_KEY_LINES);
    app_state_key(&s, t, APP_KEY_ZOOM_IN);
    before = s;
    app_do d = APP_DO_QUIT;
    if (link_apply(&s, t, &l, 800, 600, &d, why, sizeof why) == 0) fail_msg("link_apply accepted %s", text);
    if (!strstr(why, phrase)) fail_msg("link_apply(%s): \"%s\" lacks \"%s\"", text, why, phrase);
    assert_null(strchr(why, '\n'));
    assert_memory_equal(&s, &before, sizeof s); // the previous view stays
    assert_int_equal(d, APP_DO_NOTHING);
}

static void links_that_do_not_fit_the_model(void **state) {
    (void)state;
    const tf_trace *t = &r.trace;
    expect_apply_error(t, "#stage=nope", "stage=nope is not a stage of this model; its stages go from src.embed to out.probs");
    expect_apply_error(t, "#stage=enc.2.ffn.hidden", "stage=enc.2.ffn.hidden is not a stage of this model"); // (two layers: 0 and 1)
    expect_apply_error(t, "#stage=enc.0.self_attn.head.4.weights", "is not a stage of this model"); // (four heads: 0 … 3)
    expect_apply_error(t, "#stage=enc.0.ffn.hidden&view=lines", "view=lines draws attention weights as lines; stage enc.0.ffn.hidden is not attention weights");
    expect_apply_error(t, "#stage=enc.0.self_attn.head.0.scores&view=lines", "stage enc.0.self_attn.head.0.scores is not attention weights");
    expect_apply_error(t, "#stage=src.embed&view=lines-heads", "view=lines-heads draws attention weights");
    expect_apply_error(t, "#stage=src.embed&view=heads", "view=heads shows the heads of an attention; stage src.embed is not inside one");
    expect_apply_error(t, "#stage=enc.1.add2&view=grid", "view=grid shows the heads of an attention");
    expect_apply_error(t, "#stage=src.embed&view=top-k", "view=top-k shows the output probabilities; stage src.embed is not one (e.g. out.probs)");
    expect_apply_error(t, "#stage=src.embed&view=compare", "view=compare needs parts switched off; add them, e.g. without=pe");
    expect_apply_error(t, "#stage=src.embed&view=heatmap", "stage src.embed is drawn as matrix, not as heatmap; leave view= out");
    expect_apply_error(t, "#stage=dec.0.self_attn.head.1.weights&view=matrix", "is drawn as heatmap, not as matrix");
    expect_apply_error(t, "#stage=src.embed&cell=4,0", "cell=4,0 is outside src.embed, which is 4 × 16; rows go 0..3 and columns 0..15");
    expect_apply_error(t, "#stage=out.probs&cell=0,27", "cell=0,27 is outside out.probs, which is 5 × 27");
    expect_apply_error(t, "#stage=src.embed&time=0", "time=0: the rows of src.embed are not time steps");
    const tf_trace *tl = &r_lstm.trace;
    expect_apply_error(tl, "#stage=enc.0.f&time=6", "time=6 is past the last time step of enc.0.f, which has 6");
    expect_apply_error(tl, "#stage=enc.final.h&time=0", "the rows of enc.final.h are not time steps");
    expect_apply_error(tl, "#stage=enc.0.self_attn.head.0.weights", "is not a stage of this model; its stages go from src.embed to out.probs");
    // what the caller checks: the sentences against the model, the model, the language
    app_state s;
    fresh(&s, t);
    char why[600], words[400] = "";
    for (int i = 0; i < 65; i++) strcat(words, "the ");
    app_link l;
    snprintf(s.src, sizeof s.src, "%s", words);
    assert_int_equal(link_check_run(&m, "multihead", &s, why, sizeof why), -1);
    assert_string_equal(why, "the source sentence has 65 tokens but the model multihead takes at most 64; shorten it");
    words[strlen(words) - 4] = 0; // 64 tokens and <bos>
    snprintf(s.src, sizeof s.src, "the white house");
    snprintf(s.tgt, sizeof s.tgt, "%s", words);
    assert_int_equal(link_check_run(&m, "multihead", &s, why, sizeof why), -1);
    assert_string_equal(why, "the target sentence has 65 tokens but the model multihead takes at most 64; shorten it");
    snprintf(s.tgt, sizeof s.tgt, "la maison");
    assert_int_equal(link_check_run(&m, "multihead", &s, why, sizeof why), 0);
    snprintf(s.src, sizeof s.src, " \t ");
    assert_int_equal(link_check_run(&m, "multihead", &s, why, sizeof why), -1);
    assert_string_equal(why, "the source sentence has no words; give one in src=");
    assert_int_equal(parse("#src=i%20i%20i%20i%20i%20i%20i%20i%20i%20i", &l), 0); // the recurrent model: 10 tokens and <eos>, at most 10
    app_state_init(&s, "x", "");
    link_prepare(&s, &l);
    assert_int_equal(link_check_run(&lstm, "lstm3", &s, why, sizeof why), -1);
    assert_string_equal(why, "the source sentence has 11 tokens but the model lstm3 takes at most 10; shorten it");
    link_no_model("nosuch", "en-fa, worked-example", why, sizeof why);
    assert_string_equal(why, "model=nosuch in the link is not a model tviz has; the models are en-fa, worked-example");
    link_bad_model("x.safetensors", "cannot open", why, sizeof why);
    assert_string_equal(why, "model=x.safetensors in the link could not be read: cannot open");
    link_no_lang("de", "ar, en, fa", why, sizeof why);
    assert_string_equal(why, "lang=de in the link: tviz has no lessons in that language; the languages are ar, en, fa");
}

// The messages are the learner's: in Persian and Arabic once the interface is.
static void messages_in_persian_and_arabic(void **state) {
    (void)state;
    app_link l;
    char en[600], fa[600], ar[600];
    assert_int_equal(link_parse("#view=pie", &l, en, sizeof en), -1);
    assert_int_equal(i18n_set_language("fa"), 1);
    assert_int_equal(link_parse("#view=pie", &l, fa, sizeof fa), -1);
    assert_int_equal(i18n_set_language("ar"), 1);
    assert_int_equal(link_parse("#view=pie", &l, ar, sizeof ar), -1);
    i18n_set_language("en");
    assert_string_not_equal(fa, en);
    assert_string_not_equal(ar, en);
    assert_string_not_equal(ar, fa);
    assert_non_null(strstr(fa, "view=pie")); // the key and value as in the link, in a Persian sentence
    assert_non_null(strstr(fa, "نما")); // (نما: view)
    assert_non_null(strstr(ar, "view=pie"));
    assert_non_null(strstr(ar, "عرض")); // (عرض: view)
    i18n_set_language("fa");
    app_state s;
    fresh(&s, &r.trace);
    app_do d;
    assert_int_equal(parse("#stage=nope", &l), 0);
    assert_int_equal(link_apply(&s, &r.trace, &l, 0, 0, &d, fa, sizeof fa), -1);
    i18n_set_language("en");
    assert_non_null(strstr(fa, "stage=nope"));
    assert_non_null(strstr(fa, "src.embed"));
    assert_null(strstr(fa, "is not a stage"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forms_of_a_link),
        cmocka_unit_test(unknown_keys_and_repeated_keys),
        cmocka_unit_test(percent_encoding_persian_and_arabic),
        cmocka_unit_test(every_key_round_trip),
        cmocka_unit_test(every_view_through_a_link),
        cmocka_unit_test(pan_waits_for_the_view),
        cmocka_unit_test(when_a_run_is_needed),
        cmocka_unit_test(malformed_links),
        cmocka_unit_test(links_that_do_not_fit_the_model),
        cmocka_unit_test(messages_in_persian_and_arabic),
    };
    return cmocka_run_group_tests_name("link", tests, setup, teardown);
}
