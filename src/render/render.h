// render.h — draws the Trace onto any cairo context: a stage as a matrix or
// an attention heatmap, all heads of a layer, the PE figures, the
// architecture diagram, the arithmetic behind one cell. Knows nothing of SDL
// or files: the window and the exporter hand it a cairo_t and a size.
//
// Every draw function paints the whole rectangle (0,0)-(w,h) in user units
// (the caller scales for HiDPI or export), reads the trace and never changes it.
#ifndef RENDER_H
#define RENDER_H

#include <cairo.h>

#include "../model/tf.h"

// ---------------------------------------------------------------- colour maps (colormap.c)
typedef struct { double r, g, b; } render_rgb;

typedef enum {
    RENDER_CMAP_VIRIDIS,  // sequential, perceptually uniform, colour-blind safe (probabilities)
    RENDER_CMAP_CIVIDIS,  // sequential, designed for colour-vision deficiency
    RENDER_CMAP_RDBU,     // diverging blue - white - red (ColorBrewer RdBu, reversed), centred on 0
    RENDER_CMAP_PUOR,     // diverging purple - white - orange (ColorBrewer PuOr)
    RENDER_CMAP_GRAY,     // sequential white to black, for printed handouts
    RENDER_CMAP_COUNT
} render_cmap;

render_rgb render_cmap_at(render_cmap m, double t);        // t in [0,1] (clamped)
int render_cmap_is_diverging(render_cmap m);
const char *render_cmap_name(render_cmap m);
int render_cmap_parse(const char *name, render_cmap *out); // 0, or -1 for an unknown name
const char *render_cmap_names(void);                       // "viridis, cividis, rdbu, puor, gray"

// ---------------------------------------------------------------- options and theme
typedef struct {
    render_rgb bg, fg, muted, grid, accent, panel, mask_a, mask_b;
} render_theme;

typedef struct {
    double text_scale;          // 1 normal; 1.5 and up for a projector
    int high_contrast;          // black background, white text, thicker lines
    int cmap_set;               // 1 when cmap below was chosen by the user
    render_cmap cmap;           // otherwise: viridis for probabilities, rdbu for signed values
    int cell_row, cell_col;     // a selected cell (arithmetic card, highlight); -1 for none
    int pe_positions, pe_dims;  // PE figures: 0 = defaults (50 positions, max(d_model, 128) dims)
    int pe_curve_dims[8];       // PE curves: dimensions to plot; n_curve_dims 0 = defaults
    int n_curve_dims;
    const char *(*translate)(const char *msgid); // interface words (gettext in the chosen language); NULL: English as written
    int rtl;                    // a right-to-left language: titles and captions start at the right (matrices keep their orientation)
    int focus_row, focus_col;   // lines view: the word under the mouse, an attending word (row) or an attended one (col); -1 none
    int top_k;                  // top-k view: tokens a row (0: 5)
    int typed_target;           // 1 when the target sentence was typed (top-k marks its tokens), 0 when decoded
    const struct render_compare *compare; // the compare-length view's measurements (NULL: none)
    int time_step;              // a recurrent model: the time step (row) being looked at, lit in the matrix and the map; -1 none
    const tf_trace *beside;     // the side-by-side view: the same sentence through another model (its trace and model)
    const tf_model *beside_model;
    // what if? (the compare view): the same run with every part switched on
    // (tf_run_compare), beside the trace drawn, whose parts are off; NULL: none
    const tf_trace *with_all;
    // the loss view: the models whose training curves are drawn together and
    // their names; n_models 0: the model drawn (render_draw's m) alone
    const tf_model *const *models;
    const char *const *model_names;
    int n_models;
    int beam_steps;             // the beam view: the decoding steps shown (0: all; the animation grows them)
} render_opts;

