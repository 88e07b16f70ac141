// icon.c — `tviz icon`: the program's icon, drawn by tviz itself. A masked
// attention heatmap: a decoder's causal self-attention over five words, each
// row a softmax over the words so far (the masked cells above the diagonal
// pale and hatched), in viridis on the fixed [0, 1] scale, on a rounded tile.
// make install draws it at every hicolor size, and as SVG.
#include "cli.h"

#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// (T, T) attention weights, each row summing to 1, zero above the diagonal
// (masked): five words, or three below 32 pixels, where five blur.
static const double icon_w5[5][5] = {
    {1.00, 0, 0, 0, 0},
    {0.20, 0.80, 0, 0, 0},
    {0.10, 0.15, 0.75, 0, 0},
    {0.05, 0.30, 0.05, 0.60, 0},
    {0.10, 0.05, 0.25, 0.10, 0.50},
};
static const double icon_w3[3][3] = {{1.00, 0, 0}, {0.25, 0.75, 0}, {0.10, 0.30, 0.60}};

static const char *icon_help =
    "Usage: tviz icon [--size N] [--format png|svg] -o FILE\n"
    "Draws tviz's icon, a masked attention heatmap, N pixels square (default 256,\n"
    "16 to 1024), as PNG, or as SVG when FILE ends in .svg or --format svg says so.\n";

static void rounded(cairo_t *cr, double x, double y, double w, double h, double r) {
    cairo_new_sub_path(cr);
    cairo_arc(cr, x + w - r, y + r, r, -M_PI / 2, 0);
    cairo_arc(cr, x + w - r, y + h - r, r, 0, M_PI / 2);
    cairo_arc(cr, x + r, y + h - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, x + r, y + r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

// The icon in an s × s square. snap: cell edges on whole pixels (PNG).
static void draw_icon(cairo_t *cr, double s, int snap) {
    int n = s < 32 ? 3 : 5;
    double m = s * 0.06, tile = s - 2 * m; // hicolor icons keep a margin
    rounded(cr, m, m, tile, tile, tile * 0.18);
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.98);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.62, 0.63, 0.72); // an edge, so the tile shows on a white desktop too
    cairo_set_line_width(cr, fmax(1, s / 64));
    cairo_stroke(cr);
    double gap = fmax(1, round(s / 48)), pad = tile * 0.13;
    double cell = (tile - 2 * pad - gap * (n - 1)) / n;
    if (snap) cell = floor(cell);
    double x0 = snap ? floor((s - (n * cell + (n - 1) * gap)) / 2) : (s - (n * cell + (n - 1) * gap)) / 2;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = x0 + j * (cell + gap), y = x0 + i * (cell + gap);
            double w = n == 5 ? icon_w5[i][j] : icon_w3[i][j];
            cairo_rectangle(cr, x, y, cell, cell);
            if (j > i) { // masked (−∞): pale, hatched where there is room, as tviz draws it
                cairo_set_source_rgb(cr, 0.85, 0.86, 0.90);
                cairo_fill(cr);
                if (cell < 12) continue;
                cairo_save(cr);
                cairo_rectangle(cr, x, y, cell, cell);
                cairo_clip(cr);
                cairo_set_source_rgb(cr, 0.72, 0.73, 0.80);
                cairo_set_line_width(cr, fmax(1, cell / 14));
                for (double k = -cell; k < cell; k += cell / 3) {
                    cairo_move_to(cr, x + k, y + cell);
                    cairo_line_to(cr, x + k + cell, y);
                }
                cairo_stroke(cr);
                cairo_restore(cr);
            } else {
                render_set_rgb(cr, render_cmap_at(RENDER_CMAP_VIRIDIS, w));
                cairo_fill(cr);
            }
        }
}

int cmd_icon(int argc, char **argv) {
    const char *out = NULL, *size_s = "256", *fmt_s = NULL;
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(icon_help, stdout); return 0; }
        if ((k = io_opt(argc, argv, &i, "--size", NULL, &size_s))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--format", NULL, &fmt_s))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--output", "-o", &out))) { if (k < 0) return 1; continue; }
        return io_error(argv[i], "unknown option for 'icon'; see tviz icon --help");
    }
    long size;
    if (cli_whole("--size", size_s, 16, 1024, &size)) return 1;
    if (!out) return io_error("icon", "needs -o FILE, where to write the icon (e.g. -o tviz.png)");
    size_t ol = strlen(out);
    int svg = ol > 4 && !strcmp(out + ol - 4, ".svg");
    if (fmt_s && !strcmp(fmt_s, "svg")) svg = 1;
    else if (fmt_s && !strcmp(fmt_s, "png")) svg = 0;
    else if (fmt_s) return io_error("--format", "\"%s\" is not png or svg", fmt_s);

    io_membuf b = {0};
    cairo_surface_t *sf = svg ? cairo_svg_surface_create_for_stream(io_membuf_sink, &b, (double)size, (double)size)
                              : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)size, (int)size);
    cairo_t *cr = cairo_create(sf);
    draw_icon(cr, (double)size, !svg);
    cairo_destroy(cr);
    unsigned char *png = NULL;
    size_t n = 0;
    int rc;
    if (svg) {
        cairo_surface_finish(sf);
        rc = cairo_surface_status(sf) || b.failed ? io_error(out, "could not draw the icon (out of memory?); nothing was written")
                                                  : io_write_file(out, (const char *)b.p, b.n);
    } else {
        rc = cairo_surface_status(sf) || io_png_surface(sf, &png, &n) ? io_error(out, "could not draw the icon (out of memory?); nothing was written")
                                                                      : io_write_file(out, (const char *)png, n);
    }
    cairo_surface_destroy(sf);
    free(png);
    free(b.p);
    return rc;
}
