// test_i18n.c — the interface's translations (build/locale/<lang>/LC_MESSAGES/tviz.mo,
// made by the Makefile from po/*.po), switched at run time as the L key does,
// and the glossary words found in lesson text and under a point of it.
#include "testutil.h"

#include <dirent.h>
#include <locale.h>

#include "../src/io/data.h"
#include "../src/lesson/i18n.h"
#include "../src/lesson/lesson.h"
#include "../src/render/render.h"

// The hard case first: a process whose message locale is "C", where GNU
// gettext would ignore LANGUAGE.
static int setup(void **state) {
    (void)state;
    setenv("LC_ALL", "C", 1);
    setenv("LANGUAGE", "de", 1); // the environment's choice is overridden by the window's language
    i18n_set_dir(io_data_dir(IO_LOCALE)); // as main does: build/locale beside the test binaries
    i18n_init();
    return 0;
}

static void catalogues_switch_at_run_time(void **state) {
    (void)state;
    assert_int_equal(i18n_set_language("fa"), 1);
    assert_string_equal(_("Next"), "بعدی");
    assert_string_equal(_("Prev"), "قبلی");
    assert_string_equal(_("Keyboard keys"), "کلیدهای میان‌بر");
    assert_string_equal(_("Keys"), "کلیدها"); // K, the attention keys: another word than the keyboard's
    char buf[64];
    snprintf(buf, sizeof buf, _("layer %d"), 2);
    assert_string_equal(buf, "لایهٔ 2");
    assert_string_equal(_("Multi-Head\nAttention"), "توجه\nچندسر"); // the navigator's boxes
    assert_int_equal(i18n_set_language("ar"), 1);
    assert_string_equal(_("Next"), "التالي");
    assert_string_equal(_("? for help"), "اضغط ? للمساعدة");
    assert_int_equal(i18n_set_language("fa"), 1); // and back: nothing stale is cached
    assert_string_equal(_("Next"), "بعدی");
    assert_string_equal(_("a string no catalogue has"), "a string no catalogue has"); // untranslated: English
    assert_int_equal(i18n_set_language("xx"), 0); // no catalogue: English
    assert_string_equal(_("Next"), "Next");
    assert_int_equal(i18n_set_language("en"), 0);
    assert_string_equal(_("? for help"), "? for help");
    assert_int_equal(i18n_set_language(NULL), 0);
    assert_string_equal(_("Prev"), "Prev");
}

// One digit rule for every language (lessons/README.md): every translation
// writes its numbers with 0–9, as the matrices and the lessons do. Checked
// here, where the po files are (tviz lesson check reads an installed lessons
// folder, which has no po/): every msgstr line of po/*.po, named file:line.
static void translations_write_0_to_9(void **state) {
    (void)state;
    DIR *d = opendir("po");
    assert_non_null(d);
    struct dirent *de;
    int files = 0, msgstrs = 0, bad = 0;
    char first[1000] = "";
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".po")) continue;
        char path[300], *text;
        snprintf(path, sizeof path, "po/%s", de->d_name);
        size_t n;
        assert_non_null(text = read_file(path, &n));
        files++;
        int line = 0, in_msgstr = 0;
        for (char *ln = text, *next; ln && *ln; ln = next) {
            next = strchr(ln, '\n');
            if (next) *next++ = 0;
            line++;
            if (!strncmp(ln, "msgstr", 6)) { in_msgstr = 1; msgstrs++; }
            else if (ln[0] != '"') in_msgstr = 0; // a continuation line belongs to what it follows
            char why[300];
            if (in_msgstr && lesson_odd_char(ln, why, sizeof why) >= 0 && !bad++) snprintf(first, sizeof first, "%s:%d: %s", path, line, why);
        }
        free(text);
    }
    closedir(d);
    assert_int_equal(files, 2); // fa, ar
    assert_true(msgstrs > 200);
    if (bad) fail_msg("%d msgstr lines with digits other than 0-9; the first: %s", bad, first);
    // and what the window shows
    assert_int_equal(i18n_set_language("ar"), 1);
    assert_string_equal(_("Encoder add & norm 1"), "جمع وتطبيع 1 في المشفّر");
    assert_int_equal(i18n_set_language("fa"), 1);
    assert_string_equal(_("Decoder add & norm 3"), "جمع و نرمال‌سازی 3 رمزگشا");
    i18n_set_language(NULL);
}

