// session.c — the window's world without a window (session.h): models,
// runs, lessons, glossaries, timeline, and what input asks of them.
#include "session.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../io/data.h"
#include "../lesson/i18n.h"
#include "draw.h"

const tf_model *app_session_model(const app_session *a) {
    return a->tl.n && a->s.n_snaps ? io_timeline_model(&a->tl, a->s.snap) : &a->m;
}

// What if? The lesson "What if?" takes the panel beside the stages it has a
// section for while the what-if panel is open, a part is off (or was in
// training), the model is pre-LN, or the comparison is shown.
static int whatif_lesson(const app_session *a) {
    if (!a->have_whatif || !a->have_run) return 0;
    int active = a->s.whatif || a->s.without || a->s.trained_without || a->s.compare || (a->have_model && a->m.cfg.norm_first);
    return active && lesson_for_stage(&a->whatif, a->r.trace.stages[a->s.stage].id) != NULL;
}

void app_session_world(const app_session *a, app_world *w) {
    w->m = a->have_model ? app_session_model(a) : NULL;
    w->tl = a->tl.n ? &a->tl : NULL;
    w->snap_says = a->snap_says;
    w->r = a->have_run ? &a->r : NULL;
    w->model_name = a->model_name;
    w->load_error = a->load_error;
    w->lesson = whatif_lesson(a) ? &a->whatif : a->have_lesson ? &a->lesson : NULL;
    w->gloss = a->gloss;
    w->n_gloss = a->n_gloss;
    w->m2 = a->have_m2 ? &a->m2 : NULL;
    w->r2 = a->have_r2 ? &a->r2 : NULL;
    w->cmp = a->have_cmp ? &a->cmp : NULL;
}

const char *app_session_partner_name(const app_session *a) {
    return a->have_model && a->m.cfg.arch == TF_ARCH_LSTM ? "en-fa" : "rnn-attn-en-fa";
}

void app_session_partner(app_session *a) {
    if (!a->have_model) return;
    if (!a->have_m2) {
        const char *name = app_session_partner_name(a);
        char path[4096], why[300];
        if (io_shipped_model(name, path, sizeof path)) {
            snprintf(why, sizeof why, _("no model %s to compare with (it ships in the models folder)"), name);
            app_state_message(&a->s, 1, "%s", why);
            a->s.side_by_side = 0;
            return;
        }
        tf_err e;
        if (tf_model_load(&a->m2, path, &e)) { app_state_message(&a->s, 1, "%s: %s", name, e.msg); a->s.side_by_side = 0; return; }
        a->have_m2 = 1;
    }
    tf_run r;
    tf_err e;
    if (tf_run_sentence(&r, &a->m2, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, &e)) {
        app_state_message(&a->s, 1, "%s", e.msg);
        a->s.side_by_side = 0;
        return;
    }
    if (a->have_r2) tf_run_free(&a->r2);
    a->r2 = r;
    a->have_r2 = 1;
}

// The glossary of every language with lessons (lessons/<lang>/glossary.txt);
// a broken one is left out (tviz lesson check names its mistake).
static void load_glossaries(app_session *a) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    struct dirent *de;
    char path[4200], err[300];
    while (d && (de = readdir(d)) && a->n_gloss < (int)(sizeof a->gloss / sizeof *a->gloss)) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof a->gloss[0].lang) continue;
        snprintf(path, sizeof path, "%s/%s/glossary.txt", lesson_dir(), de->d_name);
        if (!access(path, R_OK) && !glossary_load(&a->gloss[a->n_gloss], path, de->d_name, err, sizeof err)) a->n_gloss++;
    }
    if (d) closedir(d);
}

int app_session_lesson(app_session *a, const char *language, char *err, size_t n) {
    char path[4200], why[512], lang[sizeof a->s.lang];
    snprintf(lang, sizeof lang, "%s", language); // (language may be a->s.lang itself, which this sets)
    if (!lesson_dir()) {
        snprintf(err, n, "lessons: %s", io_no_lessons());
        return -1;
    }
    // a recurrent model: the lesson that sets it beside the Transformer
    const char *name = a->have_model && a->m.cfg.arch == TF_ARCH_LSTM ? "rnn-or-transformer" : "inside-transformer";
    snprintf(path, sizeof path, "%s/%s/%s.md", lesson_dir(), lang, name);
    lesson l;
    if (lesson_load(&l, path, lang, why, sizeof why)) { // named as in the source tree, not where it was found
        snprintf(err, n, "lessons/%.30s/%s.md:%.500s", lang, name, why);
        return -1;
    }
    if (a->have_lesson) lesson_free(&a->lesson);
    a->lesson = l;
    a->have_lesson = 1;
    // and the what-if lesson of that language, when there is one (tviz lesson check names its mistakes)
    if (a->have_whatif) lesson_free(&a->whatif);
    snprintf(path, sizeof path, "%s/%s/what-if.md", lesson_dir(), lang);
    a->have_whatif = !access(path, R_OK) && !lesson_load(&a->whatif, path, lang, why, sizeof why);
    snprintf(a->s.lang, sizeof a->s.lang, "%s", lang);
    i18n_set_language(lang); // the interface's language follows the lesson's
    a->s.term[0] = 0;
    return 0;
}

