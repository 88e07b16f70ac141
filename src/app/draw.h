// draw.h — the window's picture, drawn from the view state onto any cairo
// context (no SDL): navigator, stage view, text panel, sentence bar, status
// line, help overlay. Also where things are, for mouse input.
#ifndef APP_DRAW_H
#define APP_DRAW_H

#include "state.h"

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
