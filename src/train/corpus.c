// corpus.c — the synthetic English→Persian corpus: the grammar that turns
// the word lists (lexicon.c, assets/corpus/*.tsv) into sentence pairs with
// word alignments, the train/heldout split, the TSV reader and writer, and
// vocabularies.
//
// One clause, English and Persian, slot by slot:
//   English  [Wh] [Aux] Subject [aux] [not] [Adverb] Verb [Objects] [Manner] [Place] [Time] [?]
//   Persian  [آیا] Subject [Time] [کی|چرا] [دار-] [Adverb] [Manner] [Modal] [Place|کجا]
//            [Object را] [به Person] [از|به|با Object] [Preverb] Verb [؟]
// e.g. "The students often use the computers" -> "دانشجوها اغلب از کامپیوترها استفاده می‌کنند";
// "be" clauses put the adjective, noun or place before است; clauses join with
// و, اما, چون.
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

// ---------------------------------------------------------------- Persian words
// Endings join a stem; prefixes before a stem that starts with alef change
// it: ب + آ = بیا, ن + آ = نیا, ب + ا = بی (بیفت), ن + ای = نای (نایست).
static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }
static int ends(const char *s, const char *p) { size_t n = strlen(s), k = strlen(p); return n >= k && !strcmp(s + n - k, p); }

#define ALEF_MADDA "آ"
#define ALEF "ا"
static void prefix(char *out, size_t n, const char *pre, const char *stem) { // pre: "ب" or "ن"
    if (starts(stem, ALEF_MADDA)) snprintf(out, n, "%sیا%s", pre, stem + strlen(ALEF_MADDA));
    else if (starts(stem, "ای")) snprintf(out, n, "%s%s%s", pre, !strcmp(pre, "ن") ? "ا" : "", stem);
    else if (starts(stem, ALEF)) snprintf(out, n, "%sی%s", pre, stem + strlen(ALEF));
    else snprintf(out, n, "%s%s", pre, stem);
}

// The ezafe that links a noun to its adjective or possessor: written ‌ی
// after a silent ه (خانه‌ی کوچک), ی after ا or و (هوای خوب, کتاب‌های من),
// unwritten after anything else (کتاب خوب).
static void ezafe(char *w, size_t n) {
    if (ends(w, "ه") && !ends(w, "اه") && !ends(w, "وه")) strncat(w, ZW "ی", n - strlen(w) - 1);
    else if (ends(w, "ا") || ends(w, "و")) strncat(w, "ی", n - strlen(w) - 1);
}

// The indefinite ی of a noun a relative clause follows: مردی که, خانه‌ای که, دانشجویی که.
static void indefinite(char *w, size_t n) {
    if ((ends(w, "ه") && !ends(w, "اه") && !ends(w, "وه")) || ends(w, "ی")) strncat(w, ZW "ای", n - strlen(w) - 1);
    else if (ends(w, "ا") || ends(w, "و")) strncat(w, "یی", n - strlen(w) - 1);
    else strncat(w, "ی", n - strlen(w) - 1);
}

// ---------------------------------------------------------------- building a sentence
static int en_push(lx_sentence *s, const char *w) {
    if (s->ne >= LX_MAX_WORDS) { s->overflow = 1; return LX_MAX_WORDS - 1; }
    snprintf(s->en[s->ne], sizeof s->en[0], "%s", w);
    return s->ne++;
}

// Pushes every space-separated word of w; returns the index of word head
// (-1: the last).
static int en_words(lx_sentence *s, const char *w, int head) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", w);
    int first = -1, last = -1, k = 0;
    char *save;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save), k++) {
        last = en_push(s, t);
        if (first < 0) first = last;
        if (k == head) first = last, head = -2;
    }
    return head == -2 ? first : last;
}

static char *fa_push(lx_sentence *s, int al, const char *a, const char *b, const char *c) {
    if (s->nf >= LX_MAX_WORDS) { s->overflow = 1; return s->fa[LX_MAX_WORDS - 1]; }
    char *w = s->fa[s->nf];
    const char *part[3] = {a, b, c};
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = part[i] ? strlen(part[i]) : 0;
        if (at + n >= sizeof s->fa[0]) { s->overflow = 1; n = 0; }
        memcpy(w + at, part[i] ? part[i] : "", n);
        at += n;
    }
    w[at] = 0;
    s->al[s->nf] = al;
    return s->fa[s->nf++];
}

// Every word of w, each aligned to al.
static void fa_words(lx_sentence *s, int al, const char *w) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", w);
    char *save;
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) fa_push(s, al, t, NULL, NULL);
}

// A time phrase's Persian words, each aligned to its English word (from the first at i_time).
static void fa_time(lx_sentence *s, const lx_time *t, int i_time) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", t->fa);
    char *save;
    int k = 0;
    for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save), k++) fa_push(s, i_time + t->al[k], w, NULL, NULL);
}

static char *fa_last(lx_sentence *s) { return s->fa[s->nf ? s->nf - 1 : 0]; }

// Where the English words of a noun phrase went.
typedef struct { int det, adj, noun, poss, prep, who, rverb; } np_at;

static const lx_pronoun *person_of(const tf_lexicon *lx, const lx_np *np) {
    if (np->type == NP_PRONOUN) return &lx->prons[np->id];
    return &lx->prons[np->plural ? lx->pron3p : lx->pron3s];
}

static int np_definite(const tf_lexicon *lx, const lx_np *np) {
    if (np->type == NP_PRONOUN || np->type == NP_NAME) return 1;
    if (np->type != NP_NOUN) return 0;
    if (np->poss >= 0) return 1;
    return np->det >= 0 && lx->dets[np->det].def;
}

static void np_en(lx_sentence *s, const tf_lexicon *lx, const lx_np *np, int object, np_at *at, np_at *pp_at, np_at *ro_at);
static void np_fa(lx_sentence *s, const tf_lexicon *lx, const lx_np *np, int object, int bare, const np_at *at,
                  const np_at *pp_at, const np_at *ro_at);

// English of a verb in the simple present or base form for a subject.
static const char *en_present(const lx_verb *v, const lx_pronoun *p) { return p->person == 2 ? v->en[1] : v->en[0]; }

