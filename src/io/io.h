// io.h — what the window (src/app) and the commands (src/cli) share: the
// options every command takes, finding the model, drawing a view into PNG,
// SVG or PDF bytes, writing a file safely, and the one-line error.
#ifndef IO_H
#define IO_H

#include <stddef.h>

#include "../model/tf.h"
#include "../render/render.h"

#define IO_DEFAULT_MODEL "en-fa"
#define IO_DEFAULT_SENTENCE "I really enjoy learning transformers"

// One line on stderr: "tviz: <where>: <what is wrong; what to do>". Returns 1.
int io_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Options: "--name VALUE" or "--name=VALUE". Returns 1 and sets *val when
// argv[*i] is that option (advancing *i), 0 if not, -1 (after printing the
// error) when its value is missing.
int io_opt(int argc, char **argv, int *i, const char *name, const char *alias, const char **val);

// Writes data to path through path.tmp and a rename, so a failure leaves no
// half-written file. "-" is stdout. Returns 0, or 1 after printing the error.
int io_write_file(const char *path, const char *data, size_t len);
// A file beside a model: "dir/name.safetensors" + suffix -> "dir/name" + suffix
// (a path without .safetensors keeps all of its name). tviz train writes its
// snapshots (".snapshots"), state, loss curve and held-out set there.
void io_beside(char *buf, size_t n, const char *model_path, const char *suffix);

// ---------------------------------------------------------------- models and data (data.h finds the folders)
// "worked-example" -> <models>/worked-example.safetensors; paths stay as
// they are. Writes the resolved path into out: open it, but show the user
// the name they gave. Returns 0, or 1 after printing the error.
int io_resolve_model(const char *name, char *out, size_t n);
int io_load_model(tf_model *m, const char *name, char *path, size_t n); // resolve + load, prints errors
// "not found (where it looked); set TVIZ_DATA_DIR or reinstall": the lessons' folder is missing.
const char *io_no_lessons(void);

// ---------------------------------------------------------------- the options every command shares
enum { IO_OPT_OUT = 1, IO_OPT_WALK = 2, IO_OPT_LANG = 4 }; // -o; --stage and --no-pause; --lang
#define IO_MAX_MODELS 8   // --model given more than once (the loss view compares them)

typedef struct {
    const char *model, *src, *tgt, *out, *stage;
    const char *lang;     // --lang, else from the environment (en, fa, ar…)
    int lang_given;       // 1 when --lang named it
    int no_pause;
    char path[4096];      // the model file resolved
    tf_model m;
    tf_run r;
    int without;          // --without: TF_WITHOUT_* parts switched off (besides those the model was trained without)
    const char *models[IO_MAX_MODELS]; // every --model given, in order (model, the one run, is the last)
    int n_models;
    tf_run cmp;           // io_run_compare: the same input with every part on
    int has_cmp;
    int beam;             // --beam K (0: greedy decoding)
    double alpha;         // --alpha, the length penalty of beam search (IO_DEFAULT_ALPHA)
} io_run;

// The comparison of a run with parts switched off (the compare view, trace
// --compare): c->cmp, the model with every part on, on c->r's tokens.
// Returns 0, or 1 after printing the error.
int io_run_compare(io_run *c);

// --without LIST (every command that runs the model): the parts to switch
// off, as bits. Returns 0, or 1 after printing "tviz: --without: …".
int io_parse_without(const char *list, int *bits);

// --beam K and --alpha A (beam search, tf.h): returns 1 if argv[*i] was one
// of them (advancing *i; *beam 0 stays greedy decoding), 0 if not, -1 after
// printing the error (a beam under 1, an α that is negative or not a number).
#define IO_DEFAULT_ALPHA 0.6 // the paper's §6.1
int io_beam_opt(int argc, char **argv, int *i, int *beam, double *alpha);
// A beam too wide for m's vocabulary: 1 after printing the error, else 0.
int io_beam_check(const tf_model *m, int beam, double alpha);

// A command's own options: returns 1 if argv[*i] was one (advancing *i past
// its value), 0 if not, -1 after printing an error.
typedef int (*io_extra_opt)(void *ctx, int argc, char **argv, int *i);

