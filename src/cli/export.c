// export.c — `tviz export`: any view of any stage as PNG (stb_image_write),
// SVG or PDF (cairo's surfaces), or every stage and figure into a folder with
// an index. Never opens a window; needs no display.
#include "cli.h"
#include "../render/render.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PIXELS 16384 // per side of a PNG

static const char *fmt_ext[] = {"png", "svg", "pdf"};

typedef struct {
    const char *stage, *view, *cell, *format, *width, *scale, *cmap, *text_scale, *lesson, *lang;
    int all, contrast;
} export_args;

static int extra_opt(void *ctx, int argc, char **argv, int *i) {
    export_args *a = ctx;
    const char *v;
    int k;
    struct { const char *name; const char **dst; } opts[] = {
        {"--stage", &a->stage}, {"--view", &a->view}, {"--cell", &a->cell}, {"--format", &a->format},
        {"--width", &a->width}, {"--scale", &a->scale}, {"--colormap", &a->cmap}, {"--text-scale", &a->text_scale},
        {"--lesson", &a->lesson}, {"--lang", &a->lang}};
    for (size_t n = 0; n < sizeof opts / sizeof *opts; n++)
        if ((k = cli_opt(argc, argv, i, opts[n].name, NULL, &v))) {
            if (k > 0) *opts[n].dst = v;
            return k;
        }
    if (!strcmp(argv[*i], "--all")) { a->all = 1; return 1; }
    if (!strcmp(argv[*i], "--high-contrast")) { a->contrast = 1; return 1; }
    return 0;
}

// ---------------------------------------------------------------- drawing into bytes
void cli_membuf_append(cli_membuf *b, const void *data, size_t len) {
    if (b->failed) return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 1 << 16;
        while (cap < b->n + len) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) { b->failed = 1; return; }
        b->p = p;
        b->cap = cap;
    }
    if (len) memcpy(b->p + b->n, data, len); // (data may be NULL when len is 0)
    b->n += len;
}

cairo_status_t cli_membuf_sink(void *closure, const unsigned char *data, unsigned int len) {
    cli_membuf_append(closure, data, len);
    return ((cli_membuf *)closure)->failed ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

static void stb_sink(void *ctx, void *data, int size) { cli_membuf_append(ctx, data, (size_t)size); }

typedef struct {
    const tf_trace *t;
    const tf_model *m;
    int stage;
    render_view view;
    render_opts opts;
    double w, h, scale;  // size in user units; pixels per unit (PNG)
    cli_format fmt;
} job;

// cairo's ARGB32 is premultiplied, native-endian 0xAARRGGBB; PNG wants
// straight RGBA bytes, or RGB when every pixel is opaque (as every view is:
// each paints its background), which stb encodes a quarter faster.
// Returns the channels written: 3 or 4.
static int argb_to_png_bytes(unsigned char *dst, const unsigned char *src, int w, int h, int stride) {
    int opaque = 1;
    for (int y = 0; y < h && opaque; y++) {
        const uint32_t *row = (const uint32_t *)(src + (size_t)y * stride);
        for (int x = 0; x < w; x++) opaque &= (row[x] >> 24) == 255;
    }
    int ch = opaque ? 3 : 4;
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(src + (size_t)y * stride);
        unsigned char *d = dst + (size_t)y * w * ch;
        for (int x = 0; x < w; x++, d += ch) {
            uint32_t p = row[x];
            unsigned a = p >> 24, r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            if (a && a < 255) { r = (r * 255 + a / 2) / a; g = (g * 255 + a / 2) / a; b = (b * 255 + a / 2) / a; }
            d[0] = (unsigned char)r; d[1] = (unsigned char)g; d[2] = (unsigned char)b;
            if (ch == 4) d[3] = (unsigned char)a;
        }
    }
    return ch;
}

// stb's PNG settings, measured on tviz's pictures (flat cells, text on
// white): no per-row filter search and zlib level 5 encode a 1200 × 800
// heatmap about 4x faster than the defaults for files a few % larger.
// Process-wide globals: set once, whichever thread encodes first.
static void png_settings_once(void) {
    stbi_write_force_png_filter = 0;
    stbi_write_png_compression_level = 5;
}

static void png_settings(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, png_settings_once);
}

