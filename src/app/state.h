// state.h — what the window shows, as a plain struct. Input handling
// (app_state_key and friends) is the only thing that changes it; drawing
// only reads it. No SDL here, so it is tested on its own.
#ifndef APP_STATE_H
#define APP_STATE_H

#include "../io/io.h"
#include "../lesson/lesson.h"
#include "../model/tf.h"
#include "../render/render.h"

#define APP_TEXT_MAX 512

typedef enum {
    APP_KEY_NONE,
    APP_KEY_NEXT, APP_KEY_PREV,            // → Space / ← Backspace
    APP_KEY_FIRST, APP_KEY_LAST,           // Home / End
    APP_KEY_LAYER_UP, APP_KEY_LAYER_DOWN,  // ↑ PgUp / ↓ PgDn: the same stage one layer up / down
    APP_KEY_HEAD_1, APP_KEY_HEAD_2, APP_KEY_HEAD_3, APP_KEY_HEAD_4,
    APP_KEY_HEAD_5, APP_KEY_HEAD_6, APP_KEY_HEAD_7, APP_KEY_HEAD_8,
    APP_KEY_ALL_HEADS,                     // 0
    APP_KEY_ENCODER, APP_KEY_DECODER, APP_KEY_CROSS, // N D C: first self-attention of the encoder, decoder, cross-attention
    APP_KEY_STEP_BACK, APP_KEY_STEP_FORWARD,         // [ ]: greedy decoding one token less / more
    APP_KEY_ZOOM_IN, APP_KEY_ZOOM_OUT, APP_KEY_FIT,  // + - F
    APP_KEY_FULLSCREEN, APP_KEY_PRESENT, APP_KEY_CONTRAST, APP_KEY_HELP, // F11 P H ?
    APP_KEY_EDIT_SOURCE, APP_KEY_EDIT_TARGET,        // Tab / Shift+Tab: type a sentence
    APP_KEY_EXPORT,                                   // Ctrl+S / E
    APP_KEY_LANGUAGE,                                 // L: the next language
    APP_KEY_CHECK,                                    // Q: self-check questions, then their answers, then back
    APP_KEY_ESCAPE, APP_KEY_QUIT,                     // Esc, Ctrl+Q
    APP_KEY_LINES,                                    // V: attention as lines (0 with it: every head)
    APP_KEY_TOPK,                                     // K: the output's most likely next tokens
    APP_KEY_GRID,                                     // G: every layer and head of the attention
    APP_KEY_SNAP_PREV, APP_KEY_SNAP_NEXT,             // , .: the previous / next training snapshot
    APP_KEY_TIMELINE,                                 // T: the training timeline shown or hidden
    APP_KEY_SIDE_BY_SIDE,                             // R: the same sentence through the Transformer and a recurrent model
    APP_KEY_WHATIF,                                   // W: the what-if panel (parts of the Transformer switched off)
    APP_KEY_COMPARE,                                  // X: the stage with and without the parts switched off
    APP_KEY_ENTER,                                    // Enter (not typing): the what-if panel's part in focus on / off
    APP_KEY_COPY_LINK,                                // Ctrl+C: the link of the view (link.h) to the clipboard
    APP_KEY_BEAM,                                     // B: beam search instead of greedy decoding, and back
} app_key;

// A way of drawing the stage that stays chosen while stepping (V, K, G),
// shown where it applies; elsewhere the stage's own view.
typedef enum { APP_MODE_AUTO, APP_MODE_LINES, APP_MODE_TOPK, APP_MODE_GRID, APP_MODE_BEAM } app_mode;

// What a key asks of the program beyond the state: rerun the model, export,
// toggle fullscreen. app.c carries these out.
typedef enum { APP_DO_NOTHING = 0, APP_DO_RERUN = 1, APP_DO_EXPORT = 2, APP_DO_FULLSCREEN = 4, APP_DO_QUIT = 8, APP_DO_LANGUAGE = 16,
               APP_DO_SNAPSHOT = 32, /* run the sentence on the snapshot s->snap */
               APP_DO_PARTNER = 64, /* load and run the model compared side by side */
               APP_DO_COPY_LINK = 128 /* copy the view's link (link.h) */ } app_do;

