// export.c — `tviz export`: any view of any stage as PNG (stb_image_write),
// SVG or PDF (cairo's surfaces), or every stage and figure into a folder with
// an index. Never opens a window; needs no display.
#include "cli.h"
#include "../render/render.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PIXELS 16384 // per side of a PNG

static const char *fmt_ext[] = {"png", "svg", "pdf"};

typedef struct {
    const char *stage, *view, *cell, *format, *width, *scale, *cmap, *text_scale, *lesson, *heldout, *step;
    int all, contrast;
    const char *top_k, *animate, *to, *delay, *size;
    int timeline, slides;
} export_args;

static int extra_opt(void *ctx, int argc, char **argv, int *i) {
    export_args *a = ctx;
    const char *v;
    int k;
    struct { const char *name; const char **dst; } opts[] = {
        {"--stage", &a->stage}, {"--view", &a->view}, {"--cell", &a->cell}, {"--format", &a->format},
        {"--width", &a->width}, {"--scale", &a->scale}, {"--colormap", &a->cmap}, {"--text-scale", &a->text_scale},
        {"--lesson", &a->lesson}, {"--top-k", &a->top_k}, {"--animate", &a->animate}, {"--to", &a->to}, {"--delay", &a->delay},
        {"--size", &a->size}, {"--heldout", &a->heldout}, {"--step", &a->step}};
    for (size_t n = 0; n < sizeof opts / sizeof *opts; n++)
        if ((k = io_opt(argc, argv, i, opts[n].name, NULL, &v))) {
            if (k > 0) *opts[n].dst = v;
            return k;
        }
    if (!strcmp(argv[*i], "--all")) { a->all = 1; return 1; }
    if (!strcmp(argv[*i], "--high-contrast")) { a->contrast = 1; return 1; }
    if (!strcmp(argv[*i], "--timeline")) { a->timeline = 1; return 1; }
    if (!strcmp(argv[*i], "--slides")) { a->slides = 1; return 1; }
    return 0;
}

static int export_one(const io_picture *j, const char *path) {
    unsigned char *b;
    size_t n;
    if (io_draw(j, &b, &n)) return io_error(path, "could not draw the %s view (out of memory?); nothing was written", render_view_name(j->view));
    int rc = io_write_file(path, (const char *)b, n);
    free(b);
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

static int format_of(const export_args *a, const char *out, io_format *f) {
    const char *name = a->format;
    const char *dot = out ? strrchr(out, '.') : NULL;
    if (!name && a->all) name = "png";
    if (!name) name = dot ? dot + 1 : "png";
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, fmt_ext[k])) { *f = (io_format)k; return 0; }
    if (a->format) return io_error("--format", "\"%s\" is not a format; use png, svg or pdf", a->format);
    return io_error(out, "has no .png, .svg or .pdf ending; add one or give --format png|svg|pdf");
}

