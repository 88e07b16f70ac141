// state.c — the window's view state and every change input makes to it.
#include "state.h"
#include "draw.h"

#include "../lesson/i18n.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void app_state_init(app_state *s, const char *src, const char *tgt) {
    memset(s, 0, sizeof *s);
    s->zoom = 1;
    s->hover_row = s->hover_col = s->pin_row = s->pin_col = -1;
    s->time_step = -1;
    snprintf(s->src, sizeof s->src, "%s", src);
    snprintf(s->tgt, sizeof s->tgt, "%s", tgt ? tgt : "");
    snprintf(s->lang, sizeof s->lang, "en");
    s->beam_k = 4;    // the paper's §6.1
    s->alpha = 0.6;
}

void app_state_message(app_state *s, int error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    s->message_is_error = error;
}

static void set_stage(app_state *s, const tf_trace *t, int i) {
    if (i < 0) i = 0;
    if (i >= t->n) i = t->n - 1;
    if (i != s->stage) { s->pin_row = s->pin_col = -1; s->zoom = 1; s->pan_x = s->pan_y = 0; s->panel_scroll = 0; }
    s->stage = i;
    snprintf(s->stage_id, sizeof s->stage_id, "%s", t->stages[i].id);
    int steps = tf_stage_time_steps(t, i); // a recurrent model's time step stays where it is, within the new stage's rows
    if (steps > 0 && s->time_step >= steps) s->time_step = steps - 1;
}

// [ ]: a recurrent model's time steps, within the stage's rows.
static void time_step(app_state *s, const tf_trace *t, int d) {
    int steps = tf_stage_time_steps(t, s->stage);
    if (steps <= 0) { app_state_message(s, 0, "%s", _("this stage's rows are not time steps; [ ] step through them in the gates, c, h and attention")); return; }
    int next = s->time_step < 0 ? (d > 0 ? 0 : steps - 1) : s->time_step + d;
    if (next < 0 || next >= steps) { app_state_message(s, 0, "%s", next < 0 ? _("this is the first time step") : _("this is the last time step")); return; }
    s->time_step = next;
}

void app_state_attach(app_state *s, const tf_trace *t) {
    int i = s->stage_id[0] ? tf_trace_find(t, s->stage_id) : 0;
    if (i < 0) i = s->stage < t->n ? s->stage : t->n - 1; // e.g. a layer that no longer exists
    // the same stage again (another snapshot, another sentence): the pinned cell and the zoom stay where they fit
    int pr = s->pin_row, pc = s->pin_col;
    double z = s->zoom, px = s->pan_x, py = s->pan_y;
    int same = i == s->stage && s->stage_id[0] && !strcmp(t->stages[i].id, s->stage_id);
    s->stage = -1;
    set_stage(s, t, i);
    if (same) {
        if (pr >= 0 && pc >= 0 && pr < t->stages[i].rows && pc < t->stages[i].cols) { s->pin_row = pr; s->pin_col = pc; }
        s->zoom = z; s->pan_x = px; s->pan_y = py;
    }
}

void app_state_snapshots(app_state *s, int n, int at) {
    s->n_snaps = n > 0 ? n : 0;
    s->snap = at < 0 || at >= n ? n - 1 : at;
    if (s->snap < 0) s->snap = 0;
    s->timeline = n > 0;
}

// , and . step through the training snapshots (the bar appears); T shows or
// hides it (hidden: the model itself again).
static app_do snap_key(app_state *s, app_key k) {
    if (!s->n_snaps) { app_state_message(s, 0, "%s", _("this model has no training snapshots beside it (a folder MODEL.snapshots)")); return APP_DO_NOTHING; }
    if (k == APP_KEY_TIMELINE) {
        s->timeline = !s->timeline;
        if (!s->timeline && s->snap != s->n_snaps - 1) { s->snap = s->n_snaps - 1; return APP_DO_SNAPSHOT; }
        return APP_DO_NOTHING;
    }
    s->timeline = 1;
    int to = s->snap + (k == APP_KEY_SNAP_NEXT ? 1 : -1);
    if (to < 0 || to >= s->n_snaps) {
        app_state_message(s, 0, "%s", to < 0 ? _("this is the first snapshot") : _("this is the last point of training"));
        return APP_DO_NOTHING;
    }
    s->snap = to;
    return APP_DO_SNAPSHOT;
}

int app_state_goto(app_state *s, const tf_trace *t, const char *id) {
    int i = tf_trace_find(t, id);
    if (i < 0) return -1;
    set_stage(s, t, i);
    return 0;
}

