// tokenizer.c — UTF-8, words, subword pieces (BPE) and vocabularies.
// A sentence splits on white space; punctuation is a word of its own. A word
// (or, in a model with merges, each of its pieces) is looked up as written,
// then lower-cased; otherwise it is <unk>.
#include "tf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Decodes one code point at s (n bytes left). Returns its length, or 0 if
// the bytes there are not well-formed UTF-8 (overlong, surrogate, > U+10FFFF).
static int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp) {
    if (n == 0) return 0;
    unsigned char b = s[0];
    if (b < 0x80) { *cp = b; return 1; }
    int len; uint32_t min;
    if ((b & 0xE0) == 0xC0) { len = 2; *cp = b & 0x1F; min = 0x80; }
    else if ((b & 0xF0) == 0xE0) { len = 3; *cp = b & 0x0F; min = 0x800; }
    else if ((b & 0xF8) == 0xF0) { len = 4; *cp = b & 0x07; min = 0x10000; }
    else return 0;
    if ((size_t)len > n) return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) return 0;
    return len;
}

int tf_utf8_check(const char *s, size_t n, size_t *bad_at) {
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
        if (!len) { if (bad_at) *bad_at = i; return -1; }
        i += (size_t)len;
    }
    return 0;
}

static int is_space(uint32_t c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xA0 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

static int is_punct(uint32_t c) {
    // ASCII punctuation in Unicode's sense (categories P*): symbols such as
    // < > + = $ stay inside words, so "<unk>" is one token.
    if (c < 0x80) return c && strchr("!\"#%&'()*,-./:;?@[\\]_{}", (int)c) != NULL;
    switch (c) {
    case 0xA1: case 0xAB: case 0xBB: case 0xBF:      // ¡ « » ¿
    case 0x060C: case 0x061B: case 0x061F: case 0x06D4: // Arabic comma, semicolon, question mark, full stop
    case 0x066A: case 0x066B: case 0x066C:           // Arabic percent, decimal and thousands separators
    case 0x2026: case 0x3001: case 0x3002:           // … 、 。
        return 1;
    }
    return (c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E); // dashes, quotes, bullets
}

static int is_control(uint32_t c) { return (c < 0x20 && !is_space(c)) || (c >= 0x7F && c <= 0x9F); }

static int push_word(char ***words, int *n, int *cap, const char *s, size_t len) {
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 16;
        char **w = realloc(*words, sizeof(char *) * (size_t)nc);
        if (!w) return -1;
        *words = w;
        *cap = nc;
    }
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, s, len);
    copy[len] = 0;
    (*words)[(*n)++] = copy;
    return 0;
}

int tf_split_words(const char *sentence, char ***words_out, tf_err *e) {
    char **words = NULL;
    int n = 0, cap = 0;
    size_t len = strlen(sentence), i = 0, start = 0;
    int in_word = 0;
    while (i < len) {
        uint32_t cp;
        int k = utf8_decode((const unsigned char *)sentence + i, len - i, &cp);
        if (!k) { tf_words_free(words, n); return tf_fail(e, "the sentence is not valid UTF-8 (byte %zu); retype it or save it as UTF-8", i + 1); }
        if (is_control(cp)) {
            tf_words_free(words, n);
            return tf_fail(e, "the sentence contains the control character U+%04X (byte %zu); remove it", (unsigned)cp, i + 1);
        }
        int sp = is_space(cp), pu = is_punct(cp);
        if ((sp || pu) && in_word) {
            if (push_word(&words, &n, &cap, sentence + start, i - start)) goto oom;
            in_word = 0;
        }
        if (pu) { if (push_word(&words, &n, &cap, sentence + i, (size_t)k)) goto oom; }
        else if (!sp && !in_word) { in_word = 1; start = i; }
        i += (size_t)k;
    }
    if (in_word && push_word(&words, &n, &cap, sentence + start, len - start)) goto oom;
    *words_out = words;
    return n;
oom:
    tf_words_free(words, n);
    return tf_fail(e, "out of memory while reading the sentence");
}

void tf_words_free(char **words, int n) {
    if (!words) return;
    for (int i = 0; i < n; i++) free(words[i]);
    free(words);
}