// The folder it was told (build/locale beside the test binaries); none told
// or none there: English, and no catalogue is claimed.
static void the_catalogue_folder(void **state) {
    (void)state;
    char mo[4200], was[4200];
    assert_non_null(i18n_locale_dir());
    snprintf(mo, sizeof mo, "%s/fa/LC_MESSAGES/tviz.mo", i18n_locale_dir());
    assert_int_equal(access(mo, R_OK), 0);
    snprintf(was, sizeof was, "%s", i18n_locale_dir());
    i18n_set_dir("/nonexistent");
    assert_string_equal(i18n_locale_dir(), "/nonexistent");
    assert_int_equal(i18n_set_language("fa"), 0);
    i18n_set_dir(NULL);
    assert_null(i18n_locale_dir());
    assert_int_equal(i18n_set_language("fa"), 0);
    i18n_set_dir(was);
    assert_int_equal(i18n_set_language("fa"), 1);
    assert_string_equal(_("Next"), "بعدی");
    i18n_set_language("en");
}

static glossary load(const char *lang) {
    glossary g;
    char path[256], err[256];
    snprintf(path, sizeof path, "lessons/%s/glossary.txt", lang);
    if (glossary_load(&g, path, lang, err, sizeof err)) fail_msg("%s:%s", path, err);
    return g;
}

static const char *key_of(const glossary *g, const glossary_hit *h) { return g->key[h->entry]; }

static void glossary_words_in_text(void **state) {
    (void)state;
    glossary en = load("en");
    const char *t = "Attention heads attend to keys; a Key, the key. Keyboards and monkeys do not count, "
                    "layer normalization does, and so does the feed-forward layer.";
    glossary_hit h[16];
    int n = glossary_find(&en, t, h, 16);
    assert_int_equal(n, 7);
    assert_string_equal(key_of(&en, &h[0]), "attention");
    assert_int_equal(h[0].start, 0);
    assert_int_equal(h[0].end, 9);
    assert_string_equal(key_of(&en, &h[1]), "head"); // "heads": the plural
    assert_int_equal(h[1].end, 15);
    assert_string_equal(key_of(&en, &h[2]), "key");  // "keys", "Key", "key": not "Keyboards" nor "monkeys"
    assert_string_equal(key_of(&en, &h[3]), "key");
    assert_string_equal(key_of(&en, &h[4]), "key");
    assert_string_equal(key_of(&en, &h[5]), "layer-normalization"); // the longest word, over two words
    assert_int_equal(h[5].end - h[5].start, (int)strlen("layer normalization"));
    assert_string_equal(key_of(&en, &h[6]), "feed-forward"); // a hyphen inside the word
    assert_int_equal(glossary_at(&en, t, 3), 0);              // inside "Attention"
    assert_int_equal(glossary_at(&en, t, 9), -1);             // the space after it
    glossary fa = load("fa");
    const char *p = "در «توجه» هر سر‌ها به کلیدها نگاه می‌کند؛ سرمایه نه، ولی نرمال‌سازی لایه بله.";
    n = glossary_find(&fa, p, h, 16);
    assert_int_equal(n, 4);
    assert_string_equal(key_of(&fa, &h[0]), "attention"); // between guillemets
    assert_string_equal(key_of(&fa, &h[1]), "head");      // with its plural after a ZWNJ; not in سرمایه
    assert_int_equal(h[1].end - h[1].start, (int)strlen("سر‌ها"));
    assert_string_equal(key_of(&fa, &h[2]), "key");       // plural
    assert_string_equal(key_of(&fa, &h[3]), "layer-normalization");
    assert_int_equal(h[0].start, (int)strlen("در «"));
    glossary_free(&en);
    glossary_free(&fa);
}

// Pango's hit testing: the byte under a point of laid-out lesson text, and
// so the glossary word there.
static void hit_testing_a_word(void **state) {
    (void)state;
    glossary en = load("en");
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10);
    cairo_t *cr = cairo_create(sf);
    // (a tag that leaves the metrics alone, so the plain text's caret positions hold)
    const char *m = "The <span foreground=\"red\">softmax</span> turns scores into attention weights.";
    char plain[256];
    assert_int_equal(render_markup_plain(m, plain, sizeof plain), 0);
    assert_string_equal(plain, "The softmax turns scores into attention weights.");
    render_text_style st = render_style(15, (render_rgb){0, 0, 0});
    st.width = 600;
    int at = (int)(strstr(plain, "attention") - plain);
    double x0 = render_text_caret(cr, plain, &st, at), x1 = render_text_caret(cr, plain, &st, at + 9);
    assert_true(x1 - x0 > 30);
    int i = render_markup_index(cr, m, &st, (x0 + x1) / 2, 8);
    assert_true(i >= at && i < at + 9);
    assert_string_equal(en.key[glossary_at(&en, plain, i)], "attention");
    i = render_markup_index(cr, m, &st, x1 + 3, 8); // " weights"
    assert_int_equal(glossary_at(&en, plain, i), -1);
    assert_int_equal(render_markup_index(cr, m, &st, 300, -4), -1); // above the text
    assert_int_equal(render_markup_index(cr, m, &st, 590, 8), -1);  // right of its end
    st.dir = RENDER_DIR_RTL; // a right-aligned paragraph: the same word is further right
    double xr = render_text_caret(cr, plain, &st, at);
    assert_true(xr > x0 + 50);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    glossary_free(&en);
}