static const char *export_help =
    "Usage: tviz export [--model M] [--src TEXT] [--tgt TEXT] --stage ID [--view V] [--cell ROW,COL]\n"
    "                   [--format png|svg|pdf] [--width PX] [--scale S] [--colormap NAME]\n"
    "                   [--text-scale S] [--high-contrast] [--lang en|fa|ar] [--without PARTS]\n"
    "                   [--beam K [--alpha A]] -o FILE\n"
    "       tviz export [--model M] [--src TEXT] [--tgt TEXT] --all [--format F] [--lang L] -o DIR\n"
    "       tviz export --lesson NAME [--lang en|fa|ar] -o FILE.pdf | --format png -o DIR   (a handout)\n"
    "       tviz export --timeline --stage ID [--view V] -o FILE   (the stage at every training snapshot)\n"
    "       tviz export --animate decoding|timeline|stages|beam --stage ID [--to ID] [--view V]\n"
    "                   [--delay MS] [--size WxH] -o FILE.gif   (an animated GIF, one frame a step)\n"
    "       tviz export --slides [--lang L] -o DECK.pdf   (16:9 slides: a page a stage, lines of the lesson)\n"
    "Draws one view of a stage (ids as in tviz trace, e.g. enc.0.self_attn.head.1.weights)\n"
    "or, with --all, every stage plus the figures into DIR with an index.html.\n"
    "Views: heatmap, matrix, heads, grid, lines, lines-heads, top-k, pe-heatmap, pe-curves,\n"
    "       pe-similarity, architecture, arithmetic (needs --cell), compare-length (several\n"
    "       --model: their held-out exact match by source length, on --heldout FILE or\n"
    "       en-fa.heldout.tsv; --all draws it too when two or more models are given),\n"
    "       side-by-side (the same sentence through a Transformer and a recurrent model: the\n"
    "       other is the first --model, or en-fa / rnn-attn-en-fa), compare (with --without: the\n"
    "       stage with every part, without the parts and their difference), loss (the training\n"
    "       curves model files keep; --model A --model B draws several), beam (with --beam K, of\n"
    "       out.probs or out.logits: the beam search as a tree over the decoding steps, each box a\n"
    "       token and its hypothesis's log P, kept bold, pruned faded, the choice outlined). Default: heatmap for\n"
    "       attention, matrix otherwise. --top-k K: tokens a row in the top-k view (default 5).\n"
    "--step T lights time step T (a row, from 0) of a recurrent model's stage and map.\n"
    "--timeline reads the snapshots beside the model (MODEL.snapshots/, written by tviz train) and\n"
    "draws the stage at each, on the same sentence (the model's own translation, or --tgt).\n"
    "--animate: decoding grows the greedy translation token by token, timeline goes through the\n"
    "snapshots, stages walks from --stage to --to (default: 8 stages), beam grows the beam view\n"
    "step by step (needs --beam K); --delay per frame (800 ms),\n"
    "--size of a frame (800x600).\n"
    "Colour maps: viridis, cividis, rdbu, puor, gray (default: viridis for probabilities, rdbu for values).\n"
    "--width sets the picture's width in pixels (the height follows the view); --scale multiplies\n"
    "the pixels of a PNG (2 for a sharp slide), --text-scale the type (1.5 for a projector).\n"
    "--lang draws titles, captions and cards in that language, right to left for fa and ar\n"
    "(default: from LANGUAGE or LANG when tviz has lessons in it, else English).\n"
    "--without pe,scale,mask,residual switches those parts of the Transformer off (what if?).\n"
    "--beam K decodes with beam search of width K instead of greedily (the paper: 4), --alpha A\n"
    "its length penalty (default 0.6): score = log P(Y) / ((5 + |Y|) / 6)^A.\n";

// ---------------------------------------------------------------- --all
typedef struct { io_picture j; char file[128]; char title[240]; } entry;

static void html_escape(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

// open + text with <, > and & escaped + close, into out.
static void escaped(char *out, size_t n, const char *open, const char *text, const char *close) {
    size_t k = (size_t)snprintf(out, n, "%s", open), c = strlen(close) + 1;
    if (k + c < n) k += render_markup_escape(out + k, n - k - c, text);
    snprintf(out + k, n - k, "%s", close);
}

// The index page, in the language of the pictures (o).
static int write_index(const char *dir, const entry *e, int n, const io_run *c, const render_opts *o) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return io_error(dir, "out of memory writing the index");
    const char *heading = render_tr(o, "tviz: every stage");
    fprintf(f, "<!doctype html>\n<html lang=\"%s\" dir=\"%s\">\n<meta charset=\"utf-8\">\n<title>", c->lang ? c->lang : "en", o->rtl ? "rtl" : "ltr");
    html_escape(f, heading);
    fputs("</title>\n<style>body{font-family:'Noto Sans','Noto Sans Arabic',sans-serif;max-width:1300px;margin:2em auto}"
          "img{max-width:100%;border:1px solid #ddd}li{margin:1em 0}code,bdi{unicode-bidi:isolate}</style>\n<h1>", f);
    html_escape(f, heading);
    char model[1200], src[6000];
    escaped(model, sizeof model, "<code>", c->model, "</code>");
    escaped(src, sizeof src, "<bdi>", c->src, "</bdi>"); // isolated: a Persian word keeps its place in an English line
    fputs("</h1>\n<p>", f);
    fprintf(f, c->r.greedy ? render_tr(o, "Model %s, source “%s” (target decoded greedily). %d pictures.")
                           : render_tr(o, "Model %s, source “%s”. %d pictures."), model, src, n);
    fputs("</p>\n<ol>\n", f);
    for (int k = 0; k < n; k++) {
        fprintf(f, "<li><a href=\"%s\">%s</a> — ", e[k].file, e[k].file);
        html_escape(f, e[k].title);
        if (e[k].j.fmt == IO_PNG) fprintf(f, "<br><img loading=\"lazy\" src=\"%s\" alt=\"\">", e[k].file);
        fputs("</li>\n", f);
    }
    fputs("</ol>\n", f);
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/index.html", dir);
    int rc = io_write_file(path, buf, len);
    free(buf);
    return rc;
}