// ---------------------------------------------------------------- vocabulary
static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int tf_vocab_parse(tf_vocab *v, const char *joined, const char *what, tf_err *e) {
    memset(v, 0, sizeof *v);
    v->unk = v->bos = v->eos = v->pad = -1;
    size_t len = strlen(joined), bad;
    if (tf_utf8_check(joined, len, &bad))
        return tf_fail(e, "%s is not valid UTF-8 (byte %zu); fix the tokens", what, bad + 1);
    v->text = malloc(len + 1);
    if (!v->text) return tf_fail(e, "out of memory for %s", what);
    memcpy(v->text, joined, len + 1);
    if (len > 0 && v->text[len - 1] == '\n') v->text[--len] = 0; // one trailing newline is fine
    int n = 1;
    for (size_t i = 0; i < len; i++) n += v->text[i] == '\n';
    if (n > TF_MAX_V) { tf_vocab_free(v); return tf_fail(e, "%s has %d tokens, more than tviz takes (%d)", what, n, TF_MAX_V); }
    v->tok = malloc(sizeof(char *) * (size_t)n);
    char **sorted = malloc(sizeof(char *) * (size_t)n);
    if (!v->tok || !sorted) { free(sorted); tf_vocab_free(v); return tf_fail(e, "out of memory for %s", what); }
    char *p = v->text;
    for (int i = 0; i < n; i++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        size_t tl = strlen(p);
        if (tl && p[tl - 1] == '\r') p[--tl] = 0;
        if (tl == 0) {
            free(sorted); tf_vocab_free(v);
            return tf_fail(e, "%s has an empty token at index %d; remove the blank line", what, i);
        }
        v->tok[i] = sorted[i] = p;
        if (!strcmp(p, "<unk>")) v->unk = i;
        else if (!strcmp(p, "<bos>")) v->bos = i;
        else if (!strcmp(p, "<eos>")) v->eos = i;
        else if (!strcmp(p, "<pad>")) v->pad = i;
        p = nl ? nl + 1 : p + tl;
    }
    v->n = n;
    qsort(sorted, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 1; i < n; i++)
        if (!strcmp(sorted[i - 1], sorted[i])) {
            int dup = tf_fail(e, "%s lists the token \"%.40s\" twice; each token must appear once", what, sorted[i]);
            free(sorted); tf_vocab_free(v);
            return dup;
        }
    free(sorted);
    if (v->unk < 0) { tf_vocab_free(v); return tf_fail(e, "%s has no <unk> token; add \"<unk>\" to it", what); }
    return 0;
}

void tf_vocab_free(tf_vocab *v) {
    free(v->tok);
    free(v->text);
    memset(v, 0, sizeof *v);
    v->unk = v->bos = v->eos = v->pad = -1;
}

static int lookup(const tf_vocab *v, const char *s) {
    for (int i = 0; i < v->n; i++) if (!strcmp(v->tok[i], s)) return i;
    return -1;
}

int tf_vocab_find(const tf_vocab *v, const char *tok) {
    int id = lookup(v, tok);
    if (id >= 0) return id;
    // Lower-case ASCII and Latin-1 capitals (À–Þ but ×) and try again.
    size_t n = strlen(tok);
    char *low = malloc(n + 1);
    if (!low) return -1;
    int changed = 0;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (c >= 'A' && c <= 'Z') { c = (unsigned char)(c + 32); changed = 1; }
        else if (c == 0xC3 && i + 1 < n) {
            unsigned char d = (unsigned char)tok[i + 1];
            low[i] = (char)c;
            if (d >= 0x80 && d <= 0x9E && d != 0x97) { d = (unsigned char)(d + 0x20); changed = 1; }
            low[++i] = (char)d;
            continue;
        }
        low[i] = (char)c;
    }
    id = changed ? lookup(v, low) : -1;
    free(low);
    return id;
}

// ---------------------------------------------------------------- subword pieces (BPE)
#define BPE_MAX_MERGES 1000000
#define BPE_EOW "</w>"
#define BPE_MAX_LETTERS 4096 // merging is quadratic in a word's length

