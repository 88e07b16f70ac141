// bench.c — `make bench`: how fast tviz loads a model and runs one fully
// instrumented forward pass (every stage recorded), beside the physical
// floor: the time to read the weights once from memory.
// Then the time to export an attention heatmap as PNG, SVG and PDF, and
// `tviz export --all` on the big model.
// Usage: bench SMALL_MODEL [BIG_MODEL [TVIZ]]   Prints medians; asserts nothing.
#include "../../src/app/draw.h"
#include "../../src/cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "frames.h"
#include <omp.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: bench SMALL_MODEL [BIG_MODEL [TVIZ]]\n"); return 2; }
    const char *src = "I really enjoy learning transformers", *tgt = "I really enjoy learning transformers";
    double bw1 = memory_bandwidth(0), bw = memory_bandwidth(1);
    printf("memory read bandwidth: %.1f GB/s on one core, %.1f GB/s on all %d (median of 7 passes over 256 MB)\n\n",
           bw1 / 1e9, bw / 1e9, omp_get_max_threads());
    printf("%-44s %10s %12s %12s %12s %8s\n", "model", "params", "load (ms)", "forward (ms)", "floor (ms)", "ratio");
    for (int k = 1; k < argc && k < 3; k++) {
        tf_model m;
        tf_err e;
        double tl[5], tf[15];
        for (int r = 0; r < 5; r++) {
            double t0 = now();
            if (tf_model_load(&m, argv[k], &e)) { fprintf(stderr, "bench: %s: %s\n", argv[k], e.msg); return 1; }
            tl[r] = now() - t0;
            if (r < 4) tf_model_free(&m);
        }
        int runs = m.cfg.C >= 256 ? 9 : 15;
        int stages = 0;
        for (int r = -1; r < runs; r++) { // r = -1 warms up the thread pool
            tf_run run;
            double t0 = now();
            if (tf_run_sentence(&run, &m, src, tgt, &e)) { fprintf(stderr, "bench: %s\n", e.msg); return 1; }
            if (r >= 0) tf[r] = now() - t0;
            stages = run.trace.n;
            tf_run_free(&run);
        }
        double floor_s = (double)m.n_params * sizeof(float) / bw;
        double fwd = median(tf, runs);
        printf("%-44s %10zu %12.3f %12.3f %12.3f %7.2fx\n", argv[k], m.n_params, median(tl, 5) * 1e3, fwd * 1e3, floor_s * 1e3, fwd / floor_s);
        printf("    (d_model %d, %d heads, %d+%d layers, d_ff %d; %d stages recorded; source 5 tokens, decoder input 6)\n",
               m.cfg.C, m.cfg.H, m.cfg.L_enc, m.cfg.L_dec, m.cfg.F, stages);
        tf_model_free(&m);
    }
    // Export: one attention heatmap at 1200 × 1000 in each format, then --all.
    if (argc >= 3) {
        tf_model m;
        tf_err e;
        tf_run r;
        if (tf_model_load(&m, argv[2], &e) || tf_run_sentence(&r, &m, src, tgt, &e)) { fprintf(stderr, "bench: %s\n", e.msg); return 1; }
        render_opts o;
        render_opts_default(&o);
        int st = tf_trace_find(&r.trace, "dec.0.cross_attn.head.0.weights");
        printf("\nexport of %s (%d × %d) at 1200 × 1000, %s:\n", r.trace.stages[st].id, r.trace.stages[st].rows, r.trace.stages[st].cols, argv[2]);
        static const char *names[] = {"PNG", "SVG", "PDF"};
        double png_ms = 1;
        for (int f = IO_PNG; f <= IO_PDF; f++) {
            double t[9];
            size_t bytes = 0;
            for (int k = 0; k < 9; k++) {
                unsigned char *out;
                double t0 = now();
                if (io_draw(&(io_picture){.t = &r.trace, .m = &m, .stage = st, .view = RENDER_VIEW_HEATMAP, .opts = o, .w = 1200, .h = 1000, .scale = 1, .fmt = (io_format)f}, &out, &bytes)) return 1;
                t[k] = now() - t0;
                free(out);
            }
            printf("  %-4s %8.1f ms  (%zu KB; median of 9)\n", names[f], median(t, 9) * 1e3, bytes / 1024);
            if (f == IO_PNG) png_ms = median(t, 9) * 1e3;
        }
        // The anchor: the same figure by matplotlib (imshow + colour bar + cell texts + savefig), in this run.
        {
            const tf_stage *hs = &r.trace.stages[st];
            char title[300];
            render_stage_title(&r.trace, st, &o, title, sizeof title);
            FILE *jf = fopen("build/bench-heatmap.json", "w");
            if (jf) {
                fprintf(jf, "{\"title\": \"%s\", \"rows\": [", title);
                for (int i = 0; i < hs->rows; i++) fprintf(jf, "%s\"%s\"", i ? ", " : "", r.trace.tgt_labels[i]);
                fprintf(jf, "], \"cols\": [");
                for (int j = 0; j < hs->cols; j++) fprintf(jf, "%s\"%s\"", j ? ", " : "", r.trace.src_labels[j]);
                fprintf(jf, "], \"data\": [");
                for (int i = 0; i < hs->rows; i++) {
                    fprintf(jf, "%s[", i ? ", " : "");
                    for (int j = 0; j < hs->cols; j++) fprintf(jf, "%s%.6f", j ? ", " : "", (double)hs->data[i * hs->cols + j]);
                    fprintf(jf, "]");
                }
                fprintf(jf, "]}\n");
                fclose(jf);
            }
            FILE *py = popen("/usr/bin/python3 tests/bench/heatmap_matplotlib.py build/bench-heatmap.json 9 2>&1", "r");
            char line[300] = "";
            double mpl = 0;
            long mpl_bytes = 0;
            if (py) {
                if (!fgets(line, sizeof line, py)) line[0] = 0;
                pclose(py);
            }
            if (sscanf(line, "median_ms %lf bytes %ld", &mpl, &mpl_bytes) == 2 && mpl > 0)
                printf("  matplotlib, the same figure as PNG: %.1f ms (%ld KB; median of 9): tviz is %.1fx faster (goal: <= 10 ms and >= 10x)\n", mpl,
                       mpl_bytes / 1024, mpl / png_ms);
            else printf("  matplotlib: skipped (%s)", line[0] ? line : "no python3\n");
        }
        // The window's frame at 1920 × 1080 (drawing only, as app_draw does it
        // into the window's texture), for the densest views of the big model.
        tf_run_free(&r);
        if (tf_run_sentence(&r, &m, src, "I really enjoy learning transformers", &e)) return 1;
        app_world wd = {.m = &m, .r = &r, .model_name = "base"};
        const bench_frame frames[] = {
            {"enc.0.self_attn.head.0.weights", 1, APP_MODE_AUTO, "all 8 heads of an attention layer"},
            {"enc.0.self_attn.head.0.weights", 1, APP_MODE_LINES, "the lines of all 8 heads"},
            {"dec.5.cross_attn.head.0.weights", 0, APP_MODE_GRID, "every layer and head (grid)"},
            {"dec.5.ffn.hidden", 0, APP_MODE_AUTO, "a 6 × 2048 FFN matrix"},
            {"dec.5.cross_attn.head.7.weights", 0, APP_MODE_AUTO, "one cross-attention heatmap"},
        };
        printf("\nwindow frame at 1920 × 1080, %s:\n", argv[2]);
        for (size_t k = 0; k < sizeof frames / sizeof *frames; k++) {
            double t = frame_median(&frames[k], &wd, src, "x");
            if (t < 0) return 1;
            printf("  %-36s %7.1f ms  (median of 15; goal for the densest: <= 4 ms)\n", frames[k].what, t * 1e3);
        }
        tf_run_free(&r);
        tf_model_free(&m);
        // Start-up to the first frame (no window): load, run, draw.
        double t[5];
        for (int i = 0; i < 5; i++) {
            double t0 = now();
            if (tf_model_load(&m, argv[1], &e) || tf_run_sentence(&r, &m, src, NULL, &e)) return 1;
            cairo_surface_t *s1 = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
            cairo_t *c1 = cairo_create(s1);
            app_world w1 = {.m = &m, .r = &r, .model_name = "worked-example"};
            app_state st;
            app_layout lay;
            app_state_init(&st, src, "");
            app_state_attach(&st, &r.trace);
            app_draw(c1, &st, &w1, 1920, 1080, &lay);
            cairo_surface_flush(s1);
            t[i] = now() - t0;
            cairo_destroy(c1);
            cairo_surface_destroy(s1);
            tf_run_free(&r);
            tf_model_free(&m);
        }
        printf("  start-up to the first frame (%s, no window): %.1f ms (median of 5)\n", argv[1], median(t, 5) * 1e3);
        if (argc >= 4 && getenv("DISPLAY")) { // with a display: the real window, opened and closed
            char cmd[4200];
            snprintf(cmd, sizeof cmd, "%s --size 1920x1080 --quit >/dev/null 2>&1", argv[3]);
            for (int i = 0; i < 5; i++) {
                double t0 = now();
                if (system(cmd)) { fprintf(stderr, "bench: %s failed\n", cmd); return 1; }
                t[i] = now() - t0;
            }
            printf("  tviz --quit (window opened, first frame drawn, closed): %.0f ms (median of 5)\n", median(t, 5) * 1e3);
        }
        if (argc >= 4) { // argv[3]: the tviz program, for `export --all`
            char cmd[8192];
            snprintf(cmd, sizeof cmd, "%s export --model %s --src '%s' --tgt '%s' --all -o build/bench-all 2>/dev/null", argv[3], argv[2], src, tgt);
            double t[3];
            for (int k = 0; k < 3; k++) {
                if (system("rm -rf build/bench-all")) return 1;
                double t0 = now();
                if (system(cmd)) { fprintf(stderr, "bench: %s failed\n", cmd); return 1; }
                t[k] = now() - t0;
            }
            printf("  export --all (every stage and figure, PNG): %.1f s (median of 3; goal <= 5 s on two cores)\n", median(t, 3));
        }
        // An animated GIF of 8 decoding steps at 800 × 600 (as export --animate decoding draws them), on the small model.
        {
            tf_model sm;
            if (tf_model_load(&sm, argv[1], &e)) return 1;
            const char *gsrc = src; // (the worked example decodes 15 tokens)
            double tg[5];
            for (int k = 0; k < 5; k++) {
                double t0 = now();
                io_gif *g = io_gif_begin(800, 600, 800);
                cairo_surface_t *fs = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 800, 600);
                cairo_t *fc = cairo_create(fs);
                for (int step = 1; step <= 8; step++) {
                    tf_run gr;
                    if (tf_run_greedy(&gr, &sm, gsrc, step, &e)) return 1;
                    int gst = tf_trace_find(&gr.trace, "dec.0.cross_attn.head.0.weights");
                    render_draw(fc, &gr.trace, &sm, gst, RENDER_VIEW_HEATMAP, &o, 800, 600);
                    if (io_gif_frame(g, fs)) return 1;
                    tf_run_free(&gr);
                }
                unsigned char *gb;
                size_t gn;
                if (io_gif_end(g, &gb, &gn)) return 1;
                free(gb);
                cairo_destroy(fc);
                cairo_surface_destroy(fs);
                tg[k] = now() - t0;
            }
            printf("  a GIF of 8 decoding steps at 800 × 600 (%s): %.0f ms (median of 5; goal <= 1 s)\n", argv[1], median(tg, 5) * 1e3);
            tf_model_free(&sm);
        }
    }
    printf("\nforward = median of tf_run_sentence (tokenize, encoder, decoder, softmax, trace) with a given target;\n"
           "floor = parameter bytes / all-core memory bandwidth, the time to read every weight once; goal: forward <= 2x floor.\n"
           "Threads: OMP_NUM_THREADS (default: one per core).\n");
    return 0;
}
