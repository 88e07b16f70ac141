// tokenizer.c — UTF-8, words and vocabularies.
// A sentence splits on white space; punctuation is a word of its own. A word
// is looked up as written, then lower-cased; otherwise it is <unk>.
#include "tf.h"

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
