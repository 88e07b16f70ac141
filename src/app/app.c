// app.c — the SDL2 window: events change the view state (state.c), the
// state is drawn with cairo (draw.c) into a streaming texture. Redraws only
// when something changed; waits for events otherwise (no idle CPU).
// The only file that includes SDL.
#include "app.h"

#include <SDL.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/data.h"
#include "../io/io.h"
#include "../lesson/i18n.h"
#include "draw.h"
#include "link.h"

typedef struct {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    cairo_surface_t *surf;
    int pw, ph;                 // the renderer's output size in pixels (HiDPI aware)
    app_state s;
    app_layout lay;
    tf_model m;
    tf_run r;
    int have_model, have_run;
    tf_model m2;                // R: the model compared side by side, and its run on the same sentence
    tf_run r2;
    int have_m2, have_r2;
    tf_run cmp;                 // the compare view: r's tokens with every part on
    int have_cmp;
    char model_path[4096], model_name[256], load_error[700];
    lesson lesson;
    int have_lesson;
    lesson whatif;              // lessons/<lang>/what-if.md: beside the stages it explains while parts are off (or W is open)
    int have_whatif;
    glossary gloss[8];          // every language's glossary, for the hover tooltip
    int n_gloss;
    io_timeline tl;             // the model's training snapshots (tl.n 0: none)
    char *snap_says;            // what the snapshot shown translates by itself
    int dirty, quit;
    char given_model[4096];     // the model as the user named it (--model, a link): what the view's link says
    app_link opened;            // the last link opened; its pan waits for the first frame when pan_later
    int pan_later, copied;      // (copied: Ctrl+C put a link on the clipboard, --report shows it)
} app;

// ---------------------------------------------------------------- the model
// The model shown: the snapshot of the timeline the state is at, or the model itself.
static const tf_model *shown_model(const app *a) {
    return a->tl.n && a->s.n_snaps ? io_timeline_model(&a->tl, a->s.snap) : &a->m;
}

// What if? The lesson "What if?" takes the panel beside the stages it has a
// section for while the what-if panel is open, a part is off (or was in
// training), the model is pre-LN, or the comparison is shown.
static int whatif_lesson(const app *a) {
    if (!a->have_whatif || !a->have_run) return 0;
    int active = a->s.whatif || a->s.without || a->s.trained_without || a->s.compare || (a->have_model && a->m.cfg.norm_first);
    return active && lesson_for_stage(&a->whatif, a->r.trace.stages[a->s.stage].id) != NULL;
}

static void app_world_of(app *a, app_world *w) {
    w->m = a->have_model ? shown_model(a) : NULL;
    w->tl = a->tl.n ? &a->tl : NULL;
    w->snap_says = a->snap_says;
    w->r = a->have_run ? &a->r : NULL;
    w->model_name = a->model_name;
    w->load_error = a->load_error;
    w->lesson = whatif_lesson(a) ? &a->whatif : a->have_lesson ? &a->lesson : NULL;
    w->gloss = a->gloss;
    w->n_gloss = a->n_gloss;
    w->m2 = a->have_m2 ? &a->m2 : NULL;
    w->r2 = a->have_r2 ? &a->r2 : NULL;
    w->cmp = a->have_cmp ? &a->cmp : NULL;
}

// R: the other kind of model (a recurrent model beside the Transformer, or
// the Transformer beside a recurrent model), run on the same sentences.
static void run_partner(app *a) {
    if (!a->have_model) return;
    if (!a->have_m2) {
        const char *name = a->m.cfg.arch == TF_ARCH_LSTM ? "en-fa" : "rnn-attn-en-fa";
        char path[4096], why[300];
        if (io_shipped_model(name, path, sizeof path)) {
            snprintf(why, sizeof why, _("no model %s to compare with (it ships in the models folder)"), name);
            app_state_message(&a->s, 1, "%s", why);
            a->s.side_by_side = 0;
            return;
        }
        tf_err e;
        if (tf_model_load(&a->m2, path, &e)) { app_state_message(&a->s, 1, "%s: %s", name, e.msg); a->s.side_by_side = 0; return; }
        a->have_m2 = 1;
    }
    tf_run r;
    tf_err e;
    if (tf_run_sentence(&r, &a->m2, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, &e)) {
        app_state_message(&a->s, 1, "%s", e.msg);
        a->s.side_by_side = 0;
        return;
    }
    if (a->have_r2) tf_run_free(&a->r2);
    a->r2 = r;
    a->have_r2 = 1;
}

// The glossary of every language with lessons (lessons/<lang>/glossary.txt);
// a broken one is left out (tviz lesson check names its mistake).
static void load_glossaries(app *a) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    struct dirent *de;
    char path[4200], err[300];
    while (d && (de = readdir(d)) && a->n_gloss < (int)(sizeof a->gloss / sizeof *a->gloss)) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof a->gloss[0].lang) continue;
        snprintf(path, sizeof path, "%s/%s/glossary.txt", lesson_dir(), de->d_name);
        if (!access(path, R_OK) && !glossary_load(&a->gloss[a->n_gloss], path, de->d_name, err, sizeof err)) a->n_gloss++;
    }
    if (d) closedir(d);
}

// The interface's language follows the lesson's: window title and strings.
static void set_ui_language(app *a, const char *lang) {
    i18n_set_language(lang);
    a->s.term[0] = 0;
    if (a->win) SDL_SetWindowTitle(a->win, _("tviz — the Transformer, one operation at a time"));
}

// The lesson of a language: lessons/<lang>/inside-transformer.md. Returns 0,
// or -1 with a message in err.
static int load_lesson(app *a, const char *lang, char *err, size_t n) {
    char path[4200], why[512];
    if (!lesson_dir()) {
        snprintf(err, n, "lessons: %s", io_no_lessons());
        return -1;
    }
    // a recurrent model: the lesson that sets it beside the Transformer
    const char *name = a->have_model && a->m.cfg.arch == TF_ARCH_LSTM ? "rnn-or-transformer" : "inside-transformer";
    snprintf(path, sizeof path, "%s/%s/%s.md", lesson_dir(), lang, name);
    lesson l;
    if (lesson_load(&l, path, lang, why, sizeof why)) { // named as in the source tree, not where it was found
        snprintf(err, n, "lessons/%.30s/%s.md:%.500s", lang, name, why);
        return -1;
    }
    if (a->have_lesson) lesson_free(&a->lesson);
    a->lesson = l;
    a->have_lesson = 1;
    // and the what-if lesson of that language, when there is one (tviz lesson check names its mistakes)
    if (a->have_whatif) lesson_free(&a->whatif);
    snprintf(path, sizeof path, "%s/%s/what-if.md", lesson_dir(), lang);
    a->have_whatif = !access(path, R_OK) && !lesson_load(&a->whatif, path, lang, why, sizeof why);
    snprintf(a->s.lang, sizeof a->s.lang, "%s", lang);
    set_ui_language(a, lang);
    return 0;
}

