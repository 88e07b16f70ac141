// lexicon.c — reads the word lists of the synthetic English→Persian corpus
// (assets/corpus/*.tsv: one entry a line, tab-separated columns described in
// each file's header comment) and checks every entry: the number of columns,
// known classes, frames and kinds, Persian written with Persian letters (ی
// U+06CC, ک U+06A9, never the Arabic ي ك), no stray spaces or ZWNJ at the
// ends of a word, alignments in range. An error names the line.
#include "lexicon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lx_file_names[LX_N_FILES] = {
    "nouns.tsv", "verbs.tsv", "adjectives.tsv", "names.tsv", "pronouns.tsv", "determiners.tsv",
    "prepositions.tsv", "adverbs.tsv", "times.tsv", "phrases.tsv", "conjunctions.tsv", "gerunds.tsv"};
static const int n_columns[LX_N_FILES] = {5, 11, 3, 3, 13, 5, 4, 3, 4, 3, 2, 3};

#define LX_MAX_FILE (4u << 20)
#define LX_MAX_FIELDS 16

const char *tf_lexicon_file(int file) { return file >= 0 && file < LX_N_FILES ? lx_file_names[file] : NULL; }

// ---------------------------------------------------------------- storage
tf_lexicon *tf_lexicon_new(void) { return calloc(1, sizeof(tf_lexicon)); }

void tf_lexicon_free(tf_lexicon *lx) {
    if (!lx) return;
    for (int i = 0; i < lx->n_strings; i++) free(lx->strings[i]);
    free(lx->strings);
    free(lx->nouns); free(lx->verbs); free(lx->adjs); free(lx->names); free(lx->prons); free(lx->dets);
    free(lx->preps); free(lx->advs); free(lx->times); free(lx->phrases); free(lx->conjs); free(lx->gerunds);
    free(lx);
}

static char *keep(tf_lexicon *lx, const char *s) {
    if (lx->n_strings == lx->cap_strings) {
        int nc = lx->cap_strings ? 2 * lx->cap_strings : 1024;
        char **p = realloc(lx->strings, sizeof(char *) * (size_t)nc);
        if (!p) return NULL;
        lx->strings = p; lx->cap_strings = nc;
    }
    char *c = strdup(s);
    if (c) lx->strings[lx->n_strings++] = c;
    return c;
}

// Room for one more entry of a list: its address, or NULL (out of memory).
#define GROW(lx, name) grow((void **)&(lx)->name, &(lx)->n_##name, &(lx)->cap_##name, sizeof *(lx)->name)
static void *grow(void **list, int *n, int *cap, size_t size) {
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        void *p = realloc(*list, size * (size_t)nc);
        if (!p) return NULL;
        *list = p; *cap = nc;
    }
    void *at = (char *)*list + size * (size_t)*n;
    memset(at, 0, size);
    return at;
}

uint32_t lx_class(const tf_lexicon *lx, const char *name) {
    for (int i = 0; i < lx->n_classes; i++) if (!strcmp(lx->class_name[i], name)) return 1u << i;
    return 0;
}

// ---------------------------------------------------------------- fields
// Checks column col (1-based) of an entry: no empty text, no space at
// either end or doubled, no ZWNJ next to a space or at an end (at the start
// only where zw_start allows it: the perfect ending ‌ام), no Arabic ي or ك.
static int check_text(const char *s, int col, int zw_start, tf_err *e) {
    size_t n = strlen(s);
    if (!n) return tf_fail(e, "column %d is empty; write a word, or - where the header allows none", col);
    if (s[0] == ' ' || s[n - 1] == ' ' || strstr(s, "  "))
        return tf_fail(e, "column %d (\"%.60s\") has a space at an end or two in a row; separate words with one space", col, s);
    if (strstr(s, "\xd9\x8a") || strstr(s, "\xd9\x83"))
        return tf_fail(e, "column %d (\"%.60s\") has an Arabic ي or ك; write the Persian ی (U+06CC) and ک (U+06A9)", col, s);
    if (!strncmp(s, ZW, 3) && !zw_start)
        return tf_fail(e, "column %d (\"%.60s\") starts with a ZWNJ; remove it", col, s);
    if ((n >= 3 && !strcmp(s + n - 3, ZW)) || strstr(s, ZW " ") || strstr(s, " " ZW))
        return tf_fail(e, "column %d (\"%.60s\") has a ZWNJ next to a space or at its end; a ZWNJ joins two parts of one word", col, s);
    return 0;
}

