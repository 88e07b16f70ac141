// lesson.c — lesson files and glossaries: a small Markdown subset turned into
// pango markup blocks, sections keyed by stage-id globs.
#include "lesson.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lesson_is_rtl(const char *lang) {
    static const char *rtl[] = {"fa", "ar", "he", "ur", "ps", "ckb"};
    for (size_t i = 0; i < sizeof rtl / sizeof *rtl; i++) if (!strcmp(lang, rtl[i])) return 1;
    return 0;
}

static char lessons_folder[PATH_MAX]; // "" until lesson_set_dir

void lesson_set_dir(const char *dir) { snprintf(lessons_folder, sizeof lessons_folder, "%s", dir ? dir : ""); }

const char *lesson_dir(void) { return lessons_folder[0] ? lessons_folder : NULL; }

// ---------------------------------------------------------------- inline Markdown -> pango markup
// Appends s (len bytes) to the string *o (n long, cap allocated). Out of
// memory frees it and leaves *o NULL for good (cap SIZE_MAX): the caller
// checks once, at the end, and reports it.
static void put(char **o, size_t *n, size_t *cap, const char *s, size_t len) {
    if (*cap == SIZE_MAX) return;
    if (*n + len + 1 > *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        while (c < *n + len + 1) c *= 2;
        char *p = realloc(*o, c);
        if (!p) { free(*o); *o = NULL; *n = 0; *cap = SIZE_MAX; return; }
        *o = p;
        *cap = c;
    }
    memcpy(*o + *n, s, len);
    *n += len;
    (*o)[*n] = 0;
}

// **bold**, *italic*, `code` (isolated left to right, unbreakable); <, >, & escaped. Returns NULL with err set when
// a marker is left open.
static char *inline_markup(const char *s, int line, char *err, size_t en) {
    char *o = NULL;
    size_t n = 0, cap = 0;
    int bold = 0, ital = 0;
    put(&o, &n, &cap, "", 0);
    for (const char *p = s; *p; p++) {
        if (p[0] == '{' && p[1] == '{') { // a live value: kept as written, read when drawn (lesson_expand)
            const char *end = strstr(p + 2, "}}");
            if (!end) { snprintf(err, en, "%d: a {{ opens a live value that is never closed; add }}", line); free(o); return NULL; }
            for (const char *q = p; q < end + 2; q++) {
                if (*q == '<' || *q == '>' || *q == '&' || *q == '`' || *q == '*') {
                    snprintf(err, en, "%d: a live value holds %c; write it as {{stage row col}} (lessons/README.md)", line, *q);
                    free(o);
                    return NULL;
                }
            }
            put(&o, &n, &cap, p, (size_t)(end + 2 - p));
            p = end + 1;
        } else if (*p == '`') {
            const char *end = strchr(p + 1, '`');
            if (!end) { snprintf(err, en, "%d: a ` opens code that is never closed; add the closing `", line); free(o); return NULL; }
            // a left-to-right isolate (LRI … PDI): in a Persian or Arabic
            // paragraph the formula's brackets and signs stay with it; and
            // in one piece, never broken over two lines (a stage id split at
            // a '.' would have its halves at opposite ends of right-to-left
            // lines). src/render/text.c breaks one wider than a whole line at its spaces.
            put(&o, &n, &cap, "<span allow_breaks=\"false\">\u2066<tt>", 27 + 3 + 4);
            for (const char *q = p + 1; q < end; q++) {
                if (*q == '<') put(&o, &n, &cap, "&lt;", 4);
                else if (*q == '>') put(&o, &n, &cap, "&gt;", 4);
                else if (*q == '&') put(&o, &n, &cap, "&amp;", 5);
                else put(&o, &n, &cap, q, 1);
            }
            put(&o, &n, &cap, "</tt>\u2069</span>", 5 + 3 + 7);
            p = end;
        } else if (p[0] == '*' && p[1] == '*') {
            put(&o, &n, &cap, bold ? "</b>" : "<b>", bold ? 4 : 3);
            bold = !bold;
            p++;
        } else if (*p == '*' && (ital || (p[1] && p[1] != ' '))) { // "a * b" stays a star
            put(&o, &n, &cap, ital ? "</i>" : "<i>", ital ? 4 : 3);
            ital = !ital;
        } else if (*p == '<') put(&o, &n, &cap, "&lt;", 4);
        else if (*p == '>') put(&o, &n, &cap, "&gt;", 4);
        else if (*p == '&') put(&o, &n, &cap, "&amp;", 5);
        else put(&o, &n, &cap, p, 1);
    }
    if (!o) { snprintf(err, en, "%d: out of memory", line); return NULL; }
    if (bold || ital) {
        snprintf(err, en, "%d: a %s is opened and never closed; close it on the same paragraph", line, bold ? "**bold**" : "*italic*");
        free(o);
        return NULL;
    }
    return o;
}

