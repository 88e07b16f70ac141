// fuzz_link.c — any bytes as the link of a view (src/app/link.c), opened on a
// tiny model as the window opens one. An error is one line, and leaves the
// state as it was; a link it reads is written and read back to the same
// link, and the same text again (a link of only unknown keys: nothing); its sentences are taken by the model's run
// exactly when link_check_run says so; a link it opens shows the stage and
// view it names, within the stage's rows and columns, and the state's own
// link opens the same view again.
#include "fuzz.h"

#include <math.h>

#include "../../src/app/link.h"

static const char *vocab = "<unk>\n<bos>\n<eos>\nI\nreally\nenjoy\nlearning\ntransformers\n.\nمن";

static tf_model *tiny(void) {
    static tf_model m;
    static int ready;
    if (!ready) {
        tf_config c;
        memset(&c, 0, sizeof c);
        c.C = 4; c.H = 2; c.F = 8; c.L_enc = 2; c.L_dec = 1;
        c.eps = 1e-5f; c.embed_scale_is_sqrt = 1; c.max_len = 12; c.max_len_set = 1;
        tf_err e;
        FUZZ_CHECK(tf_model_init(&m, &c, vocab, NULL, 7, &e) == 0);
        ready = 1;
    }
    return &m;
}

static void same_link(const app_link *a, const app_link *b) {
    FUZZ_CHECK(a->has == b->has);
    FUZZ_CHECK(!strcmp(a->model, b->model) && !strcmp(a->src, b->src) && !strcmp(a->tgt, b->tgt));
    FUZZ_CHECK(!strcmp(a->stage, b->stage) && !strcmp(a->lang, b->lang));
    FUZZ_CHECK(a->view == b->view && a->without == b->without);
    FUZZ_CHECK(a->zoom == b->zoom && a->pan_x == b->pan_x && a->pan_y == b->pan_y);
    FUZZ_CHECK(a->cell_row == b->cell_row && a->cell_col == b->cell_col && a->time == b->time);
}

// What an opened link shows, against what it asked.
static void check_opened(const app_state *s, const tf_trace *t, const app_link *l) {
    FUZZ_CHECK(s->stage >= 0 && s->stage < t->n);
    const tf_stage *st = &t->stages[s->stage];
    if (l->has & LINK_STAGE) FUZZ_CHECK(!strcmp(st->id, l->stage));
    if ((l->has & LINK_VIEW) && l->view != RENDER_VIEW_AUTO) FUZZ_CHECK(app_state_view(s, t) == l->view);
    FUZZ_CHECK(s->zoom >= 1 && s->zoom <= 32 && isfinite(s->pan_x) && isfinite(s->pan_y));
    FUZZ_CHECK(s->pin_row < st->rows && s->pin_col < st->cols);
    FUZZ_CHECK(s->time_step < 0 || s->time_step < tf_stage_time_steps(t, s->stage));
    FUZZ_CHECK(!s->editing && !s->help);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_cstr(data, size);
    static char why[1200], out[4 * LINK_MAX], again[4 * LINK_MAX];
    static app_link l, back;
    if (link_parse(text, &l, why, sizeof why)) {
        fuzz_check_message(why);
        free(text);
        return 0;
    }
    // written and read back: the same link, and the same text again
    FUZZ_CHECK(link_write(&l, out, sizeof out) == 0);
    if (!l.has) { // (only keys tviz does not know: nothing to write, and nothing to open)
        FUZZ_CHECK(!out[0]);
        free(text);
        return 0;
    }
    FUZZ_CHECK(link_parse(out, &back, why, sizeof why) == 0);
    same_link(&l, &back);
    FUZZ_CHECK(link_write(&back, again, sizeof again) == 0 && !strcmp(out, again));
    // opened on the tiny model, as the window opens it
    static app_state s, before;
    app_state_init(&s, "I really enjoy learning transformers", "");
    link_prepare(&s, &l);
    tf_model *m = tiny();
    int ok = link_check_run(m, "tiny", &s, why, sizeof why) == 0;
    if (!ok) fuzz_check_message(why);
    tf_run r;
    tf_err e;
    m->cfg.without = s.without;
    int ran = tf_run_sentence(&r, m, s.src, s.tgt[0] ? s.tgt : NULL, &e) == 0;
    m->cfg.without = 0;
    FUZZ_CHECK(ran == ok); // the check says what the run does
    if (!ran) { free(text); return 0; }
    before = s;
    app_do d;
    if (link_apply(&s, &r.trace, &l, 640, 480, &d, why, sizeof why)) {
        fuzz_check_message(why);
        FUZZ_CHECK(!memcmp(&s, &before, sizeof s)); // the view as it was
    } else {
        check_opened(&s, &r.trace, &l);
        // the state's own link opens the same view on a fresh state
        link_of_state(&s, &r.trace, "tiny", 640, 480, &back);
        FUZZ_CHECK(link_write(&back, out, sizeof out) == 0);
        FUZZ_CHECK(link_parse(out, &back, why, sizeof why) == 0);
        static app_state o;
        app_state_init(&o, "another", "");
        link_prepare(&o, &back);
        FUZZ_CHECK(!strcmp(o.src, s.src) && !strcmp(o.tgt, s.tgt) && o.without == s.without);
        FUZZ_CHECK(link_apply(&o, &r.trace, &back, 640, 480, &d, why, sizeof why) == 0);
        FUZZ_CHECK(o.stage == s.stage && app_state_view(&o, &r.trace) == app_state_view(&s, &r.trace));
        FUZZ_CHECK(o.zoom == s.zoom && o.pin_row == s.pin_row && o.pin_col == s.pin_col && o.time_step == s.time_step);
    }
    tf_run_free(&r);
    free(text);
    return 0;
}
