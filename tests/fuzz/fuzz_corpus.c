// fuzz_corpus.c — the corpus reader (tviz train --corpus, tviz corpus --check)
// on any bytes. What it accepts must be well formed: every pair non-empty
// valid UTF-8, one alignment entry per target word, each -1 or a source word;
// formatting it and reading it again gives the same pairs; its vocabularies build.
//
// An input starting with the byte 0x01 is a word list instead (tviz corpus
// --check-lists): the next byte picks which (nouns.tsv … gerunds.tsv), the
// rest is its text; the other lists are small good ones. An error is one
// line with its line number in range; lists it accepts make a small corpus
// whose pairs are valid UTF-8 with alignments in range.
#include "fuzz.h"

#include "../../src/train/corpus.h"
#include "../../src/train/lexicon.h"

static const char *const good_lists[LX_N_FILES] = {
    "transformer\ttransformers\tترنسفورمر\tترنسفورمرها\tmodel\nbook\tbooks\tکتاب\tکتاب‌ها\ttext,thing\n"
    "man\tmen\tمرد\tمردها\tperson\nhouse\thouses\tخانه\tخانه‌ها\tbuilding,place\ntable\ttables\tمیز\tمیزها\tsurface\n"
    "water\t-\tآب\t-\tdrink\nlanguage\tlanguages\tزبان\tزبان‌ها\tstudy,tongue\n",
    "enjoy\tenjoys\tenjoyed\tenjoyed\tenjoying\tلذت\tبر\tبرد\taz\tmodel,text,drink\t-\n"
    "read\treads\tread\tread\treading\t-\tخوان\tخواند\ttr\ttext\tm\n"
    "go\tgoes\twent\tgone\tgoing\t-\tرو\tرفت\tgo\tperson\t-\n"
    "sleep\tsleeps\tslept\tslept\tsleeping\t-\tخواب\tخوابید\tin\tperson\t-\n"
    "give\tgives\tgave\tgiven\tgiving\t-\tده\tداد\tgive\ttext\t-\n"
    "like\tlikes\tliked\tliked\tliking\tدوست\tدار\tداشت\tlike\t*\ts\n"
    "translate\ttranslates\ttranslated\ttranslated\ttranslating\tترجمه\tکن\tکرد\tgive:into\ttongue\tm\n",
    "old\tپیر\tperson\nbig\tبزرگ\t*\n",
    "Ali\tعلی\tperson\nTehran\tتهران\tcity\nEnglish\tانگلیسی\tlanguage\nPersian\tفارسی\tlanguage\n",
    "I\tme\tmy\tam\twas\tمن\tمرا\t1s\tم\tم\t‌ام\tهستم\tنیستم\n"
    "he\thim\this\tis\twas\tاو\tاو را\t3s\tد\t-\tاست\tاست\tنیست\n"
    "they\tthem\ttheir\tare\twere\tآن‌ها\tآن‌ها را\t3p\tند\tند\t‌اند\tهستند\tنیستند\n",
    "the\t-\tsg\tsg\tdef\nthe\t-\tpl\tpl\tdef\na\tیک\tsg\tsg\tindef\nmany\tتعداد زیادی\tpl\tsg\tindef\n",
    "in\tدر\t0\tplace,building\nnext to\tکنار\t0\tsurface\n",
    "really\tواقعاً\tdegree\nslowly\tآهسته\tmanner\nalways\tهمیشه\tfreq\n",
    "today\tامروز\t0\tpresent,past,be\nnext week\tهفته‌ی آینده\t1 0\tfuture\n",
    "Hello\tسلام\t0\nHow are you?\tحال شما چطور است؟\t-1 2 0 1 3\n",
    "and\tو\nbut\tاما\n",
    "learning\tیادگیری\tmodel,study\nreading\tخواندن\ttext\n",
};

static int fuzz_lists(const uint8_t *data, size_t size) {
    int which = size ? data[0] % LX_N_FILES : 0;
    const char *text = size > 1 ? (const char *)data + 1 : "";
    size_t len = size > 1 ? size - 1 : 0;
    tf_lexicon *lx = tf_lexicon_new();
    FUZZ_CHECK(lx);
    tf_err e;
    int line = -1, bad = 0;
    for (int f = 0; f < LX_N_FILES && !bad; f++) {
        int rc = f == which ? tf_lexicon_parse(lx, f, text, len, &line, &e)
                            : tf_lexicon_parse(lx, f, good_lists[f], strlen(good_lists[f]), &line, &e);
        if (rc) {
            FUZZ_CHECK(f == which || which == LX_NOUNS); // the good lists stay good (but name the classes nouns.tsv defines)
            fuzz_check_message(e.msg);
            FUZZ_CHECK(line >= 0 && (size_t)line <= len + 1);
            bad = 1;
        }
    }
    if (!bad) {
        tf_corpus train, held;
        if (tf_corpus_generate_n(&train, &held, lx, 1, 30, 3, &e) == 0) {
            const tf_corpus *cs[2] = {&train, &held};
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < cs[k]->n; i++) {
                    const tf_pair *p = &cs[k]->p[i];
                    size_t b;
                    FUZZ_CHECK(!tf_utf8_check(p->src, strlen(p->src), &b) && !tf_utf8_check(p->tgt, strlen(p->tgt), &b));
                    char **w = NULL;
                    int ns = tf_split_words(p->src, &w, NULL);
                    if (ns > 0) tf_words_free(w, ns);
                    for (int j = 0; j < p->n_tgt; j++) FUZZ_CHECK(p->align[j] >= -1 && p->align[j] < ns);
                }
            tf_corpus_free(&train);
            tf_corpus_free(&held);
        } else fuzz_check_message(e.msg);
    }
    tf_lexicon_free(lx);
    return 0;
}

static int n_words(const char *s) {
    char **w = NULL;
    int n = tf_split_words(s, &w, NULL);
    if (n > 0) tf_words_free(w, n);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size && data[0] == 1) return fuzz_lists(data + 1, size - 1);
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
