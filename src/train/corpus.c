// corpus.c — the synthetic English→Persian corpus: the grammar that turns
// the lexicon (lexicon.c) into sentence pairs with word alignments, the
// train/heldout split, the TSV reader and writer, and vocabularies.
//
// One sentence, English and Persian, slot by slot:
//   English  Subject [will] [Adverb] Verb [Object]            [Time]
//   Persian  Subject [Time] [Adverb] [از] [Object] [را] [Preverb] Verb
// e.g. "The students often use the computers" -> "دانشجوها اغلب از کامپیوترها استفاده می‌کنند".
#include "corpus.h"
#include "lexicon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---------------------------------------------------------------- a set of strings
// Open addressing over copies of the strings; keeps insertion order.
typedef struct { char **s; int n, cap_s; int *slot; size_t n_slot; } strset;

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void strset_free(strset *t) {
    for (int i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s); free(t->slot);
    memset(t, 0, sizeof *t);
}

static size_t strset_pos(const strset *t, const char *s) {
    size_t i = (size_t)fnv1a(s) & (t->n_slot - 1);
    while (t->slot[i] >= 0 && strcmp(t->s[t->slot[i]], s)) i = (i + 1) & (t->n_slot - 1);
    return i;
}

static int strset_has(const strset *t, const char *s) { return t->n_slot && t->slot[strset_pos(t, s)] >= 0; }

// Adds s if absent: 1 if added, 0 if it was there, -1 out of memory.
static int strset_add(strset *t, const char *s) {
    if ((size_t)(t->n + 1) * 2 > t->n_slot) {
        size_t ns = t->n_slot ? t->n_slot * 2 : 64;
        int *slot = malloc(sizeof(int) * ns);
        if (!slot) return -1;
        for (size_t i = 0; i < ns; i++) slot[i] = -1;
        free(t->slot);
        t->slot = slot; t->n_slot = ns;
        for (int k = 0; k < t->n; k++) t->slot[strset_pos(t, t->s[k])] = k;
    }
    size_t i = strset_pos(t, s);
    if (t->slot[i] >= 0) return 0;
    if (t->n == t->cap_s) {
        int nc = t->cap_s ? t->cap_s * 2 : 64;
        char **ns = realloc(t->s, sizeof(char *) * (size_t)nc);
        if (!ns) return -1;
        t->s = ns; t->cap_s = nc;
    }
    char *copy = strdup(s);
    if (!copy) return -1;
    t->s[t->n] = copy;
    t->slot[i] = t->n++;
    return 1;
}

// ---------------------------------------------------------------- corpus basics
void tf_corpus_free(tf_corpus *c) {
    for (int i = 0; i < c->n; i++) { free(c->p[i].src); free(c->p[i].tgt); free(c->p[i].align); }
    free(c->p);
    memset(c, 0, sizeof *c);
}

// Appends a pair whose target has n_tgt words (not counted again).
static int push_pair(tf_corpus *c, const char *src, const char *tgt, const int *align, int n_tgt) {
    if (c->n == c->cap) {
        int nc = c->cap ? c->cap * 2 : 256;
        tf_pair *np = realloc(c->p, sizeof(tf_pair) * (size_t)nc);
        if (!np) return -1;
        c->p = np; c->cap = nc;
    }
    tf_pair *p = &c->p[c->n];
    p->src = strdup(src);
    p->tgt = strdup(tgt);
    p->align = malloc(sizeof(int) * (size_t)(n_tgt > 0 ? n_tgt : 1));
    if (!p->src || !p->tgt || !p->align) { free(p->src); free(p->tgt); free(p->align); return -1; }
    for (int i = 0; i < n_tgt; i++) p->align[i] = align ? align[i] : -1;
    p->n_tgt = n_tgt;
    c->n++;
    return 0;
}

