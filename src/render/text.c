// text.c — every piece of text tviz draws goes through pango (HarfBuzz
// shaping, FriBidi ordering), so Persian and Arabic letters join and run
// right to left, and mixed Latin/RTL labels keep their order.
#include "render.h"

#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

#define FONT_SANS "Noto Sans, Noto Sans Arabic, DejaVu Sans"
#define FONT_MONO "DejaVu Sans Mono, Noto Sans Mono, Noto Sans Arabic"

// ---------------------------------------------------------------- pieces that never break
// A lesson's code spans and stage ids come as <span allow_breaks="false">
// (src/lesson/lesson.c): pango moves such a piece to the next line whole.
// One wider than the whole line cannot fit anywhere, and would stick out of
// the paragraph: it then breaks only at its spaces, no-break ones too (a
// formula between its terms, never inside 10000^(2i/d_model)), and a piece without spaces still
// wider than a line breaks where pango likes. The other pieces of the
// paragraph stay whole.

static gboolean is_no_break(PangoAttribute *a, gpointer data) {
    (void)data;
    return a->klass->type == PANGO_ATTR_ALLOW_BREAKS && !((PangoAttrInt *)a)->value;
}

// The length of the space at text + i (a space, or a no-break one: a lesson
// may have glued a formula with them), or 0.
static int space_at(const char *text, guint i) {
    const unsigned char *p = (const unsigned char *)text + i;
    return p[0] == ' ' ? 1 : p[0] == 0xC2 && p[1] == 0xA0 ? 2 : p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0xAF ? 3 : 0;
}

// The byte ranges of the lines of l that stick out of its width (by more
// than a hair), two ints each, at most max lines; returns how many.
static int lines_out(PangoLayout *l, int *range, int max) {
    int width = pango_layout_get_width(l), n = 0;
    PangoLayoutIter *it = pango_layout_get_iter(l);
    do {
        PangoRectangle r;
        pango_layout_iter_get_line_extents(it, NULL, &r);
        if ((r.x < -PANGO_SCALE || r.x + r.width > width + PANGO_SCALE) && n < max) {
            PangoLayoutLine *line = pango_layout_iter_get_line_readonly(it);
            range[2 * n] = line->start_index;
            range[2 * n + 1] = line->start_index + line->length;
            n++;
        }
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    return n;
}

static void keep_pieces_whole(PangoLayout *l) {
    const char *text = pango_layout_get_text(l);
    int out[64];
    for (int round = 0; round < 8; round++) {
        int n_out = pango_layout_get_attributes(l) ? lines_out(l, out, 32) : 0;
        if (!n_out) return;
        PangoAttrList *al = pango_attr_list_copy(pango_layout_get_attributes(l));
        PangoAttrList *pieces = pango_attr_list_filter(al, is_no_break, NULL); // (al keeps the rest)
        if (!pieces) { pango_attr_list_unref(al); return; }
        GSList *list = pango_attr_list_get_attributes(pieces);
        // the pieces on a line that sticks out: split the ones with spaces at
        // their spaces; if none has a space, let them break anywhere
        int split = 0, changed = 0;
        for (int pass = 0; pass < 2; pass++)
            for (GSList *p = list; p; p = p->next) {
                PangoAttribute *a = p->data;
                int on_out = 0, spaces = 0;
                for (int k = 0; k < n_out; k++) on_out |= (int)a->start_index < out[2 * k + 1] && (int)a->end_index > out[2 * k];
                for (guint i = a->start_index; i < a->end_index && text[i]; i++) spaces |= space_at(text, i) > 0;
                if (pass == 0) { split |= on_out && spaces; continue; }
                if (on_out && !spaces && !split) { changed = 1; continue; } // dropped: breaks anywhere
                if (!on_out || !spaces) { pango_attr_list_insert(al, pango_attribute_copy(a)); continue; } // kept
                for (guint i = a->start_index; i < a->end_index && text[i];) { // one piece per run between spaces
                    while (i < a->end_index && space_at(text, i)) i += (guint)space_at(text, i);
                    guint j = i;
                    while (j < a->end_index && text[j] && !space_at(text, j)) j++;
                    if (j > i) {
                        PangoAttribute *b = pango_attr_allow_breaks_new(FALSE);
                        b->start_index = i;
                        b->end_index = j;
                        pango_attr_list_insert(al, b);
                    }
                    i = j;
                }
                changed = 1;
            }
        g_slist_free_full(list, (GDestroyNotify)pango_attribute_destroy);
        pango_attr_list_unref(pieces);
        if (changed) pango_layout_set_attributes(l, al);
        pango_attr_list_unref(al);
        if (!changed) return;
    }
}

// ---------------------------------------------------------------- laid-out text, kept
// Shaping is most of what drawing text costs, and a window draws the same
// titles, labels and lesson paragraphs frame after frame: a laid-out text is
// kept (keyed by its thread, text and style; unhinted metrics make it the
// same at every scale) and drawn again. Each thread has its own layouts (a
// PangoLayout is not for two threads at once); when the table is full it
// starts again.
#define KEPT_MAX 2000
static GHashTable *kept;
static GMutex kept_lock;

static char *kept_key(const char *text, int markup, const render_text_style *s) {
    GString *k = g_string_sized_new(strlen(text) + 96);
    g_string_append_printf(k, "%p|%d|%.3f|%d%d%d|%d|%.3f|%.3f|%d|", (void *)g_thread_self(), markup, s->size, s->bold, s->italic, s->mono,
                           s->align, s->width, s->max_width, s->dir);
    for (int i = 0; i < s->n_marks; i++) g_string_append_printf(k, "%d-%d,", s->marks[2 * i], s->marks[2 * i + 1]);
    if (s->n_marks) g_string_append_printf(k, "%.3f,%.3f,%.3f|", s->mark_color.r, s->mark_color.g, s->mark_color.b);
    g_string_append(k, text);
    return g_string_free(k, FALSE);
}

static PangoLayout *new_layout(cairo_t *cr, const char *text, int markup, const render_text_style *s);

static PangoLayout *make_layout(cairo_t *cr, const char *text, int markup, const render_text_style *s) {
    char *key = kept_key(text, markup, s);
    g_mutex_lock(&kept_lock);
    if (!kept) kept = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_object_unref);
    PangoLayout *l = g_hash_table_lookup(kept, key);
    if (l) g_object_ref(l);
    g_mutex_unlock(&kept_lock);
    if (l) { // (not updated to cr: its metrics are unhinted, the same under any transformation; cairo draws its glyphs for cr)
        g_free(key);
        return l;
    }
    l = new_layout(cr, text, markup, s);
    PangoRectangle r;
    pango_layout_get_extents(l, NULL, &r); // (laid out now, before another use)
    g_mutex_lock(&kept_lock);
    if (g_hash_table_size(kept) >= KEPT_MAX) g_hash_table_remove_all(kept);
    g_hash_table_replace(kept, key, g_object_ref(l));
    g_mutex_unlock(&kept_lock);
    return l;
}

