// session.h — the window's world without a window: the model and its run,
// the model compared side by side, the what-if comparison, the lessons and
// glossaries, the training timeline, and carrying out what a key or a click
// asks of them (app_do). No SDL and no browser here: the desktop window
// (app.c) and the browser (src/web) each own one session and turn their
// events into app_state_* calls on session->s, then app_session_do.
#ifndef APP_SESSION_H
#define APP_SESSION_H

#include "link.h"
#include "state.h"

typedef struct {
    app_state s;
    app_layout lay;             // where the last frame put things (app_draw fills it)
    tf_model m;                 // the model opened
    tf_run r;                   // its run on the state's sentences
    int have_model, have_run;
    tf_model m2;                // R: the model compared side by side, and its run on the same sentence
    tf_run r2;
    int have_m2, have_r2;
    tf_run cmp;                 // the compare view: r's tokens with every part on
    int have_cmp;
    char model_path[4096], model_name[256], load_error[700];
    char given_model[4096];     // the model as the user named it (--model, a link): what the view's link says
    lesson lesson;              // lessons/<lang>/inside-transformer.md (rnn-or-transformer.md for a recurrent model)
    int have_lesson;
    lesson whatif;              // lessons/<lang>/what-if.md: beside the stages it explains while parts are off (or W is open)
    int have_whatif;
    glossary gloss[8];          // every language's glossary, for the hover tooltip
    int n_gloss;
    io_timeline tl;             // the model's training snapshots (tl.n 0: none)
    char *snap_says;            // what the snapshot shown translates by itself
    int dirty;                  // the picture must be drawn again
    int quit;
    app_link opened;            // the last link opened; its pan waits for a frame when pan_later
    int pan_later;
} app_session;

// Takes over a loaded model and its run on src/tgt (the run's sentences),
// named path (the file) and name (as the user gave it): the state starts on
// them. Reads the glossaries; the lesson comes with app_session_lesson.
// Opens the model's training snapshots when timeline is 1 (the browser
// fetches them only when asked: app_session_timeline later).
void app_session_open(app_session *a, tf_model *m, tf_run *r, const char *path, const char *src, const char *tgt, int without,
                      int timeline);
void app_session_free(app_session *a);

// The model shown: the snapshot of the timeline the state is at, or the model itself.
const tf_model *app_session_model(const app_session *a);
// What draw.c and the state's pointer functions read.
void app_session_world(const app_session *a, app_world *w);

// Opens the training snapshots beside the model (the timeline); the state
// stays on the model itself. Returns 0, or 1 after a message.
int app_session_timeline(app_session *a);
// Runs the model on the state's sentences. On failure the previous run and
// sentences (old_src, old_tgt when not NULL) stay, and the error goes to the
// status line. Returns 0 or -1.
int app_session_rerun(app_session *a, const char *old_src, const char *old_tgt);
// R: the other kind of model (a recurrent model beside the Transformer, or
// the Transformer beside a recurrent model), run on the same sentences. The
// name of the model it would open: app_session_partner_name.
void app_session_partner(app_session *a);
const char *app_session_partner_name(const app_session *a);
// The lesson of a language (and its what-if lesson); the interface follows.
// Returns 0, or -1 with the reason in err (a file and line, in English).
int app_session_lesson(app_session *a, const char *lang, char *err, size_t n);
// L: the next language that has lessons, in alphabetical order.
void app_session_next_language(app_session *a);
// Carries out what input asked (rerun, partner, language, quit); returns
// the rest, which only the window can do (APP_DO_EXPORT, APP_DO_FULLSCREEN, APP_DO_COPY_LINK),
// with APP_DO_LANGUAGE kept when the language changed (a window title follows).
app_do app_session_do(app_session *a, app_do d, const char *old_src, const char *old_tgt);

// ---------------------------------------------------------------- links (link.h)
// The model as the view's link names it: a shipped model by its name (also
// when it was given as a path to that file), any other as it was given.
const char *app_session_link_model(const app_session *a, char *buf, size_t n);
// The link of what is shown (without '#'), into out; "" when it does not fit.
void app_session_link(const app_session *a, char *out, size_t n);
// 1 if lang has lessons; known gets the languages that have ("ar, en, fa").
int app_session_has_lessons(const char *lang, char *known, size_t n);
// Opens link l on the session: m, when not NULL, is the model l names,
// loaded by the caller from path (given: as the link names it), taken over
// on success and left to the caller on failure; NULL keeps the model. Its
// sentences and parts switched off are run, its language's lessons loaded,
// its stage and view shown (link.h). All of it is checked before the session
// changes: on failure it shows what it showed, and why says what is wrong;
// 0 on success. (Side by side loads the model beside after: when that is
// missing the rest of the view is open, and why says so, with -1.) A link's
// pan waits for a frame when the view's size is not known yet (pan_later):
// app_session_pan then.
int app_session_open_link(app_session *a, const app_link *l, tf_model *m, const char *path, const char *given, int timeline, char *why,
                          size_t n);
void app_session_pan(app_session *a);

// The picture Ctrl+S saves: the current view at its default size, and a file
// name for it ("tviz-<stage>[-heads|-compare].png", without a folder).
void app_session_export(const app_session *a, io_picture *p, char *name, size_t n);

#endif
