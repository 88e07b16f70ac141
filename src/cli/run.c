// run.c — `tviz trace`: the model on a sentence, every stage as JSON.
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *trace_help =
    "Usage: tviz trace [--model M] [--src TEXT] [--tgt TEXT] [--without PARTS [--compare]] [-o FILE]\n"
    "Runs the model on the sentence and writes every intermediate matrix as JSON\n"
    "(format tviz-trace/1, described in README.md), to FILE or standard output.\n"
    "Masked (−∞) cells are written as null. Without --tgt the target is decoded greedily.\n"
    "--without pe,scale,mask,residual switches those parts off (what if?); \"without\" lists them.\n"
    "--compare adds \"compare\": the same tokens with every part on, stage for stage.\n";

static int trace_opt(void *ctx, int argc, char **argv, int *i) {
    (void)argc;
    if (strcmp(argv[*i], "--compare")) return 0;
    *(int *)ctx = 1;
    return 1;
}

int cmd_trace(int argc, char **argv) {
    io_run c;
    int compare = 0;
    int rc = io_run_start(&c, argc, argv, "trace", trace_help, IO_OPT_OUT, trace_opt, &compare);
    if (rc) return rc == 2 ? 0 : 1;
    if (compare && io_run_compare(&c)) { io_run_end(&c); return 1; }
    char *json = tf_trace_json(&c.m, &c.r, compare ? &c.cmp : NULL);
    if (!json) rc = io_error(NULL, "out of memory writing the trace");
    else {
        size_t n = strlen(json);
        json[n] = '\n'; // the terminating NUL becomes a final newline
        rc = io_write_file(c.out ? c.out : "-", json, n + 1);
    }
    free(json);
    io_run_end(&c);
    return rc;
}
