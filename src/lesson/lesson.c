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

#ifndef TVIZ_LESSONS_DIR
#define TVIZ_LESSONS_DIR "lessons"
#endif

int lesson_is_rtl(const char *lang) {
    static const char *rtl[] = {"fa", "ar", "he", "ur", "ps", "ckb"};
    for (size_t i = 0; i < sizeof rtl / sizeof *rtl; i++) if (!strcmp(lang, rtl[i])) return 1;
    return 0;
}

const char *tviz_data_dir(const char *name, const char *env, const char *built_in, char *buf, size_t n) {
    const char *v = getenv(env);
    if (v && *v) return v;
    char exe[PATH_MAX], guess[PATH_MAX + 64];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) { // build/tviz -> build/../<name>
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        struct stat st;
        char real[PATH_MAX];
        if (slash) {
            *slash = 0;
            snprintf(guess, sizeof guess, "%s/../%s", exe, name);
            if (!stat(guess, &st) && S_ISDIR(st.st_mode) && realpath(guess, real) && strlen(real) < n) {
                memcpy(buf, real, strlen(real) + 1);
                return buf;
            }
        }
    }
    return built_in;
}

const char *lesson_dir(void) {
    static char dir[PATH_MAX];
    return tviz_data_dir("lessons", "TVIZ_LESSONS", TVIZ_LESSONS_DIR, dir, sizeof dir);
}

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

// **bold**, *italic*, `code` (isolated left to right); <, >, & escaped. Returns NULL with err set when
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
            // paragraph the formula's brackets and signs stay with it
            put(&o, &n, &cap, "\u2066<tt>", 3 + 4);
            for (const char *q = p + 1; q < end; q++) {
                if (*q == '<') put(&o, &n, &cap, "&lt;", 4);
                else if (*q == '>') put(&o, &n, &cap, "&gt;", 4);
                else if (*q == '&') put(&o, &n, &cap, "&amp;", 5);
                else put(&o, &n, &cap, q, 1);
            }
            put(&o, &n, &cap, "</tt>\u2069", 5 + 3);
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

// ---------------------------------------------------------------- glossary
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
        char *key = trim(t), *word = trim(eq + 1);
        if (!*key || !*word || strlen(key) >= 48 || strlen(word) >= 96) { snprintf(err, en, "%d: a glossary line is \"key = word\" (a key under 48 bytes, a word under 96)", line); rc = -1; goto out; }
        if (glossary_word(g, key)) { snprintf(err, en, "%d: \"%s\" is listed twice; keep one", line, key); rc = -1; goto out; }
        void *k2 = realloc(g->key, sizeof *g->key * (size_t)(g->n + 1)), *w2 = realloc(g->word, sizeof *g->word * (size_t)(g->n + 1));
        if (k2) g->key = k2;
        if (w2) g->word = w2;
        if (!k2 || !w2) { snprintf(err, en, "%d: out of memory", line); rc = -1; goto out; }
        snprintf(g->key[g->n], sizeof g->key[0], "%s", key);
        snprintf(g->word[g->n], sizeof g->word[0], "%s", word);
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
    memset(g, 0, sizeof *g);
}

const char *glossary_word(const glossary *g, const char *key) {
    for (int i = 0; i < g->n; i++) if (!strcmp(g->key[i], key)) return g->word[i];
    return NULL;
}

// ---------------------------------------------------------------- glossary words in text
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

// Is c part of a word? Letters and digits of any script are; spaces,
// punctuation, symbols, ZWNJ (which ends a Persian word before its suffix)
// and the bidi marks around formulas are not.
static int word_cp(unsigned c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (c <= 0xBF || c == 0xD7 || c == 0xF7) return 0;                      // Latin-1 punctuation, ×, ÷
    if (c == 0x060C || c == 0x061B || c == 0x061F || c == 0x06D4 || (c >= 0x066A && c <= 0x066D)) return 0; // ، ؛ ؟ ۔ ٪…
    if (c >= 0x2000 && c <= 0x2BFF) return 0;                               // general punctuation, ZWNJ, bidi marks, arrows, math
    if (c >= 0x3000 && c <= 0x303F) return 0;
    return 1;
}

static int lower_ascii(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

// The end of word w if it starts text at i (ASCII without case), else -1.
static int match_at(const char *text, int i, const char *w) {
    int k = 0;
    for (; w[k]; k++) {
        unsigned char a = (unsigned char)text[i + k], b = (unsigned char)w[k];
        if (!a || (a < 0x80 ? lower_ascii(a) != lower_ascii(b) : a != b)) return -1;
    }
    int end = i + k;
    char last = w[k - 1];
    if (((last >= 'a' && last <= 'z') || (last >= 'A' && last <= 'Z')) && lower_ascii((unsigned char)text[end]) == 's') {
        int len;
        if (!text[end + 1] || !word_cp(cp_at(text + end + 1, &len))) end++; // "heads", "keys"
    }
    int len;
    if (text[end] && word_cp(cp_at(text + end, &len))) return -1;
    return end;
}

int glossary_find(const glossary *g, const char *text, glossary_hit *hits, int max) {
    int n = 0, i = 0, prev_word = 0;
    while (text[i] && n < max) {
        int len;
        unsigned c = cp_at(text + i, &len);
        int best = -1, best_end = -1;
        if (!prev_word)
            for (int e = 0; e < g->n; e++) {
                int end = match_at(text, i, g->word[e]);
                if (end > best_end) { best = e; best_end = end; }
            }
        if (best >= 0) {
            hits[n++] = (glossary_hit){i, best_end, best};
            i = best_end;
            prev_word = 1; // a word's last letter (and a word never starts at what follows it)
            continue;
        }
        prev_word = word_cp(c);
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