// "a,b,c" or "*" -> class bits; defines classes when define is set.
static int parse_classes(tf_lexicon *lx, const char *s, int define, uint32_t *out, tf_err *e) {
    *out = 0;
    if (!strcmp(s, "*")) { *out = 0xffffffffu; return 0; }
    if (!strcmp(s, "-")) return 0;
    char buf[256];
    if (strlen(s) >= sizeof buf) return tf_fail(e, "the classes \"%.40s…\" are too long; use fewer", s);
    snprintf(buf, sizeof buf, "%s", s);
    char *save;
    for (char *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        uint32_t bit = lx_class(lx, c);
        if (!bit && define) {
            if (lx->n_classes == LX_MAX_CLASSES)
                return tf_fail(e, "the class \"%.24s\" is one more than the %d tviz takes; reuse a class", c, LX_MAX_CLASSES);
            if (strlen(c) >= sizeof lx->class_name[0] || !c[0])
                return tf_fail(e, "the class name \"%.30s\" is empty or longer than %zu letters; shorten it", c, sizeof lx->class_name[0] - 1);
            snprintf(lx->class_name[lx->n_classes], sizeof lx->class_name[0], "%s", c);
            bit = 1u << lx->n_classes++;
        }
        if (!bit) return tf_fail(e, "the class \"%.30s\" is not a class of any noun in nouns.tsv; use one that is, or * for any", c);
        *out |= bit;
    }
    return 0;
}

static int count_words(const char *s) {
    int n = 0;
    for (const char *p = s; *p; p++) if (*p != ' ' && (p == s || p[-1] == ' ')) n++;
    return n;
}

// "0 1 -1" -> al (n entries, each -1..n_en-1), at most cap Persian words.
static int parse_align(const char *s, int *al, int n, int cap, int n_en, tf_err *e) {
    if (n > cap) return tf_fail(e, "the Persian has %d words, more than %d; shorten it", n, cap);
    return tf_parse_alignment(s, al, n, n_en, "English", "Persian", e);
}

static int pick(const char *s, const char *const *names, int n, const char *col, tf_err *e) {
    for (int i = 0; i < n; i++) if (!strcmp(s, names[i])) return i;
    char list[256] = "";
    for (int i = 0; i < n; i++) { strcat(list, i ? ", " : ""); strcat(list, names[i]); }
    tf_fail(e, "the %s \"%.30s\" is not one tviz knows; use one of %s", col, s, list);
    return -1;
}

static int tenses_of(const char *s, int *out, tf_err *e) {
    static const char *const names[] = {"present", "progressive", "past", "future", "perfect", "be", "be-past", "be-future"};
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *out = 0;
    char *save;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = pick(t, names, LX_N_TENSES, "tense", e);
        if (k < 0) return -1;
        *out |= 1 << k;
    }
    if (!*out) return tf_fail(e, "no tense given; list the tenses it goes with, e.g. past,future");
    return 0;
}

// ---------------------------------------------------------------- one line of each file
#define K(s) (keep(lx, s))
#define KEEP_OR_FAIL(dst, s) do { if (!((dst) = K(s))) return tf_fail(e, "out of memory while reading the word lists"); } while (0)
#define OPT(dst, s) do { if (strcmp(s, "-")) KEEP_OR_FAIL(dst, s); else (dst) = NULL; } while (0)