// L: the next language that has lessons, in alphabetical order.
static void next_language(app *a) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    char best[16] = "", first[16] = "";
    struct dirent *de;
    char path[4200];
    struct stat st;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof best) continue;
        snprintf(path, sizeof path, "%s/%s/inside-transformer.md", lesson_dir(), de->d_name);
        if (stat(path, &st)) continue;
        if (!first[0] || strcmp(de->d_name, first) < 0) snprintf(first, sizeof first, "%.15s", de->d_name);
        if (strcmp(de->d_name, a->s.lang) > 0 && (!best[0] || strcmp(de->d_name, best) < 0)) snprintf(best, sizeof best, "%.15s", de->d_name);
    }
    if (d) closedir(d);
    const char *lang = best[0] ? best : first;
    char err[900];
    if (!lang[0]) app_state_message(&a->s, 1, "%s", _("no lessons found; set TVIZ_DATA_DIR or reinstall"));
    else if (load_lesson(a, lang, err, sizeof err)) { // the detail on stderr, in English as every error there; the window says it in the learner's words
        fprintf(stderr, "tviz: %s\n", err);
        app_state_message(&a->s, 1, _("the lessons of %s could not be read; tviz lesson check names the mistake"), lang);
    }
    else app_state_message(&a->s, 0, _("Language: %s"), lang);
}

// Runs the model on the state's sentences. On failure the previous run and
// sentences stay, and the error goes to the status line.
static int rerun(app *a, const char *old_src, const char *old_tgt) {
    tf_run r;
    tf_err e;
    char *says = NULL;
    a->m.cfg.without = a->m.cfg.trained_without | a->s.without; // what if? (W), also on the snapshots
    if (a->tl.n) io_timeline_set_without(&a->tl, a->s.without);
    int rc = a->tl.n ? io_timeline_run(&r, &a->tl, a->s.snap, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, a->s.decode_step, &says, &e)
           : a->s.decode_step ? tf_run_greedy(&r, &a->m, a->s.src, a->s.decode_step, &e)
                              : tf_run_sentence(&r, &a->m, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, &e);
    if (rc) {
        if (old_src) snprintf(a->s.src, sizeof a->s.src, "%s", old_src);
        if (old_tgt) snprintf(a->s.tgt, sizeof a->s.tgt, "%s", old_tgt);
        app_state_message(&a->s, 1, "%s", e.msg);
        return -1;
    }
    if (a->have_run) tf_run_free(&a->r);
    a->r = r;
    a->have_run = 1;
    free(a->snap_says);
    a->snap_says = says;
    if (a->have_cmp) tf_run_free(&a->cmp);
    a->have_cmp = 0;
    if (a->s.compare && shown_model(a)->cfg.without) { // the same tokens with every part on, for the compare view (X)
        if (tf_run_compare(&a->cmp, shown_model(a), &a->r, &e)) app_state_message(&a->s, 1, "%s", e.msg);
        else a->have_cmp = 1;
    }
    app_state_attach(&a->s, &a->r.trace);
    if (a->r.n_src_unk + a->r.n_tgt_unk) app_state_message(&a->s, 0, "%s", _("unknown words are read as <unk> (see the panel)"));
    if (a->s.side_by_side) run_partner(a);
    return 0;
}

// ---------------------------------------------------------------- drawing
static int ensure_target(app *a) {
    int pw, ph;
    SDL_GetRendererOutputSize(a->ren, &pw, &ph);
    if (pw == a->pw && ph == a->ph && a->tex) return 0;
    if (a->tex) SDL_DestroyTexture(a->tex);
    if (a->surf) cairo_surface_destroy(a->surf);
    a->pw = pw;
    a->ph = ph;
    a->tex = SDL_CreateTexture(a->ren, SDL_PIXELFORMAT_ARGB8888, SDL_TEXTUREACCESS_STREAMING, pw, ph);
    a->surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pw, ph);
    if (!a->tex || cairo_surface_status(a->surf) != CAIRO_STATUS_SUCCESS) return -1;
    SDL_SetTextureBlendMode(a->tex, SDL_BLENDMODE_NONE);
    return 0;
}

// Window units: the layout works in window points; the surface has the
// renderer's pixels (2x on HiDPI).
static void window_size(app *a, double *w, double *h) {
    int ww, wh;
    SDL_GetWindowSize(a->win, &ww, &wh);
    *w = ww;
    *h = wh;
}

static void render_frame(app *a) {
    if (ensure_target(a)) return;
    double w, h;
    window_size(a, &w, &h);
    cairo_t *cr = cairo_create(a->surf);
    cairo_scale(cr, a->pw / w, a->ph / h);
    app_world wd;
    app_world_of(a, &wd);
    app_draw(cr, &a->s, &wd, w, h, &a->lay);
    cairo_destroy(cr);
    cairo_surface_flush(a->surf);
    SDL_UpdateTexture(a->tex, NULL, cairo_image_surface_get_data(a->surf), cairo_image_surface_get_stride(a->surf));
    SDL_RenderCopy(a->ren, a->tex, NULL, NULL);
    SDL_RenderPresent(a->ren);
    a->dirty = 0;
}

