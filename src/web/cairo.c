// cairo.c (browser build) — the cairo calls tviz's views make, drawn with
// CanvasKit (src/web/canvaskit.js). The graphics state, the transformation
// and the path live here, as in cairo: a path is kept in device pixels, made
// from user coordinates through the transformation in effect when each point
// was added; a stroke's width is turned into pixels when it is stroked. The
// page's script receives whole paths, rectangles, images and gradients.
#include <cairo.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "canvaskit.h"

#define MAX_SAVE 64
#define MAX_DASH 8
#define MAX_STOPS 256

struct _cairo_surface {
    int refs;                   // the creator's, and one a pattern painting it
    cairo_format_t format;
    int w, h, stride;
    unsigned char *data;        // (h × stride) pixels, for an image surface; NULL for the screen
    int canvas;                 // the canvas it is drawn on (0: not yet)
    int image;                  // its pixels uploaded as an image (0: not yet)
    int uploaded;               // image holds the pixels as they are now
    int canvas_drawn;           // drawn on since its pixels were read back
    cairo_status_t status;
};

typedef enum { PAT_SOLID, PAT_SURFACE, PAT_LINEAR } pat_type;

struct _cairo_pattern {
    int refs;
    pat_type type;
    double r, g, b, a;                    // solid
    cairo_surface_t *surface;             // surface: drawn at (x, y) of the user space in effect when it was set
    double x0, y0, x1, y1;                // linear: from (x0, y0) to (x1, y1) in user space
    double stops[MAX_STOPS][4];           // offset, r, g, b
    int n_stops;
    cairo_filter_t filter;
    double m[6];                          // pattern space -> device pixels, fixed by cairo_set_source
    int shader;                           // made by the page's script (0: not yet, or out of date)
};

typedef struct {
    double m[6];                // user -> device: x' = m0 x + m2 y + m4, y' = m1 x + m3 y + m5 (cairo_matrix_t's order)
    cairo_pattern_t *source;    // a pattern, or NULL for the solid colour below
    double r, g, b, a;
    double line_width;
    cairo_line_cap_t cap;
    cairo_line_join_t join;
    double dash[MAX_DASH];
    int n_dash;
    double dash_offset;
    cairo_antialias_t aa;
} gstate;

struct _cairo {
    cairo_surface_t *target;
    gstate gs[MAX_SAVE];
    int depth;                  // gs[depth] is the current state
    int extra_saves;            // saves past MAX_SAVE (kept count of, not kept)
    cairo_pattern_t scratch;    // what cairo_get_source returns for a solid colour
    // the path, in device pixels
    unsigned char *verbs;       // CK_MOVE, CK_LINE, CK_CUBIC, CK_CLOSE
    float *pts;                 // 2 floats a point: 1 for move and line, 3 for a cubic
    int n_verbs, n_pts, cap_verbs, cap_pts;
    double cx, cy, sx, sy;      // the current point and where its sub-path started (device)
    int has_current;
    int ck_depth;               // saves made on the canvas for this context (its own, then one a cairo_save)
    cairo_status_t status;
};

// ---------------------------------------------------------------- surfaces
static cairo_surface_t nil_surface = {.status = CAIRO_STATUS_NO_MEMORY};

cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height) {
    if (width < 0 || height < 0 || width > 32767 || height > 32767) return &nil_surface;
    cairo_surface_t *s = calloc(1, sizeof *s);
    if (!s) return &nil_surface;
    s->refs = 1;
    s->format = format;
    s->w = width;
    s->h = height;
    s->stride = width * 4;
    s->data = calloc((size_t)(height ? height : 1), (size_t)(s->stride ? s->stride : 4));
    if (!s->data) { free(s); return &nil_surface; }
    return s;
}

cairo_surface_t *cairo_web_screen_surface(int w, int h) {
    cairo_surface_t *s = calloc(1, sizeof *s);
    if (!s) return &nil_surface;
    s->refs = 1;
    s->format = CAIRO_FORMAT_ARGB32;
    s->w = w;
    s->h = h;
    s->canvas = ck_canvas_screen(w, h);
    if (!s->canvas) { free(s); return &nil_surface; }
    return s;
}

