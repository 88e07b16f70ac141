// lesson_cmd.c — `tviz lesson check`: every lesson file parses, every stage id
// it names exists, every language has every section English has, and the
// glossaries have every key, used in their lessons, and every number is
// written with the digits 0–9. Errors name file:line.
#include "cli.h"
#include "../lesson/lesson.h"
#include "../render/render.h"
#include "../io/data.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *glossary_keys[] = {"attention", "query", "key", "value", "head", "mask", "softmax", "layer-normalization",
                                      "residual-connection", "positional-encoding", "encoder", "decoder", "embedding", "feed-forward"};

// Stage ids of a model with every optional part (final norms, an output
// layer of its own) and 2 layers a side, so each pattern can be checked
// against real ids (and [if !tied] holds for one model checked); post-LN
// (the paper) or pre-LN (norm_first: its own norm ids).
static int reference_ids(tf_model *m, tf_run *r, int norm_first, tf_err *e) {
    tf_config c = {0};
    c.C = 4; c.H = 2; c.F = 8; c.L_enc = 2; c.L_dec = 2;
    c.eps = 1e-5f; c.embed_scale_is_sqrt = 1; c.has_enc_norm = c.has_dec_norm = 1;
    c.has_generator = c.has_generator_bias = 1;
    c.norm_first = norm_first;
    if (tf_model_init(m, &c, "<unk>\n<bos>\n<eos>", NULL, 1, e)) return -1;
    if (tf_run_sentence(r, m, "a b", "c", e)) { tf_model_free(m); return -1; }
    return 0;
}

// The same for a recurrent model (DESIGN.md "Recurrent models"): 2 layers a
// side, with attention, so every id of such a model exists.
static int reference_lstm(tf_model *m, tf_run *r, int attention, tf_err *e) {
    tf_config c = {0};
    c.arch = TF_ARCH_LSTM;
    c.E = 4; c.C = 4; c.L_enc = 2; c.attention = attention ? TF_RNN_ATTN_DOT : TF_RNN_ATTN_NONE; c.reverse_source = 1; c.src_append_eos = 1;
    if (tf_model_init(m, &c, "<unk>\n<bos>\n<eos>", "<unk>\n<bos>\n<eos>", 1, e)) return -1;
    if (tf_run_sentence(r, m, "a b", "c", e)) { tf_model_free(m); return -1; }
    return 0;
}

static int matches_a_stage(const tf_trace *t, const char *pat) {
    if (!strcmp(pat, "intro") || !strcmp(pat, "check")) return 1;
    for (int i = 0; i < t->n; i++) if (!fnmatch(pat, t->stages[i].id, 0)) return 1;
    return 0;
}

// A lesson about the recurrent models: one of its sections names a stage only they have.
static int about_recurrent(const lesson *l, const tf_trace *transformer, const tf_trace *lstm) {
    for (int s = 0; s < l->n; s++)
        for (int k = 0; k < l->sec[s].n_patterns; k++) {
            const char *p = l->sec[s].patterns[k];
            if (strcmp(p, "intro") && strcmp(p, "check") && matches_a_stage(lstm, p) && !matches_a_stage(transformer, p)) return 1;
        }
    return 0;
}

// The folder being checked, and how it is shown: as typed (tviz lesson check
// DIR), or "lessons" for the one tviz found itself, whose absolute path the
// user never gave.
static const char *checked_dir, *checked_shown;

// One problem, one line on stderr (whatever the files hold: control characters quoted).
static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tf_one_line(msg, sizeof msg);
    size_t n = checked_dir ? strlen(checked_dir) : 0; // every problem starts with its file
    if (n && !strncmp(msg, checked_dir, n) && (msg[n] == '/' || msg[n] == ':')) fprintf(stderr, "tviz: %s%s\n", checked_shown, msg + n);
    else fprintf(stderr, "tviz: %s\n", msg);
}