// ---------------------------------------------------------------- export and screenshots
static void export_view(app *a) {
    if (!a->have_run) return;
    const tf_trace *t = &a->r.trace;
    render_view v = app_state_view(&a->s, t);
    char path[4096];
    const char *what = v == RENDER_VIEW_HEADS ? "-heads" : v == RENDER_VIEW_COMPARE ? "-compare" : "";
    struct stat st;
    snprintf(path, sizeof path, "tviz-%s%s.png", t->stages[a->s.stage].id, what);
    for (int k = 2; !stat(path, &st) && k < 1000; k++) snprintf(path, sizeof path, "tviz-%s%s-%d.png", t->stages[a->s.stage].id, what, k);
    render_opts o = app_render_opts(&a->s);
    if (a->have_cmp) o.with_all = &a->cmp.trace;
    double w, h;
    render_default_size(t, a->s.stage, v, &w, &h);
    unsigned char *png;
    size_t n;
    io_picture p = {.t = t, .m = shown_model(a), .stage = a->s.stage, .view = v, .opts = o, .w = w, .h = h, .scale = 1, .fmt = IO_PNG};
    if (io_draw(&p, &png, &n)) { app_state_message(&a->s, 1, "%s", _("could not draw the view (out of memory?)")); return; }
    if (io_write_file(path, (const char *)png, n)) app_state_message(&a->s, 1, _("could not write %s (see the terminal)"), path);
    else {
        app_state_message(&a->s, 0, _("Saved %s (%.0f × %.0f)"), path, w, h); // in the current folder, as named
    }
    free(png);
}

static int screenshot(app *a, const char *path) {
    render_frame(a);
    unsigned char *png;
    size_t n;
    if (io_png_surface(a->surf, &png, &n)) return io_error(path, "could not encode the screenshot");
    int rc = io_write_file(path, (const char *)png, n);
    free(png);
    return rc;
}

// ---------------------------------------------------------------- links (link.h)
// The model as the view's link names it: a shipped model by its name (also
// when it was given as a path to that file), any other by the path given.
static const char *link_model(const app *a, char *buf, size_t n) {
    const char *g = a->given_model, *base = strrchr(g, '/');
    base = base ? base + 1 : g;
    size_t bl = strlen(base);
    if (bl > 12 && !strcmp(base + bl - 12, ".safetensors")) bl -= 12;
    char name[256], path[4200], r1[PATH_MAX], r2[PATH_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(bl < 255 ? bl : 255), base);
    if (strcmp(name, g) && !io_shipped_model(name, path, sizeof path) && realpath(path, r1) && realpath(a->model_path, r2) && !strcmp(r1, r2))
        g = name;
    snprintf(buf, n, "%s", g);
    return buf;
}

#define LINK_TEXT (3 * LINK_MAX)
// The link of what the window shows, "#model=…".
static void view_link(const app *a, char *out, size_t n) {
    char name[4096];
    app_link l;
    link_of_state(&a->s, a->have_run ? &a->r.trace : NULL, link_model(a, name, sizeof name), a->lay.view.w, a->lay.view.h, &l);
    out[0] = '#';
    if (link_write(&l, out + 1, n - 1)) out[1] = 0;
}

// Ctrl+C: the link to the clipboard.
static void copy_link(app *a) {
    char *link = malloc(LINK_TEXT);
    if (!link) return;
    view_link(a, link, LINK_TEXT);
    if (SDL_SetClipboardText(link)) app_state_message(&a->s, 1, _("could not copy the link: %s"), SDL_GetError());
    else {
        a->copied = 1;
        app_state_message(&a->s, 0, "%s", _("Link to this view copied (tviz --open opens it)"));
    }
    free(link);
}

// A model a link names, as --model finds it (a path, or a shipped name); 0 if found.
static int find_model(const char *name, char *out, size_t n) {
    struct stat st;
    if (strchr(name, '/') || strstr(name, ".safetensors") || !stat(name, &st)) { snprintf(out, n, "%s", name); return 0; }
    return io_shipped_model(name, out, n) ? -1 : 0;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); } // (rows of char[16])

// 1 if lang has lessons; known gets the languages that have ("ar, en, fa").
static int has_lessons(const char *lang, char *known, size_t n) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    struct dirent *de;
    char names[16][16], path[4200];
    int k = 0, found = 0;
    struct stat st;
    while (d && (de = readdir(d)) && k < 16) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof names[0]) continue;
        snprintf(path, sizeof path, "%s/%s/inside-transformer.md", lesson_dir(), de->d_name);
        if (stat(path, &st)) continue;
        snprintf(names[k++], sizeof names[0], "%.15s", de->d_name);
        found |= !strcmp(de->d_name, lang);
    }
    if (d) closedir(d);
    qsort(names, (size_t)k, sizeof names[0], by_name);
    known[0] = 0;
    for (int i = 0; i < k; i++) {
        if (i) strncat(known, ", ", n - strlen(known) - 1);
        strncat(known, names[i], n - strlen(known) - 1);
    }
    return found;
}

// Another model in place of the window's (what it ran, its snapshots and the
// model beside it go with it).
static void replace_model(app *a, tf_model *m, const char *path, const char *given) {
    if (a->have_cmp) tf_run_free(&a->cmp);
    if (a->have_r2) tf_run_free(&a->r2);
    if (a->have_m2) tf_model_free(&a->m2);
    if (a->have_run) tf_run_free(&a->r); // (its labels are the old model's)
    a->have_cmp = a->have_r2 = a->have_m2 = a->have_run = 0;
    io_timeline_free(&a->tl);
    free(a->snap_says);
    a->snap_says = NULL;
    if (a->have_model) tf_model_free(&a->m);
    a->m = *m;
    a->have_model = 1;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(a->model_name, sizeof a->model_name, "%.200s", base ? base + 1 : path);
    snprintf(a->given_model, sizeof a->given_model, "%s", given);
    if (io_timeline_open(&a->tl, path, &a->m)) app_state_message(&a->s, 1, "%s", _("the model's training snapshots could not be read (see the terminal)"));
}

static void do_actions(app *a, app_do d, const char *old_src, const char *old_tgt);