// ---------------------------------------------------------------- files
static char *read_all(const char *path, char *err, size_t en) {
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, en, "0: cannot read the file"); return NULL; }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    char chunk[4096];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) put(&buf, &n, &cap, chunk, k);
    fclose(f);
    if (!buf) put(&buf, &n, &cap, "", 0);
    if (!buf) snprintf(err, en, "0: out of memory");
    return buf;
}

static int utf8_ok(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
        if (!len || (len > 1 && *p < 0xC2 && len == 2)) return 0;
        for (int i = 1; i < len; i++) if ((p[i] & 0xC0) != 0x80) return 0;
        p += len;
    }
    return 1;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = 0;
    return s;
}

static int add_block(lesson_section *sec, lesson_kind kind, const char *text, int line, char *err, size_t en) {
    char *cond = NULL;
    if (!strncmp(text, "[if ", 4)) { // "[if model=worked-example] text": shown only when it holds
        const char *end = strchr(text, ']');
        if (!end) { snprintf(err, en, "%d: an [if …] is never closed; add the ]", line); return -1; }
        cond = strndup(text + 4, (size_t)(end - text - 4));
        char *c = cond ? trim(cond) : NULL;
        if (!c || !*c) { free(cond); snprintf(err, en, "%d: an [if] without a condition; write e.g. [if model=worked-example]", line); return -1; }
        memmove(cond, c, strlen(c) + 1);
        text = end + 1;
        while (*text == ' ') text++;
        if (!*text) { free(cond); snprintf(err, en, "%d: an [if …] with no text after it; put the text on the same paragraph", line); return -1; }
    }
    char *m = inline_markup(text, line, err, en);
    if (!m) { free(cond); return -1; }
    lesson_block *b = realloc(sec->blocks, sizeof *b * (size_t)(sec->n_blocks + 1));
    if (!b) { free(m); free(cond); snprintf(err, en, "%d: out of memory", line); return -1; }
    sec->blocks = b;
    sec->blocks[sec->n_blocks++] = (lesson_block){kind, m, cond, line};
    return 0;
}

int lesson_expand(const char *markup, lesson_value_fn fn, void *ctx, char *out, size_t n) {
    size_t k = 0;
    int bad = 0;
    if (!n) return 0;
#define OUT(s, len) do { size_t l_ = (len); if (k + l_ < n) { memcpy(out + k, s, l_); k += l_; } } while (0)
    for (const char *p = markup; *p;) {
        const char *end = p[0] == '{' && p[1] == '{' ? strstr(p + 2, "}}") : NULL;
        if (!end) { OUT(p, 1); p++; continue; }
        char expr[256], val[1024];
        size_t el = (size_t)(end - p - 2);
        if (el >= sizeof expr) el = sizeof expr - 1;
        memcpy(expr, p + 2, el);
        expr[el] = 0;
        if (!fn || fn(ctx, trim(expr), val, sizeof val)) { bad++; snprintf(val, sizeof val, "?"); }
        for (const char *v = val; *v; v++) {
            if (*v == '<') OUT("&lt;", 4);
            else if (*v == '>') OUT("&gt;", 4);
            else if (*v == '&') OUT("&amp;", 5);
            else OUT(v, 1);
        }
        p = end + 2;
    }
#undef OUT
    out[k] = 0;
    return bad;
}