// ---------------------------------------------------------------- live values
// Each {{expr}} and [if COND] of a lesson must read on the models a user
// meets first: the reference model on a two-word sentence (any lesson must
// survive a short sentence), the worked example and the default translator
// on the default sentence, beside every stage its section is shown for.
// (and, for the lesson "What if?", a pre-LN model, the worked example with
// every part switched off on a sentence with a word twice, and the three
// translators trained without a part)
typedef struct { const char *name; tf_model m; tf_run r; int ok; } value_model;

typedef struct { render_lesson_ctx c; char expr[256], why[300]; int bad; } value_probe;

static int probe_value(void *ctx, const char *expr, char *out, size_t n) {
    value_probe *p = ctx;
    int rc = render_lesson_value(&p->c, expr, out, n);
    if (rc && !p->bad++) { snprintf(p->expr, sizeof p->expr, "%s", expr); snprintf(p->why, sizeof p->why, "%s", out); }
    return rc;
}

// 0 if every value of block b reads beside stage (or -1); else a problem line.
// 0 when block b's values all read beside stage (or it is not shown there:
// *shown says whether it is), -1 (reported) when one does not.
static int block_reads(const lesson_block *b, value_model *vm, int stage, const char *path, char *shown) {
    value_probe p = {.c = {&vm->r.trace, &vm->m, vm->name, stage, vm->r.greedy}};
    char out[9000];
    const char *where = stage >= 0 ? vm->r.trace.stages[stage].id : "no stage";
    int holds = b->cond ? render_lesson_cond(&p.c, b->cond, p.why, sizeof p.why) : 1;
    if (holds < 0) {
        problem("%s:%d: %s", path, b->line, p.why);
        return -1;
    }
    if (!holds) return 0; // not shown here: its values need not read
    *shown = 1;
    lesson_expand(b->markup, probe_value, &p, out, sizeof out);
    if (!p.bad) return 0;
    problem("%s:%d: {{%s}} cannot be read (%s, beside %s): %s; lessons/README.md lists the values", path, b->line, p.expr, vm->name,
            where, p.why);
    return -1;
}

static int check_values(const lesson *l, value_model *vms, int n_vm) {
    int problems = 0;
    for (int s = 0; s < l->n; s++) {
        const lesson_section *sec = &l->sec[s];
        int plain = !strcmp(sec->patterns[0], "intro") || !strcmp(sec->patterns[0], "check");
        // a block's first problem is its only one; a block never shown had its values never read
        char *bad = calloc((size_t)sec->n_blocks + 1, 2), *shown = bad + sec->n_blocks + 1;
        if (!bad) return problems + 1;
        int all_ok = 1;
        for (int v = 0; v < n_vm; v++) {
            if (!vms[v].ok) { all_ok = 0; continue; }
            const tf_trace *t = &vms[v].r.trace;
            for (int i = plain ? -1 : 0; i < (plain ? 0 : t->n); i++) {
                if (i >= 0 && lesson_for_stage(l, t->stages[i].id) != sec) continue;
                for (int b = 0; b < sec->n_blocks; b++)
                    if (!bad[b] && block_reads(&sec->blocks[b], &vms[v], i, l->path, &shown[b])) { bad[b] = 1; problems++; }
            }
        }
        for (int b = 0; b < sec->n_blocks && all_ok; b++)
            if (!bad[b] && !shown[b] && sec->blocks[b].cond) { // (a section beside no stage is reported on its own)
                problem("%s:%d: [if %s] holds beside none of its stages in the models lesson check reads, so its values were never read; "
                        "make it hold for one of them, or remove it", l->path, sec->blocks[b].line, sec->blocks[b].cond);
                problems++;
            }
        free(bad);
    }
    return problems;
}

