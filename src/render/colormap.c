// colormap.c — the colour maps, each colour-blind safe: viridis and cividis
// (sequential), ColorBrewer RdBu and PuOr (diverging), and gray for print.
#include "render.h"

#include <math.h>
#include <string.h>

static const char *names[RENDER_CMAP_COUNT] = {"viridis", "cividis", "rdbu", "puor", "gray"};

// viridis as the degree-6 polynomial fit to matplotlib's table (within
// about 1% everywhere); t in [0,1].
static render_rgb viridis(double t) {
    static const double c[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832},
    };
    double v[3];
    for (int k = 0; k < 3; k++) {
        double a = c[6][k];
        for (int i = 5; i >= 0; i--) a = a * t + c[i][k];
        v[k] = a < 0 ? 0 : a > 1 ? 1 : a;
    }
    return (render_rgb){v[0], v[1], v[2]};
}

// Piecewise-linear through n anchor colours (0xRRGGBB), evenly spaced.
static render_rgb ramp(const unsigned *hex, int n, double t) {
    double x = t * (n - 1);
    int i = (int)floor(x);
    if (i >= n - 1) i = n - 2;
    double f = x - i;
    render_rgb a = {((hex[i] >> 16) & 255) / 255.0, ((hex[i] >> 8) & 255) / 255.0, (hex[i] & 255) / 255.0};
    render_rgb b = {((hex[i + 1] >> 16) & 255) / 255.0, ((hex[i + 1] >> 8) & 255) / 255.0, (hex[i + 1] & 255) / 255.0};
    return (render_rgb){a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// cividis (Nuñez, Anderton & Renslow 2018) at 0, ¼, ½, ¾, 1
static const unsigned cividis[] = {0x00204D, 0x414D6B, 0x7C7B78, 0xBCAF6F, 0xFFEA46};
// ColorBrewer RdBu, 11 classes, from blue (negative) through white to red (positive)
static const unsigned rdbu[] = {0x053061, 0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7,
                                0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B, 0x67001F};
// ColorBrewer PuOr, 11 classes, from purple (negative) through white to orange (positive)
static const unsigned puor[] = {0x2D004B, 0x542788, 0x8073AC, 0xB2ABD2, 0xD8DAEB, 0xF7F7F7,
                                0xFEE0B6, 0xFDB863, 0xE08214, 0xB35806, 0x7F3B08};

render_rgb render_cmap_at(render_cmap m, double t) {
    if (!(t >= 0)) t = 0; // NaN too
    if (t > 1) t = 1;
    switch (m) {
    case RENDER_CMAP_CIVIDIS: return ramp(cividis, 5, t);
    case RENDER_CMAP_RDBU: return ramp(rdbu, 11, t);
    case RENDER_CMAP_PUOR: return ramp(puor, 11, t);
    case RENDER_CMAP_GRAY: return (render_rgb){1 - t, 1 - t, 1 - t};
    default: return viridis(t);
    }
}

int render_cmap_is_diverging(render_cmap m) { return m == RENDER_CMAP_RDBU || m == RENDER_CMAP_PUOR; }
const char *render_cmap_name(render_cmap m) { return m < RENDER_CMAP_COUNT ? names[m] : "?"; }
const char *render_cmap_names(void) { return "viridis, cividis, rdbu, puor, gray"; }

int render_cmap_parse(const char *name, render_cmap *out) {
    for (int i = 0; i < RENDER_CMAP_COUNT; i++)
        if (!strcmp(name, names[i])) { *out = (render_cmap)i; return 0; }
    return -1;
}
