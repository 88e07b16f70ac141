// test_corpus.c — the synthetic English→Persian corpus: determinism, the
// default sentence held out, a clean split, Persian conjugation, ZWNJ,
// verb-final order, the TSV round trip and every way a corpus file can be broken.
#include "testutil.h"
#include "../src/train/corpus.h"

#define ZWNJ "\xe2\x80\x8c"

static tf_corpus g_all, g_train, g_held; // made once

static int setup(void **state) {
    (void)state;
    tf_err e;
    if (tf_corpus_generate_all(&g_all, &e)) return -1;
    if (tf_corpus_generate(&g_train, &g_held, 1, &e)) return -1;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tf_corpus_free(&g_all); tf_corpus_free(&g_train); tf_corpus_free(&g_held);
    return 0;
}

static const tf_pair *find(const tf_corpus *c, const char *src) {
    for (int i = 0; i < c->n; i++) if (!strcmp(c->p[i].src, src)) return &c->p[i];
    return NULL;
}

static char *format(const tf_corpus *c) {
    char *s; size_t n;
    assert_int_equal(tf_corpus_format(c, &s, &n), 0);
    assert_int_equal(strlen(s), n);
    return s;
}

static int count_words(const char *s) {
    char **w; tf_err e;
    int n = tf_split_words(s, &w, &e);
    assert_true(n >= 0);
    tf_words_free(w, n);
    return n;
}

// ---------------------------------------------------------------- generation
static void sizes(void **state) {
    (void)state;
    print_message("grammar %d sentences; train %d, heldout %d\n", g_all.n, g_train.n, g_held.n);
    assert_true(g_all.n > 40000);
    assert_int_equal(g_train.n >= TF_CORPUS_TRAIN_MAX && g_train.n < TF_CORPUS_TRAIN_MAX + 50, 1);
    assert_true(g_held.n >= 1000 && g_held.n <= TF_CORPUS_HELDOUT_MAX);
    const tf_corpus *cs[2] = {&g_train, &g_held};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < cs[k]->n; i++) {
            const tf_pair *p = &cs[k]->p[i];
            int ns = count_words(p->src);
            assert_true(ns >= 2 && ns <= 10);
            assert_int_equal(count_words(p->tgt), p->n_tgt);
            assert_true(p->n_tgt >= 2 && p->n_tgt <= 10);
            assert_null(strstr(p->src, "  "));
            for (int j = 0; j < p->n_tgt; j++) assert_true(p->align[j] >= -1 && p->align[j] < ns);
        }
    char *sv = tf_corpus_vocab(&g_train, 0), *tv = tf_corpus_vocab(&g_train, 1);
    tf_vocab a, b; tf_err e;
    if (tf_vocab_parse(&a, sv, "source vocabulary", &e)) fail_msg("%s", e.msg);
    if (tf_vocab_parse(&b, tv, "target vocabulary", &e)) fail_msg("%s", e.msg);
    print_message("vocabulary: source %d, target %d\n", a.n, b.n);
    assert_true(a.n >= 100 && a.n <= 300);
    assert_true(b.n >= 100 && b.n <= 300);
    assert_int_equal(a.pad, 0); assert_int_equal(a.unk, 1); assert_int_equal(a.bos, 2); assert_int_equal(a.eos, 3);
    assert_int_equal(b.pad, 0); assert_int_equal(b.unk, 1); assert_int_equal(b.bos, 2); assert_int_equal(b.eos, 3);
    tf_vocab_free(&a); tf_vocab_free(&b); free(sv); free(tv);
}

static void deterministic(void **state) {
    (void)state;
    tf_corpus t2, h2, t3, h3; tf_err e;
    assert_int_equal(tf_corpus_generate(&t2, &h2, 1, &e), 0);
    assert_int_equal(tf_corpus_generate(&t3, &h3, 2, &e), 0);
    char *a = format(&g_train), *b = format(&t2), *c = format(&t3);
    char *ha = format(&g_held), *hb = format(&h2);
    assert_string_equal(a, b);   // same seed: byte-identical
    assert_string_equal(ha, hb);
    assert_true(strcmp(a, c) != 0); // another seed: another sample
    assert_string_equal(h3.p[0].src, TF_CORPUS_DEFAULT_SRC);
    // the split does not depend on the seed: seed 2's train has none of seed 1's heldout
    for (int i = 0; i < g_held.n; i++) assert_null(find(&t3, g_held.p[i].src));
    free(a); free(b); free(c); free(ha); free(hb);
    tf_corpus_free(&t2); tf_corpus_free(&h2); tf_corpus_free(&t3); tf_corpus_free(&h3);
}

