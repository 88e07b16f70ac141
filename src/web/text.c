// text.c (browser build) — render.h's text entry points over CanvasKit's
// Paragraph API (HarfBuzz shaping and ICU's bidi and line breaking inside
// Skia), in place of src/render/text.c's pango. tviz's markup subset is read
// here: <b>, <i>, <tt>, <span allow_breaks="false">, <span size="N%"
// rise="N">, <span line_height='N'> and the entities; the rest of tviz
// counts positions in UTF-8 bytes of the plain text, CanvasKit in UTF-16
// units of its string: converted here. A laid-out paragraph is kept by the
// page's script under a key made of the text and its style, and drawn again.
#include "../render/render.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canvaskit.h"

#define MAX_RUNS 256
#define RUN_FLOATS 12 // start16, end16, flags, size, rise, r, g, b, ur, ug, ub, (unused)
enum { F_BOLD = 1, F_ITALIC = 2, F_MONO = 4, F_UNDERLINE = 8, F_NOBREAK = 16 };
#define STYLE_FLOATS 8 // width, max_width, align (0 start, 1 centre, 2 end), rtl, line height (px, 0: the fonts'), size, (unused) ×2

// ---------------------------------------------------------------- UTF-8 and UTF-16
static uint32_t next_cp(const unsigned char *s, size_t *i) {
    uint32_t c = s[*i];
    int n = c < 0x80 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (n) c &= 0x3F >> n;
    (*i)++;
    for (int k = 0; k < n && (s[*i] & 0xC0) == 0x80; k++) c = (c << 6) | (s[(*i)++] & 0x3F);
    return c;
}

// The UTF-16 position of byte i of text.
static int u16_at(const char *text, int i) {
    int n = 0;
    for (size_t k = 0; text[k] && (int)k < i;) n += next_cp((const unsigned char *)text, &k) >= 0x10000 ? 2 : 1;
    return n;
}

// The byte of text at UTF-16 position p (the end of the text past it).
static int byte_at(const char *text, int p) {
    size_t k = 0;
    for (int n = 0; text[k] && n < p;) n += next_cp((const unsigned char *)text, &k) >= 0x10000 ? 2 : 1;
    return (int)k;
}

// Pango's base direction: that of the first letter with a strong one.
static int first_strong_rtl(const char *text) {
    for (size_t k = 0; text[k];) {
        uint32_t c = next_cp((const unsigned char *)text, &k);
        if ((c >= 0x0590 && c <= 0x08FF) || (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE70 && c <= 0xFEFF)) {
            if ((c >= 0x0660 && c <= 0x0669) || (c >= 0x06F0 && c <= 0x06F9) || (c >= 0x064B && c <= 0x065F)) continue; // digits, marks
            return 1;
        }
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0x024F && c != 0xD7 && c != 0xF7) ||
            (c >= 0x0370 && c <= 0x058F))
            return 0;
    }
    return 0;
}

// ---------------------------------------------------------------- markup
typedef struct {
    char *text;                 // the plain text (malloc'd)
    size_t n, cap;
    float runs[MAX_RUNS * RUN_FLOATS];
    int n_runs;
    double line_height;         // px from <span line_height>, 0 none
    int bad;
} parsed;

typedef struct { int flags; double size, rise; } span;

static void put(parsed *p, const char *s, size_t len) {
    if (p->n + len + 1 > p->cap) {
        size_t nc = (p->cap ? p->cap * 2 : 256) + len;
        char *t = realloc(p->text, nc);
        if (!t) { p->bad = 1; return; }
        p->text = t;
        p->cap = nc;
    }
    memcpy(p->text + p->n, s, len);
    p->n += len;
    p->text[p->n] = 0;
}

// A run of the plain text [from, p->n) in the style on top of the stack.
static void close_run(parsed *p, size_t from, const span *sp, const render_text_style *s) {
    if (p->n == from || p->n_runs == MAX_RUNS) return;
    float *r = &p->runs[p->n_runs++ * RUN_FLOATS];
    memset(r, 0, sizeof(float) * RUN_FLOATS);
    r[0] = (float)from; // bytes for now; UTF-16 once the text is whole
    r[1] = (float)p->n;
    r[2] = (float)sp->flags;
    r[3] = (float)(s->size * sp->size);
    r[4] = (float)sp->rise;
    r[5] = (float)s->color.r;
    r[6] = (float)s->color.g;
    r[7] = (float)s->color.b;
}

static const char *attr(const char *tag, const char *name, char *val, size_t n) {
    const char *a = strstr(tag, name);
    if (!a) return NULL;
    a += strlen(name);
    while (*a == ' ') a++;
    if (*a++ != '=') return NULL;
    while (*a == ' ') a++;
    char q = *a++;
    if (q != '"' && q != '\'') return NULL;
    size_t k = 0;
    while (*a && *a != q && k + 1 < n) val[k++] = *a++;
    val[k] = 0;
    return val;
}