// Opens a link on the window: its model (loaded when it is another), its
// sentences and parts switched off (run), its language (lessons), its stage
// and view (link.h). All of it is checked before the window changes: on
// failure the window shows what it showed, and why says what is wrong
// (only the model beside, for side by side, is loaded after: when it is
// missing the rest of the view is open, and why says so).
static int open_link(app *a, const char *text, char *why, size_t n) {
    app_link l;
    if (link_parse(text, &l, why, n)) return -1;
    char cur[4096], path[4096], known[256];
    link_model(a, cur, sizeof cur);
    tf_model m;
    int new_model = (l.has & LINK_MODEL) && strcmp(l.model, cur) && strcmp(l.model, a->given_model), rc = -1, ran = 0;
    if (new_model) {
        tf_err e;
        if (find_model(l.model, path, sizeof path)) {
            io_shipped_models(known, sizeof known);
            link_no_model(l.model, known, why, n);
            return -1;
        }
        if (tf_model_load(&m, path, &e)) { link_bad_model(l.model, e.msg, why, n); return -1; }
    }
    tf_model *mm = new_model ? &m : &a->m;
    const char *lang = l.has & LINK_LANG ? l.lang : a->s.lang;
    app_state s = a->s;
    tf_run r;
    app_do todo;
    if (lesson_dir() && !has_lessons(lang, known, sizeof known)) { link_no_lang(lang, known, why, n); goto out; }
    link_prepare(&s, &l);
    if (link_check_run(mm, new_model ? l.model : cur, &s, why, n)) goto out;
    int saved = mm->cfg.without; // (the run checks the link; the window's own run follows)
    mm->cfg.without = mm->cfg.trained_without | s.without;
    tf_err e;
    ran = !tf_run_sentence(&r, mm, s.src, s.tgt[0] ? s.tgt : NULL, &e);
    mm->cfg.without = saved;
    if (!ran) { snprintf(why, n, "%s", e.msg); goto out; }
    s.trained_without = mm->cfg.trained_without;
    if (link_apply(&s, &r.trace, &l, a->lay.view.w, a->lay.view.h, &todo, why, n)) goto out;
    // the link holds: the window changes
    tf_run_free(&r);
    ran = 0;
    int replaced = new_model;
    if (new_model) replace_model(a, &m, path, l.model);
    new_model = 0;
    a->s = s;
    app_state_snapshots(&a->s, a->tl.n, a->tl.n - 1);
    a->opened = l;
    a->pan_later = a->lay.view.w <= 0 && (l.has & LINK_PAN);
    rerun(a, NULL, NULL); // (with the compare run and the model beside, when the view asks for them)
    do_actions(a, todo & ~(APP_DO_RERUN | APP_DO_PARTNER), NULL, NULL);
    char err[900];
    if (lesson_dir() && (strcmp(lang, a->s.lang) || !a->have_lesson || replaced) && load_lesson(a, lang, err, sizeof err)) {
        fprintf(stderr, "tviz: %s\n", err);
        app_state_message(&a->s, 1, _("the lessons of %s could not be read; tviz lesson check names the mistake"), lang);
    }
    rc = 0;
    if (l.view == RENDER_VIEW_SIDE_BY_SIDE && !a->s.side_by_side) { snprintf(why, n, "%s", a->s.message); rc = -1; } // (the model beside is missing)
    a->dirty = 1;
out:
    if (ran) tf_run_free(&r);
    if (new_model) tf_model_free(&m);
    return rc;
}

// --open LINK: opened before the window appears; a bad link is an error of
// the command line (in English, as every one there).
static int open_at_start(app *a, const char *text) {
    char why[1200];
    i18n_set_language("en");
    int rc = open_link(a, text, why, sizeof why);
    set_ui_language(a, a->s.lang);
    return rc ? io_error("--open", "%s", why) : 0;
}

// ---------------------------------------------------------------- input
static app_key key_of(const SDL_Keysym *k) {
    int ctrl = k->mod & KMOD_CTRL, shift = k->mod & KMOD_SHIFT;
    if (ctrl && k->sym == SDLK_s) return APP_KEY_EXPORT;
    if (ctrl && k->sym == SDLK_q) return APP_KEY_QUIT;
    if (ctrl && k->sym == SDLK_c) return APP_KEY_COPY_LINK;
    if (ctrl) return APP_KEY_NONE;
    switch (k->sym) {
    case SDLK_RIGHT: case SDLK_SPACE: return APP_KEY_NEXT;
    case SDLK_LEFT: case SDLK_BACKSPACE: return APP_KEY_PREV;
    case SDLK_HOME: return APP_KEY_FIRST;
    case SDLK_END: return APP_KEY_LAST;
    case SDLK_UP: case SDLK_PAGEUP: return APP_KEY_LAYER_UP;
    case SDLK_DOWN: case SDLK_PAGEDOWN: return APP_KEY_LAYER_DOWN;
    case SDLK_0: case SDLK_KP_0: return APP_KEY_ALL_HEADS;
    case SDLK_n: return APP_KEY_ENCODER;
    case SDLK_d: return APP_KEY_DECODER;
    case SDLK_c: return APP_KEY_CROSS;
    case SDLK_LEFTBRACKET: return APP_KEY_STEP_BACK;
    case SDLK_RIGHTBRACKET: return APP_KEY_STEP_FORWARD;
    case SDLK_PLUS: case SDLK_EQUALS: case SDLK_KP_PLUS: return APP_KEY_ZOOM_IN;
    case SDLK_MINUS: case SDLK_KP_MINUS: return APP_KEY_ZOOM_OUT;
    case SDLK_f: return APP_KEY_FIT;
    case SDLK_F11: return APP_KEY_FULLSCREEN;
    case SDLK_p: return APP_KEY_PRESENT;
    case SDLK_h: return APP_KEY_CONTRAST;
    case SDLK_F1: case SDLK_QUESTION: return APP_KEY_HELP;
    case SDLK_SLASH: return shift ? APP_KEY_HELP : APP_KEY_NONE;
    case SDLK_TAB: return shift ? APP_KEY_EDIT_TARGET : APP_KEY_EDIT_SOURCE;
    case SDLK_e: return APP_KEY_EXPORT;
    case SDLK_l: return APP_KEY_LANGUAGE;
    case SDLK_q: return APP_KEY_CHECK;
    case SDLK_v: return APP_KEY_LINES;
    case SDLK_k: return APP_KEY_TOPK;
    case SDLK_g: return APP_KEY_GRID;
    case SDLK_COMMA: return APP_KEY_SNAP_PREV;
    case SDLK_PERIOD: return APP_KEY_SNAP_NEXT;
    case SDLK_t: return APP_KEY_TIMELINE;
    case SDLK_r: return APP_KEY_SIDE_BY_SIDE;
    case SDLK_w: return APP_KEY_WHATIF;
    case SDLK_x: return APP_KEY_COMPARE;
    case SDLK_RETURN: case SDLK_KP_ENTER: return APP_KEY_ENTER;
    case SDLK_ESCAPE: return APP_KEY_ESCAPE;
    default:
        if (k->sym >= SDLK_1 && k->sym <= SDLK_8) return (app_key)(APP_KEY_HEAD_1 + (k->sym - SDLK_1));
        if (k->sym >= SDLK_KP_1 && k->sym <= SDLK_KP_8) return (app_key)(APP_KEY_HEAD_1 + (k->sym - SDLK_KP_1));
        return APP_KEY_NONE;
    }
}

