// fuzz_tokenizer.c — UTF-8 checking, word splitting, vocabularies and a whole
// run on a tiny model, on any bytes. The first byte picks what the rest is:
// a source sentence, a target sentence, or a vocabulary; 0xFF: subword
// merges, then a blank line, then a sentence: an error is one line; merges
// it accepts split every word into non-empty pieces of valid UTF-8 that
// join back into exactly the sentence's words.
#include "fuzz.h"

#include <math.h>

#include "../../src/model/tf.h"

static const char *vocab = "<unk>\n<bos>\n<eos>\nI\nreally\nenjoy\nlearning\ntransformers\n.\nمن";

static const tf_model *tiny(void) {
    static tf_model m;
    static int ready;
    if (!ready) {
        tf_config c;
        memset(&c, 0, sizeof c);
        c.C = 4; c.H = 2; c.F = 8; c.L_enc = 1; c.L_dec = 1;
        c.eps = 1e-5f; c.embed_scale_is_sqrt = 1; c.max_len = 24; c.max_len_set = 1;
        tf_err e;
        FUZZ_CHECK(tf_model_init(&m, &c, vocab, NULL, 7, &e) == 0);
        ready = 1;
    }
    return &m;
}

// What tf_split_words returns must be the sentence's own text: each word a
// non-empty piece of it, in order, with no white space inside.
static void check_words(const char *s, char **w, int n) {
    const char *at = s;
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(w[i][0]);
        const char *p = strstr(at, w[i]);
        FUZZ_CHECK(p);
        at = p + strlen(w[i]);
        FUZZ_CHECK(!strchr(w[i], ' ') && !strchr(w[i], '\n'));
        size_t bad;
        FUZZ_CHECK(tf_utf8_check(w[i], strlen(w[i]), &bad) == 0);
    }
}

static void fuzz_merges(const char *s) {
    const char *cut = strstr(s, "\n\n");
    size_t ml = cut ? (size_t)(cut - s) : strlen(s);
    char *merges = malloc(ml + 1);
    FUZZ_CHECK(merges);
    memcpy(merges, s, ml);
    merges[ml] = 0;
    const char *sentence = cut ? cut + 2 : "lower newer";
    tf_bpe b;
    tf_err e;
    if (tf_bpe_parse(&b, merges, "src_merges", &e)) {
        fuzz_check_message(e.msg);
        FUZZ_CHECK(b.n == 0);
        free(merges);
        return;
    }
    FUZZ_CHECK(b.n > 0);
    for (int r = 0; r < b.n; r++) { // every merge finds itself
        char *pair = strdup(b.line[r]), *sp = pair ? strchr(pair, ' ') : NULL;
        FUZZ_CHECK(sp);
        *sp = 0;
        FUZZ_CHECK(tf_bpe_rank(&b, pair, sp + 1) == r);
        free(pair);
    }
    char **w = NULL, **t = NULL;
    int nw = tf_split_words(sentence, &w, &e);
    int nt = tf_tokens(&b, sentence, &t, &e);
    FUZZ_CHECK((nw < 0) == (nt < 0));
    if (nw >= 0) {
        FUZZ_CHECK(nt >= nw);
        for (int i = 0; i < nt; i++) {
            size_t bad;
            FUZZ_CHECK(t[i][0] && strcmp(t[i], "@@"));
            FUZZ_CHECK(tf_utf8_check(t[i], strlen(t[i]), &bad) == 0);
        }
        char *joined = tf_join_tokens(t, nt), *words = tf_join_tokens(w, nw);
        FUZZ_CHECK(joined && words);
        // pieces join back into the words, unless the sentence holds a joining
        // mark itself: a word ending in "@@", or SentencePiece's "▁" (U+2581),
        // which makes tf_join_tokens read the tokens as a Marian model's pieces
        if (!strstr(sentence, "@@") && !strstr(sentence, "\xe2\x96\x81")) FUZZ_CHECK(!strcmp(joined, words));
        free(joined); free(words);
        tf_words_free(w, nw);
        tf_words_free(t, nt);
    }
    tf_bpe_free(&b);
    free(merges);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    if (data[0] == 0xFF) {
        char *s = fuzz_cstr(data + 1, size - 1);
        fuzz_merges(s);
        free(s);
        return 0;
    }
    int mode = data[0] % 3;
    char *s = fuzz_cstr(data + 1, size - 1);
    size_t len = strlen(s), bad = 0;
    int utf8_ok = tf_utf8_check(s, len, &bad) == 0;
    if (!utf8_ok) FUZZ_CHECK(bad < len);
    tf_err e;
    e.msg[0] = 0;
    if (mode == 2) { // a vocabulary
        tf_vocab v;
        if (tf_vocab_parse(&v, s, "src_vocab", &e) == 0) {
            FUZZ_CHECK(utf8_ok && v.n >= 1 && v.unk >= 0 && v.unk < v.n);
            for (int i = 0; i < v.n; i++) {
                FUZZ_CHECK(v.tok[i][0]);
                FUZZ_CHECK(tf_vocab_find(&v, v.tok[i]) == i);
            }
            tf_vocab_free(&v);
        } else fuzz_check_message(e.msg);
        free(s);
        return 0;
    }
    char **w = NULL;
    int n = tf_split_words(s, &w, &e);
    if (n >= 0) {
        FUZZ_CHECK(utf8_ok);
        check_words(s, w, n);
        for (int i = 0; i < n; i++) {
            int id = tf_vocab_find(&tiny()->src_vocab, w[i]);
            FUZZ_CHECK(id >= -1 && id < tiny()->src_vocab.n);
        }
        tf_words_free(w, n);
    } else fuzz_check_message(e.msg);
    tf_run r;
    int rc = mode == 0 ? tf_run_sentence(&r, tiny(), s, NULL, &e) : tf_run_sentence(&r, tiny(), "I really enjoy", s, &e);
    if (rc == 0) {
        FUZZ_CHECK(n > 0);
        FUZZ_CHECK(r.S >= 1 && r.T >= 1 && r.S <= tiny()->cfg.max_len && r.T <= tiny()->cfg.max_len);
        for (int i = 0; i < r.trace.n; i++) FUZZ_CHECK(r.trace.stages[i].rows >= 1 && r.trace.stages[i].cols >= 1);
        for (int t = 0; t < r.T * tiny()->cfg.V_tgt; t++) FUZZ_CHECK(isfinite(r.acts.probs[t]));
        tf_run_free(&r);
    } else {
        fuzz_check_message(e.msg);
        FUZZ_CHECK(n != 0 || strstr(e.msg, "empty")); // an empty sentence is refused as such
    }
    free(s);
    return 0;
}
