// web.c — tviz in the browser: the same session (src/app/session.c), state
// (state.c) and drawing (draw.c) as the desktop window, with the page's
// events turned into the same app_state_* calls that app.c makes from SDL's.
// The page's script (tviz.js) calls the functions below; files (models,
// lessons, translations) are in Emscripten's memory file system under /data,
// put there by the script: the shipped models and snapshots only when first
// needed, so a web_* call that needs one returns WEB_NEED and names it
// (web_needs); the script fetches it and calls again.
#include <emscripten.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "../app/draw.h"
#include "../app/link.h"
#include "../app/session.h"
#include "../io/data.h"
#include "../io/png.h"
#include "../lesson/i18n.h"

// What a call asks of the page (bits).
enum {
    WEB_DRAW = 1,         // draw a frame
    WEB_HANDLED = 2,      // the event was tviz's (the browser should not also act on it)
    WEB_EXPORT = 4,       // download web_png's picture
    WEB_FULLSCREEN = 8,   // enter or leave fullscreen (web_state's "fullscreen" says which)
    WEB_NEED = 16,        // fetch the file web_needs names, then send the event again
    WEB_LINK = 32,        // the view changed: the address may change (web_link)
    WEB_COPY = 64,        // put the view's link on the clipboard
};

static app_session ses;
static int have_ses;
static cairo_surface_t *screen;
static int screen_w, screen_h;
static char needs[512];        // a file (under /data) the last call needs
static char message[600];      // why the first view could not be opened
static char *out;              // the last string handed to the page

static const char *keep(char *s) {
    free(out);
    out = s;
    return out ? out : "";
}

// Whether the page's folder ships a model of that name (manifest.json), and their names.
EM_JS(int, manifest_has, (const char *name), { return Module.manifestHas(UTF8ToString(name)) ? 1 : 0; });
EM_JS(void, manifest_names_js, (char *out, int n), { stringToUTF8(Module.manifestNames(), out, n); });
static void manifest_names(char *out, size_t n) { manifest_names_js(out, (int)n); }

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

EMSCRIPTEN_KEEPALIVE void web_init(void) {
    setenv("TVIZ_DATA_DIR", "/data", 1);
    lesson_set_dir(io_data_dir(IO_LESSONS));
    i18n_set_dir(io_data_dir(IO_LOCALE));
    i18n_init();
    i18n_set_language("en");
}

EMSCRIPTEN_KEEPALIVE const char *web_needs(void) { return needs; }
EMSCRIPTEN_KEEPALIVE const char *web_message(void) { return message; }

// The loader's reason stays in English, on the console; the learner reads
// that the file is not a model, in their language.
static void not_a_model(const char *model, const char *detail, char *why, size_t n) {
    fprintf(stderr, "tviz: %s: %s\n", model, detail);
    const char *base = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
    snprintf(why, n, _("%s is not a model file tviz can read (the browser's console says why)"), base);
}

// The first view: a model (a shipped one by name, or a file under /data) on
// the default sentence, in English; a link then shows the rest. 0, -1
// (web_message says why), or WEB_NEED while the model's file is to be fetched.
static int first_view(const char *model) {
    char path[4096];
    if (strchr(model, '/')) snprintf(path, sizeof path, "%s", model);
    else if (io_shipped_model(model, path, sizeof path)) {
        snprintf(needs, sizeof needs, "/data/models/%.200s.safetensors", model);
        return WEB_NEED;
    }
    tf_model m;
    tf_run r;
    tf_err e;
    if (tf_model_load(&m, path, &e)) { not_a_model(model, e.msg, message, sizeof message); return -1; }
    if (tf_run_sentence(&r, &m, IO_DEFAULT_SENTENCE, NULL, &e)) {
        snprintf(message, sizeof message, "%s", e.msg);
        tf_model_free(&m);
        return -1;
    }
    app_session_open(&ses, &m, &r, path, IO_DEFAULT_SENTENCE, NULL, 0, 0);
    have_ses = 1;
    snprintf(ses.given_model, sizeof ses.given_model, "%s", model);
    char err[900];
    if (app_session_lesson(&ses, "en", err, sizeof err)) fprintf(stderr, "tviz: %s\n", err);
    return 0;
}