int tf_corpus_add(tf_corpus *c, const char *src, const char *tgt, const int *align, tf_err *e) {
    char **w;
    int n = tf_split_words(tgt, &w, e);
    if (n < 0) return -1;
    tf_words_free(w, n);
    if (push_pair(c, src, tgt, align, n)) return tf_fail(e, "out of memory while building the corpus");
    return 0;
}

// ---------------------------------------------------------------- the grammar
typedef struct {
    const char *en[16]; int ne;          // English words
    char fa[16][64]; int al[16]; int nf; // Persian words and their alignment
} sentence;

static int en_push(sentence *s, const char *w) { s->en[s->ne] = w; return s->ne++; }

static void fa_push(sentence *s, int al, const char *a, const char *b, const char *c) {
    snprintf(s->fa[s->nf], sizeof s->fa[0], "%s%s%s", a, b ? b : "", c ? c : "");
    s->al[s->nf++] = al;
}

enum { OBJ_THE, OBJ_THE_PL, OBJ_A, OBJ_GENERIC, OBJ_GERUND };
typedef struct { int type, noun, gerund; } object;

// Every object verb v takes; returns how many (out has room for 256).
static int objects_of(const lx_verb *v, object *out) {
    int n = 0;
    for (int k = 0; k < lx_n_nouns; k++) {
        if (!(v->nouns >> k & 1)) continue;
        const lx_noun *N = &lx_nouns[k];
        out[n++] = (object){OBJ_THE, k, -1};
        if (!N->mass) out[n++] = (object){OBJ_THE_PL, k, -1};
        if (!N->mass && v->kind == LX_SIMPLE) out[n++] = (object){OBJ_A, k, -1};
        if (v->generic) out[n++] = (object){OBJ_GENERIC, k, -1};
    }
    if (v->gerunds)
        for (int g = 0; g < lx_n_gerunds; g++)
            for (int k = 0; k < lx_n_nouns; k++)
                if (lx_gerunds[g].nouns >> k & 1) out[n++] = (object){OBJ_GERUND, k, g};
    return n;
}

// One sentence pair: subject su, verb v with object o in tense, adverb ad
// (-1 none) and time adverb ti (-1 none).
static void build(sentence *s, int tense, const lx_subject *su, const lx_verb *v, const object *o, int ad, int ti) {
    memset(s, 0, sizeof *s);
    const lx_noun *N = &lx_nouns[o->noun];
    int plural = o->type == OBJ_THE_PL || ((o->type == OBJ_GENERIC || o->type == OBJ_GERUND) && !N->mass);
    // English: Subject [will] [Adverb] Verb [Object] [Time]
    int i_subj = s->ne;
    for (int k = 0; k < su->n_en; k++) en_push(s, su->en[k]);
    int i_will = tense == LX_FUTURE ? en_push(s, "will") : -1;
    int i_adv = ad >= 0 ? en_push(s, lx_adverbs[ad].en) : -1;
    const char *verb = tense == LX_PAST ? v->en_past : tense == LX_FUTURE ? v->en : su->en3s ? v->en_3s : v->en;
    int i_verb = en_push(s, verb);
    int i_det = -1, i_ger = -1;
    if (o->type == OBJ_THE || o->type == OBJ_THE_PL) i_det = en_push(s, "the");
    else if (o->type == OBJ_A) i_det = en_push(s, "a");
    else if (o->type == OBJ_GERUND) i_ger = en_push(s, lx_gerunds[o->gerund].en);
    int i_noun = en_push(s, plural ? N->en_pl : N->en);
    int i_time = s->ne;
    if (ti >= 0) for (int k = 0; k < lx_times[ti].n_en; k++) en_push(s, lx_times[ti].en[k]);

    // Persian: Subject [Time] [Adverb] [از] [Object] [را] [Preverb] Verb
    for (int k = 0; k < su->n_fa; k++) fa_push(s, i_subj + su->fa_al[k], su->fa[k], NULL, NULL);
    if (ti >= 0) for (int k = 0; k < lx_times[ti].n_fa; k++) fa_push(s, i_time + lx_times[ti].fa_al[k], lx_times[ti].fa[k], NULL, NULL);
    if (ad >= 0) fa_push(s, i_adv, lx_adverbs[ad].fa, NULL, NULL);
    if (v->kind == LX_AZ) fa_push(s, i_verb, "از", NULL, NULL);
    if (o->type == OBJ_A) fa_push(s, i_det, "یک", NULL, NULL);
    if (o->type == OBJ_GERUND) fa_push(s, i_ger, lx_gerunds[o->gerund].fa, NULL, NULL);
    // a generic object of a simple verb is a bare singular: "I read books" -> "من کتاب می‌خوانم"
    int fa_plural = plural && !(o->type == OBJ_GENERIC && v->kind == LX_SIMPLE);
    fa_push(s, i_noun, fa_plural ? N->fa_pl : N->fa, NULL, NULL);
    if ((v->kind == LX_SIMPLE && (o->type == OBJ_THE || o->type == OBJ_THE_PL)) || v->kind == LX_LIKE)
        fa_push(s, -1, "را", NULL, NULL);
    if (v->pre) fa_push(s, i_verb, v->pre, NULL, NULL);
    int p = su->person;
    if (tense == LX_PRESENT) fa_push(s, i_verb, v->kind == LX_LIKE ? "" : "می" ZW, v->pres, lx_end_present[p]);
    else if (tense == LX_PAST) fa_push(s, i_verb, v->past, lx_end_past[p], NULL);
    else { fa_push(s, i_will, lx_future_aux[p], NULL, NULL); fa_push(s, i_verb, v->past, NULL, NULL); }
}

