// cli.h — tviz's subcommands. Each returns the process exit status.
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "../model/tf.h"
#include "../render/render.h"

#define CLI_DEFAULT_MODEL "en-fa"
#define CLI_DEFAULT_SENTENCE "I really enjoy learning transformers"

int cli_main(int argc, char **argv);  // argv[1] is the subcommand
int cli_is_command(const char *arg);  // 1 if arg names a subcommand or --help/--version

int cmd_trace(int argc, char **argv);
int cmd_walk(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_lesson(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_translate(int argc, char **argv);
int cmd_icon(int argc, char **argv);  // tviz's icon, drawn by itself (icon.c)

// One line on stderr: "tviz: <where>: <what is wrong; what to do>". Returns 1.
int cli_error(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Options: "--name VALUE" or "--name=VALUE". Returns 1 and sets *val when
// argv[*i] is that option (advancing *i), 0 if not, -1 (after printing the
// error) when its value is missing.
int cli_opt(int argc, char **argv, int *i, const char *name, const char *alias, const char **val);
// An option's value as a number from lo to hi (cli_number) or a whole one
// (cli_whole). Returns 0, or 1 after printing "tviz: OPT: "S" is not a …".
int cli_number(const char *opt, const char *s, double lo, double hi, double *out);
int cli_whole(const char *opt, const char *s, long lo, long hi, long *out);

// "worked-example" -> <models>/worked-example.safetensors (src/io/data.h);
// paths stay as they are. Writes the resolved path into out: open it, but
// show the user the name they gave. Returns 0, or 1 after printing the error.
int cli_resolve_model(const char *name, char *out, size_t n);
int cli_load_model(tf_model *m, const char *name, char *path, size_t n); // resolve + load, prints errors
// Tells src/lesson where the lessons and the translations are (found by
// src/io/data.h); main calls it once, before any command or the window.
void cli_find_data(void);
// "not found (where it looked); set TVIZ_DATA_DIR or reinstall": the lessons' folder is missing.
const char *cli_no_lessons(void);

// Writes data to path through path.tmp and a rename, so a failure leaves no
// half-written file. "-" is stdout. Returns 0, or 1 after printing the error.
int cli_write_file(const char *path, const char *data, size_t len);

// The options trace and walk share, and the run they ask for.
typedef struct {
    const char *model, *src, *tgt, *out, *stage;
    int no_pause;
    char path[4096];      // the model file resolved
    tf_model m;
    tf_run r;
} cli_run;

// A command's own options: returns 1 if argv[*i] was one (advancing *i past
// its value), 0 if not, -1 after printing an error.
typedef int (*cli_extra_opt)(void *ctx, int argc, char **argv, int *i);

// Parses --model/--src/--tgt (and -o, --stage, --no-pause where allowed, and
// whatever extra takes), loads the model and runs it. Returns 0, 1 after an
// error, or 2 after --help.
int cli_run_start(cli_run *c, int argc, char **argv, const char *cmd, const char *help, int allow_out, int allow_walk,
                  cli_extra_opt extra, void *ctx);
void cli_run_end(cli_run *c);

// Trace JSON (DESIGN.md "Trace JSON"). Returns a malloc'd string or NULL.
char *cli_trace_json(const tf_model *m, const tf_run *r);

// A growing byte buffer; cli_membuf_sink is a cairo write function into it
// (for SVG and PDF surfaces). failed is set when memory runs out.
typedef struct { unsigned char *p; size_t n, cap; int failed; } cli_membuf;
void cli_membuf_append(cli_membuf *b, const void *data, size_t len);
cairo_status_t cli_membuf_sink(void *closure, const unsigned char *data, unsigned int len);

// Draws view v of stage (w × h units; a PNG has scale pixels per unit) and
// encodes it: PNG through stb_image_write, SVG and PDF through cairo.
// *out is malloc'd. Returns 0, or -1 when out of memory or cairo fails.
typedef enum { CLI_PNG, CLI_SVG, CLI_PDF } cli_format;
int cli_render(const tf_trace *t, const tf_model *m, int stage, render_view v, const render_opts *o, double w, double h,
               double scale, cli_format f, unsigned char **out, size_t *n);

// Encodes an image surface (premultiplied ARGB32) as PNG with stb_image_write.
int cli_png_surface(cairo_surface_t *sf, unsigned char **out, size_t *n);

// A lesson as a handout: PDF (one file) or PNG pages (a folder), with each
// section's stage drawn from run c. Returns the exit status.
int cli_handout(const cli_run *c, const char *lesson, const char *lang, cli_format fmt, const char *out);

// Builds the shipped worked example (d_model 4, the Persian slides' embeddings).
int cli_preset_worked_example(tf_model *m, tf_err *e);
int cli_preset_base(tf_model *m, unsigned long long seed, tf_err *e);

#endif