static void layer_step(app_state *s, const tf_trace *t, int d) {
    const tf_stage *st = &t->stages[s->stage];
    if (st->layer < 0) { app_state_message(s, 0, _("%s is not inside a layer; ↑ ↓ move between layers"), st->id); return; }
    int i = tf_stage_other_layer(t, s->stage, st->layer + d);
    if (i < 0) app_state_message(s, 0, "%s", d > 0 ? _("this is the last layer") : _("this is the first layer"));
    else set_stage(s, t, i);
}

static void head_go(app_state *s, const tf_trace *t, int h) {
    int i = tf_stage_other_head(t, s->stage, h);
    if (i < 0) { app_state_message(s, 0, _("there is no head %d here"), h + 1); return; }
    s->all_heads = 0;
    set_stage(s, t, i);
}

static void jump_attention(app_state *s, const tf_trace *t, tf_side side, tf_sublayer sub) {
    int i = tf_stage_attention(t, s->stage, side, sub);
    if (i >= 0) set_stage(s, t, i);
}

// V: attention as lines, at this stage's attention weights (from another
// stage of a head: that head's weights); V again: back.
static void lines_key(app_state *s, const tf_trace *t) {
    s->hover_row = s->hover_col = -1; // (the picture under the mouse changes)
    if (s->mode == APP_MODE_LINES) { s->mode = APP_MODE_AUTO; return; }
    int i = s->stage;
    if (!render_lines_fit(&t->stages[i])) i = t->stages[i].head >= 0 ? tf_stage_with_op(t, i, TF_OP_WEIGHTS) : -1;
    if (i < 0) { app_state_message(s, 0, "%s", _("V draws attention weights as lines; go to an attention stage first (N, D or C)")); return; }
    set_stage(s, t, i);
    s->mode = APP_MODE_LINES;
}

// K: the output's most likely next tokens (from anywhere: the output probabilities).
static void topk_key(app_state *s, const tf_trace *t) {
    s->hover_row = s->hover_col = -1; // (the picture under the mouse changes)
    if (s->mode == APP_MODE_TOPK) { s->mode = APP_MODE_AUTO; return; }
    if (t->stages[s->stage].col_axis != TF_AXIS_VOCAB) {
        int k = -1;
        for (int i = t->n - 1; i >= 0 && k < 0; i--) if (t->stages[i].op == TF_OP_PROBS) k = i;
        if (k < 0) { app_state_message(s, 0, "%s", _("this model has no output probabilities")); return; }
        set_stage(s, t, k);
    }
    s->mode = APP_MODE_TOPK;
}

// B: beam search instead of greedy decoding (the output probabilities show
// the beam's tree), and back.
static app_do beam_key(app_state *s, const tf_trace *t) {
    s->hover_row = s->hover_col = -1;
    if (s->beam) {
        s->beam = 0;
        if (s->mode == APP_MODE_BEAM) s->mode = APP_MODE_AUTO;
        app_state_message(s, 0, "%s", _("greedy decoding"));
        return APP_DO_RERUN;
    }
    if (s->tgt[0]) { app_state_message(s, 0, "%s", _("B searches for the target itself; clear the typed target first (Shift+Tab, empty, Enter)")); return APP_DO_NOTHING; }
    int k = -1;
    for (int i = t->n - 1; i >= 0 && k < 0; i--) if (t->stages[i].op == TF_OP_PROBS) k = i;
    if (k < 0) { app_state_message(s, 0, "%s", _("this model has no output probabilities")); return APP_DO_NOTHING; }
    set_stage(s, t, k);
    s->beam = 1;
    s->decode_step = 0;
    s->mode = APP_MODE_BEAM;
    app_state_message(s, 0, _("beam search: beam size %d, length penalty α = %g"), s->beam_k, s->alpha);
    return APP_DO_RERUN;
}

// G: every layer and head of this attention.
static void grid_key(app_state *s, const tf_trace *t) {
    s->hover_row = s->hover_col = -1; // (the picture under the mouse changes)
    if (s->mode == APP_MODE_GRID) { s->mode = APP_MODE_AUTO; return; }
    if (t->stages[s->stage].head < 0) { app_state_message(s, 0, "%s", _("G shows every layer and head of an attention stage; go to one first (N, D or C)")); return; }
    s->mode = APP_MODE_GRID;
}

