// lexicon.h — the words of the synthetic English→Persian corpus, read from
// the word lists in assets/corpus/*.tsv (lexicon.c), and the grammar that
// combines them into sentence pairs (corpus.c). Internal to src/train; the
// rest of tviz sees tf_lexicon through corpus.h.
#ifndef TF_LEXICON_H
#define TF_LEXICON_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"

#define ZW "\u200c" // ZWNJ, the Persian half-space: می‌برم, کتاب‌ها

// The word lists, in the order tf_lexicon_parse numbers them.
enum { LX_NOUNS, LX_VERBS, LX_ADJECTIVES, LX_NAMES, LX_PRONOUNS, LX_DETERMINERS, LX_PREPOSITIONS, LX_ADVERBS,
       LX_TIMES, LX_PHRASES, LX_CONJUNCTIONS, LX_GERUNDS, LX_N_FILES };
extern const char *const lx_file_names[LX_N_FILES]; // "nouns.tsv", …

#define LX_MAX_CLASSES 32
#define LX_MAX_FA 8 // Persian words of one entry

// Tenses and sentence kinds a time word goes with (bits of lx_time.tenses).
enum { LX_PRESENT, LX_PROGRESSIVE, LX_PAST, LX_FUTURE, LX_PERFECT, LX_BE, LX_BE_PAST, LX_BE_FUTURE, LX_N_TENSES };
// Verb frames: how the verb takes what follows it (verbs.tsv describes them).
enum { FR_TR, FR_AZ, FR_BE, FR_BA, FR_LIKE, FR_HAVE, FR_IN, FR_GO, FR_GIVE, FR_N };
enum { ADV_DEGREE, ADV_FREQ, ADV_NEVER, ADV_MANNER };
enum { NAME_PERSON, NAME_CITY, NAME_COUNTRY, NAME_LANGUAGE };

typedef struct { char *en, *en_pl, *fa, *fa_pl; uint32_t cls; } lx_noun;   // en_pl NULL: a mass noun
typedef struct {
    char *en[5];          // base, 3rd singular, past, past participle, -ing
    char *pre, *pres, *past; // Persian preverb (NULL: simple verb), present and past stems
    int frame;
    char *en_prep;        // "to" in "listen to", or NULL
    uint32_t cls;         // object classes (subject classes for in/go)
    int stative, animal, model; // no progressive; an animal, a model may be the subject
} lx_verb;
typedef struct { char *en, *fa; uint32_t cls; } lx_adj;
typedef struct { char *en, *fa; int kind; } lx_name;
typedef struct {
    char *en_subj, *en_obj, *en_poss, *en_be, *en_was, *fa, *fa_obj;
    int person;           // 0..5: 1s 2s 3s 1p 2p 3p
    char *end_pres, *end_past, *end_perf, *be, *be_neg; // "" for an empty ending
} lx_pronoun;
typedef struct { char *en, *fa; int en_pl, fa_pl, def; } lx_det;             // fa NULL: none
typedef struct { char *en, *fa; int head; uint32_t cls; } lx_prep;
typedef struct { char *en, *fa; int kind; } lx_adverb;
typedef struct { char *en, *fa; int al[LX_MAX_FA]; int tenses; } lx_time;   // al: per Persian word
typedef struct { char *en, *fa; int al[LX_MAX_FA * 2]; } lx_phrase;
typedef struct { char *en, *fa; } lx_conj;
typedef struct { char *en, *fa; uint32_t cls; } lx_gerund;

#define LX_LIST(T, name) T *name; int n_##name, cap_##name
struct tf_lexicon {
    char class_name[LX_MAX_CLASSES][24]; int n_classes;
    LX_LIST(lx_noun, nouns); LX_LIST(lx_verb, verbs); LX_LIST(lx_adj, adjs); LX_LIST(lx_name, names);
    LX_LIST(lx_pronoun, prons); LX_LIST(lx_det, dets); LX_LIST(lx_prep, preps); LX_LIST(lx_adverb, advs);
    LX_LIST(lx_time, times); LX_LIST(lx_phrase, phrases); LX_LIST(lx_conj, conjs); LX_LIST(lx_gerund, gerunds);
    char **strings; int n_strings, cap_strings; // every string above, freed together
    int pron3s, pron3p; // the pronoun rows whose endings a noun or a name takes
};

