// test_corpus.c — the synthetic English→Persian corpus: the word lists and
// their checker, determinism, the default sentence held out, a clean split,
// Persian grammar (the thirty everyday sentences of issue 15 built clause by
// clause, agreement, را, ezafe, ZWNJ, verb-final order), the TSV round trip
// and every way a corpus file can be broken.
#include "testutil.h"
#include "../src/train/corpus.h"
#include "../src/train/lexicon.h"

#include <sys/stat.h>

#define ZWNJ "\xe2\x80\x8c"

static tf_lexicon *g_lx;
static tf_corpus g_train, g_held; // made once

static int setup(void **state) {
    (void)state;
    tf_err e;
    char where[512];
    g_lx = tf_lexicon_load("assets/corpus", where, sizeof where, &e);
    if (!g_lx) { fprintf(stderr, "%s: %s\n", where, e.msg); return -1; }
    if (tf_corpus_generate(&g_train, &g_held, g_lx, 1, &e)) { fprintf(stderr, "%s\n", e.msg); return -1; }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tf_corpus_free(&g_train); tf_corpus_free(&g_held); tf_lexicon_free(g_lx);
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

// ---------------------------------------------------------------- the word lists
static void lists_hold_enough(void **state) {
    (void)state;
    tf_lexicon_info in;
    tf_lexicon_info_get(g_lx, &in);
    print_message("word lists: %d nouns, %d verbs (%d English verbs), %d adjectives, %d names\n", in.nouns, in.verbs,
                  in.verb_bases, in.adjectives, in.names);
    assert_true(in.verb_bases >= 300); // issue 15: 300+ verbs with both Persian stems
    assert_true(in.nouns >= 400);
    for (int i = 0; i < g_lx->n_verbs; i++) { assert_true(g_lx->verbs[i].pres[0]); assert_true(g_lx->verbs[i].past[0]); }
}

typedef struct { int file; const char *text; int line; const char *phrase; } list_case;

static void lists_errors_name_the_line(void **state) {
    (void)state;
    static const char nouns[] = "# c\nbook\tbooks\tکتاب\tکتاب" ZWNJ "ها\ttext,thing\nman\tmen\tمرد\tمردها\tperson\n";
    const list_case cases[] = {
        {LX_NOUNS, "# c\nbook\tbooks\tکتاب\n", 2, "has 3 tab-separated columns, nouns.tsv takes 5"},
        {LX_NOUNS, "book\tbooks\tكتاب\tکتاب‌ها\ttext\n", 1, "Arabic ي or ك"},
        {LX_NOUNS, "book\tbooks\tکتاب\tکتاب ها\ttext\n", 1, "detached ها"},
        {LX_NOUNS, "book\tbooks\tکتاب\tکتاب" ZWNJ "\ttext\n", 1, "ZWNJ next to a space or at its end"},
        {LX_NOUNS, "book\t-\tکتاب\tکتاب‌ها\ttext\n", 1, "a mass noun has - as both plurals"},
        {LX_NOUNS, "\n\nbook\tbooks\tکتاب\tکتاب‌ها\t\n", 3, "column 5 is empty"},
        {LX_NOUNS, "# only a comment\n", 0, "has no entries"},
        {LX_NOUNS, "a  b\tbs\tب\tب‌ها\tx\n", 1, "two in a row"},
        {LX_NOUNS, "a\tb\tc\td\te\xff\n", 1, "not valid UTF-8"},
        {LX_VERBS, "read\treads\tread\tread\treading\t-\tخوان\tخواند\tswim\ttext\t-\n", 1, "the frame \"swim\" is not one tviz knows"},
        {LX_VERBS, "read\treads\tread\tread\treading\t-\tخوان\tخواند\ttr\tmovie\t-\n", 1, "the class \"movie\" is not a class of any noun"},
        {LX_VERBS, "read\treads\tread\tread\treading\t-\tخوان\tخواند\ttr\ttext\tx\n", 1, "the flags \"x\""},
        {LX_VERBS, "read\treads\tread\tread\treading\t-\tمی خوان\tخواند\ttr\ttext\t-\n", 1, "a Persian stem is one word"},
        {LX_VERBS, "read\treads\tread\tread\treading\t-\tخوان\tخواند\ttr:to\ttext\t-\n", 1, "take an English preposition"},
        {LX_TIMES, "every day\tهر روز\t0 2\tpresent\n", 1, "the alignment 2 of Persian word 2 is out of range"},
        {LX_TIMES, "every day\tهر روز\t0\tpresent\n", 1, "has 1 alignment numbers but the Persian has 2 words"},
        {LX_TIMES, "today\tامروز\t0\tsoon\n", 1, "the tense \"soon\""},
        {LX_PRONOUNS, "I\tme\tmy\tam\twas\tمن\tمرا\t1s\tم\tم\t" ZWNJ "ام\tهستم\tنیستم\n", 0, "no 3s or no 3p pronoun"},
        {LX_PRONOUNS, "I\tme\tmy\tam\twas\tمن\tمرا\t4s\tم\tم\t" ZWNJ "ام\tهستم\tنیستم\n", 1, "the person \"4s\""},
        {LX_NAMES, "ali\tعلی\tperson\n", 1, "does not start with a capital"},
        {LX_PREPOSITIONS, "next to\tکنار\t2\tplace\n", 1, "is not one of the English words (0..1)"},
        {LX_ADVERBS, "slowly\tآهسته\tfast\n", 1, "the kind \"fast\""},
        {LX_DETERMINERS, "a\tیک\tsg\tsg\tmaybe\n", 1, "the definiteness \"maybe\""},
        {LX_PHRASES, "Hello\tسلام\t1\n", 1, "the alignment 1 of Persian word 1 is out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tf_lexicon *lx = tf_lexicon_new();
        tf_err e; int line = -1;
        assert_int_equal(tf_lexicon_parse(lx, LX_NOUNS, nouns, strlen(nouns), &line, &e), 0); // the classes
        int rc = tf_lexicon_parse(lx, cases[i].file, cases[i].text, strlen(cases[i].text), &line, &e);
        if (rc != -1) fail_msg("case %zu (%s) was accepted", i, cases[i].phrase);
        if (line != cases[i].line) fail_msg("case %zu: line %d, want %d (%s)", i, line, cases[i].line, e.msg);
        if (!strstr(e.msg, cases[i].phrase)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, e.msg, cases[i].phrase);
        assert_null(strchr(e.msg, '\n'));
        if (!strchr(e.msg, ';')) fail_msg("case %zu: \"%s\" does not say what to do", i, e.msg); // what is wrong; what to do
        tf_lexicon_free(lx);
    }
}

static void lists_load_names_file_and_line(void **state) {
    (void)state;
    char dir[256], path[300], where[512];
    snprintf(dir, sizeof dir, "%s/lists", test_tmpdir());
    mkdir(dir, 0777);
    for (int f = 0; tf_lexicon_file(f); f++) { // copy the shipped lists
        size_t n = 0;
        char src[300];
        snprintf(src, sizeof src, "assets/corpus/%s", tf_lexicon_file(f));
        char *t = read_file(src, &n);
        assert_non_null(t);
        snprintf(path, sizeof path, "%s/%s", dir, tf_lexicon_file(f));
        if (f == LX_ADJECTIVES) { // a line with a column too many
            const char *bad = "# header\ngood\tخوب\t*\nbad\tبد\t*\tone too many\n";
            write_file(path, bad, strlen(bad));
        } else write_file(path, t, n);
        free(t);
    }
    tf_err e;
    assert_null(tf_lexicon_load(dir, where, sizeof where, &e));
    snprintf(path, sizeof path, "%s/adjectives.tsv:3", dir);
    assert_string_equal(where, path);
    assert_non_null(strstr(e.msg, "has 4 tab-separated columns, adjectives.tsv takes 3"));
    snprintf(path, sizeof path, "%s/verbs.tsv", dir);
    unlink(path);
    assert_null(tf_lexicon_load(dir, where, sizeof where, &e));
    assert_string_equal(where, path);
    assert_non_null(strstr(e.msg, "cannot open the word list"));
}

// ---------------------------------------------------------------- generation
static void sizes(void **state) {
    (void)state;
    print_message("train %d, heldout %d\n", g_train.n, g_held.n);
    assert_int_equal(g_train.n >= TF_CORPUS_TRAIN_MAX && g_train.n < TF_CORPUS_TRAIN_MAX + 50, 1);
    assert_true(g_held.n >= 1000 && g_held.n <= TF_CORPUS_HELDOUT_MAX);
    const tf_corpus *cs[2] = {&g_train, &g_held};
    int bucket[2][7] = {{0}}, longest = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < cs[k]->n; i++) {
            const tf_pair *p = &cs[k]->p[i];
            int ns = count_words(p->src);
            assert_true(ns >= 1);
            if (ns > longest) longest = ns;
            bucket[k][ns <= 5 ? 0 : ns <= 10 ? 1 : ns <= 15 ? 2 : ns <= 20 ? 3 : ns <= 30 ? 4 : 5]++;
            bucket[k][6] += ns == 1;
            assert_int_equal(count_words(p->tgt), p->n_tgt);
            assert_true(p->n_tgt >= 1);
            assert_null(strstr(p->src, "  "));
            for (int j = 0; j < p->n_tgt; j++) assert_true(p->align[j] >= -1 && p->align[j] < ns);
        }
    print_message("source lengths 1-5 %d, 6-10 %d, 11-15 %d, 16-20 %d, 21-30 %d, 31+ %d (train); held out 21-30: %d; longest %d\n",
                  bucket[0][0], bucket[0][1], bucket[0][2], bucket[0][3], bucket[0][4], bucket[0][5], bucket[1][4], longest);
    assert_true(bucket[0][6] > 0);          // one-word sentences ("Hello")
    assert_true(bucket[0][4] >= 2000);      // enough long ones to learn from
    assert_true(bucket[1][4] >= 100);       // and to measure accuracy on by length
    assert_true(longest > 30);
    char *sv = tf_corpus_vocab(&g_train, 0), *tv = tf_corpus_vocab(&g_train, 1);
    tf_vocab a, b; tf_err e;
    if (tf_vocab_parse(&a, sv, "source vocabulary", &e)) fail_msg("%s", e.msg);
    if (tf_vocab_parse(&b, tv, "target vocabulary", &e)) fail_msg("%s", e.msg);
    print_message("vocabulary: source %d, target %d\n", a.n, b.n);
    assert_true(a.n >= 2000 + 4); // issue 15: at least 2,000 English word types
    assert_true(b.n >= 2000 + 4);
    assert_int_equal(a.pad, 0); assert_int_equal(a.unk, 1); assert_int_equal(a.bos, 2); assert_int_equal(a.eos, 3);
    assert_int_equal(b.pad, 0); assert_int_equal(b.unk, 1); assert_int_equal(b.bos, 2); assert_int_equal(b.eos, 3);
    tf_vocab_free(&a); tf_vocab_free(&b); free(sv); free(tv);
}

static void deterministic(void **state) {
    (void)state;
    tf_corpus t2, h2, t3, h3; tf_err e;
    assert_int_equal(tf_corpus_generate(&t2, &h2, g_lx, 1, &e), 0);
    assert_int_equal(tf_corpus_generate(&t3, &h3, g_lx, 2, &e), 0);
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
    const tf_corpus *cs[2] = {&g_train, &g_held};
    for (int k = 0; k < 2; k++) { // no source sentence twice
        const char **srcs = malloc(sizeof(char *) * (size_t)cs[k]->n);
        assert_non_null(srcs);
        for (int i = 0; i < cs[k]->n; i++) srcs[i] = cs[k]->p[i].src;
        qsort(srcs, (size_t)cs[k]->n, sizeof *srcs, cmp_str);
        for (int i = 1; i < cs[k]->n; i++) // set phrases only, each TF_CORPUS_PHRASE_TIMES times
            if (!strcmp(srcs[i - 1], srcs[i]) && (k || lx_find_phrase(g_lx, srcs[i]) < 0)) fail_msg("\"%s\" twice", srcs[i]);
        free(srcs);
    }
    // set phrases are taught, never held out
    for (int i = 0; i < g_lx->n_phrases; i++) assert_null(find(&g_held, g_lx->phrases[i].en));
    assert_non_null(find(&g_train, "Thank you"));
    for (int i = 0; i < g_lx->n_phrases; i++) {
        int times = 0;
        for (int j = 0; j < g_train.n; j++) times += !strcmp(g_train.p[j].src, g_lx->phrases[i].en);
        if (times != TF_CORPUS_PHRASE_TIMES) fail_msg("\"%s\" is in train %d times", g_lx->phrases[i].en, times);
    }
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

// A small sample: train must take in the sentences that bring the default sentence's words.
static void small_sample_covers_heldout(void **state) {
    (void)state;
    tf_corpus tr, ho; tf_err e;
    assert_int_equal(tf_corpus_generate_n(&tr, &ho, g_lx, 5, 100, 50, &e), 0);
    assert_true(ho.n >= 1 && ho.n <= 50);
    assert_string_equal(ho.p[0].src, TF_CORPUS_DEFAULT_SRC);
    assert_true(tr.n >= 100 && tr.n < 150); // a few more than asked: the default sentence's words
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
    assert_string_equal(voc.tok[tf_vocab_find(&voc, "He")], "he"); // "he" starts later clauses too
    tf_vocab_free(&voc);
    free(v);
}

// ---------------------------------------------------------------- Persian, clause by clause
static lx_np np_pron(const char *en) {
    lx_np n = {NP_PRONOUN, lx_find_pronoun(g_lx, en), -1, 0, -1, -1, -1, NULL, -1, -1, NULL};
    if (n.id < 0) fail_msg("no pronoun \"%s\"", en);
    n.plural = g_lx->prons[n.id].person >= 3;
    return n;
}

static lx_np np_name(const char *en) {
    lx_np n = {NP_NAME, lx_find_name(g_lx, en), -1, 0, -1, -1, -1, NULL, -1, -1, NULL};
    if (n.id < 0) fail_msg("no name \"%s\"", en);
    return n;
}

// det: "the", "a", "many", … or a possessive ("my", "his"), NULL for none.
static lx_np np_noun(const char *det, const char *adj, const char *noun, int plural) {
    lx_np n = {NP_NOUN, lx_find_noun(g_lx, noun), -1, plural, -1, -1, -1, NULL, -1, -1, NULL};
    if (n.id < 0) fail_msg("no noun \"%s\"", noun);
    if (det) {
        n.det = lx_find_det(g_lx, det, plural);
        for (int i = 0; n.det < 0 && i < g_lx->n_prons; i++) if (!strcmp(g_lx->prons[i].en_poss, det)) n.poss = i;
        if (n.det < 0 && n.poss < 0) fail_msg("no determiner \"%s\"", det);
    }
    if (adj && (n.adj = lx_find_adj(g_lx, adj)) < 0) fail_msg("no adjective \"%s\"", adj);
    return n;
}

static lx_clause clause(int kind, int tense, const char *verb, int frame) {
    lx_clause c;
    memset(&c, 0, sizeof c);
    c.verb = c.adj = c.adv = c.manner = c.time = c.phrase = c.prep = -1;
    c.kind = kind;
    c.tense = tense;
    c.obj.type = c.obj2.type = NP_NONE;
    if (verb && (c.verb = lx_find_verb(g_lx, verb, frame)) < 0) fail_msg("no verb \"%s\" of frame %d", verb, frame);
    return c;
}

static void expect(const lx_clause *c, const char *src, const char *tgt, const int *al, int n) {
    lx_sentence *s = calloc(1, sizeof *s);
    char es[1024], fs[2048];
    assert_int_equal(lx_build(s, g_lx, c), 0);
    lx_join(s, es, sizeof es, fs, sizeof fs);
    if (strcmp(es, src)) fail_msg("made \"%s\", want \"%s\"", es, src);
    if (strcmp(fs, tgt)) fail_msg("\"%s\" -> \"%s\", want \"%s\"", src, fs, tgt);
    if (al) {
        if (s->nf != n) fail_msg("\"%s\": %d Persian words, want %d", src, s->nf, n);
        for (int i = 0; i < n; i++)
            if (s->al[i] != al[i]) fail_msg("\"%s\": alignment of Persian word %d (%s) is %d, want %d", src, i, s->fa[i], s->al[i], al[i]);
    }
    free(s);
}
#define EXPECT(c, src, tgt, ...) do { int al_[] = {__VA_ARGS__}; expect(c, src, tgt, al_, (int)(sizeof al_ / sizeof *al_)); } while (0)

// The thirty sentences of tests/fixtures/everyday.tsv, each made by the grammar
// from the word lists, with its reference Persian and word alignment.
static void everyday_sentences(void **state) {
    (void)state;
    lx_clause c;
    c = clause(CL_VERB, LX_PRESENT, "love", FR_LIKE); c.subj = np_pron("I"); c.obj = np_pron("you");
    EXPECT(&c, "I love you", "من شما را دوست دارم", 0, 2, 2, 1, 1);
    c = clause(CL_VERB, LX_PAST, "sit", FR_IN); c.subj = np_noun("the", NULL, "cat", 0);
    c.prep = lx_find_prep(g_lx, "on"); c.place = np_noun("the", NULL, "mat", 0);
    EXPECT(&c, "The cat sat on the mat", "گربه روی حصیر نشست", 1, 3, 5, 2);
    c = clause(CL_VERB, LX_PRESENT, "love", FR_LIKE); c.subj = np_pron("I");
    c.obj = (lx_np){NP_GERUND, lx_find_gerund(g_lx, "learning"), -1, 1, -1, -1, -1, NULL, lx_find_noun(g_lx, "language"), -1, NULL};
    EXPECT(&c, "I love learning languages", "من یادگیری زبان" ZWNJ "ها را دوست دارم", 0, 2, 3, -1, 1, 1);
    c = clause(CL_BE_NOUN, LX_BE, NULL, 0); c.subj = np_pron("we"); c.obj = np_noun(NULL, NULL, "student", 0);
    EXPECT(&c, "We are students", "ما دانشجو هستیم", 0, 2, 1);
    c = clause(CL_VERB, LX_PRESENT, "explain", FR_TR); c.subj = np_noun("the", NULL, "teacher", 0); c.obj = np_noun(NULL, NULL, "attention", 0);
    EXPECT(&c, "The teacher explains attention", "معلم توجه را توضیح می" ZWNJ "دهد", 1, 3, -1, 2, 2);
    c = clause(CL_VERB, LX_PRESENT, "read", FR_TR); c.subj = np_noun("my", NULL, "friend", 0); c.obj = np_noun("a", NULL, "book", 0);
    c.time = lx_find_time(g_lx, "every day");
    EXPECT(&c, "My friend reads a book every day", "دوست من هر روز یک کتاب می" ZWNJ "خواند", 1, 0, 5, 6, 3, 4, 2);
    c = clause(CL_WHERE_BE, LX_BE, NULL, 0); c.subj = np_noun("the", NULL, "library", 0);
    EXPECT(&c, "Where is the library?", "کتابخانه کجاست؟", 3, 0, 4);
    c = clause(CL_BE_ADJ, LX_BE, NULL, 0); c.subj = np_noun("the", NULL, "weather", 0); c.adj = lx_find_adj(g_lx, "nice");
    c.time = lx_find_time(g_lx, "today");
    EXPECT(&c, "The weather is nice today", "هوا امروز خوب است", 1, 4, 3, 2);
    c = clause(CL_VERB, LX_PRESENT, "like", FR_LIKE); c.neg = 1; c.subj = np_pron("she"); c.obj = np_noun(NULL, NULL, "coffee", 0);
    EXPECT(&c, "She does not like coffee", "او قهوه را دوست ندارد", 0, 4, -1, 3, 3);
    c = clause(CL_VERB, LX_FUTURE, "travel", FR_GO); c.subj = np_pron("they"); c.obj2 = np_name("Tehran");
    c.time = lx_find_time(g_lx, "next week");
    EXPECT(&c, "They will travel to Tehran next week", "آن" ZWNJ "ها هفته" ZWNJ "ی آینده به تهران سفر خواهند کرد", 0, 6, 5, 3, 4, 2, 1, 2);
    c = clause(CL_VERB, LX_PROGRESSIVE, "learn", FR_TR); c.subj = np_pron("I"); c.obj = np_noun(NULL, NULL, "machine translation", 0);
    EXPECT(&c, "I am learning machine translation", "من دارم ترجمه" ZWNJ "ی ماشینی را یاد می" ZWNJ "گیرم", 0, 1, 4, 4, -1, 2, 2);
    c = clause(CL_VERB, LX_PROGRESSIVE, "play", FR_IN); c.subj = np_noun("the", NULL, "child", 1);
    c.prep = lx_find_prep(g_lx, "in"); c.place = np_noun("the", NULL, "garden", 0);
    EXPECT(&c, "The children are playing in the garden", "بچه" ZWNJ "ها دارند در باغ بازی می" ZWNJ "کنند", 1, 2, 4, 6, 3, 3);
    c = clause(CL_VERB, LX_PRESENT, "help", FR_BE); c.modal = MOD_CAN; c.question = Q_YESNO; c.subj = np_pron("you"); c.obj = np_pron("I");
    EXPECT(&c, "Can you help me?", "آیا شما می" ZWNJ "توانید به من کمک کنید؟", 0, 1, 0, 2, 3, 2, 2, 4);
    c = clause(CL_VERB, LX_PAST, "write", FR_GIVE); c.subj = np_pron("he"); c.obj = np_noun("a", "long", "letter", 0);
    c.obj2 = np_noun("his", NULL, "mother", 0); c.to_form = 1;
    EXPECT(&c, "He wrote a long letter to his mother", "او به مادر او یک نامه" ZWNJ "ی طولانی نوشت", 0, 5, 7, 6, 2, 4, 3, 1);
    c = clause(CL_VERB, LX_PRESENT, "translate", FR_GIVE); c.subj = np_noun("this", NULL, "model", 0); c.obj = np_name("English");
    c.obj2 = np_name("Persian"); c.to_form = 1;
    EXPECT(&c, "This model translates English into Persian", "این مدل انگلیسی را به فارسی ترجمه می" ZWNJ "کند", 0, 1, 3, -1, 4, 5, 2, 2);
    c = clause(CL_VERB, LX_PAST, "walk", FR_GO); c.subj = np_noun("the", "old", "man", 0); c.manner = lx_find_adverb(g_lx, "slowly");
    c.obj2 = np_noun("the", NULL, "station", 0);
    EXPECT(&c, "The old man walked slowly to the station", "مرد پیر آهسته به ایستگاه پیاده رفت", 2, 1, 4, 5, 7, 3, 3);
    c = clause(CL_VERB, LX_PAST, "understand", FR_TR); c.neg = 1; c.subj = np_pron("I"); c.obj = np_noun("the", NULL, "question", 0);
    EXPECT(&c, "I did not understand the question", "من سؤال را نفهمیدم", 0, 5, -1, 3);
    c = clause(CL_PHRASE, 0, NULL, 0); c.phrase = lx_find_phrase(g_lx, "Attention is all you need");
    EXPECT(&c, "Attention is all you need", "توجه تمام چیزی است که نیاز دارید", 0, 2, 2, 1, -1, 4, 4);
    c = clause(CL_VERB, LX_PRESENT, "start", FR_IN); c.subj = np_noun("our", NULL, "class", 0); c.time = lx_find_time(g_lx, "at nine");
    EXPECT(&c, "Our class starts at nine", "کلاس ما ساعت نه شروع می" ZWNJ "شود", 1, 0, 3, 4, 2, 2);
    c = clause(CL_VERB, LX_PAST, "ask", FR_TR); c.subj = np_noun("the", NULL, "student", 1); c.obj = np_noun("many", "good", "question", 1);
    EXPECT(&c, "The students asked many good questions", "دانشجوها تعداد زیادی سؤال خوب پرسیدند", 1, 3, 3, 5, 4, 2);
    lx_np sea = np_noun("the", NULL, "sea", 0);
    c = clause(CL_VERB, LX_PRESENT, "live", FR_IN); c.subj = np_noun("my", NULL, "sister", 0);
    c.prep = lx_find_prep(g_lx, "in"); c.place = np_noun("a", "small", "house", 0); c.place.prep = lx_find_prep(g_lx, "near"); c.place.pp = &sea;
    EXPECT(&c, "My sister lives in a small house near the sea", "خواهر من در یک خانه" ZWNJ "ی کوچک نزدیک دریا زندگی می" ZWNJ "کند",
           1, 0, 3, 4, 6, 5, 7, 9, 2, 2);
    c = clause(CL_PHRASE, 0, NULL, 0); c.phrase = lx_find_phrase(g_lx, "What is your name?");
    EXPECT(&c, "What is your name?", "اسم شما چیست؟", 3, 2, 0, 4);
    c = clause(CL_VERB, LX_PRESENT, "enjoy", FR_AZ); c.subj = np_pron("I"); c.adv = lx_find_adverb(g_lx, "really");
    c.obj = (lx_np){NP_GERUND, lx_find_gerund(g_lx, "learning"), -1, 1, -1, -1, -1, NULL, lx_find_noun(g_lx, "transformer"), -1, NULL};
    EXPECT(&c, TF_CORPUS_DEFAULT_SRC, TF_CORPUS_DEFAULT_TGT, 0, 1, 2, 3, 4, 2, 2);
    c = clause(CL_PHRASE, 0, NULL, 0); c.phrase = lx_find_phrase(g_lx, "The sun rises in the east");
    EXPECT(&c, "The sun rises in the east", "خورشید از شرق طلوع می" ZWNJ "کند", 1, 3, 5, 2, 2);
    c = clause(CL_VERB, LX_PAST, "watch", FR_TR); c.subj = np_pron("we"); c.obj = np_noun("a", NULL, "movie", 0);
    c.time = lx_find_time(g_lx, "last night");
    EXPECT(&c, "We watched a movie last night", "ما دیشب یک فیلم تماشا کردیم", 0, 5, 2, 3, 1, 1);
    c = clause(CL_VERB, LX_PROGRESSIVE, "sleep", FR_IN); c.subj = np_noun("the", NULL, "dog", 0);
    c.prep = lx_find_prep(g_lx, "under"); c.place = np_noun("the", NULL, "table", 0);
    EXPECT(&c, "The dog is sleeping under the table", "سگ دارد زیر میز می" ZWNJ "خوابد", 1, 2, 4, 6, 3);
    c = clause(CL_MAKES, LX_PRESENT, NULL, 0);
    c.subj = (lx_np){NP_GERUND, lx_find_gerund(g_lx, "reading"), -1, 1, -1, -1, -1, NULL, lx_find_noun(g_lx, "book"), -1, NULL};
    c.obj = np_pron("I"); c.adj = lx_find_adj(g_lx, "happy");
    EXPECT(&c, "Reading books makes me happy", "خواندن کتاب" ZWNJ "ها مرا خوشحال می" ZWNJ "کند", 0, 1, 3, 4, 2);
    c = clause(CL_BE_PLACE, LX_BE, NULL, 0); c.subj = np_noun("the", NULL, "computer", 0);
    c.prep = lx_find_prep(g_lx, "on"); c.place = np_noun("the", NULL, "desk", 0);
    EXPECT(&c, "The computer is on the desk", "کامپیوتر روی میز است", 1, 3, 5, 2);
    c = clause(CL_IMPERATIVE, LX_PRESENT, "open", FR_TR); c.please = 1; c.subj = np_pron("you"); c.obj = np_noun("the", NULL, "window", 0);
    EXPECT(&c, "Please open the window", "لطفاً پنجره را باز کنید", 0, 3, -1, 1, 1);
    c = clause(CL_VERB, LX_PAST, "give", FR_GIVE); c.subj = np_noun("the", NULL, "boy", 0); c.obj = np_noun("a", NULL, "flower", 0);
    c.obj2 = np_noun("the", NULL, "girl", 0);
    EXPECT(&c, "The boy gave the girl a flower", "پسر به دختر یک گل داد", 1, 2, 4, 5, 6, 2);
}

// The same sentences in the fixture file, word for word, and every word of
// both sides one the corpus teaches (no <unk> for a word-level model).
static void everyday_fixture(void **state) {
    (void)state;
    tf_corpus fx; tf_err e; int line;
    if (tf_corpus_read(&fx, "tests/fixtures/everyday.tsv", &line, &e)) fail_msg("everyday.tsv:%d: %s", line, e.msg);
    assert_int_equal(fx.n, 30);
    char *sv = tf_corpus_vocab(&g_train, 0);
    tf_vocab voc;
    assert_int_equal(tf_vocab_parse(&voc, sv, "source vocabulary", &e), 0);
    int missing = 0;
    for (int i = 0; i < fx.n; i++) {
        char **w;
        int n = tf_split_words(fx.p[i].src, &w, &e);
        for (int k = 0; k < n; k++) if (tf_vocab_find(&voc, w[k]) < 0) { print_message("not in train: \"%s\" (%s)\n", w[k], fx.p[i].src); missing++; }
        tf_words_free(w, n);
    }
    assert_int_equal(missing, 0);
    assert_string_equal(fx.p[22].src, TF_CORPUS_DEFAULT_SRC);
    assert_string_equal(fx.p[22].tgt, TF_CORPUS_DEFAULT_TGT);
    tf_vocab_free(&voc); free(sv); tf_corpus_free(&fx);
}

static void more_forms(void **state) {
    (void)state;
    lx_clause c;
    c = clause(CL_VERB, LX_PERFECT, "read", FR_TR); c.subj = np_pron("I"); c.obj = np_noun("the", NULL, "book", 0);
    EXPECT(&c, "I have read the book", "من کتاب را خوانده" ZWNJ "ام", 0, 4, -1, 2);
    c = clause(CL_VERB, LX_PERFECT, "read", FR_TR); c.neg = 1; c.subj = np_pron("she"); c.obj = np_noun("the", NULL, "book", 1);
    EXPECT(&c, "She has not read the books", "او کتاب" ZWNJ "ها را نخوانده است", 0, 5, -1, 3, 1);
    c = clause(CL_IMPERATIVE, LX_PRESENT, "open", FR_TR); c.neg = 1; c.subj = np_pron("you"); c.obj = np_noun("the", NULL, "door", 0);
    EXPECT(&c, "Do not open the door", "در را باز نکنید", 4, -1, 2, 2);
    c = clause(CL_IMPERATIVE, LX_PRESENT, "read", FR_TR); c.subj = np_pron("you"); c.obj = np_noun("this", NULL, "letter", 0);
    EXPECT(&c, "Read this letter", "این نامه را بخوانید", 1, 2, -1, 0);
    c = clause(CL_VERB, LX_FUTURE, "come", FR_GO); c.neg = 1; c.subj = np_pron("we");
    EXPECT(&c, "We will not come", "ما نخواهیم آمد", 0, 1, 3);
    c = clause(CL_VERB, LX_PAST, "come", FR_GO); c.neg = 1; c.subj = np_pron("they");
    EXPECT(&c, "They did not come", "آن" ZWNJ "ها نیامدند", 0, 3);
    c = clause(CL_VERB, LX_PAST, "fall", FR_IN); c.neg = 1; c.subj = np_name("Ali");
    EXPECT(&c, "Ali did not fall", "علی نیفتاد", 0, 3);
    c = clause(CL_VERB, LX_PRESENT, "live", FR_IN); c.question = Q_WHERE; c.subj = np_pron("you");
    EXPECT(&c, "Where do you live?", "شما کجا زندگی می" ZWNJ "کنید؟", 2, 0, 3, 3, 4);
    c = clause(CL_VERB, LX_PRESENT, "like", FR_LIKE); c.subj = np_pron("I"); c.obj = np_noun("my", "small", "house", 0);
    EXPECT(&c, "I like my small house", "من خانه" ZWNJ "ی کوچک من را دوست دارم", 0, 4, 3, 2, -1, 1, 1);
    c = clause(CL_VERB, LX_PRESENT, "see", FR_TR); c.subj = np_name("Ali"); c.obj = np_name("Sara");
    EXPECT(&c, "Ali sees Sara", "علی سارا را می" ZWNJ "بیند", 0, 2, -1, 1);
    c = clause(CL_VERB, LX_PRESENT, "see", FR_TR); c.subj = np_name("Sara"); c.obj = np_name("Ali");
    EXPECT(&c, "Sara sees Ali", "سارا علی را می" ZWNJ "بیند", 0, 2, -1, 1);
    c = clause(CL_VERB, LX_PRESENT, "read", FR_TR); c.subj = np_noun("the", NULL, "man", 0); c.obj = np_noun(NULL, NULL, "book", 1);
    c.subj.rel_verb = lx_find_verb(g_lx, "live", FR_IN);
    EXPECT(&c, "The man who lives reads books", "مردی که زندگی می" ZWNJ "کند کتاب می" ZWNJ "خواند", 1, 2, 3, 3, 5, 4);
    c = clause(CL_VERB, LX_PRESENT, "read", FR_TR); c.subj = np_pron("I"); c.obj = np_noun("the", "big", "book", 1);
    EXPECT(&c, "I read the big books", "من کتاب" ZWNJ "های بزرگ را می" ZWNJ "خوانم", 0, 4, 3, -1, 1);
    c = clause(CL_BE_ADJ, LX_BE_PAST, NULL, 0); c.neg = 1; c.subj = np_pron("they"); c.adj = lx_find_adj(g_lx, "tired");
    EXPECT(&c, "They were not tired", "آن" ZWNJ "ها خسته نبودند", 0, 3, 1);
    c = clause(CL_VERB, LX_PRESENT, "speak", FR_TR); c.subj = np_name("Sara"); c.obj = np_name("Persian");
    EXPECT(&c, "Sara speaks Persian", "سارا فارسی صحبت می" ZWNJ "کند", 0, 2, 1, 1);
}

// Every word form the English verbs take, and "be".
static int is_verb_form(const char *w) {
    static const char *be[] = {"am", "is", "are", "was", "were", "be", "makes", "made", NULL};
    char low[64];
    snprintf(low, sizeof low, "%s", w);
    low[0] = (char)(low[0] >= 'A' && low[0] <= 'Z' ? low[0] + 32 : low[0]);
    for (int i = 0; be[i]; i++) if (!strcmp(low, be[i])) return 1;
    for (int i = 0; i < g_lx->n_verbs; i++)
        for (int k = 0; k < 5; k++) {
            const char *f = g_lx->verbs[i].en[k];
            if (!strncmp(f, low, strlen(low)) && (!f[strlen(low)] || f[strlen(low)] == ' ')) return 1;
        }
    return 0;
}

// Persian is verb-final: the last word of every sentence (before ؟) that is
// not a set phrase translates a verb or "be".
static void verb_final(void **state) {
    (void)state;
    tf_err e;
    int checked = 0;
    for (int i = 0; i < g_train.n; i++) {
        const tf_pair *p = &g_train.p[i];
        if (lx_find_phrase(g_lx, p->src) >= 0) continue;
        char **w;
        int n = tf_split_words(p->src, &w, &e), k = p->n_tgt - 1;
        if (p->align[k] == n - 1 && !strcmp(w[n - 1], "?")) k--;
        int last = p->align[k];
        if (last < 0 || last >= n) fail_msg("\"%s\": the last Persian word has no English word", p->src);
        if (!is_verb_form(w[last]) && strcmp(w[last], "where") && strcmp(w[last], "Where") && strcmp(w[last], "will"))
            fail_msg("\"%s\" -> \"%s\": the last Persian word translates \"%s\", not a verb", p->src, p->tgt, w[last]);
        checked++;
        tf_words_free(w, n);
    }
    assert_true(checked > 25000);
}

static void zwnj_and_letters(void **state) {
    (void)state;
    int n_mi = 0;
    for (int i = 0; i < g_train.n; i++) {
        const char *t = g_train.p[i].tgt;
        assert_null(strstr(t, "\xd9\x8a")); // Arabic yeh ي
        assert_null(strstr(t, "\xd9\x83")); // Arabic kaf ك
        assert_null(strstr(t, " ها ")); // never a detached plural
        assert_false(strlen(t) > 5 && !strcmp(t + strlen(t) - 5, " ها"));
        for (const char *p = strstr(t, "می"); p; p = strstr(p + 1, "می")) {
            if (p != t && p[-1] != ' ') continue; // inside a word
            const char *after = p + strlen("می");
            if (*after == ' ' || !*after) continue;
            if (!strncmp(after, "ز", 2) || !strncmp(after, "و", 2) ||
                !strncmp(after, "م", 2) || !strncmp(after, "د", 2) || !strncmp(after, "ن", 2)) continue; // میز, میوه, میمون, میدان, مینا
            if (strncmp(after, ZWNJ, 3)) fail_msg("\"%s\": می not joined by a ZWNJ", t);
            n_mi++;
        }
        assert_null(strstr(t, ZWNJ " "));
        assert_null(strstr(t, " " ZWNJ));
    }
    assert_true(n_mi > 5000);
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
        cmocka_unit_test(lists_hold_enough),
        cmocka_unit_test(lists_errors_name_the_line),
        cmocka_unit_test(lists_load_names_file_and_line),
        cmocka_unit_test(sizes),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(default_sentence_held_out),
        cmocka_unit_test(split_is_clean),
        cmocka_unit_test(held_out_words_known),
        cmocka_unit_test(small_sample_covers_heldout),
        cmocka_unit_test(vocab_case),
        cmocka_unit_test(everyday_sentences),
        cmocka_unit_test(everyday_fixture),
        cmocka_unit_test(more_forms),
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