void app_session_next_language(app_session *a) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    char best[16] = "", first[16] = "";
    struct dirent *de;
    char path[4200];
    struct stat st;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof best) continue;
        snprintf(path, sizeof path, "%s/%s/inside-transformer.md", lesson_dir(), de->d_name);
        if (stat(path, &st)) continue;
        if (!first[0] || strcmp(de->d_name, first) < 0) snprintf(first, sizeof first, "%.15s", de->d_name);
        if (strcmp(de->d_name, a->s.lang) > 0 && (!best[0] || strcmp(de->d_name, best) < 0)) snprintf(best, sizeof best, "%.15s", de->d_name);
    }
    if (d) closedir(d);
    const char *lang = best[0] ? best : first;
    char err[900];
    if (!lang[0]) app_state_message(&a->s, 1, "%s", _("no lessons found; set TVIZ_DATA_DIR or reinstall"));
    else if (app_session_lesson(a, lang, err, sizeof err)) { // the detail on stderr, in English as every error there; the window says it in the learner's words
        fprintf(stderr, "tviz: %s\n", err);
        app_state_message(&a->s, 1, _("the lessons of %s could not be read; tviz lesson check names the mistake"), lang);
    }
    else app_state_message(&a->s, 0, _("Language: %s"), lang);
}

int app_session_rerun(app_session *a, const char *old_src, const char *old_tgt) {
    tf_run r;
    tf_err e;
    char *says = NULL;
    a->m.cfg.without = a->m.cfg.trained_without | a->s.without; // what if? (W), also on the snapshots
    if (a->tl.n) io_timeline_set_without(&a->tl, a->s.without);
    const tf_model *shown = a->tl.n ? io_timeline_model(&a->tl, a->s.snap) : &a->m;
    int rc = a->s.beam && !a->s.tgt[0] ? tf_run_beam(&r, shown, a->s.src, a->s.beam_k, a->s.alpha, &e) // B
           : a->tl.n ? io_timeline_run(&r, &a->tl, a->s.snap, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, a->s.decode_step, &says, &e)
           : a->s.decode_step ? tf_run_greedy(&r, &a->m, a->s.src, a->s.decode_step, &e)
                              : tf_run_sentence(&r, &a->m, a->s.src, a->s.tgt[0] ? a->s.tgt : NULL, &e);
    if (rc) {
        if (old_src) snprintf(a->s.src, sizeof a->s.src, "%s", old_src);
        if (old_tgt) snprintf(a->s.tgt, sizeof a->s.tgt, "%s", old_tgt);
        app_state_message(&a->s, 1, "%s", e.msg);
        return -1;
    }
    if (a->have_run) tf_run_free(&a->r);
    a->r = r;
    a->have_run = 1;
    free(a->snap_says);
    a->snap_says = says;
    if (a->have_cmp) tf_run_free(&a->cmp);
    a->have_cmp = 0;
    if (a->s.compare && app_session_model(a)->cfg.without) { // the same tokens with every part on, for the compare view (X)
        if (tf_run_compare(&a->cmp, app_session_model(a), &a->r, &e)) app_state_message(&a->s, 1, "%s", e.msg);
        else a->have_cmp = 1;
    }
    app_state_attach(&a->s, &a->r.trace);
    if (a->r.n_src_unk + a->r.n_tgt_unk) app_state_message(&a->s, 0, "%s", _("unknown words are read as <unk> (see the panel)"));
    if (tf_model_needs_lang_token(app_session_model(a), a->s.src)) // a MarianMT model of several target languages
        app_state_message(&a->s, 0, "%s", _("this translator wants the target language first, such as >>ara<< (see vocab.json)"));
    if (a->s.side_by_side) app_session_partner(a);
    return 0;
}

app_do app_session_do(app_session *a, app_do d, const char *old_src, const char *old_tgt) {
    if (d & APP_DO_QUIT) a->quit = 1;
    if (d & (APP_DO_RERUN | APP_DO_SNAPSHOT)) app_session_rerun(a, old_src, old_tgt);
    if (d & APP_DO_PARTNER) app_session_partner(a);
    if (d & APP_DO_LANGUAGE) app_session_next_language(a);
    if (d != APP_DO_NOTHING) a->dirty = 1;
    return d & (APP_DO_EXPORT | APP_DO_FULLSCREEN | APP_DO_LANGUAGE | APP_DO_COPY_LINK);
}