// ---------------------------------------------------------------- code spans in one piece
// The markup lesson.c makes of the one paragraph of a small lesson in lang.
static char *paragraph_markup(const char *lang, const char *para) {
    char path[300], text[2000], err[256];
    snprintf(path, sizeof path, "%s/p-%s.md", test_tmpdir(), lang);
    snprintf(text, sizeof text, "# T\n\n## src.pe\n%s\n", para);
    write_file(path, text, strlen(text));
    lesson l;
    if (lesson_load(&l, path, lang, err, sizeof err)) fail_msg("%s", err);
    char *m = strdup(l.sec[0].blocks[0].markup);
    lesson_free(&l);
    return m;
}

// How the paragraph's lines fall at width w: whether one starts strictly
// inside plain bytes [a, b) (1), or right after a space or no-break space
// there (2), and the most a line sticks out.
static int breaks_inside(cairo_t *cr, const char *markup, int rtl, double w, int a, int b, const char *plain, double *over_max) {
    render_text_style st = render_style(15, (render_rgb){0, 0, 0});
    st.width = w;
    st.dir = rtl ? RENDER_DIR_RTL : RENDER_DIR_LTR;
    int starts[64], inside = 0;
    double over[64];
    int n = render_markup_lines(cr, markup, &st, starts, over, 64);
    assert_true(n >= 1 && n <= 64);
    *over_max = 0;
    for (int k = 0; k < n; k++) {
        if (over[k] > *over_max) *over_max = over[k];
        if (starts[k] > a && starts[k] < b) inside |= plain[starts[k] - 1] == ' ' || !strncmp(plain + starts[k] - 2, "\u00a0", 2) ? 2 : 1;
    }
    return inside;
}

