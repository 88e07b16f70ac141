// test_lesson.c — lesson files: what the parser makes of the Markdown subset,
// which section a stage gets, and every kind of mistake with its line.
#include "testutil.h"

#include "../src/lesson/lesson.h"

static const char *write_tmp(const char *name, const char *text) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", test_tmpdir(), name);
    write_file(path, text, strlen(text));
    return path;
}

static void parses_the_subset(void **state) {
    (void)state;
    const char *p = write_tmp("ok.md",
                              "# Inside\n\n## intro\nFirst line\nsecond line of the **same** paragraph.\n\n"
                              "## src.pe, tgt.pe\n### Why\nA *short* `x<y & z` note.\n\n- one\n- two\n1. first\n\n"
                              "## *.head.*.masked\nAny mask.\n\n## dec.*.self_attn.head.*.masked\nThe causal mask.\n\n"
                              "## check\nQ: Why √dₖ?\nA: The variance.\n");
    lesson l;
    char err[256];
    if (lesson_load(&l, p, "en", err, sizeof err)) fail_msg("%s", err);
    assert_string_equal(l.title, "Inside");
    assert_int_equal(l.n, 5);
    assert_false(l.rtl);
    const lesson_section *intro = lesson_section_named(&l, "intro");
    assert_non_null(intro);
    assert_int_equal(intro->n_blocks, 1); // two lines, one paragraph
    assert_string_equal(intro->blocks[0].markup, "First line second line of the <b>same</b> paragraph.");
    const lesson_section *pe = lesson_for_stage(&l, "tgt.pe");
    assert_non_null(pe);
    assert_int_equal(pe->n_patterns, 2);
    assert_int_equal(pe->n_blocks, 5);
    assert_int_equal(pe->blocks[0].kind, LESSON_HEADING);
    assert_string_equal(pe->blocks[1].markup, "A <i>short</i> <span allow_breaks=\"false\">\u2066<tt>x&lt;y &amp; z</tt>\u2069</span> note.");
    assert_int_equal(pe->blocks[2].kind, LESSON_BULLET);
    assert_string_equal(pe->blocks[3].markup, "two");
    assert_int_equal(pe->blocks[4].kind, LESSON_NUMBERED);
    assert_int_equal(pe->blocks[1].line, 9);
    // the most specific pattern wins, whatever the order in the file
    assert_int_equal(lesson_for_stage(&l, "dec.1.self_attn.head.3.masked")->blocks[0].line, 19);
    assert_int_equal(lesson_for_stage(&l, "enc.0.self_attn.head.0.masked")->blocks[0].line, 16);
    assert_int_equal(lesson_for_stage(&l, "dec.0.cross_attn.head.0.masked")->blocks[0].line, 16);
    assert_null(lesson_for_stage(&l, "out.probs"));
    const lesson_section *chk = lesson_section_named(&l, "check");
    assert_int_equal(chk->blocks[0].kind, LESSON_QUESTION);
    assert_int_equal(chk->blocks[1].kind, LESSON_ANSWER);
    assert_string_equal(chk->blocks[1].markup, "The variance.");
    lesson_free(&l);
    assert_true(lesson_is_rtl("fa") && lesson_is_rtl("ar") && !lesson_is_rtl("en"));
}

static void right_to_left_text(void **state) {
    (void)state;
    const char *p = write_tmp("fa.md", "# درون ترنسفورمر\n\n## src.pe\nبرای هر موقعیت، `PE(pos, 2i)` یک **سینوس** است.\n");
    lesson l;
    char err[256];
    if (lesson_load(&l, p, "fa", err, sizeof err)) fail_msg("%s", err);
    assert_true(l.rtl);
    assert_string_equal(l.title, "درون ترنسفورمر");
    assert_string_equal(lesson_for_stage(&l, "src.pe")->blocks[0].markup, "برای هر موقعیت، <span allow_breaks=\"false\">\u2066<tt>PE(pos, 2i)</tt>\u2069</span> یک <b>سینوس</b> است.");
    lesson_free(&l);
}

