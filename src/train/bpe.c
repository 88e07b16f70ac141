// bpe.c — learning subword merges from a corpus (paper §5.1, "byte-pair
// encoding"), as subword-nmt does (Sennrich et al., 2016): every word of one
// side, counted, is split into characters, the last marked "</w>"; the most
// frequent adjacent pair becomes one symbol, everywhere; repeat. The merges,
// in the order learned, are what tf_bpe_parse reads and tf_bpe_word applies.
#include "train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char **sym; int n; long count; } bpe_word; // a word type as its current symbols

// A table of pair counts: "a b" -> count, open addressing, rebuilt each round.
typedef struct { char **key; long *count; size_t n_slot; int used; } pair_table;

static uint64_t hash2(const char *a, const char *b) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = a; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    h = (h ^ ' ') * 0x100000001b3ull;
    for (const char *p = b; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

static int pair_is(const char *key, const char *a, const char *b) {
    size_t la = strlen(a);
    return !strncmp(key, a, la) && key[la] == ' ' && !strcmp(key + la + 1, b);
}

static void table_clear(pair_table *t) {
    for (size_t i = 0; i < t->n_slot; i++) { free(t->key[i]); t->key[i] = NULL; t->count[i] = 0; }
    t->used = 0;
}

static int table_add(pair_table *t, const char *a, const char *b, long c) {
    size_t i = (size_t)hash2(a, b) & (t->n_slot - 1);
    for (; t->key[i]; i = (i + 1) & (t->n_slot - 1))
        if (pair_is(t->key[i], a, b)) { t->count[i] += c; return 0; }
    if ((size_t)(t->used + 1) * 2 > t->n_slot) return 1; // full: the caller grows it
    size_t la = strlen(a), lb = strlen(b);
    t->key[i] = malloc(la + lb + 2);
    if (!t->key[i]) return -1;
    memcpy(t->key[i], a, la);
    t->key[i][la] = ' ';
    memcpy(t->key[i] + la + 1, b, lb + 1);
    t->count[i] = c;
    t->used++;
    return 0;
}

static void words_free(bpe_word *w, int n) {
    for (int i = 0; i < n; i++) { for (int k = 0; k < w[i].n; k++) free(w[i].sym[k]); free(w[i].sym); }
    free(w);
}

// The word types of one side with their counts, each as characters + </w>.
static int word_types(const tf_corpus *c, int side, bpe_word **out, int *n_out) {
    int n = 0, cap = 0, n_slot = 1 << 16;
    bpe_word *w = NULL;
    int *slot = malloc(sizeof(int) * (size_t)n_slot);
    if (!slot) return -1;
    for (int i = 0; i < n_slot; i++) slot[i] = -1;
    for (int i = 0; i < c->n; i++) {
        char **ws;
        int nw = tf_split_words(side ? c->p[i].tgt : c->p[i].src, &ws, NULL);
        if (nw < 0) continue;
        for (int k = 0; k < nw; k++) {
            char **pieces;
            uint64_t h = hash2(ws[k], "");
            size_t at = (size_t)h & (size_t)(n_slot - 1);
            int found = -1;
            for (; slot[at] >= 0; at = (at + 1) & (size_t)(n_slot - 1)) {
                // a word type is found by joining its characters back
                bpe_word *x = &w[slot[at]];
                size_t len = 0;
                for (int s = 0; s < x->n; s++) len += strlen(x->sym[s]);
                if (len == strlen(ws[k]) + 4) {
                    char buf[512];
                    size_t o = 0;
                    for (int s = 0; s < x->n && o + strlen(x->sym[s]) < sizeof buf; s++) { strcpy(buf + o, x->sym[s]); o += strlen(x->sym[s]); }
                    buf[o - 4] = 0;
                    if (!strcmp(buf, ws[k])) { found = slot[at]; break; }
                }
            }
            if (found >= 0) { w[found].count++; continue; }
            if (n == cap || n * 2 >= n_slot) {
                if (n * 2 >= n_slot) { // grow the table: rehash
                    int ns = n_slot * 2;
                    int *s2 = malloc(sizeof(int) * (size_t)ns);
                    if (!s2) goto oom;
                    for (int q = 0; q < ns; q++) s2[q] = -1;
                    free(slot);
                    slot = s2; n_slot = ns;
                    for (int q = 0; q < n; q++) {
                        char buf[512];
                        size_t o = 0;
                        for (int s = 0; s < w[q].n && o + strlen(w[q].sym[s]) < sizeof buf; s++) { strcpy(buf + o, w[q].sym[s]); o += strlen(w[q].sym[s]); }
                        buf[o - 4] = 0;
                        size_t a2 = (size_t)hash2(buf, "") & (size_t)(n_slot - 1);
                        while (slot[a2] >= 0) a2 = (a2 + 1) & (size_t)(n_slot - 1);
                        slot[a2] = q;
                    }
                    at = (size_t)h & (size_t)(n_slot - 1);
                    while (slot[at] >= 0) at = (at + 1) & (size_t)(n_slot - 1);
                }
                if (n == cap) {
                    cap = cap ? cap * 2 : 1024;
                    bpe_word *g = realloc(w, sizeof *w * (size_t)cap);
                    if (!g) goto oom;
                    w = g;
                }
            }
            if (strlen(ws[k]) > 400) continue; // (no corpus word is this long)
            tf_bpe none = {0};
            int np = tf_bpe_word(&none, ws[k], &pieces, NULL); // characters
            if (np < 0) goto oom;
            // tf_bpe_word marked all but the last with @@; learning wants the last with </w> and no @@
            for (int s = 0; s < np; s++) {
                size_t l = strlen(pieces[s]);
                if (s < np - 1) pieces[s][l - 2] = 0;
                else {
                    char *g = realloc(pieces[s], l + 5);
                    if (!g) { tf_words_free(pieces, np); goto oom; }
                    strcpy(g + l, "</w>");
                    pieces[s] = g;
                }
            }
            w[n] = (bpe_word){pieces, np, 1};
            slot[at] = n++;
        }
        tf_words_free(ws, nw);
        continue;
    oom:
        tf_words_free(ws, nw);
        free(slot);
        words_free(w, n);
        return -1;
    }
    free(slot);
    *out = w;
    *n_out = n;
    return 0;
}

char *tf_bpe_learn(const tf_corpus *c, int side, int n_merges, tf_err *e) {
    bpe_word *w;
    int n;
    if (word_types(c, side, &w, &n)) { tf_fail(e, "out of memory while learning subword merges"); return NULL; }
    pair_table t = {0};
    t.n_slot = 1 << 16;
    t.key = calloc(t.n_slot, sizeof *t.key);
    t.count = calloc(t.n_slot, sizeof *t.count);
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    if (!t.key || !t.count || !out) goto oom;
    out[0] = 0;
    for (int m = 0; m < n_merges; m++) {
        // count every adjacent pair, weighted by the word's count
        for (;;) {
            table_clear(&t);
            int full = 0;
            for (int i = 0; i < n && !full; i++)
                for (int k = 0; k + 1 < w[i].n && !full; k++) {
                    int r = table_add(&t, w[i].sym[k], w[i].sym[k + 1], w[i].count);
                    if (r < 0) goto oom;
                    full = r;
                }
            if (!full) break;
            table_clear(&t);
            size_t ns = t.n_slot * 2;
            char **k2 = calloc(ns, sizeof *k2);
            long *c2 = calloc(ns, sizeof *c2);
            if (!k2 || !c2) { free(k2); free(c2); goto oom; }
            free(t.key); free(t.count);
            t.key = k2; t.count = c2; t.n_slot = ns;
        }
        // the most frequent pair; ties go to the smaller string, so every run learns the same merges
        size_t best = (size_t)-1;
        for (size_t i = 0; i < t.n_slot; i++)
            if (t.key[i] && (best == (size_t)-1 || t.count[i] > t.count[best] || (t.count[i] == t.count[best] && strcmp(t.key[i], t.key[best]) < 0)))
                best = i;
        if (best == (size_t)-1 || t.count[best] < 2) break; // nothing left worth merging
        size_t kl = strlen(t.key[best]);
        if (len + kl + 2 > cap) {
            while (len + kl + 2 > cap) cap *= 2;
            char *g = realloc(out, cap);
            if (!g) goto oom;
            out = g;
        }
        memcpy(out + len, t.key[best], kl);
        len += kl;
        out[len++] = '\n';
        out[len] = 0;
        // merge it everywhere
        char *sp = strchr(t.key[best], ' ');
        *sp = 0;
        const char *a = t.key[best], *b = sp + 1;
        for (int i = 0; i < n; i++) {
            int o = 0;
            for (int k = 0; k < w[i].n; k++) {
                if (k + 1 < w[i].n && !strcmp(w[i].sym[k], a) && !strcmp(w[i].sym[k + 1], b)) {
                    size_t la = strlen(w[i].sym[k]), lb = strlen(w[i].sym[k + 1]);
                    char *g = realloc(w[i].sym[k], la + lb + 1);
                    if (!g) { *sp = ' '; goto oom; }
                    memcpy(g + la, w[i].sym[k + 1], lb + 1);
                    free(w[i].sym[k + 1]);
                    w[i].sym[o++] = g;
                    k++;
                } else w[i].sym[o++] = w[i].sym[k];
            }
            w[i].n = o;
        }
        *sp = ' ';
    }
    table_clear(&t);
    free(t.key); free(t.count);
    words_free(w, n);
    if (!len) { free(out); tf_fail(e, "the corpus has no pair of characters seen twice; nothing to merge"); return NULL; }
    return out;
oom:
    table_clear(&t);
    free(t.key); free(t.count); free(out);
    words_free(w, n);
    tf_fail(e, "out of memory while learning subword merges");
    return NULL;
}

// A set of strings that keeps their order.
typedef struct { char **s; int n, cap; int *slot; size_t n_slot; } sset;

static int sset_add(sset *t, const char *w) {
    if ((size_t)(t->n + 1) * 2 > t->n_slot) {
        size_t ns = t->n_slot ? t->n_slot * 2 : 4096;
        int *slot = malloc(sizeof(int) * ns);
        if (!slot) return -1;
        for (size_t i = 0; i < ns; i++) slot[i] = -1;
        for (int k = 0; k < t->n; k++) {
            size_t i = (size_t)hash2(t->s[k], "") & (ns - 1);
            while (slot[i] >= 0) i = (i + 1) & (ns - 1);
            slot[i] = k;
        }
        free(t->slot);
        t->slot = slot; t->n_slot = ns;
    }
    size_t i = (size_t)hash2(w, "") & (t->n_slot - 1);
    for (; t->slot[i] >= 0; i = (i + 1) & (t->n_slot - 1)) if (!strcmp(t->s[t->slot[i]], w)) return 0;
    if (t->n == t->cap) {
        int nc = t->cap ? t->cap * 2 : 1024;
        char **g = realloc(t->s, sizeof(char *) * (size_t)nc);
        if (!g) return -1;
        t->s = g; t->cap = nc;
    }
    if (!(t->s[t->n] = strdup(w))) return -1;
    t->slot[i] = t->n++;
    return 1;
}

static void sset_free(sset *t) {
    for (int i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s); free(t->slot);
}

// Vocabulary of a subword model: the special tokens, every piece the corpus
// splits into, every single character as a word's end ("x") and as a word's
// inside ("x@@"), and every symbol a merge makes, so any word of these
// letters splits into known pieces.
char *tf_bpe_vocab(const tf_corpus *c, int side, const tf_bpe *b) {
    sset v = {0}, ch = {0};
    char *out = NULL;
    for (int i = 0; i < c->n; i++) {
        const char *text = side ? c->p[i].tgt : c->p[i].src;
        char **t;
        int n = tf_tokens(b, text, &t, NULL);
        if (n < 0) continue;
        for (int k = 0; k < n; k++) {
            if (sset_add(&v, t[k]) < 0) { tf_words_free(t, n); goto done; }
            for (const char *p = t[k]; *p;) { // its characters
                unsigned char u = (unsigned char)*p;
                int l = u < 0x80 ? 1 : (u & 0xE0) == 0xC0 ? 2 : (u & 0xF0) == 0xE0 ? 3 : 4;
                if (!strcmp(p, "@@")) break;
                char one[8];
                memcpy(one, p, (size_t)l);
                one[l] = 0;
                if (sset_add(&ch, one) < 0) { tf_words_free(t, n); goto done; }
                p += l;
            }
        }
        tf_words_free(t, n);
    }
    for (int i = 0; i < ch.n; i++) {
        char cont[16];
        snprintf(cont, sizeof cont, "%s@@", ch.s[i]);
        if (sset_add(&v, ch.s[i]) < 0 || sset_add(&v, cont) < 0) goto done;
    }
    // every symbol a merge makes: a word never seen may stop at any of them
    for (int i = 0; i < b->n; i++) {
        char piece[512];
        const char *sp = strchr(b->line[i], ' ');
        size_t la = (size_t)(sp - b->line[i]), lb = strlen(sp + 1);
        if (la + lb + 3 > sizeof piece) continue;
        memcpy(piece, b->line[i], la);
        memcpy(piece + la, sp + 1, lb + 1);
        size_t l = la + lb;
        if (l >= 4 && !strcmp(piece + l - 4, "</w>")) piece[l - 4] = 0; // a word's last piece
        else memcpy(piece + l, "@@", 3);                                 // a piece the word goes on after
        if (piece[0] && sset_add(&v, piece) < 0) goto done;
    }
    static const char *const special[] = {"<pad>", "<unk>", "<bos>", "<eos>"};
    size_t len = 32;
    for (int i = 0; i < v.n; i++) len += strlen(v.s[i]) + 1;
    out = malloc(len);
    if (!out) goto done;
    size_t at = (size_t)sprintf(out, "%s\n%s\n%s\n%s", special[0], special[1], special[2], special[3]);
    for (int i = 0; i < v.n; i++) {
        if (!strcmp(v.s[i], "<pad>") || !strcmp(v.s[i], "<unk>") || !strcmp(v.s[i], "<bos>") || !strcmp(v.s[i], "<eos>")) continue;
        at += (size_t)sprintf(out + at, "\n%s", v.s[i]);
    }
done:
    sset_free(&v);
    sset_free(&ch);
    return out;
}