static void np_en(lx_sentence *s, const tf_lexicon *lx, const lx_np *np, int object, np_at *at, np_at *pp_at, np_at *ro_at) {
    *at = (np_at){-1, -1, -1, -1, -1, -1, -1};
    switch (np->type) {
    case NP_PRONOUN: at->noun = en_push(s, object ? lx->prons[np->id].en_obj : lx->prons[np->id].en_subj); return;
    case NP_NAME: at->noun = en_words(s, lx->names[np->id].en, -1); return;
    case NP_WHAT: at->noun = en_push(s, "what"); return;
    case NP_WHO: at->noun = en_push(s, "who"); return;
    case NP_GERUND: {
        const lx_noun *N = &lx->nouns[np->gerund_noun];
        at->adj = en_push(s, lx->gerunds[np->id].en);
        at->noun = en_words(s, N->en_pl ? N->en_pl : N->en, -1);
        return;
    }
    }
    const lx_noun *N = &lx->nouns[np->id];
    if (np->poss >= 0) at->poss = en_push(s, lx->prons[np->poss].en_poss);
    const char *noun = np->plural && N->en_pl ? N->en_pl : N->en, *next = np->adj >= 0 ? lx->adjs[np->adj].en : noun;
    if (np->poss < 0 && np->det >= 0) // "an" before a vowel
        at->det = !strcmp(lx->dets[np->det].en, "a") && strchr("aeiou", next[0]) && !starts(next, "uni") && !starts(next, "use") ? en_push(s, "an") : en_words(s, lx->dets[np->det].en, 0);
    if (np->adj >= 0) at->adj = en_push(s, lx->adjs[np->adj].en);
    at->noun = en_words(s, noun, -1);
    if (np->prep >= 0 && np->pp && pp_at) {
        at->prep = en_words(s, lx->preps[np->prep].en, lx->preps[np->prep].head);
        np_en(s, lx, np->pp, 1, pp_at, NULL, NULL);
    }
    if (np->rel_verb >= 0 && ro_at) {
        const lx_verb *v = &lx->verbs[np->rel_verb];
        at->who = en_push(s, N->cls & lx_class(lx, "person") ? "who" : "that");
        at->rverb = en_words(s, np->plural ? v->en[0] : v->en[1], 0);
        if (np->rel_obj) {
            if (v->en_prep) en_push(s, v->en_prep);
            np_en(s, lx, np->rel_obj, 1, ro_at, NULL, NULL);
        }
    }
}

// The Persian verb of a relative clause or a clause in the simple present.
static void fa_present(lx_sentence *s, const lx_verb *v, const lx_pronoun *p, int neg, int al) {
    int no_mi = v->frame == FR_LIKE || v->frame == FR_HAVE;
    char stem[128];
    if (no_mi) { if (neg) prefix(stem, sizeof stem, "ن", v->pres); else snprintf(stem, sizeof stem, "%s", v->pres); }
    else snprintf(stem, sizeof stem, "%s" ZW "%s", neg ? "نمی" : "می", v->pres);
    fa_push(s, al, stem, p->end_pres, NULL);
}

// The object of verb v, after the Persian rules of its frame: را after a
// definite object of tr/have and after every object of like; از, به, با before
// the object of az, be, ba. A generic object of tr stays bare and singular
// (کتاب می‌خوانم).
static void fa_object(lx_sentence *s, const tf_lexicon *lx, const lx_verb *v, const lx_np *o, const np_at *at,
                      const np_at *pp_at, const np_at *ro_at, int al_verb) {
    int f = v->frame;
    if (o->type == NP_WHAT || o->type == NP_WHO) { np_fa(s, lx, o, 0, 0, at, pp_at, ro_at); return; }
    if (f == FR_AZ) fa_push(s, al_verb, "از", NULL, NULL);
    if (f == FR_BE) fa_push(s, al_verb, "به", NULL, NULL);
    if (f == FR_BA) fa_push(s, al_verb, "با", NULL, NULL);
    // a language after speak, learn, understand is bare (فارسی صحبت می‌کند)
    int tongue = o->type == NP_NAME && lx->names[o->id].kind == NAME_LANGUAGE && f == FR_TR;
    int generic = o->type == NP_NOUN && o->det < 0 && o->poss < 0;
    // a subject of study or an idea taken whole is definite (توجه را توضیح می‌دهد); bread is not (نان می‌خورد)
    int abstract = generic && !lx->nouns[o->id].en_pl && (lx->nouns[o->id].cls & (lx_class(lx, "study") | lx_class(lx, "idea")));
    int ra = f == FR_LIKE || ((f == FR_TR || f == FR_HAVE || f == FR_GIVE) && (np_definite(lx, o) || abstract) && !tongue);
    np_fa(s, lx, o, ra, generic && !abstract && (f == FR_TR || f == FR_HAVE || f == FR_GIVE), at, pp_at, ro_at);
    if (ra && o->type != NP_PRONOUN) fa_push(s, -1, "را", NULL, NULL);
}

// object: 1 when را follows (a pronoun then takes its object form, مرا);
// bare: a generic noun stays singular (کتاب می‌خوانم).
static void np_fa(lx_sentence *s, const tf_lexicon *lx, const lx_np *np, int object, int bare, const np_at *at,
                  const np_at *pp_at, const np_at *ro_at) {
    switch (np->type) {
    case NP_PRONOUN: fa_words(s, at->noun, object ? lx->prons[np->id].fa_obj : lx->prons[np->id].fa); return;
    case NP_NAME: fa_words(s, at->noun, lx->names[np->id].fa); return;
    case NP_WHAT: fa_push(s, at->noun, "چه", NULL, NULL); fa_push(s, at->noun, "چیزی", NULL, NULL); return;
    case NP_WHO: fa_push(s, at->noun, "چه", NULL, NULL); fa_push(s, at->noun, "کسی", NULL, NULL); return;
    case NP_GERUND: {
        const lx_noun *N = &lx->nouns[np->gerund_noun];
        fa_words(s, at->adj, lx->gerunds[np->id].fa);
        fa_words(s, at->noun, N->fa_pl ? N->fa_pl : N->fa);
        return;
    }
    }
    const lx_noun *N = &lx->nouns[np->id];
    const lx_det *d = np->det >= 0 ? &lx->dets[np->det] : NULL;
    if (d && d->fa) fa_words(s, at->det, d->fa);
    int plural = d ? d->fa_pl : np->plural && !bare;
    fa_words(s, at->noun, plural && N->fa_pl ? N->fa_pl : N->fa);
    if (np->adj >= 0 || np->poss >= 0) ezafe(fa_last(s), sizeof s->fa[0]);
    if (np->adj >= 0) {
        fa_words(s, at->adj, lx->adjs[np->adj].fa);
        if (np->poss >= 0) ezafe(fa_last(s), sizeof s->fa[0]);
    }
    if (np->poss >= 0) fa_words(s, at->poss, lx->prons[np->poss].fa);
    if (np->prep >= 0 && np->pp && pp_at) {
        fa_push(s, at->prep, lx->preps[np->prep].fa, NULL, NULL);
        np_fa(s, lx, np->pp, 0, 0, pp_at, NULL, NULL);
    }
    if (np->rel_verb >= 0 && ro_at) {
        const lx_verb *v = &lx->verbs[np->rel_verb];
        if (np->poss < 0) indefinite(fa_last(s), sizeof s->fa[0]);
        fa_push(s, at->who, "که", NULL, NULL);
        if (np->rel_obj) fa_object(s, lx, v, np->rel_obj, ro_at, NULL, NULL, at->rverb);
        if (v->pre) fa_words(s, at->rverb, v->pre);
        fa_present(s, v, person_of(lx, np), 0, at->rverb);
    }
}

