// cairo.h (browser build) — the part of cairo's API that tviz's views call,
// implemented by src/web/cairo.c over CanvasKit. The views in src/render and
// src/app include <cairo.h> and compile unchanged: on the desktop they get
// Debian's cairo, in the browser this file (the web build puts src/web/include
// first on the include path). Semantics follow cairo's documentation: a path
// is built in user space and kept in device space; the line width is taken
// at stroke time; save/restore keep the whole graphics state with the clip.
#ifndef TVIZ_WEB_CAIRO_H
#define TVIZ_WEB_CAIRO_H

typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo_pattern cairo_pattern_t;

typedef enum { CAIRO_STATUS_SUCCESS = 0, CAIRO_STATUS_NO_MEMORY = 1, CAIRO_STATUS_WRITE_ERROR = 11 } cairo_status_t;
typedef enum { CAIRO_FORMAT_ARGB32 = 0, CAIRO_FORMAT_RGB24 = 1 } cairo_format_t;
typedef enum { CAIRO_FILTER_FAST, CAIRO_FILTER_GOOD, CAIRO_FILTER_BEST, CAIRO_FILTER_NEAREST, CAIRO_FILTER_BILINEAR } cairo_filter_t;
typedef enum { CAIRO_LINE_CAP_BUTT, CAIRO_LINE_CAP_ROUND, CAIRO_LINE_CAP_SQUARE } cairo_line_cap_t;
typedef enum { CAIRO_LINE_JOIN_MITER, CAIRO_LINE_JOIN_ROUND, CAIRO_LINE_JOIN_BEVEL } cairo_line_join_t;
typedef enum { CAIRO_ANTIALIAS_DEFAULT, CAIRO_ANTIALIAS_NONE, CAIRO_ANTIALIAS_GRAY, CAIRO_ANTIALIAS_SUBPIXEL, CAIRO_ANTIALIAS_FAST,
               CAIRO_ANTIALIAS_GOOD, CAIRO_ANTIALIAS_BEST } cairo_antialias_t;

// contexts
cairo_t *cairo_create(cairo_surface_t *target);
void cairo_destroy(cairo_t *cr);
void cairo_save(cairo_t *cr);
void cairo_restore(cairo_t *cr);
cairo_status_t cairo_status(cairo_t *cr);

// transformations
void cairo_translate(cairo_t *cr, double tx, double ty);
void cairo_scale(cairo_t *cr, double sx, double sy);
void cairo_rotate(cairo_t *cr, double angle);
void cairo_user_to_device_distance(cairo_t *cr, double *dx, double *dy);

// paths
void cairo_new_path(cairo_t *cr);
void cairo_new_sub_path(cairo_t *cr);
void cairo_move_to(cairo_t *cr, double x, double y);
void cairo_line_to(cairo_t *cr, double x, double y);
void cairo_rel_line_to(cairo_t *cr, double dx, double dy);
void cairo_curve_to(cairo_t *cr, double x1, double y1, double x2, double y2, double x3, double y3);
void cairo_arc(cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2);
void cairo_rectangle(cairo_t *cr, double x, double y, double width, double height);
void cairo_close_path(cairo_t *cr);

// painting
void cairo_set_source_rgb(cairo_t *cr, double red, double green, double blue);
void cairo_set_source_rgba(cairo_t *cr, double red, double green, double blue, double alpha);
void cairo_set_source(cairo_t *cr, cairo_pattern_t *source);
void cairo_set_source_surface(cairo_t *cr, cairo_surface_t *surface, double x, double y);
cairo_pattern_t *cairo_get_source(cairo_t *cr);
void cairo_set_line_width(cairo_t *cr, double width);
void cairo_set_line_cap(cairo_t *cr, cairo_line_cap_t cap);
void cairo_set_line_join(cairo_t *cr, cairo_line_join_t join);
void cairo_set_dash(cairo_t *cr, const double *dashes, int num_dashes, double offset);
void cairo_set_antialias(cairo_t *cr, cairo_antialias_t antialias);
void cairo_stroke(cairo_t *cr);
void cairo_fill(cairo_t *cr);
void cairo_fill_preserve(cairo_t *cr);
void cairo_paint(cairo_t *cr);
void cairo_clip(cairo_t *cr);

// patterns
cairo_pattern_t *cairo_pattern_create_linear(double x0, double y0, double x1, double y1);
void cairo_pattern_add_color_stop_rgb(cairo_pattern_t *pattern, double offset, double red, double green, double blue);
void cairo_pattern_set_filter(cairo_pattern_t *pattern, cairo_filter_t filter);
void cairo_pattern_destroy(cairo_pattern_t *pattern);

// image surfaces: pixels in memory (cairo's layout: native-endian 0xAARRGGBB
// words, premultiplied; RGB24 ignores the top byte), drawn on by CanvasKit
// when a context is created on them and read back by cairo_surface_flush.
cairo_surface_t *cairo_image_surface_create(cairo_format_t format, int width, int height);
unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
int cairo_image_surface_get_stride(cairo_surface_t *surface);
int cairo_image_surface_get_width(cairo_surface_t *surface);
int cairo_image_surface_get_height(cairo_surface_t *surface);
cairo_status_t cairo_surface_status(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
void cairo_surface_mark_dirty(cairo_surface_t *surface);
void cairo_surface_destroy(cairo_surface_t *surface);

// ---------------------------------------------------------------- not cairo's: the browser's own
// The page's <canvas>, w × h device pixels (CanvasKit's surface made by the page's script).
cairo_surface_t *cairo_web_screen_surface(int w, int h);
// Sends what was drawn on the screen to the page.
void cairo_web_present(cairo_surface_t *surface);
// For text.c: the canvas a context draws on (an id the page's script knows), and
// the current transformation (xx, yx, xy, yy, x0, y0, as cairo_matrix_t).
int cairo_web_canvas(cairo_t *cr);
void cairo_web_matrix(cairo_t *cr, double m[6]);

#endif