static char *join(const char *const *w, int n, char *buf, size_t cap) {
    size_t at = 0;
    for (int i = 0; i < n; i++) at += (size_t)snprintf(buf + at, cap - at, "%s%s", i ? " " : "", w[i]);
    return buf;
}

// Every sentence the grammar makes, each source sentence once (the first
// made wins: "I read the book" is the present, "I read the book yesterday" the past).
static int generate_all(tf_corpus *all) {
    object objs[256];
    strset seen = {0};
    sentence s;
    char src[512], tgt[1024];
    for (int tense = 0; tense < LX_TENSES; tense++)
        for (int su = 0; su < lx_n_subjects; su++)
            for (int vi = 0; vi < lx_n_verbs; vi++) {
                int no = objects_of(&lx_verbs[vi], objs);
                for (int oi = 0; oi < no; oi++)
                    for (int ad = -1; ad < lx_n_adverbs; ad++) {
                        if (ad >= 0 && !(lx_adverbs[ad].tenses >> tense & 1)) continue;
                        for (int ti = -1; ti < lx_n_times; ti++) {
                            if (ti >= 0 && (!(lx_times[ti].tenses >> tense & 1) || (ad >= 0 && lx_adverbs[ad].freq))) continue;
                            build(&s, tense, &lx_subjects[su], &lx_verbs[vi], &objs[oi], ad, ti);
                            join(s.en, s.ne, src, sizeof src);
                            const char *fw[16];
                            for (int k = 0; k < s.nf; k++) fw[k] = s.fa[k];
                            join(fw, s.nf, tgt, sizeof tgt);
                            int added = strset_add(&seen, src);
                            if (added < 0 || (added && push_pair(all, src, tgt, s.al, s.nf))) { strset_free(&seen); return -1; }
                        }
                    }
            }
    strset_free(&seen);
    return 0;
}

int tf_corpus_generate_all(tf_corpus *all, tf_err *e) {
    memset(all, 0, sizeof *all);
    if (generate_all(all)) { tf_corpus_free(all); return tf_fail(e, "out of memory while generating the corpus"); }
    return 0;
}