static void default_sentence_held_out(void **state) {
    (void)state;
    const tf_pair *p = &g_held.p[0];
    assert_string_equal(p->src, "I really enjoy learning transformers");
    // من واقعاً از یادگیری ترنسفورمرها لذت می‌برم, byte by byte: tanwin after alef, ZWNJ in می‌برم
    assert_string_equal(p->tgt, "\xd9\x85\xd9\x86 \xd9\x88\xd8\xa7\xd9\x82\xd8\xb9\xd8\xa7\xd9\x8b \xd8\xa7\xd8\xb2 "
                                "\xdb\x8c\xd8\xa7\xd8\xaf\xda\xaf\xdb\x8c\xd8\xb1\xdb\x8c "
                                "\xd8\xaa\xd8\xb1\xd9\x86\xd8\xb3\xd9\x81\xd9\x88\xd8\xb1\xd9\x85\xd8\xb1\xd9\x87\xd8\xa7 "
                                "\xd9\x84\xd8\xb0\xd8\xaa \xd9\x85\xdb\x8c" ZWNJ "\xd8\xa8\xd8\xb1\xd9\x85");
    assert_string_equal(p->tgt, TF_CORPUS_DEFAULT_TGT);
    int want[] = {0, 1, 2, 3, 4, 2, 2}; // من واقعاً از(enjoy) یادگیری ترنسفورمرها لذت(enjoy) می‌برم(enjoy)
    assert_int_equal(p->n_tgt, 7);
    for (int i = 0; i < 7; i++) assert_int_equal(p->align[i], want[i]);
    assert_null(find(&g_train, TF_CORPUS_DEFAULT_SRC));
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void split_is_clean(void **state) {
    (void)state;
    for (int i = 0; i < g_held.n; i++) assert_null(find(&g_train, g_held.p[i].src));
    // no source sentence twice in the whole grammar (so none twice in train)
    const char **srcs = malloc(sizeof(char *) * (size_t)g_all.n);
    assert_non_null(srcs);
    for (int i = 0; i < g_all.n; i++) srcs[i] = g_all.p[i].src;
    qsort(srcs, (size_t)g_all.n, sizeof *srcs, cmp_str);
    for (int i = 1; i < g_all.n; i++) if (!strcmp(srcs[i - 1], srcs[i])) fail_msg("\"%s\" twice", srcs[i]);
    free(srcs);
}

static void held_out_words_known(void **state) {
    (void)state;
    for (int side = 0; side < 2; side++) {
        char *v = tf_corpus_vocab(&g_train, side);
        tf_vocab voc; tf_err e;
        if (tf_vocab_parse(&voc, v, "vocabulary", &e)) fail_msg("%s", e.msg);
        for (int i = 0; i < g_held.n; i++) {
            char **w;
            int n = tf_split_words(side ? g_held.p[i].tgt : g_held.p[i].src, &w, &e);
            for (int k = 0; k < n; k++)
                if (tf_vocab_find(&voc, w[k]) < 0) fail_msg("held-out word \"%s\" (%s) is not in train", w[k], g_held.p[i].src);
            tf_words_free(w, n);
        }
        tf_vocab_free(&voc);
        free(v);
    }
}

// A small sample: train must take in the sentences that bring the held-out words.
static void small_sample_covers_heldout(void **state) {
    (void)state;
    tf_corpus tr, ho; tf_err e;
    assert_int_equal(tf_corpus_generate_n(&tr, &ho, 5, 100, 200, &e), 0);
    assert_int_equal(ho.n, 200);
    assert_string_equal(ho.p[0].src, TF_CORPUS_DEFAULT_SRC);
    assert_true(tr.n > 100 && tr.n < 1000); // more than asked: the covering sentences
    for (int side = 0; side < 2; side++) {
        char *v = tf_corpus_vocab(&tr, side);
        tf_vocab voc;
        assert_int_equal(tf_vocab_parse(&voc, v, "vocabulary", &e), 0);
        for (int i = 0; i < ho.n; i++) {
            char **w;
            int n = tf_split_words(side ? ho.p[i].tgt : ho.p[i].src, &w, &e);
            for (int k = 0; k < n; k++) if (tf_vocab_find(&voc, w[k]) < 0) fail_msg("\"%s\" not in the small train", w[k]);
            tf_words_free(w, n);
        }
        for (int i = 0; i < ho.n; i++) assert_null(find(&tr, ho.p[i].src));
        tf_vocab_free(&voc);
        free(v);
    }
    print_message("small sample: train %d (asked 100), heldout %d\n", tr.n, ho.n);
    tf_corpus_free(&tr); tf_corpus_free(&ho);
    assert_int_equal(tf_corpus_generate_n(&tr, &ho, 5, 0, 0, &e), 0);
    assert_int_equal(ho.n, 1); // the default sentence, and the train sentences its words need
    assert_true(tr.n >= 1 && tr.n <= 14);
    tf_corpus_free(&tr); tf_corpus_free(&ho);
}

static void vocab_case(void **state) {
    (void)state;
    char *v = tf_corpus_vocab(&g_train, 0);
    assert_memory_equal(v, "<pad>\n<unk>\n<bos>\n<eos>\n", 24);
    tf_vocab voc; tf_err e;
    assert_int_equal(tf_vocab_parse(&voc, v, "source vocabulary", &e), 0);
    int the = tf_vocab_find(&voc, "the");
    assert_true(the >= 0);
    assert_int_equal(tf_vocab_find(&voc, "The"), the); // the first word's capital is folded
    assert_string_equal(voc.tok[tf_vocab_find(&voc, "I")], "I"); // "I" and names stay as written
    assert_string_equal(voc.tok[tf_vocab_find(&voc, "Ali")], "Ali");
    assert_string_equal(voc.tok[tf_vocab_find(&voc, "He")], "He");
    tf_vocab_free(&voc);
    free(v);
}

// ---------------------------------------------------------------- Persian
static void expect(const char *src, const char *tgt, const int *al, int n) {
    const tf_pair *p = find(&g_all, src);
    if (!p) fail_msg("the grammar does not make \"%s\"", src);
    if (strcmp(p->tgt, tgt)) fail_msg("\"%s\" -> \"%s\", want \"%s\"", src, p->tgt, tgt);
    assert_int_equal(p->n_tgt, n);
    for (int i = 0; i < n; i++)
        if (p->align[i] != al[i]) fail_msg("\"%s\": alignment of target word %d is %d, want %d", src, i, p->align[i], al[i]);
}
#define EXPECT(src, tgt, ...) do { int al_[] = {__VA_ARGS__}; expect(src, tgt, al_, (int)(sizeof al_ / sizeof *al_)); } while (0)

static void conjugations(void **state) {
    (void)state;
    EXPECT("He read the books", "او کتاب" ZWNJ "ها را خواند", 0, 3, -1, 1);                 // past, 3s: no ending
    EXPECT("He reads the books", "او کتاب" ZWNJ "ها را می" ZWNJ "خواند", 0, 3, -1, 1);       // present 3s
    EXPECT("We like music", "ما موسیقی را دوست داریم", 0, 2, -1, 1, 1);                    // دوست داشتن: no می‌
    EXPECT("We liked music", "ما موسیقی را دوست داشتیم", 0, 2, -1, 1, 1);
    EXPECT("I read the book", "من کتاب را می" ZWNJ "خوانم", 0, 3, -1, 1);                   // "read" alone is the present
    EXPECT("I read the book yesterday", "من دیروز کتاب را خواندم", 0, 4, 3, -1, 1);
    EXPECT("I read books", "من کتاب می" ZWNJ "خوانم", 0, 2, 1);                              // generic: bare noun, no را
    EXPECT("They will buy a car", "آن" ZWNJ "ها یک ماشین خواهند خرید", 0, 3, 4, 1, 2);
    EXPECT("The students often use the computers", "دانشجوها اغلب از کامپیوترها استفاده می" ZWNJ "کنند", 1, 2, 3, 5, 3, 3);
    EXPECT("She teaches languages", "او زبان یاد می" ZWNJ "دهد", 0, 2, 1, 1);
    EXPECT("My friend wrote the letters", "دوست من نامه" ZWNJ "ها را نوشت", 1, 0, 4, -1, 2);
    EXPECT("You learned the lesson", "شما درس را یاد گرفتید", 0, 3, -1, 1, 1);
    EXPECT("I like reading books", "من خواندن کتاب" ZWNJ "ها را دوست دارم", 0, 2, 3, -1, 1, 1);
    EXPECT("Sara enjoyed the movie", "سارا از فیلم لذت برد", 0, 1, 3, 1, 1);                 // از-verb: no را
    EXPECT("The teacher will really enjoy watching movies tomorrow",
           "معلم فردا واقعاً از تماشای فیلم" ZWNJ "ها لذت خواهد برد", 1, 7, 3, 4, 5, 6, 4, 2, 4);
    EXPECT("We sometimes see the flowers", "ما گاهی گل" ZWNJ "ها را می" ZWNJ "بینیم", 0, 1, 4, -1, 2);
    EXPECT("Ali understood the sentence", "علی جمله را فهمید", 0, 3, -1, 1);
    EXPECT("The teachers build models every day", "معلم" ZWNJ "ها هر روز مدل می" ZWNJ "سازند", 1, 4, 5, 3, 2);
    assert_null(find(&g_all, "I always read the book yesterday")); // frequency and time adverbs never together
    assert_null(find(&g_all, "I will always read the book"));      // frequency adverbs only in the present
}

static int is_verb_form(const char *w) {
    static const char *forms[] = {"read", "reads", "write", "writes", "wrote", "see", "sees", "saw", "buy", "buys", "bought",
        "want", "wants", "wanted", "understand", "understands", "understood", "build", "builds", "built", "learn", "learns",
        "learned", "teach", "teaches", "taught", "watch", "watches", "watched", "translate", "translates", "translated",
        "find", "finds", "found", "enjoy", "enjoys", "enjoyed", "use", "uses", "used", "like", "likes", "liked", NULL};
    for (int i = 0; forms[i]; i++) if (!strcmp(w, forms[i])) return 1;
    return 0;
}

static void verb_final(void **state) {
    (void)state;
    tf_err e;
    for (int i = 0; i < g_all.n; i++) {
        const tf_pair *p = &g_all.p[i];
        char **w;
        int n = tf_split_words(p->src, &w, &e);
        int last = p->align[p->n_tgt - 1];
        assert_true(last >= 0 && last < n);
        if (!is_verb_form(w[last])) fail_msg("\"%s\": the last Persian word translates \"%s\", not the verb", p->src, w[last]);
        // the English verb comes right after the subject (and will/adverb): the reordering is real
        // whenever there is an object, and there always is one
        assert_true(last < n - 1);
        tf_words_free(w, n);
    }
}

static void zwnj_and_letters(void **state) {
    (void)state;
    int n_mi = 0;
    for (int i = 0; i < g_all.n; i++) {
        const char *t = g_all.p[i].tgt;
        assert_null(strstr(t, "\xd9\x8a")); // Arabic yeh ي
        assert_null(strstr(t, "\xd9\x83")); // Arabic kaf ك
        assert_null(strstr(t, " ها ")); // never a detached plural
        assert_false(strlen(t) > 5 && !strcmp(t + strlen(t) - 5, " ها"));
        for (const char *p = strstr(t, "می"); p; p = strstr(p + 1, "می")) {
            if (p != t && p[-1] != ' ') continue; // inside a word
            const char *after = p + strlen("می");
            if (*after == ' ' || !*after) continue;
            assert_memory_equal(after, ZWNJ, 3); // می‌ joined by ZWNJ, never a space or nothing
            n_mi++;
        }
        assert_null(strstr(t, ZWNJ " "));
        assert_null(strstr(t, " " ZWNJ));
    }
    assert_true(n_mi > 10000);
}

// ---------------------------------------------------------------- TSV
static void round_trip(void **state) {
    (void)state;
    char *a = format(&g_held);
    tf_corpus c; tf_err e; int line;
    if (tf_corpus_parse(&c, a, strlen(a), &line, &e)) fail_msg("line %d: %s", line, e.msg);
    assert_int_equal(c.n, g_held.n);
    for (int i = 0; i < c.n; i++) {
        assert_string_equal(c.p[i].src, g_held.p[i].src);
        assert_string_equal(c.p[i].tgt, g_held.p[i].tgt);
        assert_int_equal(c.p[i].n_tgt, g_held.p[i].n_tgt);
        assert_memory_equal(c.p[i].align, g_held.p[i].align, sizeof(int) * (size_t)c.p[i].n_tgt);
    }
    char *b = format(&c);
    assert_string_equal(a, b);
    char path[256];
    snprintf(path, sizeof path, "%s/held.tsv", test_tmpdir());
    write_file(path, a, strlen(a));
    tf_corpus d;
    assert_int_equal(tf_corpus_read(&d, path, &line, &e), 0);
    assert_int_equal(d.n, g_held.n);
    free(a); free(b);
    tf_corpus_free(&c); tf_corpus_free(&d);
}

static void reader_accepts(void **state) {
    (void)state;
    const char *text = "# a comment\n\n  \nI read the book\tمن کتاب را می" ZWNJ "خوانم\t0 3 -1 1\r\n"
                       "hello world\tسلام دنیا\n"          // no alignment: all -1
                       " a  b \tx y\t1  0";               // no final newline, extra spaces
    tf_corpus c; tf_err e; int line;
    if (tf_corpus_parse(&c, text, strlen(text), &line, &e)) fail_msg("line %d: %s", line, e.msg);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.p[0].tgt, "من کتاب را می" ZWNJ "خوانم");
    assert_int_equal(c.p[0].n_tgt, 4);
    assert_int_equal(c.p[0].align[1], 3);
    assert_int_equal(c.p[1].n_tgt, 2);
    assert_int_equal(c.p[1].align[0], -1);
    assert_int_equal(c.p[1].align[1], -1);
    assert_string_equal(c.p[2].src, "a b");
    assert_int_equal(c.p[2].align[0], 1);
    assert_int_equal(c.p[2].align[1], 0);
    tf_corpus_free(&c);
}