static uint64_t bpe_hash(const char *a, const char *sep, const char *b) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = a; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    for (const char *p = sep; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    for (const char *p = b; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

// Does line ("x y") equal a + " " + b?
static int bpe_is(const char *line, const char *a, const char *b) {
    size_t la = strlen(a);
    return !strncmp(line, a, la) && line[la] == ' ' && !strcmp(line + la + 1, b);
}

int tf_bpe_rank(const tf_bpe *b, const char *a, const char *bb) {
    if (!b || !b->n) return -1;
    size_t i = (size_t)bpe_hash(a, " ", bb) & (b->n_slot - 1);
    for (; b->slot[i] >= 0; i = (i + 1) & (b->n_slot - 1))
        if (bpe_is(b->line[b->slot[i]], a, bb)) return b->slot[i];
    return -1;
}

void tf_bpe_free(tf_bpe *b) {
    free(b->buf);
    free(b->line);
    free(b->text);
    free(b->slot);
    memset(b, 0, sizeof *b);
}

static int bpe_fail(tf_bpe *b, tf_err *e, const char *what, int ln, const char *line, const char *why) {
    char shown[48];
    snprintf(shown, sizeof shown, "%s", line);
    tf_one_line(shown, sizeof shown);
    tf_bpe_free(b);
    return tf_fail(e, "%s line %d (\"%s\") %s", what, ln, shown, why);
}

int tf_bpe_parse(tf_bpe *b, const char *text, const char *what, tf_err *e) {
    memset(b, 0, sizeof *b);
    size_t len = strlen(text), bad;
    if (tf_utf8_check(text, len, &bad)) return tf_fail(e, "%s is not valid UTF-8 (byte %zu); write the merges as UTF-8", what, bad + 1);
    int cap = 1;
    for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
    if (cap > BPE_MAX_MERGES + 1) return tf_fail(e, "%s has %d lines, more than the %d merges tviz takes; learn fewer", what, cap, BPE_MAX_MERGES);
    b->buf = malloc(len + 1);
    b->text = malloc(len + 1);
    b->line = malloc(sizeof(char *) * (size_t)cap);
    if (!b->buf || !b->text || !b->line) { tf_bpe_free(b); return tf_fail(e, "out of memory for %s", what); }
    memcpy(b->buf, text, len + 1);
    memcpy(b->text, text, len + 1);
    int ln = 0;
    for (char *p = b->buf; p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        ln++;
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r') p[--l] = 0;
        char *next = nl ? nl + 1 : NULL;
        if (ln == 1 && !strncmp(p, "#version", 8)) { p = next; continue; }
        if (!l && (!next || !*next)) break; // a final newline
        char *sp = strchr(p, ' ');
        int ctl = 0;
        for (const char *q = p; *q; q++) ctl |= (unsigned char)*q < 0x20 || *q == 0x7f;
        if (!sp || sp == p || !sp[1] || strchr(sp + 1, ' ') || ctl)
            return bpe_fail(b, e, what, ln, p, "is not two pieces separated by one space; write one merge a line as \"a b\"");
        b->line[b->n++] = p;
        p = next;
    }
    if (b->n == 0) { tf_bpe_free(b); return tf_fail(e, "%s has no merges; give one a line, or leave the key out for a word-level model", what); }
    // the hash table, and no merge twice
    b->n_slot = 16;
    while (b->n_slot < (size_t)b->n * 2) b->n_slot *= 2;
    b->slot = malloc(sizeof(int) * b->n_slot);
    if (!b->slot) { tf_bpe_free(b); return tf_fail(e, "out of memory for %s", what); }
    for (size_t i = 0; i < b->n_slot; i++) b->slot[i] = -1;
    for (int r = 0; r < b->n; r++) {
        char *sp = strchr(b->line[r], ' ');
        *sp = 0;
        size_t i = (size_t)bpe_hash(b->line[r], " ", sp + 1) & (b->n_slot - 1);
        *sp = ' ';
        for (; b->slot[i] >= 0; i = (i + 1) & (b->n_slot - 1))
            if (!strcmp(b->line[b->slot[i]], b->line[r])) {
                char why[96];
                snprintf(why, sizeof why, "repeats merge %d; keep one of them", b->slot[i] + 1);
                return bpe_fail(b, e, what, r + 1, b->line[r], why); // (line = merge number here)
            }
        b->slot[i] = r;
    }
    return 0;
}

// One code point's length at s (UTF-8 already checked).
static int cp_len(const char *s) {
    unsigned char c = (unsigned char)*s;
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
}

int tf_bpe_word(const tf_bpe *b, const char *word, char ***pieces, tf_err *e) {
    size_t wl = strlen(word);
    int n = 0;
    for (size_t i = 0; i < wl; i += (size_t)cp_len(word + i)) n++;
    if (!n) return tf_fail(e, "an empty word has no pieces");
    if (n > BPE_MAX_LETTERS) return tf_fail(e, "a word of %d letters is longer than tviz splits into pieces (%d); shorten it", n, BPE_MAX_LETTERS);
    char **sym = malloc(sizeof(char *) * (size_t)n);
    if (!sym) return tf_fail(e, "out of memory while splitting a word");
    int k = 0;
    for (size_t i = 0; i < wl; k++) { // characters, the last marked </w>
        int l = cp_len(word + i);
        sym[k] = malloc((size_t)l + sizeof BPE_EOW);
        if (!sym[k]) { tf_words_free(sym, k); return tf_fail(e, "out of memory while splitting a word"); }
        memcpy(sym[k], word + i, (size_t)l);
        sym[k][l] = 0;
        if (k == n - 1) strcat(sym[k], BPE_EOW);
        i += (size_t)l;
    }
    // merge the best-ranked pair, everywhere in the word, until none is a merge
    for (;;) {
        int best = -1;
        for (int i = 0; i + 1 < n; i++) {
            int r = tf_bpe_rank(b, sym[i], sym[i + 1]);
            if (r >= 0 && (best < 0 || r < best)) best = r;
        }
        if (best < 0) break;
        int o = 0;
        for (int i = 0; i < n; i++) {
            if (i + 1 < n && tf_bpe_rank(b, sym[i], sym[i + 1]) == best) {
                size_t la = strlen(sym[i]), lb = strlen(sym[i + 1]);
                char *m = realloc(sym[i], la + lb + 1);
                if (!m) { for (int j = o; j < n; j++) if (j >= i) free(sym[j]); tf_words_free(sym, o); return tf_fail(e, "out of memory while splitting a word"); }
                memcpy(m + la, sym[i + 1], lb + 1);
                free(sym[i + 1]);
                sym[o++] = m;
                i++;
            } else sym[o++] = sym[i];
        }
        n = o;
    }
    // "</w>" off the last piece, "@@" on the others
    for (int i = 0; i < n; i++) {
        size_t l = strlen(sym[i]);
        if (i == n - 1) { sym[i][l - strlen(BPE_EOW)] = 0; continue; }
        char *m = realloc(sym[i], l + 3);
        if (!m) { tf_words_free(sym, n); return tf_fail(e, "out of memory while splitting a word"); }
        memcpy(m + l, "@@", 3);
        sym[i] = m;
    }
    *pieces = sym;
    return n;
}

int tf_tokens(const tf_bpe *b, const char *sentence, char ***tokens, tf_err *e) {
    char **w;
    int n = tf_split_words(sentence, &w, e);
    if (n < 0 || !b || !b->n) { if (n >= 0) *tokens = w; return n; }
    char **out = NULL;
    int k = 0, cap = 0;
    for (int i = 0; i < n; i++) {
        char **p;
        int np = tf_bpe_word(b, w[i], &p, e);
        if (np < 0) { tf_words_free(w, n); tf_words_free(out, k); return -1; }
        if (k + np > cap) {
            cap = (k + np) * 2;
            char **g = realloc(out, sizeof(char *) * (size_t)cap);
            if (!g) { tf_words_free(p, np); tf_words_free(w, n); tf_words_free(out, k); return tf_fail(e, "out of memory while reading the sentence"); }
            out = g;
        }
        memcpy(out + k, p, sizeof(char *) * (size_t)np);
        k += np;
        free(p);
    }
    tf_words_free(w, n);
    *tokens = out;
    return k;
}

// SentencePiece pieces (MarianMT) mark a word's start with "▁" (U+2581): when
// any token starts with it, pieces join and each "▁" becomes a space.
#define SPM_SPACE "\xe2\x96\x81"
char *tf_join_tokens(char *const *tokens, int n) {
    size_t len = 1;
    int spm = 0;
    for (int i = 0; i < n; i++) {
        len += strlen(tokens[i]) + 1;
        spm |= !strncmp(tokens[i], SPM_SPACE, 3);
    }
    char *s = malloc(len), *o = s;
    if (!s) return NULL;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(tokens[i]);
        if (spm) {
            for (const char *p = tokens[i]; *p;) {
                if (!strncmp(p, SPM_SPACE, 3)) { if (o > s) *o++ = ' '; p += 3; }
                else *o++ = *p++;
            }
            continue;
        }
        int cont = l > 2 && !strcmp(tokens[i] + l - 2, "@@");
        memcpy(o, tokens[i], cont ? l - 2 : l);
        o += cont ? l - 2 : l;
        if (!cont && i + 1 < n) *o++ = ' ';
    }
    *o = 0;
    return s;
}