// ---------------------------------------------------------------- links
// The model a language opens when a link names none.
static const char *default_model(const char *lang) {
    (void)lang;
    return IO_DEFAULT_MODEL;
}

// Says why a link could not be opened: on the status line of the view that
// stays, or (nothing open yet) on the default view, opened for it.
static int refuse(const char *why) {
    if (!have_ses) {
        int rc = first_view(default_model("en"));
        if (rc) return rc; // (WEB_NEED: fetched, then the link is tried again and refused again)
    }
    app_state_message(&ses.s, 1, "%s", why);
    ses.dirty = 1;
    snprintf(message, sizeof message, "%s", why);
    return WEB_DRAW;
}

// Opens the view a link names (a fragment): its model (a shipped one
// fetched first when it is not here yet: WEB_NEED), then the rest as the
// desktop's --open does (app_session_open_link). A link that cannot be
// opened keeps the view there was and says why (WEB_DRAW); 0 when opened.
// The page's model menu and a file the learner opens are links too
// ("model=en-ar", "model=/data/user/my.safetensors"): the view stays.
EMSCRIPTEN_KEEPALIVE int web_start(const char *fragment) {
    app_link l;
    char why[700], path[4096];
    needs[0] = message[0] = 0;
    if (link_parse(fragment, &l, why, sizeof why)) return refuse(why);
    const char *lang = l.has & LINK_LANG ? l.lang : have_ses ? ses.s.lang : "en";
    const char *model = l.has & LINK_MODEL ? l.model : have_ses ? ses.given_model : default_model(lang);
    int other = !have_ses || strcmp(model, ses.given_model);
    if (other) { // a shipped model by its name, or a file the learner opened (/data/user/…)
        int rc = strchr(model, '/') ? (exists(model) ? 0 : IO_NO_SUCH) : io_shipped_model(model, path, sizeof path);
        if (!rc && strchr(model, '/')) snprintf(path, sizeof path, "%s", model);
        if (rc && manifest_has(model)) {
            snprintf(needs, sizeof needs, "/data/models/%.200s.safetensors", model);
            return WEB_NEED;
        }
        if (rc) {
            char known[1000];
            manifest_names(known, sizeof known);
            link_no_model(model, known, why, sizeof why);
            return refuse(why);
        }
    }
    if ((l.has & LINK_VIEW) && l.view == RENDER_VIEW_SIDE_BY_SIDE) { // the model beside it, fetched first
        const char *name = !other && ses.m.cfg.arch == TF_ARCH_LSTM ? "en-fa" : "rnn-attn-en-fa";
        char beside[4096];
        if (io_shipped_model(name, beside, sizeof beside) && manifest_has(name)) {
            snprintf(needs, sizeof needs, "/data/models/%.200s.safetensors", name);
            return WEB_NEED;
        }
    }
    if (!have_ses) { // the first view: its model on the default sentence, then the link on it
        int rc = first_view(model);
        if (rc) return rc < 0 ? refuse(message) : rc;
        other = 0;
    }
    tf_model m;
    tf_err e;
    if (other && tf_model_load(&m, path, &e)) {
        if (strchr(model, '/')) not_a_model(model, e.msg, why, sizeof why); // (a file of the learner's)
        else link_bad_model(model, e.msg, why, sizeof why);
        return refuse(why);
    }
    if (app_session_open_link(&ses, &l, other ? &m : NULL, path, model, 0, why, sizeof why)) {
        if (other && strcmp(ses.model_path, path)) tf_model_free(&m); // (refused: the model was not taken)
        return refuse(why);
    }
    return 0;
}

// The link of what is on screen (without '#').
EMSCRIPTEN_KEEPALIVE const char *web_link(void) {
    if (!have_ses || !ses.have_run) return "";
    char *buf = malloc(3 * LINK_MAX);
    if (buf) app_session_link(&ses, buf, 3 * LINK_MAX);
    return keep(buf);
}

