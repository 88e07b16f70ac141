// test_bpe.c — subword pieces (paper §5.1): merges read from text and their
// mistakes, words split into "@@"-marked pieces and joined back, merges
// learned from a corpus (the example of Sennrich et al.), a subword
// vocabulary that leaves no word of known letters <unk>, merges kept in the
// model file, and word-level models untouched.
#include "testutil.h"
#include "../src/train/train.h"

static char *pieces_of(const tf_bpe *b, const char *word) {
    char **p; tf_err e;
    int n = tf_bpe_word(b, word, &p, &e);
    if (n < 1) fail_msg("%s: %s", word, e.msg);
    char *s = calloc(256, 1);
    for (int i = 0; i < n; i++) { strcat(s, i ? " " : ""); strcat(s, p[i]); }
    tf_words_free(p, n);
    return s;
}
#define PIECES(b, word, want) do { char *got_ = pieces_of(b, word); assert_string_equal(got_, want); free(got_); } while (0)

static const char *MERGES = "#version: 0.2\nl o\nlo w</w>\ne r</w>\nn e\r\nne w\n";

static void split_words(void **s) {
    (void)s;
    tf_bpe b; tf_err e;
    assert_int_equal(tf_bpe_parse(&b, MERGES, "merges", &e), 0);
    assert_int_equal(b.n, 5); // the #version line is not a merge, \r is dropped
    assert_int_equal(tf_bpe_rank(&b, "l", "o"), 0);
    assert_int_equal(tf_bpe_rank(&b, "ne", "w"), 4);
    assert_int_equal(tf_bpe_rank(&b, "o", "l"), -1);
    PIECES(&b, "low", "low");              // l o w</w> -> lo w</w> -> low</w>
    PIECES(&b, "lower", "lo@@ w@@ er");    // lo w e r</w> -> lo w er</w>: w is not the end here
    PIECES(&b, "newer", "new@@ er");       // n e w er</w> -> ne w -> new
    PIECES(&b, "x", "x");
    PIECES(&b, "zzz", "z@@ z@@ z");        // never seen: its letters, never <unk>
    PIECES(&b, "یادگیری", "ی@@ ا@@ د@@ گ@@ ی@@ ر@@ ی"); // code points, not bytes
    char **t;
    int n = tf_tokens(&b, "lower, newer!", &t, &e);
    assert_int_equal(n, 7);                  // lo@@ w@@ er , new@@ er !
    assert_string_equal(t[3], ",");          // punctuation is a word of its own
    char *joined = tf_join_tokens(t, n);
    assert_string_equal(joined, "lower , newer !"); // pieces joined back into their words
    free(joined);
    tf_words_free(t, n);
    n = tf_tokens(NULL, "lower newer", &t, &e); // no merges: words
    assert_int_equal(n, 2);
    assert_string_equal(t[0], "lower");
    tf_words_free(t, n);
    tf_bpe_free(&b);
}

typedef struct { const char *text; const char *phrase; } bad_merges;

