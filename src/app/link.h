// link.h — the link of a view: the part of an address after '#' that holds
// what the window shows (model, sentences, stage, view, language, parts
// switched off, zoom and pan, pinned cell, time step), read and written the
// same way by the desktop window and the browser. No SDL, no browser: libc,
// libm and the project's headers only.
//
//   …/index.html#model=en-fa&src=I%20really%20enjoy&stage=dec.1.cross_attn.head.3.weights&view=lines&lang=fa
//
// Keys (README "Links to a view" and tviz(1) describe them for users):
//   model    a shipped model's name (en-fa); the desktop also takes a path, as --model does
//   src tgt  the source and target sentence (UTF-8); no tgt: greedy decoding
//   stage    a stage id (enc.0.self_attn.head.1.weights)
//   view     heatmap, matrix, heads, grid, lines, lines-heads, top-k, compare, side-by-side
//            (render_view_name of what the window shows; auto: the stage's own view)
//   lang     the lessons' and the interface's language (en, fa, ar)
//   without  parts switched off, comma-separated: pe, scale, mask, residual
//   zoom     1 (fit) to 32;  pan X,Y  the zoomed view's offset in view widths and heights
//   cell     ROW,COL (0-based) whose arithmetic is pinned;  time  a recurrent model's time step (0-based)
// Values are percent-encoded UTF-8 (RFC 3986); '+' also reads as a space (as
// in forms and URLSearchParams), so a plus sign is written %2B. Keys are
// separated by '&'; an unknown key is ignored (links from newer versions
// still open); a key given twice: the last one counts. model, src, stage
// and lang, when left out, stay as they are; every other key left out is
// its default (no target, the stage's own view, nothing off, zoom 1, no
// pinned cell, no time step).
//
// Opening a link takes two steps around the caller's own work:
//   link_parse(text, &l)               what the link says, checked on its own
//   the caller finds and loads l.model (link_no_model when it has none), checks
//   l.lang has lessons (link_no_lang), copies its state, link_prepare(&copy, &l),
//   link_check_run(model, …, &copy), and runs the model on copy.src, copy.tgt, copy.without
//   link_apply(&copy, trace, &l, …)    stage, view, zoom, pan, cell, time step, by the
//                                      same calls keys make; its app_do is the caller's to do
// and only then replaces its model, run and state. Every failure is one line
// in the interface's language (gettext) in why, and the caller keeps the view
// it had.
#ifndef APP_LINK_H
#define APP_LINK_H

#include "state.h"

#define LINK_MAX 8192      // the longest link read, in bytes
#define LINK_MODEL_MAX 1024

// Which keys a link gave (app_link.has).
enum { LINK_MODEL = 1, LINK_SRC = 2, LINK_TGT = 4, LINK_STAGE = 8, LINK_VIEW = 16, LINK_LANG = 32, LINK_WITHOUT = 64,
       LINK_ZOOM = 128, LINK_PAN = 256, LINK_CELL = 512, LINK_TIME = 1024 };

typedef struct {
    unsigned has;              // LINK_* keys given
    char model[LINK_MODEL_MAX];
    char src[APP_TEXT_MAX], tgt[APP_TEXT_MAX]; // tgt "": greedy decoding
    char stage[80];
    render_view view;          // one the window shows, or RENDER_VIEW_AUTO (the stage's own)
    char lang[16];
    int without;               // TF_WITHOUT_* bits
    double zoom;               // 1 … 32
    double pan_x, pan_y;       // in view widths and heights, -32 … 32
    int cell_row, cell_col;    // -1: none pinned
    int time;                  // -1: none
} app_link;

// Reads a fragment ("model=…&stage=…", with or without its '#') or a whole
// address ("https://…/index.html#model=…"). Returns 0, or -1 with why.
int link_parse(const char *text, app_link *l, char *why, size_t n);

// Writes l as a fragment, without the '#': every key it has, in a fixed
// order, percent-encoded. Returns 0, or -1 when n is too small.
int link_write(const app_link *l, char *out, size_t n);

// The link of what the state shows of trace t, with model as named.
// view_w, view_h: the size of the view on screen (app_layout.view), which
// the pan is a fraction of; 0 when unknown (then no pan is written).
void link_of_state(const app_state *s, const tf_trace *t, const char *model, double view_w, double view_h, app_link *l);

// 1 when opening l needs a new run: another model (current: the one the
// caller runs now, as a link names it), sentence or parts switched off, or
// the state shows a decoding step or a training snapshot.
int link_needs_run(const app_state *s, const app_link *l, const char *current);

// The sentences and parts switched off of l into the state the caller then
// runs the model on; the decoding step and the training snapshot go back to
// the whole decoding and the model itself.
void link_prepare(app_state *s, const app_link *l);

// Whether the model m takes the prepared state's sentences (their tokens
// against its max_len); model names it in the message. Returns 0, or -1.
int link_check_run(const tf_model *m, const char *model, const app_state *s, char *why, size_t n);

// Shows what l asks on trace t (the run of the prepared state): its stage
// (app_state_goto), its view (the keys V, 0, G, K, X, R), its time step
// ([ ]), then its zoom, pan and pinned cell. Every other way of showing is
// reset first (as the stage's own view). view_w, view_h: as for
// link_of_state; 0: the pan stays 0 until link_pan is called. *todo gets
// what the keys ask of the caller (APP_DO_RERUN for the compare view,
// APP_DO_PARTNER for side by side). Returns 0, or -1 with why and s unchanged.
int link_apply(app_state *s, const tf_trace *t, const app_link *l, double view_w, double view_h, app_do *todo, char *why, size_t n);
// The pan of l for a view of that size (after the first frame, when the
// size was unknown to link_apply).
void link_pan(app_state *s, const app_link *l, double view_w, double view_h);

// The messages for what the caller checks: a model it does not have (known:
// the names it has, "en-fa, worked-example"), one that does not load
// (detail: the loader's message), a language without lessons.
void link_no_model(const char *model, const char *known, char *why, size_t n);
void link_bad_model(const char *model, const char *detail, char *why, size_t n);
void link_no_lang(const char *lang, const char *known, char *why, size_t n);

#endif
