// frames.h — the window's frame at 1920 × 1080 as the benchmarks time it:
// app_draw into an image surface (as into the window's texture), the median
// of 15 draws. For bench.c and marian.c, which link src/app.
#ifndef BENCH_FRAMES_H
#define BENCH_FRAMES_H

#include "../../src/app/draw.h"
#include "bench.h"

typedef struct { const char *id; int all_heads; app_mode mode; const char *what; } bench_frame;

// Seconds, or -1 when the run's trace has no stage f->id. The state starts on
// the sentences src and tgt.
static inline double frame_median(const bench_frame *f, const app_world *wd, const char *src, const char *tgt) {
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1920, 1080);
    cairo_t *cr = cairo_create(sf);
    app_state st;
    app_layout lay;
    app_state_init(&st, src, tgt);
    app_state_attach(&st, &wd->r->trace);
    double t[15], ms = -1;
    if (!app_state_goto(&st, &wd->r->trace, f->id)) {
        st.all_heads = f->all_heads;
        st.mode = f->mode;
        for (int i = 0; i < 15; i++) {
            double t0 = now();
            app_draw(cr, &st, wd, 1920, 1080, &lay);
            cairo_surface_flush(sf);
            t[i] = now() - t0;
        }
        ms = median(t, 15);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    return ms;
}

#endif
