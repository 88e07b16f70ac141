// corpus.h — the synthetic English→Persian parallel corpus the small
// translator is trained on, and its TSV file format.
//
// English is Subject-Verb-Object, Persian Subject-Object-Verb (verb-final), so
// cross-attention has to show the reordering:
//   I really enjoy learning transformers
//   من واقعاً از یادگیری ترنسفورمرها لذت می‌برم        alignment 0 1 2 3 4 2 2
// Every target word carries the index of the source word it translates (both
// words of the compound verb "لذت می‌برم" and its از point at "enjoy"; را and
// words with no source are -1). Words are as tf_split_words splits them; the
// Persian half-space ZWNJ (U+200C) in می‌برم and کتاب‌ها is inside a word.
//
// Case: an English sentence starts with a capital ("The student reads a
// book"); tf_corpus_vocab lists such a first word lower-cased when the
// lower-cased word occurs elsewhere ("The" -> "the"), so a lookup as written
// then lower-cased (tf_vocab_find) finds it; "I", "He", "Ali" stay as written.
//
// Usage:
//   tf_corpus train, held; tf_err e; char where[4200];
//   tf_lexicon *lx = tf_lexicon_load("assets/corpus", where, sizeof where, &e); // NULL: where, e.msg
//   if (tf_corpus_generate(&train, &held, lx, 1, &e)) ... e.msg
//   char *sv = tf_corpus_vocab(&train, 0), *tv = tf_corpus_vocab(&train, 1);
//   ... tf_model_init(&m, &cfg, sv, tv, seed, &e) ...
//   free(sv); free(tv); tf_corpus_free(&train); tf_corpus_free(&held); tf_lexicon_free(lx);
#ifndef TF_CORPUS_H
#define TF_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "../model/tf.h"

#define TF_CORPUS_DEFAULT_SRC "I really enjoy learning transformers"
#define TF_CORPUS_DEFAULT_TGT "من واقعاً از یادگیری ترنسفورمرها لذت می\u200cبرم"

#define TF_CORPUS_MAX_LINE 4096      // bytes in one TSV line
#define TF_CORPUS_MAX_FILE (256u << 20) // bytes in one TSV file
#define TF_CORPUS_TRAIN_MAX 30000    // pairs tf_corpus_generate puts in train (at most)
#define TF_CORPUS_PHRASE_TIMES 6     // a set phrase is said often: train has each this many times
#define TF_CORPUS_HELDOUT_MAX 1500   // and in heldout

typedef struct {
    char *src, *tgt;   // UTF-8 sentences, words separated by single spaces, no final punctuation
    int n_tgt;         // number of target words (as tf_split_words splits tgt)
    int *align;        // (n_tgt) index of the source word (as tf_split_words splits src) each target word translates, or -1 (e.g. for را)
} tf_pair;

typedef struct { int n, cap; tf_pair *p; } tf_corpus;

// ---------------------------------------------------------------- the word lists
// The lexicon and the grammar's word lists: assets/corpus/*.tsv (nouns,
// verbs with their Persian stems, adjectives, names, pronouns and person
// endings, determiners, prepositions, adverbs, times, set phrases,
// conjunctions, gerunds), one entry a line, tab-separated, each file's
// columns described in its header comment. The caller finds the folder
// (src/train does not look for files).
typedef struct tf_lexicon tf_lexicon;
// Reads every list in dir. NULL on error: where gets "dir/file.tsv:LINE"
// (or the file, or dir), e->msg what is wrong and what to do.
tf_lexicon *tf_lexicon_load(const char *dir, char *where, size_t where_len, tf_err *e);
// The same from memory, one list at a time (file: 0 nouns.tsv … 11
// gerunds.tsv, in the order of tf_lexicon_file), nouns first: they define
// the classes the others name. On error *line is the 1-based line (0: the
// whole file). Used by tf_lexicon_load and the fuzzer.
tf_lexicon *tf_lexicon_new(void);
int tf_lexicon_parse(tf_lexicon *lx, int file, const char *text, size_t len, int *line, tf_err *e);
const char *tf_lexicon_file(int file); // "nouns.tsv", …; NULL past the last
void tf_lexicon_free(tf_lexicon *lx);
typedef struct { int nouns, verbs, verb_bases, adjectives, names, phrases, classes; } tf_lexicon_info;
void tf_lexicon_info_get(const tf_lexicon *lx, tf_lexicon_info *info);