static int parse_entry(tf_lexicon *lx, int file, char **f, tf_err *e) {
    static const char *const frames[] = {"tr", "az", "be", "ba", "like", "have", "in", "go", "give"};
    static const char *const adv_kinds[] = {"degree", "freq", "never", "manner"};
    static const char *const name_kinds[] = {"person", "city", "country", "language"};
    static const char *const persons[] = {"1s", "2s", "3s", "1p", "2p", "3p"};
    static const char *const numbers[] = {"sg", "pl"};
    static const char *const defs[] = {"indef", "def"};
    int nc = n_columns[file];
    // every column is text; the checks below say which may be "-"
    for (int i = 0; i < nc; i++) if (check_text(f[i], i + 1, file == LX_PRONOUNS && i == 10, e)) return -1;
    switch (file) {
    case LX_NOUNS: {
        lx_noun *n = GROW(lx, nouns);
        if (!n) break;
        if (!strcmp(f[2], "-")) return tf_fail(e, "the Persian noun is missing; write it in the third column");
        if (!strcmp(f[1], "-") != !strcmp(f[3], "-"))
            return tf_fail(e, "a mass noun has - as both plurals, a count noun both plurals; fix the second or fourth column");
        KEEP_OR_FAIL(n->en, f[0]); OPT(n->en_pl, f[1]); KEEP_OR_FAIL(n->fa, f[2]); OPT(n->fa_pl, f[3]);
        if (n->fa_pl && strstr(n->fa_pl, " ها"))
            return tf_fail(e, "the Persian plural \"%.40s\" has a detached ها; join it with a ZWNJ (U+200C) or straight on", n->fa_pl);
        if (parse_classes(lx, f[4], 1, &n->cls, e)) return -1;
        lx->n_nouns++;
        return 0;
    }
    case LX_VERBS: {
        lx_verb *v = GROW(lx, verbs);
        if (!v) break;
        for (int i = 0; i < 5; i++) KEEP_OR_FAIL(v->en[i], f[i]);
        OPT(v->pre, f[5]); KEEP_OR_FAIL(v->pres, f[6]); KEEP_OR_FAIL(v->past, f[7]);
        if (!strcmp(f[6], "-") || !strcmp(f[7], "-")) return tf_fail(e, "a verb needs both Persian stems; write them in columns 7 and 8");
        if (strchr(f[6], ' ') || strchr(f[7], ' ')) return tf_fail(e, "a Persian stem is one word; put the rest of a compound verb in the preverb column");
        char fr[32];
        snprintf(fr, sizeof fr, "%s", f[8]);
        char *colon = strchr(fr, ':');
        if (colon) { *colon = 0; KEEP_OR_FAIL(v->en_prep, colon + 1); }
        if ((v->frame = pick(fr, frames, FR_N, "frame", e)) < 0) return -1;
        if (colon && v->frame != FR_BE && v->frame != FR_BA && v->frame != FR_GO && v->frame != FR_GIVE)
            return tf_fail(e, "only the frames be, ba, go and give take an English preposition after a colon; remove it");
        if (parse_classes(lx, f[9], 0, &v->cls, e)) return -1;
        if (!v->cls && v->frame != FR_IN && v->frame != FR_GO) return tf_fail(e, "a verb with an object needs its object classes; list them in column 10");
        if (strcmp(f[10], "-") && strspn(f[10], "sam") != strlen(f[10]))
            return tf_fail(e, "the flags \"%.20s\" are not s (stative), a (an animal may be the subject), m (a model may be); write them or -", f[10]);
        v->stative = strchr(f[10], 's') != NULL;
        v->animal = strchr(f[10], 'a') != NULL;
        v->model = strchr(f[10], 'm') != NULL;
        lx->n_verbs++;
        return 0;
    }
    case LX_ADJECTIVES: case LX_GERUNDS: {
        uint32_t cls;
        if (parse_classes(lx, f[2], 0, &cls, e)) return -1;
        if (file == LX_ADJECTIVES) {
            lx_adj *a = GROW(lx, adjs);
            if (!a) break;
            KEEP_OR_FAIL(a->en, f[0]); KEEP_OR_FAIL(a->fa, f[1]); a->cls = cls;
            lx->n_adjs++;
        } else {
            lx_gerund *g = GROW(lx, gerunds);
            if (!g) break;
            KEEP_OR_FAIL(g->en, f[0]); KEEP_OR_FAIL(g->fa, f[1]); g->cls = cls;
            lx->n_gerunds++;
        }
        return 0;
    }
    case LX_NAMES: {
        lx_name *n = GROW(lx, names);
        if (!n) break;
        KEEP_OR_FAIL(n->en, f[0]); KEEP_OR_FAIL(n->fa, f[1]);
        if ((n->kind = pick(f[2], name_kinds, 4, "kind", e)) < 0) return -1;
        if (n->en[0] < 'A' || n->en[0] > 'Z') return tf_fail(e, "the name \"%.40s\" does not start with a capital; write it as in a sentence", n->en);
        lx->n_names++;
        return 0;
    }
    case LX_PRONOUNS: {
        lx_pronoun *p = GROW(lx, prons);
        if (!p) break;
        char **dst[] = {&p->en_subj, &p->en_obj, &p->en_poss, &p->en_be, &p->en_was, &p->fa, &p->fa_obj};
        for (int i = 0; i < 7; i++) KEEP_OR_FAIL(*dst[i], f[i]);
        if ((p->person = pick(f[7], persons, 6, "person", e)) < 0) return -1;
        char **end[] = {&p->end_pres, &p->end_past, &p->end_perf, &p->be, &p->be_neg};
        for (int i = 0; i < 5; i++) KEEP_OR_FAIL(*end[i], strcmp(f[8 + i], "-") ? f[8 + i] : "");
        if (p->person == 2 && lx->pron3s < 0) lx->pron3s = lx->n_prons;
        if (p->person == 5 && lx->pron3p < 0) lx->pron3p = lx->n_prons;
        lx->n_prons++;
        return 0;
    }
    case LX_DETERMINERS: {
        lx_det *d = GROW(lx, dets);
        if (!d) break;
        KEEP_OR_FAIL(d->en, f[0]); OPT(d->fa, f[1]);
        if ((d->en_pl = pick(f[2], numbers, 2, "English number", e)) < 0 || (d->fa_pl = pick(f[3], numbers, 2, "Persian number", e)) < 0 ||
            (d->def = pick(f[4], defs, 2, "definiteness", e)) < 0) return -1;
        lx->n_dets++;
        return 0;
    }
    case LX_PREPOSITIONS: {
        lx_prep *p = GROW(lx, preps);
        if (!p) break;
        KEEP_OR_FAIL(p->en, f[0]); KEEP_OR_FAIL(p->fa, f[1]);
        if (strchr(p->fa, ' ')) return tf_fail(e, "the Persian preposition \"%.40s\" is more than one word; write one", p->fa);
        char *end;
        long h = strtol(f[2], &end, 10);
        if (*end || end == f[2] || h < 0 || h >= count_words(p->en))
            return tf_fail(e, "the index \"%.20s\" is not one of the English words (0..%d); give the word the Persian translates", f[2], count_words(p->en) - 1);
        p->head = (int)h;
        if (parse_classes(lx, f[3], 0, &p->cls, e)) return -1;
        lx->n_preps++;
        return 0;
    }
    case LX_ADVERBS: {
        lx_adverb *a = GROW(lx, advs);
        if (!a) break;
        KEEP_OR_FAIL(a->en, f[0]); KEEP_OR_FAIL(a->fa, f[1]);
        if ((a->kind = pick(f[2], adv_kinds, 4, "kind", e)) < 0) return -1;
        lx->n_advs++;
        return 0;
    }
    case LX_TIMES: {
        lx_time *t = GROW(lx, times);
        if (!t) break;
        KEEP_OR_FAIL(t->en, f[0]); KEEP_OR_FAIL(t->fa, f[1]);
        if (parse_align(f[2], t->al, count_words(t->fa), LX_MAX_FA, count_words(t->en), e) || tenses_of(f[3], &t->tenses, e)) return -1;
        lx->n_times++;
        return 0;
    }
    case LX_PHRASES: {
        lx_phrase *p = GROW(lx, phrases);
        if (!p) break;
        KEEP_OR_FAIL(p->en, f[0]); KEEP_OR_FAIL(p->fa, f[1]);
        // words as tviz splits them: "you?" is two
        char **w;
        int n_en = tf_split_words(p->en, &w, e);
        if (n_en < 0) return -1;
        tf_words_free(w, n_en);
        int n_fa = tf_split_words(p->fa, &w, e);
        if (n_fa < 0) return -1;
        tf_words_free(w, n_fa);
        if (parse_align(f[2], p->al, n_fa, LX_MAX_FA * 2, n_en, e)) return -1;
        lx->n_phrases++;
        return 0;
    }
    case LX_CONJUNCTIONS: {
        lx_conj *c = GROW(lx, conjs);
        if (!c) break;
        KEEP_OR_FAIL(c->en, f[0]); KEEP_OR_FAIL(c->fa, f[1]);
        lx->n_conjs++;
        return 0;
    }
    }
    return tf_fail(e, "out of memory while reading the word lists");
}

