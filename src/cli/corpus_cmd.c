// corpus_cmd.c — `tviz corpus`: writes the synthetic English→Persian corpus
// (train.tsv and heldout.tsv), or checks a TSV corpus file.
#include "cli.h"
#include "../train/corpus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *corpus_help =
    "Usage:\n"
    "  tviz corpus [--seed N] -o DIR\n"
    "      writes the synthetic English→Persian corpus to DIR/train.tsv and DIR/heldout.tsv\n"
    "      (DIR is created if missing). English is subject-verb-object, Persian verb-final:\n"
    "      \"" TF_CORPUS_DEFAULT_SRC "\" -> \"" TF_CORPUS_DEFAULT_TGT "\"\n"
    "      is always held out. --seed N (default 1) picks the sample of training sentences.\n"
    "  tviz corpus --check FILE\n"
    "      reads a corpus file and prints its pairs, words and vocabulary sizes\n"
    "\n"
    "A corpus file has one pair per line: source<TAB>target[<TAB>alignment], the\n"
    "alignment being one source word index per target word (-1 for none), e.g.\n"
    "  I read the book<TAB>من کتاب را می‌خوانم<TAB>0 3 -1 2\n"
    "Blank lines and lines starting with # are skipped.\n";

static int vocab_size(const char *v) {
    int n = 1;
    for (; *v; v++) n += *v == '\n';
    return n;
}

static int check(const char *path) {
    tf_corpus c;
    tf_err e;
    int line;
    if (tf_corpus_read(&c, path, &line, &e)) {
        if (line > 0) {
            char where[4200];
            snprintf(where, sizeof where, "%s:%d", path, line);
            return io_error(where, "%s", e.msg);
        }
        return io_error(path, "%s", e.msg);
    }
    long src_words = 0, tgt_words = 0;
    int aligned = 0;
    for (int i = 0; i < c.n; i++) {
        char **w;
        int n = tf_split_words(c.p[i].src, &w, &e);
        if (n > 0) { src_words += n; tf_words_free(w, n); }
        tgt_words += c.p[i].n_tgt;
        for (int k = 0; k < c.p[i].n_tgt; k++) aligned += c.p[i].align[k] >= 0;
    }
    char *sv = tf_corpus_vocab(&c, 0), *tv = tf_corpus_vocab(&c, 1);
    if (!sv || !tv) { free(sv); free(tv); tf_corpus_free(&c); return io_error(NULL, "out of memory"); }
    printf("%s: %d pairs\n", path, c.n);
    printf("source: %ld words, vocabulary %d (with <pad> <unk> <bos> <eos>)\n", src_words, vocab_size(sv));
    printf("target: %ld words (%d aligned to a source word), vocabulary %d\n", tgt_words, aligned, vocab_size(tv));
    free(sv); free(tv);
    tf_corpus_free(&c);
    return 0;
}

static int write_one(const char *dir, const char *name, const tf_corpus *c) {
    char path[4200];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return io_error(dir, "the path is too long");
    char *text;
    size_t len;
    if (tf_corpus_format(c, &text, &len)) return io_error(NULL, "out of memory");
    int rc = io_write_file(path, text, len);
    free(text);
    return rc;
}

static int generate(const char *dir, const char *seed_s) {
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_s, &end, 10);
    if (end == seed_s || *end || errno || *seed_s == '-') return io_error("--seed", "\"%s\" is not a whole number; give e.g. --seed 1", seed_s);
    struct stat st;
    if (!stat(dir, &st)) {
        if (!S_ISDIR(st.st_mode)) return io_error(dir, "is a file, not a folder; give a folder for train.tsv and heldout.tsv");
    } else if (mkdir(dir, 0777)) {
        return io_error(dir, "cannot create the folder (%s); check that its parent exists and is writable", strerror(errno));
    }
    tf_corpus train, held;
    tf_err e;
    if (tf_corpus_generate(&train, &held, seed, &e)) return io_error(NULL, "%s", e.msg);
    int rc = write_one(dir, "train.tsv", &train);
    if (!rc) rc = write_one(dir, "heldout.tsv", &held);
    if (!rc) fprintf(stderr, "tviz: wrote %s/train.tsv (%d pairs) and %s/heldout.tsv (%d pairs)\n", dir, train.n, dir, held.n);
    tf_corpus_free(&train);
    tf_corpus_free(&held);
    return rc;
}

int cmd_corpus(int argc, char **argv) {
    const char *out = NULL, *seed_s = "1", *check_file = NULL;
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(corpus_help, stdout); return 0; }
        if ((k = io_opt(argc, argv, &i, "--seed", NULL, &seed_s))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--output", "-o", &out))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--check", NULL, &check_file))) { if (k < 0) return 1; continue; }
        return io_error(argv[i], "unknown option for 'corpus'; see tviz corpus --help");
    }
    if (check_file && out) return io_error("corpus", "give either --check FILE or -o DIR, not both");
    if (check_file) return check(check_file);
    if (!out) return io_error("corpus", "needs -o DIR, where to write train.tsv and heldout.tsv (or --check FILE)");
    if (!*out) return io_error("-o", "is empty; give a folder");
    return generate(out, seed_s);
}