// ---------------------------------------------------------------- generating
// The built-in English→Persian corpus: sentences drawn with tf_rng from
// seed (clauses of present, progressive, past, future and perfect verbs,
// negated, asked, commanded, "be" with adjectives, nouns and places, set
// phrases; joined with and/but/because; 1 to 30+ English words). Held-out
// sentences are drawn from a seed of their own and picked by a hash of the
// source sentence, so no source sentence is in both and the held-out set is
// the same for every seed; every word of a held-out pair (either side)
// occurs in train; the default sentence TF_CORPUS_DEFAULT_SRC ->
// TF_CORPUS_DEFAULT_TGT is always heldout's first pair. Returns 0 or -1
// (out of memory, or word lists that cannot make the default sentence).
int tf_corpus_generate(tf_corpus *train, tf_corpus *heldout, const tf_lexicon *lx, uint64_t seed, tf_err *e);
// The same with other sizes: n_train training pairs and at most n_heldout
// held-out ones (the default sentence always, even when n_heldout is 0).
int tf_corpus_generate_n(tf_corpus *train, tf_corpus *heldout, const tf_lexicon *lx, uint64_t seed, int n_train,
                         int n_heldout, tf_err *e);

// TSV: one pair per line: source<TAB>target[<TAB>alignment], alignment =
// space-separated ints (one per target word, -1 allowed; without the column
// every entry is -1). Blank lines and lines starting with '#' without a tab are skipped; a
// final '\r' is dropped; spaces at the ends of a sentence are dropped and runs
// of spaces squeezed to one. On error: -1, *line = the 1-based line number (0
// when the error is about the whole file: unreadable, too big, no pairs),
// e->msg says what and what to do; c is left empty.
int tf_corpus_read(tf_corpus *c, const char *path, int *line, tf_err *e);
// The same from memory (text of len bytes, NUL bytes allowed and rejected).
int tf_corpus_parse(tf_corpus *c, const char *text, size_t len, int *line, tf_err *e);
// The line of text (len bytes) starting at *at: returns it, its length
// without "\n" or "\r\n" in *n, and moves *at past it. (The corpus and the
// word lists read their files with it.)
const char *tf_next_line(const char *text, size_t len, size_t *at, size_t *n);

// An alignment column, "0 1 -1": one source word index (or -1 for none) per
// target word, into al (n_tgt entries). src and tgt name the sides in
// errors ("source"/"target", "English"/"Persian"). Returns 0 or -1.
int tf_parse_alignment(const char *s, int *al, int n_tgt, int n_src, const char *src, const char *tgt, tf_err *e);

// The TSV text of c (malloc'd, alignment column always written), for
// io_write_file. Returns 0, or -1 when out of memory.
int tf_corpus_format(const tf_corpus *c, char **out, size_t *len);

// Appends a copy of one pair (align has n_tgt entries, or NULL for all -1;
// n_tgt is counted with tf_split_words). Returns 0 or -1.
int tf_corpus_add(tf_corpus *c, const char *src, const char *tgt, const int *align, tf_err *e);

void tf_corpus_free(tf_corpus *c);

// Vocabulary of one side (0 source, 1 target): "<pad>\n<unk>\n<bos>\n<eos>\n"
// then every word in order of first appearance, joined by '\n' (the format
// tf_vocab_parse and tf_model_init take). malloc'd; NULL when out of memory.
char *tf_corpus_vocab(const tf_corpus *c, int side);

#endif