// The page's own news on the status line: 1 downloading a file, 2 it could
// not be downloaded, 3 a message already in the learner's words, 4 the
// view's address copied (Ctrl+C), 5 it could not be, 0 none.
EMSCRIPTEN_KEEPALIVE void web_status(int kind, const char *what) {
    if (!have_ses) return;
    const char *base = strrchr(what, '/') ? strrchr(what, '/') + 1 : what;
    if (kind == 1) app_state_message(&ses.s, 0, _("Downloading %s…"), base);
    else if (kind == 2) app_state_message(&ses.s, 1, _("could not download %s; check the connection and try again"), base);
    else if (kind == 3) app_state_message(&ses.s, 1, "%s", what);
    else if (kind == 4) app_state_message(&ses.s, 0, "%s", _("The address of this view is copied: paste it in a course page or a message"));
    else if (kind == 5) app_state_message(&ses.s, 1, "%s", _("the browser did not let tviz copy the address; copy it from the address bar"));
    else ses.s.message[0] = 0;
    ses.dirty = 1;
}

// A shipped model goes by its name in the page (its menu, the state, the
// window's status line), however it was opened: the first view, a link,
// the menu.
static void name_shipped(void) {
    if (have_ses && ses.given_model[0] && !strchr(ses.given_model, '/'))
        snprintf(ses.model_name, sizeof ses.model_name, "%.200s", ses.given_model);
}

// What the page's bar shows: "MODEL\tLANG\tRTL" (every frame: kept small).
EMSCRIPTEN_KEEPALIVE const char *web_bar(void) {
    static char buf[400];
    name_shipped();
    snprintf(buf, sizeof buf, "%.200s\t%.15s\t%d", have_ses ? ses.model_name : "", have_ses ? ses.s.lang : "en", have_ses && ses.lay.rtl);
    return buf;
}

// The words of the page around the picture, in the interface's language.
EMSCRIPTEN_KEEPALIVE const char *web_ui(void) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "title", _("tviz — the Transformer, one operation at a time"));
    cJSON_AddStringToObject(o, "open", _("Open a model file…"));
    cJSON_AddStringToObject(o, "model", _("Model"));
    cJSON_AddStringToObject(o, "language", _("Language"));
    cJSON_AddStringToObject(o, "fullscreen", _("Fullscreen"));
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return keep(json);
}

// Draws the window on the page's canvas of w × h pixels, scale pixels to a
// point (the page's devicePixelRatio), when something changed. 1 if drawn,
// 3 if drawn and another frame is wanted (a link's pan, known once drawn).
EMSCRIPTEN_KEEPALIVE int web_frame(int w, int h, double scale) {
    if (!have_ses || w < 1 || h < 1) return 0;
    if (!screen || w != screen_w || h != screen_h) {
        if (screen) cairo_surface_destroy(screen);
        screen = cairo_web_screen_surface(w, h);
        screen_w = w;
        screen_h = h;
        ses.dirty = 1;
    }
    if (!ses.dirty) return 0;
    name_shipped();
    cairo_t *cr = cairo_create(screen);
    cairo_scale(cr, scale, scale);
    app_world wd;
    app_session_world(&ses, &wd);
    app_draw(cr, &ses.s, &wd, w / scale, h / scale, &ses.lay);
    cairo_destroy(cr);
    cairo_web_present(screen);
    ses.dirty = 0;
    app_session_pan(&ses); // (a link's pan, now that the view has a size: drawn at the next frame)
    return ses.dirty ? 3 : 1;
}

// ---------------------------------------------------------------- files fetched when needed
// R: the model set beside this one; , . T: the training snapshots.
static int fetch_first(app_key k) {
    if (k == APP_KEY_SIDE_BY_SIDE && !ses.s.side_by_side && !ses.have_m2) {
        char path[4096];
        const char *name = app_session_partner_name(&ses);
        if (io_shipped_model(name, path, sizeof path) == IO_NO_SUCH) {
            snprintf(needs, sizeof needs, "/data/models/%.200s.safetensors", name);
            return WEB_NEED;
        }
    }
    if ((k == APP_KEY_TIMELINE || k == APP_KEY_SNAP_PREV || k == APP_KEY_SNAP_NEXT) && !ses.tl.n) {
        // the snapshots folder beside a shipped model: fetched whole (the page knows its files)
        char dir[4200];
        io_beside(dir, sizeof dir, ses.model_path, ".snapshots");
        if (!exists(dir) && !strncmp(ses.model_path, "/data/models/", 13)) {
            snprintf(needs, sizeof needs, "%.500s", dir);
            return WEB_NEED;
        }
        if (exists(dir)) app_session_timeline(&ses);
    }
    return 0;
}