int lesson_load(lesson *l, const char *path, const char *lang, char *err, size_t en) {
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s", path);
    snprintf(l->lang, sizeof l->lang, "%s", lang);
    l->rtl = lesson_is_rtl(lang);
    char *text = read_all(path, err, en);
    if (!text) return -1;
    if (!utf8_ok(text)) { snprintf(err, en, "1: the file is not UTF-8; save it as UTF-8"); free(text); return -1; }
    char para[8192] = "";
    lesson_kind pkind = LESSON_PARA;
    int pline = 0, line = 0, rc = 0;
    lesson_section *cur = NULL;
    char *save = NULL;
    // Lines are read one by one; a paragraph collects lines until a blank line or a new block.
#define FLUSH() do { if (para[0]) { if (!cur) { snprintf(err, en, "%d: text before the first \"## \" section; put it in a section (e.g. ## intro)", pline); rc = -1; goto out; } \
                     if (add_block(cur, pkind, para, pline, err, en)) { rc = -1; goto out; } para[0] = 0; } } while (0)
    for (char *ln = text, *next; ln && *ln; ln = next) {
        next = strchr(ln, '\n');
        if (next) *next++ = 0;
        line++;
        char *t = trim(ln);
        if (!*t) { FLUSH(); continue; }
        if (line == 1 || (!l->title && t[0] == '#' && t[1] == ' ')) {
            if (t[0] != '#' || t[1] != ' ') { snprintf(err, en, "%d: a lesson starts with its title, \"# Title\"", line); rc = -1; goto out; }
            if (!(l->title = strdup(trim(t + 2)))) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
            continue;
        }
        if (!strncmp(t, "## ", 3) || !strcmp(t, "##")) {
            FLUSH();
            lesson_section *s = realloc(l->sec, sizeof *s * (size_t)(l->n + 1));
            if (!s) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
            l->sec = s;
            cur = &l->sec[l->n++];
            memset(cur, 0, sizeof *cur);
            cur->line = line;
            for (char *p = strtok_r(t + 2, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                char *pat = trim(p);
                if (!*pat) continue;
                char **pp = realloc(cur->patterns, sizeof *pp * (size_t)(cur->n_patterns + 1));
                if (!pp) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
                cur->patterns = pp;
                if (!(cur->patterns[cur->n_patterns] = strdup(pat))) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
                cur->n_patterns++;
            }
            if (!cur->n_patterns) { snprintf(err, en, "%d: a section needs the stage ids it explains, e.g. \"## src.pe, tgt.pe\"", line); rc = -1; goto out; }
            continue;
        }
        if (t[0] == '#' && t[1] == '#' && t[2] == '#' && t[3] == ' ' && strlen(t) < sizeof para) { FLUSH(); pkind = LESSON_HEADING; pline = line; snprintf(para, sizeof para, "%s", t + 4); FLUSH(); pkind = LESSON_PARA; continue; }
        if (t[0] == '#') { snprintf(err, en, "%d: only \"# Title\" (first line), \"## ids\" and \"### heading\" are headings here", line); rc = -1; goto out; }
        if (t[0] == '|' || !strncmp(t, "![", 2) || (t[0] == '<' && t[1] && (t[1] == '/' || (t[1] >= 'a' && t[1] <= 'z')))) {
            snprintf(err, en, "%d: tables, images and HTML are not part of the lesson format; write it as text or a list", line);
            rc = -1;
            goto out;
        }
        lesson_kind k = LESSON_PARA;
        const char *body = t;
        if ((t[0] == '-' || t[0] == '*') && t[1] == ' ') { k = LESSON_BULLET; body = t + 2; }
        else if (t[0] >= '0' && t[0] <= '9') {
            const char *d = t;
            while (*d >= '0' && *d <= '9') d++;
            if (d[0] == '.' && d[1] == ' ') { k = LESSON_NUMBERED; body = d + 2; }
        } else if (t[0] == 'Q' && t[1] == ':') { k = LESSON_QUESTION; body = trim(t + 2); }
        else if (t[0] == 'A' && t[1] == ':') { k = LESSON_ANSWER; body = trim(t + 2); }
        if (k != LESSON_PARA || pkind != LESSON_PARA) FLUSH();
        if (k == LESSON_ANSWER && (!cur || !cur->n_blocks || cur->blocks[cur->n_blocks - 1].kind != LESSON_QUESTION)) {
            snprintf(err, en, "%d: an \"A:\" answer must follow its \"Q:\" question", line);
            rc = -1;
            goto out;
        }
        if (para[0] && strlen(para) + strlen(body) + 2 < sizeof para) strcat(strcat(para, " "), body);
        else if (!para[0] && strlen(body) < sizeof para) { snprintf(para, sizeof para, "%s", body); pline = line; pkind = k; }
        else { snprintf(err, en, "%d: this paragraph is too long; split it with a blank line", line); rc = -1; goto out; }
        if (k != LESSON_PARA) { FLUSH(); pkind = LESSON_PARA; }
    }
    FLUSH();
    if (!l->title) { snprintf(err, en, "1: the file is empty; a lesson starts with \"# Title\""); rc = -1; }
#undef FLUSH
out:
    free(text);
    if (rc) lesson_free(l);
    return rc;
}