// ---------------------------------------------------------------- split and sample
static void shuffle(int *a, int n, tf_rng *r) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(tf_rng_next(r) % (uint64_t)(i + 1));
        int t = a[i]; a[i] = a[j]; a[j] = t;
    }
}

// Adds every word of both sides of p to the sets.
static int add_words(strset *sw, strset *tw, const tf_pair *p) {
    const char *text[2] = {p->src, p->tgt};
    strset *set[2] = {sw, tw};
    char buf[1024];
    for (int side = 0; side < 2; side++) {
        snprintf(buf, sizeof buf, "%s", text[side]);
        char *save;
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) if (strset_add(set[side], w) < 0) return -1;
    }
    return 0;
}

// The first word of p (either side) missing from the sets, or NULL.
static const char *missing_word(const strset *sw, const strset *tw, const tf_pair *p, char *buf, size_t cap, int *side_out) {
    const char *text[2] = {p->src, p->tgt};
    const strset *set[2] = {sw, tw};
    for (int side = 0; side < 2; side++) {
        snprintf(buf, cap, "%s", text[side]);
        char *save;
        for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
            if (!strset_has(set[side], w)) { *side_out = side; return w; }
    }
    return NULL;
}

static int has_word(const char *sentence_text, const char *w) {
    size_t n = strlen(w);
    for (const char *p = strstr(sentence_text, w); p; p = strstr(p + 1, w))
        if ((p == sentence_text || p[-1] == ' ') && (p[n] == ' ' || !p[n])) return 1;
    return 0;
}

int tf_corpus_generate(tf_corpus *train, tf_corpus *heldout, uint64_t seed, tf_err *e) {
    return tf_corpus_generate_n(train, heldout, seed, TF_CORPUS_TRAIN_MAX, TF_CORPUS_HELDOUT_MAX, e);
}

int tf_corpus_generate_n(tf_corpus *train, tf_corpus *heldout, uint64_t seed, int n_train, int n_heldout, tf_err *e) {
    memset(train, 0, sizeof *train);
    memset(heldout, 0, sizeof *heldout);
    tf_corpus all = {0};
    int *tr = NULL, *ho = NULL, n_tr = 0, n_ho = 0, def = -1;
    strset sw = {0}, tw = {0};
    char buf[1024];
    if (tf_corpus_generate_all(&all, e)) return -1;
    tr = malloc(sizeof(int) * (size_t)all.n);
    ho = malloc(sizeof(int) * (size_t)all.n);
    if (!tr || !ho) goto oom;
    // Held out: about one sentence in 40, by a hash of the source, whatever the seed.
    for (int i = 0; i < all.n; i++) {
        if (!strcmp(all.p[i].src, TF_CORPUS_DEFAULT_SRC)) def = i;
        else if (fnv1a(all.p[i].src) % 40 == 0) ho[n_ho++] = i;
        else tr[n_tr++] = i;
    }
    if (def < 0 || strcmp(all.p[def].tgt, TF_CORPUS_DEFAULT_TGT)) { // a broken lexicon, not a user's mistake
        tf_corpus_free(&all); free(tr); free(ho);
        return tf_fail(e, "the grammar does not make \"%s\" -> \"%s\"; fix src/train/lexicon.c", TF_CORPUS_DEFAULT_SRC, TF_CORPUS_DEFAULT_TGT);
    }
    tf_rng r;
    tf_rng_seed(&r, seed);
    shuffle(tr, n_tr, &r);
    shuffle(ho, n_ho, &r);
    int take = n_train < 0 ? 0 : n_tr < n_train ? n_tr : n_train;
    for (int i = 0; i < take; i++)
        if (push_pair(train, all.p[tr[i]].src, all.p[tr[i]].tgt, all.p[tr[i]].align, all.p[tr[i]].n_tgt) ||
            add_words(&sw, &tw, &all.p[tr[i]])) goto oom;
    // Held out: the default sentence first, then new combinations of words train has;
    // a word train lacks is brought in with the first unused train sentence that has it.
    for (int h = -1; h < n_ho && (h < 0 || heldout->n < n_heldout); h++) {
        const tf_pair *p = &all.p[h < 0 ? def : ho[h]];
        const char *w;
        int ok = 1, side;
        while ((w = missing_word(&sw, &tw, p, buf, sizeof buf, &side))) {
            int found = -1;
            for (int k = take; k < n_tr && found < 0; k++)
                if (has_word(side ? all.p[tr[k]].tgt : all.p[tr[k]].src, w)) found = k;
            if (found < 0) { ok = 0; break; }
            int t = tr[found]; tr[found] = tr[take]; tr[take++] = t; // now used
            const tf_pair *q = &all.p[t];
            if (push_pair(train, q->src, q->tgt, q->align, q->n_tgt) || add_words(&sw, &tw, q)) goto oom;
        }
        if (!ok) {
            if (h < 0) { tf_corpus_free(&all); free(tr); free(ho); strset_free(&sw); strset_free(&tw);
                         tf_corpus_free(train); return tf_fail(e, "the default sentence has a word no training sentence has; fix src/train/lexicon.c"); }
            continue;
        }
        if (push_pair(heldout, p->src, p->tgt, p->align, p->n_tgt)) goto oom;
    }
    tf_corpus_free(&all); free(tr); free(ho); strset_free(&sw); strset_free(&tw);
    return 0;
oom:
    tf_corpus_free(&all); free(tr); free(ho); strset_free(&sw); strset_free(&tw);
    tf_corpus_free(train); tf_corpus_free(heldout);
    return tf_fail(e, "out of memory while generating the corpus");
}