// What the session leaves to the page.
static int carry_out(app_do d) {
    d = app_session_do(&ses, d, NULL, NULL);
    ses.dirty = 1; // (the input changed the state, as app.c marks every event it handles)
    int r = WEB_DRAW | WEB_LINK;
    if (d & APP_DO_EXPORT) r |= WEB_EXPORT;
    if (d & APP_DO_FULLSCREEN) r |= WEB_FULLSCREEN;
    if (d & APP_DO_COPY_LINK) r |= WEB_COPY;
    return r;
}

// ---------------------------------------------------------------- keys
// A key, by the page's KeyboardEvent.code (where it is on the keyboard, so a
// Persian or Arabic layout reaches the same keys) and .key (for keys named
// by what they do). The keys of README.md's table; Escape leaves typing.
static app_key key_of(const char *code, const char *key, int ctrl, int shift) {
    if (ctrl && !strcmp(code, "KeyS")) return APP_KEY_EXPORT;
    if (ctrl && !strcmp(code, "KeyC")) return APP_KEY_COPY_LINK;
    if (ctrl) return APP_KEY_NONE;
    static const struct { const char *code; app_key k; } by_code[] = {
        {"ArrowRight", APP_KEY_NEXT}, {"Space", APP_KEY_NEXT}, {"ArrowLeft", APP_KEY_PREV}, {"Backspace", APP_KEY_PREV},
        {"Home", APP_KEY_FIRST}, {"End", APP_KEY_LAST}, {"ArrowUp", APP_KEY_LAYER_UP}, {"PageUp", APP_KEY_LAYER_UP},
        {"ArrowDown", APP_KEY_LAYER_DOWN}, {"PageDown", APP_KEY_LAYER_DOWN}, {"Digit0", APP_KEY_ALL_HEADS}, {"Numpad0", APP_KEY_ALL_HEADS},
        {"KeyN", APP_KEY_ENCODER}, {"KeyD", APP_KEY_DECODER}, {"KeyC", APP_KEY_CROSS}, {"BracketLeft", APP_KEY_STEP_BACK},
        {"BracketRight", APP_KEY_STEP_FORWARD}, {"Equal", APP_KEY_ZOOM_IN}, {"NumpadAdd", APP_KEY_ZOOM_IN}, {"Minus", APP_KEY_ZOOM_OUT},
        {"NumpadSubtract", APP_KEY_ZOOM_OUT}, {"KeyF", APP_KEY_FIT}, {"F11", APP_KEY_FULLSCREEN}, {"KeyP", APP_KEY_PRESENT},
        {"KeyH", APP_KEY_CONTRAST}, {"F1", APP_KEY_HELP}, {"KeyE", APP_KEY_EXPORT}, {"KeyL", APP_KEY_LANGUAGE}, {"KeyQ", APP_KEY_CHECK},
        {"KeyV", APP_KEY_LINES}, {"KeyK", APP_KEY_TOPK}, {"KeyB", APP_KEY_BEAM}, {"KeyG", APP_KEY_GRID}, {"Comma", APP_KEY_SNAP_PREV},
        {"Period", APP_KEY_SNAP_NEXT}, {"KeyT", APP_KEY_TIMELINE}, {"KeyR", APP_KEY_SIDE_BY_SIDE}, {"KeyW", APP_KEY_WHATIF},
        {"KeyX", APP_KEY_COMPARE}, {"Enter", APP_KEY_ENTER}, {"NumpadEnter", APP_KEY_ENTER}, {"Escape", APP_KEY_ESCAPE},
    };
    if (!strcmp(code, "Slash")) return shift ? APP_KEY_HELP : APP_KEY_NONE;
    if (!strcmp(code, "Tab")) return shift ? APP_KEY_EDIT_TARGET : APP_KEY_EDIT_SOURCE;
    for (size_t i = 0; i < sizeof by_code / sizeof *by_code; i++)
        if (!strcmp(code, by_code[i].code)) return by_code[i].k;
    if (!strncmp(code, "Digit", 5) && code[5] >= '1' && code[5] <= '8' && !code[6]) return (app_key)(APP_KEY_HEAD_1 + code[5] - '1');
    if (!strncmp(code, "Numpad", 6) && code[6] >= '1' && code[6] <= '8' && !code[7]) return (app_key)(APP_KEY_HEAD_1 + code[6] - '1');
    if (!strcmp(key, "?")) return APP_KEY_HELP;
    if (!strcmp(key, "+")) return APP_KEY_ZOOM_IN;
    return APP_KEY_NONE;
}