// One problem for each line of a lesson or glossary file with a character
// lessons do not use (lesson_odd_char: a digit other than 0–9, …).
static int check_chars(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0; // (reading it is reported by its loader)
    char *line = NULL, why[400];
    size_t cap = 0;
    int n = 0, problems = 0;
    while (getline(&line, &cap, f) >= 0) {
        n++;
        if (lesson_odd_char(line, why, sizeof why) >= 0) { problem("%s:%d: %s", path, n, why); problems++; }
    }
    free(line);
    fclose(f);
    return problems;
}

static int same_patterns(const lesson_section *a, const lesson_section *b) {
    if (a->n_patterns != b->n_patterns) return 0;
    for (int i = 0; i < a->n_patterns; i++) if (strcmp(a->patterns[i], b->patterns[i])) return 0;
    return 1;
}

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); } // rows of char[64]

// The entries of a folder matching a test, sorted.
static int list_dir(const char *dir, int want_dirs, const char *suffix, char names[][64], int max) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    char path[4200];
    while ((de = readdir(d)) && n < max) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= 64) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) || (want_dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) continue;
        size_t l = strlen(de->d_name), sl = suffix ? strlen(suffix) : 0;
        if (suffix && (l < sl || strcmp(de->d_name + l - sl, suffix))) continue;
        snprintf(names[n++], 64, "%.63s", de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_name);
    return n;
}

// Whether the lessons use glossary entry e (found as the window finds it,
// inflected: "heads", «کلیدها», «والمفاتيح»).
static int uses_entry(const lesson *ls, int n, const glossary *g, int e) {
    char plain[9000];
    glossary_hit hits[256];
    for (int f = 0; f < n; f++)
        for (int s = 0; s < ls[f].n; s++)
            for (int b = 0; b < ls[f].sec[s].n_blocks; b++) {
                if (render_markup_plain(ls[f].sec[s].blocks[b].markup, plain, sizeof plain)) continue;
                int k = glossary_find(g, plain, hits, 256);
                for (int i = 0; i < k; i++) if (hits[i].entry == e) return 1;
            }
    return 0;
}