void lesson_free(lesson *l) {
    for (int i = 0; i < l->n; i++) {
        for (int k = 0; k < l->sec[i].n_patterns; k++) free(l->sec[i].patterns[k]);
        for (int k = 0; k < l->sec[i].n_blocks; k++) {
            free(l->sec[i].blocks[k].markup);
            free(l->sec[i].blocks[k].cond);
        }
        free(l->sec[i].patterns);
        free(l->sec[i].blocks);
    }
    free(l->sec);
    free(l->title);
    memset(l, 0, sizeof *l);
}

static int literal_chars(const char *p) {
    int n = 0;
    for (; *p; p++) n += *p != '*';
    return n;
}

const lesson_section *lesson_for_stage(const lesson *l, const char *id) {
    const lesson_section *best = NULL;
    int best_n = -1;
    for (int i = 0; i < l->n; i++)
        for (int k = 0; k < l->sec[i].n_patterns; k++)
            if (!fnmatch(l->sec[i].patterns[k], id, 0) && literal_chars(l->sec[i].patterns[k]) > best_n) {
                best = &l->sec[i];
                best_n = literal_chars(l->sec[i].patterns[k]);
            }
    return best;
}

const lesson_section *lesson_section_named(const lesson *l, const char *pattern) {
    for (int i = 0; i < l->n; i++)
        for (int k = 0; k < l->sec[i].n_patterns; k++)
            if (!strcmp(l->sec[i].patterns[k], pattern)) return &l->sec[i];
    return NULL;
}

// ---------------------------------------------------------------- characters
// The code point at s (its length in *len; a broken byte counts as itself).
static unsigned cp_at(const char *s, int *len) {
    const unsigned char *p = (const unsigned char *)s;
    int n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 1;
    unsigned c = n == 1 ? p[0] : p[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) { *len = 1; return p[0]; }
        c = c << 6 | (p[i] & 0x3F);
    }
    *len = n;
    return c;
}

