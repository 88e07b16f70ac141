// fixture_cases.h — the cases PyTorch's reference scripts wrote (tests/ref/):
// one line a case, name<TAB>model<TAB>source[<TAB>target[<TAB>parts off]],
// each with its trace in NAME.trace.json beside the list.
#ifndef FIXTURE_CASES_H
#define FIXTURE_CASES_H

#include "testutil.h"

#include <cjson/cJSON.h>

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

#endif