// ---------------------------------------------------------------- TSV
// Checks one field's words; returns the count, or -1 with e filled.
static int count_words(const char *s, tf_err *e) {
    char **w;
    int n = tf_split_words(s, &w, e);
    if (n >= 0) tf_words_free(w, n);
    return n;
}

// Drops spaces at the ends of s and squeezes runs of them to one, in place.
static void squeeze_spaces(char *s) {
    char *o = s;
    for (const char *p = s; *p; p++)
        if (*p != ' ' || (o > s && o[-1] != ' ')) *o++ = *p;
    if (o > s && o[-1] == ' ') o--;
    *o = 0;
}

// One line (NUL-terminated, no '\n', no final '\r'), already checked for
// UTF-8 and control characters. Appends its pair to c.
static int parse_line(tf_corpus *c, char *s, tf_err *e) {
    char *tab1 = strchr(s, '\t');
    if (!tab1) return tf_fail(e, "has no tab; write source<TAB>target[<TAB>alignment]");
    *tab1 = 0;
    char *tgt = tab1 + 1, *al = NULL, *tab2 = strchr(tgt, '\t');
    if (tab2) {
        *tab2 = 0;
        al = tab2 + 1;
        if (strchr(al, '\t')) return tf_fail(e, "has more than three tab-separated fields; write source<TAB>target[<TAB>alignment]");
    }
    int n_src = count_words(s, e);
    if (n_src < 0) return -1;
    if (n_src == 0) return tf_fail(e, "the source sentence (before the first tab) is empty; write it, or remove the line");
    int n_tgt = count_words(tgt, e);
    if (n_tgt < 0) return -1;
    if (n_tgt == 0) return tf_fail(e, "the target sentence (after the first tab) is empty; write it, or remove the line");
    int *a = malloc(sizeof(int) * (size_t)n_tgt);
    if (!a) return tf_fail(e, "out of memory while reading the corpus");
    for (int i = 0; i < n_tgt; i++) a[i] = -1;
    if (al) {
        int k = 0;
        char *p = al;
        for (;;) {
            while (*p == ' ') p++;
            if (!*p) break;
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p || (*end && *end != ' ') || errno) {
                size_t l = strcspn(p, " ");
                free(a);
                return tf_fail(e, "the alignment \"%.*s\" is not a number; give one source word index (or -1) per target word",
                               (int)(l > 20 ? 20 : l), p);
            }
            if (k >= n_tgt) { k++; p = end; continue; } // counted, reported below
            if (v < -1 || v >= n_src) {
                free(a);
                return tf_fail(e, "the alignment %ld of target word %d is out of range: the source has %d words; use 0..%d, or -1 for none",
                               v, k + 1, n_src, n_src - 1);
            }
            a[k++] = (int)v;
            p = end;
        }
        if (k != n_tgt) {
            free(a);
            return tf_fail(e, "has %d alignment numbers but the target has %d words; give one per target word (-1 for none)", k, n_tgt);
        }
    }
    squeeze_spaces(s);
    squeeze_spaces(tgt);
    int rc = push_pair(c, s, tgt, a, n_tgt);
    free(a);
    return rc ? tf_fail(e, "out of memory while reading the corpus") : 0;
}

