// fixture_cases.h — the cases PyTorch's reference scripts wrote (tests/ref/):
// one line a case, name<TAB>model<TAB>source[<TAB>target[<TAB>parts off]],
// each with its trace in NAME.trace.json beside the list.
#ifndef FIXTURE_CASES_H
#define FIXTURE_CASES_H

#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>

typedef struct { char name[64], model[256], src[512], tgt[512], without[64]; } fixture_case;

static int load_cases(const char *list, fixture_case *cs, int max) {
    char *txt = read_file(list, NULL);
    if (!txt) fail_msg("cannot read %s", list);
    int n = 0;
    for (char *line = strtok(txt, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        fixture_case *c = &cs[n];
        memset(c, 0, sizeof *c);
        char *f[5] = {0};
        f[0] = line;
        for (int k = 1; k < 5; k++) {
            char *tab = f[k - 1] ? strchr(f[k - 1], '\t') : NULL;
            if (tab) { *tab = 0; f[k] = tab + 1; }
        }
        assert_non_null(f[2]);
        snprintf(c->name, sizeof c->name, "%s", f[0]);
        snprintf(c->model, sizeof c->model, "%s", f[1]);
        snprintf(c->src, sizeof c->src, "%s", f[2]);
        snprintf(c->tgt, sizeof c->tgt, "%s", f[3] ? f[3] : "");
        snprintf(c->without, sizeof c->without, "%s", f[4] ? f[4] : "");
        n++;
    }
    free(txt);
    return n;
}

// The tokens of a trace against PyTorch's.
static void check_tokens(const cJSON *arr, const char *const *labels, int n, const char *what, const char *cs) {
    if (cJSON_GetArraySize(arr) != n) fail_msg("%s: %s has %d tokens, PyTorch %d", cs, what, n, cJSON_GetArraySize(arr));
    for (int i = 0; i < n; i++)
        if (strcmp(cJSON_GetArrayItem(arr, i)->valuestring, labels[i]))
            fail_msg("%s: %s token %d is \"%s\", PyTorch \"%s\"", cs, what, i, labels[i], cJSON_GetArrayItem(arr, i)->valuestring);
}

// A reference trace (NAME.trace.json) as JSON; fails the test when unreadable.
static cJSON *load_json(const char *path) {
    char *json = read_file(path, NULL);
    if (!json) fail_msg("cannot read %s", path);
    cJSON *j = cJSON_Parse(json);
    free(json);
    if (!j) fail_msg("%s is not JSON", path);
    return j;
}

// Stage i of a trace against PyTorch's stage st: the same id and shape. Returns the id.
static const char *check_stage_shape(const cJSON *st, const tf_stage *s, int i, const char *cs) {
    const char *id = cJSON_GetObjectItem(st, "id")->valuestring;
    if (strcmp(id, s->id)) fail_msg("%s: stage %d is %s, PyTorch has %s there", cs, i, s->id, id);
    if (cJSON_GetObjectItem(st, "rows")->valueint != s->rows || cJSON_GetObjectItem(st, "cols")->valueint != s->cols)
        fail_msg("%s: %s is %dx%d, PyTorch %dx%d", cs, id, s->rows, s->cols, cJSON_GetObjectItem(st, "rows")->valueint,
                 cJSON_GetObjectItem(st, "cols")->valueint);
    return id;
}

// Runs model m on a case (its target, or greedy decoding) and compares every
// stage with the reference trace dir/NAME.trace.json: the same ids, shapes,
// tokens, parts switched off, and |C − reference| ≤ tol · max(1, |reference|)
// in every cell (−∞ where the reference has null). Prints and returns the
// largest difference.
static inline double compare_trace(const fixture_case *c, const char *dir, const tf_model *m, double tol) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.trace.json", dir, c->name);
    cJSON *ref = load_json(path);
    tf_err e;
    tf_run r;
    if (tf_run_sentence(&r, m, c->src, c->tgt[0] ? c->tgt : NULL, &e)) fail_msg("%s: %s", c->name, e.msg);
    const tf_trace *t = &r.trace;
    // the parts switched off, as the reference lists them
    const cJSON *wo = cJSON_GetObjectItem(ref, "without");
    int ref_bits = 0;
    for (const cJSON *p = wo ? wo->child : NULL; p; p = p->next) {
        int b;
        if (tf_without_parse(p->valuestring, &b, &e)) fail_msg("%s: %s", c->name, e.msg);
        ref_bits |= b;
    }
    if (ref_bits != t->without) fail_msg("%s: the trace is without %d, the reference's without %d", c->name, t->without, ref_bits);
    if (cJSON_GetObjectItem(cJSON_GetObjectItem(ref, "config"), "norm_first")->valueint != t->norm_first)
        fail_msg("%s: norm_first %d, the reference's %d", c->name, t->norm_first, !t->norm_first);
    check_tokens(cJSON_GetObjectItem(ref, "src_tokens"), t->src_labels, r.S, "source", c->name);
    check_tokens(cJSON_GetObjectItem(ref, "tgt_tokens"), t->tgt_labels, r.T, "decoder input", c->name);
    const cJSON *stages = cJSON_GetObjectItem(ref, "stages");
    if (cJSON_GetArraySize(stages) != t->n) fail_msg("%s: %d stages, the reference %d", c->name, t->n, cJSON_GetArraySize(stages));
    double worst = 0;
    const char *worst_id = "";
    int i = 0;
    for (const cJSON *st = stages->child; st; st = st->next, i++) {
        const tf_stage *s = &t->stages[i];
        const char *id = check_stage_shape(st, s, i, c->name);
        const cJSON *data = cJSON_GetObjectItem(st, "data");
        int y = 0;
        for (const cJSON *row = data->child; row; row = row->next, y++) {
            int x = 0;
            for (const cJSON *v = row->child; v; v = v->next, x++) {
                float got = s->data[(size_t)y * s->cols + x];
                if (cJSON_IsNull(v)) {
                    if (!(isinf(got) && got < 0)) fail_msg("%s: %s[%d][%d] = %g, the reference −∞ (masked)", c->name, id, y, x, (double)got);
                    continue;
                }
                double want = v->valuedouble, d = fabs(got - want);
                if (isinf(got) || !(d <= tol * fmax(1.0, fabs(want))))
                    fail_msg("%s: %s[%d][%d] = %.7g, the reference %.7g (difference %.2g)", c->name, id, y, x, (double)got, want, d);
                if (d > worst) { worst = d; worst_id = s->id; }
            }
        }
    }
    printf("  %-22s %3d stages, largest difference %.2e (%s)\n", c->name, t->n, worst, worst_id);
    tf_run_free(&r);
    cJSON_Delete(ref);
    return worst;
}

#endif
