// corpus_cmd.c — `tviz corpus`: writes the synthetic English→Persian corpus
// (train.tsv and heldout.tsv), or checks a TSV corpus file.
#include "cli.h"
#include "../io/data.h"
#include "../train/corpus.h"
#include "../train/lexicon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *corpus_help =
    "Usage:\n"
    "  tviz corpus [--seed N] [--pairs N] [--lists DIR] -o DIR\n"
    "      writes the synthetic English→Persian corpus to DIR/train.tsv and DIR/heldout.tsv\n"
    "      (DIR is created if missing). English is subject-verb-object, Persian verb-final:\n"
    "      \"" TF_CORPUS_DEFAULT_SRC "\" -> \"" TF_CORPUS_DEFAULT_TGT "\"\n"
    "      is always held out. --seed N (default 1) picks the sample of training sentences,\n"
    "      --pairs N how many (default 30000). The words come from the word lists in\n"
    "      --lists DIR (default: the shipped assets/corpus).\n"
    "  tviz corpus --check FILE\n"
    "      reads a corpus file and prints its pairs, words and vocabulary sizes\n"
    "  tviz corpus --check-lists [DIR]\n"
    "      checks the word lists (default: the shipped ones) and prints what they hold;\n"
    "      a malformed entry is named by file and line\n"
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
    if (cli_load_corpus(&c, path)) return 1;
    tf_err e;
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

// The word lists in dir (NULL: the shipped assets/corpus); NULL after the
// one-line error "tviz: FILE:LINE: what; what to do".
tf_lexicon *cli_lexicon(const char *dir) {
    char def[4200], where[4400];
    if (!dir) {
        const char *lists = io_data_dir(IO_CORPUS);
        if (!lists) { io_error("corpus", "the word lists are not found (%s); set TVIZ_DATA_DIR or reinstall", io_data_looked(IO_CORPUS)); return NULL; }
        snprintf(def, sizeof def, "%s", lists);
        dir = def;
    }
    tf_err e;
    tf_lexicon *lx = tf_lexicon_load(dir, where, sizeof where, &e);
    if (!lx) io_error(where, "%s", e.msg);
    return lx;
}

static int check_lists(const char *dir) {
    tf_lexicon *lx = cli_lexicon(dir);
    if (!lx) return 1;
    tf_lexicon_info in;
    tf_lexicon_info_get(lx, &in);
    printf("%s: %d nouns, %d verbs (%d English verbs), %d adjectives, %d names, %d set phrases, %d noun classes\n",
           dir ? dir : "the shipped word lists", in.nouns, in.verbs, in.verb_bases, in.adjectives, in.names, in.phrases, in.classes);
    // every list makes sentences: a small corpus from them must build
    tf_corpus train, held;
    tf_err e;
    int rc = 0;
    if (tf_corpus_generate_n(&train, &held, lx, 1, 2000, 100, &e)) rc = io_error(dir ? dir : "corpus", "%s", e.msg);
    else {
        char *sv = tf_corpus_vocab(&train, 0);
        int n = 1;
        for (const char *p = sv; p && *p; p++) n += *p == '\n';
        printf("a sample of %d sentence pairs uses %d English word types\n", train.n, n - 4);
        free(sv);
        tf_corpus_free(&train);
        tf_corpus_free(&held);
    }
    tf_lexicon_free(lx);
    return rc;
}

static int generate(const char *dir, const char *seed_s, long pairs, const char *lists) {
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_s, &end, 10);
    if (end == seed_s || *end || errno || *seed_s == '-') return io_error("--seed", "\"%s\" is not a whole number; give e.g. --seed 1", seed_s);
    struct stat st;
    if (!stat(dir, &st) && !S_ISDIR(st.st_mode)) return io_error(dir, "is a file, not a folder; give a folder for train.tsv and heldout.tsv");
    // the word lists and the sentences first: a mistake in them leaves no folder behind
    tf_lexicon *lx = cli_lexicon(lists);
    if (!lx) return 1;
    tf_corpus train, held;
    tf_err e;
    int gen = tf_corpus_generate_n(&train, &held, lx, seed, (int)pairs, TF_CORPUS_HELDOUT_MAX, &e);
    tf_lexicon_free(lx);
    if (gen) return io_error(NULL, "%s", e.msg);
    if (stat(dir, &st) && mkdir(dir, 0777)) {
        int err = errno;
        tf_corpus_free(&train);
        tf_corpus_free(&held);
        return io_error(dir, "cannot create the folder (%s); check that its parent exists and is writable", strerror(err));
    }
    int rc = write_one(dir, "train.tsv", &train);
    if (!rc) rc = write_one(dir, "heldout.tsv", &held);
    if (!rc) fprintf(stderr, "tviz: wrote %s/train.tsv (%d pairs) and %s/heldout.tsv (%d pairs)\n", dir, train.n, dir, held.n);
    tf_corpus_free(&train);
    tf_corpus_free(&held);
    return rc;
}

int cmd_corpus(int argc, char **argv) {
    const char *out = NULL, *seed_s = "1", *check_file = NULL, *lists = NULL, *pairs_s = NULL;
    int check_lists_flag = 0;
    long pairs = TF_CORPUS_TRAIN_MAX;
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(corpus_help, stdout); return 0; }
        if (!strcmp(argv[i], "--check-lists")) {
            check_lists_flag = 1;
            if (i + 1 < argc && argv[i + 1][0] != '-') lists = argv[++i];
            continue;
        }
        if ((k = io_opt(argc, argv, &i, "--lists", NULL, &lists))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--pairs", NULL, &pairs_s))) { if (k < 0 || cli_whole("--pairs", pairs_s, 1, 5000000, &pairs)) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--seed", NULL, &seed_s))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--output", "-o", &out))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--check", NULL, &check_file))) { if (k < 0) return 1; continue; }
        return io_error(argv[i], "unknown option for 'corpus'; see tviz corpus --help");
    }
    if (check_file && out) return io_error("corpus", "give either --check FILE or -o DIR, not both");
    if (check_lists_flag) return check_lists(lists);
    if (check_file) return check(check_file);
    if (!out) return io_error("corpus", "needs -o DIR, where to write train.tsv and heldout.tsv (or --check FILE)");
    if (!*out) return io_error("-o", "is empty; give a folder");
    return generate(out, seed_s, pairs, lists);
}
