// app.c — the SDL2 window: events change the view state (state.c), the
// state is drawn with cairo (draw.c) into a streaming texture. Redraws only
// when something changed; waits for events otherwise (no idle CPU).
// The only file that includes SDL.
#include "app.h"

#include <SDL.h>
#include <dirent.h>
#include <errno.h>
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
#include "session.h"

typedef struct {
    app_session ses;            // the model, its run, lessons, timeline and the view state (session.h)
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    cairo_surface_t *surf;
    int pw, ph;                 // the renderer's output size in pixels (HiDPI aware)
    int copied;                 // Ctrl+C put a link on the clipboard (--report shows it)
} app;

// The interface's language follows the lesson's: the window's title too.
static void set_title(app *a) {
    if (a->win) SDL_SetWindowTitle(a->win, _("tviz — the Transformer, one operation at a time"));
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
    app_session_world(&a->ses, &wd);
    app_draw(cr, &a->ses.s, &wd, w, h, &a->ses.lay);
    cairo_destroy(cr);
    cairo_surface_flush(a->surf);
    SDL_UpdateTexture(a->tex, NULL, cairo_image_surface_get_data(a->surf), cairo_image_surface_get_stride(a->surf));
    SDL_RenderCopy(a->ren, a->tex, NULL, NULL);
    SDL_RenderPresent(a->ren);
    a->ses.dirty = 0;
}