EMSCRIPTEN_KEEPALIVE int web_key(const char *code, const char *key, int ctrl, int shift) {
    if (!have_ses) return 0;
    needs[0] = 0;
    const tf_trace *t = ses.have_run ? &ses.r.trace : NULL;
    if (ses.s.editing) { // typing: the page's text box edits the text (web_edit); these end it or move between the sentences
        if (!strcmp(code, "Enter") || !strcmp(code, "NumpadEnter")) return carry_out(app_state_commit(&ses.s)) | WEB_HANDLED;
        if (!strcmp(code, "Escape")) { ses.s.editing = 0; ses.dirty = 1; return WEB_DRAW | WEB_HANDLED; }
        if (!strcmp(code, "Tab")) return carry_out(app_state_key(&ses.s, t, shift ? APP_KEY_EDIT_TARGET : APP_KEY_EDIT_SOURCE)) | WEB_HANDLED;
        return 0;
    }
    app_key k = key_of(code, key, ctrl, shift);
    if (k == APP_KEY_NONE) return 0;
    int need = fetch_first(k);
    if (need) return need | WEB_HANDLED;
    return carry_out(app_state_key(&ses.s, t, k)) | WEB_HANDLED;
}

// The text being typed, as the page's text box holds it (any keyboard,
// input method or paste), with the caret at UTF-16 position caret.
EMSCRIPTEN_KEEPALIVE int web_edit(const char *utf8, int caret) {
    if (!have_ses || !ses.s.editing) return 0;
    char flat[APP_TEXT_MAX];
    snprintf(flat, sizeof flat, "%s", utf8);
    for (char *p = flat; *p; p++) if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    int byte = 0;
    for (int u = 0; flat[byte] && u < caret;) { // UTF-16 units -> bytes
        unsigned char c = (unsigned char)flat[byte];
        int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        u += len == 4 ? 2 : 1;
        byte += len;
    }
    app_state_edit(&ses.s, flat, byte);
    ses.dirty = 1;
    return WEB_DRAW;
}

// ---------------------------------------------------------------- the pointer
enum { WEB_PRESS, WEB_RELEASE, WEB_MOVE, WEB_WHEEL };

EMSCRIPTEN_KEEPALIVE int web_pointer(int kind, double x, double y, double dy) {
    if (!have_ses) return 0;
    app_world wd;
    app_session_world(&ses, &wd);
    switch (kind) {
    case WEB_PRESS: return carry_out(app_state_press(&ses.s, &wd, &ses.lay, x, y));
    case WEB_RELEASE: return carry_out(app_state_release(&ses.s, &wd, &ses.lay, x, y));
    case WEB_MOVE:
        if (!app_state_motion(&ses.s, &wd, &ses.lay, x, y)) return 0;
        ses.dirty = 1;
        return WEB_DRAW;
    case WEB_WHEEL:
        ses.s.mouse_x = x;
        ses.s.mouse_y = y;
        if (!app_state_wheel(&ses.s, &wd, &ses.lay, dy)) return 0;
        ses.dirty = 1;
        return WEB_DRAW | WEB_LINK;
    }
    return 0;
}

