// link.c — the link of a view (link.h): reading and writing the fragment,
// and opening it on a state through the calls keys make.
#include "link.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lesson/i18n.h"

#define PAN_MAX 32.0
#define INT_MAX_LINK (1 << 24) // the largest row, column or time step a link names

// The views of the window (app_state_view), by render's names.
static const render_view window_views[] = {RENDER_VIEW_HEATMAP, RENDER_VIEW_MATRIX, RENDER_VIEW_HEADS, RENDER_VIEW_GRID,
                                           RENDER_VIEW_LINES, RENDER_VIEW_LINES_HEADS, RENDER_VIEW_TOPK, RENDER_VIEW_COMPARE,
                                           RENDER_VIEW_SIDE_BY_SIDE};
#define N_WINDOW_VIEWS (sizeof window_views / sizeof *window_views)

static void link_clear(app_link *l) {
    memset(l, 0, sizeof *l);
    l->view = RENDER_VIEW_AUTO;
    l->zoom = 1;
    l->cell_row = l->cell_col = -1;
    l->time = -1;
}

static int fail(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

// A value as a message may quote it: what fits in n (whole characters, and
// "…" when cut), control characters and bytes of broken UTF-8 as '?', so the
// message stays one line.
static const char *quoted(const char *v, char *buf, size_t n) {
    size_t bad, len = strlen(v), k = 0, most = n - 4;
    int utf8 = tf_utf8_check(v, len, &bad) == 0;
    for (size_t i = 0; i < len && k < most; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7F || (c >= 0x80 && !utf8)) buf[k++] = '?';
        else if (c >= 0x80 && (c & 0xC0) != 0x80) { // a whole character or none
            size_t cl = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            if (i + cl > len || k + cl > most) break;
            memcpy(buf + k, v + i, cl);
            k += cl;
            i += cl - 1;
        } else buf[k++] = (char)c;
    }
    if (k < len) { memcpy(buf + k, "…", 3); k += 3; }
    buf[k] = 0;
    return buf;
}

// ---------------------------------------------------------------- percent-encoding (RFC 3986)
static int hex(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

// [p, e) decoded into out (cap bytes with its NUL): %HH is a byte, '+' a
// space. The encoding was checked before. Returns the length, or -1 when it
// does not fit.
static int decode(const char *p, const char *e, char *out, size_t cap) {
    size_t k = 0;
    for (; p < e; p++) {
        if (k + 1 >= cap) return -1;
        if (*p == '%') { out[k++] = (char)(hex(p[1]) * 16 + hex(p[2])); p += 2; }
        else out[k++] = *p == '+' ? ' ' : *p;
    }
    out[k] = 0;
    return (int)k;
}

static int unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

// ---------------------------------------------------------------- reading values
// A text value: valid UTF-8 without control characters (C0, DEL, C1), shorter than cap.
static int text_value(char *dst, size_t cap, const char *key, const char *v, int may_be_empty, char *why, size_t n) {
    size_t len = strlen(v), bad;
    if (!len && !may_be_empty) return fail(why, n, _("%s= in the link is empty; give a value or leave the key out"), key);
    if (len >= cap) return fail(why, n, _("%s= in the link is longer than %d bytes; shorten it"), key, (int)cap - 1);
    if (tf_utf8_check(v, len, &bad)) return fail(why, n, _("%s= in the link is not valid UTF-8 text once decoded (byte %d); copy the whole link again"), key, (int)bad + 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c == 0x7F || (c == 0xC2 && (unsigned char)v[i + 1] >= 0x80 && (unsigned char)v[i + 1] <= 0x9F))
            return fail(why, n, _("%s= in the link holds a control character; copy the whole link again"), key);
    }
    memcpy(dst, v, len + 1);
    return 0;
}

// A name made of letters, digits and the bytes in extra only.
static int plain_name(const char *v, const char *extra) {
    if (!*v) return 0;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr(extra, *p))) return 0;
    return 1;
}

// A decimal number as written by link_write: -?DIGITS(.DIGITS)? (no exponent, no hexadecimal, no "inf").
static int number(const char *v, const char *end, double *out) {
    const char *p = v;
    if (p < end && *p == '-') p++;
    const char *d = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (p == d) return -1;
    if (p < end && *p == '.') {
        const char *f = ++p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == f) return -1;
    }
    if (p != end || end - v > 40) return -1;
    char buf[48];
    memcpy(buf, v, (size_t)(end - v));
    buf[end - v] = 0;
    *out = strtod(buf, NULL);
    return 0;
}