static void begin_edit(app_state *s, int field) {
    s->editing = field;
    snprintf(s->edit, sizeof s->edit, "%s", field == 1 ? s->src : s->tgt);
    s->cursor = (int)strlen(s->edit);
}

// ---------------------------------------------------------------- what if?
app_do app_state_toggle_part(app_state *s, int part) {
    if (part < 0 || part >= TF_WITHOUT_PARTS) return APP_DO_NOTHING;
    int bit = 1 << part;
    s->whatif_focus = part;
    if (s->trained_without & bit) {
        app_state_message(s, 0, _("this model was trained without %s: it stays off"), _(render_part_name(NULL, part)));
        return APP_DO_NOTHING;
    }
    s->without ^= bit;
    if (!((s->without | s->trained_without) & TF_WITHOUT_ALL)) s->compare = 0; // nothing left to compare with
    app_state_message(s, 0, s->without & bit ? _("what if: without %s") : _("%s is back"), _(render_part_name(NULL, part)));
    return APP_DO_RERUN;
}

// Keys while the what-if panel is open: 1-4 switch a part, ↑ ↓ move the
// focus, Enter switches it, W and Esc close the panel. -1: not one of them.
static int whatif_key(app_state *s, app_key k, app_do *d) {
    *d = APP_DO_NOTHING;
    if (k >= APP_KEY_HEAD_1 && k < APP_KEY_HEAD_1 + TF_WITHOUT_PARTS) { *d = app_state_toggle_part(s, k - APP_KEY_HEAD_1); return 0; }
    switch (k) {
    case APP_KEY_LAYER_UP: s->whatif_focus = (s->whatif_focus + TF_WITHOUT_PARTS - 1) % TF_WITHOUT_PARTS; return 0;
    case APP_KEY_LAYER_DOWN: s->whatif_focus = (s->whatif_focus + 1) % TF_WITHOUT_PARTS; return 0;
    case APP_KEY_ENTER: *d = app_state_toggle_part(s, s->whatif_focus); return 0;
    case APP_KEY_ESCAPE: case APP_KEY_WHATIF: s->whatif = 0; return 0;
    default: return -1;
    }
}