// English auxiliaries of a question: Do, Does, Did, Will, Is, Have, Can …
static const char *en_aux(const lx_clause *c, const lx_pronoun *p) {
    int s3 = p->person == 2;
    if (c->modal == MOD_CAN) return "can";
    if (c->modal == MOD_MUST) return "must";
    switch (c->tense) {
    case LX_PRESENT: return s3 ? "does" : "do";
    case LX_PAST: return "did";
    case LX_FUTURE: return "will";
    case LX_PROGRESSIVE: return p->en_be;
    case LX_PERFECT: return s3 ? "has" : "have";
    }
    return "do";
}

static void build_verb(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c) {
    const lx_verb *v = &lx->verbs[c->verb];
    const lx_pronoun *p = person_of(lx, &c->subj);
    int imp = c->kind == CL_IMPERATIVE, q = c->question;
    np_at sa, spp, sro, oa, opp, oro, o2a, o2pp, o2ro, pa, ppp, pro; // where each phrase's English words went
    int i_aux = -1, i_not = -1, i_adv = -1, i_verb, i_wh = -1, i_please = -1, i_prep2 = -1, i_manner = -1, i_prep = -1, i_time = -1, i_q = -1;
    int has_obj = c->obj.type != NP_NONE, has_obj2 = c->obj2.type != NP_NONE;
    // English: [Wh] [Aux] Subject [aux] [not] [adverb] verb [prep] objects [manner] [place] [time] [?]
    if (imp) {
        if (c->please) i_please = en_push(s, "please");
        if (c->neg) { i_aux = en_push(s, "do"); i_not = en_push(s, "not"); }
    } else {
        if (q == Q_WHERE) i_wh = en_push(s, "where");
        if (q == Q_WHEN) i_wh = en_push(s, "when");
        if (q == Q_WHY) i_wh = en_push(s, "why");
        if (q && c->modal != MOD_WANT) i_aux = en_push(s, en_aux(c, p));
        else if (q) i_aux = en_push(s, p->person == 2 ? "does" : "do");
        np_en(s, lx, &c->subj, 0, &sa, &spp, &sro);
        if (!q) {
            if (c->modal == MOD_CAN) i_aux = en_push(s, c->neg ? "cannot" : "can");
            else if (c->modal == MOD_MUST) { i_aux = en_push(s, "must"); if (c->neg) i_not = en_push(s, "not"); }
            else if (c->modal == MOD_WANT && c->neg) { i_aux = en_push(s, p->person == 2 ? "does" : "do"); i_not = en_push(s, "not"); }
            else if (c->tense == LX_FUTURE) { i_aux = en_push(s, "will"); if (c->neg) i_not = en_push(s, "not"); }
            else if (c->tense == LX_PROGRESSIVE || c->tense == LX_PERFECT || c->neg) {
                i_aux = en_push(s, en_aux(c, p));
                if (c->neg) i_not = en_push(s, "not");
            }
        }
    }
    if (c->adv >= 0) i_adv = en_push(s, lx->advs[c->adv].en);
    int i_want = -1;
    if (c->modal == MOD_WANT) {
        i_want = en_push(s, q || c->neg || p->person != 2 ? "want" : "wants");
        en_push(s, "to");
    }
    const char *form;
    if (imp || c->modal || (c->tense == LX_PRESENT && (q || c->neg)) || (c->tense == LX_PAST && (q || c->neg)) || c->tense == LX_FUTURE)
        form = v->en[0];
    else if (c->tense == LX_PRESENT) form = en_present(v, p);
    else if (c->tense == LX_PAST) form = v->en[2];
    else if (c->tense == LX_PERFECT) form = v->en[3];
    else form = v->en[4];
    i_verb = en_words(s, form, 0);
    if (has_obj && v->en_prep && (v->frame == FR_BE || v->frame == FR_BA)) en_push(s, v->en_prep); // listen to, talk to
    if (v->frame == FR_GIVE && has_obj2 && !c->to_form) np_en(s, lx, &c->obj2, 1, &o2a, &o2pp, &o2ro);
    if (has_obj) np_en(s, lx, &c->obj, 1, &oa, &opp, &oro);
    if (v->frame == FR_GIVE && has_obj2 && c->to_form) { i_prep2 = en_push(s, v->en_prep ? v->en_prep : "to"); np_en(s, lx, &c->obj2, 1, &o2a, &o2pp, &o2ro); }
    if (c->manner >= 0 && v->frame == FR_GO) i_manner = en_words(s, lx->advs[c->manner].en, 0); // "walked slowly to the station"
    if (v->frame == FR_GO && has_obj2) { i_prep2 = en_push(s, v->en_prep ? v->en_prep : "to"); np_en(s, lx, &c->obj2, 1, &o2a, &o2pp, &o2ro); }
    if (c->manner >= 0 && v->frame != FR_GO) i_manner = en_words(s, lx->advs[c->manner].en, 0); // "read the book carefully"
    if (c->prep >= 0) { i_prep = en_words(s, lx->preps[c->prep].en, lx->preps[c->prep].head); np_en(s, lx, &c->place, 1, &pa, &ppp, &pro); }
    if (c->time >= 0) i_time = s->ne, en_words(s, lx->times[c->time].en, -1);
    if (q) i_q = en_push(s, "?");
    (void)i_not; // "not" has no Persian word of its own: the verb takes ن

    // Persian: [آیا] [لطفاً] Subject [time] [when/why] [دار-] [adverb] [manner] [modal] [place | where]
    //          [را-object] [به person] [object] [preverb] verb [؟]
    if (q == Q_YESNO) fa_push(s, i_aux, "آیا", NULL, NULL);
    if (imp && c->please) fa_push(s, i_please, "لطفاً", NULL, NULL);
    if (!imp) np_fa(s, lx, &c->subj, 0, 0, &sa, &spp, &sro);
    if (c->time >= 0) fa_time(s, &lx->times[c->time], i_time);
    if (q == Q_WHEN) fa_push(s, i_wh, "کی", NULL, NULL);
    if (q == Q_WHY) fa_push(s, i_wh, "چرا", NULL, NULL);
    if (c->tense == LX_PROGRESSIVE && !c->neg && !c->modal && !imp) fa_push(s, i_aux, "دار", p->end_pres, NULL);
    if (c->adv >= 0) fa_words(s, i_adv, lx->advs[c->adv].fa);
    if (c->manner >= 0) fa_words(s, i_manner, lx->advs[c->manner].fa);
    if (c->modal == MOD_CAN) fa_push(s, i_aux, c->neg ? "نمی" ZW "توان" : "می" ZW "توان", p->end_pres, NULL);
    if (c->modal == MOD_MUST) fa_push(s, i_aux, c->neg ? "نباید" : "باید", NULL, NULL);
    if (c->modal == MOD_WANT) fa_push(s, i_want, c->neg ? "نمی" ZW "خواه" : "می" ZW "خواه", p->end_pres, NULL);
    if (c->prep >= 0) { fa_push(s, i_prep, lx->preps[c->prep].fa, NULL, NULL); np_fa(s, lx, &c->place, 0, 0, &pa, &ppp, &pro); }
    if (q == Q_WHERE) fa_push(s, i_wh, "کجا", NULL, NULL);
    if (v->frame == FR_GIVE && has_obj && has_obj2) {
        int def = np_definite(lx, &c->obj); // "English into Persian": انگلیسی را به فارسی
        if (def) fa_object(s, lx, v, &c->obj, &oa, &opp, &oro, i_verb);
        fa_push(s, i_prep2 >= 0 ? i_prep2 : i_verb, "به", NULL, NULL);
        np_fa(s, lx, &c->obj2, 0, 0, &o2a, &o2pp, &o2ro);
        if (!def) fa_object(s, lx, v, &c->obj, &oa, &opp, &oro, i_verb);
    } else if (has_obj) fa_object(s, lx, v, &c->obj, &oa, &opp, &oro, i_verb);
    if (v->frame == FR_GO && has_obj2) { fa_push(s, i_prep2, "به", NULL, NULL); np_fa(s, lx, &c->obj2, 0, 0, &o2a, &o2pp, &o2ro); }
    if (v->pre) fa_words(s, i_verb, v->pre);
    char w[160];
    int simple = !v->pre;
    if (imp || c->modal) { // the subjunctive: ب + present stem (not after a preverb), ن when negated
        const char *end = imp ? "ید" : p->end_pres;
        if (imp && c->neg) prefix(w, sizeof w, "ن", v->pres);
        else if (simple) prefix(w, sizeof w, "ب", v->pres);
        else snprintf(w, sizeof w, "%s", v->pres);
        fa_push(s, i_verb, w, end, NULL);
    } else switch (c->tense) {
    case LX_PRESENT: case LX_PROGRESSIVE: fa_present(s, v, p, c->neg, i_verb); break;
    case LX_PAST:
        if (c->neg) prefix(w, sizeof w, "ن", v->past); else snprintf(w, sizeof w, "%s", v->past);
        fa_push(s, i_verb, w, p->end_past, NULL);
        break;
    case LX_FUTURE:
        fa_push(s, i_aux, c->neg ? "نخواه" : "خواه", p->end_pres, NULL);
        fa_push(s, i_verb, v->past, NULL, NULL);
        break;
    case LX_PERFECT:
        if (c->neg) prefix(w, sizeof w, "ن", v->past); else snprintf(w, sizeof w, "%s", v->past);
        if (starts(p->end_perf, ZW)) fa_push(s, i_verb, w, "ه", p->end_perf);
        else { fa_push(s, i_verb, w, "ه", NULL); fa_push(s, i_aux, p->end_perf, NULL, NULL); }
        break;
    }
    if (q) fa_push(s, i_q, "؟", NULL, NULL);
}