// Code spans and stage ids never break inside a line: lesson.c marks them
// allow_breaks="false" (no invisible characters in the text), and a span
// wider than the whole line breaks only at its spaces (src/render/text.c).
static void code_spans_stay_whole(void **state) {
    (void)state;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10);
    cairo_t *cr = cairo_create(sf);
    // the Persian handout's sentence that split the id at ".head." before
    const char *id = "dec.1.cross_attn.head.2.weights";
    char *m = paragraph_markup("fa", "در لایهٔ دومِ **رمزگشا** (decoder)، سرِ 3 (`dec.1.cross_attn.head.2.weights`) در هر سطر به همان واژهٔ "
                                     "انگلیسی‌ای نگاه می‌کند که دارد ترجمه‌اش می‌کند.");
    char plain[2000];
    assert_int_equal(render_markup_plain(m, plain, sizeof plain), 0);
    assert_null(strstr(m, "\u2060"));
    int a = (int)(strstr(plain, id) - plain), b = a + (int)strlen(id);
    // (the id is about 280 pixels wide at 15 pixels: from 300 on it fits a line)
    int split_before = 0;
    double over;
    char *old = strdup(m); // the same paragraph as the markup was before: <tt> alone
    char *sp = strstr(old, "<span allow_breaks=\"false\">"), *end = strstr(old, "</span>");
    assert_non_null(sp);
    assert_non_null(end);
    memmove(end, end + 7, strlen(end + 7) + 1);
    memmove(sp, sp + 27, strlen(sp + 27) + 1);
    for (int w = 300; w <= 700; w += 4) {
        if (breaks_inside(cr, m, 1, w, a, b, plain, &over)) fail_msg("width %d: a line starts inside %s", w, id);
        assert_true(over < 0.5);
        split_before += breaks_inside(cr, old, 1, w, a, b, plain, &over) != 0;
    }
    assert_true(split_before > 5); // without allow_breaks pango does split it
    for (int w = 120; w < 300; w += 7) { // narrower than the id: it breaks rather than stick out
        breaks_inside(cr, m, 1, w, a, b, plain, &over);
        if (over > 0.5) fail_msg("width %d: a line sticks out %.1f pixels", w, over);
    }
    free(old);
    free(m);
    // a formula wider than the line breaks at its spaces only, never inside 10000^(2i/d_model)
    m = paragraph_markup("ar", "للأعمدة الزوجية: `PE(pos, 2i) = sin(pos / 10000^(2i/d_model))` حيث pos الموضع.");
    assert_int_equal(render_markup_plain(m, plain, sizeof plain), 0);
    const char *f = "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))", *tok = "10000^(2i/d_model))";
    a = (int)(strstr(plain, f) - plain), b = a + (int)strlen(f);
    int ta = (int)(strstr(plain, tok) - plain), tb = ta + (int)strlen(tok), at_spaces = 0;
    for (int w = 200; w <= 700; w += 5) {
        int in = breaks_inside(cr, m, 1, w, a, b, plain, &over);
        if (in & 1) fail_msg("width %d: the formula breaks where it has no space", w);
        if (breaks_inside(cr, m, 1, w, ta, tb, plain, &over)) fail_msg("width %d: a line starts inside %s", w, tok);
        if (over > 0.5) fail_msg("width %d: a line sticks out %.1f pixels", w, over);
        at_spaces += in == 2;
    }
    assert_true(at_spaces > 10); // (it is about 400 pixels wide: it had to break, at a space)
    free(m);
    // the same with no-break spaces, as the Persian lesson glues its formulas: it breaks at them, not inside a term
    m = paragraph_markup("fa", "- ستون‌های زوج: `PE(pos,\u00a02i)\u00a0=\u00a0sin(pos\u00a0/\u00a010000^(2i/d_model))`");
    assert_int_equal(render_markup_plain(m, plain, sizeof plain), 0);
    a = (int)(strstr(plain, "PE(") - plain), b = a + (int)strlen(strstr(plain, "PE("));
    ta = (int)(strstr(plain, tok) - plain), tb = ta + (int)strlen(tok), at_spaces = 0;
    for (int w = 200; w <= 700; w += 5) {
        int in = breaks_inside(cr, m, 1, w, a, b, plain, &over);
        if (in & 1) fail_msg("width %d: the formula breaks where it has no space", w);
        if (breaks_inside(cr, m, 1, w, ta, tb, plain, &over)) fail_msg("width %d: a line starts inside %s", w, tok);
        if (over > 0.5) fail_msg("width %d: a line sticks out %.1f pixels", w, over);
        at_spaces += in == 2;
    }
    assert_true(at_spaces > 10);
    free(m);
    // a span without spaces wider than the line: broken anywhere rather than cut off
    m = paragraph_markup("en", "See `a_very_long_identifier_without_any_space_in_it_at_all` here.");
    assert_int_equal(render_markup_plain(m, plain, sizeof plain), 0);
    a = (int)(strstr(plain, "a_very") - plain), b = a + 50;
    assert_int_equal(breaks_inside(cr, m, 0, 200, a, b, plain, &over), 1);
    assert_true(over < 0.5);
    free(m);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
}

// A stand-in for the trace: every value reads "1.5".
static int any_value(void *ctx, const char *expr, char *out, size_t n) {
    (void)ctx;
    (void)expr;
    snprintf(out, n, "1.5");
    return 0;
}

// What pango gets of every shipped lesson: markup that parses, with no word
// joiner (U+2060) or other invisible glue, and no digit but 0–9.
static void lessons_reach_pango_clean(void **state) {
    (void)state;
    static const char *langs[] = {"en", "fa", "ar"}, *files[] = {"inside-transformer.md", "rnn-or-transformer.md"};
    int blocks = 0;
    for (int i = 0; i < 3; i++)
        for (int f = 0; f < 2; f++) {
            char path[300], err[256], out[9000], plain[9000], why[300];
            snprintf(path, sizeof path, "lessons/%s/%s", langs[i], files[f]);
            lesson l;
            if (lesson_load(&l, path, langs[i], err, sizeof err)) fail_msg("%s:%s", path, err);
            for (int s = 0; s < l.n; s++)
                for (int k = 0; k < l.sec[s].n_blocks; k++, blocks++) {
                    lesson_expand(l.sec[s].blocks[k].markup, any_value, NULL, out, sizeof out);
                    if (render_markup_plain(out, plain, sizeof plain)) fail_msg("%s:%d: the markup does not parse", path, l.sec[s].blocks[k].line);
                    if (lesson_odd_char(out, why, sizeof why) >= 0) fail_msg("%s:%d: %s", path, l.sec[s].blocks[k].line, why);
                }
            lesson_free(&l);
        }
    assert_true(blocks > 300);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogues_switch_at_run_time),
        cmocka_unit_test(the_catalogue_folder),
        cmocka_unit_test(translations_write_0_to_9),
        cmocka_unit_test(glossary_words_in_text),
        cmocka_unit_test(hit_testing_a_word),
        cmocka_unit_test(code_spans_stay_whole),
        cmocka_unit_test(lessons_reach_pango_clean),
    };
    return cmocka_run_group_tests_name("i18n", tests, setup, NULL);
}
