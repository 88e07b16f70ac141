// draw.h — the window's picture, drawn from the view state onto any cairo
// context (no SDL): navigator, stage view, text panel, sentence bar, status
// line, help overlay. Also where things are, for mouse input.
#ifndef APP_DRAW_H
#define APP_DRAW_H

#include "../lesson/lesson.h"
#include "state.h"

#define APP_MAX_BOXES 64

typedef struct {
    double x, y, w, h;
} app_rect;

typedef struct {
    const tf_model *m;
    const tf_run *r;           // NULL while there is no trace (a model failed to load)
    const char *model_name;    // for the status line
    const char *load_error;    // shown in place of the view when there is no trace
    const lesson *lesson;      // the lesson beside each stage, or NULL (built-in captions)
    const glossary *gloss;     // every language's glossary (hovering a term shows the others)
    int n_gloss;
} app_world;

#define APP_MAX_TEXTS 96

// A lesson block as the panel drew it, for hit testing the mouse against its words.
typedef struct {
    double x, y;               // where it was drawn, in the panel's unscrolled coordinates
    int sec, blk;              // section and block of the lesson (indices: checked before use)
    render_text_style style;   // as drawn (without its marks)
} app_text_box;

// Where the last frame put things (filled by app_draw).
typedef struct {
    app_rect view;             // the stage view (before zoom)
    app_rect nav;              // the architecture navigator
    app_rect src_box, tgt_box; // the sentence fields
    app_rect prev_btn, next_btn;
    app_rect panel;            // the text panel, and the height of what it holds
    double panel_content_h;
    app_text_box texts[APP_MAX_TEXTS]; // the lesson blocks in the panel
    int n_texts;
    int rtl;                   // the layout was mirrored for a right-to-left interface
    render_arch_box boxes[APP_MAX_BOXES];
    int n_boxes;
} app_layout;

// Options the renderer should use for the state (theme, text scale, selection).
render_opts app_render_opts(const app_state *s);
// Draws the whole window of w × h units (points; the caller scales for HiDPI).
void app_draw(cairo_t *cr, const app_state *s, const app_world *wd, double w, double h, app_layout *lay);
// The glossary of the state's language, or NULL.
const glossary *app_glossary(const app_state *s, const app_world *wd);
// The lesson text beside the current stage as the panel shows it (values read,
// conditions applied, answers hidden): plain text, blocks joined by " | ".
void app_panel_text(const app_state *s, const app_world *wd, char *out, size_t n);
// The glossary key of the lesson word under window point (x, y) in the text panel, or NULL.
const char *app_panel_term(const app_state *s, const app_world *wd, const app_layout *lay, double x, double y);
// The cell of the stage view under window point (x, y), honouring zoom and pan; 0 if there is one.
int app_view_hit(const app_state *s, const app_world *wd, const app_layout *lay, double x, double y, int *row, int *col);

#endif