void cairo_web_present(cairo_surface_t *s) {
    if (s && s->canvas) ck_present(s->canvas);
}

unsigned char *cairo_image_surface_get_data(cairo_surface_t *s) { return s->data; }
int cairo_image_surface_get_stride(cairo_surface_t *s) { return s->stride; }
int cairo_image_surface_get_width(cairo_surface_t *s) { return s->w; }
int cairo_image_surface_get_height(cairo_surface_t *s) { return s->h; }
cairo_status_t cairo_surface_status(cairo_surface_t *s) { return s->status; }

// What CanvasKit drew on an image surface is read back into its pixels.
void cairo_surface_flush(cairo_surface_t *s) {
    if (s == &nil_surface || !s->data || !s->canvas || !s->canvas_drawn) return;
    ck_canvas_read(s->canvas, s->data, s->stride, s->w, s->h);
    s->canvas_drawn = 0;
    s->uploaded = 0;
}

void cairo_surface_mark_dirty(cairo_surface_t *s) {
    if (s != &nil_surface) s->uploaded = 0;
}

void cairo_surface_destroy(cairo_surface_t *s) {
    if (!s || s == &nil_surface || --s->refs > 0) return;
    if (s->image) ck_image_free(s->image);
    if (s->canvas && s->data) ck_canvas_free(s->canvas); // (the screen's canvas belongs to the page)
    free(s->data);
    free(s);
}

// ---------------------------------------------------------------- matrices
static void mat_mul(double out[6], const double a[6], const double b[6]) { // out = a then b (a applied first)
    double r[6] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                   a[2] * b[1] + a[3] * b[3], a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]};
    memcpy(out, r, sizeof r);
}

static void to_device(const gstate *g, double x, double y, double *dx, double *dy) {
    *dx = g->m[0] * x + g->m[2] * y + g->m[4];
    *dy = g->m[1] * x + g->m[3] * y + g->m[5];
}

// How much longer a length of user space is in pixels (uniform scales; the
// geometric mean of the two axes otherwise, as a line width must be one number).
static double device_scale(const gstate *g) { return sqrt(fabs(g->m[0] * g->m[3] - g->m[1] * g->m[2])); }

static gstate *G(cairo_t *cr) { return &cr->gs[cr->depth]; }

// ---------------------------------------------------------------- contexts
static cairo_t nil_context = {.status = CAIRO_STATUS_NO_MEMORY};

cairo_t *cairo_create(cairo_surface_t *target) {
    if (!target || target == &nil_surface) return &nil_context;
    cairo_t *cr = calloc(1, sizeof *cr);
    if (!cr) return &nil_context;
    cr->target = target;
    gstate *g = G(cr);
    g->m[0] = g->m[3] = 1;
    g->a = 1; // opaque black
    g->line_width = 2;
    g->cap = CAIRO_LINE_CAP_BUTT;
    g->join = CAIRO_LINE_JOIN_MITER;
    g->aa = CAIRO_ANTIALIAS_DEFAULT;
    return cr;
}

// The canvas a context draws on, made when it first draws (a context only
// measuring text never makes one), with the saves made so far done on it:
// one for the context (its clip, undone by cairo_destroy), one a cairo_save.
static int canvas(cairo_t *cr) {
    cairo_surface_t *s = cr->target;
    if (!s->canvas) s->canvas = ck_canvas_new(s->w, s->h);
    if (!s->canvas) return 0;
    for (; cr->ck_depth < cr->depth + 1; cr->ck_depth++) ck_save(s->canvas);
    return s->canvas;
}

static void pattern_unref(cairo_pattern_t *p);

void cairo_destroy(cairo_t *cr) {
    if (!cr || cr == &nil_context) return;
    for (int i = 0; i <= cr->depth; i++) pattern_unref(cr->gs[i].source);
    for (; cr->ck_depth > 0; cr->ck_depth--) ck_restore(cr->target->canvas);
    free(cr->verbs);
    free(cr->pts);
    free(cr);
}

cairo_status_t cairo_status(cairo_t *cr) { return cr->status; }