// ---------------------------------------------------------------- files
int tf_lexicon_parse(tf_lexicon *lx, int file, const char *text, size_t len, int *line, tf_err *e) {
    *line = 0;
    if (file < 0 || file >= LX_N_FILES) return tf_fail(e, "no such word list");
    if (file == LX_PRONOUNS) lx->pron3s = lx->pron3p = -1;
    char buf[1024];
    size_t at = 0;
    int ln = 0, entries = 0;
    while (at < len) {
        ln++;
        size_t n;
        const char *s = tf_next_line(text, len, &at, &n);
        *line = ln;
        if (n == 0 || s[0] == '#') continue;
        if (n >= sizeof buf) return tf_fail(e, "the line is %zu bytes long, more than %zu; shorten it", n, sizeof buf - 1);
        size_t bad;
        if (tf_utf8_check(s, n, &bad)) return tf_fail(e, "not valid UTF-8 (byte %zu of the line); save the file as UTF-8", bad + 1);
        for (size_t i = 0; i < n; i++)
            if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
                return tf_fail(e, "the control character 0x%02X (byte %zu of the line); remove it", (unsigned char)s[i], i + 1);
        memcpy(buf, s, n);
        buf[n] = 0;
        char *f[LX_MAX_FIELDS];
        int nf = 0;
        for (char *p = buf;; ) {
            if (nf == LX_MAX_FIELDS) { nf++; break; }
            f[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab) break;
            *tab = 0;
            p = tab + 1;
        }
        if (nf != n_columns[file])
            return tf_fail(e, "has %d tab-separated columns, %s takes %d; see the header comment of the file", nf > LX_MAX_FIELDS ? LX_MAX_FIELDS + 1 : nf,
                           lx_file_names[file], n_columns[file]);
        if (parse_entry(lx, file, f, e)) return -1;
        entries++;
    }
    *line = 0;
    if (!entries) return tf_fail(e, "has no entries; write one a line, tab-separated (see tviz corpus --help)");
    if (file == LX_PRONOUNS && (lx->pron3s < 0 || lx->pron3p < 0))
        return tf_fail(e, "has no 3s or no 3p pronoun; nouns and names take their endings, so list both");
    return 0;
}