// "be": S is ADJ / S is a N / S is in PLACE; Where is S?
static void build_be(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c) {
    const lx_pronoun *p = person_of(lx, &c->subj);
    np_at sa, spp, sro, pa, ppp, pro;
    int i_be = -1, i_will = -1, i_pred = -1, i_prep = -1, i_time = -1, i_q = -1, i_wh = -1, q = c->question;
    int tense = c->tense; // LX_BE, LX_BE_PAST, LX_BE_FUTURE
    const char *be = tense == LX_BE_PAST ? p->en_was : p->en_be;
    if (c->kind == CL_WHERE_BE) {
        i_wh = en_push(s, "where");
        i_be = en_push(s, p->en_be);
        np_en(s, lx, &c->subj, 0, &sa, &spp, &sro);
        i_q = en_push(s, "?");
        np_fa(s, lx, &c->subj, 0, 0, &sa, &spp, &sro);
        if (p->person == 2) fa_push(s, i_wh, "کجاست", NULL, NULL);
        else { fa_push(s, i_wh, "کجا", NULL, NULL); fa_push(s, i_be, p->be, NULL, NULL); }
        fa_push(s, i_q, "؟", NULL, NULL);
        return;
    }
    if (q) i_be = en_push(s, tense == LX_BE_FUTURE ? "will" : be);
    np_en(s, lx, &c->subj, 0, &sa, &spp, &sro);
    if (q && tense == LX_BE_FUTURE) i_will = i_be, i_be = en_push(s, "be");
    if (!q) {
        if (tense == LX_BE_FUTURE) { i_will = en_push(s, "will"); if (c->neg) en_push(s, "not"); i_be = en_push(s, "be"); }
        else { i_be = en_push(s, be); if (c->neg) en_push(s, "not"); }
    }
    if (c->kind == CL_BE_ADJ) i_pred = en_push(s, lx->adjs[c->adj].en);
    else if (c->kind == CL_BE_NOUN) {
        const lx_noun *N = &lx->nouns[c->obj.id];
        int pl = p->person >= 3;
        if (!pl) en_push(s, "a");
        i_pred = en_words(s, pl ? N->en_pl : N->en, -1);
    } else { i_prep = en_words(s, lx->preps[c->prep].en, lx->preps[c->prep].head); np_en(s, lx, &c->place, 1, &pa, &ppp, &pro); }
    if (c->time >= 0) i_time = s->ne, en_words(s, lx->times[c->time].en, -1);
    if (q) i_q = en_push(s, "?");

    if (q) fa_push(s, i_will >= 0 ? i_will : i_be, "آیا", NULL, NULL);
    np_fa(s, lx, &c->subj, 0, 0, &sa, &spp, &sro);
    if (c->time >= 0) fa_time(s, &lx->times[c->time], i_time);
    if (c->kind == CL_BE_ADJ) fa_words(s, i_pred, lx->adjs[c->adj].fa);
    else if (c->kind == CL_BE_NOUN) fa_words(s, i_pred, lx->nouns[c->obj.id].fa);
    else { fa_push(s, i_prep, lx->preps[c->prep].fa, NULL, NULL); np_fa(s, lx, &c->place, 0, 0, &pa, &ppp, &pro); }
    if (tense == LX_BE) fa_push(s, i_be, c->neg ? p->be_neg : p->be, NULL, NULL);
    else if (tense == LX_BE_PAST) fa_push(s, i_be, c->neg ? "نبود" : "بود", p->end_past, NULL);
    else { fa_push(s, i_will, c->neg ? "نخواه" : "خواه", p->end_pres, NULL); fa_push(s, i_be, "بود", NULL, NULL); }
    if (q) fa_push(s, i_q, "؟", NULL, NULL);
}

// "Reading books makes me happy": خواندن کتاب‌ها مرا خوشحال می‌کند
static void build_makes(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c) {
    np_at sa, oa;
    np_en(s, lx, &c->subj, 0, &sa, NULL, NULL);
    int past = c->tense == LX_PAST;
    int i_verb = en_push(s, past ? "made" : "makes");
    np_en(s, lx, &c->obj, 1, &oa, NULL, NULL);
    int i_adj = en_push(s, lx->adjs[c->adj].en);
    np_fa(s, lx, &c->subj, 0, 0, &sa, NULL, NULL);
    np_fa(s, lx, &c->obj, 1, 0, &oa, NULL, NULL);
    if (c->obj.type != NP_PRONOUN) fa_push(s, -1, "را", NULL, NULL);
    fa_words(s, i_adj, lx->adjs[c->adj].fa);
    fa_push(s, i_verb, past ? "کرد" : "می" ZW "کند", NULL, NULL);
}