static PangoLayout *new_layout(cairo_t *cr, const char *text, int markup, const render_text_style *s) {
    PangoLayout *l = pango_cairo_create_layout(cr);
    // Unhinted metrics: text measures the same at every scale, so an export
    // at 2x is exactly the 1x picture, sharper.
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(pango_layout_get_context(l), fo);
    cairo_font_options_destroy(fo);
    pango_layout_context_changed(l);
    PangoFontDescription *fd = pango_font_description_from_string(s->mono ? FONT_MONO : FONT_SANS);
    // Half-pixel steps: pango and cairo cache a font per size, and a window
    // being resized would otherwise ask for a new size every frame.
    pango_font_description_set_absolute_size(fd, round(s->size * 2) / 2 * PANGO_SCALE);
    if (s->bold) pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
    if (s->italic) pango_font_description_set_style(fd, PANGO_STYLE_ITALIC);
    pango_layout_set_font_description(l, fd);
    pango_font_description_free(fd);
    // A wrapped paragraph takes its direction from its text, so a Persian
    // paragraph is right-aligned; a label keeps the alignment asked for (its
    // letters are still shaped and ordered right to left).
    pango_layout_set_auto_dir(l, s->width > 0 && s->dir == RENDER_DIR_AUTO);
    if (s->dir != RENDER_DIR_AUTO) {
        pango_context_set_base_dir(pango_layout_get_context(l), s->dir == RENDER_DIR_RTL ? PANGO_DIRECTION_RTL : PANGO_DIRECTION_LTR);
        pango_layout_context_changed(l);
    }
    if (markup) pango_layout_set_markup(l, text, -1);
    else pango_layout_set_text(l, text, -1);
    if (s->n_marks > 0) { // a thin underline in a soft colour under each range
        PangoAttrList *al = pango_layout_get_attributes(l);
        al = al ? pango_attr_list_copy(al) : pango_attr_list_new();
        for (int i = 0; i < s->n_marks; i++) {
            PangoAttribute *u = pango_attr_underline_new(PANGO_UNDERLINE_SINGLE_LINE);
            PangoAttribute *c = pango_attr_underline_color_new((guint16)(s->mark_color.r * 65535), (guint16)(s->mark_color.g * 65535),
                                                               (guint16)(s->mark_color.b * 65535));
            u->start_index = c->start_index = (guint)s->marks[2 * i];
            u->end_index = c->end_index = (guint)s->marks[2 * i + 1];
            pango_attr_list_insert(al, u);
            pango_attr_list_insert(al, c);
        }
        pango_layout_set_attributes(l, al);
        pango_attr_list_unref(al);
    }
    if (s->width > 0) {
        // One line height for the whole paragraph: a Persian word inside an
        // English line (or a Latin one inside Persian) comes from a font with
        // other ascents, and would otherwise push its line apart from the rest.
        PangoAttrList *al = pango_layout_get_attributes(l);
        al = al ? pango_attr_list_copy(al) : pango_attr_list_new();
        pango_attr_list_insert_before(al, pango_attr_line_height_new_absolute((int)(s->size * (s->dir == RENDER_DIR_RTL ? 1.75 : 1.45) * PANGO_SCALE)));
        pango_layout_set_attributes(l, al);
        pango_attr_list_unref(al);
        pango_layout_set_width(l, (int)(s->width * PANGO_SCALE));
        pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
        // With auto direction, pango swaps left and right for a right-to-left
        // paragraph, so "left" means "where the text starts".
        // A paragraph forced right to left starts at the right, like one whose
        // direction pango found by itself.
        int start_right = s->dir == RENDER_DIR_RTL;
        pango_layout_set_alignment(l, s->align == RENDER_ALIGN_CENTER ? PANGO_ALIGN_CENTER
                                      : (s->align == RENDER_ALIGN_RIGHT) != start_right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT);
        keep_pieces_whole(l);
    } else if (s->max_width > 0) {
        pango_layout_set_width(l, (int)(s->max_width * PANGO_SCALE));
        pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
        pango_layout_set_single_paragraph_mode(l, TRUE);
    }
    return l;
}