app_do app_state_key(app_state *s, const tf_trace *t, app_key k) {
    if (!t || t->n == 0) return k == APP_KEY_QUIT ? APP_DO_QUIT : APP_DO_NOTHING;
    if (s->help && k != APP_KEY_QUIT && k != APP_KEY_FULLSCREEN) { s->help = 0; if (k == APP_KEY_HELP || k == APP_KEY_ESCAPE) return APP_DO_NOTHING; }
    s->message[0] = 0;
    s->term[0] = 0; // the panel may change under the mouse: the next move finds the word again
    app_do d;
    if (s->whatif && !whatif_key(s, k, &d)) return d;
    switch (k) {
    case APP_KEY_NEXT: set_stage(s, t, s->stage + 1); break;
    case APP_KEY_PREV: set_stage(s, t, s->stage - 1); break;
    case APP_KEY_FIRST: set_stage(s, t, 0); break;
    case APP_KEY_LAST: set_stage(s, t, t->n - 1); break;
    case APP_KEY_LAYER_UP: layer_step(s, t, +1); break;
    case APP_KEY_LAYER_DOWN: layer_step(s, t, -1); break;
    case APP_KEY_ALL_HEADS:
        if (t->stages[s->stage].head < 0) app_state_message(s, 0, "%s", _("0 shows every head of an attention stage; go to one first (N, D or C)"));
        else { s->all_heads = !s->all_heads; if (s->mode == APP_MODE_GRID) s->mode = APP_MODE_AUTO; }
        break;
    case APP_KEY_ENCODER: jump_attention(s, t, TF_SIDE_ENC, TF_SUB_SELF_ATTN); break;
    case APP_KEY_DECODER: jump_attention(s, t, TF_SIDE_DEC, TF_SUB_SELF_ATTN); break;
    case APP_KEY_CROSS: jump_attention(s, t, TF_SIDE_DEC, TF_SUB_CROSS_ATTN); break;
    case APP_KEY_STEP_BACK:
    case APP_KEY_STEP_FORWARD: {
        if (tf_stage_is_lstm(&t->stages[s->stage])) { time_step(s, t, k == APP_KEY_STEP_FORWARD ? 1 : -1); break; }
        if (s->tgt[0]) { app_state_message(s, 0, "%s", _("[ and ] step through greedy decoding; clear the target sentence (Shift+Tab) to decode")); break; }
        if (!s->decode_step) s->decode_full = t->T; // <bos> + every decoded token
        int cur = s->decode_step ? s->decode_step : s->decode_full;
        int next = cur + (k == APP_KEY_STEP_FORWARD ? 1 : -1);
        if (next < 1 || next > s->decode_full) {
            app_state_message(s, 0, "%s", next < 1 ? _("this is the first decoding step") : _("decoding is complete"));
            break;
        }
        s->decode_step = next == s->decode_full ? 0 : next;
        return APP_DO_RERUN;
    }
    case APP_KEY_ZOOM_IN: s->zoom = s->zoom * 1.25 > 32 ? 32 : s->zoom * 1.25; break;
    case APP_KEY_ZOOM_OUT: s->zoom = s->zoom / 1.25 < 1 ? 1 : s->zoom / 1.25; if (s->zoom == 1) s->pan_x = s->pan_y = 0; break;
    case APP_KEY_FIT: s->zoom = 1; s->pan_x = s->pan_y = 0; break;
    case APP_KEY_FULLSCREEN: s->fullscreen = !s->fullscreen; return APP_DO_FULLSCREEN;
    case APP_KEY_PRESENT: s->presentation = !s->presentation; break;
    case APP_KEY_CONTRAST: s->high_contrast = !s->high_contrast; break;
    case APP_KEY_HELP: s->help = 1; break;
    case APP_KEY_EDIT_SOURCE: begin_edit(s, 1); break;
    case APP_KEY_EDIT_TARGET: begin_edit(s, 2); break;
    case APP_KEY_EXPORT: return APP_DO_EXPORT;
    case APP_KEY_COPY_LINK: return APP_DO_COPY_LINK;
    case APP_KEY_LANGUAGE: return APP_DO_LANGUAGE;
    case APP_KEY_CHECK: s->check = (s->check + 1) % 3; s->panel_scroll = 0; break;
    case APP_KEY_ESCAPE:
        if (s->editing) s->editing = 0;
        else if (s->check) s->check = 0;
        else if (s->compare) s->compare = 0;
        else if (s->pin_row >= 0) s->pin_row = s->pin_col = -1;
        else if (s->zoom != 1) { s->zoom = 1; s->pan_x = s->pan_y = 0; }
        else if (s->mode != APP_MODE_AUTO) s->mode = APP_MODE_AUTO;
        break;
    case APP_KEY_QUIT: return APP_DO_QUIT;
    case APP_KEY_LINES: lines_key(s, t); break;
    case APP_KEY_TOPK: topk_key(s, t); break;
    case APP_KEY_GRID: grid_key(s, t); break;
    case APP_KEY_BEAM: return beam_key(s, t);
    case APP_KEY_SNAP_PREV: case APP_KEY_SNAP_NEXT: case APP_KEY_TIMELINE: return snap_key(s, k);
    case APP_KEY_SIDE_BY_SIDE: s->side_by_side = !s->side_by_side; return s->side_by_side ? APP_DO_PARTNER : APP_DO_NOTHING;
    case APP_KEY_WHATIF: s->whatif = 1; break;
    case APP_KEY_COMPARE:
        if (s->compare) { s->compare = 0; break; }
        if (!((s->without | s->trained_without) & TF_WITHOUT_ALL)) {
            app_state_message(s, 0, "%s", _("nothing is switched off to compare with: press W and switch a part off"));
            break;
        }
        s->compare = 1;
        return APP_DO_RERUN; // (the comparison run is made with the run)
    default:
        if (k >= APP_KEY_HEAD_1 && k <= APP_KEY_HEAD_8) head_go(s, t, k - APP_KEY_HEAD_1);
        break;
    }
    return APP_DO_NOTHING;
}

// ---------------------------------------------------------------- typing
void app_state_text(app_state *s, const char *utf8) {
    size_t n = strlen(utf8), len = strlen(s->edit);
    if (!s->editing || len + n + 1 > sizeof s->edit) return;
    memmove(s->edit + s->cursor + n, s->edit + s->cursor, len - (size_t)s->cursor + 1);
    memcpy(s->edit + s->cursor, utf8, n);
    s->cursor += (int)n;
}

static int is_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

void app_state_edit(app_state *s, const char *utf8, int cursor) {
    if (!s->editing) return;
    snprintf(s->edit, sizeof s->edit, "%s", utf8);
    int n = (int)strlen(s->edit);
    if (cursor < 0) cursor = 0;
    if (cursor > n) cursor = n;
    while (cursor > 0 && is_cont(s->edit[cursor])) cursor--; // (a cut character: before it)
    s->cursor = cursor;
}

