// lexicon.h — the words of the synthetic English→Persian corpus (lexicon.c)
// and the grammar that combines them (corpus.c). Internal to src/train.
#ifndef TF_LEXICON_H
#define TF_LEXICON_H

#include <stddef.h>
#include <stdint.h>

#define ZW "\u200c" // ZWNJ, the Persian half-space: می‌برم, کتاب‌ها

enum { LX_PRESENT, LX_PAST, LX_FUTURE, LX_TENSES };

// A subject: 1–2 English words, 1–2 Persian words, each Persian word's
// English word index; person 0..5 = 1s 2s 3s 1p 2p 3p (English "you" is
// Persian شما, 2p); en3s: takes the English third-person singular.
typedef struct { const char *en[2]; int n_en; const char *fa[2]; int fa_al[2]; int n_fa; int person, en3s; } lx_subject;

// A noun: English singular and plural, Persian singular and plural (-ها,
// with ZWNJ after a letter that joins). mass: no plural and no "a" (music).
typedef struct { const char *en, *en_pl, *fa, *fa_pl; int mass; } lx_noun;

// How a verb takes its object:
//   LX_SIMPLE  the N -> N را, a N -> یک N, Ns -> N (generic, bare singular)
//   LX_AZ      از N / از Ns, never را (لذت بردن "enjoy", استفاده کردن "use")
//   LX_LIKE    N را / Ns را, and the present has no می‌ (دوست داشتن "like")
enum { LX_SIMPLE, LX_AZ, LX_LIKE };

// A verb: English base, 3rd singular, past; Persian preverb of a compound
// verb (or NULL), present stem, past stem; which nouns it takes (bit i =
// lx_nouns[i]); generic: takes a generic plural ("I read books");
// gerunds: takes gerund objects ("enjoy learning transformers").
typedef struct {
    const char *en, *en_3s, *en_past, *pre, *pres, *past;
    int kind, generic, gerunds;
    uint32_t nouns;
} lx_verb;

// A gerund object: "learning" -> یادگیری, taking these nouns in the plural.
typedef struct { const char *en, *fa; uint32_t nouns; } lx_gerund;

// An adverb before the English verb (after the Persian subject), and the
// tenses it goes with (bit per tense). freq: a frequency adverb, never with a time adverb.
typedef struct { const char *en, *fa; int tenses, freq; } lx_adverb;
// A time adverb: at the end in English, after the subject in Persian.
typedef struct { const char *en[2]; int n_en; const char *fa[2]; int fa_al[2]; int n_fa; int tenses; } lx_time;

extern const lx_subject lx_subjects[]; extern const int lx_n_subjects;
extern const lx_noun lx_nouns[];       extern const int lx_n_nouns;
extern const lx_verb lx_verbs[];       extern const int lx_n_verbs;
extern const lx_gerund lx_gerunds[];   extern const int lx_n_gerunds;
extern const lx_adverb lx_adverbs[];   extern const int lx_n_adverbs;
extern const lx_time lx_times[];       extern const int lx_n_times;

// Person endings of the Persian verb (1s 2s 3s 1p 2p 3p).
extern const char *const lx_end_present[6]; // م ی د یم ید ند
extern const char *const lx_end_past[6];    // م ی - یم ید ند
extern const char *const lx_future_aux[6];  // خواهم … خواهند

#endif