int app_session_timeline(app_session *a) {
    if (a->tl.n) return 0;
    if (io_timeline_open(&a->tl, a->model_path, &a->m)) {
        app_state_message(&a->s, 1, "%s", _("the model's training snapshots could not be read (see the terminal)"));
        return 1;
    }
    app_state_snapshots(&a->s, a->tl.n, a->tl.n - 1);
    if (a->tl.n && a->tl.self != a->tl.n - 1) app_session_rerun(a, NULL, NULL); // (the last point is a snapshot: show it)
    return 0;
}

void app_session_open(app_session *a, tf_model *m, tf_run *r, const char *path, const char *src, const char *tgt, int without,
                      int timeline) {
    memset(a, 0, sizeof *a);
    a->m = *m;
    a->r = *r;
    a->have_model = a->have_run = 1;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(a->model_name, sizeof a->model_name, "%.200s", base ? base + 1 : path);
    app_state_init(&a->s, src, tgt);
    a->s.without = without;                      // --without: the run is already without them
    a->s.trained_without = m->cfg.trained_without;
    app_state_attach(&a->s, &a->r.trace);
    if (timeline) app_session_timeline(a);       // its training snapshots, when it has them: a timeline at its last point (the model itself)
    load_glossaries(a);
    if (a->r.n_src_unk + a->r.n_tgt_unk) app_state_message(&a->s, 0, "%s", _("unknown words are read as <unk> (see the panel)"));
    if (tf_model_needs_lang_token(app_session_model(a), a->s.src)) // a MarianMT model of several target languages
        app_state_message(&a->s, 0, "%s", _("this translator wants the target language first, such as >>ara<< (see vocab.json)"));
    a->dirty = 1;
}

void app_session_free(app_session *a) {
    if (a->have_cmp) tf_run_free(&a->cmp);
    if (a->have_run) tf_run_free(&a->r);
    io_timeline_free(&a->tl);
    free(a->snap_says);
    if (a->have_model) tf_model_free(&a->m);
    if (a->have_r2) tf_run_free(&a->r2);
    if (a->have_m2) tf_model_free(&a->m2);
    if (a->have_lesson) lesson_free(&a->lesson);
    if (a->have_whatif) lesson_free(&a->whatif);
    for (int i = 0; i < a->n_gloss; i++) glossary_free(&a->gloss[i]);
    memset(a, 0, sizeof *a);
}

// ---------------------------------------------------------------- links
const char *app_session_link_model(const app_session *a, char *buf, size_t n) {
    const char *g = a->given_model[0] ? a->given_model : a->model_name, *base = strrchr(g, '/');
    base = base ? base + 1 : g;
    size_t bl = strlen(base);
    if (bl > 12 && !strcmp(base + bl - 12, ".safetensors")) bl -= 12;
    char name[256], path[4200], r1[PATH_MAX], r2[PATH_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(bl < 255 ? bl : 255), base);
    if (strcmp(name, g) && !io_shipped_model(name, path, sizeof path) && realpath(path, r1) && realpath(a->model_path, r2) && !strcmp(r1, r2))
        g = name;
    snprintf(buf, n, "%s", g);
    return buf;
}

void app_session_link(const app_session *a, char *out, size_t n) {
    char name[4096];
    app_link l;
    link_of_state(&a->s, a->have_run ? &a->r.trace : NULL, app_session_link_model(a, name, sizeof name), a->lay.view.w, a->lay.view.h, &l);
    if (link_write(&l, out, n)) out[0] = 0;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); } // (rows of char[16])

int app_session_has_lessons(const char *lang, char *known, size_t n) {
    DIR *d = lesson_dir() ? opendir(lesson_dir()) : NULL;
    struct dirent *de;
    char names[16][16], path[4200];
    int k = 0, found = 0;
    struct stat st;
    while (d && (de = readdir(d)) && k < 16) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof names[0]) continue;
        snprintf(path, sizeof path, "%s/%s/inside-transformer.md", lesson_dir(), de->d_name);
        if (stat(path, &st)) continue;
        snprintf(names[k++], sizeof names[0], "%.15s", de->d_name);
        found |= !strcmp(de->d_name, lang);
    }
    if (d) closedir(d);
    qsort(names, (size_t)k, sizeof names[0], by_name);
    known[0] = 0;
    for (int i = 0; i < k; i++) {
        if (i) strncat(known, ", ", n - strlen(known) - 1);
        strncat(known, names[i], n - strlen(known) - 1);
    }
    return found;
}