void render_opts_default(render_opts *o);
// An interface word in the language of o (o->translate), or as written.
// `make pot` finds render_tr(o, "…") and N_("…").
const char *render_tr(const render_opts *o, const char *msgid) __attribute__((format_arg(2)));
// A row's or column's label as drawn: tf_axis_label's, with "layer 2" in the
// picture's language.
const char *render_axis_label(const tf_trace *t, tf_axis axis, int i, const render_opts *o, char *buf, size_t n);
#ifndef N_
#define N_(s) (s)
#endif
render_theme render_theme_get(const render_opts *o);
void render_set_rgb(cairo_t *cr, render_rgb c);

// ---------------------------------------------------------------- text (text.c), all through pango
enum { RENDER_ALIGN_LEFT, RENDER_ALIGN_CENTER, RENDER_ALIGN_RIGHT };

typedef struct {
    double size;       // font size in user units (pixels at scale 1)
    int bold, italic, mono;
    int align;         // RENDER_ALIGN_*: where x is, for one-line text; the paragraph alignment with a width
    double width;      // > 0: wrap to this width (and align within it); 0: one line, no wrap
    double max_width;  // > 0 with width 0: ellipsize a single line to this width
    double angle;      // rotation in radians about (x, y), e.g. -M_PI/4 for slanted column labels
    int dir;           // paragraph direction: RENDER_DIR_AUTO (from the first strong letter), _LTR or _RTL
    render_rgb color;
    const int *marks;  // n_marks [start, end) byte ranges of the (markup-free) text to underline, e.g. glossary words
    int n_marks;
    render_rgb mark_color;
} render_text_style;

enum { RENDER_DIR_AUTO, RENDER_DIR_LTR, RENDER_DIR_RTL };

render_text_style render_style(double size, render_rgb color);
// Draws UTF-8 text with its top-left at (x, y) (adjusted by align). Any script:
// Arabic and Persian are shaped and laid out right-to-left by pango; the base
// direction comes from the text. Returns the height used.
double render_text(cairo_t *cr, const char *utf8, double x, double y, const render_text_style *s);
// Measures text as render_text would draw it (width, height of the ink box's layout).
void render_text_size(cairo_t *cr, const char *utf8, const render_text_style *s, double *w, double *h);
// The x offset of the caret before byte index i of a one-line text, as pango
// places it (right for right-to-left runs).
double render_text_caret(cairo_t *cr, const char *utf8, const render_text_style *s, int i);
// Pango markup (<b>, <i>, <sub>, <sup>, <span …>) instead of plain text.
double render_markup(cairo_t *cr, const char *markup, double x, double y, const render_text_style *s);
// Plain text as pango markup (&, < and > escaped) into out (n bytes, always
// terminated); a text that does not fit is cut before a whole character.
// Returns the bytes written.
size_t render_markup_escape(char *out, size_t n, const char *text);
void render_markup_size(cairo_t *cr, const char *markup, const render_text_style *s, double *w, double *h);
// The text of markup without its tags (what byte indices below refer to), in buf; 0, or -1 if it does not parse.
int render_markup_plain(const char *markup, char *buf, size_t n);
// Hit testing: the byte index in the markup's plain text of the character at
// (x, y), relative to where render_markup would draw it at (0, 0); -1 if the
// point is outside the text.
int render_markup_index(cairo_t *cr, const char *markup, const render_text_style *s, double x, double y);
// The lines a wrapped paragraph is laid out in: where each starts (a byte
// index in the plain text) and how far it reaches past the paragraph's width
// (0 if it stays inside; in pixels), at most max of each. Returns the number of lines.
int render_markup_lines(cairo_t *cr, const char *markup, const render_text_style *s, int *starts, double *over, int max);

// Formats a number for a cell: "0.842", "-12.3", "−∞". buf at least 16 bytes.
const char *render_format_value(float v, char *buf, size_t n, int digits);