static void build_phrase(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c) {
    const lx_phrase *ph = &lx->phrases[c->phrase];
    s->phrase = 1 + c->phrase;
    char **w;
    tf_err e;
    int base = s->ne, n = tf_split_words(ph->en, &w, &e);
    for (int i = 0; i < n; i++) en_push(s, w[i]);
    if (n > 0) tf_words_free(w, n);
    n = tf_split_words(ph->fa, &w, &e);
    for (int i = 0; i < n; i++) fa_push(s, ph->al[i] < 0 ? -1 : base + ph->al[i], w[i], NULL, NULL);
    if (n > 0) tf_words_free(w, n);
}

int lx_build(lx_sentence *s, const tf_lexicon *lx, const lx_clause *c) {
    switch (c->kind) {
    case CL_VERB: case CL_IMPERATIVE: build_verb(s, lx, c); break;
    case CL_BE_ADJ: case CL_BE_NOUN: case CL_BE_PLACE: case CL_WHERE_BE: build_be(s, lx, c); break;
    case CL_MAKES: build_makes(s, lx, c); break;
    case CL_PHRASE: build_phrase(s, lx, c); break;
    }
    return s->overflow ? -1 : 0;
}

static int is_glued(const char *w) { return !strcmp(w, "?") || !strcmp(w, "؟") || !strcmp(w, ",") || !strcmp(w, "."); }

void lx_join(const lx_sentence *s, char *src, size_t ns, char *tgt, size_t nt) {
    size_t at = 0;
    src[0] = tgt[0] = 0;
    for (int i = 0; i < s->ne && at < ns; i++) {
        at += (size_t)snprintf(src + at, ns - at, "%s%s", i && !is_glued(s->en[i]) ? " " : "", s->en[i]);
        if (i == 0 && src[0] >= 'a' && src[0] <= 'z') src[0] = (char)(src[0] - 32);
    }
    at = 0;
    for (int i = 0; i < s->nf && at < nt; i++) at += (size_t)snprintf(tgt + at, nt - at, "%s%s", i && !is_glued(s->fa[i]) ? " " : "", s->fa[i]);
}

// ---------------------------------------------------------------- drawing sentences
static int rnd(tf_rng *r, int n) { return n > 0 ? (int)(tf_rng_next(r) % (uint64_t)n) : 0; }
static int chance(tf_rng *r, int percent) { return rnd(r, 100) < percent; }

// A random noun of one of the classes cls (-1 none after a few tries).
static int pick_noun(tf_rng *r, const tf_lexicon *lx, uint32_t cls, int count_only) {
    for (int t = 0; t < 400; t++) {
        int i = rnd(r, lx->n_nouns);
        if ((lx->nouns[i].cls & cls) && (!count_only || lx->nouns[i].en_pl)) return i;
    }
    return -1;
}

static int pick_adj(tf_rng *r, const tf_lexicon *lx, uint32_t cls) {
    for (int t = 0; t < 100; t++) { int i = rnd(r, lx->n_adjs); if (lx->adjs[i].cls & cls) return i; }
    return -1;
}

static int pick_name(tf_rng *r, const tf_lexicon *lx, int kind1, int kind2) {
    for (int t = 0; t < 200; t++) { int i = rnd(r, lx->n_names); if (lx->names[i].kind == kind1 || lx->names[i].kind == kind2) return i; }
    return -1;
}

static int pick_det(tf_rng *r, const tf_lexicon *lx, int plural) {
    for (int t = 0; t < 100; t++) { int i = rnd(r, lx->n_dets); if (lx->dets[i].en_pl == plural) return i; }
    return -1;
}

// Nested noun phrases (places, relative objects) live here during one draw.
typedef struct { lx_np np[16]; int n; } np_pool;
static lx_np *pool_new(np_pool *p) { return p->n < 16 ? &p->np[p->n++] : NULL; }

static int draw_np(tf_rng *r, const tf_lexicon *lx, np_pool *pool, lx_np *np, uint32_t cls, int subject, int depth);

// A place: a preposition and what it takes (a city or country after "in").
static int draw_place(tf_rng *r, const tf_lexicon *lx, np_pool *pool, int *prep, lx_np *np, int depth) {
    uint32_t place = lx_class(lx, "place");
    int p = rnd(r, lx->n_preps);
    *prep = p;
    if ((lx->preps[p].cls & place) && chance(r, 15)) {
        int nm = pick_name(r, lx, NAME_CITY, NAME_COUNTRY);
        if (nm >= 0) { *np = (lx_np){NP_NAME, nm, -1, 0, -1, -1, -1, NULL, -1, -1, NULL}; return 0; }
    }
    return draw_np(r, lx, pool, np, lx->preps[p].cls, 0, depth + 1);
}

static int draw_np(tf_rng *r, const tf_lexicon *lx, np_pool *pool, lx_np *np, uint32_t cls, int subject, int depth) {
    *np = (lx_np){NP_NOUN, -1, -1, 0, -1, -1, -1, NULL, -1, -1, NULL};
    uint32_t person = lx_class(lx, "person");
    if ((cls & person) && depth == 0 && chance(r, 22)) { np->type = NP_PRONOUN; np->id = rnd(r, lx->n_prons); np->plural = lx->prons[np->id].person >= 3; return 0; }
    if ((cls & person) && chance(r, 25)) { int nm = pick_name(r, lx, NAME_PERSON, NAME_PERSON); if (nm >= 0) { np->type = NP_NAME; np->id = nm; return 0; } }
    if ((cls & lx_class(lx, "tongue")) && chance(r, 80)) { int nm = pick_name(r, lx, NAME_LANGUAGE, NAME_LANGUAGE); if (nm >= 0) { np->type = NP_NAME; np->id = nm; return 0; } }
    int n = pick_noun(r, lx, cls, 0);
    if (n < 0) return -1;
    const lx_noun *N = &lx->nouns[n];
    np->id = n;
    int k = rnd(r, 100);
    if (!N->en_pl) { np->det = k < 60 ? lx_find_det(lx, "the", 0) : -1; }
    else if (k < 10 && depth <= 1) { np->poss = rnd(r, lx->n_prons); np->plural = chance(r, 25); }
    else if (k < 18) { np->plural = 1; } // a generic plural: "books"
    else {
        np->plural = chance(r, 30);
        np->det = chance(r, 55) ? lx_find_det(lx, np->plural ? "the" : (chance(r, 50) ? "the" : "a"), np->plural) : pick_det(r, lx, np->plural);
    }
    if (chance(r, 30)) np->adj = pick_adj(r, lx, N->cls);
    if (depth <= 1 && chance(r, 12) && (N->cls & (lx_class(lx, "building") | lx_class(lx, "place")))) { // "a house near the sea"
        lx_np *pp = pool_new(pool);
        if (pp && !draw_place(r, lx, pool, &np->prep, pp, depth)) np->pp = pp;
        else np->prep = -1;
    }
    if (subject && depth == 0 && np->det >= 0 && !strcmp(lx->dets[np->det].en, "the") && chance(r, 15)) {
        // a relative clause on the subject: "the man who lives near the sea"
        for (int t = 0; t < 50; t++) {
            int v = rnd(r, lx->n_verbs);
            const lx_verb *V = &lx->verbs[v];
            if (V->frame == FR_GIVE || V->frame == FR_GO) continue;
            int intrans = V->frame == FR_IN;
            if (intrans ? !(V->cls & N->cls) : !((N->cls & person) || (V->animal && (N->cls & lx_class(lx, "animal"))))) continue;
            np->rel_verb = v;
            if (!intrans) {
                lx_np *o = pool_new(pool);
                if (!o || draw_np(r, lx, pool, o, V->cls, 0, 1)) { np->rel_verb = -1; break; }
                np->rel_obj = o;
            }
            break;
        }
    }
    return 0;
}