typedef struct { const char *name, *text; size_t len; int line; const char *phrase; } bad_case;

static void reader_errors(void **state) {
    (void)state;
    static char longline[TF_CORPUS_MAX_LINE + 100];
    memset(longline, 'a', sizeof longline - 1);
    longline[10] = '\t';
    const bad_case cases[] = {
        {"missing tab", "a\tb\nno tab here\n", 0, 2, "has no tab"},
        {"empty source", "# c\n\tb\n", 0, 2, "source sentence (before the first tab) is empty"},
        {"blank source", "a\tb\n   \tb\n", 0, 2, "source sentence (before the first tab) is empty"},
        {"empty target", "a\t\n", 0, 1, "target sentence (after the first tab) is empty"},
        {"blank target", "a\tb\n\na\t  \t\n", 0, 3, "target sentence (after the first tab) is empty"},
        {"invalid UTF-8", "a\tb\nab\xff\tc\n", 0, 2, "not valid UTF-8 (byte 3 of the line)"},
        {"overlong UTF-8", "a\t\xc0\xaf\n", 0, 1, "not valid UTF-8 (byte 3 of the line)"},
        {"truncated UTF-8", "a\tb\na\t\xd9", 0, 2, "not valid UTF-8 (byte 3 of the line)"},
        {"too few alignments", "a b\tx y z\t0 1\n", 0, 1, "has 2 alignment numbers but the target has 3 words"},
        {"too many alignments", "a b\tx\t0 1 0\n", 0, 1, "has 3 alignment numbers but the target has 1 words"},
        {"empty alignment", "a b\tx\t\n", 0, 1, "has 0 alignment numbers but the target has 1 words"},
        {"alignment past the source", "a b\tx y\t0 2\n", 0, 1, "alignment 2 of target word 2 is out of range: the source has 2 words"},
        {"alignment below -1", "a b\tx y\t-2 0\n", 0, 1, "alignment -2 of target word 1 is out of range"},
        {"alignment not a number", "a\tb\na b\tx y\t0 x1\n", 0, 2, "the alignment \"x1\" is not a number"},
        {"alignment half a number", "a b\tx\t1a\n", 0, 1, "the alignment \"1a\" is not a number"},
        {"alignment overflow", "a b\tx\t99999999999999999999\n", 0, 1, "is not a number"},
        {"four fields", "a\tb\t0\tz\n", 0, 1, "more than three tab-separated fields"},
        {"control character", "a\tb\na\x01 b\tc\n", 0, 2, "control character U+0001 (byte 2 of the line)"},
        {"DEL", "a\x7f\tb\n", 0, 1, "U+007F"},
        {"C1 control", "a\tb\xc2\x85\n", 0, 1, "U+0085"},
        {"carriage return inside", "a\rb\tc\n", 0, 1, "U+000D"},
        {"NUL byte", "a\tb\nc\0d\te\n", 12, 2, "U+0000"},
        {"long line", longline, sizeof longline - 1, 1, "more than 4096"},
        {"empty file", "", 0, 0, "has no sentence pairs"},
        {"only comments", "# x\n\n# y\n", 0, 0, "has no sentence pairs"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const bad_case *b = &cases[k];
        size_t len = b->len ? b->len : strlen(b->text);
        tf_corpus c; tf_err e; int line = -7;
        int rc = tf_corpus_parse(&c, b->text, len, &line, &e);
        if (rc != -1) fail_msg("%s: accepted", b->name);
        if (line != b->line) fail_msg("%s: line %d, want %d (%s)", b->name, line, b->line, e.msg);
        if (!strstr(e.msg, b->phrase)) fail_msg("%s: \"%s\" lacks \"%s\"", b->name, e.msg, b->phrase);
        if (!strchr(e.msg, ';')) fail_msg("%s: \"%s\" does not say what to do", b->name, e.msg);
        assert_int_equal(c.n, 0);
        assert_null(c.p);
    }
}

static void reader_files(void **state) {
    (void)state;
    tf_corpus c; tf_err e; int line = -7;
    char path[256];
    snprintf(path, sizeof path, "%s/none.tsv", test_tmpdir());
    assert_int_equal(tf_corpus_read(&c, path, &line, &e), -1);
    assert_int_equal(line, 0);
    assert_non_null(strstr(e.msg, "cannot open the corpus (No such file or directory)"));
    assert_int_equal(tf_corpus_read(&c, test_tmpdir(), &line, &e), -1); // a folder
    assert_int_equal(line, 0);
    assert_non_null(strstr(e.msg, "Is a directory"));
    snprintf(path, sizeof path, "%s/bad.tsv", test_tmpdir());
    write_file(path, "a\tb\t0\n\n\na b\tc\t5\n", 16);
    assert_int_equal(tf_corpus_read(&c, path, &line, &e), -1);
    assert_int_equal(line, 4);
    assert_non_null(strstr(e.msg, "out of range"));
}

// Random bytes and mutations of a valid file: never a crash, and either a
// corpus whose alignments are in range or an error with a line in the file.
static void reader_survives_garbage(void **state) {
    (void)state;
    tf_rng r;
    tf_rng_seed(&r, 7);
    char *valid = format(&g_held);
    size_t vn = 600; // the first few lines
    char buf[700];
    const char alphabet[] = "ab \t\n-0123456789#\r\xd9\x85\xe2\x80\x8c\xff\x01";
    for (int it = 0; it < 3000; it++) {
        size_t n;
        if (it % 2) {
            n = tf_rng_next(&r) % 200;
            for (size_t i = 0; i < n; i++) buf[i] = alphabet[tf_rng_next(&r) % (sizeof alphabet - 1)];
        } else {
            n = vn;
            memcpy(buf, valid, n);
            for (int m = 0; m < 3; m++) buf[tf_rng_next(&r) % n] = alphabet[tf_rng_next(&r) % (sizeof alphabet - 1)];
        }
        tf_corpus c; tf_err e; int line;
        if (tf_corpus_parse(&c, buf, n, &line, &e) == 0) {
            assert_true(c.n > 0);
            for (int i = 0; i < c.n; i++) {
                int ns = count_words(c.p[i].src);
                assert_int_equal(count_words(c.p[i].tgt), c.p[i].n_tgt);
                for (int k = 0; k < c.p[i].n_tgt; k++) assert_true(c.p[i].align[k] >= -1 && c.p[i].align[k] < ns);
            }
            tf_corpus_free(&c);
        } else {
            assert_true(line >= 0 && line <= (int)n + 1);
            assert_true(strlen(e.msg) > 10);
        }
    }
    free(valid);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(default_sentence_held_out),
        cmocka_unit_test(split_is_clean),
        cmocka_unit_test(held_out_words_known),
        cmocka_unit_test(small_sample_covers_heldout),
        cmocka_unit_test(vocab_case),
        cmocka_unit_test(conjugations),
        cmocka_unit_test(verb_final),
        cmocka_unit_test(zwnj_and_letters),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(reader_accepts),
        cmocka_unit_test(reader_errors),
        cmocka_unit_test(reader_files),
        cmocka_unit_test(reader_survives_garbage),
    };
    return cmocka_run_group_tests_name("corpus", tests, setup, teardown);
}
