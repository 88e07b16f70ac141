// walk.c — `tviz walk`: the journey through the Transformer in a terminal,
// stage by stage, each matrix printed with its labels.
#include "cli.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COLS 10 // columns shown before eliding the middle ones
#define MAX_ROWS 16
#define LABEL_W 14

static const char *part_name(const tf_stage *s) {
    switch (s->part) {
    case TF_PART_SRC: return "Source";
    case TF_PART_ENC: return "Encoder";
    case TF_PART_TGT: return "Target";
    case TF_PART_DEC: return "Decoder";
    default: return "Output";
    }
}

// Pads a UTF-8 label to w columns (counting code points, not bytes).
static void print_label(const char *s, int w) {
    int cols = 0;
    const char *p = s;
    while (*p && cols < w - 1) {
        int len = 1;
        unsigned char b = (unsigned char)*p;
        if (b >= 0xF0) len = 4; else if (b >= 0xE0) len = 3; else if (b >= 0xC0) len = 2;
        if (len == 3 && (unsigned char)p[1] == 0x80 && (unsigned char)p[2] == 0x8C && b == 0xE2) { fwrite(p, 1, 3, stdout); p += 3; continue; } // ZWNJ takes no column
        fwrite(p, 1, (size_t)len, stdout);
        p += len;
        cols++;
    }
    for (; cols < w; cols++) putchar(' ');
}

static void print_cell(float v) {
    if (isinf(v) && v < 0) printf("%9s", "−∞");
    else printf(" %8.4f", (double)v);
}

// Indices to show along an axis of n entries: all, or the first and last few.
static int pick(int n, int max, int *idx) {
    if (n <= max) { for (int i = 0; i < n; i++) idx[i] = i; return n; }
    int k = 0;
    for (int i = 0; i < max - 2; i++) idx[k++] = i;
    idx[k++] = -1; // the ellipsis
    idx[k++] = n - 1;
    return k;
}

static void print_stage(const tf_trace *t, const tf_stage *s, int index) {
    char buf[16];
    printf("\n[%d/%d] %s — %s", index + 1, t->n, s->id, s->title);
    if (s->layer >= 0) printf(" · %s layer %d", part_name(s), s->layer + 1);
    if (s->head >= 0) printf(" · head %d", s->head + 1);
    printf("  (%d × %d)\n        %s\n", s->rows, s->cols, s->formula);
    int ri[MAX_ROWS], ci[MAX_COLS];
    int nr = pick(s->rows, MAX_ROWS, ri), nc = pick(s->cols, MAX_COLS, ci);
    print_label("", LABEL_W);
    for (int j = 0; j < nc; j++) {
        const char *l = ci[j] < 0 ? "…" : tf_axis_label(t, s->col_axis, ci[j], buf, sizeof buf);
        int len = (int)strlen(l), pad = 9 - len;
        if (len > 8) { printf(" "); print_label(l, 8); continue; }
        printf("%*s%s", pad > 0 ? pad : 0, "", l);
    }
    putchar('\n');
    for (int i = 0; i < nr; i++) {
        if (ri[i] < 0) { print_label("…", LABEL_W); putchar('\n'); continue; }
        print_label(tf_axis_label(t, s->row_axis, ri[i], buf, sizeof buf), LABEL_W);
        for (int j = 0; j < nc; j++) {
            if (ci[j] < 0) printf("%9s", "…");
            else print_cell(s->data[(size_t)ri[i] * s->cols + ci[j]]);
        }
        putchar('\n');
    }
}

static const char *walk_help =
    "Usage: tviz walk [--model M] [--src TEXT] [--tgt TEXT] [--stage PATTERN] [--no-pause]\n"
    "Steps through every stage of the Transformer in the terminal, in the paper's\n"
    "order, printing each matrix with its token and dimension labels.\n"
    "In a terminal it waits after each stage: Enter = next, b = back, q = quit,\n"
    "or type a stage id (or glob) to jump there. --stage PATTERN shows only the\n"
    "matching stages, e.g. --stage 'src.*' or --stage 'dec.0.cross_attn.head.*.weights'.\n";

int cmd_walk(int argc, char **argv) {
    cli_run c;
    int rc = cli_run_start(&c, argc, argv, "walk", walk_help, 0, 1);
    if (rc) return rc == 2 ? 0 : 1;
    const tf_trace *t = &c.r.trace;
    const tf_config *cfg = &c.m.cfg;
    printf("tviz walk — %s: d_model %d, %d heads, %d+%d layers, d_ff %d\n", c.path, cfg->C, cfg->H, cfg->L_enc, cfg->L_dec, cfg->F);
    printf("source:");
    for (int i = 0; i < c.r.S; i++) printf(" %s", t->src_labels[i]);
    printf("\ndecoder input%s:", c.r.greedy ? " (decoded greedily)" : "");
    for (int i = 0; i < c.r.T; i++) printf(" %s", t->tgt_labels[i]);
    printf("\n%d stages\n", t->n);
    int matched = 0;
    for (int i = 0; i < t->n; i++) matched += !c.stage || !fnmatch(c.stage, t->stages[i].id, 0);
    if (!matched) {
        rc = cli_error(c.stage, "matches no stage; stage ids look like src.pe or enc.0.self_attn.head.0.weights (tviz trace lists them all)");
        cli_run_end(&c);
        return rc;
    }
    int interactive = !c.no_pause && isatty(0) && isatty(1);
    char line[256];
    for (int i = 0; i >= 0 && i < t->n;) {
        if (c.stage && fnmatch(c.stage, t->stages[i].id, 0)) { i++; continue; }
        print_stage(t, &t->stages[i], i);
        if (!interactive) { i++; continue; }
        printf("-- Enter: next · b: back · q: quit · or a stage id -- ");
        fflush(stdout);
        if (!fgets(line, sizeof line, stdin)) break;
        line[strcspn(line, "\r\n")] = 0;
        if (!strcmp(line, "q")) break;
        if (!strcmp(line, "b")) {
            do i--; while (i > 0 && c.stage && fnmatch(c.stage, t->stages[i].id, 0));
            if (i < 0) i = 0;
            continue;
        }
        if (!*line) { i++; continue; }
        int j = 0;
        while (j < t->n && fnmatch(line, t->stages[j].id, 0)) j++;
        if (j == t->n) printf("no stage matches \"%s\"\n", line);
        else i = j;
    }
    cli_run_end(&c);
    return 0;
}