static void layout_size(PangoLayout *l, const render_text_style *s, double *w, double *h) {
    PangoRectangle logical;
    pango_layout_get_extents(l, NULL, &logical);
    *w = (double)logical.width / PANGO_SCALE;
    *h = (double)logical.height / PANGO_SCALE;
    if (s->width > 0) *w = s->width;
}

static double draw_layout(cairo_t *cr, PangoLayout *l, double x, double y, const render_text_style *s) {
    double w, h;
    layout_size(l, s, &w, &h);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (s->angle != 0) cairo_rotate(cr, s->angle);
    if (s->width <= 0) {
        if (s->align == RENDER_ALIGN_CENTER) cairo_translate(cr, -w / 2, 0);
        else if (s->align == RENDER_ALIGN_RIGHT) cairo_translate(cr, -w, 0);
    }
    cairo_set_source_rgb(cr, s->color.r, s->color.g, s->color.b);
    cairo_move_to(cr, 0, 0);
    pango_cairo_show_layout(cr, l);
    cairo_restore(cr);
    g_object_unref(l);
    return h;
}

double render_text(cairo_t *cr, const char *utf8, double x, double y, const render_text_style *s) {
    return draw_layout(cr, make_layout(cr, utf8, 0, s), x, y, s);
}

double render_markup(cairo_t *cr, const char *markup, double x, double y, const render_text_style *s) {
    return draw_layout(cr, make_layout(cr, markup, 1, s), x, y, s);
}

void render_text_size(cairo_t *cr, const char *utf8, const render_text_style *s, double *w, double *h) {
    PangoLayout *l = make_layout(cr, utf8, 0, s);
    layout_size(l, s, w, h);
    g_object_unref(l);
}

void render_markup_size(cairo_t *cr, const char *markup, const render_text_style *s, double *w, double *h) {
    PangoLayout *l = make_layout(cr, markup, 1, s);
    layout_size(l, s, w, h);
    g_object_unref(l);
}

int render_markup_plain(const char *markup, char *buf, size_t n) {
    char *text = NULL;
    if (!pango_parse_markup(markup, -1, 0, NULL, &text, NULL, NULL)) return -1;
    snprintf(buf, n, "%s", text);
    g_free(text);
    return 0;
}

int render_markup_index(cairo_t *cr, const char *markup, const render_text_style *s, double x, double y) {
    PangoLayout *l = make_layout(cr, markup, 1, s);
    double w, h;
    layout_size(l, s, &w, &h);
    if (s->width <= 0 && s->align == RENDER_ALIGN_CENTER) x += w / 2; // as draw_layout places it
    else if (s->width <= 0 && s->align == RENDER_ALIGN_RIGHT) x += w;
    int index = -1, trailing = 0;
    if (x < 0 || y < 0 || y >= h || !pango_layout_xy_to_index(l, (int)(x * PANGO_SCALE), (int)(y * PANGO_SCALE), &index, &trailing)) index = -1;
    g_object_unref(l);
    return index;
}

int render_markup_lines(cairo_t *cr, const char *markup, const render_text_style *s, int *starts, double *over, int max) {
    PangoLayout *l = make_layout(cr, markup, 1, s);
    int width = pango_layout_get_width(l), n = 0;
    PangoLayoutIter *it = pango_layout_get_iter(l);
    do {
        PangoRectangle r;
        pango_layout_iter_get_line_extents(it, NULL, &r);
        if (n < max) {
            starts[n] = pango_layout_iter_get_line_readonly(it)->start_index; // (the iterator's index is the leftmost run's)
            over[n] = width < 0 ? 0 : fmax(0, fmax(-r.x, r.x + r.width - width)) / PANGO_SCALE;
        }
        n++;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    g_object_unref(l);
    return n;
}

double render_text_caret(cairo_t *cr, const char *utf8, const render_text_style *s, int i) {
    PangoLayout *l = make_layout(cr, utf8, 0, s);
    PangoRectangle strong;
    pango_layout_get_cursor_pos(l, i, &strong, NULL);
    g_object_unref(l);
    return (double)strong.x / PANGO_SCALE;
}