static void do_actions(app *a, app_do d, const char *old_src, const char *old_tgt) {
    if (d & APP_DO_QUIT) a->quit = 1;
    if (d & (APP_DO_RERUN | APP_DO_SNAPSHOT)) rerun(a, old_src, old_tgt);
    if (d & APP_DO_PARTNER) run_partner(a);
    if (d & APP_DO_EXPORT) export_view(a);
    if (d & APP_DO_COPY_LINK) copy_link(a);
    if (d & APP_DO_LANGUAGE) next_language(a);
    if (d & APP_DO_FULLSCREEN) SDL_SetWindowFullscreen(a->win, a->s.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

static void begin_text(app *a) { if (a->s.editing) SDL_StartTextInput(); else SDL_StopTextInput(); }

// Keys while typing a sentence.
static int edit_key(app *a, const SDL_Keysym *k) {
    char old_src[APP_TEXT_MAX], old_tgt[APP_TEXT_MAX];
    switch (k->sym) {
    case SDLK_RETURN: case SDLK_KP_ENTER:
        memcpy(old_src, a->s.src, sizeof old_src);
        memcpy(old_tgt, a->s.tgt, sizeof old_tgt);
        do_actions(a, app_state_commit(&a->s), old_src, old_tgt);
        break;
    case SDLK_ESCAPE: a->s.editing = 0; break;
    case SDLK_BACKSPACE: app_state_backspace(&a->s); break;
    case SDLK_DELETE: app_state_delete(&a->s); break;
    case SDLK_LEFT: app_state_cursor(&a->s, -1, 0); break;
    case SDLK_RIGHT: app_state_cursor(&a->s, +1, 0); break;
    case SDLK_HOME: app_state_cursor(&a->s, -1, 1); break;
    case SDLK_END: app_state_cursor(&a->s, +1, 1); break;
    case SDLK_TAB: app_state_key(&a->s, &a->r.trace, k->mod & KMOD_SHIFT ? APP_KEY_EDIT_TARGET : APP_KEY_EDIT_SOURCE); break;
    case SDLK_v:
        if (k->mod & KMOD_CTRL && SDL_HasClipboardText()) {
            char *clip = SDL_GetClipboardText();
            for (char *p = clip; p && *p; p++) if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
            if (clip) app_state_text(&a->s, clip);
            SDL_free(clip);
        }
        break;
    default: return 0;
    }
    begin_text(a);
    return 1;
}

// SDL's events, each turned into one call that changes the state (state.c).
static void app_event(app *a, const SDL_Event *ev) {
    const tf_trace *t = a->have_run ? &a->r.trace : NULL;
    app_world wd;
    app_world_of(a, &wd);
    switch (ev->type) {
    case SDL_KEYDOWN: {
        if (a->s.editing && edit_key(a, &ev->key.keysym)) break;
        if (a->s.editing) return; // other keys arrive as text
        app_key k = key_of(&ev->key.keysym);
        if (k == APP_KEY_NONE) return;
        do_actions(a, app_state_key(&a->s, t, k), NULL, NULL);
        begin_text(a);
        break;
    }
    case SDL_TEXTINPUT:
        if (!a->s.editing) return;
        app_state_text(&a->s, ev->text.text);
        break;
    case SDL_MOUSEMOTION:
        if (!app_state_motion(&a->s, &wd, &a->lay, ev->motion.x, ev->motion.y)) return;
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (ev->button.button != SDL_BUTTON_LEFT) return;
        do_actions(a, app_state_press(&a->s, &wd, &a->lay, ev->button.x, ev->button.y), NULL, NULL);
        begin_text(a);
        break;
    case SDL_MOUSEBUTTONUP:
        if (ev->button.button != SDL_BUTTON_LEFT) return;
        do_actions(a, app_state_release(&a->s, &wd, &a->lay, ev->button.x, ev->button.y), NULL, NULL);
        begin_text(a);
        break;
    case SDL_MOUSEWHEEL:
        if (!app_state_wheel(&a->s, &wd, &a->lay, ev->wheel.y)) return;
        break;
    case SDL_WINDOWEVENT:
        if (ev->window.event != SDL_WINDOWEVENT_SIZE_CHANGED && ev->window.event != SDL_WINDOWEVENT_EXPOSED &&
            ev->window.event != SDL_WINDOWEVENT_RESTORED) return;
        break;
    default:
        return;
    }
    a->dirty = 1;
}

// ---------------------------------------------------------------- scripts (tests, README screenshots)
// A script is a list of words: key names as SDL spells them ("Right",
// "Space", "2", "Ctrl+S", "Shift+Tab", "F11"), "type:TEXT" ('_' for a
// space), "click:X,Y", "move:X,Y", "wheel:N", "resize:WxH", "shot:FILE".
static int push_word(app *a, const char *w) {
    SDL_Event ev;
    memset(&ev, 0, sizeof ev);
    int x, y;
    if (!strncmp(w, "type:", 5)) {
        ev.type = SDL_TEXTINPUT;
        snprintf(ev.text.text, sizeof ev.text.text, "%s", w + 5);
        for (char *p = ev.text.text; *p; p++) if (*p == '_') *p = ' ';
        return SDL_PushEvent(&ev) < 0 ? -1 : 0;
    }
    if (sscanf(w, "click:%d,%d", &x, &y) == 2) {
        ev.type = SDL_MOUSEBUTTONDOWN;
        ev.button.button = SDL_BUTTON_LEFT;
        ev.button.x = x;
        ev.button.y = y;
        ev.button.clicks = 1;
        SDL_PushEvent(&ev);
        ev.type = SDL_MOUSEBUTTONUP;
        return SDL_PushEvent(&ev) < 0 ? -1 : 0;
    }
    if (sscanf(w, "move:%d,%d", &x, &y) == 2) {
        ev.type = SDL_MOUSEMOTION;
        ev.motion.x = x;
        ev.motion.y = y;
        return SDL_PushEvent(&ev) < 0 ? -1 : 0;
    }
    if (sscanf(w, "wheel:%d", &x) == 1) {
        ev.type = SDL_MOUSEWHEEL;
        ev.wheel.y = x;
        return SDL_PushEvent(&ev) < 0 ? -1 : 0;
    }
    if (sscanf(w, "resize:%dx%d", &x, &y) == 2) {
        SDL_SetWindowSize(a->win, x, y);
        a->dirty = 1;
        return 0;
    }
    if (!strncmp(w, "shot:", 5)) return 1; // handled by the runner, in order
    if (!strncmp(w, "open:", 5)) { // a link, as --open takes it (an error shows in the status line)
        char why[1200];
        if (open_link(a, w + 5, why, sizeof why)) app_state_message(&a->s, 1, "%s", why);
        a->dirty = 1;
        return 0;
    }
    const char *name = w;
    ev.type = SDL_KEYDOWN;
    for (;;) {
        if (!strncmp(name, "Ctrl+", 5)) { ev.key.keysym.mod |= KMOD_LCTRL; name += 5; }
        else if (!strncmp(name, "Shift+", 6)) { ev.key.keysym.mod |= KMOD_LSHIFT; name += 6; }
        else break;
    }
    ev.key.keysym.sym = SDL_GetKeyFromName(name);
    if (ev.key.keysym.sym == SDLK_UNKNOWN) {
        io_error(w, "is not a key name; use names such as Right, Space, 2, Ctrl+S, F11, type:word, click:X,Y");
        return -1;
    }
    return SDL_PushEvent(&ev) < 0 ? -1 : 0;
}

static void drain(app *a) {
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) {
        if (ev.type == SDL_QUIT) continue;
        app_event(a, &ev);
    }
    if (a->dirty) render_frame(a);
}

// Runs a script word by word, each word's events handled before the next.
// "@FILE" reads the words from a file (lines starting with # are comments).
static int run_script(app *a, const char *script) {
    char *copy = NULL, *save = NULL;
    int rc = 0;
    if (script[0] == '@') {
        FILE *f = fopen(script + 1, "r");
        if (!f) return io_error(script + 1, "cannot read the script (%s)", strerror(errno));
        size_t n = 0;
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            if (line[0] == '#') continue;
            size_t l = strlen(line);
            char *grown = realloc(copy, n + l + 2);
            if (!grown) { fclose(f); free(copy); return io_error(script + 1, "out of memory"); }
            copy = grown;
            memcpy(copy + n, line, l);
            n += l;
            copy[n++] = ' ';
            copy[n] = 0;
        }
        fclose(f);
        if (!copy) return 0;
    } else copy = strdup(script);
    for (char *w = strtok_r(copy, " \t\n", &save); w && !rc && !a->quit; w = strtok_r(NULL, " \t\n", &save)) {
        int k = push_word(a, w);
        if (k < 0) rc = 1;
        else if (k == 1) rc = screenshot(a, w + 5);
        drain(a);
    }
    free(copy);
    return rc;
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, rss = 0;
    if (f) { if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0; fclose(f); }
    return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

// Thousands of random events: keys, clicks, moves, wheel, text, resizes,
// language switches, self-checks, whole sentence changes. Samples the
// resident memory a hundred times and prints the first sample, the one after
// a tenth of the events (caches warm), the last, and the peaks of the two halves.
static int soak(app *a, long n, unsigned seed) {
    static const char *keys[] = {"Right", "Left", "Space", "Backspace", "Home", "End", "Up", "Down", "PageUp", "PageDown",
                                 "1", "2", "3", "8", "0", "N", "D", "C", "[", "]", "=", "-", "F", "P", "H", "F1", "Escape",
                                 "Tab", "Shift+Tab", "Return", "Left", "Delete", "End", "L", "Q", "V", "K", "G", ",", ".", "T", "W", "X"};
    static const char *words[] = {"type:I", "type:_really", "type:_enjoy", "type:xyz", "type:من", "type:واقعاً", "type:\xF0\x9F\x98\x80",
                                  "type:,", "type:_", "type:\xD8\x9F"};
    // whole sentence changes: into the box, to its end, a word, run (or fail: too long, unknown)
    static const char *sentences[][4] = {{"Tab", "End", "type:_today", "Return"}, {"Tab", "Home", "type:I_", "Return"},
                                         {"Shift+Tab", "End", "type:_من", "Return"}, {"Tab", "End", "type:_a_a_a_a_a_a_a_a_a_a_a_a", "Return"},
                                         {"Tab", "Backspace", "Backspace", "Return"}, {"Shift+Tab", "Home", "Delete", "Return"}};
    // Screens and projectors, and odd sizes. (Memory grows, more and more
    // slowly, with each new window size, most likely the libraries caching
    // glyphs at new text sizes: a fixed set keeps the check about tviz's memory.)
    static const char *sizes[] = {"700x500", "800x600", "1024x768", "1200x800", "1280x720", "1366x768", "1440x900",
                                  "1600x1000", "913x587", "1111x999", "1500x640", "760x1000"};
    tf_rng rng;
    tf_rng_seed(&rng, seed);
    long every = n / 100 > 0 ? n / 100 : 1, start = 0, first = 0, last = 0, max1 = 0, max2 = 0, samples = 0;
    char w[64];
    for (long i = 0; i < n; i++) {
        unsigned r = (unsigned)(tf_rng_next(&rng) >> 33);
        int ww, wh;
        SDL_GetWindowSize(a->win, &ww, &wh);
        switch (r % 12) {
        case 0: case 1: case 2: case 3: snprintf(w, sizeof w, "%s", keys[(r >> 4) % (sizeof keys / sizeof *keys)]); break;
        case 4: snprintf(w, sizeof w, "move:%u,%u", (r >> 4) % (unsigned)ww, (r >> 14) % (unsigned)wh); break;
        case 5: snprintf(w, sizeof w, "click:%u,%u", (r >> 4) % (unsigned)ww, (r >> 14) % (unsigned)wh); break;
        case 6: snprintf(w, sizeof w, "wheel:%d", (int)((r >> 4) % 5) - 2); break;
        case 7: snprintf(w, sizeof w, "%s", words[(r >> 4) % (sizeof words / sizeof *words)]); break;
        case 8: snprintf(w, sizeof w, "resize:%s", sizes[(r >> 4) % (sizeof sizes / sizeof *sizes)]); break;
        case 9: snprintf(w, sizeof w, "%s", (r >> 4) % 3 ? "L" : "Q"); break;
        case 10: { // a whole sentence change, as four events
            const char *const *s = sentences[(r >> 4) % (sizeof sentences / sizeof *sentences)];
            for (int k = 0; k < 3; k++) { if (push_word(a, s[k]) < 0) return 1; drain(a); }
            snprintf(w, sizeof w, "%s", s[3]);
            break;
        }
        default: snprintf(w, sizeof w, "%s", (r >> 4) % 2 ? "Escape" : "Right"); break;
        }
        if (push_word(a, w) < 0) return 1;
        drain(a);
        if ((i + 1) % every == 0) {
            last = rss_kb();
            if (!samples++) start = last;
            if (samples == 10) first = last;
            if (samples >= 10 && samples <= 55 && last > max1) max1 = last;
            if (samples > 55 && last > max2) max2 = last;
        }
    }
    // Frames of different sizes come and go, so single samples jump: a leak
    // shows as the second half's peak above the first half's.
    printf("soak: %ld events, resident memory (KB): %ld after %ld events, %ld after a tenth (warm), %ld at the end; "
           "peak %ld from a tenth to half-way, %ld in the second half (%ld samples)\n",
           n, start, every, first, last, max1, max2, samples);
    return 0;
}

// ---------------------------------------------------------------- main
static const char *app_help =
    "Usage: tviz [--model M] [--src TEXT] [--tgt TEXT] [--without PARTS] [--lang en|fa|ar] [--size WxH] [--fullscreen]\n"
    "            [--open LINK] [--keys \"WORDS\"] [--screenshot FILE] [--report] [--quit] [--soak N]\n"
    "Opens the window on the model and sentence (default: the translator " IO_DEFAULT_MODEL " and\n"
    "\"" IO_DEFAULT_SENTENCE "\"), in --lang (default: from LANGUAGE or LANG, else English).\n"
    "Press ? in the window for the keys; Ctrl+C copies the link of the view, --open opens one\n"
    "(\"#model=en-fa&src=…&stage=…&view=lines&lang=fa\", or a whole address that ends so).\n"
    "--keys runs a script (or @FILE, one or more words a line) of key names (Right, Space, 2, Ctrl+S, Shift+Tab, F11),\n"
    "type:TEXT ('_' = space), click:X,Y, move:X,Y, wheel:N, resize:WxH, shot:FILE, open:LINK;\n"
    "--screenshot saves the window afterwards, --report prints what it shows, --quit closes it.\n"
    "--soak N sends N random events and prints the memory in use: first, last and most.\n";

typedef struct { const char *keys, *shot, *size, *soak, *open; int quit, fullscreen, report; } app_args;

static int app_opt(void *ctx, int argc, char **argv, int *i) {
    app_args *a = ctx;
    int k;
    if ((k = io_opt(argc, argv, i, "--keys", NULL, &a->keys))) return k;
    if ((k = io_opt(argc, argv, i, "--screenshot", NULL, &a->shot))) return k;
    if ((k = io_opt(argc, argv, i, "--size", NULL, &a->size))) return k;
    if ((k = io_opt(argc, argv, i, "--soak", NULL, &a->soak))) return k;
    if ((k = io_opt(argc, argv, i, "--open", NULL, &a->open))) return k;
    if (!strcmp(argv[*i], "--quit")) { a->quit = 1; return 1; }
    if (!strcmp(argv[*i], "--fullscreen")) { a->fullscreen = 1; return 1; }
    if (!strcmp(argv[*i], "--report")) { a->report = 1; return 1; }
    return 0;
}

int app_main(int argc, char **argv) {
    // Frames are large blocks freed and allocated again at other sizes as the
    // window is resized: a fixed mmap threshold returns them to the system
    // instead of letting glibc's adaptive one keep them in a fragmenting heap.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    app_args args = {0};
    io_run c;
    // A missing model or a bad sentence is shown in the window too, but the
    // options and the model come first: a wrong option is a plain error.
    int rc = io_run_start(&c, argc, argv, "tviz", app_help, IO_OPT_LANG, app_opt, &args);
    if (rc == 2) return 0;
    if (rc) return 1;
    int ww = 1440, wh = 900;
    if (args.size && (sscanf(args.size, "%dx%d", &ww, &wh) != 2 || ww < 320 || wh < 240 || ww > 16384 || wh > 16384)) {
        io_run_end(&c);
        return io_error("--size", "\"%s\" is not WIDTHxHEIGHT (at least 320x240), e.g. 1440x900", args.size);
    }
    long soak_n = 0;
    if (args.soak && ((soak_n = strtol(args.soak, NULL, 10)) <= 0)) { io_run_end(&c); return io_error("--soak", "needs a number of events"); }
    // Without a display SDL may fall back to a headless driver and "succeed":
    // only use one of those when asked to (SDL_VIDEODRIVER=dummy, for tests).
    const char *asked = getenv("SDL_VIDEODRIVER");
    const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    int no_display = !asked && !(x11 && *x11) && !(wl && *wl); // say so before SDL's own probing prints anything
    no_display = no_display || SDL_Init(SDL_INIT_VIDEO) != 0;
    const char *drv = no_display ? NULL : SDL_GetCurrentVideoDriver();
    if (!no_display && !asked && drv && (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy") || !strcmp(drv, "evdev"))) no_display = 1;
    if (no_display) {
        io_run_end(&c);
        if (drv) SDL_Quit();
        return io_error(NULL, "cannot open a window: no display (is DISPLAY or WAYLAND_DISPLAY set?); tviz needs one for the "
                               "window, while tviz walk and tviz export work without one");
    }
    app *a = calloc(1, sizeof *a);
    if (!a) { SDL_Quit(); io_run_end(&c); return io_error(NULL, "out of memory"); }
    a->m = c.m;
    a->r = c.r;
    a->have_model = a->have_run = 1;
    snprintf(a->model_path, sizeof a->model_path, "%s", c.path);
    const char *base = strrchr(c.path, '/');
    snprintf(a->model_name, sizeof a->model_name, "%.200s", base ? base + 1 : c.path);
    snprintf(a->given_model, sizeof a->given_model, "%s", c.model);
    app_state_init(&a->s, c.src, c.tgt);
    a->s.without = c.without;                     // --without: the run is already without them
    a->s.trained_without = c.m.cfg.trained_without;
    app_state_attach(&a->s, &a->r.trace);
    // its training snapshots, when it has them: a timeline at its last point (the model itself)
    if (io_timeline_open(&a->tl, c.path, &a->m)) app_state_message(&a->s, 1, "%s", _("the model's training snapshots could not be read (see the terminal)"));
    app_state_snapshots(&a->s, a->tl.n, a->tl.n - 1);
    if (a->tl.n && a->tl.self != a->tl.n - 1) rerun(a, NULL, NULL); // (the last point is a snapshot: show it)
    i18n_init();
    i18n_set_language("en"); // until a lesson's language is chosen, whatever LANGUAGE the environment has
    load_glossaries(a);
    char lerr[900];
    if (load_lesson(a, c.lang ? c.lang : "en", lerr, sizeof lerr)) {
        if (c.lang_given) { // asked for: a clear error; by default, built-in captions
            rc = io_error(NULL, "%s (tviz --lang takes a folder of lessons/, e.g. en, fa, ar)", lerr);
            for (int i = 0; i < a->n_gloss; i++) glossary_free(&a->gloss[i]);
            free(a);
            SDL_Quit();
            io_run_end(&c);
            return rc;
        }
        if (!lesson_dir()) app_state_message(&a->s, 1, "%s", _("no lessons found; set TVIZ_DATA_DIR or reinstall"));
    }
    if (a->r.n_src_unk + a->r.n_tgt_unk) app_state_message(&a->s, 0, "%s", _("unknown words are read as <unk> (see the panel)"));
    if (args.open && open_at_start(a, args.open)) { rc = 1; goto done; }
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    a->win = SDL_CreateWindow(_("tviz — the Transformer, one operation at a time"), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, ww, wh,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI | (args.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0));
    a->ren = a->win ? SDL_CreateRenderer(a->win, -1, 0) : NULL;
    if (!a->ren) {
        rc = io_error(NULL, "cannot open a window: %s", SDL_GetError());
        goto done;
    }
    a->s.fullscreen = args.fullscreen;
    SDL_StopTextInput();
    render_frame(a);
    if (a->pan_later) { link_pan(&a->s, &a->opened, a->lay.view.w, a->lay.view.h); a->pan_later = 0; render_frame(a); } // (--open: the view's size is known now)
    if (args.keys && run_script(a, args.keys)) { rc = 1; goto done; }
    if (soak_n && soak(a, soak_n, 1)) { rc = 1; goto done; }
    if (args.shot && screenshot(a, args.shot)) { rc = 1; goto done; }
    if (args.report) { // what a script left on screen, for tests
        const tf_trace *t = &a->r.trace;
        int w, h;
        SDL_GetWindowSize(a->win, &w, &h);
        printf("stage=%s view=%s head=%d zoom=%.2f pinned=%d,%d hover=%d,%d editing=%d size=%dx%d presentation=%d contrast=%d help=%d decode=%d/%d scroll=%.0f check=%d\n"
               "src=%s\ntgt=%s\ndecoded=", t->stages[a->s.stage].id, render_view_name(app_state_view(&a->s, t)),
               t->stages[a->s.stage].head, a->s.zoom, a->s.pin_row, a->s.pin_col, a->s.hover_row, a->s.hover_col, a->s.editing, w, h,
               a->s.presentation, a->s.high_contrast, a->s.help, a->r.T, a->s.decode_step ? a->s.decode_full : a->r.T, a->s.panel_scroll,
               a->s.check, a->s.src, a->s.tgt);
        for (int i = 0; i < a->r.T; i++) printf("%s%s", i ? " " : "", t->tgt_labels[i]);
        printf("\nlang=%s\nmessage=%s\n", a->s.lang, a->s.message);
        printf("snapshot=%d/%d step=%d timeline=%d model_at=%d\nsays=%s\n", a->s.n_snaps ? a->s.snap + 1 : 0, a->s.n_snaps,
               a->tl.n ? a->tl.step[a->s.snap] : a->m.train_step, a->s.timeline, shown_model(a)->train_step, a->snap_says ? a->snap_says : "");
        printf("time_step=%d side_by_side=%d beside=%s\n", a->s.time_step, a->s.side_by_side, a->have_r2 ? a->m2.cfg.arch == TF_ARCH_LSTM ? "lstm" : "transformer" : "none");
        // the interface as drawn: its direction, where the panel and the buttons are, a translated string, the tooltip
        printf("rtl=%d panel_x=%.0f nav_x=%.0f prev_x=%.0f next_x=%.0f\nui_next=%s\nterm=%s\n", a->lay.rtl, a->lay.panel.x, a->lay.nav.x,
               a->lay.prev_btn.x, a->lay.next_btn.x, _("Next"), a->s.term);
        static char panel[20000]; // the lesson beside the stage, as read
        app_world wd;
        app_world_of(a, &wd);
        app_panel_text(&a->s, &wd, panel, sizeof panel);
        printf("panel=%s\n", panel);
        char parts[64];
        printf("whatif=%d focus=%d without=%s compare=%d\n", a->s.whatif, a->s.whatif_focus,
               tf_without_format(a->r.trace.without, parts, sizeof parts), a->have_cmp);
        static char link[LINK_TEXT]; // the view as a link, and what Ctrl+C copied
        view_link(a, link, sizeof link);
        char *clip = a->copied ? SDL_GetClipboardText() : NULL;
        printf("link=%s\nclipboard=%s\n", link, clip ? clip : "");
        SDL_free(clip);
        fflush(stdout);
    }
    if (args.quit) goto done;
    SDL_Event ev;
    while (SDL_WaitEvent(&ev)) {
        if (ev.type == SDL_QUIT) break;
        app_event(a, &ev);
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_QUIT) goto done;
            app_event(a, &ev);
        }
        if (a->quit) break;
        if (a->dirty) render_frame(a);
    }
done:
    if (a->tex) SDL_DestroyTexture(a->tex);
    if (a->surf) cairo_surface_destroy(a->surf);
    if (a->ren) SDL_DestroyRenderer(a->ren);
    if (a->win) SDL_DestroyWindow(a->win);
    SDL_Quit();
    if (a->have_cmp) tf_run_free(&a->cmp);
    if (a->have_run) tf_run_free(&a->r);
    io_timeline_free(&a->tl);
    free(a->snap_says);
    if (a->have_model) tf_model_free(&a->m);
    if (a->have_r2) tf_run_free(&a->r2);
    if (a->have_m2) tf_model_free(&a->m2);
    if (a->have_lesson) lesson_free(&a->lesson);
    if (a->have_whatif) lesson_free(&a->whatif);
    for (int i = 0; i < a->n_gloss; i++) glossary_free(&a->gloss[i]);
    free(a);
    return rc;
}