// A time word that goes with tense (-1 if none drawn).
static int pick_time(tf_rng *r, const tf_lexicon *lx, int tense) {
    for (int t = 0; t < 60; t++) { int i = rnd(r, lx->n_times); if (lx->times[i].tenses >> tense & 1) return i; }
    return -1;
}

static int pick_adverb(tf_rng *r, const tf_lexicon *lx, int kind_mask) {
    for (int t = 0; t < 60; t++) { int i = rnd(r, lx->n_advs); if (kind_mask >> lx->advs[i].kind & 1) return i; }
    return -1;
}

static void clause_init(lx_clause *c) {
    memset(c, 0, sizeof *c);
    c->verb = c->adj = c->adv = c->manner = c->time = c->phrase = c->prep = -1;
}

// One clause. joinable: may be followed or preceded by a conjunction (no questions, commands, phrases).
static int draw_clause(tf_rng *r, const tf_lexicon *lx, np_pool *pool, lx_clause *c, int joinable) {
    clause_init(c);
    uint32_t person = lx_class(lx, "person"), animal = lx_class(lx, "animal");
    int k = rnd(r, 100);
    if (!joinable && k < 6 && lx->n_phrases) { c->kind = CL_PHRASE; c->phrase = rnd(r, lx->n_phrases); return 0; }
    if (k >= 6 && k < 24) { // be
        int b = rnd(r, 10);
        c->tense = b < 6 ? LX_BE : b < 8 ? LX_BE_PAST : LX_BE_FUTURE;
        c->neg = chance(r, 20);
        c->question = !joinable && chance(r, 25) ? Q_YESNO : Q_NONE;
        if (c->question) c->neg = 0;
        int what = rnd(r, 3);
        if (!joinable && chance(r, 10)) { c->kind = CL_WHERE_BE; c->neg = 0; c->question = 0; c->tense = LX_BE; return draw_np(r, lx, pool, &c->subj, lx_class(lx, "building") | lx_class(lx, "thing") | person, 1, 1); }
        if (what == 0) {
            c->kind = CL_BE_ADJ;
            if (draw_np(r, lx, pool, &c->subj, 0xffffffffu, 1, 1)) return -1;
            uint32_t cls = c->subj.type == NP_NOUN ? lx->nouns[c->subj.id].cls : person;
            c->subj.adj = -1;
            if ((c->adj = pick_adj(r, lx, cls)) < 0) return -1;
        } else if (what == 1) {
            c->kind = CL_BE_NOUN;
            if (draw_np(r, lx, pool, &c->subj, person, 1, 0)) return -1;
            if (c->subj.type == NP_NOUN) { c->subj.rel_verb = -1; c->subj.prep = -1; }
            c->obj.type = NP_NOUN;
            if ((c->obj.id = pick_noun(r, lx, person, 1)) < 0) return -1;
        } else {
            c->kind = CL_BE_PLACE;
            if (draw_np(r, lx, pool, &c->subj, person | animal | lx_class(lx, "thing") | lx_class(lx, "furniture"), 1, 1)) return -1;
            if (draw_place(r, lx, pool, &c->prep, &c->place, 0)) return -1;
        }
        if (chance(r, 30)) c->time = pick_time(r, lx, c->tense);
        return 0;
    }
    if (k >= 24 && k < 27 && lx->n_gerunds && lx->n_prons) { // makes me happy
        c->kind = CL_MAKES;
        c->tense = chance(r, 70) ? LX_PRESENT : LX_PAST;
        c->subj.type = NP_GERUND;
        c->subj.id = rnd(r, lx->n_gerunds);
        if ((c->subj.gerund_noun = pick_noun(r, lx, lx->gerunds[c->subj.id].cls, 1)) < 0) return -1;
        c->subj.plural = 1;
        if (draw_np(r, lx, pool, &c->obj, person, 0, 0)) return -1;
        if (c->obj.type == NP_NOUN) { c->obj.rel_verb = -1; c->obj.prep = -1; }
        return (c->adj = pick_adj(r, lx, person)) < 0 ? -1 : 0;
    }
    // a verb
    c->kind = !joinable && k >= 27 && k < 35 ? CL_IMPERATIVE : CL_VERB;
    int v = -1;
    for (int t = 0; t < 50 && v < 0; t++) {
        v = rnd(r, lx->n_verbs);
        if (c->kind == CL_IMPERATIVE && (lx->verbs[v].frame == FR_LIKE || lx->verbs[v].frame == FR_HAVE || !strcmp(lx->verbs[v].pres, "شو"))) v = -1;
    }
    if (v < 0) return -1;
    const lx_verb *V = &lx->verbs[v];
    c->verb = v;
    int tk = rnd(r, 100);
    c->tense = tk < 30 ? LX_PRESENT : tk < 45 ? LX_PROGRESSIVE : tk < 75 ? LX_PAST : tk < 90 ? LX_FUTURE : LX_PERFECT;
    if (c->tense == LX_PROGRESSIVE && (V->stative || V->frame == FR_LIKE || V->frame == FR_HAVE)) c->tense = LX_PRESENT;
    c->neg = chance(r, 18);
    if (c->kind == CL_IMPERATIVE) { c->please = chance(r, 50); c->tense = LX_PRESENT; }
    else if (!joinable && chance(r, 35)) {
        int qk = rnd(r, 10);
        c->question = qk < 5 ? Q_YESNO : qk < 7 && (V->frame == FR_IN || V->frame == FR_GO) ? Q_WHERE : qk < 9 ? Q_WHEN : Q_WHY;
        c->neg = 0;
    }
    if (c->kind == CL_VERB && c->tense == LX_PRESENT && chance(r, 10)) c->modal = 1 + rnd(r, 3);
    // the subject
    uint32_t scls = (V->frame == FR_IN || V->frame == FR_GO) ? V->cls
                  : person | (V->animal && chance(r, 30) ? animal : 0) | (V->model && chance(r, 30) ? lx_class(lx, "model") : 0);
    if (c->kind != CL_IMPERATIVE && draw_np(r, lx, pool, &c->subj, scls, 1, 0)) return -1;
    if (c->kind == CL_IMPERATIVE) { c->subj.type = NP_PRONOUN; c->subj.id = lx_find_pronoun(lx, "you"); if (c->subj.id < 0) return -1; }
    // what follows the verb
    switch (V->frame) {
    case FR_IN:
        if (c->question != Q_WHERE && chance(r, 45) && draw_place(r, lx, pool, &c->prep, &c->place, 0)) return -1;
        break;
    case FR_GO:
        if (c->question != Q_WHERE && chance(r, 70)) {
            if (chance(r, 30)) { int nm = pick_name(r, lx, NAME_CITY, NAME_COUNTRY); if (nm >= 0) c->obj2 = (lx_np){NP_NAME, nm, -1, 0, -1, -1, -1, NULL, -1, -1, NULL}; }
            else if (draw_np(r, lx, pool, &c->obj2, lx_class(lx, "building") | lx_class(lx, "place"), 0, 1)) return -1;
        }
        break;
    default: {
        int gerund = (V->frame == FR_LIKE || V->frame == FR_AZ) && lx->n_gerunds && chance(r, 25);
        if (gerund) {
            c->obj.type = NP_GERUND;
            c->obj.id = rnd(r, lx->n_gerunds);
            c->obj.det = c->obj.adj = c->obj.poss = c->obj.prep = c->obj.rel_verb = -1;
            if ((c->obj.gerund_noun = pick_noun(r, lx, lx->gerunds[c->obj.id].cls, 1)) < 0) return -1;
            c->obj.plural = 1;
        } else if (draw_np(r, lx, pool, &c->obj, V->cls, 0, 0)) return -1;
        if (V->frame == FR_GIVE && V->en_prep) { // "translates English into Persian"
            int nm = pick_name(r, lx, NAME_LANGUAGE, NAME_LANGUAGE);
            if (nm < 0) return -1;
            c->obj2 = (lx_np){NP_NAME, nm, -1, 0, -1, -1, -1, NULL, -1, -1, NULL};
            c->to_form = 1;
        } else if (V->frame == FR_GIVE) {
            if (draw_np(r, lx, pool, &c->obj2, person, 0, 1)) return -1;
            c->to_form = chance(r, 40);
        }
        if (c->kind == CL_VERB && chance(r, 15) && draw_place(r, lx, pool, &c->prep, &c->place, 0)) return -1;
    }
    }
    if (c->obj.type == NP_PRONOUN && c->subj.type == NP_PRONOUN && lx->prons[c->obj.id].person == lx->prons[c->subj.id].person) c->obj.id = (c->obj.id + 2) % lx->n_prons;
    // adverbs and time
    if (c->kind == CL_VERB && chance(r, 18)) {
        int mask = 1 << ADV_DEGREE;
        if (c->tense == LX_PRESENT && !c->modal) mask |= 1 << ADV_FREQ | (!c->neg && !c->question ? 1 << ADV_NEVER : 0);
        c->adv = pick_adverb(r, lx, mask);
    }
    if (chance(r, 12)) c->manner = pick_adverb(r, lx, 1 << ADV_MANNER);
    if (c->kind == CL_VERB && c->question != Q_WHEN && chance(r, 35)) {
        c->time = pick_time(r, lx, c->tense);
        if (c->time >= 0 && c->adv >= 0 && lx->advs[c->adv].kind != ADV_DEGREE) c->time = -1; // "always … yesterday"
    }
    return 0;
}