// ---------------------------------------------------------------- export and screenshots
static void export_view(app *a) {
    if (!a->ses.have_run) return;
    io_picture p;
    char name[300], path[320];
    app_session_export(&a->ses, &p, name, sizeof name);
    struct stat st;
    snprintf(path, sizeof path, "%s", name);
    size_t stem = strlen(name) - strlen(".png");
    for (int k = 2; !stat(path, &st) && k < 1000; k++) snprintf(path, sizeof path, "%.*s-%d.png", (int)stem, name, k);
    unsigned char *png;
    size_t n;
    if (io_draw(&p, &png, &n)) { app_state_message(&a->ses.s, 1, "%s", _("could not draw the view (out of memory?)")); return; }
    if (io_write_file(path, (const char *)png, n)) app_state_message(&a->ses.s, 1, _("could not write %s (see the terminal)"), path);
    else app_state_message(&a->ses.s, 0, _("Saved %s (%.0f × %.0f)"), path, p.w, p.h); // in the current folder, as named
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
#define LINK_TEXT (3 * LINK_MAX)
// The link of what the window shows, "#model=…".
static void view_link(const app *a, char *out, size_t n) {
    out[0] = '#';
    app_session_link(&a->ses, out + 1, n - 1);
}

// Ctrl+C: the link to the clipboard.
static void copy_link(app *a) {
    char *link = malloc(LINK_TEXT);
    if (!link) return;
    view_link(a, link, LINK_TEXT);
    if (SDL_SetClipboardText(link)) app_state_message(&a->ses.s, 1, _("could not copy the link: %s"), SDL_GetError());
    else {
        a->copied = 1;
        app_state_message(&a->ses.s, 0, "%s", _("Link to this view copied (tviz --open opens it)"));
    }
    free(link);
}

// A model a link names, as --model finds it (a path, or a shipped name); 0 if found.
static int find_model(const char *name, char *out, size_t n) {
    struct stat st;
    if (strchr(name, '/') || strstr(name, ".safetensors") || !stat(name, &st)) { snprintf(out, n, "%s", name); return 0; }
    return io_shipped_model(name, out, n) ? -1 : 0;
}

// Opens a link on the window: its model (loaded when it is another, as
// --model finds it), then the session shows the rest (app_session_open_link).
static int open_link(app *a, const char *text, char *why, size_t n) {
    app_link l;
    if (link_parse(text, &l, why, n)) return -1;
    char cur[4096], path[4096], known[256];
    app_session_link_model(&a->ses, cur, sizeof cur);
    tf_model m;
    int new_model = (l.has & LINK_MODEL) && strcmp(l.model, cur) && strcmp(l.model, a->ses.given_model);
    if (new_model) {
        tf_err e;
        if (find_model(l.model, path, sizeof path)) {
            io_shipped_models(known, sizeof known);
            link_no_model(l.model, known, why, n);
            return -1;
        }
        if (tf_model_load(&m, path, &e)) { link_bad_model(l.model, e.msg, why, n); return -1; }
    }
    int rc = app_session_open_link(&a->ses, &l, new_model ? &m : NULL, path, l.model, 1, why, n);
    if (rc && new_model && strcmp(a->ses.model_path, path)) tf_model_free(&m); // (refused: the model was not taken)
    set_title(a);
    return rc;
}

// --open LINK: opened before the window appears; a bad link is an error of
// the command line (in English, as every one there).
static int open_at_start(app *a, const char *text) {
    char why[1200];
    i18n_set_language("en");
    int rc = open_link(a, text, why, sizeof why);
    i18n_set_language(a->ses.s.lang);
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
    case SDLK_b: return APP_KEY_BEAM;
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
    d = app_session_do(&a->ses, d, old_src, old_tgt);
    if (d & APP_DO_EXPORT) export_view(a);
    if (d & APP_DO_LANGUAGE) set_title(a);
    if (d & APP_DO_COPY_LINK) copy_link(a);
    if (d & APP_DO_FULLSCREEN) SDL_SetWindowFullscreen(a->win, a->ses.s.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

static void begin_text(app *a) { if (a->ses.s.editing) SDL_StartTextInput(); else SDL_StopTextInput(); }

// Keys while typing a sentence.
static int edit_key(app *a, const SDL_Keysym *k) {
    char old_src[APP_TEXT_MAX], old_tgt[APP_TEXT_MAX];
    switch (k->sym) {
    case SDLK_RETURN: case SDLK_KP_ENTER:
        memcpy(old_src, a->ses.s.src, sizeof old_src);
        memcpy(old_tgt, a->ses.s.tgt, sizeof old_tgt);
        do_actions(a, app_state_commit(&a->ses.s), old_src, old_tgt);
        break;
    case SDLK_ESCAPE: a->ses.s.editing = 0; break;
    case SDLK_BACKSPACE: app_state_backspace(&a->ses.s); break;
    case SDLK_DELETE: app_state_delete(&a->ses.s); break;
    case SDLK_LEFT: app_state_cursor(&a->ses.s, -1, 0); break;
    case SDLK_RIGHT: app_state_cursor(&a->ses.s, +1, 0); break;
    case SDLK_HOME: app_state_cursor(&a->ses.s, -1, 1); break;
    case SDLK_END: app_state_cursor(&a->ses.s, +1, 1); break;
    case SDLK_TAB: app_state_key(&a->ses.s, &a->ses.r.trace, k->mod & KMOD_SHIFT ? APP_KEY_EDIT_TARGET : APP_KEY_EDIT_SOURCE); break;
    case SDLK_v:
        if (k->mod & KMOD_CTRL && SDL_HasClipboardText()) {
            char *clip = SDL_GetClipboardText();
            for (char *p = clip; p && *p; p++) if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
            if (clip) app_state_text(&a->ses.s, clip);
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
    const tf_trace *t = a->ses.have_run ? &a->ses.r.trace : NULL;
    app_world wd;
    app_session_world(&a->ses, &wd);
    switch (ev->type) {
    case SDL_KEYDOWN: {
        if (a->ses.s.editing && edit_key(a, &ev->key.keysym)) break;
        if (a->ses.s.editing) return; // other keys arrive as text
        app_key k = key_of(&ev->key.keysym);
        if (k == APP_KEY_NONE) return;
        do_actions(a, app_state_key(&a->ses.s, t, k), NULL, NULL);
        begin_text(a);
        break;
    }
    case SDL_TEXTINPUT:
        if (!a->ses.s.editing) return;
        app_state_text(&a->ses.s, ev->text.text);
        break;
    case SDL_MOUSEMOTION:
        if (!app_state_motion(&a->ses.s, &wd, &a->ses.lay, ev->motion.x, ev->motion.y)) return;
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (ev->button.button != SDL_BUTTON_LEFT) return;
        do_actions(a, app_state_press(&a->ses.s, &wd, &a->ses.lay, ev->button.x, ev->button.y), NULL, NULL);
        begin_text(a);
        break;
    case SDL_MOUSEBUTTONUP:
        if (ev->button.button != SDL_BUTTON_LEFT) return;
        do_actions(a, app_state_release(&a->ses.s, &wd, &a->ses.lay, ev->button.x, ev->button.y), NULL, NULL);
        begin_text(a);
        break;
    case SDL_MOUSEWHEEL:
        if (!app_state_wheel(&a->ses.s, &wd, &a->ses.lay, ev->wheel.y)) return;
        break;
    case SDL_WINDOWEVENT:
        if (ev->window.event != SDL_WINDOWEVENT_SIZE_CHANGED && ev->window.event != SDL_WINDOWEVENT_EXPOSED &&
            ev->window.event != SDL_WINDOWEVENT_RESTORED) return;
        break;
    default:
        return;
    }
    a->ses.dirty = 1;
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
        a->ses.dirty = 1;
        return 0;
    }
    if (!strncmp(w, "shot:", 5)) return 1; // handled by the runner, in order
    if (!strncmp(w, "open:", 5)) { // a link, as --open takes it (an error shows in the status line)
        char why[1200];
        if (open_link(a, w + 5, why, sizeof why)) app_state_message(&a->ses.s, 1, "%s", why);
        a->ses.dirty = 1;
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
    if (a->ses.dirty) render_frame(a);
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
    for (char *w = strtok_r(copy, " \t\n", &save); w && !rc && !a->ses.quit; w = strtok_r(NULL, " \t\n", &save)) {
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
    "Usage: tviz [--model M] [--src TEXT] [--tgt TEXT] [--without PARTS] [--beam K [--alpha A]] [--lang en|fa|ar] [--size WxH] [--fullscreen]\n"
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
    if ((k = io_opt(argc, argv, i, "--open", NULL, &a->open))) return k;
    if ((k = io_opt(argc, argv, i, "--soak", NULL, &a->soak))) return k;
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
    i18n_init();
    i18n_set_language("en"); // until a lesson's language is chosen, whatever LANGUAGE the environment has
    app_session_open(&a->ses, &c.m, &c.r, c.path, c.src, c.tgt, c.without, 1);
    a->ses.s.alpha = c.alpha;
    if (c.beam) { // --beam K: the window starts on the beam's tree (B goes back to greedy)
        a->ses.s.beam = 1;
        a->ses.s.beam_k = c.beam;
        a->ses.s.mode = APP_MODE_BEAM;
        for (int i = c.r.trace.n - 1; i >= 0; i--)
            if (c.r.trace.stages[i].op == TF_OP_PROBS) { a->ses.s.stage = i; snprintf(a->ses.s.stage_id, sizeof a->ses.s.stage_id, "%s", c.r.trace.stages[i].id); break; }
    }
    snprintf(a->ses.given_model, sizeof a->ses.given_model, "%s", c.model);
    char lerr[900];
    if (app_session_lesson(&a->ses, c.lang ? c.lang : "en", lerr, sizeof lerr)) {
        if (c.lang_given) { // asked for: a clear error; by default, built-in captions
            rc = io_error(NULL, "%s (tviz --lang takes a folder of lessons/, e.g. en, fa, ar)", lerr);
            app_session_free(&a->ses); // (it holds the model and run io_run_start made)
            free(a);
            SDL_Quit();
            return rc;
        }
        if (!lesson_dir()) app_state_message(&a->ses.s, 1, "%s", _("no lessons found; set TVIZ_DATA_DIR or reinstall"));
    }
    if (a->ses.r.n_src_unk + a->ses.r.n_tgt_unk) app_state_message(&a->ses.s, 0, "%s", _("unknown words are read as <unk> (see the panel)"));
    if (args.open && open_at_start(a, args.open)) { rc = 1; goto done; }
    SDL_SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0");
    a->win = SDL_CreateWindow(_("tviz — the Transformer, one operation at a time"), SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, ww, wh,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI | (args.fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0));
    a->ren = a->win ? SDL_CreateRenderer(a->win, -1, 0) : NULL;
    if (!a->ren) {
        rc = io_error(NULL, "cannot open a window: %s", SDL_GetError());
        goto done;
    }
    a->ses.s.fullscreen = args.fullscreen;
    SDL_StopTextInput();
    render_frame(a);
    app_session_pan(&a->ses); // (--open: the view's size is known now)
    if (a->ses.dirty) render_frame(a);
    if (args.keys && run_script(a, args.keys)) { rc = 1; goto done; }
    if (soak_n && soak(a, soak_n, 1)) { rc = 1; goto done; }
    if (args.shot && screenshot(a, args.shot)) { rc = 1; goto done; }
    if (args.report) { // what a script left on screen, for tests
        const tf_trace *t = &a->ses.r.trace;
        int w, h;
        SDL_GetWindowSize(a->win, &w, &h);
        printf("stage=%s view=%s head=%d zoom=%.2f pinned=%d,%d hover=%d,%d editing=%d size=%dx%d presentation=%d contrast=%d help=%d decode=%d/%d scroll=%.0f check=%d\n"
               "src=%s\ntgt=%s\ndecoded=", t->stages[a->ses.s.stage].id, render_view_name(app_state_view(&a->ses.s, t)),
               t->stages[a->ses.s.stage].head, a->ses.s.zoom, a->ses.s.pin_row, a->ses.s.pin_col, a->ses.s.hover_row, a->ses.s.hover_col, a->ses.s.editing, w, h,
               a->ses.s.presentation, a->ses.s.high_contrast, a->ses.s.help, a->ses.r.T, a->ses.s.decode_step ? a->ses.s.decode_full : a->ses.r.T, a->ses.s.panel_scroll,
               a->ses.s.check, a->ses.s.src, a->ses.s.tgt);
        for (int i = 0; i < a->ses.r.T; i++) printf("%s%s", i ? " " : "", t->tgt_labels[i]);
        printf("\nlang=%s\nmessage=%s\n", a->ses.s.lang, a->ses.s.message);
        printf("snapshot=%d/%d step=%d timeline=%d model_at=%d\nsays=%s\n", a->ses.s.n_snaps ? a->ses.s.snap + 1 : 0, a->ses.s.n_snaps,
               a->ses.tl.n ? a->ses.tl.step[a->ses.s.snap] : a->ses.m.train_step, a->ses.s.timeline, app_session_model(&a->ses)->train_step, a->ses.snap_says ? a->ses.snap_says : "");
        printf("time_step=%d side_by_side=%d beside=%s\n", a->ses.s.time_step, a->ses.s.side_by_side, a->ses.have_r2 ? a->ses.m2.cfg.arch == TF_ARCH_LSTM ? "lstm" : "transformer" : "none");
        // the interface as drawn: its direction, where the panel and the buttons are, a translated string, the tooltip
        printf("rtl=%d panel_x=%.0f nav_x=%.0f prev_x=%.0f next_x=%.0f\nui_next=%s\nterm=%s\n", a->ses.lay.rtl, a->ses.lay.panel.x, a->ses.lay.nav.x,
               a->ses.lay.prev_btn.x, a->ses.lay.next_btn.x, _("Next"), a->ses.s.term);
        static char panel[20000]; // the lesson beside the stage, as read
        app_world wd;
        app_session_world(&a->ses, &wd);
        app_panel_text(&a->ses.s, &wd, panel, sizeof panel);
        printf("panel=%s\n", panel);
        char parts[64];
        printf("whatif=%d focus=%d without=%s compare=%d\n", a->ses.s.whatif, a->ses.s.whatif_focus,
               tf_without_format(a->ses.r.trace.without, parts, sizeof parts), a->ses.have_cmp);
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
        if (a->ses.quit) break;
        if (a->ses.dirty) render_frame(a);
    }
done:
    if (a->tex) SDL_DestroyTexture(a->tex);
    if (a->surf) cairo_surface_destroy(a->surf);
    if (a->ren) SDL_DestroyRenderer(a->ren);
    if (a->win) SDL_DestroyWindow(a->win);
    SDL_Quit();
    app_session_free(&a->ses);
    free(a);
    return rc;
}