// Decodes the code point at s (UTF-8 already checked); returns its length.
static int cp_at(const unsigned char *s, uint32_t *cp) {
    if (s[0] < 0x80) { *cp = s[0]; return 1; }
    if ((s[0] & 0xE0) == 0xC0) { *cp = (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F); return 2; }
    if ((s[0] & 0xF0) == 0xE0) { *cp = (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F); return 3; }
    *cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    return 4;
}

int tf_corpus_parse(tf_corpus *c, const char *text, size_t len, int *line, tf_err *e) {
    memset(c, 0, sizeof *c);
    *line = 0;
    char *buf = malloc(TF_CORPUS_MAX_LINE + 1);
    if (!buf) return tf_fail(e, "out of memory while reading the corpus");
    size_t at = 0;
    int ln = 0;
    while (at < len) {
        ln++;
        const char *s = text + at;
        const char *nl = memchr(s, '\n', len - at);
        size_t n = nl ? (size_t)(nl - s) : len - at;
        at += n + (nl ? 1 : 0);
        if (n && s[n - 1] == '\r') n--;
        *line = ln;
        if (n > TF_CORPUS_MAX_LINE) {
            tf_fail(e, "the line is %zu bytes long, more than %d; split it or shorten it", n, TF_CORPUS_MAX_LINE);
            goto fail;
        }
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
        // a comment starts with '#' and has no tab (a pair may start with '#')
        if (k == n || (s[0] == '#' && !memchr(s, '\t', n))) continue;
        size_t bad;
        if (tf_utf8_check(s, n, &bad)) {
            tf_fail(e, "not valid UTF-8 (byte %zu of the line); save the file as UTF-8", bad + 1);
            goto fail;
        }
        for (size_t i = 0; i < n;) {
            uint32_t cp;
            int l = cp_at((const unsigned char *)s + i, &cp);
            if ((cp < 0x20 && cp != '\t') || (cp >= 0x7F && cp <= 0x9F)) {
                tf_fail(e, "the control character U+%04X (byte %zu of the line); remove it", (unsigned)cp, i + 1);
                goto fail;
            }
            i += (size_t)l;
        }
        memcpy(buf, s, n);
        buf[n] = 0;
        if (parse_line(c, buf, e)) goto fail;
    }
    free(buf);
    if (c->n == 0) {
        *line = 0;
        return tf_fail(e, "has no sentence pairs; write one per line: source<TAB>target[<TAB>alignment]");
    }
    *line = 0;
    return 0;
fail:
    free(buf);
    tf_corpus_free(c);
    return -1;
}

