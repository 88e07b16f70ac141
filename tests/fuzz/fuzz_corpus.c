// fuzz_corpus.c — the corpus reader (tviz train --corpus, tviz corpus --check)
// on any bytes. What it accepts must be well formed: every pair non-empty
// valid UTF-8, one alignment entry per target word, each -1 or a source word;
// formatting it and reading it again gives the same pairs; its vocabularies build.
#include "fuzz.h"

#include "../../src/train/corpus.h"

static int n_words(const char *s) {
    char **w = NULL;
    int n = tf_split_words(s, &w, NULL);
    if (n > 0) tf_words_free(w, n);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tf_corpus c = {0}, again = {0};
    tf_err e;
    int line = -1;
    if (tf_corpus_parse(&c, (const char *)data, size, &line, &e)) {
        fuzz_check_message(e.msg);
        FUZZ_CHECK(line >= 0);
        tf_corpus_free(&c);
        return 0;
    }
    FUZZ_CHECK(c.n > 0);
    for (int i = 0; i < c.n; i++) {
        const tf_pair *p = &c.p[i];
        size_t bad;
        FUZZ_CHECK(p->src[0] && p->tgt[0]);
        FUZZ_CHECK(!tf_utf8_check(p->src, strlen(p->src), &bad) && !tf_utf8_check(p->tgt, strlen(p->tgt), &bad));
        int ns = n_words(p->src);
        FUZZ_CHECK(p->n_tgt == n_words(p->tgt));
        for (int k = 0; p->align && k < p->n_tgt; k++) FUZZ_CHECK(p->align[k] >= -1 && p->align[k] < ns);
    }
    char *txt = NULL;
    size_t len = 0;
    FUZZ_CHECK(tf_corpus_format(&c, &txt, &len) == 0);
    FUZZ_CHECK(tf_corpus_parse(&again, txt, len, &line, &e) == 0);
    FUZZ_CHECK(again.n == c.n);
    for (int i = 0; i < c.n; i++) {
        FUZZ_CHECK(!strcmp(c.p[i].src, again.p[i].src) && !strcmp(c.p[i].tgt, again.p[i].tgt));
        FUZZ_CHECK(c.p[i].n_tgt == again.p[i].n_tgt);
    }
    for (int side = 0; side < 2; side++) {
        char *v = tf_corpus_vocab(&c, side);
        FUZZ_CHECK(v && !strncmp(v, "<pad>\n<unk>\n<bos>\n<eos>", 23));
        free(v);
    }
    free(txt);
    tf_corpus_free(&again);
    tf_corpus_free(&c);
    return 0;
}
