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
#define LABEL_W 17

static const char *part_name(const tf_stage *s) {
    switch (s->side) {
    case TF_SIDE_SRC: return "Source";
    case TF_SIDE_ENC: return "Encoder";
    case TF_SIDE_TGT: return "Target";
    case TF_SIDE_DEC: return "Decoder";
    default: return "Output";
    }
}

// Terminal columns a code point takes: 0 for combining marks (Arabic
// harakat, tanwin, Latin accents) and zero-width joiners, else 1.
static int cp_width(unsigned cp) {
    if ((cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x064B && cp <= 0x065F) || cp == 0x0670 ||
        (cp >= 0x200B && cp <= 0x200F))
        return 0;
    return 1;
}

// Decodes the code point at p (valid UTF-8, as every label is); returns its length.
static int next_cp(const char *p, unsigned *cp) {
    unsigned char b = (unsigned char)*p;
    int len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    *cp = len == 1 ? b : b & (0x7F >> len);
    for (int i = 1; i < len; i++) *cp = (*cp << 6) | ((unsigned char)p[i] & 0x3F);
    return len;
}

// Prints a UTF-8 label in exactly w columns, cut with "…" if too wide,
// padded on the right (or on the left when right is set).
static void print_label(const char *s, int w, int right) {
    int width = 0;
    unsigned cp;
    for (const char *p = s; *p;) {
        p += next_cp(p, &cp);
        width += cp_width(cp);
    }
    int cut = width > w;
    int room = cut ? w - 1 : w, used = 0;
    if (right && !cut) for (int i = width; i < w; i++) putchar(' ');
    for (const char *p = s; *p;) {
        int len = next_cp(p, &cp), cw = cp_width(cp);
        if (used + cw > room) break;
        fwrite(p, 1, (size_t)len, stdout);
        used += cw;
        p += len;
    }
    if (cut) fputs("…", stdout), used++;
    if (!right || cut) for (; used < w; used++) putchar(' ');
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
    print_label("", LABEL_W, 0);
    for (int j = 0; j < nc; j++) {
        putchar(' ');
        print_label(ci[j] < 0 ? "…" : tf_axis_label(t, s->col_axis, ci[j], buf, sizeof buf), 8, 1);
    }
    putchar('\n');
    for (int i = 0; i < nr; i++) {
        if (ri[i] < 0) { print_label("…", LABEL_W, 0); putchar('\n'); continue; }
        // token rows carry their position: it is what the PE encodes
        char row[96];
        const char *l = tf_axis_label(t, s->row_axis, ri[i], buf, sizeof buf);
        if (s->row_axis == TF_AXIS_SRC || s->row_axis == TF_AXIS_TGT) snprintf(row, sizeof row, "%2d %s", ri[i], l);
        else snprintf(row, sizeof row, "%s", l);
        print_label(row, LABEL_W, 0);
        for (int j = 0; j < nc; j++) {
            if (ci[j] < 0) printf("%9s", "…");
            else print_cell(s->data[(size_t)ri[i] * s->cols + ci[j]]);
        }
        putchar('\n');
    }
}

static const char *walk_help =
    "Usage: tviz walk [--model M] [--src TEXT] [--tgt TEXT] [--without PARTS] [--stage PATTERN] [--no-pause]\n"
    "Steps through every stage of the Transformer in the terminal, in the paper's\n"
    "order, printing each matrix with its token and dimension labels.\n"
    "In a terminal it waits after each stage: Enter = next, b = back, q = quit,\n"
    "or type a stage id (or glob) to jump there. --stage PATTERN shows only the\n"
    "matching stages, e.g. --stage 'src.*' or --stage 'dec.0.cross_attn.head.*.weights'.\n"
    "--without pe,scale,mask,residual switches those parts of the Transformer off (what if?).\n";

int cmd_walk(int argc, char **argv) {
    io_run c;
    int rc = io_run_start(&c, argc, argv, "walk", walk_help, IO_OPT_WALK, NULL, NULL);
    if (rc) return rc == 2 ? 0 : 1;
    const tf_trace *t = &c.r.trace;
    const tf_config *cfg = &c.m.cfg;
    if (cfg->arch == TF_ARCH_LSTM)
        printf("tviz walk — %s: LSTM encoder-decoder, embed_dim %d, hidden_size %d, %d+%d layers, attention %s%s\n", c.model, cfg->E,
               cfg->C, cfg->L_enc, cfg->L_dec, cfg->attention == TF_RNN_ATTN_DOT ? "dot" : "none",
               cfg->reverse_source ? ", source read in reverse" : "");
    else
        printf("tviz walk — %s: d_model %d, %d heads, %d+%d layers, d_ff %d%s\n", c.model, cfg->C, cfg->H, cfg->L_enc, cfg->L_dec, cfg->F,
               cfg->norm_first ? ", pre-LN" : "");
    if (cfg->without) {
        char parts[64];
        printf("what if: without %s\n", tf_without_format(cfg->without, parts, sizeof parts));
    }
    printf("source:");
    for (int i = 0; i < c.r.S; i++) printf(" %s", t->src_labels[i]);
    if (c.r.beam) printf("\ndecoder input (beam search, beam size %d, α %g):", c.r.beam->K, c.r.beam->alpha);
    else printf("\ndecoder input%s:", c.r.greedy ? " (decoded greedily)" : "");
    for (int i = 0; i < c.r.T; i++) printf(" %s", t->tgt_labels[i]);
    printf("\n%d stages\n", t->n);
    int matched = 0;
    for (int i = 0; i < t->n; i++) matched += !c.stage || !fnmatch(c.stage, t->stages[i].id, 0);
    if (!matched) {
        rc = io_error(c.stage, "matches no stage; stage ids look like src.pe or enc.0.self_attn.head.0.weights (tviz trace lists them all)");
        io_run_end(&c);
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
    io_run_end(&c);
    return 0;
}