void cairo_save(cairo_t *cr) {
    if (cr == &nil_context) return;
    if (cr->depth + 1 >= MAX_SAVE) { cr->extra_saves++; return; }
    cr->gs[cr->depth + 1] = cr->gs[cr->depth];
    cr->depth++;
    if (G(cr)->source) G(cr)->source->refs++;
}

void cairo_restore(cairo_t *cr) {
    if (cr == &nil_context) return;
    if (cr->extra_saves) { cr->extra_saves--; return; }
    if (cr->depth == 0) return;
    pattern_unref(G(cr)->source);
    cr->depth--;
    for (; cr->ck_depth > cr->depth + 1; cr->ck_depth--) ck_restore(cr->target->canvas);
}

void cairo_translate(cairo_t *cr, double tx, double ty) {
    double t[6] = {1, 0, 0, 1, tx, ty};
    mat_mul(G(cr)->m, t, G(cr)->m);
}

void cairo_scale(cairo_t *cr, double sx, double sy) {
    double t[6] = {sx, 0, 0, sy, 0, 0};
    mat_mul(G(cr)->m, t, G(cr)->m);
}

void cairo_rotate(cairo_t *cr, double angle) {
    double c = cos(angle), s = sin(angle);
    double t[6] = {c, s, -s, c, 0, 0};
    mat_mul(G(cr)->m, t, G(cr)->m);
}

void cairo_user_to_device_distance(cairo_t *cr, double *dx, double *dy) {
    const gstate *g = G(cr);
    double x = *dx, y = *dy;
    *dx = g->m[0] * x + g->m[2] * y;
    *dy = g->m[1] * x + g->m[3] * y;
}

int cairo_web_canvas(cairo_t *cr) { return cr == &nil_context ? 0 : canvas(cr); }
void cairo_web_matrix(cairo_t *cr, double m[6]) { memcpy(m, G(cr)->m, sizeof G(cr)->m); }

// ---------------------------------------------------------------- paths
static int grow(void **p, int *cap, int need, size_t size) {
    if (need <= *cap) return 0;
    int nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, (size_t)nc * size);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static void add(cairo_t *cr, int verb, const double *dev, int n_points) {
    if (cr == &nil_context) return;
    if (grow((void **)&cr->verbs, &cr->cap_verbs, cr->n_verbs + 1, 1) ||
        grow((void **)&cr->pts, &cr->cap_pts, cr->n_pts + 2 * n_points, sizeof(float))) {
        cr->status = CAIRO_STATUS_NO_MEMORY;
        return;
    }
    cr->verbs[cr->n_verbs++] = (unsigned char)verb;
    for (int i = 0; i < 2 * n_points; i++) cr->pts[cr->n_pts++] = (float)dev[i];
}

void cairo_new_path(cairo_t *cr) {
    cr->n_verbs = cr->n_pts = 0;
    cr->has_current = 0;
}

void cairo_new_sub_path(cairo_t *cr) { cr->has_current = 0; }

static void move_dev(cairo_t *cr, double x, double y) {
    double p[2] = {x, y};
    add(cr, CK_MOVE, p, 1);
    cr->cx = cr->sx = x;
    cr->cy = cr->sy = y;
    cr->has_current = 1;
}

static void line_dev(cairo_t *cr, double x, double y) {
    if (!cr->has_current) { move_dev(cr, x, y); return; } // (cairo: a line_to without a current point is a move_to)
    double p[2] = {x, y};
    add(cr, CK_LINE, p, 1);
    cr->cx = x;
    cr->cy = y;
}

void cairo_move_to(cairo_t *cr, double x, double y) {
    double dx, dy;
    to_device(G(cr), x, y, &dx, &dy);
    move_dev(cr, dx, dy);
}

void cairo_line_to(cairo_t *cr, double x, double y) {
    double dx, dy;
    to_device(G(cr), x, y, &dx, &dy);
    line_dev(cr, dx, dy);
}

void cairo_rel_line_to(cairo_t *cr, double dx, double dy) {
    if (!cr->has_current) return; // (cairo: an error, no current point)
    cairo_user_to_device_distance(cr, &dx, &dy);
    line_dev(cr, cr->cx + dx, cr->cy + dy);
}