// Reads markup (or plain text when markup is 0) into p, the style of every
// run from s and the tags. 0, or -1 when it is not well formed.
static int parse(parsed *p, const char *in, int markup, const render_text_style *s) {
    memset(p, 0, sizeof *p);
    span stack[32];
    int depth = 0;
    stack[0] = (span){(s->bold ? F_BOLD : 0) | (s->italic ? F_ITALIC : 0) | (s->mono ? F_MONO : 0), 1, 0};
    put(p, "", 0);
    size_t from = 0;
    for (const char *c = in; *c && !p->bad;) {
        if (markup && *c == '<') {
            const char *end = strchr(c, '>');
            if (!end || end - c > 200) return -1;
            char tag[208];
            memcpy(tag, c + 1, (size_t)(end - c - 1));
            tag[end - c - 1] = 0;
            close_run(p, from, &stack[depth], s);
            from = p->n;
            if (tag[0] == '/') {
                if (depth == 0) return -1;
                depth--;
            } else {
                if (depth + 1 >= 32) return -1;
                span sp = stack[depth];
                char v[64];
                if (!strcmp(tag, "b")) sp.flags |= F_BOLD;
                else if (!strcmp(tag, "i")) sp.flags |= F_ITALIC;
                else if (!strcmp(tag, "tt")) sp.flags |= F_MONO;
                else if (!strncmp(tag, "span", 4)) {
                    if (attr(tag, "allow_breaks", v, sizeof v) && !strcmp(v, "false")) sp.flags |= F_NOBREAK;
                    if (attr(tag, "size", v, sizeof v) && strchr(v, '%')) sp.size *= atof(v) / 100;
                    if (attr(tag, "rise", v, sizeof v)) sp.rise = atof(v) / 1024; // pango units
                    if (attr(tag, "line_height", v, sizeof v)) p->line_height = atof(v) / 1024;
                } else if (strcmp(tag, "sub") && strcmp(tag, "sup") && strcmp(tag, "u") && strcmp(tag, "s")) return -1;
                stack[++depth] = sp;
            }
            c = end + 1;
            continue;
        }
        if (markup && *c == '&') {
            static const struct { const char *e, *s; } ent[] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}};
            size_t i;
            for (i = 0; i < sizeof ent / sizeof *ent; i++)
                if (!strncmp(c, ent[i].e, strlen(ent[i].e))) break;
            if (i < sizeof ent / sizeof *ent) {
                put(p, ent[i].s, 1);
                c += strlen(ent[i].e);
                continue;
            }
            if (c[1] == '#') { // &#N; and &#xN;
                char *e;
                unsigned long cp = c[2] == 'x' ? strtoul(c + 3, &e, 16) : strtoul(c + 2, &e, 10);
                if (*e != ';' || !cp || cp > 0x10FFFF) return -1;
                char u[4];
                size_t k = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
                if (k == 1) u[0] = (char)cp;
                else {
                    u[0] = (char)((k == 2 ? 0xC0 : k == 3 ? 0xE0 : 0xF0) | (cp >> (6 * (k - 1))));
                    for (size_t j = 1; j < k; j++) u[j] = (char)(0x80 | ((cp >> (6 * (k - 1 - j))) & 0x3F));
                }
                put(p, u, k);
                c = e + 1;
                continue;
            }
            return -1;
        }
        put(p, c, 1);
        c++;
    }
    if (depth != 0 || p->bad) return -1;
    close_run(p, from, &stack[0], s);
    // underline the marked ranges: runs split at their ends
    for (int m = 0; m < s->n_marks; m++) {
        float a = (float)s->marks[2 * m], b = (float)s->marks[2 * m + 1];
        for (int i = 0; i < p->n_runs && p->n_runs < MAX_RUNS - 2; i++) {
            float *r = &p->runs[i * RUN_FLOATS];
            if (r[1] <= a || r[0] >= b) continue;
            float cut[2] = {a, b};
            for (int k = 0; k < 2; k++)
                if (cut[k] > r[0] && cut[k] < r[1]) { // split run i at cut[k]
                    memmove(r + RUN_FLOATS, r, sizeof(float) * RUN_FLOATS * (size_t)(p->n_runs - i));
                    p->n_runs++;
                    r[1] = r[RUN_FLOATS] = cut[k];
                    if (k == 0) { i++; r += RUN_FLOATS; } // the part from a on is the one marked
                }
            if (r[0] >= a && r[1] <= b) {
                r[2] = (float)((int)r[2] | F_UNDERLINE);
                r[8] = (float)s->mark_color.r;
                r[9] = (float)s->mark_color.g;
                r[10] = (float)s->mark_color.b;
            }
        }
    }
    for (int i = 0; i < p->n_runs; i++) { // byte ranges -> UTF-16
        float *r = &p->runs[i * RUN_FLOATS];
        r[0] = (float)u16_at(p->text, (int)r[0]);
        r[1] = (float)u16_at(p->text, (int)r[1]);
    }
    return 0;
}