// One sentence: a clause, or two or three joined by a conjunction.
static int draw_sentence(tf_rng *r, const tf_lexicon *lx, lx_sentence *s) {
    memset(s, 0, sizeof *s);
    np_pool pool = {0};
    lx_clause c;
    int n = chance(r, 55) ? 1 : chance(r, 60) ? 2 : 3;
    if (n == 1) {
        if (draw_clause(r, lx, &pool, &c, 0)) return -1;
        return lx_build(s, lx, &c);
    }
    for (int i = 0; i < n; i++) {
        pool.n = 0;
        if (draw_clause(r, lx, &pool, &c, 1)) return -1;
        if (i) {
            const lx_conj *cj = &lx->conjs[rnd(r, lx->n_conjs)];
            int at = en_push(s, cj->en);
            fa_push(s, at, cj->fa, NULL, NULL);
        }
        if (lx_build(s, lx, &c)) return -1;
    }
    return 0;
}

// The default sentence, from the word lists: I really enjoy learning transformers.
static int default_sentence(const tf_lexicon *lx, lx_sentence *s) {
    lx_clause c;
    clause_init(&c);
    memset(s, 0, sizeof *s);
    c.kind = CL_VERB;
    c.tense = LX_PRESENT;
    c.subj = (lx_np){NP_PRONOUN, lx_find_pronoun(lx, "I"), -1, 0, -1, -1, -1, NULL, -1, -1, NULL};
    c.verb = lx_find_verb(lx, "enjoy", FR_AZ);
    c.adv = lx_find_adverb(lx, "really");
    c.obj = (lx_np){NP_GERUND, lx_find_gerund(lx, "learning"), -1, 1, -1, -1, -1, NULL, lx_find_noun(lx, "transformer"), -1, NULL};
    if (c.subj.id < 0 || c.verb < 0 || c.adv < 0 || c.obj.id < 0 || c.obj.gerund_noun < 0) return -1;
    return lx_build(s, lx, &c);
}

// ---------------------------------------------------------------- split and sample
// Adds every word of both sides of p to the sets.
static int add_words(strset *sw, strset *tw, const tf_pair *p) {
    const char *text[2] = {p->src, p->tgt};
    strset *set[2] = {sw, tw};
    tf_err e;
    for (int side = 0; side < 2; side++) {
        char **w;
        int n = tf_split_words(text[side], &w, &e);
        if (n < 0) return -1;
        for (int i = 0; i < n; i++) if (strset_add(set[side], w[i]) < 0) { tf_words_free(w, n); return -1; }
        tf_words_free(w, n);
    }
    return 0;
}

// 1 when every word of p (either side) is in the sets; the first missing one in buf.
static int words_known(const strset *sw, const strset *tw, const char *src, const char *tgt, char *buf, size_t cap, int *side_out) {
    const char *text[2] = {src, tgt};
    const strset *set[2] = {sw, tw};
    tf_err e;
    for (int side = 0; side < 2; side++) {
        char **w;
        int n = tf_split_words(text[side], &w, &e);
        if (n < 0) return 0;
        for (int i = 0; i < n; i++)
            if (!strset_has(set[side], w[i])) { snprintf(buf, cap, "%s", w[i]); *side_out = side; tf_words_free(w, n); return 0; }
        tf_words_free(w, n);
    }
    return 1;
}

static int has_word(const char *text, const char *w) {
    size_t n = strlen(w);
    for (const char *p = strstr(text, w); p; p = strstr(p + 1, w))
        if ((p == text || p[-1] == ' ') && (p[n] == ' ' || !p[n] || p[n] == '?' || !strncmp(p + n, "؟", 2))) return 1;
    return 0;
}

#define HELD_SEED 0x5eed0f4e1dull // held-out sentences are drawn from their own seed
#define HELD_ONE_IN 40            // a source sentence is held out when its hash is 0 modulo this