static int whole(const char *v, const char *end, int *out) {
    double x;
    if (number(v, end, &x) || x != floor(x) || x < 0 || x > INT_MAX_LINK) return -1;
    *out = (int)x;
    return 0;
}

// "A,B" into two values by parse (number or whole); -1 unless exactly two.
static int pair_of(const char *v, int (*parse)(const char *, const char *, void *), void *a, void *b) {
    const char *comma = strchr(v, ',');
    if (!comma) return -1;
    return parse(v, comma, a) || parse(comma + 1, v + strlen(v), b) ? -1 : 0;
}
static int parse_number(const char *v, const char *e, void *out) {
    double *x = out;
    return number(v, e, x) || !(*x >= -PAN_MAX && *x <= PAN_MAX) ? -1 : 0;
}
static int parse_whole(const char *v, const char *e, void *out) { return whole(v, e, out); }

// One key=value of the link, decoded.
static int read_key(app_link *l, const char *key, const char *v, char *why, size_t n) {
    char q[64];
    const char *end = v + strlen(v);
    if (!strcmp(key, "model")) {
        if (text_value(l->model, sizeof l->model, key, v, 0, why, n)) return -1;
        l->has |= LINK_MODEL;
    } else if (!strcmp(key, "src")) {
        if (text_value(l->src, sizeof l->src, key, v, 0, why, n)) return -1;
        l->has |= LINK_SRC;
    } else if (!strcmp(key, "tgt")) {
        if (text_value(l->tgt, sizeof l->tgt, key, v, 1, why, n)) return -1;
        l->has |= LINK_TGT;
    } else if (!strcmp(key, "stage")) {
        if (!plain_name(v, "._-") || strlen(v) >= sizeof l->stage)
            return fail(why, n, _("stage=%s in the link is not a stage id; ids look like enc.0.self_attn.head.1.weights"), quoted(v, q, sizeof q));
        memcpy(l->stage, v, strlen(v) + 1);
        l->has |= LINK_STAGE;
    } else if (!strcmp(key, "view")) {
        render_view rv;
        int ok = !render_view_parse(v, &rv) && rv == RENDER_VIEW_AUTO;
        for (size_t i = 0; !ok && i < N_WINDOW_VIEWS; i++) ok = !render_view_parse(v, &rv) && rv == window_views[i];
        if (!ok)
            return fail(why, n, _("view=%s in the link is not a view of the window; the views are heatmap, matrix, heads, grid, lines, "
                                  "lines-heads, top-k, compare and side-by-side"), quoted(v, q, sizeof q));
        l->view = rv;
        l->has |= LINK_VIEW;
    } else if (!strcmp(key, "lang")) {
        if (!plain_name(v, "_-") || strlen(v) >= sizeof l->lang)
            return fail(why, n, _("lang=%s in the link is not a language code such as en, fa or ar"), quoted(v, q, sizeof q));
        memcpy(l->lang, v, strlen(v) + 1);
        l->has |= LINK_LANG;
    } else if (!strcmp(key, "without")) {
        tf_err e;
        if (tf_without_parse(v, &l->without, &e))
            return fail(why, n, _("without=%s in the link names a part tviz cannot switch off; the parts are pe, scale, mask and residual"),
                        quoted(v, q, sizeof q));
        l->has |= LINK_WITHOUT;
    } else if (!strcmp(key, "zoom")) {
        if (number(v, end, &l->zoom) || !(l->zoom >= 1 && l->zoom <= 32))
            return fail(why, n, _("zoom=%s in the link is not a number from 1 (the whole view) to 32"), quoted(v, q, sizeof q));
        l->has |= LINK_ZOOM;
    } else if (!strcmp(key, "pan")) {
        if (pair_of(v, parse_number, &l->pan_x, &l->pan_y))
            return fail(why, n, _("pan=%s in the link is not two numbers X,Y from -32 to 32 (view widths and heights)"), quoted(v, q, sizeof q));
        l->has |= LINK_PAN;
    } else if (!strcmp(key, "cell")) {
        if (pair_of(v, parse_whole, &l->cell_row, &l->cell_col))
            return fail(why, n, _("cell=%s in the link is not ROW,COL, two whole numbers from 0"), quoted(v, q, sizeof q));
        l->has |= LINK_CELL;
    } else if (!strcmp(key, "time")) {
        if (whole(v, end, &l->time))
            return fail(why, n, _("time=%s in the link is not a time step, a whole number from 0"), quoted(v, q, sizeof q));
        l->has |= LINK_TIME;
    } // any other key: from a newer tviz, ignored
    return 0;
}