static int read_text(const char *path, char **out, size_t *len, tf_err *e) {
    FILE *f = fopen(path, "rb");
    if (!f) return tf_fail(e, "cannot open the word list (%s); check that the corpus folder has every file", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *t = malloc(cap);
    while (t) {
        if (n == cap) {
            if (cap >= LX_MAX_FILE) { free(t); fclose(f); return tf_fail(e, "is larger than %u MB; split the list", LX_MAX_FILE >> 20); }
            char *g = realloc(t, cap * 2);
            if (!g) { free(t); t = NULL; break; }
            t = g; cap *= 2;
        }
        size_t got = fread(t + n, 1, cap - n, f);
        n += got;
        if (!got) break;
    }
    int err = ferror(f);
    fclose(f);
    if (!t) return tf_fail(e, "out of memory while reading the word lists");
    if (err) { free(t); return tf_fail(e, "cannot read the word list; check that it is a readable file"); }
    *out = t;
    *len = n;
    return 0;
}

// Nouns first: they define the classes the other lists name.
tf_lexicon *tf_lexicon_load(const char *dir, char *where, size_t wn, tf_err *e) {
    tf_lexicon *lx = tf_lexicon_new();
    if (!lx) { snprintf(where, wn, "%s", dir); tf_fail(e, "out of memory while reading the word lists"); return NULL; }
    for (int file = 0; file < LX_N_FILES; file++) {
        char path[4096], *text = NULL;
        size_t len = 0;
        int line = 0;
        snprintf(path, sizeof path, "%s/%s", dir, lx_file_names[file]);
        snprintf(where, wn, "%s", path);
        if (read_text(path, &text, &len, e)) { tf_lexicon_free(lx); return NULL; }
        int rc = tf_lexicon_parse(lx, file, text, len, &line, e);
        free(text);
        if (rc) {
            if (line > 0) snprintf(where, wn, "%s:%d", path, line);
            tf_lexicon_free(lx);
            return NULL;
        }
    }
    snprintf(where, wn, "%s", dir);
    return lx;
}

// ---------------------------------------------------------------- lookups
#define FIND(list, field) for (int i = 0; i < lx->n_##list; i++) if (!strcmp(lx->list[i].field, en)) return i; return -1
int lx_find_noun(const tf_lexicon *lx, const char *en) { FIND(nouns, en); }
int lx_find_adj(const tf_lexicon *lx, const char *en) { FIND(adjs, en); }
int lx_find_name(const tf_lexicon *lx, const char *en) { FIND(names, en); }
int lx_find_pronoun(const tf_lexicon *lx, const char *en) { FIND(prons, en_subj); }
int lx_find_prep(const tf_lexicon *lx, const char *en) { FIND(preps, en); }
int lx_find_adverb(const tf_lexicon *lx, const char *en) { FIND(advs, en); }
int lx_find_time(const tf_lexicon *lx, const char *en) { FIND(times, en); }
int lx_find_gerund(const tf_lexicon *lx, const char *en) { FIND(gerunds, en); }
int lx_find_phrase(const tf_lexicon *lx, const char *en) { FIND(phrases, en); }
int lx_find_verb(const tf_lexicon *lx, const char *en, int frame) {
    for (int i = 0; i < lx->n_verbs; i++)
        if (!strcmp(lx->verbs[i].en[0], en) && (frame < 0 || lx->verbs[i].frame == frame)) return i;
    return -1;
}
int lx_find_det(const tf_lexicon *lx, const char *en, int plural) {
    for (int i = 0; i < lx->n_dets; i++) if (!strcmp(lx->dets[i].en, en) && lx->dets[i].en_pl == plural) return i;
    return -1;
}

void tf_lexicon_info_get(const tf_lexicon *lx, tf_lexicon_info *info) {
    memset(info, 0, sizeof *info);
    info->nouns = lx->n_nouns; info->verbs = lx->n_verbs; info->adjectives = lx->n_adjs; info->names = lx->n_names;
    info->phrases = lx->n_phrases; info->classes = lx->n_classes;
    for (int i = 0; i < lx->n_verbs; i++) {
        int first = 1;
        for (int k = 0; k < i && first; k++) first = strcmp(lx->verbs[k].en[0], lx->verbs[i].en[0]) != 0;
        info->verb_bases += first;
    }
}