int tf_corpus_generate(tf_corpus *train, tf_corpus *heldout, const tf_lexicon *lx, uint64_t seed, tf_err *e) {
    return tf_corpus_generate_n(train, heldout, lx, seed, TF_CORPUS_TRAIN_MAX, TF_CORPUS_HELDOUT_MAX, e);
}

int tf_corpus_generate_n(tf_corpus *train, tf_corpus *heldout, const tf_lexicon *lx, uint64_t seed, int n_train, int n_heldout,
                         tf_err *e) {
    memset(train, 0, sizeof *train);
    memset(heldout, 0, sizeof *heldout);
    strset seen = {0}, sw = {0}, tw = {0};
    tf_corpus cand = {0};
    lx_sentence *s = malloc(sizeof *s);
    unsigned char *said = calloc((size_t)lx->n_phrases + 1, 1); // times each set phrase is in train
    char src[2048], tgt[4096], miss[256];
    tf_rng r;
    if (!s || !said) goto oom;
    if (default_sentence(lx, s)) { free(s); free(said); return tf_fail(e, "the word lists cannot make \"%s\" (I, really, enjoy, learning, transformer); restore them in assets/corpus", TF_CORPUS_DEFAULT_SRC); }
    lx_join(s, src, sizeof src, tgt, sizeof tgt);
    if (strcmp(src, TF_CORPUS_DEFAULT_SRC) || strcmp(tgt, TF_CORPUS_DEFAULT_TGT)) {
        free(s);
        free(said);
        return tf_fail(e, "the word lists make \"%s\" -> \"%s\", not \"%s\"; fix assets/corpus", src, tgt, TF_CORPUS_DEFAULT_TGT);
    }
    if (strset_add(&seen, src) < 0 || push_pair(&cand, src, tgt, s->al, s->nf)) goto oom;
    // train: n_train new source sentences whose hash keeps them out of the held-out set
    tf_rng_seed(&r, seed);
    for (long tries = 0; train->n < n_train && tries < 50L * n_train + 1000; tries++) {
        if (draw_sentence(&r, lx, s)) continue;
        lx_join(s, src, sizeof src, tgt, sizeof tgt);
        if (fnv1a(src) % HELD_ONE_IN == 0 && !s->phrase) continue; // set phrases are learned, never held out
        int added = strset_add(&seen, src);
        if (added < 0) goto oom;
        if (s->phrase) added = said[s->phrase - 1] < TF_CORPUS_PHRASE_TIMES && ++said[s->phrase - 1];
        if (!added) continue;
        if (push_pair(train, src, tgt, s->al, s->nf) || add_words(&sw, &tw, &train->p[train->n - 1])) goto oom;
    }
    // held out: the default sentence, then sentences of the other hash whose words train has
    tf_rng_seed(&r, HELD_SEED);
    for (long tries = 0; cand.n < 1 + n_heldout && tries < 200L * (n_heldout + 10); tries++) {
        if (draw_sentence(&r, lx, s)) continue;
        lx_join(s, src, sizeof src, tgt, sizeof tgt);
        if (fnv1a(src) % HELD_ONE_IN || s->phrase) continue;
        int added = strset_add(&seen, src);
        if (added < 0) goto oom;
        if (added && push_pair(&cand, src, tgt, s->al, s->nf)) goto oom;
    }
    // a word of the default sentence train lacks comes in with more training sentences that have it
    tf_rng_seed(&r, seed ^ 0xdefau);
    int side;
    for (long tries = 0; !words_known(&sw, &tw, cand.p[0].src, cand.p[0].tgt, miss, sizeof miss, &side) && tries < 2000000; tries++) {
        if (draw_sentence(&r, lx, s)) continue;
        lx_join(s, src, sizeof src, tgt, sizeof tgt);
        if (fnv1a(src) % HELD_ONE_IN == 0 || !has_word(side ? tgt : src, miss)) continue;
        int added = strset_add(&seen, src);
        if (added < 0) goto oom;
        if (added && (push_pair(train, src, tgt, s->al, s->nf) || add_words(&sw, &tw, &train->p[train->n - 1]))) goto oom;
    }
    if (n_train > 0 && !words_known(&sw, &tw, cand.p[0].src, cand.p[0].tgt, miss, sizeof miss, &side)) {
        free(s); free(said); strset_free(&seen); strset_free(&sw); strset_free(&tw); tf_corpus_free(&cand); tf_corpus_free(train);
        return tf_fail(e, "no training sentence has \"%s\" of the default sentence; check assets/corpus", miss);
    }
    for (int i = 0; i < cand.n && heldout->n < 1 + n_heldout; i++) {
        const tf_pair *p = &cand.p[i];
        if (i && !words_known(&sw, &tw, p->src, p->tgt, miss, sizeof miss, &side)) continue;
        if (push_pair(heldout, p->src, p->tgt, p->align, p->n_tgt)) goto oom;
    }
    if (heldout->n > 1 && heldout->n > n_heldout) { // the default sentence counts
        tf_pair *last = &heldout->p[--heldout->n];
        free(last->src); free(last->tgt); free(last->align);
    }
    free(s); free(said); strset_free(&seen); strset_free(&sw); strset_free(&tw); tf_corpus_free(&cand);
    return 0;
oom:
    free(s); free(said); strset_free(&seen); strset_free(&sw); strset_free(&tw); tf_corpus_free(&cand);
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

int tf_parse_alignment(const char *s, int *al, int n_tgt, int n_src, const char *src, const char *tgt, tf_err *e) {
    int k = 0;
    for (const char *p = s;;) {
        while (*p == ' ') p++;
        if (!*p) break;
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || (*end && *end != ' ') || errno) {
            size_t l = strcspn(p, " ");
            return tf_fail(e, "the alignment \"%.*s\" is not a number; give one %s word index (or -1) per %s word", (int)(l > 20 ? 20 : l),
                           p, src, tgt);
        }
        if (k < n_tgt && (v < -1 || v >= n_src))
            return tf_fail(e, "the alignment %ld of %s word %d is out of range: the %s has %d words; use 0..%d, or -1 for none", v, tgt,
                           k + 1, src, n_src, n_src - 1);
        if (k < n_tgt) al[k] = (int)v;
        k++; // (too many are counted, and reported below)
        p = end;
    }
    if (k != n_tgt) return tf_fail(e, "has %d alignment numbers but the %s has %d words; give one per %s word (-1 for none)", k, tgt, n_tgt, tgt);
    return 0;
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
    if (al && tf_parse_alignment(al, a, n_tgt, n_src, "source", "target", e)) {
        free(a);
        return -1;
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

const char *tf_next_line(const char *text, size_t len, size_t *at, size_t *n) {
    const char *s = text + *at;
    const char *nl = memchr(s, '\n', len - *at);
    *n = nl ? (size_t)(nl - s) : len - *at;
    *at += *n + (nl ? 1 : 0);
    if (*n && s[*n - 1] == '\r') (*n)--;
    return s;
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
        size_t n;
        const char *s = tf_next_line(text, len, &at, &n);
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