static void mistakes_name_their_line(void **state) {
    (void)state;
    static const struct { const char *text, *phrase; int line; } cases[] = {
        {"Title without a hash\n", "starts with its title", 1},
        {"# T\nText before any section.\n", "before the first", 2},
        {"# T\n## intro\nAn **open bold.\n", "never closed", 3},
        {"# T\n## intro\nA `code span\n", "never closed", 3},
        {"# T\n## intro\n| a | b |\n", "tables, images and HTML", 3},
        {"# T\n## intro\n![pic](x.png)\n", "tables, images and HTML", 3},
        {"# T\n## intro\n<b>html</b>\n", "tables, images and HTML", 3},
        {"# T\n## check\nA: an answer first\n", "must follow its \"Q:\"", 3},
        {"# T\n##    \n", "needs the stage ids", 2},
        {"# T\n## intro\n#### deep\n", "only \"# Title\"", 3},
        {"# T\n## intro\n\xff\xfe bad bytes\n", "not UTF-8", 1},
        {"", "empty", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lesson l;
        char err[256] = "", want[16];
        const char *p = write_tmp("bad.md", cases[i].text);
        if (lesson_load(&l, p, "en", err, sizeof err) == 0) { lesson_free(&l); fail_msg("case %zu loaded; expected \"%s\"", i, cases[i].phrase); }
        snprintf(want, sizeof want, "%d: ", cases[i].line);
        if (strncmp(err, want, strlen(want)) || !strstr(err, cases[i].phrase)) fail_msg("case %zu: \"%s\", expected line %d and \"%s\"", i, err, cases[i].line, cases[i].phrase);
    }
    lesson l;
    char err[256];
    assert_int_equal(lesson_load(&l, "/nonexistent/x.md", "en", err, sizeof err), -1);
}

// A stand-in for the trace: "x" is 1.5, "tok" a token that needs escaping, anything else unreadable.
static int fake_value(void *ctx, const char *expr, char *out, size_t n) {
    (*(int *)ctx)++;
    if (!strcmp(expr, "x")) { snprintf(out, n, "1.5"); return 0; }
    if (!strcmp(expr, "tok 0")) { snprintf(out, n, "<bos>"); return 0; }
    snprintf(out, n, "no such value");
    return -1;
}

static void live_values_and_conditions(void **state) {
    (void)state;
    const char *p = write_tmp("live.md",
                              "# Live\n\n## src.pe\nThe value {{ x }} and **{{tok 0}}**, `code {{x}}`, then {{nope}}.\n\n"
                              "[if model=worked-example] Only for the worked example, *{{x}}*.\n\n- [if !sharp]  a list item\n\n"
                              "A [if x] in the middle is text.\n");
    lesson l;
    char err[256], out[512];
    if (lesson_load(&l, p, "en", err, sizeof err)) fail_msg("%s", err);
    const lesson_section *sec = lesson_for_stage(&l, "src.pe");
    assert_int_equal(sec->n_blocks, 4);
    // the markup keeps {{…}} as written; bold and code around it still work
    assert_string_equal(sec->blocks[0].markup, "The value {{ x }} and <b>{{tok 0}}</b>, <span allow_breaks=\"false\">\u2066<tt>code {{x}}</tt>\u2069</span>, then {{nope}}.");
    assert_null(sec->blocks[0].cond);
    int calls = 0;
    assert_int_equal(lesson_expand(sec->blocks[0].markup, fake_value, &calls, out, sizeof out), 1); // one unreadable
    assert_int_equal(calls, 4);
    assert_string_equal(out, "The value 1.5 and <b>&lt;bos&gt;</b>, <span allow_breaks=\"false\">\u2066<tt>code 1.5</tt>\u2069</span>, then ?.");
    assert_string_equal(sec->blocks[1].cond, "model=worked-example");
    assert_string_equal(sec->blocks[1].markup, "Only for the worked example, <i>{{x}}</i>.");
    assert_int_equal(sec->blocks[2].kind, LESSON_BULLET);
    assert_string_equal(sec->blocks[2].cond, "!sharp");
    assert_string_equal(sec->blocks[2].markup, "a list item");
    assert_null(sec->blocks[3].cond); // only at the start
    // a short buffer is cut, never overrun
    char small[8];
    calls = 0;
    lesson_expand("{{x}} {{x}} {{x}}", fake_value, &calls, small, sizeof small);
    assert_string_equal(small, "1.5 1.5");
    lesson_free(&l);
    static const struct { const char *text, *phrase; } bad[] = {
        {"# T\n## intro\nA {{value never closed.\n", "never closed"},
        {"# T\n## intro\nA {{a*b}} star.\n", "live value holds *"},
        {"# T\n## intro\nA {{a `b`}} code.\n", "live value holds `"},
        {"# T\n## intro\n[if model=x\n", "[if …] is never closed"},
        {"# T\n## intro\n[if ] text\n", "without a condition"},
        {"# T\n## intro\n[if sharp]\n", "no text after it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = write_tmp("bad.md", bad[i].text);
        if (!lesson_load(&l, p, "en", err, sizeof err)) { lesson_free(&l); fail_msg("case %zu loaded", i); }
        if (strncmp(err, "3: ", 3) || !strstr(err, bad[i].phrase)) fail_msg("case %zu: \"%s\", expected \"%s\"", i, err, bad[i].phrase);
    }
}

static void glossaries(void **state) {
    (void)state;
    glossary g;
    char err[256];
    const char *p = write_tmp("glossary.txt", "# terms\nattention = توجه\nquery = پرسش\n\n");
    if (glossary_load(&g, p, "fa", err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(g.n, 2);
    assert_string_equal(glossary_word(&g, "query"), "پرسش");
    assert_null(glossary_word(&g, "head"));
    glossary_free(&g);
    p = write_tmp("glossary.txt", "attention = a\nattention = b\n");
    assert_int_equal(glossary_load(&g, p, "en", err, sizeof err), -1);
    assert_non_null(strstr(err, "2: \"attention\" is listed twice"));
    p = write_tmp("glossary.txt", "attention\n");
    assert_int_equal(glossary_load(&g, p, "en", err, sizeof err), -1);
    assert_non_null(strstr(err, "1: a glossary line"));
}

// One digit rule for every language: 0–9 only (lessons/README.md).
static void digits_other_than_0_to_9(void **state) {
    (void)state;
    static const struct { const char *text; int at; const char *phrase; } odd[] = {
        {"مدل پایه ۸ سر دارد", (int)sizeof "مدل پایه " - 1, "a Persian digit ۸ (U+06F8); write 8"},
        {"مجموعها ١: كل", (int)sizeof "مجموعها " - 1, "an Arabic-Indic digit ١ (U+0661); write 1"},
        {"بخشِ 3٫4 مقاله", (int)sizeof "بخشِ 3" - 1, "the Arabic decimal separator ٫ (U+066B); write \".\""},
        {"30٬000", 2, "thousands separator ٬ (U+066C); write \",\""},
        {"d = ４", 4, "a digit ４ (U+FF14); write 4"},         // full width
        {"x = \U0001D7D1", 4, "a digit \U0001D7D1 (U+1D7D1); write 3"}, // mathematical bold
        {"हिंदी ५", (int)sizeof "हिंदी " - 1, "a digit ५ (U+096B); write 5"}, // Devanagari
    };
    char why[300];
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        int at = lesson_odd_char(odd[i].text, why, sizeof why);
        if (at != odd[i].at || !strstr(why, odd[i].phrase)) fail_msg("\"%s\": at %d \"%s\", want at %d \"%s\"", odd[i].text, at, why, odd[i].at, odd[i].phrase);
    }
    // the rest is fine: 0–9, sub- and superscripts of formulas, Persian letters and ZWNJ, an Arabic comma after a number
    static const char *fine[] = {"0123456789", "W₁ x² Kᵀ √dₖ e^(−∞)", "مقدار‌ها و کلید‌ها", "8 سر، 64 بُعد", "(0.10, 1.30)", ""};
    for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
        int at = lesson_odd_char(fine[i], why, sizeof why);
        if (at != -1) fail_msg("\"%s\" flagged at %d: %s", fine[i], at, why);
    }
}

// ---------------------------------------------------------------- glossary words, inflected
static glossary shipped_glossary(const char *lang) {
    glossary g;
    char path[256], err[256];
    snprintf(path, sizeof path, "lessons/%s/glossary.txt", lang);
    if (glossary_load(&g, path, lang, err, sizeof err)) fail_msg("%s:%s", path, err);
    return g;
}

// In each text, the glossary of lang finds exactly one word: the one between
// [ and ], and it is key's (or finds none when key is NULL).
typedef struct { const char *text, *key; } gloss_case;

static void check_cases(const char *lang, const gloss_case *cases, size_t n_cases) {
    glossary g = shipped_glossary(lang);
    for (size_t i = 0; i < n_cases; i++) {
        char text[512];
        int start = -1, end = -1, k = 0;
        for (const char *p = cases[i].text; *p && k < (int)sizeof text - 1; p++) {
            if (*p == '[') start = k;
            else if (*p == ']') end = k;
            else text[k++] = *p;
        }
        text[k] = 0;
        glossary_hit h[8];
        int n = glossary_find(&g, text, h, 8);
        if (!cases[i].key) {
            if (n) fail_msg("%s \"%s\": found \"%.*s\" (%s); want nothing", lang, text, h[0].end - h[0].start, text + h[0].start, g.key[h[0].entry]);
            continue;
        }
        if (n != 1) fail_msg("%s \"%s\": %d words found; want %s in \"%.*s\"", lang, text, n, cases[i].key, end - start, text + start);
        if (strcmp(g.key[h[0].entry], cases[i].key) || h[0].start != start || h[0].end != end)
            fail_msg("%s \"%s\": found \"%.*s\" (%s); want \"%.*s\" (%s)", lang, text, h[0].end - h[0].start, text + h[0].start,
                     g.key[h[0].entry], end - start, text + start, cases[i].key);
    }
    glossary_free(&g);
}

static void glossary_english_plurals(void **state) {
    (void)state;
    static const gloss_case cases[] = {
        {"[attention]", "attention"},        {"[Attention]: ", "attention"},        {"many [heads]", "head"},
        {"the [Keys].", "key"},              {"[queries] and", "query"},            {"two [softmaxes]", "softmax"},
        {"[masks]", "mask"},                 {"word [embeddings]", "embedding"},    {"two [layer normalizations]", "layer-normalization"},
        {"[residual connections]", "residual-connection"},                          {"the [feed-forward] layer", "feed-forward"},
        {"an [encoder]'s output", "encoder"},
        // whole words only, and only -s, -es, -ies
        {"keyboard", NULL}, {"monkeys", NULL}, {"headache", NULL}, {"overhead", NULL}, {"masked", NULL}, {"masking", NULL},
        {"queried", NULL},  {"decoding", NULL}, {"heading", NULL},  {"layer", NULL},    {"residual", NULL}, {"feed", NULL},
    };
    check_cases("en", cases, sizeof cases / sizeof *cases);
}

static void glossary_persian_inflections(void **state) {
    (void)state;
    static const gloss_case cases[] = {
        {"[کلید]", "key"},
        {"همهٔ [کلیدها]", "key"},            // plural -ها
        {"همهٔ [کلید‌ها]", "key"},           // … after a ZWNJ
        {"[کلیدهای] دیگر", "key"},          // plural + ezafe
        {"[کلیدهایِ] دیگر", "key"},
        {"[کلیدِ] اول", "key"},              // ezafe kasra
        {"[كليد]", "key"},                   // typed with Arabic kaf and yeh
        {"[کلید] را می‌بیند", "key"},         // the object marker apart
        {"[کلیدها] را", "key"},
        {"[سرِ] سوم", "head"},
        {"[سر‌ها]", "head"},
        {"[سرهای] دیگر", "head"},
        {"[سری] که", "head"},                // indefinite
        {"[مقدارها]", "value"},
        {"[مقدارهایش]", "value"},            // plural + pronoun
        {"[پرسش‌ها]", "query"},
        {"[پرسش‌اند]", "query"},
        {"[تعبیهٔ] مقصد", "embedding"},      // ezafe on a final heh, hamza above
        {"[تعبیه‌ی] مقصد", "embedding"},     // … or ی after a ZWNJ
        {"[تعبیه‌ها]", "embedding"},
        {"[تعبیه‌شان]", "embedding"},
        {"[رمزگشای] LSTM", "decoder"},       // ezafe ی after a vowel
        {"[رمزگشایِ] مدل", "decoder"},
        {"[رمزگذاران]", "encoder"},          // plural -ان
        {"هیچ [ماسکی]", "mask"},
        {"[توجهِ] متقابل", "attention"},
        {"[نرمال‌سازیِ لایه]", "layer-normalization"},
        {"[اتصال‌های باقی‌مانده]", "residual-connection"}, // the plural on the first word
        // whole words only
        {"سرمایه", NULL}, {"سریع", NULL}, {"سرم", NULL}, {"سریش", NULL}, {"کلیدواژه", NULL}, {"کلید‌واژه", NULL},
        {"بی‌سر", NULL}, {"خودتوجهی", NULL}, {"ماسک‌شده", NULL}, {"نرمال‌سازی", NULL}, {"لایه", NULL},
    };
    check_cases("fa", cases, sizeof cases / sizeof *cases);
}

static void glossary_arabic_inflections(void **state) {
    (void)state;
    static const gloss_case cases[] = {
        {"[المفتاح]", "key"},
        {"[مفتاح]", "key"},
        {"[المفاتيح]", "key"},                // a broken plural, listed after "|"
        {"[والقيم]", "value"},
        {"[بالانتباه]", "attention"},
        {"[للمفتاح]", "key"},                 // ل + ال is written لل
        {"[وبالرؤوس]", "head"},
        {"[فالمفاتيح]", "key"},
        {"[كالرأس]", "head"},
        {"[للقيمة]", "value"},
        {"[قيمتها]", "value"},                // ة becomes ت before a pronoun
        {"[ومفتاحها]", "key"},
        {"[والمفتاحان]", "key"},              // dual
        {"[الاستعلامات]", "query"},           // sound plural -ات
        {"[المشفّرون]", "encoder"},           // sound plural -ون
        {"[المشفرين]", "encoder"},
        {"[رأسًا]", "head"},                   // accusative
        {"[بالإخفاء]", "mask"},
        {"[الاخفاء]", "mask"},                // alef written without hamza
        {"[التضمينات]", "embedding"},
        {"[ومفكّك التشفير]", "decoder"},
        {"[لمفكك التشفير]", "decoder"},     // written without the shadda
        {"[والتغذية الأمامية]", "feed-forward"},
        {"[تطبيع الطبقات]", "layer-normalization"},
        {"[ودالة softmax]", "softmax"},
        // whole words only
        {"الرئيس", NULL}, {"رأسمال", NULL}, {"المفتاحية", NULL}, {"القيامة", NULL}, {"تقييم", NULL}, {"فكرة", NULL},
        {"التشفير", NULL}, {"فك التشفير", NULL}, {"المشفّرة", NULL}, {"انتباهي", NULL}, {"الطبقة", NULL},
    };
    check_cases("ar", cases, sizeof cases / sizeof *cases);
}

// "key = word | other form": forms the rules cannot make (broken plurals).
static void glossary_forms(void **state) {
    (void)state;
    glossary g;
    char err[256];
    const char *p = write_tmp("glossary.txt", "key = مفتاح | مفاتيح\nhead =  الرأس|رؤوس  \n");
    if (glossary_load(&g, p, "ar", err, sizeof err)) fail_msg("%s", err);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.n_forms, 4);
    assert_string_equal(glossary_word(&g, "key"), "مفتاح"); // the first form is the word shown in the other languages
    assert_string_equal(glossary_word(&g, "head"), "الرأس");
    assert_string_equal(g.forms[1].text, "مفاتیح"); // folded: Persian yeh
    assert_string_equal(g.forms[2].text, "راس");    // no article, no hamza
    assert_int_equal(g.forms[3].entry, 1);
    glossary_hit h[4];
    const char *t = "المفاتيح ورؤوسها";
    assert_int_equal(glossary_find(&g, t, h, 4), 2);
    assert_int_equal(h[0].entry, 0);
    assert_int_equal(h[1].entry, 1);
    assert_int_equal(h[1].end, (int)strlen(t));
    glossary_free(&g);
    static const struct { const char *text, *phrase; int line; } bad[] = {
        {"key = a | | b\n", "an empty form beside a \"|\"", 1},
        {"key = | b\n", "an empty form", 1},
        {"# c\nkey = a |\n", "an empty form", 2},
        {"key = a | A\n", "\"A\" is already a form of \"key\"", 1},
        {"key = a\nquery = b | a\n", "\"a\" is already a form of \"key\"", 2},
        {"key = a = b\n", "has one \"=\"", 1},
        {"key = a | ـــ\n", "has no letter", 1},
        {"key = a | ... \n", "has no letter", 1},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char want[16];
        p = write_tmp("glossary.txt", bad[i].text);
        if (!glossary_load(&g, p, "en", err, sizeof err)) { glossary_free(&g); fail_msg("case %zu loaded", i); }
        snprintf(want, sizeof want, "%d: ", bad[i].line);
        if (strncmp(err, want, strlen(want)) || !strstr(err, bad[i].phrase)) fail_msg("case %zu: \"%s\", want line %d and \"%s\"", i, err, bad[i].line, bad[i].phrase);
    }
    char long_form[200];
    snprintf(long_form, sizeof long_form, "key = a | %0120d\n", 1);
    p = write_tmp("glossary.txt", long_form);
    assert_int_equal(glossary_load(&g, p, "en", err, sizeof err), -1);
    assert_non_null(strstr(err, "1: a glossary line is \"key = word\" (a key under 48 bytes, a word under 96)"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_the_subset),
        cmocka_unit_test(right_to_left_text),
        cmocka_unit_test(mistakes_name_their_line),
        cmocka_unit_test(live_values_and_conditions),
        cmocka_unit_test(glossaries),
        cmocka_unit_test(digits_other_than_0_to_9),
        cmocka_unit_test(glossary_english_plurals),
        cmocka_unit_test(glossary_persian_inflections),
        cmocka_unit_test(glossary_arabic_inflections),
        cmocka_unit_test(glossary_forms),
    };
    return cmocka_run_group_tests_name("lesson", tests, NULL, NULL);
}