// Another model in place of the session's (what it ran, its snapshots and
// the model beside it go with it).
static void replace_model(app_session *a, tf_model *m, const char *path, const char *given, int timeline) {
    if (a->have_cmp) tf_run_free(&a->cmp);
    if (a->have_r2) tf_run_free(&a->r2);
    if (a->have_m2) tf_model_free(&a->m2);
    if (a->have_run) tf_run_free(&a->r); // (its labels are the old model's)
    a->have_cmp = a->have_r2 = a->have_m2 = a->have_run = 0;
    io_timeline_free(&a->tl);
    free(a->snap_says);
    a->snap_says = NULL;
    if (a->have_model) tf_model_free(&a->m);
    a->m = *m;
    a->have_model = 1;
    snprintf(a->model_path, sizeof a->model_path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(a->model_name, sizeof a->model_name, "%.200s", base ? base + 1 : path);
    snprintf(a->given_model, sizeof a->given_model, "%s", given);
    if (timeline && io_timeline_open(&a->tl, path, &a->m))
        app_state_message(&a->s, 1, "%s", _("the model's training snapshots could not be read (see the terminal)"));
}

int app_session_open_link(app_session *a, const app_link *l, tf_model *m, const char *path, const char *given, int timeline, char *why,
                          size_t n) {
    char cur[4096], known[256];
    app_session_link_model(a, cur, sizeof cur);
    tf_model *mm = m ? m : &a->m;
    const char *lang = l->has & LINK_LANG ? l->lang : a->s.lang;
    app_state s = a->s;
    tf_run r;
    app_do todo;
    int ran = 0;
    if (lesson_dir() && !app_session_has_lessons(lang, known, sizeof known)) { link_no_lang(lang, known, why, n); return -1; }
    link_prepare(&s, l);
    if (link_check_run(mm, m ? given : cur, &s, why, n)) return -1;
    int saved = mm->cfg.without; // (the run checks the link; the session's own run follows)
    mm->cfg.without = mm->cfg.trained_without | s.without;
    tf_err e;
    ran = !tf_run_sentence(&r, mm, s.src, s.tgt[0] ? s.tgt : NULL, &e);
    mm->cfg.without = saved;
    if (!ran) { snprintf(why, n, "%s", e.msg); return -1; }
    s.trained_without = mm->cfg.trained_without;
    int bad = link_apply(&s, &r.trace, l, a->lay.view.w, a->lay.view.h, &todo, why, n);
    tf_run_free(&r);
    if (bad) return -1;
    // the link holds: the session changes
    if (m) replace_model(a, m, path, given, timeline);
    a->s = s;
    app_state_snapshots(&a->s, a->tl.n, a->tl.n - 1);
    a->opened = *l;
    a->pan_later = a->lay.view.w <= 0 && (l->has & LINK_PAN);
    app_session_rerun(a, NULL, NULL); // (with the compare run and the model beside, when the view asks for them)
    char err[900];
    if (lesson_dir() && (strcmp(lang, a->s.lang) || !a->have_lesson || m) && app_session_lesson(a, lang, err, sizeof err)) {
        fprintf(stderr, "tviz: %s\n", err);
        app_state_message(&a->s, 1, _("the lessons of %s could not be read; tviz lesson check names the mistake"), lang);
    }
    a->dirty = 1;
    if (l->view == RENDER_VIEW_SIDE_BY_SIDE && !a->s.side_by_side) { snprintf(why, n, "%s", a->s.message); return -1; } // (the model beside is missing)
    return 0;
}

void app_session_pan(app_session *a) {
    if (!a->pan_later || a->lay.view.w <= 0) return;
    link_pan(&a->s, &a->opened, a->lay.view.w, a->lay.view.h);
    a->pan_later = 0;
    a->dirty = 1;
}

void app_session_export(const app_session *a, io_picture *p, char *name, size_t n) {
    const tf_trace *t = &a->r.trace;
    render_view v = app_state_view(&a->s, t);
    const char *what = v == RENDER_VIEW_HEADS ? "-heads" : v == RENDER_VIEW_COMPARE ? "-compare" : "";
    snprintf(name, n, "tviz-%s%s.png", t->stages[a->s.stage].id, what);
    render_opts o = app_render_opts(&a->s);
    if (a->have_cmp) o.with_all = &a->cmp.trace;
    double w, h;
    render_default_size(t, a->s.stage, v, &w, &h);
    *p = (io_picture){.t = t, .m = app_session_model(a), .stage = a->s.stage, .view = v, .opts = o, .w = w, .h = h, .scale = 1, .fmt = IO_PNG};
}
