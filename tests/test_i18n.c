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
    assert_int_equal(n, 3);
    assert_string_equal(key_of(&fa, &h[0]), "attention"); // between guillemets
    assert_string_equal(key_of(&fa, &h[1]), "head");      // before a ZWNJ and its suffix; not in سرمایه
    assert_string_equal(key_of(&fa, &h[2]), "layer-normalization");
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(catalogues_switch_at_run_time),
        cmocka_unit_test(the_catalogue_folder),
        cmocka_unit_test(translations_write_0_to_9),
        cmocka_unit_test(glossary_words_in_text),
        cmocka_unit_test(hit_testing_a_word),
    };
    return cmocka_run_group_tests_name("i18n", tests, setup, NULL);
}