int tf_corpus_read(tf_corpus *c, const char *path, int *line, tf_err *e) {
    memset(c, 0, sizeof *c);
    *line = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return tf_fail(e, "cannot open the corpus (%s); check the path", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    if (!text) { fclose(f); return tf_fail(e, "out of memory while reading the corpus"); }
    for (;;) {
        if (n == cap) {
            if (cap >= TF_CORPUS_MAX_FILE) {
                free(text); fclose(f);
                return tf_fail(e, "the corpus is larger than %u MB; split it into smaller files", TF_CORPUS_MAX_FILE >> 20);
            }
            char *t = realloc(text, cap * 2);
            if (!t) { free(text); fclose(f); return tf_fail(e, "out of memory while reading the corpus"); }
            text = t; cap *= 2;
        }
        size_t got = fread(text + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) { free(text); return tf_fail(e, "cannot read the corpus (%s); check that it is a readable file", strerror(err)); }
    int rc = tf_corpus_parse(c, text, n, line, e);
    free(text);
    return rc;
}

int tf_corpus_format(const tf_corpus *c, char **out, size_t *len) {
    size_t cap = 1;
    for (int i = 0; i < c->n; i++) cap += strlen(c->p[i].src) + strlen(c->p[i].tgt) + 3 + 12 * (size_t)c->p[i].n_tgt;
    char *s = malloc(cap);
    if (!s) return -1;
    size_t at = 0;
    for (int i = 0; i < c->n; i++) {
        const tf_pair *p = &c->p[i];
        at += (size_t)snprintf(s + at, cap - at, "%s\t%s", p->src, p->tgt);
        // the alignment column only when it says something (all −1 is what
        // a missing column reads as): a line never grows past what was read
        int aligned = 0;
        for (int k = 0; k < p->n_tgt; k++) aligned |= p->align[k] >= 0;
        for (int k = 0; aligned && k < p->n_tgt; k++) at += (size_t)snprintf(s + at, cap - at, k ? " %d" : "\t%d", p->align[k]);
        s[at++] = '\n';
    }
    s[at] = 0;
    *out = s;
    *len = at;
    return 0;
}

// ---------------------------------------------------------------- vocabularies
static int is_special(const char *w) {
    return !strcmp(w, "<pad>") || !strcmp(w, "<unk>") || !strcmp(w, "<bos>") || !strcmp(w, "<eos>");
}

char *tf_corpus_vocab(const tf_corpus *c, int side) {
    strset later = {0}, words = {0};
    tf_err e;
    char *out = NULL;
    // Source words after the first: "the" there lets a first "The" be "the".
    for (int i = 0; side == 0 && i < c->n; i++) {
        char **w;
        int n = tf_split_words(c->p[i].src, &w, &e);
        if (n < 0) goto done;
        for (int k = 1; k < n; k++) if (strset_add(&later, w[k]) < 0) { tf_words_free(w, n); goto done; }
        tf_words_free(w, n);
    }
    for (int i = 0; i < c->n; i++) {
        char **w;
        int n = tf_split_words(side ? c->p[i].tgt : c->p[i].src, &w, &e);
        if (n < 0) goto done;
        for (int k = 0; k < n; k++) {
            if (is_special(w[k])) continue;
            if (side == 0 && k == 0 && w[k][0] >= 'A' && w[k][0] <= 'Z') {
                char low[256];
                snprintf(low, sizeof low, "%s", w[k]);
                for (char *p = low; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p + 32);
                if (strlen(w[k]) < sizeof low && strset_has(&later, low)) { if (strset_add(&words, low) < 0) { tf_words_free(w, n); goto done; } continue; }
            }
            if (strset_add(&words, w[k]) < 0) { tf_words_free(w, n); goto done; }
        }
        tf_words_free(w, n);
    }
    size_t len = strlen("<pad>\n<unk>\n<bos>\n<eos>") + 1;
    for (int i = 0; i < words.n; i++) len += strlen(words.s[i]) + 1;
    out = malloc(len);
    if (!out) goto done;
    size_t at = (size_t)sprintf(out, "<pad>\n<unk>\n<bos>\n<eos>");
    for (int i = 0; i < words.n; i++) at += (size_t)sprintf(out + at, "\n%s", words.s[i]);
done:
    strset_free(&later);
    strset_free(&words);
    return out;
}
