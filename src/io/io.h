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
} io_run;

// The comparison of a run with parts switched off (the compare view, trace
// --compare): c->cmp, the model with every part on, on c->r's tokens.
// Returns 0, or 1 after printing the error.
int io_run_compare(io_run *c);

// --without LIST (every command that runs the model): the parts to switch
// off, as bits. Returns 0, or 1 after printing "tviz: --without: …".
int io_parse_without(const char *list, int *bits);

// A command's own options: returns 1 if argv[*i] was one (advancing *i past
// its value), 0 if not, -1 after printing an error.
typedef int (*io_extra_opt)(void *ctx, int argc, char **argv, int *i);

// Parses --model/--src/--tgt/--without (and the IO_OPT_* options allowed, and whatever
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

// Draws and encodes a picture: PNG through stb_image_write, SVG and PDF
// through cairo. *out is malloc'd. Returns 0, or -1 when out of memory or cairo fails.
int io_draw(const io_picture *p, unsigned char **out, size_t *n);
// Encodes an image surface (premultiplied ARGB32) as PNG with stb_image_write.
int io_png_surface(cairo_surface_t *sf, unsigned char **out, size_t *n);

#endif