// The language of the lessons and the interface (the page's menu).
EMSCRIPTEN_KEEPALIVE int web_language(const char *lang) {
    if (!have_ses) return 0;
    char err[900];
    if (app_session_lesson(&ses, lang, err, sizeof err)) {
        fprintf(stderr, "tviz: %s\n", err);
        app_state_message(&ses.s, 1, _("the lessons of %s could not be read; tviz lesson check names the mistake"), lang);
    } else app_state_message(&ses.s, 0, _("Language: %s"), lang); // (in the new language, as L says it)
    ses.dirty = 1;
    return WEB_DRAW | WEB_LINK;
}

// ---------------------------------------------------------------- what the page reads
EMSCRIPTEN_KEEPALIVE int web_editing(void) { return have_ses ? ses.s.editing : 0; }

// The sentence box being typed in, in points: x, y, w, h (for the page's text box, so an input method's window appears there).
EMSCRIPTEN_KEEPALIVE const char *web_edit_box(void) {
    char buf[160];
    const app_rect *b = ses.s.editing == 2 ? &ses.lay.tgt_box : &ses.lay.src_box;
    snprintf(buf, sizeof buf, "[%.1f,%.1f,%.1f,%.1f,%d]", b->x, b->y, b->w, b->h, ses.s.cursor);
    return keep(strdup(buf));
}

EMSCRIPTEN_KEEPALIVE const char *web_edit_text(void) { return have_ses ? ses.s.edit : ""; }

static cJSON *tokens(const tf_trace *t, tf_axis axis, int n) {
    cJSON *a = cJSON_CreateArray();
    char buf[16];
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(tf_axis_label(t, axis, i, buf, sizeof buf)));
    return a;
}

// {model, lang, stage, view, src_tokens, tgt_tokens, translation, …}: what is on screen.
EMSCRIPTEN_KEEPALIVE const char *web_state(void) {
    if (!have_ses || !ses.have_run) return "{}";
    const tf_trace *t = &ses.r.trace;
    cJSON *o = cJSON_CreateObject();
    name_shipped();
    cJSON_AddStringToObject(o, "model", ses.model_name);
    cJSON_AddStringToObject(o, "lang", ses.s.lang);
    cJSON_AddStringToObject(o, "stage", t->stages[ses.s.stage].id);
    cJSON_AddStringToObject(o, "view", render_view_name(app_state_view(&ses.s, t)));
    cJSON_AddNumberToObject(o, "head", t->stages[ses.s.stage].head);
    cJSON_AddNumberToObject(o, "layer", t->stages[ses.s.stage].layer);
    cJSON_AddItemToObject(o, "src_tokens", tokens(t, TF_AXIS_SRC, ses.r.S));
    cJSON_AddItemToObject(o, "tgt_tokens", tokens(t, TF_AXIS_TGT, ses.r.T));
    char *text = tf_join_tokens(ses.r.tgt_words + 1, ses.r.T - 1);
    cJSON_AddStringToObject(o, "translation", text && ses.r.greedy ? text : "");
    free(text);
    cJSON_AddStringToObject(o, "src", ses.s.src);
    cJSON_AddStringToObject(o, "tgt", ses.s.tgt);
    cJSON_AddNumberToObject(o, "editing", ses.s.editing);
    cJSON_AddStringToObject(o, "message", ses.s.message);
    cJSON_AddBoolToObject(o, "message_is_error", ses.s.message_is_error);
    cJSON_AddBoolToObject(o, "rtl", ses.lay.rtl);
    cJSON_AddNumberToObject(o, "panel_x", ses.lay.panel.x);
    cJSON_AddNumberToObject(o, "nav_x", ses.lay.nav.x);
    cJSON_AddBoolToObject(o, "fullscreen", ses.s.fullscreen);
    cJSON_AddBoolToObject(o, "side_by_side", ses.have_r2 && ses.s.side_by_side);
    cJSON_AddNumberToObject(o, "snapshots", ses.s.n_snaps);
    cJSON_AddNumberToObject(o, "zoom", ses.s.zoom);
    cJSON_AddBoolToObject(o, "presentation", ses.s.presentation);
    cJSON_AddBoolToObject(o, "high_contrast", ses.s.high_contrast);
    cJSON_AddBoolToObject(o, "help", ses.s.help);
    cJSON_AddNumberToObject(o, "check", ses.s.check);
    cJSON_AddBoolToObject(o, "whatif", ses.s.whatif);
    char parts[64];
    cJSON_AddStringToObject(o, "without", tf_without_format(ses.r.trace.without, parts, sizeof parts));
    int pin[2] = {ses.s.pin_row, ses.s.pin_col}, hover[2] = {ses.s.hover_row, ses.s.hover_col};
    cJSON_AddItemToObject(o, "pinned", cJSON_CreateIntArray(pin, 2));
    cJSON_AddItemToObject(o, "hover", cJSON_CreateIntArray(hover, 2));
    cJSON_AddStringToObject(o, "term", ses.s.term);
    double view[4] = {ses.lay.view.x, ses.lay.view.y, ses.lay.view.w, ses.lay.view.h},
           prect[4] = {ses.lay.panel.x, ses.lay.panel.y, ses.lay.panel.w, ses.lay.panel.h};
    cJSON_AddItemToObject(o, "view_rect", cJSON_CreateDoubleArray(view, 4)); // where things are, in points (for tests)
    cJSON_AddItemToObject(o, "panel_rect", cJSON_CreateDoubleArray(prect, 4));
    static char panel[20000];
    app_world wd;
    app_session_world(&ses, &wd);
    app_panel_text(&ses.s, &wd, panel, sizeof panel);
    cJSON_AddStringToObject(o, "panel", panel);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return keep(json);
}