// Looks a class name up: its bit, 0 if unknown.
uint32_t lx_class(const tf_lexicon *lx, const char *name);

// ---------------------------------------------------------------- one sentence (corpus.c)
// A noun phrase: a pronoun, a name, or a noun with its determiner,
// adjective, possessor, place and relative clause.
enum { NP_NONE, NP_PRONOUN, NP_NAME, NP_NOUN, NP_GERUND, NP_WHAT, NP_WHO };
typedef struct lx_np {
    int type, id;       // pronoun, name, noun or gerund index
    int det;            // determiner (-1 none: a generic plural, a mass noun, or a possessor)
    int plural;         // English plural (a generic plural when det < 0)
    int adj, poss;      // adjective, possessor pronoun (-1 none)
    int prep; struct lx_np *pp; // a place after the noun ("near the sea"), or -1
    int gerund_noun;    // NP_GERUND: the noun after the gerund
    int rel_verb;       // a relative clause "who VERBs …" on the subject (-1 none)
    struct lx_np *rel_obj;
} lx_np;

// A clause.
enum { CL_VERB, CL_BE_ADJ, CL_BE_NOUN, CL_BE_PLACE, CL_WHERE_BE, CL_MAKES, CL_IMPERATIVE, CL_PHRASE };
enum { Q_NONE, Q_YESNO, Q_WHERE, Q_WHEN, Q_WHY };
enum { MOD_NONE, MOD_CAN, MOD_MUST, MOD_WANT };
typedef struct {
    int kind, tense, neg, question, modal, please;
    int to_form;            // give: "gave a flower to the girl" rather than "gave the girl a flower"
    lx_np subj, obj, obj2;  // obj2: who gets it (give), where to (go), the adjective's person (makes)
    int verb, adj, adv, manner, time, phrase;
    int prep; lx_np place;  // where it happens (-1 none)
} lx_clause;

#define LX_MAX_WORDS 96
typedef struct {
    char en[LX_MAX_WORDS][64]; int ne;                      // English words
    char fa[LX_MAX_WORDS][96]; int al[LX_MAX_WORDS]; int nf; // Persian words and the English word each translates (-1 none)
    int overflow;                                           // 1 when a word did not fit
    int phrase;                                             // 1 + its index for a set phrase (always in train), else 0
} lx_sentence;

// Builds clause c into s after what s holds (a conjunction joins clauses).
// Returns 0, or -1 when the clause does not fit.
int lx_build(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c);
// The clause's words joined ("I read the book" / "من کتاب را می‌خوانم");
// English capitalized; a question mark glued to the word before it.
void lx_join(const lx_sentence *s, char *src, size_t ns, char *tgt, size_t nt);

// Index of an entry by its English word (the first one with that frame
// for verbs, frame -1 any), or -1.
int lx_find_noun(const tf_lexicon *lx, const char *en);
int lx_find_verb(const tf_lexicon *lx, const char *en, int frame);
int lx_find_adj(const tf_lexicon *lx, const char *en);
int lx_find_name(const tf_lexicon *lx, const char *en);
int lx_find_pronoun(const tf_lexicon *lx, const char *en);
int lx_find_det(const tf_lexicon *lx, const char *en, int plural);
int lx_find_prep(const tf_lexicon *lx, const char *en);
int lx_find_adverb(const tf_lexicon *lx, const char *en);
int lx_find_time(const tf_lexicon *lx, const char *en);
int lx_find_gerund(const tf_lexicon *lx, const char *en);
int lx_find_phrase(const tf_lexicon *lx, const char *en);

#endif