void cairo_curve_to(cairo_t *cr, double x1, double y1, double x2, double y2, double x3, double y3) {
    double p[6];
    if (!cr->has_current) cairo_move_to(cr, x1, y1);
    to_device(G(cr), x1, y1, &p[0], &p[1]);
    to_device(G(cr), x2, y2, &p[2], &p[3]);
    to_device(G(cr), x3, y3, &p[4], &p[5]);
    add(cr, CK_CUBIC, p, 3);
    cr->cx = p[4];
    cr->cy = p[5];
}

// An arc as cubic Béziers of at most a quarter turn each, as cairo draws it:
// a line from the current point to its start (or a move when there is none).
void cairo_arc(cairo_t *cr, double xc, double yc, double radius, double a1, double a2) {
    while (a2 < a1) a2 += 2 * M_PI;
    double x0 = xc + radius * cos(a1), y0 = yc + radius * sin(a1);
    if (cr->has_current) cairo_line_to(cr, x0, y0);
    else cairo_move_to(cr, x0, y0);
    if (radius <= 0) return;
    int n = (int)ceil((a2 - a1) / (M_PI / 2) - 1e-9);
    if (n < 1) n = 1;
    double step = (a2 - a1) / n, k = 4.0 / 3.0 * tan(step / 4);
    for (int i = 0; i < n; i++) {
        double t0 = a1 + i * step, t1 = t0 + step;
        double c0 = cos(t0), s0 = sin(t0), c1 = cos(t1), s1 = sin(t1);
        cairo_curve_to(cr, xc + radius * (c0 - k * s0), yc + radius * (s0 + k * c0), xc + radius * (c1 + k * s1),
                       yc + radius * (s1 - k * c1), xc + radius * c1, yc + radius * s1);
    }
}

void cairo_rectangle(cairo_t *cr, double x, double y, double w, double h) {
    cairo_move_to(cr, x, y);
    cairo_rel_line_to(cr, w, 0);
    cairo_rel_line_to(cr, 0, h);
    cairo_rel_line_to(cr, -w, 0);
    cairo_close_path(cr);
}

void cairo_close_path(cairo_t *cr) {
    if (!cr->has_current) return;
    add(cr, CK_CLOSE, NULL, 0);
    cr->cx = cr->sx;
    cr->cy = cr->sy;
}

// The path is one rectangle with sides along the axes: its corners in r.
static int path_is_rect(const cairo_t *cr, float r[4]) {
    if (cr->n_verbs != 5 || cr->verbs[0] != CK_MOVE || cr->verbs[4] != CK_CLOSE) return 0;
    for (int i = 1; i < 4; i++) if (cr->verbs[i] != CK_LINE) return 0;
    const float *p = cr->pts;
    int h = p[1] == p[3] && p[2] == p[4] && p[5] == p[7] && p[6] == p[0]; // right, down, left
    int v = p[0] == p[2] && p[3] == p[5] && p[4] == p[6] && p[7] == p[1]; // down, right, up
    if (!h && !v) return 0;
    r[0] = fminf(p[0], p[4]);
    r[1] = fminf(p[1], p[5]);
    r[2] = fmaxf(p[0], p[4]);
    r[3] = fmaxf(p[1], p[5]);
    return 1;
}

// ---------------------------------------------------------------- sources
static void pattern_unref(cairo_pattern_t *p) {
    if (!p || --p->refs > 0) return;
    if (p->shader) ck_shader_free(p->shader);
    if (p->surface) cairo_surface_destroy(p->surface);
    free(p);
}

static void set_solid(cairo_t *cr, double r, double g, double b, double a) {
    gstate *s = G(cr);
    pattern_unref(s->source);
    s->source = NULL;
    s->r = r;
    s->g = g;
    s->b = b;
    s->a = a;
}

void cairo_set_source_rgb(cairo_t *cr, double r, double g, double b) { set_solid(cr, r, g, b, 1); }
void cairo_set_source_rgba(cairo_t *cr, double r, double g, double b, double a) { set_solid(cr, r, g, b, a); }