// ---------------------------------------------------------------- paragraphs
// The paragraphs laid out so far, by their key (the text and its style, as
// bytes): open addressing on the key's hash. Full: the page's script drops
// them all (ck_par_clear) and the table starts again, as the desktop's does.
#define KEPT_SLOTS 8192
#define KEPT_MAX 3000
typedef struct { uint64_t hash; unsigned char *key; size_t len; int id; } kept_par;
static kept_par kept[KEPT_SLOTS];
static int n_kept;

// What of a style makes its paragraph (sizes in pango's half-pixel steps).
typedef struct {
    int markup, bold, italic, mono, align, dir, n_marks;
    float size, width, max_width, color[3], mark_color[3];
} style_key;

static uint64_t fnv1a(const unsigned char *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static kept_par *kept_slot(const unsigned char *key, size_t len, uint64_t h) {
    size_t i = (size_t)h & (KEPT_SLOTS - 1);
    while (kept[i].key && (kept[i].hash != h || kept[i].len != len || memcmp(kept[i].key, key, len))) i = (i + 1) & (KEPT_SLOTS - 1);
    return &kept[i];
}

static void kept_clear(void) {
    for (int i = 0; i < KEPT_SLOTS; i++) free(kept[i].key);
    memset(kept, 0, sizeof kept);
    n_kept = 0;
    ck_par_clear();
}

// The kept paragraph of a text in a style (laid out when first asked for);
// 0 when the markup does not parse. text: its plain text when not NULL (free it).
static int paragraph(const char *in, int markup, const render_text_style *s, char **text) {
    style_key sk;
    memset(&sk, 0, sizeof sk); // (no padding bytes of chance in the key)
    sk.markup = markup;
    sk.bold = s->bold;
    sk.italic = s->italic;
    sk.mono = s->mono;
    sk.align = s->align;
    sk.dir = s->dir;
    sk.n_marks = s->n_marks;
    sk.size = (float)(round(s->size * 2) / 2);
    sk.width = (float)s->width;
    sk.max_width = (float)s->max_width;
    sk.color[0] = (float)s->color.r, sk.color[1] = (float)s->color.g, sk.color[2] = (float)s->color.b;
    if (s->n_marks) sk.mark_color[0] = (float)s->mark_color.r, sk.mark_color[1] = (float)s->mark_color.g, sk.mark_color[2] = (float)s->mark_color.b;
    size_t lm = sizeof(int) * 2 * (size_t)(s->n_marks > 0 ? s->n_marks : 0), li = strlen(in), len = sizeof sk + lm + li;
    unsigned char *key = malloc(len);
    if (!key) return 0;
    memcpy(key, &sk, sizeof sk);
    if (lm) memcpy(key + sizeof sk, s->marks, lm);
    memcpy(key + sizeof sk + lm, in, li);
    uint64_t h = fnv1a(key, len, 0xcbf29ce484222325ull);
    kept_par *slot = kept_slot(key, len, h);
    int id = slot->key ? slot->id : 0;
    if (id && !text) { free(key); return id; }
    parsed p;
    if (parse(&p, in, markup, s)) { free(p.text); free(key); return 0; }
    if (!id) {
        float style[STYLE_FLOATS] = {0};
        int rtl = s->dir == RENDER_DIR_RTL || (s->dir == RENDER_DIR_AUTO && s->width > 0 && first_strong_rtl(p.text));
        style[0] = (float)(s->width > 0 ? s->width : 0);
        style[1] = (float)(s->width <= 0 && s->max_width > 0 ? s->max_width : 0);
        style[2] = s->width > 0 ? (s->align == RENDER_ALIGN_CENTER ? 1 : s->align == RENDER_ALIGN_RIGHT ? 2 : 0) : -1; // -1: one line, from the left
        style[3] = (float)rtl;
        style[4] = (float)(p.line_height > 0 ? p.line_height : s->width > 0 ? s->size * (s->dir == RENDER_DIR_RTL ? 1.75 : 1.45) : 0);
        style[5] = sk.size;
        for (int i = 0; i < p.n_runs; i++) p.runs[i * RUN_FLOATS + 3] = (float)(round(p.runs[i * RUN_FLOATS + 3] * 2) / 2);
        if (n_kept >= KEPT_MAX) {
            kept_clear();
            slot = kept_slot(key, len, h);
        }
        id = ck_par_new(p.text, p.runs, p.n_runs, style);
        if (id) {
            slot->hash = h;
            slot->key = key;
            slot->len = len;
            slot->id = id;
            n_kept++;
            key = NULL;
        }
    }
    free(key);
    if (text) *text = p.text;
    else free(p.text);
    return id;
}

static void par_size(int id, const render_text_style *s, double *w, double *h) {
    float m[5] = {0};
    if (id) ck_par_metrics(id, m);
    *w = s->width > 0 ? s->width : m[2];
    *h = m[1];
}

static double draw(cairo_t *cr, const char *in, int markup, double x, double y, const render_text_style *s) {
    int id = paragraph(in, markup, s, NULL);
    double w, h;
    par_size(id, s, &w, &h);
    if (!id) return 0;
    // the transformation: cr's, moved to (x, y), turned by the angle, and moved for the alignment
    double m[6], c = cos(s->angle), sn = sin(s->angle);
    cairo_web_matrix(cr, m);
    double dx = 0;
    if (s->width <= 0 && s->align == RENDER_ALIGN_CENTER) dx = -w / 2;
    else if (s->width <= 0 && s->align == RENDER_ALIGN_RIGHT) dx = -w;
    double ox = x + c * dx, oy = y + sn * dx; // where the paragraph's top-left goes, in user space
    float fm[6] = {(float)(m[0] * c + m[2] * sn), (float)(m[1] * c + m[3] * sn), (float)(-m[0] * sn + m[2] * c),
                   (float)(-m[1] * sn + m[3] * c), (float)(m[0] * ox + m[2] * oy + m[4]), (float)(m[1] * ox + m[3] * oy + m[5])};
    int canvas = cairo_web_canvas(cr);
    if (canvas) ck_par_draw(canvas, id, fm);
    return h;
}

double render_text(cairo_t *cr, const char *utf8, double x, double y, const render_text_style *s) { return draw(cr, utf8, 0, x, y, s); }
double render_markup(cairo_t *cr, const char *markup, double x, double y, const render_text_style *s) { return draw(cr, markup, 1, x, y, s); }

void render_text_size(cairo_t *cr, const char *utf8, const render_text_style *s, double *w, double *h) {
    (void)cr;
    par_size(paragraph(utf8, 0, s, NULL), s, w, h);
}

void render_markup_size(cairo_t *cr, const char *markup, const render_text_style *s, double *w, double *h) {
    (void)cr;
    par_size(paragraph(markup, 1, s, NULL), s, w, h);
}

int render_markup_plain(const char *markup, char *buf, size_t n) {
    render_text_style s = render_style(10, (render_rgb){0, 0, 0});
    parsed p;
    int rc = parse(&p, markup, 1, &s);
    if (!rc) snprintf(buf, n, "%s", p.text);
    free(p.text);
    return rc;
}

int render_markup_index(cairo_t *cr, const char *markup, const render_text_style *s, double x, double y) {
    (void)cr;
    char *text = NULL;
    int id = paragraph(markup, 1, s, &text);
    double w, h;
    par_size(id, s, &w, &h);
    if (s->width <= 0 && s->align == RENDER_ALIGN_CENTER) x += w / 2; // as draw places it
    else if (s->width <= 0 && s->align == RENDER_ALIGN_RIGHT) x += w;
    int index = -1;
    if (id && text && x >= 0 && y >= 0 && y < h) {
        // outside every line's extent (pango's xy_to_index says so): no character
        float lines[3 * 64];
        int n = ck_par_lines(id, lines, 64), inside = 0;
        for (int i = 0; i < n && i < 64; i++) inside |= x >= lines[3 * i + 1] && x < lines[3 * i + 1] + lines[3 * i + 2];
        if (inside) index = byte_at(text, ck_par_index(id, (float)x, (float)y));
    }
    free(text);
    return index;
}

int render_markup_lines(cairo_t *cr, const char *markup, const render_text_style *s, int *starts, double *over, int max) {
    (void)cr;
    char *text = NULL;
    int id = paragraph(markup, 1, s, &text);
    if (!id || !text) { free(text); return 0; }
    float lines[3 * 256];
    int n = ck_par_lines(id, lines, 256);
    for (int i = 0; i < n && i < max && i < 256; i++) {
        starts[i] = byte_at(text, (int)lines[3 * i]);
        double left = lines[3 * i + 1], width = lines[3 * i + 2];
        over[i] = s->width > 0 ? fmax(0, fmax(-left, left + width - s->width)) : 0;
    }
    free(text);
    return n;
}

double render_text_caret(cairo_t *cr, const char *utf8, const render_text_style *s, int i) {
    (void)cr;
    int id = paragraph(utf8, 0, s, NULL);
    return id ? ck_par_caret(id, u16_at(utf8, i), s->dir == RENDER_DIR_RTL) : 0;
}
