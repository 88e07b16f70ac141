// mkbad.c — makes broken safetensors files for tests/bad_input.sh from a good
// one, one change at a time (no python needed in CI):
//   mkbad IN OUT truncate N              the first N bytes of IN
//   mkbad IN OUT hlen N                  the 8-byte header length set to N, the rest as it was
//   mkbad IN OUT meta KEY VALUE          __metadata__ KEY set to the string VALUE ("-": removed)
//   mkbad IN OUT set TENSOR FIELD JSON   a tensor's dtype, shape or data_offsets replaced by JSON
//   mkbad IN OUT del TENSOR              a tensor's header entry removed
//   mkbad IN OUT value TENSOR I X        float I of a tensor's data set to X (nan, inf, -inf, 1e30)
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "mkbad: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot read", path);
    unsigned char *buf = NULL;
    size_t cap = 0, k;
    *n = 0;
    do {
        if (*n + 65536 > cap && !(buf = realloc(buf, cap = cap * 2 + 65536))) die("out of memory", NULL);
        k = fread(buf + *n, 1, cap - *n, f);
        *n += k;
    } while (k > 0);
    fclose(f);
    return buf;
}

static void spill(const char *path, const void *a, size_t na, const void *b, size_t nb, const void *c, size_t nc) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, na, f) != na || fwrite(b, 1, nb, f) != nb || fwrite(c, 1, nc, f) != nc || fclose(f)) die("cannot write", path);
}

static cJSON *entry(cJSON *h, const char *name) {
    cJSON *t = cJSON_GetObjectItemCaseSensitive(h, name);
    if (!t) die("no such tensor in the header", name);
    return t;
}

int main(int argc, char **argv) {
    if (argc < 5) die("usage: mkbad IN OUT truncate|hlen|meta|set|del|value ARGS", NULL);
    size_t n;
    unsigned char *in = slurp(argv[1], &n);
    const char *out = argv[2], *op = argv[3];
    if (!strcmp(op, "truncate")) {
        size_t k = strtoull(argv[4], NULL, 10);
        spill(out, in, k < n ? k : n, "", 0, "", 0);
        return 0;
    }
    if (n < 8) die("the input is not safetensors", argv[1]);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | in[i];
    if (hl > n - 8) die("the input is not safetensors", argv[1]);
    if (!strcmp(op, "hlen")) {
        uint64_t v = strtoull(argv[4], NULL, 10);
        for (int i = 0; i < 8; i++) in[i] = (unsigned char)(v >> (8 * i));
        spill(out, in, n, "", 0, "", 0);
        return 0;
    }
    cJSON *h = cJSON_ParseWithLength((const char *)in + 8, hl);
    if (!h) die("the input's header is not JSON", argv[1]);
    unsigned char *data = in + 8 + hl;
    size_t data_n = n - 8 - hl;
    if (!strcmp(op, "meta") && argc == 6) {
        cJSON *m = cJSON_GetObjectItemCaseSensitive(h, "__metadata__");
        cJSON_DeleteItemFromObjectCaseSensitive(m, argv[4]);
        if (strcmp(argv[5], "-")) cJSON_AddStringToObject(m, argv[4], argv[5]);
    } else if (!strcmp(op, "set") && argc == 7) {
        cJSON *v = cJSON_Parse(argv[6]);
        if (!v) die("not JSON", argv[6]);
        cJSON *t = entry(h, argv[4]);
        cJSON_DeleteItemFromObjectCaseSensitive(t, argv[5]);
        cJSON_AddItemToObject(t, argv[5], v);
    } else if (!strcmp(op, "del") && argc == 5) {
        entry(h, argv[4]);
        cJSON_DeleteItemFromObjectCaseSensitive(h, argv[4]);
    } else if (!strcmp(op, "value") && argc == 7) {
        cJSON *off = cJSON_GetObjectItemCaseSensitive(entry(h, argv[4]), "data_offsets");
        size_t at = (size_t)cJSON_GetArrayItem(off, 0)->valuedouble + 4 * strtoull(argv[5], NULL, 10);
        float x = strtof(argv[6], NULL);
        if (at + 4 > data_n) die("the index is outside the tensor's data", argv[5]);
        memcpy(data + at, &x, 4); // little-endian, as the file
    } else die("unknown change or wrong number of arguments", op);
    char *json = cJSON_PrintUnformatted(h);
    size_t jl = strlen(json), padded = (jl + 7) / 8 * 8;
    unsigned char *hdr = malloc(8 + padded);
    if (!hdr) die("out of memory", NULL);
    for (int i = 0; i < 8; i++) hdr[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    memcpy(hdr + 8, json, jl);
    memset(hdr + 8 + jl, ' ', padded - jl);
    spill(out, hdr, 8 + padded, data, data_n, "", 0);
    free(hdr);
    free(json);
    cJSON_Delete(h);
    free(in);
    return 0;
}