void app_state_backspace(app_state *s) {
    if (!s->editing || s->cursor == 0) return;
    int start = s->cursor - 1;
    while (start > 0 && is_cont(s->edit[start])) start--;
    memmove(s->edit + start, s->edit + s->cursor, strlen(s->edit) - (size_t)s->cursor + 1);
    s->cursor = start;
}

void app_state_delete(app_state *s) {
    if (!s->editing || !s->edit[s->cursor]) return;
    int end = s->cursor + 1;
    while (s->edit[end] && is_cont(s->edit[end])) end++;
    memmove(s->edit + s->cursor, s->edit + end, strlen(s->edit) - (size_t)end + 1);
}

void app_state_cursor(app_state *s, int delta, int to_end) {
    if (!s->editing) return;
    int len = (int)strlen(s->edit);
    if (to_end) { s->cursor = delta < 0 ? 0 : len; return; }
    if (delta < 0 && s->cursor > 0) do s->cursor--; while (s->cursor > 0 && is_cont(s->edit[s->cursor]));
    if (delta > 0 && s->cursor < len) do s->cursor++; while (s->cursor < len && is_cont(s->edit[s->cursor]));
}

app_do app_state_commit(app_state *s) {
    if (!s->editing) return APP_DO_NOTHING;
    if (s->editing == 1) snprintf(s->src, sizeof s->src, "%s", s->edit);
    else snprintf(s->tgt, sizeof s->tgt, "%s", s->edit);
    s->editing = 0;
    s->decode_step = 0;
    return APP_DO_RERUN;
}

render_view app_state_view(const app_state *s, const tf_trace *t) {
    if (!t || s->stage < 0 || s->stage >= t->n) return RENDER_VIEW_ARCHITECTURE;
    const tf_stage *st = &t->stages[s->stage];
    if (s->side_by_side) return RENDER_VIEW_SIDE_BY_SIDE;
    if (s->compare && t->without) return RENDER_VIEW_COMPARE;
    if (s->mode == APP_MODE_GRID && st->head >= 0) return RENDER_VIEW_GRID;
    if (s->mode == APP_MODE_LINES && render_lines_fit(st)) return s->all_heads && st->head >= 0 ? RENDER_VIEW_LINES_HEADS : RENDER_VIEW_LINES;
    if (s->mode == APP_MODE_TOPK && st->col_axis == TF_AXIS_VOCAB) return RENDER_VIEW_TOPK;
    if (s->mode == APP_MODE_BEAM && st->side == TF_SIDE_OUT && t->beam) return RENDER_VIEW_BEAM;
    if (s->all_heads && st->head >= 0) return RENDER_VIEW_HEADS;
    return render_view_for(t, s->stage);
}

// ---------------------------------------------------------------- the pointer
static int in_rect(app_rect r, double x, double y) { return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h; }

static const tf_trace *trace_of(const app_world *wd) { return wd->r ? &wd->r->trace : NULL; }

static app_do click(app_state *s, const app_world *wd, const app_layout *lay, double x, double y) {
    const tf_trace *t = trace_of(wd);
    if (s->whatif && t && in_rect(lay->whatif_panel, x, y)) { // a click on a part's row switches it
        for (int k = 0; k < TF_WITHOUT_PARTS; k++)
            if (in_rect(lay->whatif_box[k], x, y)) return app_state_toggle_part(s, k);
        return APP_DO_NOTHING;
    }
    if (in_rect(lay->src_box, x, y)) return app_state_key(s, t, APP_KEY_EDIT_SOURCE);
    if (in_rect(lay->tgt_box, x, y)) return app_state_key(s, t, APP_KEY_EDIT_TARGET);
    if (!t) return APP_DO_NOTHING;
    if (in_rect(lay->prev_btn, x, y)) return app_state_key(s, t, APP_KEY_PREV);
    if (lay->n_snap_x && in_rect(lay->timeline, x, y)) { // the slider: the nearest point
        int best = 0;
        for (int i = 1; i < lay->n_snap_x && i < s->n_snaps; i++) if (fabs(lay->snap_x[i] - x) < fabs(lay->snap_x[best] - x)) best = i;
        if (best == s->snap) return APP_DO_NOTHING;
        s->snap = best;
        return APP_DO_SNAPSHOT;
    }
    if (in_rect(lay->next_btn, x, y)) return app_state_key(s, t, APP_KEY_NEXT);
    for (int i = 0; i < lay->n_boxes; i++) {
        const render_arch_box *b = &lay->boxes[i];
        if (x < b->x || y < b->y || x >= b->x + b->w || y >= b->y + b->h) continue;
        if (b->stage >= 0 || b->block == TF_BLOCK_NONE) { // a recurrent model's map: a cell is a stage and a time step
            if (b->stage >= 0 && b->stage < t->n) {
                set_stage(s, t, b->stage);
                if (b->step >= 0) s->time_step = b->step;
            }
            return APP_DO_NOTHING;
        }
        int k = tf_block_stage(t, s->stage, b->block); // in the layer being looked at, if on the same side
        if (k < 0) app_state_message(s, 0, _("this model has no %s"), b->label);
        else set_stage(s, t, k);
        return APP_DO_NOTHING;
    }
    int row, col;
    if (!app_view_hit(s, wd, lay, x, y, &row, &col) && row >= 0 && col >= 0) { // (a word of the lines view has no arithmetic)
        if (s->pin_row == row && s->pin_col == col) s->pin_row = s->pin_col = -1;
        else { s->pin_row = row; s->pin_col = col; }
    }
    return APP_DO_NOTHING;
}