// Renders a job to bytes in out. Returns 0, or -1 (out of memory or a cairo error).
static int render_job(const job *j, cli_membuf *out) {
    cairo_surface_t *sf;
    int pw = (int)ceil(j->w * j->scale), ph = (int)ceil(j->h * j->scale);
    if (j->fmt == CLI_PNG) sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    else if (j->fmt == CLI_SVG) sf = cairo_svg_surface_create_for_stream(cli_membuf_sink, out, j->w, j->h);
    else sf = cairo_pdf_surface_create_for_stream(cli_membuf_sink, out, j->w, j->h);
    cairo_t *cr = cairo_create(sf);
    if (j->fmt == CLI_PNG) cairo_scale(cr, j->scale, j->scale);
    render_draw(cr, j->t, j->m, j->stage, j->view, &j->opts, j->w, j->h);
    int ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(cr);
    if (j->fmt == CLI_PNG && ok) {
        unsigned char *png;
        size_t n;
        ok = cli_png_surface(sf, &png, &n) == 0;
        if (ok) { free(out->p); out->p = png; out->n = out->cap = n; }
    } else cairo_surface_finish(sf);
    ok = ok && cairo_surface_status(sf) == CAIRO_STATUS_SUCCESS && !out->failed;
    cairo_surface_destroy(sf);
    return ok ? 0 : -1;
}

int cli_render(const tf_trace *t, const tf_model *m, int stage, render_view v, const render_opts *o, double w, double h,
               double scale, cli_format f, unsigned char **out, size_t *n) {
    job j = {.t = t, .m = m, .stage = stage, .view = v, .opts = *o, .w = w, .h = h, .scale = scale, .fmt = f};
    cli_membuf b = {0};
    if (render_job(&j, &b)) { free(b.p); return -1; }
    *out = b.p;
    *n = b.n;
    return 0;
}

int cli_png_surface(cairo_surface_t *sf, unsigned char **out, size_t *n) {
    png_settings();
    cairo_surface_flush(sf);
    int pw = cairo_image_surface_get_width(sf), ph = cairo_image_surface_get_height(sf);
    unsigned char *px = malloc((size_t)pw * ph * 4);
    cli_membuf b = {0};
    int ok = px != NULL;
    if (ok) {
        int ch = argb_to_png_bytes(px, cairo_image_surface_get_data(sf), pw, ph, cairo_image_surface_get_stride(sf));
        ok = stbi_write_png_to_func(stb_sink, &b, pw, ph, ch, px, pw * ch) && !b.failed;
    }
    free(px);
    if (!ok) { free(b.p); return -1; }
    *out = b.p;
    *n = b.n;
    return 0;
}

static int export_one(const job *j, const char *path) {
    cli_membuf b = {0};
    int rc;
    if (render_job(j, &b)) rc = cli_error(path, "could not draw the %s view (out of memory?); nothing was written", render_view_name(j->view));
    else rc = cli_write_file(path, (const char *)b.p, b.n);
    free(b.p);
    return rc;
}

// ---------------------------------------------------------------- options
static int parse_cell(const char *s, int *r, int *c) {
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != ',') return -1;
    const char *t = end + 1;
    long b = strtol(t, &end, 10);
    if (end == t || *end || a < 0 || b < 0 || a > 1000000 || b > 1000000) return -1;
    *r = (int)a;
    *c = (int)b;
    return 0;
}

static int format_of(const export_args *a, const char *out, cli_format *f) {
    const char *name = a->format;
    const char *dot = out ? strrchr(out, '.') : NULL;
    if (!name && a->all) name = "png";
    if (!name) name = dot ? dot + 1 : "png";
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, fmt_ext[k])) { *f = (cli_format)k; return 0; }
    if (a->format) return cli_error("--format", "\"%s\" is not a format; use png, svg or pdf", a->format);
    return cli_error(out, "has no .png, .svg or .pdf ending; add one or give --format png|svg|pdf");
}

static const char *export_help =
    "Usage: tviz export [--model M] [--src TEXT] [--tgt TEXT] --stage ID [--view V] [--cell ROW,COL]\n"
    "                   [--format png|svg|pdf] [--width PX] [--scale S] [--colormap NAME]\n"
    "                   [--text-scale S] [--high-contrast] -o FILE\n"
    "       tviz export [--model M] [--src TEXT] [--tgt TEXT] --all [--format F] -o DIR\n"
    "       tviz export --lesson NAME [--lang en|fa|ar] -o FILE.pdf | --format png -o DIR   (a handout)\n"
    "Draws one view of a stage (ids as in tviz trace, e.g. enc.0.self_attn.head.1.weights)\n"
    "or, with --all, every stage plus the figures into DIR with an index.html.\n"
    "Views: heatmap, matrix, heads, grid, pe-heatmap, pe-curves, pe-similarity,\n"
    "       architecture, arithmetic (needs --cell). Default: heatmap for attention, matrix otherwise.\n"
    "Colour maps: viridis, cividis, rdbu, puor, gray (default: viridis for probabilities, rdbu for values).\n"
    "--width sets the picture's width in pixels (the height follows the view); --scale multiplies\n"
    "the pixels of a PNG (2 for a sharp slide), --text-scale the type (1.5 for a projector).\n";

