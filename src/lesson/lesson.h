// lesson.h — lesson files (lessons/<lang>/*.md, format in lessons/README.md)
// and glossaries. libc only: parsing and lookup, no drawing. Text comes out
// as pango markup blocks, ready for src/render.
#ifndef LESSON_H
#define LESSON_H

#include <stddef.h>

typedef enum { LESSON_PARA, LESSON_HEADING, LESSON_BULLET, LESSON_NUMBERED, LESSON_QUESTION, LESSON_ANSWER } lesson_kind;

typedef struct {
    lesson_kind kind;
    char *markup;        // pango markup (escaped; **b** -> <b>, *i* -> <i>, `c` -> <tt> in an unbreakable left-to-right isolate); {{expr}} kept for lesson_expand
    char *cond;          // "[if COND]" in front of the block: shown only when COND holds; NULL: always
    int line;            // where it starts in the file
} lesson_block;

typedef struct {
    char **patterns;     // stage-id globs, or "intro" / "check"
    int n_patterns;
    lesson_block *blocks;
    int n_blocks;
    int line;            // the "## " line
} lesson_section;

typedef struct {
    char *title;
    char lang[16];
    int rtl;             // fa, ar, he, ur: right to left
    char path[1024];
    lesson_section *sec;
    int n;
} lesson;

typedef struct {
    int entry;           // its key and word: glossary.key[entry], .word[entry]
    char text[96];       // folded for finding it in text (lesson.c): no marks, one spelling of each letter, no Arabic article
} glossary_form;

typedef struct {
    char lang[16];
    int n;
    char (*key)[48];
    char (*word)[96];    // the first form of each line: what the other languages show
    glossary_form *forms; // every form of every line ("key = word | other form | …"), in the file's order
    int n_forms;
} glossary;

// Reads a lesson. On failure returns -1 with "LINE: what is wrong; what to do"
// in err (the caller puts the file name in front).
int lesson_load(lesson *l, const char *path, const char *lang, char *err, size_t n);
void lesson_free(lesson *l);
// The section for a stage: the most specific pattern that matches (the one
// with the most characters other than '*'), the first of equals; NULL if none.
const lesson_section *lesson_for_stage(const lesson *l, const char *stage_id);
const lesson_section *lesson_section_named(const lesson *l, const char *pattern); // e.g. "check"
int lesson_is_rtl(const char *lang);
// The first character of a lesson's line a lesson must not use
// (lessons/README.md): a digit other than 0–9 (Persian ۰–۹, Arabic-Indic
// ٠–٩, or any other script's), the Arabic decimal or thousands separator
// (٫ ٬), or an invisible character that only glues text together (U+2060
// word joiner, U+200B zero-width space, U+FEFF): code spans never break
// without help. Returns its byte index in s, with "what it is; what to write" in why,
// or -1. (Also for the interface's translations: tests/test_i18n.c.)
int lesson_odd_char(const char *s, char *why, size_t n);

// Live values: each {{expr}} of a block's markup stands for a number, token or
// size of the model and sentence on screen (lessons/README.md). fn reads expr
// into out and returns 0, or -1 with the reason in out. lesson_expand writes
// the markup with every value in place (markup-escaped; "?" for one fn could
// not read) and returns how many could not be read.
typedef int (*lesson_value_fn)(void *ctx, const char *expr, char *out, size_t n);
int lesson_expand(const char *markup, lesson_value_fn fn, void *ctx, char *out, size_t n);

// Reads lessons/<lang>/glossary.txt: "key = word | other form | …" a line.
// On failure -1 with "LINE: what is wrong; what to do" in err.
int glossary_load(glossary *g, const char *path, const char *lang, char *err, size_t n);
void glossary_free(glossary *g);
const char *glossary_word(const glossary *g, const char *key);
// Where the glossary's words occur in plain text, inflected as
// lessons/README.md says: English plurals; Arabic clitics (و ف ب ك ل), the
// article, sound plurals, duals and pronouns; Persian plurals, ezafe and
// pronouns; any other form the line lists after a "|". Whole words only
// (letters of any script and the marks on them; spaces, punctuation and bidi
// marks end a word, a ZWNJ does not), letters compared without case or
// diacritics; the longest where two start at the same place. Fills at most
// max hits (byte ranges [start, end) and the entry) and returns how many.
typedef struct { int start, end, entry; } glossary_hit;
int glossary_find(const glossary *g, const char *text, glossary_hit *hits, int max);
// The entry whose occurrence in text covers byte index i, or -1.
int glossary_at(const glossary *g, const char *text, int i);

// The folder that holds <lang>/<lesson>.md, as the program found it at
// start-up (src/io/data.h): lesson code reads no environment and looks for
// no files of its own. NULL until set, or when none was found.
void lesson_set_dir(const char *dir);
const char *lesson_dir(void);

#endif