app_do app_state_press(app_state *s, const app_world *wd, const app_layout *lay, double x, double y) {
    s->mouse_x = x;
    s->mouse_y = y;
    if (s->zoom > 1 && in_rect(lay->view, x, y)) { // a press in a zoomed view may start a drag: decide on release
        s->pressed = 1;
        s->dragging = 0;
        s->drag_x = x;
        s->drag_y = y;
        s->pan0_x = s->pan_x;
        s->pan0_y = s->pan_y;
        return APP_DO_NOTHING;
    }
    return click(s, wd, lay, x, y);
}

app_do app_state_release(app_state *s, const app_world *wd, const app_layout *lay, double x, double y) {
    if (!s->pressed) return APP_DO_NOTHING;
    int dragged = s->dragging;
    s->pressed = s->dragging = 0;
    return dragged ? APP_DO_NOTHING : click(s, wd, lay, x, y);
}

int app_state_motion(app_state *s, const app_world *wd, const app_layout *lay, double x, double y) {
    s->mouse_x = x;
    s->mouse_y = y;
    if (s->pressed && !s->dragging && fabs(x - s->drag_x) + fabs(y - s->drag_y) >= 4) s->dragging = 1;
    if (s->dragging) {
        s->pan_x = s->pan0_x + (x - s->drag_x);
        s->pan_y = s->pan0_y + (y - s->drag_y);
        return 1;
    }
    int changed = 0;
    const char *term = wd->r ? app_panel_term(s, wd, lay, x, y) : NULL;
    if (term || s->term[0]) { // the tooltip follows the mouse while it is over a glossary word
        snprintf(s->term, sizeof s->term, "%s", term ? term : "");
        s->term_x = x;
        s->term_y = y;
        changed = 1;
    }
    int row = -1, col = -1;
    app_view_hit(s, wd, lay, x, y, &row, &col);
    if (row != s->hover_row || col != s->hover_col) {
        s->hover_row = row;
        s->hover_col = col;
        changed = 1;
    }
    return changed;
}

int app_state_wheel(app_state *s, const app_world *wd, const app_layout *lay, double dy) {
    const tf_trace *t = trace_of(wd);
    if (!t || dy == 0) return 0;
    double mx = s->mouse_x, my = s->mouse_y;
    if (in_rect(lay->panel, mx, my)) { // the text panel scrolls, never past its ends
        double most = lay->panel_content_h - lay->panel.h;
        s->panel_scroll -= dy * 48;
        s->term[0] = 0;
        if (s->panel_scroll > most) s->panel_scroll = most;
        if (s->panel_scroll < 0) s->panel_scroll = 0;
        return 1;
    }
    double old = s->zoom;
    app_state_key(s, t, dy > 0 ? APP_KEY_ZOOM_IN : APP_KEY_ZOOM_OUT);
    // about the pointer: the point under it stays where it is
    double vx = mx - lay->view.x, vy = my - lay->view.y;
    if (s->zoom != 1) {
        s->pan_x = vx - (vx - s->pan_x) * s->zoom / old;
        s->pan_y = vy - (vy - s->pan_y) * s->zoom / old;
    }
    return 1;
}