// Parses --model/--src/--tgt/--without/--beam/--alpha (and the IO_OPT_* options allowed, and whatever
// extra takes), loads the model and runs it. Returns 0, 1 after an error, or
// 2 after --help.
int io_run_start(io_run *c, int argc, char **argv, const char *cmd, const char *help, int allow, io_extra_opt extra, void *ctx);
void io_run_end(io_run *c);

// ---------------------------------------------------------------- pictures
// A growing byte buffer; io_membuf_sink is a cairo write function into it
// (for SVG and PDF surfaces). failed is set when memory runs out.
typedef struct { unsigned char *p; size_t n, cap; int failed; } io_membuf;
void io_membuf_append(io_membuf *b, const void *data, size_t len);
cairo_status_t io_membuf_sink(void *closure, const unsigned char *data, unsigned int len);

typedef enum { IO_PNG, IO_SVG, IO_PDF } io_format;

// One view of one stage as a picture: w × h units; a PNG has scale pixels per unit.
typedef struct {
    const tf_trace *t;
    const tf_model *m;
    int stage;
    render_view view;
    render_opts opts;
    double w, h, scale;
    io_format fmt;
} io_picture;

// Draws and encodes a picture: PNG through stb_image_write (io_png_surface), SVG and PDF
// through cairo. *out is malloc'd. Returns 0, or -1 when out of memory or cairo fails.
int io_draw(const io_picture *p, unsigned char **out, size_t *n);
// Any drawing as a picture: fn draws w × h units on cr (a PNG has scale
// pixels per unit). *out is malloc'd. Returns 0, or -1.
typedef void (*io_draw_fn)(cairo_t *cr, void *ctx, double w, double h);
int io_draw_with(io_format fmt, double w, double h, double scale, io_draw_fn fn, void *ctx, unsigned char **out, size_t *n);
// Encodes an ARGB32 image surface as PNG (io_png_encode, png.h). Returns 0, or -1.
int io_png_surface(cairo_surface_t *sf, unsigned char **out, size_t *n);

// ---------------------------------------------------------------- animated GIF (gif.c, giflib)
// Frames of w × h pixels (image surfaces of that size), each shown delay_ms,
// looping. begin returns NULL when out of memory; frame and end return 0 or
// -1; end hands over the file's bytes (malloc'd) and frees g either way.
typedef struct io_gif io_gif;
io_gif *io_gif_begin(int w, int h, int delay_ms);
int io_gif_frame(io_gif *g, cairo_surface_t *frame);
int io_gif_end(io_gif *g, unsigned char **out, size_t *n);
void io_gif_free(io_gif *g); // (without end: nothing written)

// ---------------------------------------------------------------- training snapshots (timeline.c)
// A model's training as points in time: the snapshots tviz train wrote
// beside it (<model>.snapshots/step-NNNNNN.safetensors; at most 63, spread
// evenly), oldest first, and the model itself last (in place of a snapshot
// at its own step).
typedef struct {
    int n;                  // points (0: no snapshots)
    tf_model *m;            // (n) the snapshots (m[self] unused)
    int *step;              // (n) training step of each
    float *loss, *exact;    // (n) the loss and the held-out exact match at that step (NaN when the file does not say)
    int self;               // the point that is the model itself, or -1
    const tf_model *main;   // the model itself (not owned)
    char dir[4200];         // the snapshots' folder (for messages)
} io_timeline;

// Finds and loads the snapshots of the model at model_path (self, already
// loaded). Returns 0 (tl->n 0 when there are none), or 1 after printing the
// error (a snapshot that does not load or belongs to another model).
int io_timeline_open(io_timeline *tl, const char *model_path, const tf_model *self);
const tf_model *io_timeline_model(const io_timeline *tl, int i); // point i's model (out of range: the model itself)
void io_timeline_free(io_timeline *tl);
// Runs point i on a sentence so that every point shows the same tokens: on
// tgt when given, else on the model itself's greedy translation (up to
// decode_step tokens when it is not 0). *says (when not NULL) gets what a
// snapshot itself translates (malloc'd; NULL for the model itself).
// What if? Parts switched off (TF_WITHOUT_*) in every snapshot too (each keeps what it was trained without).
void io_timeline_set_without(io_timeline *tl, int without);
int io_timeline_run(tf_run *r, const io_timeline *tl, int i, const char *src, const char *tgt, int decode_step, char **says, tf_err *e);

#endif