int link_parse(const char *text, app_link *l, char *why, size_t n) {
    link_clear(l);
    size_t len = strlen(text);
    if (len > LINK_MAX) return fail(why, n, _("the link is longer than %d bytes; copy it again or shorten its sentences"), LINK_MAX);
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++; // (pasted with its line's end)
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r')) end--;
    const char *hash = memchr(p, '#', (size_t)(end - p));
    if (hash) p = hash + 1;
    else
        for (const char *s = p; s + 2 < end; s++)
            if (!memcmp(s, "://", 3))
                return fail(why, n, "%s", _("the address has no # part; the view follows it, as in …/index.html#stage=src.pe&view=matrix"));
    if (p == end) return fail(why, n, "%s", _("the link is empty; the view follows #, as in #stage=src.pe&view=matrix"));
    for (const char *s = p; s < end; s++) // every % starts a byte in hexadecimal
        if (*s == '%' && (end - s < 3 || hex(s[1]) < 0 || hex(s[2]) < 0)) {
            int at = 1;
            for (const char *c = text; c < s; c++) at += ((unsigned char)*c & 0xC0) != 0x80;
            return fail(why, n, _("the link's percent-encoding is broken at character %d: %% must be followed by two hexadecimal digits "
                                  "(%%20 is a space); copy the whole link again"), at);
        }
    char key[32], *value = malloc(LINK_MAX + 1);
    if (!value) return fail(why, n, "%s", _("out of memory"));
    int rc = 0;
    while (p < end && !rc) {
        const char *amp = memchr(p, '&', (size_t)(end - p)), *e = amp ? amp : end;
        const char *eq = memchr(p, '=', (size_t)(e - p)), *ke = eq ? eq : e;
        if (e > p && decode(p, ke, key, sizeof key) >= 0) { // (a longer key is none tviz knows)
            decode(eq ? eq + 1 : e, e, value, LINK_MAX + 1);
            rc = read_key(l, key, value, why, n);
        }
        p = amp ? amp + 1 : end;
    }
    free(value);
    return rc;
}

// ---------------------------------------------------------------- writing
typedef struct { char *p; size_t n, k; int full; } out_buf;

static void put(out_buf *o, const char *s, size_t len) {
    if (o->full || o->k + len >= o->n) { o->full = 1; return; }
    memcpy(o->p + o->k, s, len);
    o->k += len;
    o->p[o->k] = 0;
}

static void put_str(out_buf *o, const char *s) { put(o, s, strlen(s)); }

static void put_key(out_buf *o, const char *key) {
    if (o->k) put(o, "&", 1);
    put_str(o, key);
    put(o, "=", 1);
}

static void put_encoded(out_buf *o, const char *key, const char *v) {
    static const char digits[] = "0123456789ABCDEF";
    put_key(o, key);
    for (const unsigned char *s = (const unsigned char *)v; *s; s++) {
        if (unreserved(*s)) put(o, (const char *)s, 1);
        else {
            char e[3] = {'%', digits[*s >> 4], digits[*s & 15]};
            put(o, e, 3);
        }
    }
}

// The shortest decimals that read back as exactly x.
static const char *num(double x, char *buf, size_t n) {
    if (x == 0) x = 0; // (no "-0")
    for (int d = 0; d <= 17; d++) {
        snprintf(buf, n, "%.*f", d, x);
        if (strtod(buf, NULL) == x) break;
    }
    return buf;
}