// ---------------------------------------------------------------- live values of a lesson (lessonval.c)
// What {{expr}} and [if COND] of a lesson read (lessons/README.md).
typedef struct {
    const tf_trace *t;
    const tf_model *m;
    const char *model;  // the model's name (render_model_name)
    int stage;          // the stage the text is beside ("this"), -1 for none
    int greedy;         // 1 when the model decoded the target itself
} render_lesson_ctx;
// Writes expr's value into out and returns 0; or -1 with the reason in out.
// ctx is a render_lesson_ctx (the shape of lesson_value_fn).
int render_lesson_value(void *ctx, const char *expr, char *out, size_t n);
// 1 if COND holds, 0 if not, -1 (the reason in out) if it is not a condition.
int render_lesson_cond(const render_lesson_ctx *c, const char *cond, char *out, size_t n);
// "assets/models/en-fa.safetensors" -> "en-fa".
const char *render_model_name(const char *path, char *buf, size_t n);

// ---------------------------------------------------------------- views
typedef enum {
    RENDER_VIEW_AUTO,          // heatmap for attention stages, matrix for the rest
    RENDER_VIEW_MATRIX,        // tokens × dimensions, numbers in cells when they fit
    RENDER_VIEW_HEATMAP,       // attention: queries × keys, colour bar
    RENDER_VIEW_HEADS,         // all heads of the stage's attention layer, small multiples
    RENDER_VIEW_GRID,          // all layers × heads of the stage's kind (enc self / dec self / cross)
    RENDER_VIEW_PE_HEATMAP,    // positions × dimensions of the sinusoidal encoding
    RENDER_VIEW_PE_CURVES,     // PE of chosen dimensions against position
    RENDER_VIEW_PE_SIMILARITY, // PE(i)·PE(j) between positions
    RENDER_VIEW_ARCHITECTURE,  // Figure 1 of the paper, the current stage highlighted
    RENDER_VIEW_ARITHMETIC,    // how one cell's value is computed, with its numbers
    RENDER_VIEW_LINES,         // attention as lines between the words, opacity = weight, one head
    RENDER_VIEW_LINES_HEADS,   // the same, every head of the layer in its own colour
    RENDER_VIEW_TOPK,          // logits / probabilities: each row's k most likely tokens as bars
    RENDER_VIEW_COMPARE_LENGTH, // models' held-out exact match by source length, side by side (o->compare)
    RENDER_VIEW_SIDE_BY_SIDE,  // the same sentence through the Transformer and a recurrent model (o->beside)
    RENDER_VIEW_COMPARE,       // what if? the stage with every part, with parts switched off, their difference (o->with_all)
    RENDER_VIEW_LOSS,          // training loss (and held-out accuracy) of one or more models, from their files
    RENDER_VIEW_BEAM,          // beam search as a tree over the decoding steps (t->beam; an output stage)
    RENDER_VIEW_COUNT
} render_view;

const char *render_view_name(render_view v);
int render_view_parse(const char *name, render_view *out); // 0, or -1
const char *render_view_names(void);
// The view AUTO stands for at a stage.
render_view render_view_for(const tf_trace *t, int stage);
// 0 when view can show stage (e.g. heads needs an attention stage), else -1
// with a one-line reason in why (what is wrong; what to do).
int render_view_check(const tf_trace *t, int stage, render_view v, const render_opts *o, char *why, size_t n);

// Draws view v of stage (an index into t->stages; figures that need no stage
// accept -1) into the rectangle (0,0)-(w,h).
void render_draw(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, render_view v,
                 const render_opts *o, double w, double h);

// A good default size for a view at a stage (pixels at scale 1), for export.
void render_default_size(const tf_trace *t, int stage, render_view v, double *w, double *h);

// ---------------------------------------------------------------- the pieces (one file each)
// matrix.c
void render_matrix(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h);
void render_heads(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h);
void render_grid(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h);
// Where a cell of the last matrix/heatmap drawn at this size sits, for hit
// testing in the window: fills the cell under (x, y); 0 if there is one.
int render_matrix_hit(const tf_trace *t, int stage, const render_opts *o, double w, double h, double x, double y,
                      int *row, int *col);
// The rectangle {x, y, w, h} of cell (row, col) as render_matrix draws it at this size; 0 if it exists.
int render_matrix_cell_rect(const tf_trace *t, int stage, const render_opts *o, double w, double h, int row, int col,
                            double rect[4]);