static void lock(cairo_t *cr, cairo_pattern_t *p, double tx, double ty) {
    double t[6] = {1, 0, 0, 1, tx, ty};
    mat_mul(p->m, t, G(cr)->m);
    if (p->shader) { ck_shader_free(p->shader); p->shader = 0; }
}

void cairo_set_source(cairo_t *cr, cairo_pattern_t *p) {
    if (!p) return;
    p->refs++;
    pattern_unref(G(cr)->source);
    G(cr)->source = p;
    lock(cr, p, 0, 0);
}

void cairo_set_source_surface(cairo_t *cr, cairo_surface_t *s, double x, double y) {
    cairo_pattern_t *p = calloc(1, sizeof *p);
    if (!p) { cr->status = CAIRO_STATUS_NO_MEMORY; return; }
    p->type = PAT_SURFACE;
    p->surface = s;
    if (s && s != &nil_surface) s->refs++;
    else p->surface = NULL;
    p->filter = CAIRO_FILTER_GOOD;
    pattern_unref(G(cr)->source);
    G(cr)->source = p;
    p->refs = 1;
    lock(cr, p, x, y);
}

cairo_pattern_t *cairo_get_source(cairo_t *cr) {
    if (G(cr)->source) return G(cr)->source;
    cr->scratch.type = PAT_SOLID; // (a copy: setting its filter changes nothing, as in cairo)
    cr->scratch.refs = 1 << 30;
    return &cr->scratch;
}

cairo_pattern_t *cairo_pattern_create_linear(double x0, double y0, double x1, double y1) {
    cairo_pattern_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->refs = 1;
    p->type = PAT_LINEAR;
    p->x0 = x0;
    p->y0 = y0;
    p->x1 = x1;
    p->y1 = y1;
    return p;
}

void cairo_pattern_add_color_stop_rgb(cairo_pattern_t *p, double offset, double r, double g, double b) {
    if (!p || p->n_stops == MAX_STOPS) return;
    double *s = p->stops[p->n_stops++];
    s[0] = offset;
    s[1] = r;
    s[2] = g;
    s[3] = b;
    if (p->shader) { ck_shader_free(p->shader); p->shader = 0; }
}

void cairo_pattern_set_filter(cairo_pattern_t *p, cairo_filter_t filter) {
    if (!p || p->filter == filter) return;
    p->filter = filter;
    if (p->shader) { ck_shader_free(p->shader); p->shader = 0; }
}

void cairo_pattern_destroy(cairo_pattern_t *p) { pattern_unref(p); }

// The shader the page's script paints a pattern with, made when first needed.
static int shader_of(cairo_pattern_t *p) {
    if (p->type == PAT_SURFACE) {
        cairo_surface_t *s = p->surface;
        if (!s || s == &nil_surface || !s->data) return 0;
        cairo_surface_flush(s);
        if (!s->image || !s->uploaded) {
            if (s->image) ck_image_free(s->image);
            s->image = ck_image_new(s->data, s->w, s->h, s->stride, s->format == CAIRO_FORMAT_RGB24);
            s->uploaded = 1;
            if (p->shader) { ck_shader_free(p->shader); p->shader = 0; }
        }
        if (!p->shader) {
            float m[6];
            for (int i = 0; i < 6; i++) m[i] = (float)p->m[i];
            p->shader = ck_shader_image(s->image, m, p->filter == CAIRO_FILTER_NEAREST || p->filter == CAIRO_FILTER_FAST);
        }
    } else if (p->type == PAT_LINEAR && !p->shader) {
        double x0 = p->m[0] * p->x0 + p->m[2] * p->y0 + p->m[4], y0 = p->m[1] * p->x0 + p->m[3] * p->y0 + p->m[5];
        double x1 = p->m[0] * p->x1 + p->m[2] * p->y1 + p->m[4], y1 = p->m[1] * p->x1 + p->m[3] * p->y1 + p->m[5];
        float stops[MAX_STOPS * 4];
        for (int i = 0; i < p->n_stops; i++)
            for (int k = 0; k < 4; k++) stops[4 * i + k] = (float)p->stops[i][k];
        p->shader = ck_shader_linear((float)x0, (float)y0, (float)x1, (float)y1, stops, p->n_stops);
    }
    return p->shader;
}