// ---------------------------------------------------------------- --all
typedef struct { job j; char file[128]; char title[240]; } entry;

static void html_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static int write_index(const char *dir, const entry *e, int n, const cli_run *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return cli_error(dir, "out of memory writing the index");
    fputs("<!doctype html>\n<meta charset=\"utf-8\">\n<title>tviz export</title>\n"
          "<style>body{font-family:'Noto Sans',sans-serif;max-width:1300px;margin:2em auto}"
          "img{max-width:100%;border:1px solid #ddd}li{margin:1em 0}</style>\n<h1>tviz: every stage</h1>\n<p>", f);
    fprintf(f, "Model <code>");
    html_escape(f, c->model); // as the user named it
    fprintf(f, "</code>, source “");
    html_escape(f, c->src);
    fprintf(f, "”%s. %d pictures.</p>\n<ol>\n", c->r.greedy ? " (target decoded greedily)" : "", n);
    for (int k = 0; k < n; k++) {
        fprintf(f, "<li><a href=\"%s\">%s</a> — ", e[k].file, e[k].file);
        html_escape(f, e[k].title);
        if (e[k].j.fmt == CLI_PNG) fprintf(f, "<br><img loading=\"lazy\" src=\"%s\" alt=\"\">", e[k].file);
        fputs("</li>\n", f);
    }
    fputs("</ol>\n", f);
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    int rc = cli_write_file(path, buf, len);
    free(buf);
    return rc;
}

static int export_all(cli_run *c, const char *dir, const job *proto) {
    struct stat st;
    if (stat(dir, &st)) {
        if (mkdir(dir, 0777)) return cli_error(dir, "cannot create the folder (%s); check that its parent exists and is writable", strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) return cli_error(dir, "is a file, not a folder; give a folder for --all");
    const tf_trace *t = &c->r.trace;
    int cap = t->n + 64, n = 0;
    entry *e = calloc((size_t)cap, sizeof *e);
    if (!e) return cli_error(NULL, "out of memory");
    const char *ext = fmt_ext[proto->fmt];
    // figures first, then every stage in order, then heads and grids of attention weights
    static const render_view figs[] = {RENDER_VIEW_ARCHITECTURE, RENDER_VIEW_PE_HEATMAP, RENDER_VIEW_PE_CURVES, RENDER_VIEW_PE_SIMILARITY};
    static const char *fig_titles[] = {"The architecture (Figure 1 of the paper)", "Positional encoding, as a heatmap",
                                       "Positional encoding, as curves", "Positional encoding, similarity between positions"};
    for (int k = 0; k < 4; k++, n++) {
        e[n].j = *proto;
        e[n].j.stage = -1;
        e[n].j.view = figs[k];
        snprintf(e[n].file, sizeof e[n].file, "figure-%s.%s", render_view_name(figs[k]), ext);
        snprintf(e[n].title, sizeof e[n].title, "%s", fig_titles[k]);
    }
    for (int i = 0; i < t->n; i++, n++) {
        e[n].j = *proto;
        e[n].j.stage = i;
        e[n].j.view = RENDER_VIEW_AUTO;
        snprintf(e[n].file, sizeof e[n].file, "%03d-%s.%s", i + 1, t->stages[i].id, ext);
        render_stage_title(t, i, e[n].title, sizeof e[n].title);
    }
    for (int i = 0; i < t->n && n + 1 < cap; i++) {
        const tf_stage *s = &t->stages[i];
        if (s->head != 0 || strcmp(s->name, "weights")) continue;
        e[n].j = *proto;
        e[n].j.stage = i;
        e[n].j.view = RENDER_VIEW_HEADS;
        snprintf(e[n].file, sizeof e[n].file, "heads-%.*s.%s", (int)(strstr(s->id, ".head.") - s->id), s->id, ext);
        snprintf(e[n].title, sizeof e[n].title, "All heads: %s", s->id);
        n++;
        if (s->layer == 0) {
            e[n].j = e[n - 1].j;
            e[n].j.view = RENDER_VIEW_GRID;
            snprintf(e[n].file, sizeof e[n].file, "grid-%s-%s.%s", s->part == TF_PART_DEC ? "dec" : "enc",
                     s->cross ? "cross_attn" : "self_attn", ext);
            snprintf(e[n].title, sizeof e[n].title, "Every layer and head: %s", s->id);
            n++;
        }
    }
    int failed = 0;
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < n; k++) {
        if (failed) continue;
        job j = e[k].j;
        if (j.w <= 0) render_default_size(t, j.stage, j.view, &j.w, &j.h);
        else { double dw, dh; render_default_size(t, j.stage, j.view, &dw, &dh); j.h = j.w * dh / dw; }
        char path[4096 + 160];
        snprintf(path, sizeof path, "%s/%s", dir, e[k].file);
        if (export_one(&j, path)) {
#pragma omp atomic write
            failed = 1;
        }
    }
    int rc = failed ? 1 : write_index(dir, e, n, c);
    if (!rc) fprintf(stderr, "tviz: wrote %d pictures and index.html to %s\n", n, dir);
    free(e);
    return rc;
}