static int check(const char *dir, const char *shown) {
    char langs[64][64], files[64][64], err[512], path[4300];
    int problems = 0, n_files = 0, n_sections = 0;
    checked_dir = dir;
    checked_shown = shown;
    int nl = list_dir(dir, 1, NULL, langs, 64);
    if (nl < 0) return io_error(shown, "cannot read the lessons folder; give the folder that holds en/, fa/, …");
    int en = -1;
    for (int i = 0; i < nl; i++) if (!strcmp(langs[i], "en")) en = i;
    if (en < 0) return io_error(shown, "has no en/ folder; English is the reference every language is checked against");
    snprintf(path, sizeof path, "%s/en", dir);
    int nf = list_dir(path, 0, ".md", files, 64);
    if (nf <= 0) return io_error(NULL, "%s/en: has no lesson files (*.md)", shown);
    tf_model m;
    tf_run r;
    tf_err e;
    if (reference_ids(&m, &r, 0, &e)) return io_error(NULL, "cannot build the reference stages: %s", e.msg);
    // The Transformers (the paper's, a pre-LN one, one with every part
    // switched off, the shipped ones), then the recurrent models, read only
    // for a lesson about them: small ones on a two-word sentence, with and
    // without attention, and the shipped ones. A shipped model that is not
    // trained yet (make en-fa-no-pe, make lstm-en-fa, …) is left out.
    enum { PRE_LN = 3, WHATIF = 4, N_TF = 8, N_VM = 12 };
    value_model vms[N_VM] = {{.name = "a small model on a two-word sentence"}, {.name = "worked-example"}, {.name = IO_DEFAULT_MODEL},
                             {.name = "a small pre-LN model on a two-word sentence"},
                             {.name = "worked-example with every part off, a word twice"},
                             {.name = "en-fa-no-pe"}, {.name = "en-fa-no-mask"}, {.name = "en-fa-pre-ln"},
                             {.name = "a small RNN with attention on a two-word sentence"}, {.name = "a small seq2seq LSTM on a two-word sentence"},
                             {.name = "lstm-en-fa"}, {.name = "rnn-attn-en-fa"}};
    vms[0].m = m;
    vms[0].r = r;
    vms[0].ok = 1;
    if (reference_ids(&vms[PRE_LN].m, &vms[PRE_LN].r, 1, &e)) return io_error(NULL, "cannot build the reference stages: %s", e.msg);
    vms[PRE_LN].ok = 1;
    for (int k = 0; k < 2; k++) {
        if (reference_lstm(&vms[N_TF + k].m, &vms[N_TF + k].r, !k, &e)) { problem("cannot build a small recurrent model: %s", e.msg); problems++; continue; }
        vms[N_TF + k].ok = 1;
    }
    for (int v = 1; v < N_VM; v++) {
        char mp[4200];
        if (v == PRE_LN || (v >= N_TF && v < N_TF + 2)) continue;
        const char *file = v == WHATIF ? "worked-example" : vms[v].name;
        if (v > WHATIF && v != N_TF && v != N_TF + 1 && io_shipped_model(file, mp, sizeof mp)) continue; // (not trained yet)
        if (io_load_model(&vms[v].m, file, mp, sizeof mp)) { problems++; continue; } // (the error is printed)
        if (v == WHATIF) vms[v].m.cfg.without = TF_WITHOUT_ALL; // what if? (a repeated word: [if twin])
        if (tf_run_sentence(&vms[v].r, &vms[v].m, v == WHATIF ? "I really enjoy I" : IO_DEFAULT_SENTENCE, NULL, &e)) {
            tf_model_free(&vms[v].m);
            problem("%s: %s", vms[v].name, e.msg); // the name, not where it was found
            problems++;
            continue;
        }
        vms[v].ok = 1;
    }
    lesson ref[64];
    memset(ref, 0, sizeof ref);
    for (int f = 0; f < nf; f++) {
        snprintf(path, sizeof path, "%s/en/%s", dir, files[f]);
        lesson_load(&ref[f], path, "en", err, sizeof err); // a mistake is reported once, with en/ below
    }
    glossary gref;
    snprintf(path, sizeof path, "%s/en/glossary.txt", dir);
    int have_gref = !glossary_load(&gref, path, "en", err, sizeof err);
    // (a mistake in it is reported once, with en/ below)
    for (int li = 0; li < nl; li++) {
        const char *lang = langs[li];
        lesson ls[64];
        memset(ls, 0, sizeof ls);
        char others[64][64];
        snprintf(path, sizeof path, "%s/%s", dir, lang);
        int no = list_dir(path, 0, ".md", others, 64);
        for (int k = 0; k < no; k++) {
            int known = 0;
            for (int f = 0; f < nf; f++) known |= !strcmp(others[k], files[f]);
            if (!known) { problem("%s/%s/%s: there is no English %s to match; add it to en/ or remove it", dir, lang, others[k], others[k]); problems++; }
        }
        int unread = 0; // lessons of this language that could not be read: the glossary's use is not checked
        for (int f = 0; f < nf; f++) {
            snprintf(path, sizeof path, "%s/%s/%s", dir, lang, files[f]);
            struct stat st;
            if (stat(path, &st)) { problem("%s: missing; every language has every lesson of en/", path); problems++; unread++; continue; }
            if (lesson_load(&ls[f], path, lang, err, sizeof err)) { problem("%s:%s", path, err); problems++; unread++; continue; }
            n_files++;
            problems += check_chars(path);
            problems += check_values(&ls[f], vms, about_recurrent(&ls[f], &r.trace, &vms[N_TF].r.trace) ? N_VM : N_TF);
            for (int s = 0; s < ls[f].n; s++) {
                const lesson_section *sec = &ls[f].sec[s];
                n_sections++;
                int unknown = 0;
                for (int k = 0; k < sec->n_patterns; k++)
                    if (!matches_a_stage(&r.trace, sec->patterns[k]) && !matches_a_stage(&vms[PRE_LN].r.trace, sec->patterns[k]) &&
                        !(vms[N_TF].ok && matches_a_stage(&vms[N_TF].r.trace, sec->patterns[k]))) {
                        unknown = 1;
                        problem("%s:%d: \"%s\" matches no stage; ids look like enc.0.self_attn.head.1.weights (tviz walk lists them)",
                                path, sec->line, sec->patterns[k]);
                        problems++;
                    }
                if (!sec->n_blocks) { problem("%s:%d: the section is empty; write its text", path, sec->line); problems++; }
                if (li != en && ref[f].n && !unknown) { // (an unknown id is reported once, above)
                    int found = 0;
                    for (int t = 0; t < ref[f].n; t++) found |= same_patterns(sec, &ref[f].sec[t]);
                    if (!found) { problem("%s:%d: en/%s has no section \"## %s\"; use the English section ids", path, sec->line, files[f], sec->patterns[0]); problems++; }
                }
            }
            for (int t = 0; li != en && t < ref[f].n; t++) {
                int found = 0;
                for (int s = 0; s < ls[f].n; s++) found |= same_patterns(&ls[f].sec[s], &ref[f].sec[t]);
                if (!found) { problem("%s: the section \"## %s\" of en/%s (line %d) is missing; translate it", path, ref[f].sec[t].patterns[0], files[f], ref[f].sec[t].line); problems++; }
            }
        }
        glossary g;
        snprintf(path, sizeof path, "%s/%s/glossary.txt", dir, lang);
        if (glossary_load(&g, path, lang, err, sizeof err)) { problem("%s:%s", path, err); problems++; }
        else {
            problems += check_chars(path);
            for (size_t k = 0; k < sizeof glossary_keys / sizeof *glossary_keys; k++) {
                const char *w = glossary_word(&g, glossary_keys[k]);
                int e = 0;
                while (e < g.n && strcmp(g.key[e], glossary_keys[k])) e++;
                if (!w) { problem("%s: has no \"%s\"; add \"%s = …\"", path, glossary_keys[k], glossary_keys[k]); problems++; }
                else if (!unread && !uses_entry(ls, nf, &g, e)) {
                    problem("%s: \"%s\" (%s) is never used in the %s lessons; use the glossary's word for it", path, w, glossary_keys[k], lang);
                    problems++;
                }
            }
            for (int k = 0; k < g.n; k++)
                if (have_gref && !glossary_word(&gref, g.key[k])) { problem("%s: \"%s\" is not an English glossary key", path, g.key[k]); problems++; }
            glossary_free(&g);
        }
        for (int f = 0; f < nf; f++) lesson_free(&ls[f]);
    }
    for (int f = 0; f < nf; f++) lesson_free(&ref[f]);
    if (have_gref) glossary_free(&gref);
    for (int v = 0; v < N_VM; v++)
        if (vms[v].ok) {
            tf_run_free(&vms[v].r);
            tf_model_free(&vms[v].m);
        }
    printf("lesson check: %d languages, %d files, %d sections: %d problem%s\n", nl, n_files, n_sections, problems, problems == 1 ? "" : "s");
    return problems ? 1 : 0;
}

int cmd_lesson(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "check")) {
        if (argc > 3) return io_error(argv[3], "unexpected; tviz lesson check takes at most a folder");
        if (argc == 3) return check(argv[2], argv[2]);
        if (!lesson_dir()) return io_error("lessons", "%s (or give a folder: tviz lesson check DIR)", io_no_lessons());
        return check(lesson_dir(), "lessons");
    }
    if (argc >= 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) return io_error(argv[1], "unknown; use tviz lesson check [DIR]");
    fputs("Usage: tviz lesson check [DIR]\nChecks every lesson file under DIR (default: the lessons folder): it parses, each stage id\n"
          "it names exists, each language has every section of en/, each glossary has every key,\n"
          "and every number is written with the digits 0-9.\n", stdout);
    return argc < 2;
}