typedef struct {
    int stage;                 // index into the trace
    char stage_id[80];         // kept across reruns: the view stays on the same stage
    int all_heads;             // show every head of an attention stage side by side
    double zoom, pan_x, pan_y; // of the central view; zoom 1 = fit
    int hover_row, hover_col;  // the cell under the mouse, -1 if none
    int pin_row, pin_col;      // the cell whose arithmetic is pinned, -1 if none
    int presentation;          // larger type
    int high_contrast;
    int fullscreen;
    int help;                  // the keyboard help overlay
    int editing;               // 0, or 1 / 2 while typing the source / target sentence
    char edit[APP_TEXT_MAX];   // the text being typed
    int cursor;                // byte offset in edit
    char src[APP_TEXT_MAX];    // the sentences the trace was made from
    char tgt[APP_TEXT_MAX];    // "" = greedy decoding
    int decode_step;           // greedy decoding: decoder input tokens shown, <bos> included (0 = all)
    int decode_full;           // tokens of the complete greedy decoding
    char lang[16];             // the lessons' language (en, fa, ar, …)
    double panel_scroll;       // how far the text panel is scrolled down
    int check;                 // the lesson's self-check in the panel: 0 no, 1 questions, 2 with answers
    char term[48];             // the glossary key of the lesson word under the mouse ("" none): its tooltip
    double term_x, term_y;     // where the mouse is, for the tooltip
    char message[300];         // a line for the status bar (errors, "saved to …")
    int message_is_error;
    app_mode mode;             // lines, top-k or grid (V, K, G), or the stage's own view
    // watching it learn: the model's training snapshots (io_timeline's points)
    int n_snaps;               // points of the timeline (0: the model has no snapshots)
    int snap;                  // the point shown (n_snaps - 1: the last, usually the model itself)
    int timeline;              // the timeline bar is shown (T)
    // the pointer
    double mouse_x, mouse_y;   // where it is, in window points
    int pressed, dragging;     // left button held in the zoomed view; moved far enough to pan
    double drag_x, drag_y, pan0_x, pan0_y; // where the press was, and the pan then
    // a recurrent model
    int time_step;             // the time step (row) looked at, lit in the matrix and the map; -1 none ([ ] move it)
    int side_by_side;          // R: the sentence through the Transformer and a recurrent model
    // what if? (W, X)
    int whatif;                // the what-if panel is open: 1-4 or a click switch a part, ↑ ↓ and Enter too
    int whatif_focus;          // its part in focus (0..3: pe, scale, mask, residual)
    int without;               // TF_WITHOUT_* parts switched off (the run is without these and trained_without)
    int trained_without;       // the parts the model was trained without: shown off, and stay off
    int compare;               // the compare view: with every part, without, the difference
    // decoding (B): beam search of width beam_k and length penalty alpha instead of greedy
    int beam;                  // 1: the run decodes with beam search (its output stages show the beam's tree)
    int beam_k;                // beam size (the paper's 4 unless --beam said otherwise)
    double alpha;              // length penalty (0.6)
} app_state;

#define APP_MAX_BOXES 256 // (a recurrent model's map: a box per cell)

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
    const io_timeline *tl;     // the model's training snapshots, or NULL
    const char *snap_says;     // what the snapshot shown translates by itself, or NULL
    const tf_model *m2;        // the model compared side by side (R), or NULL
    const tf_run *r2;          // its run on the same sentence, or NULL
    const tf_run *cmp;         // the compare view: the same tokens with every part on, or NULL
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
    app_rect timeline;         // the timeline bar (w 0 when hidden)
    double snap_x[64];         // where each point of the timeline is on its slider
    int n_snap_x;
    app_rect whatif_panel;     // the what-if panel, when open
    app_rect whatif_box[TF_WITHOUT_PARTS]; // its rows: one checkbox and name per part
} app_layout;

void app_state_init(app_state *s, const char *src, const char *tgt);
// After a (re)run: find the remembered stage in the new trace (or the nearest).
void app_state_attach(app_state *s, const tf_trace *t);
app_do app_state_key(app_state *s, const tf_trace *t, app_key k);
// Text input while editing: insert UTF-8 at the cursor / move / delete.
void app_state_text(app_state *s, const char *utf8);
void app_state_backspace(app_state *s);
void app_state_delete(app_state *s);
void app_state_cursor(app_state *s, int delta, int to_end); // ±1 code point, or to an end
// The whole text being typed, with the cursor at byte cursor, as a text box
// of the platform's holds it (the browser's: any keyboard, input method or paste).
void app_state_edit(app_state *s, const char *utf8, int cursor);
app_do app_state_commit(app_state *s); // Enter while editing: the new sentence
// The model has n training snapshots (io_timeline's points), the one shown
// is at: the timeline bar appears (n 0: no timeline).
void app_state_snapshots(app_state *s, int n, int at);
// Jump to a stage by id (the navigator's blocks); 0 if it exists.
int app_state_goto(app_state *s, const tf_trace *t, const char *id);
void app_state_message(app_state *s, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// The view the centre panel shows for the current state.
render_view app_state_view(const app_state *s, const tf_trace *t);
// What if? Switches part (0..3: pe, scale, mask, residual) off, or on again;
// a part the model was trained without stays off (a message says so).
// Returns APP_DO_RERUN when the run must change; the view stays on its stage.
app_do app_state_toggle_part(app_state *s, int part);

// Pointer input, in window points, against where the last frame put things
// (lay). A click on a sentence starts typing it, on a button steps, on a
// block of the navigator goes to its stage (in the layer being looked at),
// on a cell pins its arithmetic (again: unpins). In a zoomed view a press
// and a move pan instead. Each returns what it asks of the program.
app_do app_state_press(app_state *s, const app_world *wd, const app_layout *lay, double x, double y);
app_do app_state_release(app_state *s, const app_world *wd, const app_layout *lay, double x, double y);
// The pointer moved: pans while dragging, else hovers a cell and a glossary
// word of the panel. Returns 1 when the picture changes.
int app_state_motion(app_state *s, const app_world *wd, const app_layout *lay, double x, double y);
// The wheel (dy > 0: up): scrolls the text panel under the pointer, else
// zooms the view about the pointer. Returns 1 when the picture changes.
int app_state_wheel(app_state *s, const app_world *wd, const app_layout *lay, double dy);

#endif