// The title line of a stage: "Encoder layer 1 · Self-attention · Head 2 — Attention weights".
void render_stage_title(const tf_trace *t, int stage, const render_opts *o, char *buf, size_t n);
// What a stage's rows (cols 0) or columns (cols 1) are: "queries: target words", "target vocabulary".
const char *render_axis_caption(const tf_stage *s, int cols, const render_opts *o);
// A heading line at the top of a view from the start side of the language
// (the right for Persian and Arabic), ellipsized within the pads; returns its height.
double render_heading(cairo_t *cr, const char *text, double pad, double y, double w, const render_opts *o, render_text_style *st);

// The same stage at several points of training, side by side with one
// colour scale (a matrix or heatmap; any other view v is drawn whole in each
// box): traces[k] and its stage stage_of[k], captioned captions[k] ("step 350").
void render_strip(cairo_t *cr, const tf_trace *const *traces, const int *stage_of, int n, const char *const *captions, render_view v,
                  const render_opts *o, double w, double h);

// pe.c
void render_pe_heatmap(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h);
void render_pe_curves(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h);
void render_pe_similarity(cairo_t *cr, const tf_model *m, const render_opts *o, double w, double h);

// arch.c
typedef struct {
    double x, y, w, h;          // the block's box in the rectangle the diagram was drawn in
    tf_block block;             // the block of Figure 1 it is (tf_block_stage finds its stage)
    const char *label;
    int stage, step;            // a recurrent model's map: the stage a cell goes to (-1: use block) and its time step (-1: none)
} render_arch_box;
// Draws Figure 1 with the block of stage highlighted; fills up to max boxes
// (may be NULL) for navigation and returns how many there are.
// For a recurrent model it draws render_unrolled instead.
int render_architecture(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o,
                        double w, double h, render_arch_box *boxes, int max);
// unrolled.c: a recurrent model's map, the network unrolled in time (one cell
// per time step and layer; time runs down, as the rows of its matrices), the
// stage's column and o->time_step's cell lit, attention as arcs. Boxes carry
// the stage and time step a click goes to.
int render_unrolled(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o, double w, double h,
                    render_arch_box *boxes, int max);

// arith.c
// The arithmetic behind cell (row, col) of stage as plain UTF-8 lines, the
// same content the card draws (the window's pinned panel uses them too):
// e.g. for an attention weight the q·k terms, ÷ √d_k, the softmax numerator
// and denominator, the result. Returns the number of lines (at most max).
int render_arith_lines(const tf_trace *t, const tf_model *m, int stage, int row, int col, const render_opts *o, char lines[][200], int max);
void render_arithmetic(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o,
                       double w, double h);

// lines.c: attention weights (any stage of probabilities between two token
// axes: self- and cross-attention, a recurrent model's attention) as lines
// from the attended words (left) to the attending ones (right).
void render_lines(cairo_t *cr, const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h);
// The word of the lines view under (x, y): an attending word (*row, *col -1)
// or an attended one (*col, *row -1); 0 if there is one.
int render_lines_hit(const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h, double x, double y,
                     int *row, int *col);
// Where the lines of word i end: an attending word (right 1) or an attended one (right 0); 0 if it exists.
int render_lines_anchor(const tf_trace *t, int stage, int all_heads, const render_opts *o, double w, double h, int right, int i, double *x,
                        double *y);
// 1 when render_lines can draw stage (probabilities between two token axes).
int render_lines_fit(const tf_stage *s);