// ---------------------------------------------------------------- characters a lesson does not use
// The zero of every set of decimal digits Unicode has but 0–9 (category Nd,
// Unicode 14): each set is ten code points from its zero.
static const unsigned digit_zeros[] = {
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040,
    0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0,
    0xA9F0, 0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650,
    0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2,
    0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

int lesson_odd_char(const char *s, char *why, size_t n) {
    for (int i = 0, len; s[i]; i += len) {
        unsigned c = cp_at(s + i, &len);
        if (c < 0x80) continue;
        const char *what = NULL;
        int digit = -1;
        for (size_t k = 0; k < sizeof digit_zeros / sizeof *digit_zeros; k++)
            if (c >= digit_zeros[k] && c < digit_zeros[k] + 10) digit = (int)(c - digit_zeros[k]);
        if (digit >= 0) what = c >= 0x6F0 && c <= 0x6F9 ? "a Persian digit" : c >= 0x660 && c <= 0x669 ? "an Arabic-Indic digit" : "a digit";
        if (digit >= 0) {
            snprintf(why, n, "%s %.*s (U+%04X); write %d: numbers are written with 0–9 in every language, as the matrices show them (lessons/README.md)",
                     what, len, s + i, c, digit);
            return i;
        }
        if (c == 0x66B || c == 0x66C) {
            snprintf(why, n, "the Arabic %s separator %.*s (U+%04X); write \"%c\", as the matrices do (lessons/README.md)",
                     c == 0x66B ? "decimal" : "thousands", len, s + i, c, c == 0x66B ? '.' : ',');
            return i;
        }
        if (c == 0x2060 || c == 0x200B || c == 0xFEFF) {
            snprintf(why, n, "an invisible %s (U+%04X); remove it: code spans and stage ids never break without it (lessons/README.md)",
                     c == 0x200B ? "zero-width space" : "word joiner", c);
            return i;
        }
    }
    return -1;
}

// Is c part of a word? Letters, digits and the marks on letters of any
// script are; spaces, punctuation, symbols, ZWNJ (it joins a Persian word to
// its suffix: see word_goes_on) and the bidi marks around formulas are not.
static int word_cp(unsigned c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (c <= 0xBF || c == 0xD7 || c == 0xF7) return 0;                      // Latin-1 punctuation, ×, ÷
    if (c == 0x060C || c == 0x061B || c == 0x061F || c == 0x06D4 || (c >= 0x066A && c <= 0x066D)) return 0; // ، ؛ ؟ ۔ ٪…
    if (c >= 0x2000 && c <= 0x2BFF) return 0;                               // general punctuation, ZWNJ, bidi marks, arrows, math
    if (c >= 0x3000 && c <= 0x303F) return 0;
    return 1;
}

// ---------------------------------------------------------------- glossary
// A glossary word is found in text inflected (lessons/README.md, "The
// glossary"). Letters are compared folded and without the marks riding on
// them; each form of an entry is kept that way, an Arabic article taken off
// each of its words. A text word matches a form's word when it is
//   [clitics (Arabic, first word)] [article ال (Arabic)] stem [ending]
// as a whole word: the endings are few, listed below per language.

#define ZWNJ 0x200C

// Skipped when comparing letters: Arabic harakat (the Persian ezafe kasra and
// the hamza above of «ـهٔ» among them), superscript alef, Quranic marks, Latin
// combining accents, tatweel, and ZWNJ (so «کلید‌ها» and «کلیدها» are one word).
static int is_mark(unsigned c) {
    return (c >= 0x064B && c <= 0x065F) || c == 0x0670 || c == 0x0640 || (c >= 0x06D6 && c <= 0x06ED) || (c >= 0x0300 && c <= 0x036F) ||
           c == ZWNJ;
}

// One letter for the spellings of one: Latin case; Arabic yeh, alef maksura
// and Persian yeh; Arabic and Persian kaf; alef with or without hamza or madda; heh with yeh above.
static unsigned fold(unsigned c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    switch (c) {
    case 0x064A: case 0x0649: return 0x06CC;                           // ي ى -> ی
    case 0x0643: return 0x06A9;                                         // ك -> ک
    case 0x0622: case 0x0623: case 0x0625: case 0x0671: return 0x0627; // آ أ إ ٱ -> ا
    case 0x06C0: case 0x06D5: return 0x0647;                           // ۀ ە -> ه
    default: return c;
    }
}

// The letter at text + *i, folded; *i moves past it and the marks after it. 0 at the end.
static unsigned letter(const char *text, int *i) {
    if (!text[*i]) return 0;
    int len;
    unsigned c = cp_at(text + *i, &len);
    *i += len;
    while (text[*i] && is_mark(cp_at(text + *i, &len))) *i += len;
    return fold(c);
}

// Does the word go on at text + i: a letter, digit or mark, or a ZWNJ before one?
static int word_goes_on(const char *text, int i) {
    int len;
    if (!text[i]) return 0;
    unsigned c = cp_at(text + i, &len);
    if (c == ZWNJ) return text[i + len] && word_cp(cp_at(text + i + len, &len));
    return word_cp(c);
}

static int put_cp(char *out, unsigned c) { // UTF-8; returns its length
    if (c < 0x80) { out[0] = (char)c; return 1; }
    if (c < 0x800) { out[0] = (char)(0xC0 | c >> 6); out[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) { out[0] = (char)(0xE0 | c >> 12); out[1] = (char)(0x80 | (c >> 6 & 0x3F)); out[2] = (char)(0x80 | (c & 0x3F)); return 3; }
    out[0] = (char)(0xF0 | c >> 18); out[1] = (char)(0x80 | (c >> 12 & 0x3F)); out[2] = (char)(0x80 | (c >> 6 & 0x3F)); out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int is_space_cp(unsigned c) { return c == ' ' || c == '\t' || c == '\n' || c == 0xA0 || c == 0x202F; }
static int arabic_letter(unsigned c) { return c >= 0x0620 && c <= 0x06FF && !is_mark(c); }

// A form as it is compared: folded letters, no marks, one space between
// words; in Arabic without the article of each word. "" if it has no letter.
static void fold_form(const char *w, int arabic, char *out, size_t n) {
    size_t k = 0;
    int letters = 0, i = 0, word_start = 1;
    while (w[i] && k + 5 < n) {
        int len;
        unsigned c = cp_at(w + i, &len);
        if (is_mark(c)) { i += len; continue; } // (a mark before any letter)
        if (is_space_cp(c)) { // words apart by one space
            i += len;
            if (k && out[k - 1] != ' ') out[k++] = ' ';
            word_start = 1;
            continue;
        }
        if (arabic && word_start) { // ال + at least two letters: the article
            int j = i, rest = 0;
            unsigned a = letter(w, &j), l = letter(w, &j);
            for (int t = j; w[t] && !is_space_cp(cp_at(w + t, &len)) && rest < 2;) rest += letter(w, &t) != 0;
            if (a == 0x0627 && l == 0x0644 && rest >= 2) i = j;
        }
        word_start = 0;
        c = letter(w, &i);
        k += (size_t)put_cp(out + k, c);
        letters += word_cp(c);
    }
    while (k && out[k - 1] == ' ') k--;
    out[k] = 0;
    if (!letters) out[0] = 0;
}

int glossary_load(glossary *g, const char *path, const char *lang, char *err, size_t en) {
    memset(g, 0, sizeof *g);
    snprintf(g->lang, sizeof g->lang, "%s", lang);
    char *text = read_all(path, err, en);
    if (!text) return -1;
    int line = 0, rc = 0;
    if (!utf8_ok(text)) { snprintf(err, en, "1: the file is not UTF-8; save it as UTF-8"); rc = -1; goto out; }
    for (char *ln = text, *next; ln && *ln; ln = next) {
        next = strchr(ln, '\n');
        if (next) *next++ = 0;
        line++;
        char *t = trim(ln);
        if (!*t || t[0] == '#') continue;
        char *eq = strchr(t, '=');
        if (!eq) { snprintf(err, en, "%d: a glossary line is \"key = word\"", line); rc = -1; goto out; }
        *eq = 0;
        char *key = trim(t), *words = trim(eq + 1);
        if (!*key || !*words || strlen(key) >= 48) { snprintf(err, en, "%d: a glossary line is \"key = word\" (a key under 48 bytes, a word under 96)", line); rc = -1; goto out; }
        if (strchr(words, '=')) { snprintf(err, en, "%d: a glossary line has one \"=\"; write key = word | other form", line); rc = -1; goto out; }
        if (glossary_word(g, key)) { snprintf(err, en, "%d: \"%s\" is listed twice; keep one", line, key); rc = -1; goto out; }
        void *k2 = realloc(g->key, sizeof *g->key * (size_t)(g->n + 1)), *w2 = realloc(g->word, sizeof *g->word * (size_t)(g->n + 1));
        if (k2) g->key = k2;
        if (w2) g->word = w2;
        if (!k2 || !w2) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
        snprintf(g->key[g->n], sizeof g->key[0], "%s", key);
        // the forms: "word | other form | …", the first one what the other languages show
        int first = 1;
        for (char *w = words, *bar; w; w = bar, first = 0) {
            bar = strchr(w, '|');
            if (bar) *bar++ = 0;
            w = trim(w);
            if (!*w) { snprintf(err, en, "%d: an empty form beside a \"|\"; write key = word | other form", line); rc = -1; goto out; }
            if (strlen(w) >= sizeof g->word[0]) { snprintf(err, en, "%d: a glossary line is \"key = word\" (a key under 48 bytes, a word under 96)", line); rc = -1; goto out; }
            glossary_form f = {g->n, ""};
            fold_form(w, !strcmp(lang, "ar"), f.text, sizeof f.text);
            if (!f.text[0]) { snprintf(err, en, "%d: \"%s\" has no letter; a form is a word as the lessons write it", line, w); rc = -1; goto out; }
            for (int k = 0; k < g->n_forms; k++)
                if (!strcmp(g->forms[k].text, f.text)) {
                    snprintf(err, en, "%d: \"%s\" is already a form of \"%s\"; keep one", line, w, g->key[g->forms[k].entry]);
                    rc = -1;
                    goto out;
                }
            glossary_form *f2 = realloc(g->forms, sizeof *f2 * (size_t)(g->n_forms + 1));
            if (!f2) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
            g->forms = f2;
            g->forms[g->n_forms++] = f;
            if (first) snprintf(g->word[g->n], sizeof g->word[0], "%s", w);
        }
        g->n++;
    }
out:
    free(text);
    if (rc) glossary_free(g);
    return rc;
}

void glossary_free(glossary *g) {
    free(g->key);
    free(g->word);
    free(g->forms);
    memset(g, 0, sizeof *g);
}

const char *glossary_word(const glossary *g, const char *key) {
    for (int i = 0; i < g->n; i++) if (!strcmp(g->key[i], key)) return g->word[i];
    return NULL;
}

// ---------------------------------------------------------------- glossary words in text
// Endings (folded, so «ي» is «ی» and a ZWNJ before them does not count).
// Arabic: sound plurals and duals, the accusative «ًا», and attached
// pronouns; a stem ending in «ة» writes «ت» before a pronoun or «ان/ين».
static const char *ar_pronoun[] = {"ه", "ها", "هم", "هما", "هن", "کم", "نا"};
static const char *ar_plain[] = {"", "ات", "ان", "ین", "ون", "ا"};
static const char *ar_ta[] = {"ة", "ات", "تان", "تین", "تا", "تی"};
// Persian: a plural («ـها», «ـان», «ـیان» after a vowel), then ezafe or the
// indefinite «ی» («ـیِ», «‌ی»), a pronoun, or «است/اند». vowel: only after
// a vowel (ا, و, or the plural's ا); heh: only after ه or ی.
enum { ANY, VOWEL, HEH, CONSONANT };
static const struct { const char *s; int after; } fa_number[] = {{"", ANY}, {"ها", ANY}, {"ان", CONSONANT}, {"یان", VOWEL}};
static const struct { const char *s; int after; } fa_more[] = {
    {"", ANY},   {"ی", ANY},    {"یی", VOWEL},  {"ای", HEH},     {"ش", ANY},    {"اش", ANY}, {"شان", ANY},
    {"یش", VOWEL}, {"یشان", VOWEL}, {"اند", ANY}, {"است", ANY}, {"ست", VOWEL}};

static int ends_with(const char *s, size_t n, const char *end) {
    size_t k = strlen(end);
    return n >= k && !memcmp(s + n - k, end, k);
}

static int after_ok(int after, const char *base, size_t n) {
    int vowel = ends_with(base, n, "ا") || ends_with(base, n, "و");
    if (after == VOWEL) return vowel;
    if (after == HEH) return ends_with(base, n, "ه") || ends_with(base, n, "ی");
    if (after == CONSONANT) return !vowel && !ends_with(base, n, "ه");
    return 1;
}

// Whether tail may follow stem (n bytes of it) in a word of this kind.
enum { EXACT, LATIN, ARABIC, PERSIAN };
static int ending_ok(int kind, const char *stem, size_t n, const char *tail, int ta) {
    if (!*tail) return !ta;
    if (kind == LATIN) return !strcmp(tail, "s") || !strcmp(tail, "es");
    if (kind == ARABIC) {
        const char **set = ta ? ar_ta : ar_plain;
        size_t ns = ta ? sizeof ar_ta / sizeof *ar_ta : sizeof ar_plain / sizeof *ar_plain;
        for (size_t i = 0; i < ns; i++)
            if (!strcmp(tail, set[i])) return 1;
        const char *base[] = {"", "ات", ta ? "ت" : ""}; // then a pronoun
        for (size_t b = 0; b < 3; b++) {
            size_t k = strlen(base[b]);
            if (strncmp(tail, base[b], k) || (!k && ta)) continue;
            for (size_t p = 0; p < sizeof ar_pronoun / sizeof *ar_pronoun; p++)
                if (!strcmp(tail + k, ar_pronoun[p])) return 1;
        }
        return 0;
    }
    if (kind == PERSIAN) {
        char base[128];
        for (size_t a = 0; a < sizeof fa_number / sizeof *fa_number; a++) {
            size_t k = strlen(fa_number[a].s);
            if (strncmp(tail, fa_number[a].s, k) || !after_ok(fa_number[a].after, stem, n) || n + k >= sizeof base) continue;
            memcpy(base, stem, n);
            memcpy(base + n, fa_number[a].s, k);
            for (size_t b = 0; b < sizeof fa_more / sizeof *fa_more; b++)
                if (!strcmp(tail + k, fa_more[b].s) && after_ok(fa_more[b].after, base, n + k)) return 1;
        }
    }
    return 0;
}

// Matches the n bytes of folded stem at text + i, letter by letter (other
// characters, such as a hyphen, as they are). Returns where it ends in text, or -1.
static int match_stem(const char *text, int i, const char *stem, size_t n) {
    for (size_t k = 0; k < n;) {
        int len;
        unsigned want = cp_at(stem + k, &len);
        k += (size_t)len;
        if (word_cp(want)) {
            if (letter(text, &i) != want) return -1;
        } else {
            unsigned c = cp_at(text + i, &len);
            if (!text[i] || c != want) return -1;
            i += len;
        }
    }
    return i;
}

// The word of one form at text + i (its stem's first letter): the end of the
// whole text word, or -1.
static int match_word(const char *text, int i, const char *w, size_t n, int kind) {
    int ta = kind == ARABIC && ends_with(w, n, "ة"), q;
    size_t stem_n = ta ? n - strlen("ة") : n;
    for (int y = 0; y < 2; y++) { // (Latin: the stem as it is, then "query" as "quer" + "ies")
        if (y && !(kind == LATIN && n >= 2 && w[n - 1] == 'y' && !strchr("aeiou", w[n - 2]))) break;
        size_t m = y ? n - 1 : stem_n;
        if (!m || (q = match_stem(text, i, w, m)) < 0) continue;
        char tail[64];
        size_t k = 0;
        int end = q;
        while (word_goes_on(text, end) && k + 5 < sizeof tail) {
            unsigned c = letter(text, &end);
            if (c != ZWNJ) k += (size_t)put_cp(tail + k, c);
        }
        if (word_goes_on(text, end)) continue; // a longer word than any ending
        tail[k] = 0;
        if (y ? !strcmp(tail, "ies") : ending_ok(kind, w, stem_n, tail, ta)) return end;
    }
    return -1;
}

// Where an Arabic word at text + i may have its stem: after «و» or «ف», then
// «ب», «ک» or «ل», then the article «ال» («ل» + «ال» is written «لل»).
static int ar_stem_starts(const char *text, int i, int first, int *at, int max) {
    int n = 0;
    static const unsigned conj[] = {0, 0x0648, 0x0641}, prep[] = {0, 0x0628, 0x06A9, 0x0644};
    for (int c = 0; c < (first ? 3 : 1); c++)
        for (int p = 0; p < (first ? 4 : 1); p++)
            for (int a = 0; a < 3; a++) {
                int j = i;
                if (conj[c] && letter(text, &j) != conj[c]) continue;
                if (prep[p] && letter(text, &j) != prep[p]) continue;
                if (a == 1 && (letter(text, &j) != 0x0627 || letter(text, &j) != 0x0644)) continue; // ال
                if (a == 2 && (prep[p] != 0x0644 || letter(text, &j) != 0x0644)) continue;       // لل
                int seen = 0;
                for (int k = 0; k < n; k++) seen |= at[k] == j;
                if (!seen && n < max) at[n++] = j;
            }
    return n;
}

// The end of the whole form (words apart by spaces) at text + i, or -1. at0:
// where the stem of an Arabic first word may start (ar_stem_starts).
static int match_form(const char *text, int i, const char *form, const char *lang, const int *at0, int n_at0) {
    int first = 1;
    for (const char *w = form;;) {
        size_t n = strcspn(w, " ");
        int len;
        unsigned last = 0;
        for (size_t k = 0; k < n; k += (size_t)len) last = cp_at(w + k, &len);
        int kind = last < 0x80 && ((last >= 'a' && last <= 'z')) ? LATIN
                 : arabic_letter(last) && !strcmp(lang, "ar") ? ARABIC
                 : arabic_letter(last) && !strcmp(lang, "fa") ? PERSIAN : EXACT;
        int at[24], n_at = 1, end = -1;
        const int *from = at;
        at[0] = i;
        if (kind == ARABIC && first) from = at0, n_at = n_at0;
        else if (kind == ARABIC) n_at = ar_stem_starts(text, i, 0, at, 24);
        for (int k = 0; k < n_at && end < 0; k++) end = match_word(text, from[k], w, n, kind);
        if (end < 0) return -1;
        if (!w[n]) return end;
        int spaces = 0; // the next word after one or more spaces (a line break, a no-break space)
        while (text[end] && is_space_cp(cp_at(text + end, &len))) { end += len; spaces++; }
        if (!spaces) return -1;
        i = end;
        w += n + 1;
        first = 0;
    }
}

int glossary_find(const glossary *g, const char *text, glossary_hit *hits, int max) {
    int n = 0, i = 0, in_word = 0;
    while (text[i] && n < max) {
        int len;
        unsigned c = cp_at(text + i, &len);
        int best = -1, best_end = -1;
        if (!in_word && word_cp(c) && !is_mark(c)) {
            int at0[24], n_at0 = 1;
            at0[0] = i;
            if (!strcmp(g->lang, "ar")) n_at0 = ar_stem_starts(text, i, 1, at0, 24);
            for (int f = 0; f < g->n_forms; f++) {
                int end = match_form(text, i, g->forms[f].text, g->lang, at0, n_at0);
                if (end > best_end) { best = g->forms[f].entry; best_end = end; }
            }
        }
        if (best >= 0) {
            hits[n++] = (glossary_hit){i, best_end, best};
            i = best_end;
            in_word = 1; // a word's last letter (and a word never starts at what follows it)
            continue;
        }
        in_word = word_cp(c) || c == ZWNJ; // (after a ZWNJ the same word goes on)
        i += len;
    }
    return n;
}

int glossary_at(const glossary *g, const char *text, int i) {
    glossary_hit hits[256];
    int n = glossary_find(g, text, hits, 256);
    for (int k = 0; k < n; k++) if (i >= hits[k].start && i < hits[k].end) return hits[k].entry;
    return -1;
}