// ---------------------------------------------------------------- the command
int cmd_export(int argc, char **argv) {
    export_args a = {0};
    cli_run c;
    int rc = cli_run_start(&c, argc, argv, "export", export_help, 1, 0, extra_opt, &a);
    if (rc) return rc == 2 ? 0 : 1;
    job j = {.t = &c.r.trace, .m = &c.m, .stage = -1, .view = RENDER_VIEW_AUTO, .scale = 1};
    render_opts_default(&j.opts);
    const tf_trace *t = &c.r.trace;
    char why[300];
    rc = 1;
    if (!c.out) { cli_error("export", a.all ? "needs -o DIR, the folder to write into" : "needs -o FILE, where to write the picture"); goto done; }
    if (format_of(&a, a.all || (a.lesson && a.format) ? NULL : c.out, &j.fmt)) goto done;
    if (a.view && render_view_parse(a.view, &j.view)) { cli_error(a.view, "is not a view; the views are %s", render_view_names()); goto done; }
    if (a.cmap) {
        if (render_cmap_parse(a.cmap, &j.opts.cmap)) { cli_error(a.cmap, "is not a colour map; use one of %s", render_cmap_names()); goto done; }
        j.opts.cmap_set = 1;
    }
    j.opts.high_contrast = a.contrast;
    if (a.text_scale && cli_number("--text-scale", a.text_scale, 0.25, 8, &j.opts.text_scale)) goto done;
    if (a.scale && cli_number("--scale", a.scale, 0.1, 8, &j.scale)) goto done;
    if (a.width && cli_number("--width", a.width, 100, MAX_PIXELS, &j.w)) goto done;
    if (a.cell && parse_cell(a.cell, &j.opts.cell_row, &j.opts.cell_col)) {
        cli_error("--cell", "\"%s\" is not ROW,COL; give two whole numbers such as --cell 2,3", a.cell);
        goto done;
    }
    if (a.all) { rc = export_all(&c, c.out, &j); goto done; }
    if (a.lesson) {
        if (j.fmt == CLI_SVG) { cli_error("--format", "a handout is a PDF or PNG pages; use --format pdf or png"); goto done; }
        rc = cli_handout(&c, a.lesson, a.lang ? a.lang : "en", j.fmt, c.out);
        goto done;
    }
    static const render_view stage_free[] = {RENDER_VIEW_PE_HEATMAP, RENDER_VIEW_PE_CURVES, RENDER_VIEW_PE_SIMILARITY, RENDER_VIEW_ARCHITECTURE};
    int needs_stage = 1;
    for (size_t k = 0; k < 4; k++) needs_stage &= j.view != stage_free[k];
    if (a.stage) {
        j.stage = tf_trace_find(t, a.stage);
        if (j.stage < 0) { cli_error(a.stage, "is not a stage of this model; ids look like src.pe or enc.0.self_attn.head.0.weights (tviz walk lists them)"); goto done; }
    } else if (needs_stage) { cli_error("export", "needs --stage ID (or --all, or a figure view such as --view pe-heatmap)"); goto done; }
    if (render_view_check(t, j.stage, j.view, &j.opts, why, sizeof why)) { cli_error(a.view ? a.view : "--view", "%s", why); goto done; }
    double dw, dh;
    render_default_size(t, j.stage, j.view, &dw, &dh);
    if (j.w > 0) j.h = j.w * dh / dw;
    else { j.w = dw; j.h = dh; }
    if (j.fmt == CLI_PNG && (j.w * j.scale > MAX_PIXELS || j.h * j.scale > MAX_PIXELS)) {
        cli_error("--scale", "the picture would be %.0f × %.0f pixels, more than %d a side; lower --width or --scale", j.w * j.scale, j.h * j.scale, MAX_PIXELS);
        goto done;
    }
    rc = export_one(&j, c.out);
done:
    cli_run_end(&c);
    return rc;
}