static void parse_errors(void **s) {
    (void)s;
    const bad_merges cases[] = {
        {"a b\nab\n", "merges line 2 (\"ab\") is not two pieces separated by one space"},
        {"a b c\n", "merges line 1 (\"a b c\") is not two pieces"},
        {" b\n", "line 1 (\" b\") is not two pieces"},
        {"a \n", "line 1 (\"a \") is not two pieces"},
        {"a b\n\nc d\n", "line 2 (\"\") is not two pieces"},
        {"a\tb c\n", "line 1 (\"a\\tb c\") is not two pieces"},
        {"a b\nc d\na b\n", "line 3 (\"a b\") repeats merge 1"},
        {"", "has no merges"},
        {"#version: 0.2\n", "has no merges"},
        {"a \xff\n", "not valid UTF-8 (byte 3)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tf_bpe b; tf_err e;
        if (tf_bpe_parse(&b, cases[i].text, "merges", &e) != -1) fail_msg("case %zu accepted", i);
        if (!strstr(e.msg, cases[i].phrase)) fail_msg("case %zu: \"%s\" does not say \"%s\"", i, e.msg, cases[i].phrase);
        assert_non_null(strchr(e.msg, ';'));
        assert_null(strchr(e.msg, '\n'));
        assert_int_equal(b.n, 0);
    }
}

// The example of Sennrich et al. (2016): low ×5, lower ×2, newest ×6, widest ×3.
static void learn_merges(void **s) {
    (void)s;
    tf_corpus c = {0}; tf_err e;
    const char *words[] = {"low", "low", "low", "low", "low", "lower", "lower", "newest", "newest", "newest", "newest",
                           "newest", "newest", "widest", "widest", "widest"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) assert_int_equal(tf_corpus_add(&c, words[i], "x", NULL, &e), 0);
    char *m = tf_bpe_learn(&c, 0, 4, &e);
    assert_non_null(m);
    // e s (9, before s t</w> by order), es t</w> (9), l o (7), e w (6, before n e and w est</w>)
    assert_string_equal(m, "e s\nes t</w>\nl o\ne w\n");
    free(m);
    m = tf_bpe_learn(&c, 0, 100, &e); // stops when no pair is seen twice
    tf_bpe b;
    assert_int_equal(tf_bpe_parse(&b, m, "merges", &e), 0);
    assert_true(b.n < 100);
    PIECES(&b, "newest", "newest");
    PIECES(&b, "lowest", "low@@ est"); // a word never seen, from pieces that were
    // the vocabulary: every piece of every word of these letters is in it
    char *v = tf_bpe_vocab(&c, 0, &b);
    tf_vocab voc;
    assert_int_equal(tf_vocab_parse(&voc, v, "vocabulary", &e), 0);
    assert_int_equal(voc.unk, 1);
    const char *unseen[] = {"lowest", "slow", "wider", "newer", "dew", "tiles", "sweet", "o"};
    for (size_t i = 0; i < sizeof unseen / sizeof *unseen; i++) {
        char **p;
        int n = tf_bpe_word(&b, unseen[i], &p, &e);
        for (int k = 0; k < n; k++) if (tf_vocab_find(&voc, p[k]) < 0) fail_msg("\"%s\": piece \"%s\" is not in the vocabulary", unseen[i], p[k]);
        tf_words_free(p, n);
    }
    tf_vocab_free(&voc);
    free(v); free(m);
    tf_bpe_free(&b);
    assert_null(tf_bpe_learn(&(tf_corpus){0}, 0, 10, &e)); // nothing to learn from
    assert_non_null(strstr(e.msg, "nothing to merge"));
    tf_corpus_free(&c);
}

// Merges travel in the model file; a model reads a word it never saw as pieces.
static void merges_in_the_model(void **s) {
    (void)s;
    tf_config c;
    memset(&c, 0, sizeof c);
    c.C = 4; c.H = 2; c.F = 8; c.L_enc = 1; c.L_dec = 1; c.eps = 1e-5f; c.embed_scale_is_sqrt = 1;
    c.max_len = 32; c.max_len_set = 1; c.src_append_eos = 1;
    const char *voc = "<pad>\n<unk>\n<bos>\n<eos>\nl@@\no@@\nw@@\ne@@\nr@@\nn@@\nl\no\nw\ne\nr\nn\nlo@@\nlow\ner\nnew@@\nne@@";
    tf_model m, m2; tf_err e;
    assert_int_equal(tf_model_init(&m, &c, voc, voc, 3, &e), 0);
    assert_int_equal(tf_model_set_merges(&m, MERGES, MERGES, &e), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/bpe.safetensors", test_tmpdir());
    assert_int_equal(tf_model_save(&m, path, &e), 0);
    if (tf_model_load(&m2, path, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m2.src_bpe.n, 5);
    assert_string_equal(m2.tgt_bpe.text, MERGES);
    tf_run r;
    assert_int_equal(tf_run_sentence(&r, &m2, "lower newer", "newer", &e), 0);
    assert_int_equal(r.S, 6); // lo@@ w@@ er new@@ er <eos>
    assert_string_equal(r.src_labels[0], "lo@@");
    assert_string_equal(r.src_labels[1], "w@@");
    assert_string_equal(r.src_labels[3], "new@@");
    assert_int_equal(r.n_src_unk, 0);
    assert_int_equal(r.T, 3); // <bos> new@@ er
    tf_run_free(&r);
    tf_model cl;
    assert_int_equal(tf_model_clone(&cl, &m2, &e), 0); // training continues with the merges
    assert_int_equal(cl.src_bpe.n, 5);
    tf_model_free(&cl);
    tf_model_free(&m2);
    tf_model_free(&m);
    // a word-level model (the worked example, PyTorch fixtures): no merges, words as before
    assert_int_equal(tf_model_load(&m, "assets/models/worked-example.safetensors", &e), 0);
    assert_int_equal(m.src_bpe.n, 0);
    assert_int_equal(tf_run_sentence(&r, &m, "I really enjoy learning transformers", NULL, &e), 0);
    assert_string_equal(r.src_labels[2], "enjoy");
    tf_run_free(&r);
    tf_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_words),
        cmocka_unit_test(parse_errors),
        cmocka_unit_test(learn_merges),
        cmocka_unit_test(merges_in_the_model),
    };
    return cmocka_run_group_tests_name("bpe", tests, NULL, NULL);
}