static int export_all(io_run *c, const char *dir, const io_picture *proto) {
    struct stat st;
    if (stat(dir, &st)) {
        if (mkdir(dir, 0777)) return io_error(dir, "cannot create the folder (%s); check that its parent exists and is writable", strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) return io_error(dir, "is a file, not a folder; give a folder for --all");
    const tf_trace *t = &c->r.trace;
    int cap = t->n + 64, n = 0;
    entry *e = calloc((size_t)cap, sizeof *e);
    if (!e) return io_error(NULL, "out of memory");
    const char *ext = fmt_ext[proto->fmt];
    // figures first, then every stage in order, then heads and grids of attention weights
    static const render_view figs[] = {RENDER_VIEW_ARCHITECTURE, RENDER_VIEW_PE_HEATMAP, RENDER_VIEW_PE_CURVES, RENDER_VIEW_PE_SIMILARITY,
                                       RENDER_VIEW_COMPARE_LENGTH, RENDER_VIEW_SIDE_BY_SIDE};
    static const char *fig_titles[] = {N_("The architecture (Figure 1 of the paper)"), N_("Positional encoding, as a heatmap"),
                                       N_("Positional encoding, as curves"), N_("Positional encoding, similarity between positions"),
                                       N_("Held-out exact match by source length"), N_("The same sentence through two models")};
    int lstm = t->n && tf_stage_is_lstm(&t->stages[0]);
    for (int k = 0; k < 6; k++) {
        if (lstm && k >= 1 && k <= 3) continue; // a recurrent model has no positional encoding
        if (k == 4 && !proto->opts.compare) continue; // several models: how they compare on the held-out file
        if (k == 5 && !proto->opts.beside) continue;  // a second model: the same sentence through both
        e[n].j = *proto;
        e[n].j.stage = -1;
        e[n].j.view = figs[k];
        snprintf(e[n].file, sizeof e[n].file, "figure-%s.%s", render_view_name(figs[k]), ext);
        snprintf(e[n].title, sizeof e[n].title, "%s", render_tr(&proto->opts, lstm && !k ? N_("The network unrolled in time") : fig_titles[k]));
        n++;
    }
    for (int i = 0; i < t->n; i++, n++) {
        e[n].j = *proto;
        e[n].j.stage = i;
        e[n].j.view = RENDER_VIEW_AUTO;
        snprintf(e[n].file, sizeof e[n].file, "%03d-%s.%s", i + 1, t->stages[i].id, ext);
        render_stage_title(t, i, &proto->opts, e[n].title, sizeof e[n].title);
    }
    for (int i = 0; i < t->n && n + 1 < cap; i++) {
        const tf_stage *s = &t->stages[i];
        if (s->head != 0 || s->op != TF_OP_WEIGHTS) continue;
        char block[64];
        e[n].j = *proto;
        e[n].j.stage = i;
        e[n].j.view = RENDER_VIEW_HEADS;
        snprintf(e[n].file, sizeof e[n].file, "heads-%s.%s", tf_stage_block_id(s, 0, block, sizeof block), ext);
        snprintf(e[n].title, sizeof e[n].title, render_tr(&proto->opts, "All heads: %s"), s->id);
        n++;
        if (s->layer == 0) {
            e[n].j = e[n - 1].j;
            e[n].j.view = RENDER_VIEW_GRID;
            snprintf(e[n].file, sizeof e[n].file, "grid-%s.%s", tf_stage_block_id(s, 1, block, sizeof block), ext); // "grid-enc.self_attn"
            snprintf(e[n].title, sizeof e[n].title, render_tr(&proto->opts, "Every layer and head: %s"), s->id);
            n++;
        }
    }
    int failed = 0;
#pragma omp parallel for schedule(dynamic)
    for (int k = 0; k < n; k++) {
        if (failed) continue;
        io_picture j = e[k].j;
        if (j.w <= 0) render_default_size(t, j.stage, j.view, &j.w, &j.h);
        else { double dw, dh; render_default_size(t, j.stage, j.view, &dw, &dh); j.h = j.w * dh / dw; }
        char path[4096 + 160];
        snprintf(path, sizeof path, "%s/%s", dir, e[k].file);
        if (export_one(&j, path)) {
#pragma omp atomic write
            failed = 1;
        }
    }
    int rc = failed ? 1 : write_index(dir, e, n, c, &proto->opts);
    if (!rc) fprintf(stderr, "tviz: wrote %d pictures and index.html to %s\n", n, dir);
    free(e);
    return rc;
}

// ---------------------------------------------------------------- the command
// The loss view: every --model's training curves, in the order given (the
// last is the run's model; the others are loaded into extra). Returns 0, or 1
// after the error.
static int load_curves(io_run *c, render_opts *o, tf_model *extra, const tf_model **models, const char **names, char (*namebuf)[128]) {
    int n = c->n_models ? c->n_models : 1;
    for (int k = 0; k < n; k++) {
        char path[4096];
        int own = k == n - 1;
        if (!own && io_load_model(&extra[k], c->models[k], path, sizeof path)) {
            for (int i = 0; i < k; i++) tf_model_free(&extra[i]);
            return 1;
        }
        const tf_model *m = own ? &c->m : &extra[k];
        if (!m->n_loss_curve) {
            for (int i = 0; i < k + !own; i++) tf_model_free(&extra[i]);
            return io_error(own ? c->model : c->models[k], "keeps no training curve; the loss view reads loss_curve, which tviz train writes into the models it makes");
        }
        render_model_name(own ? c->path : path, namebuf[k], 128);
        models[k] = m;
        names[k] = namebuf[k];
    }
    o->models = models;
    o->model_names = names;
    o->n_models = n;
    return 0;
}

int cmd_export(int argc, char **argv) {
    export_args a = {0};
    render_compare cmp;
    tf_model other = {0};
    tf_run other_run = {0};
    int have_other = 0;
    tf_model extra[IO_MAX_MODELS];
    const tf_model *models[IO_MAX_MODELS];
    const char *names[IO_MAX_MODELS];
    char namebuf[IO_MAX_MODELS][128];
    io_run c;
    int rc = io_run_start(&c, argc, argv, "export", export_help, IO_OPT_OUT | IO_OPT_LANG, extra_opt, &a);
    if (rc) return rc == 2 ? 0 : 1;
    io_picture j = {.t = &c.r.trace, .m = &c.m, .stage = -1, .view = RENDER_VIEW_AUTO, .scale = 1};
    render_opts_default(&j.opts);
    cli_language(&j.opts, c.lang);
    j.opts.typed_target = !c.r.greedy;
    const tf_trace *t = &c.r.trace;
    char why[300];
    rc = 1;
    if (!c.out) { io_error("export", a.all ? "needs -o DIR, the folder to write into" : "needs -o FILE, where to write the picture"); goto done; }
    if (a.animate) { // a GIF: its own path (format, stage, size)
        if (a.view && render_view_parse(a.view, &j.view)) { io_error(a.view, "is not a view; the views are %s", render_view_names()); goto done; }
        if (a.width && cli_number("--width", a.width, 100, 4096, &j.w)) goto done;
        if (a.scale && cli_number("--scale", a.scale, 0.1, 4, &j.scale)) goto done;
        if (a.text_scale && cli_number("--text-scale", a.text_scale, 0.25, 8, &j.opts.text_scale)) goto done;
        j.opts.high_contrast = a.contrast;
        rc = cli_export_animation(&c, &j, a.animate, a.stage, a.to, a.delay, a.size, c.out);
        goto done;
    }
    if (a.slides) {
        j.opts.high_contrast = a.contrast;
        if (a.cmap) {
            if (render_cmap_parse(a.cmap, &j.opts.cmap)) { io_error(a.cmap, "is not a colour map; use one of %s", render_cmap_names()); goto done; }
            j.opts.cmap_set = 1;
        }
        rc = cli_export_slides(&c, c.lang ? c.lang : "en", &j.opts, c.out);
        goto done;
    }
    if (format_of(&a, a.all || (a.lesson && a.format) ? NULL : c.out, &j.fmt)) goto done;
    if (a.view && render_view_parse(a.view, &j.view)) { io_error(a.view, "is not a view; the views are %s", render_view_names()); goto done; }
    if (a.cmap) {
        if (render_cmap_parse(a.cmap, &j.opts.cmap)) { io_error(a.cmap, "is not a colour map; use one of %s", render_cmap_names()); goto done; }
        j.opts.cmap_set = 1;
    }
    j.opts.high_contrast = a.contrast;
    if (a.text_scale && cli_number("--text-scale", a.text_scale, 0.25, 8, &j.opts.text_scale)) goto done;
    if (a.scale && cli_number("--scale", a.scale, 0.1, 8, &j.scale)) goto done;
    if (a.width && cli_number("--width", a.width, 100, MAX_PIXELS, &j.w)) goto done;
    if (a.cell && parse_cell(a.cell, &j.opts.cell_row, &j.opts.cell_col)) {
        io_error("--cell", "\"%s\" is not ROW,COL; give two whole numbers such as --cell 2,3", a.cell);
        goto done;
    }
    if (a.top_k) {
        long k;
        if (cli_whole("--top-k", a.top_k, 1, 50, &k)) goto done;
        j.opts.top_k = (int)k;
    }
    if (a.timeline) { rc = cli_export_timeline(&c, &j, a.stage, c.out); goto done; }
    if (j.view == RENDER_VIEW_COMPARE_LENGTH || (a.all && c.n_models > 1)) {
        char held[4200];
        const char *file = a.heldout ? a.heldout : cli_default_heldout(held, sizeof held);
        if (!file) { io_error("--heldout", "no held-out file: give --heldout FILE.tsv"); goto done; }
        const char *one[1] = {c.model};
        if (cli_compare_models(c.n_models ? c.models : one, c.n_models ? c.n_models : 1, file, omp_get_num_procs(), &j.opts, &cmp, NULL)) goto done;
        j.opts.compare = &cmp;
    }
    if (a.step) {
        long st;
        if (cli_whole("--step", a.step, 0, 100000, &st)) goto done;
        j.opts.time_step = (int)st;
    }
    if (j.view == RENDER_VIEW_SIDE_BY_SIDE || (a.all && c.n_models > 1)) { // the same sentence through the other model
        int lstm = c.m.cfg.arch == TF_ARCH_LSTM;
        const char *name = c.n_models > 1 ? c.models[0] : lstm ? "en-fa" : "rnn-attn-en-fa";
        char path[4096];
        tf_err e;
        if (io_load_model(&other, name, path, sizeof path)) goto done;
        have_other = 1;
        if (tf_run_sentence(&other_run, &other, c.src, c.tgt, &e)) { io_error(name, "%s", e.msg); goto done; }
        have_other = 2;
        j.opts.beside = &other_run.trace;
        j.opts.beside_model = &other;
    }
    if (a.all) { rc = export_all(&c, c.out, &j); goto done; }
    if (a.lesson) {
        if (j.fmt == IO_SVG) { io_error("--format", "a handout is a PDF or PNG pages; use --format pdf or png"); goto done; }
        rc = cli_handout(&c, a.lesson, c.lang, j.fmt, c.out);
        goto done;
    }
    static const render_view stage_free[] = {RENDER_VIEW_PE_HEATMAP, RENDER_VIEW_PE_CURVES, RENDER_VIEW_PE_SIMILARITY, RENDER_VIEW_ARCHITECTURE,
                                             RENDER_VIEW_COMPARE_LENGTH, RENDER_VIEW_SIDE_BY_SIDE, RENDER_VIEW_LOSS};
    int needs_stage = 1;
    for (size_t k = 0; k < sizeof stage_free / sizeof *stage_free; k++) needs_stage &= j.view != stage_free[k];
    if (c.n_models > 1 && j.view != RENDER_VIEW_LOSS && j.view != RENDER_VIEW_COMPARE_LENGTH && j.view != RENDER_VIEW_SIDE_BY_SIDE) {
        io_error("--model", "several models are for --view loss, compare-length or side-by-side, or --all; give one for the other views");
        goto done;
    }
    if (j.view == RENDER_VIEW_LOSS && load_curves(&c, &j.opts, extra, models, names, namebuf)) goto done;
    if (j.view == RENDER_VIEW_COMPARE) {
        if (io_run_compare(&c)) goto done;
        j.opts.with_all = &c.cmp.trace;
    }
    if (a.stage) {
        j.stage = tf_trace_find(t, a.stage);
        if (j.stage < 0) { io_error(a.stage, "is not a stage of this model; ids look like src.pe or enc.0.self_attn.head.0.weights (tviz walk lists them)"); goto done; }
    } else if (needs_stage) { io_error("export", "needs --stage ID (or --all, or a figure view such as --view pe-heatmap)"); goto done; }
    if (render_view_check(t, j.stage, j.view, &j.opts, why, sizeof why)) { io_error(a.view ? a.view : "--view", "%s", why); goto done; }
    double dw, dh;
    render_default_size(t, j.stage, j.view, &dw, &dh);
    if (j.w > 0) j.h = j.w * dh / dw;
    else { j.w = dw; j.h = dh; }
    if (j.fmt == IO_PNG && (j.w * j.scale > MAX_PIXELS || j.h * j.scale > MAX_PIXELS)) {
        io_error("--scale", "the picture would be %.0f × %.0f pixels, more than %d a side; lower --width or --scale", j.w * j.scale, j.h * j.scale, MAX_PIXELS);
        goto done;
    }
    rc = export_one(&j, c.out);
done:
    if (have_other == 2) tf_run_free(&other_run);
    if (have_other) tf_model_free(&other);
    for (int k = 0; k + 1 < j.opts.n_models; k++) tf_model_free(&extra[k]);
    io_run_end(&c);
    return rc;
}