// The trace as `tviz trace` writes it.
EMSCRIPTEN_KEEPALIVE const char *web_trace(void) {
    if (!have_ses || !ses.have_run) return "{}";
    return keep(tf_trace_json(app_session_model(&ses), &ses.r, ses.have_cmp ? &ses.cmp : NULL));
}

// Ctrl+S: the current view as a PNG (its bytes at web_png_data, web_png_size
// of them, named web_png_name); 0, or -1.
static unsigned char *png;
static size_t png_n;
static char png_name[300];
EMSCRIPTEN_KEEPALIVE int web_png(void) {
    free(png);
    png = NULL;
    png_n = 0;
    if (!have_ses || !ses.have_run) return -1;
    io_picture p;
    app_session_export(&ses, &p, png_name, sizeof png_name);
    int w = (int)ceil(p.w * p.scale), h = (int)ceil(p.h * p.scale);
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS) return -1;
    cairo_t *cr = cairo_create(sf);
    cairo_scale(cr, p.scale, p.scale);
    render_draw(cr, p.t, p.m, p.stage, p.view, &p.opts, p.w, p.h);
    cairo_destroy(cr);
    cairo_surface_flush(sf);
    int rc = io_png_encode(cairo_image_surface_get_data(sf), w, h, cairo_image_surface_get_stride(sf), &png, &png_n);
    cairo_surface_destroy(sf);
    if (!rc) app_state_message(&ses.s, 0, _("Saved %s (%.0f × %.0f)"), png_name, p.w, p.h);
    ses.dirty = 1;
    return rc ? -1 : 0;
}
EMSCRIPTEN_KEEPALIVE const unsigned char *web_png_data(void) { return png; }
EMSCRIPTEN_KEEPALIVE int web_png_size(void) { return (int)png_n; }
EMSCRIPTEN_KEEPALIVE const char *web_png_name(void) { return png_name; }

// make bench: the model's forward pass (tokens, encoder, decoder, softmax,
// every stage recorded) on the sentence shown with its translation as the
// target, reps times; the median in ms, as tests/bench/forward.c natively.
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
EMSCRIPTEN_KEEPALIVE double web_time_forward(int reps) {
    if (!have_ses || reps < 1 || reps > 1000) return -1;
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t) return -1;
    char *tgt = tf_join_tokens(ses.r.tgt_words + 1, ses.r.T - 1);
    for (int i = 0; i < reps; i++) {
        tf_run r;
        tf_err e;
        double a = emscripten_get_now();
        int rc = tf_run_sentence(&r, &ses.m, ses.s.src, tgt, &e);
        t[i] = emscripten_get_now() - a;
        if (!rc) tf_run_free(&r);
    }
    free(tgt);
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double m = t[reps / 2];
    free(t);
    return m;
}

int main(void) { return 0; }