int link_write(const app_link *l, char *out, size_t n) {
    out_buf o = {out, n, 0, n == 0};
    if (n) out[0] = 0;
    char a[64], b[64], both[140];
    if (l->has & LINK_MODEL) put_encoded(&o, "model", l->model);
    if (l->has & LINK_SRC) put_encoded(&o, "src", l->src);
    if (l->has & LINK_TGT) put_encoded(&o, "tgt", l->tgt);
    if (l->has & LINK_STAGE) put_encoded(&o, "stage", l->stage);
    if (l->has & LINK_VIEW) put_encoded(&o, "view", render_view_name(l->view));
    if (l->has & LINK_LANG) put_encoded(&o, "lang", l->lang);
    if (l->has & LINK_WITHOUT) { // names and commas only
        put_key(&o, "without");
        put_str(&o, tf_without_format(l->without, both, sizeof both));
    }
    if (l->has & LINK_ZOOM) { put_key(&o, "zoom"); put_str(&o, num(l->zoom, a, sizeof a)); }
    if (l->has & LINK_PAN) {
        snprintf(both, sizeof both, "%s,%s", num(l->pan_x, a, sizeof a), num(l->pan_y, b, sizeof b));
        put_key(&o, "pan");
        put_str(&o, both);
    }
    if (l->has & LINK_CELL) {
        snprintf(both, sizeof both, "%d,%d", l->cell_row, l->cell_col);
        put_key(&o, "cell");
        put_str(&o, both);
    }
    if (l->has & LINK_TIME) {
        snprintf(both, sizeof both, "%d", l->time);
        put_key(&o, "time");
        put_str(&o, both);
    }
    if (o.full && n) out[0] = 0;
    return o.full ? -1 : 0;
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

void link_of_state(const app_state *s, const tf_trace *t, const char *model, double view_w, double view_h, app_link *l) {
    link_clear(l);
    if (model && *model && strlen(model) < sizeof l->model) {
        memcpy(l->model, model, strlen(model) + 1);
        l->has |= LINK_MODEL;
    }
    snprintf(l->src, sizeof l->src, "%s", s->src);
    l->has |= LINK_SRC;
    if (s->tgt[0]) {
        snprintf(l->tgt, sizeof l->tgt, "%s", s->tgt);
        l->has |= LINK_TGT;
    }
    if (t && s->stage >= 0 && s->stage < t->n) {
        const tf_stage *st = &t->stages[s->stage];
        snprintf(l->stage, sizeof l->stage, "%s", st->id);
        l->view = app_state_view(s, t);
        l->has |= LINK_STAGE | LINK_VIEW;
        if (s->pin_row >= 0 && s->pin_col >= 0 && s->pin_row < st->rows && s->pin_col < st->cols) {
            l->cell_row = s->pin_row;
            l->cell_col = s->pin_col;
            l->has |= LINK_CELL;
        }
        if (s->time_step >= 0 && s->time_step < tf_stage_time_steps(t, s->stage)) {
            l->time = s->time_step;
            l->has |= LINK_TIME;
        }
    }
    snprintf(l->lang, sizeof l->lang, "%s", s->lang);
    if (plain_name(l->lang, "_-")) l->has |= LINK_LANG;
    if (s->without & TF_WITHOUT_ALL) {
        l->without = s->without & TF_WITHOUT_ALL;
        l->has |= LINK_WITHOUT;
    }
    if (s->zoom != 1 && isfinite(s->zoom)) {
        l->zoom = clamp(s->zoom, 1, 32);
        l->has |= LINK_ZOOM;
    }
    if (view_w > 0 && view_h > 0 && (s->pan_x != 0 || s->pan_y != 0) && isfinite(s->pan_x) && isfinite(s->pan_y)) {
        // a ten-thousandth of the view: below a pixel, and a short link
        l->pan_x = round(clamp(s->pan_x / view_w, -PAN_MAX, PAN_MAX) * 1e4) / 1e4;
        l->pan_y = round(clamp(s->pan_y / view_h, -PAN_MAX, PAN_MAX) * 1e4) / 1e4;
        l->has |= LINK_PAN;
    }
}

// ---------------------------------------------------------------- opening
int link_needs_run(const app_state *s, const app_link *l, const char *current) {
    if ((l->has & LINK_MODEL) && strcmp(l->model, current ? current : "")) return 1;
    if ((l->has & LINK_SRC) && strcmp(l->src, s->src)) return 1;
    if (strcmp(l->has & LINK_TGT ? l->tgt : "", s->tgt)) return 1;
    if ((l->has & LINK_WITHOUT ? l->without : 0) != s->without) return 1;
    return s->decode_step != 0 || (s->n_snaps && s->snap != s->n_snaps - 1);
}

void link_prepare(app_state *s, const app_link *l) {
    if (l->has & LINK_SRC) snprintf(s->src, sizeof s->src, "%s", l->src);
    snprintf(s->tgt, sizeof s->tgt, "%s", l->has & LINK_TGT ? l->tgt : "");
    s->without = l->has & LINK_WITHOUT ? l->without : 0;
    s->decode_step = s->decode_full = 0;
    if (s->n_snaps) s->snap = s->n_snaps - 1;
    s->compare = s->side_by_side = 0; // (link_apply asks for them again)
    s->editing = 0;
}

// The tokens of one sentence against max_len, as the model's run counts them.
static int check_sentence(const tf_bpe *bpe, const char *text, int extra, int max_len, const char *model, int target, char *why, size_t n) {
    char **w = NULL;
    tf_err e;
    int k = tf_tokens(bpe, text, &w, &e);
    if (k < 0) return fail(why, n, "%s", e.msg);
    tf_words_free(w, k);
    if (k == 0)
        return fail(why, n, "%s", target ? _("the target sentence has no words; give one, or leave tgt= out to decode") : _("the source sentence has no words; give one in src="));
    if (k + extra > max_len)
        return fail(why, n, target ? _("the target sentence has %d tokens but the model %s takes at most %d; shorten it")
                                   : _("the source sentence has %d tokens but the model %s takes at most %d; shorten it"),
                    k + extra, model, max_len);
    return 0;
}

int link_check_run(const tf_model *m, const char *model, const app_state *s, char *why, size_t n) {
    if (check_sentence(&m->src_bpe, s->src, m->cfg.src_append_eos, m->cfg.max_len, model, 0, why, n)) return -1;
    return s->tgt[0] ? check_sentence(&m->tgt_bpe, s->tgt, 1, m->cfg.max_len, model, 1, why, n) : 0; // (+ <bos>)
}

void link_pan(app_state *s, const app_link *l, double view_w, double view_h) {
    if (!(l->has & LINK_PAN) || view_w <= 0 || view_h <= 0) return;
    s->pan_x = l->pan_x * view_w;
    s->pan_y = l->pan_y * view_h;
}

// Why the view asked for does not show the stage.
static int wrong_view(const tf_trace *t, const app_state *c, render_view want, const char *stage, char *why, size_t n) {
    const char *name = render_view_name(want);
    switch (want) {
    case RENDER_VIEW_LINES: case RENDER_VIEW_LINES_HEADS:
        return fail(why, n, _("view=%s draws attention weights as lines; stage %s is not attention weights (e.g. enc.0.self_attn.head.0.weights)"), name, stage);
    case RENDER_VIEW_HEADS: case RENDER_VIEW_GRID:
        return fail(why, n, _("view=%s shows the heads of an attention; stage %s is not inside one (e.g. enc.0.self_attn.head.0.weights)"), name, stage);
    case RENDER_VIEW_TOPK:
        return fail(why, n, _("view=top-k shows the output probabilities; stage %s is not one (e.g. out.probs)"), stage);
    case RENDER_VIEW_COMPARE:
        return fail(why, n, "%s", _("view=compare needs parts switched off; add them, e.g. without=pe"));
    default:
        return fail(why, n, _("stage %s is drawn as %s, not as %s; leave view= out for the stage's own view"), stage,
                    render_view_name(app_state_view(c, t)), name);
    }
}

int link_apply(app_state *s, const tf_trace *t, const app_link *l, double view_w, double view_h, app_do *todo, char *why, size_t n) {
    *todo = APP_DO_NOTHING;
    if (!t || t->n == 0) return fail(why, n, "%s", _("the model has not run, so there is no stage to show"));
    app_state c = *s;
    app_state_attach(&c, t); // (the caller's run: the remembered stage in it)
    // the stage's own view, before the link asks for another
    c.mode = APP_MODE_AUTO;
    c.all_heads = c.compare = c.side_by_side = c.whatif = c.help = c.editing = c.check = 0;
    c.pin_row = c.pin_col = c.hover_row = c.hover_col = -1;
    c.zoom = 1;
    c.pan_x = c.pan_y = c.panel_scroll = 0;
    c.pressed = c.dragging = 0;
    c.time_step = -1;
    c.term[0] = 0;
    if ((l->has & LINK_STAGE) && app_state_goto(&c, t, l->stage))
        return fail(why, n, _("stage=%s is not a stage of this model; its stages go from %s to %s, as tviz walk lists them"), l->stage,
                    t->stages[0].id, t->stages[t->n - 1].id);
    char stage[80];
    snprintf(stage, sizeof stage, "%s", t->stages[c.stage].id);
    // the view: the keys that show it
    render_view want = l->has & LINK_VIEW ? l->view : RENDER_VIEW_AUTO;
    app_do d = APP_DO_NOTHING;
    switch (want) {
    case RENDER_VIEW_HEADS: d |= app_state_key(&c, t, APP_KEY_ALL_HEADS); break;
    case RENDER_VIEW_GRID: d |= app_state_key(&c, t, APP_KEY_GRID); break;
    case RENDER_VIEW_LINES: d |= app_state_key(&c, t, APP_KEY_LINES); break;
    case RENDER_VIEW_LINES_HEADS:
        d |= app_state_key(&c, t, APP_KEY_LINES);
        if (c.mode == APP_MODE_LINES) d |= app_state_key(&c, t, APP_KEY_ALL_HEADS);
        break;
    case RENDER_VIEW_TOPK: d |= app_state_key(&c, t, APP_KEY_TOPK); break;
    case RENDER_VIEW_COMPARE: d |= app_state_key(&c, t, APP_KEY_COMPARE); break;
    case RENDER_VIEW_SIDE_BY_SIDE: d |= app_state_key(&c, t, APP_KEY_SIDE_BY_SIDE); break;
    default: break;
    }
    if (want != RENDER_VIEW_AUTO && (app_state_view(&c, t) != want || strcmp(t->stages[c.stage].id, stage)))
        return wrong_view(t, &c, want, stage, why, n);
    const tf_stage *st = &t->stages[c.stage];
    if (l->has & LINK_TIME) { // ] from no time step: the first, the second, …
        int steps = tf_stage_time_steps(t, c.stage);
        if (steps <= 0)
            return fail(why, n, _("time=%d: the rows of %s are not time steps (a recurrent model's gates, c, h and attention are)"), l->time, stage);
        if (l->time >= steps) return fail(why, n, _("time=%d is past the last time step of %s, which has %d"), l->time, stage, steps);
        for (int k = 0; k <= l->time; k++) d |= app_state_key(&c, t, APP_KEY_STEP_FORWARD);
    }
    if (l->has & LINK_CELL) {
        if (l->cell_row >= st->rows || l->cell_col >= st->cols)
            return fail(why, n, _("cell=%d,%d is outside %s, which is %d × %d; rows go 0..%d and columns 0..%d"), l->cell_row, l->cell_col,
                        stage, st->rows, st->cols, st->rows - 1, st->cols - 1);
        c.pin_row = l->cell_row;
        c.pin_col = l->cell_col;
    }
    c.zoom = l->zoom;
    link_pan(&c, l, view_w, view_h);
    c.message[0] = 0;
    c.message_is_error = 0;
    *s = c;
    *todo = d;
    return 0;
}

// ---------------------------------------------------------------- what the caller checks
void link_no_model(const char *model, const char *known, char *why, size_t n) {
    char q[300];
    snprintf(why, n, _("model=%s in the link is not a model tviz has; the models are %s"), quoted(model, q, sizeof q), known && *known ? known : "-");
}

void link_bad_model(const char *model, const char *detail, char *why, size_t n) {
    char q[300];
    snprintf(why, n, _("model=%s in the link could not be read: %s"), quoted(model, q, sizeof q), detail);
}

void link_no_lang(const char *lang, const char *known, char *why, size_t n) {
    char q[64];
    snprintf(why, n, _("lang=%s in the link: tviz has no lessons in that language; the languages are %s"), quoted(lang, q, sizeof q),
             known && *known ? known : "en");
}
