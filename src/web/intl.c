// intl.c (browser build) — gettext for the browser. Emscripten's C library
// (musl) has a gettext whose catalogue reading crashes on .mo files, so the
// browser build links these in its place: the same calls src/lesson/i18n.c
// makes, reading the same catalogues (build/locale/<lang>/LC_MESSAGES/tviz.mo,
// made by msgfmt) from the bound folder, in the language LANGUAGE names, as
// GNU gettext does. A missing catalogue or message gives the msgid.
#include <libintl.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char folder[512], domain[64] = "messages";

typedef struct {
    char lang[16];
    unsigned char *mo;          // the file
    size_t len;
    uint32_t n, orig, trans;    // strings, offsets of the two tables
    int swap;                   // written big-endian
} catalogue;

static catalogue cur;           // the one of the language last asked for
static int loaded;

static uint32_t word(const catalogue *c, size_t at) {
    if (at + 4 > c->len) return 0;
    uint32_t v;
    memcpy(&v, c->mo + at, 4);
    return c->swap ? __builtin_bswap32(v) : v;
}

static void load(const char *lang) {
    free(cur.mo);
    memset(&cur, 0, sizeof cur);
    snprintf(cur.lang, sizeof cur.lang, "%s", lang);
    loaded = 1;
    char path[700];
    snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/%s.mo", folder, lang, domain);
    FILE *f = fopen(path, "rb");
    if (!f) return;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 28 && n < (64 << 20) && fseek(f, 0, SEEK_SET) == 0 && (cur.mo = malloc((size_t)n)) && fread(cur.mo, 1, (size_t)n, f) == (size_t)n)
            cur.len = (size_t)n;
    }
    fclose(f);
    uint32_t magic = cur.len ? word(&cur, 0) : 0;
    if (magic != 0x950412de) {
        cur.swap = 1;
        if (word(&cur, 0) != 0x950412de) { free(cur.mo); cur.mo = NULL; cur.len = 0; return; }
    }
    cur.n = word(&cur, 8);
    cur.orig = word(&cur, 12);
    cur.trans = word(&cur, 16);
    if ((size_t)cur.orig + 8ull * cur.n > cur.len || (size_t)cur.trans + 8ull * cur.n > cur.len) { free(cur.mo); cur.mo = NULL; cur.len = 0; }
}

static const char *string(const catalogue *c, uint32_t table, uint32_t i) {
    uint32_t len = word(c, table + 8 * i), off = word(c, table + 8 * i + 4);
    if ((size_t)off + len >= c->len || c->mo[off + len]) return NULL;
    return (const char *)c->mo + off;
}

char *gettext(const char *msgid) {
    const char *lang = getenv("LANGUAGE");
    if (!lang || !*lang) lang = "en";
    char first[16]; // (LANGUAGE may list several, "fa:en": the first)
    snprintf(first, sizeof first, "%.*s", (int)strcspn(lang, ":"), lang);
    if (!loaded || strcmp(first, cur.lang)) load(first);
    if (!msgid || !cur.mo) return (char *)msgid;
    uint32_t lo = 0, hi = cur.n; // msgfmt sorts the originals
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *o = string(&cur, cur.orig, mid);
        int c = o ? strcmp(msgid, o) : -1;
        if (!c) {
            const char *t = string(&cur, cur.trans, mid);
            return (char *)(t && *t ? t : msgid);
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return (char *)msgid;
}

char *dgettext(const char *d, const char *msgid) { (void)d; return gettext(msgid); }

char *bindtextdomain(const char *d, const char *dir) {
    (void)d;
    if (dir) { snprintf(folder, sizeof folder, "%s", dir); loaded = 0; }
    return folder;
}

char *bind_textdomain_codeset(const char *d, const char *codeset) { (void)d; return (char *)codeset; }

char *textdomain(const char *d) {
    if (d) { snprintf(domain, sizeof domain, "%s", d); loaded = 0; }
    return domain;
}