// What paints: a colour (shader 0) or a shader.
static int paint_of(cairo_t *cr, float rgba[4]) {
    const gstate *g = G(cr);
    rgba[0] = (float)g->r;
    rgba[1] = (float)g->g;
    rgba[2] = (float)g->b;
    rgba[3] = (float)g->a;
    if (!g->source) return 0;
    rgba[3] = 1;
    int sh = shader_of(g->source);
    if (!sh) rgba[3] = 0; // (an empty surface paints nothing)
    return sh;
}

// ---------------------------------------------------------------- painting
void cairo_set_line_width(cairo_t *cr, double w) { G(cr)->line_width = w; }
void cairo_set_line_cap(cairo_t *cr, cairo_line_cap_t cap) { G(cr)->cap = cap; }
void cairo_set_line_join(cairo_t *cr, cairo_line_join_t join) { G(cr)->join = join; }
void cairo_set_antialias(cairo_t *cr, cairo_antialias_t aa) { G(cr)->aa = aa; }

void cairo_set_dash(cairo_t *cr, const double *dashes, int n, double offset) {
    gstate *g = G(cr);
    if (n < 0 || n > MAX_DASH) n = 0;
    for (int i = 0; i < n; i++) g->dash[i] = dashes[i];
    g->n_dash = n;
    g->dash_offset = offset;
}

static void drawn(cairo_t *cr) { cr->target->canvas_drawn = 1; }


static void fill(cairo_t *cr, int preserve) {
    if (cr == &nil_context) return;
    float rgba[4], r[4];
    int sh = paint_of(cr, rgba);
    int aa = G(cr)->aa != CAIRO_ANTIALIAS_NONE;
    if (cr->n_verbs && rgba[3] > 0) {
        if (!sh && path_is_rect(cr, r)) ck_fill_rect(canvas(cr), r[0], r[1], r[2], r[3], rgba, aa);
        else {
            ck_path(cr->verbs, cr->n_verbs, cr->pts);
            ck_fill(canvas(cr), rgba, sh, aa);
        }
        drawn(cr);
    }
    if (!preserve) cairo_new_path(cr);
}

void cairo_fill(cairo_t *cr) { fill(cr, 0); }
void cairo_fill_preserve(cairo_t *cr) { fill(cr, 1); }

void cairo_stroke(cairo_t *cr) {
    if (cr == &nil_context) return;
    const gstate *g = G(cr);
    float rgba[4], dash[MAX_DASH];
    int sh = paint_of(cr, rgba);
    double k = device_scale(g);
    for (int i = 0; i < g->n_dash; i++) dash[i] = (float)(g->dash[i] * k);
    if (cr->n_verbs && rgba[3] > 0 && g->line_width > 0) {
        ck_path(cr->verbs, cr->n_verbs, cr->pts);
        ck_stroke(canvas(cr), rgba, sh, g->aa != CAIRO_ANTIALIAS_NONE, (float)(g->line_width * k), g->cap, g->join, dash,
                  g->n_dash, (float)(g->dash_offset * k));
        drawn(cr);
    }
    cairo_new_path(cr);
}

void cairo_paint(cairo_t *cr) {
    if (cr == &nil_context) return;
    float rgba[4];
    int sh = paint_of(cr, rgba);
    if (rgba[3] > 0) {
        ck_paint(canvas(cr), rgba, sh);
        drawn(cr);
    }
}

void cairo_clip(cairo_t *cr) {
    if (cr == &nil_context) return;
    float r[4];
    if (path_is_rect(cr, r)) ck_clip_rect(canvas(cr), r[0], r[1], r[2], r[3], G(cr)->aa != CAIRO_ANTIALIAS_NONE);
    else {
        ck_path(cr->verbs, cr->n_verbs, cr->pts);
        ck_clip(canvas(cr), G(cr)->aa != CAIRO_ANTIALIAS_NONE);
    }
    cairo_new_path(cr);
}
