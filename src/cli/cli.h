// cli.h — tviz's subcommands. Each returns the process exit status. What
// they share with the window (options, errors, pictures, files) is src/io.
#ifndef CLI_H
#define CLI_H

#include <stddef.h>

#include "../io/io.h"
#include "../train/corpus.h"

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
int cmd_eval(int argc, char **argv);

// An option's value as a number from lo to hi (cli_number) or a whole one
// (cli_whole). Returns 0, or 1 after printing "tviz: OPT: "S" is not a …".
int cli_number(const char *opt, const char *s, double lo, double hi, double *out);
int cli_whole(const char *opt, const char *s, long lo, long hi, long *out);

// Draws in language lang (en, fa, ar…): o's words through gettext, right to
// left where the language is.
void cli_language(render_opts *o, const char *lang);
// Tells src/lesson where the lessons and the translations are (found by
// src/io/data.h); main calls it once, before any command or the window.
void cli_find_data(void);


// A lesson as a handout: PDF (one file) or PNG pages (a folder), with each
// section's stage drawn from run c. Returns the exit status.
int cli_handout(const io_run *c, const char *lesson, const char *lang, io_format fmt, const char *out);

// Training snapshots (timeline_export.c): the model's timeline, or 1 after
// printing that it has none; every point run on c's sentence (runs: tl->n);
// a point's caption ("step 350 · loss 4.12 · 12%"); and `export --timeline`:
// stage at every point, side by side, as proto's format and view.
int cli_timeline_open(const io_run *c, io_timeline *tl);
int cli_timeline_runs(const io_run *c, const io_timeline *tl, tf_run *runs);
void cli_timeline_caption(const io_timeline *tl, int k, const render_opts *o, char *buf, size_t n);
int cli_export_timeline(const io_run *c, const io_picture *proto, const char *stage, const char *out);

// `export --animate decoding|timeline|stages` (animate.c): an animated GIF
// of stage (for stages: the first of the walk, to the stage to, default 8
// stages), delay ms a frame ("800" when NULL), size "WxH" (NULL: 800x600).
int cli_export_animation(const io_run *c, const io_picture *proto, const char *mode, const char *stage, const char *to, const char *delay,
                         const char *size, const char *out);

// `export --slides` (slides.c): a 16:9 PDF deck, a page a stage: its title,
// its picture and the first lines of the lesson in lang, proto's options.
int cli_export_slides(const io_run *c, const char *lang, const render_opts *proto, const char *out);

// The corpus word lists in dir (NULL: the shipped assets/corpus), or NULL
// after printing "tviz: FILE:LINE: what is wrong; what to do" (corpus_cmd.c).
struct tf_lexicon *cli_lexicon(const char *dir);

// The held-out file the shipped models are measured on (<models>/en-fa.heldout.tsv)
// into buf, or NULL when there is no models folder.
const char *cli_default_heldout(char *buf, size_t n);
// Reads a corpus file (source<TAB>target per line); on a bad line, says
// which (tviz: FILE:LINE: ...) and returns 1.
int cli_load_corpus(tf_corpus *c, const char *path);
// Measures each of models (names or paths, n of them) on the corpus file with
// greedy decoding (tf_eval_corpus): exact match and token accuracy by source
// length into out, the models' kinds in o's language. outputs (n entries, or
// NULL) get each model's translations (malloc'd arrays of malloc'd strings).
// Returns 0, or 1 after printing one line.
int cli_compare_models(const char *const *models, int n, const char *file, int threads, const render_opts *o, render_compare *out,
                       char **outputs[]);

// Builds the shipped worked example (d_model 4, the Persian slides' embeddings).
int cli_preset_worked_example(tf_model *m, tf_err *e);
int cli_preset_base(tf_model *m, unsigned long long seed, tf_err *e);

#endif