// topk.c: each row's k most likely tokens (o->top_k, default 5) of a stage
// over the target vocabulary, as labelled bars of their probabilities.
void render_topk(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h);
// beam.c: the beam search that chose the target (t->beam) as a tree over the
// decoding steps: each candidate's token and log P, the kept bold, the pruned
// faded, the ended with their score, the chosen translation outlined.
void render_beam(cairo_t *cr, const tf_trace *t, const render_opts *o, double w, double h);
// ---------------------------------------------------------------- models compared (compare.c)
#define RENDER_COMPARE_MAX 8     // models in one comparison
#define RENDER_COMPARE_BUCKETS 6 // source lengths: 1-5, 6-10, 11-15, 16-20, 21-30, 31+
typedef struct render_compare {
    int n_models;
    char name[RENDER_COMPARE_MAX][64];  // "en-fa" (render_model_name)
    char kind[RENDER_COMPARE_MAX][128]; // "Transformer, 2+2 layers" (render_model_kind)
    int n_buckets;
    char bucket[RENDER_COMPARE_BUCKETS][16];                    // "1-5"
    int pairs[RENDER_COMPARE_BUCKETS];                          // sentence pairs in each (the same for every model)
    double exact[RENDER_COMPARE_MAX][RENDER_COMPARE_BUCKETS];   // exact match, 0-1; < 0 for a bucket without pairs
    double tokens[RENDER_COMPARE_MAX][RENDER_COMPARE_BUCKETS];  // token accuracy, 0-1; < 0 for a bucket without pairs
    double exact_all[RENDER_COMPARE_MAX], tokens_all[RENDER_COMPARE_MAX];
    char file[128];                     // the held-out file's name (no folder)
    int total;                          // its pairs
} render_compare;
// Exact match against source length, one line per model, with a legend and
// the number of pairs of each length.
void render_compare_length(cairo_t *cr, const render_compare *c, const render_opts *o, double w, double h);
// What kind of model m is, in o's language: "Transformer: d_model 128, 4 heads,
// 2+2 layers" or "LSTM, no attention, source reversed: hidden 256, 2+2 layers".
void render_model_kind(const tf_model *m, const render_opts *o, char *buf, size_t n);

// side.c: the sentence of t (model m) beside the same sentence through
// o->beside (o->beside_model), the Transformer on the left: its sharpest
// cross-attention head, the RNN's attention weights, or v for an LSTM without
// attention; each with what the model wrote.
void render_side_by_side(cairo_t *cr, const tf_trace *t, const tf_model *m, const render_opts *o, double w, double h);
// ---------------------------------------------------------------- what if? (matrix.c, render.c)
// "positional encoding, the causal mask": the parts switched off (TF_WITHOUT_*
// bits) in the language of o. Returns buf.
const char *render_without_text(const render_opts *o, int without, char *buf, size_t n);
// The name of one part (0..3: pe, scale, mask, residual), translated.
const char *render_part_name(const render_opts *o, int part);
// The rows of a probability stage (attention weights, output probabilities):
// how many are one-hot (their largest value ≥ 0.99), and their mean entropy
// in bits (−Σ p log₂ p; 0 for one-hot, log₂ n for uniform).
void render_prob_rows(const tf_stage *s, int *one_hot, double *mean_entropy);
// The compare view: stage of t (parts off) beside the same stage of o->with_all
// (every part on) and their difference, with each row's entropy for
// probabilities.
void render_whatif_compare(cairo_t *cr, const tf_trace *t, int stage, const render_opts *o, double w, double h);

// ---------------------------------------------------------------- training (plot.c)
// The loss of each step (n), and optionally the held-out exact match (0–1) at
// some steps (n_acc dots on a right-hand axis).
void render_loss_curve(cairo_t *cr, const float *loss, int n, const float *acc, const int *acc_step, int n_acc,
                       const render_opts *o, double w, double h);
// The loss view: the curves the model files keep (loss_curve, heldout_curve)
// of n models side by side on one pair of axes, one colour each, named.
void render_loss_compare(cairo_t *cr, const tf_model *const *models, const char *const *names, int n, const render_opts *o,
                         double w, double h);

// Shapes the diagrams share: a rounded box's path (to fill or stroke), and a
// line from (x0,y0) to (x1,y1) with a filled head of length head at its end.
typedef struct { double x, y, w, h; } render_rect;
void render_rounded(cairo_t *cr, render_rect r, double rad);
void render_arrow(cairo_t *cr, double x0, double y0, double x1, double y1, double head);

#endif
