// canvaskit.h — what the page's script (src/web/canvaskit.js, linked with
// --js-library) draws with CanvasKit for cairo.c and text.c. Canvases,
// images, shaders and paragraphs are ids of objects the script keeps
// (0: none); coordinates are device pixels; colours are straight RGBA in [0,1].
#ifndef TVIZ_WEB_CANVASKIT_H
#define TVIZ_WEB_CANVASKIT_H

enum { CK_MOVE, CK_LINE, CK_CUBIC, CK_CLOSE }; // path verbs: 1, 1, 3 and 0 points

// canvases: the page's (resized to w × h) and raster ones for image surfaces
int ck_canvas_screen(int w, int h);
int ck_canvas_new(int w, int h);
void ck_canvas_free(int canvas);
void ck_canvas_read(int canvas, unsigned char *argb32, int stride, int w, int h); // premultiplied, as cairo keeps them
void ck_present(int canvas);
void ck_save(int canvas);
void ck_restore(int canvas);

// a path (n verbs, their points) becomes the script's current path
void ck_path(const unsigned char *verbs, int n, const float *pts);
void ck_fill(int canvas, const float *rgba, int shader, int aa);
void ck_stroke(int canvas, const float *rgba, int shader, int aa, float width, int cap, int join, const float *dash, int n_dash,
               float dash_offset);
void ck_clip(int canvas, int aa);
void ck_fill_rect(int canvas, float x0, float y0, float x1, float y1, const float *rgba, int aa);
void ck_clip_rect(int canvas, float x0, float y0, float x1, float y1, int aa);
void ck_paint(int canvas, const float *rgba, int shader);

// images from pixels (cairo's ARGB32, or RGB24 when opaque) and the shaders that paint them
int ck_image_new(const unsigned char *data, int w, int h, int stride, int opaque);
void ck_image_free(int image);
int ck_shader_image(int image, const float *m6, int nearest); // m6: image pixels -> device, as cairo_matrix_t
int ck_shader_linear(float x0, float y0, float x1, float y1, const float *stops, int n); // stops: offset, r, g, b
void ck_shader_free(int shader);

// text (text.c): a paragraph from runs of one style each, laid out once and
// kept by id until ck_par_clear (text.c keeps which text and style each id is)
int ck_par_new(const char *utf8, const float *runs, int n_runs, const float *style);
void ck_par_clear(void);
void ck_par_draw(int canvas, int par, const float *m6); // m6: paragraph -> device, as cairo_matrix_t
void ck_par_metrics(int par, float *out); // width, height, longest line, lines, max intrinsic width
int ck_par_lines(int par, float *out, int max); // each line: start (UTF-16), left, width; returns the number of lines
int ck_par_index(int par, float x, float y);   // the UTF-16 position at (x, y)
float ck_par_caret(int par, int i16, int rtl);  // the x of the caret before UTF-16 position i16

#endif
