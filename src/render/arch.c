// arch.c — Figure 1 of the paper, drawn by tviz: the encoder stack on the
// left, the decoder on the right, the block of the current stage
// highlighted. One layout function places everything in its own units; the
// drawing is then scaled uniformly to fit the rectangle and centred, and the
// block rectangles handed back for navigation use the same transform.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// The box texts are the window's navigator, in the interface language through
// render_opts.translate (the CLI stays English); N_ marks them for `make pot`.
#define N_(s) (s)

// ---------------------------------------------------------------- the blocks
typedef enum { K_EMBED, K_PE, K_ATTN, K_NORM, K_FF, K_LINEAR, K_SOFTMAX } kind;

// The blocks of Figure 1 (tf_block, in execution order): what the box says,
// what the block is.
enum {
    B_SRC_EMBED = TF_BLOCK_SRC_EMBED, B_SRC_PE = TF_BLOCK_SRC_PE, B_ENC_ATTN = TF_BLOCK_ENC_ATTN, B_ENC_AN1 = TF_BLOCK_ENC_AN1,
    B_ENC_FF = TF_BLOCK_ENC_FF, B_ENC_AN2 = TF_BLOCK_ENC_AN2, B_ENC_NORM = TF_BLOCK_ENC_NORM, B_TGT_EMBED = TF_BLOCK_TGT_EMBED,
    B_TGT_PE = TF_BLOCK_TGT_PE, B_DEC_SELF = TF_BLOCK_DEC_SELF, B_DEC_AN1 = TF_BLOCK_DEC_AN1, B_DEC_CROSS = TF_BLOCK_DEC_CROSS,
    B_DEC_AN2 = TF_BLOCK_DEC_AN2, B_DEC_FF = TF_BLOCK_DEC_FF, B_DEC_AN3 = TF_BLOCK_DEC_AN3, B_DEC_NORM = TF_BLOCK_DEC_NORM,
    B_LINEAR = TF_BLOCK_LINEAR, B_SOFTMAX = TF_BLOCK_SOFTMAX, B_ENC_LN1 = TF_BLOCK_ENC_LN1, B_ENC_LN2 = TF_BLOCK_ENC_LN2,
    B_DEC_LN1 = TF_BLOCK_DEC_LN1, B_DEC_LN2 = TF_BLOCK_DEC_LN2, B_DEC_LN3 = TF_BLOCK_DEC_LN3, NB = TF_BLOCK_COUNT
};
static const struct {
    const char *text, *label;
    kind k;
} blocks[NB] = {
    [B_SRC_EMBED] = {N_("Input\nEmbedding"), N_("Input embedding"), K_EMBED},
    [B_SRC_PE] = {N_("Positional\nEncoding"), N_("Positional encoding (encoder input)"), K_PE},
    [B_ENC_ATTN] = {N_("Multi-Head\nAttention"), N_("Encoder self-attention"), K_ATTN},
    [B_ENC_AN1] = {N_("Add & Norm"), N_("Encoder add & norm 1"), K_NORM},
    [B_ENC_FF] = {N_("Feed\nForward"), N_("Encoder feed-forward"), K_FF},
    [B_ENC_AN2] = {N_("Add & Norm"), N_("Encoder add & norm 2"), K_NORM},
    [B_ENC_NORM] = {N_("Norm"), N_("Encoder final norm"), K_NORM},
    [B_TGT_EMBED] = {N_("Output\nEmbedding"), N_("Output embedding"), K_EMBED},
    [B_TGT_PE] = {N_("Positional\nEncoding"), N_("Positional encoding (decoder input)"), K_PE},
    [B_DEC_SELF] = {N_("Masked\nMulti-Head\nAttention"), N_("Decoder masked self-attention"), K_ATTN},
    [B_DEC_AN1] = {N_("Add & Norm"), N_("Decoder add & norm 1"), K_NORM},
    [B_DEC_CROSS] = {N_("Multi-Head\nAttention"), N_("Decoder cross-attention"), K_ATTN},
    [B_DEC_AN2] = {N_("Add & Norm"), N_("Decoder add & norm 2"), K_NORM},
    [B_DEC_FF] = {N_("Feed\nForward"), N_("Decoder feed-forward"), K_FF},
    [B_DEC_AN3] = {N_("Add & Norm"), N_("Decoder add & norm 3"), K_NORM},
    [B_DEC_NORM] = {N_("Norm"), N_("Decoder final norm"), K_NORM},
    [B_LINEAR] = {N_("Linear"), N_("Linear (logits)"), K_LINEAR},
    [B_SOFTMAX] = {N_("Softmax"), N_("Softmax (output probabilities)"), K_SOFTMAX},
    // pre-LN (norm_first): a norm before each sublayer
    [B_ENC_LN1] = {N_("Norm"), N_("Encoder norm 1, before attention"), K_NORM},
    [B_ENC_LN2] = {N_("Norm"), N_("Encoder norm 2, before the feed-forward"), K_NORM},
    [B_DEC_LN1] = {N_("Norm"), N_("Decoder norm 1, before masked attention"), K_NORM},
    [B_DEC_LN2] = {N_("Norm"), N_("Decoder norm 2, before cross-attention"), K_NORM},
    [B_DEC_LN3] = {N_("Norm"), N_("Decoder norm 3, before the feed-forward"), K_NORM},
};
// pre-LN: the add & norm blocks are the residual adds alone
static const struct { int b; const char *label; } pre_adds[] = {
    {B_ENC_AN1, N_("Encoder residual 1")}, {B_ENC_AN2, N_("Encoder residual 2")}, {B_DEC_AN1, N_("Decoder residual 1")},
    {B_DEC_AN2, N_("Decoder residual 2")}, {B_DEC_AN3, N_("Decoder residual 3")},
};
static const char *const add_text = N_("Add");

// Okabe & Ito hues, softened towards white like the paper's pastels; text
// on them is always dark, so the boxes read the same in every theme.
static render_rgb soft(unsigned hex, double t) {
    render_rgb c = {((hex >> 16) & 255) / 255.0, ((hex >> 8) & 255) / 255.0, (hex & 255) / 255.0};
    return (render_rgb){1 - t * (1 - c.r), 1 - t * (1 - c.g), 1 - t * (1 - c.b)};
}

static render_rgb kind_fill(kind k) {
    switch (k) {
    case K_EMBED: return soft(0xCC79A7, 0.32);   // reddish purple -> pink
    case K_ATTN: return soft(0xE69F00, 0.42);    // orange
    case K_NORM: return soft(0xF0E442, 0.42);    // yellow
    case K_FF: return soft(0x56B4E9, 0.42);      // sky blue
    case K_LINEAR: return soft(0x6A5ACD, 0.22);  // lavender
    case K_SOFTMAX: return soft(0x009E73, 0.30); // bluish green
    default: return (render_rgb){1, 1, 1};
    }
}

static const render_rgb box_ink = {0.08, 0.08, 0.10};

// ---------------------------------------------------------------- layout
typedef render_rect rect;

enum { ENC, DEC };

typedef struct {
    double u, fs, bw, lw;     // unit of the geometry, box font size, box width, line width
    double head;              // arrowhead length
    rect box[NB];             // each block; for the PE blocks the ⊕, its wave icon and label together
    int has[NB];
    double cx[2];             // column centres
    rect stack[2];            // the N× blocks
    double plus_y[2], plus_r; // the ⊕ (at cx)
    double icon_x[2], icon_r; // the wave icon beside it
    double tap_y[NB];         // sublayers: where the residual leaves the main line
    double fork_y[NB];        // attention: where Q, K, V part (cross: the encoder's K, V wire)
    double in_y[NB];          // sublayers: where the main line starts below them
    double enc_out_y, turn_y, gutter_x;
    char n_text[2][16];       // "6×" or "N×" beside each stack
    double n_h;               // its height
    double badge_h, badge_w;  // the "layer 2 of 6" tag under it, room kept for it always
    double x0, y0, x1, y1;    // extent of everything
    const char *(*translate)(const char *); // render_opts.translate
    int norm_first;           // pre-LN: norms before the sublayers, adds after them
} layout;

// An interface string in the window's language (English without a translator).
static const char *tr(const layout *L, const char *s) __attribute__((format_arg(2)));
static const char *tr(const layout *L, const char *s) { return L->translate ? L->translate(s) : s; }

// What block b's box says and what it is called, in this layout's order of norms.
static const char *block_text(const layout *L, int b) {
    for (size_t k = 0; L->norm_first && k < sizeof pre_adds / sizeof *pre_adds; k++) if (pre_adds[k].b == b) return add_text;
    return blocks[b].text;
}

static const char *block_label(const layout *L, int b) {
    for (size_t k = 0; L->norm_first && k < sizeof pre_adds / sizeof *pre_adds; k++) if (pre_adds[k].b == b) return pre_adds[k].label;
    return blocks[b].label;
}

static double text_h(cairo_t *cr, const char *s, const render_text_style *st) {
    double w, h;
    render_text_size(cr, s, st, &w, &h);
    return h;
}

static double text_w(cairo_t *cr, const char *s, const render_text_style *st) {
    double w, h;
    render_text_size(cr, s, st, &w, &h);
    return w;
}

static render_text_style box_style(const layout *L) {
    render_text_style st = render_style(L->fs, box_ink);
    st.width = L->bw - L->u * 0.8;
    st.align = RENDER_ALIGN_CENTER;
    return st;
}

static render_text_style side_style(const layout *L, render_rgb c) { return render_style(L->fs * 0.88, c); }

// Widest line of any box text at the box font size.
static double widest_line(cairo_t *cr, double fs, const char *(*translate)(const char *)) {
    render_text_style st = render_style(fs, box_ink);
    double mw = 0;
    char line[64];
    for (int b = 0; b < NB; b++)
        for (const char *p = translate ? translate(blocks[b].text) : blocks[b].text; *p;) {
            size_t n = strcspn(p, "\n");
            snprintf(line, sizeof line, "%.*s", (int)n, p);
            mw = fmax(mw, text_w(cr, line, &st));
            p += n + (p[n] == '\n');
        }
    return mw;
}

typedef struct {
    int has_enc_norm, has_dec_norm;
    int L_enc, L_dec, H;   // 0 without a model
    int norm_first;        // pre-LN
} model_info;

static const char *input_text[2] = {N_("Inputs"), N_("Outputs\n(shifted right)")};
static const char *output_text = N_("Output\nProbabilities");

static render_text_style n_style(const layout *L, render_rgb c) {
    render_text_style st = render_style(L->fs * 1.3, c);
    st.bold = 1;
    return st;
}

static render_text_style badge_style(const layout *L, render_rgb c) {
    render_text_style st = side_style(L, c);
    st.bold = 1;
    return st;
}

// Everything's position for box font size fs and box width bw, in units
// where u = 16.
static void arch_layout(cairo_t *cr, layout *L, const model_info *mi, double fs, double bw, const char *(*translate)(const char *)) {
    memset(L, 0, sizeof *L);
    L->translate = translate;
    L->norm_first = mi->norm_first;
    double u = L->u = 16;
    L->fs = fs;
    L->bw = bw;
    render_text_style bs = box_style(L), ss = side_style(L, box_ink), ns = n_style(L, box_ink), gs = badge_style(L, box_ink);
    for (int b = 0; b < NB; b++) L->has[b] = 1;
    L->has[B_ENC_NORM] = mi->has_enc_norm;
    L->has[B_DEC_NORM] = mi->has_dec_norm;
    for (int b = B_ENC_LN1; b <= B_DEC_LN3; b++) L->has[b] = mi->norm_first;
    // box heights: the text plus a margin, at least the paper's proportions
    double hb[NB];
    for (int b = 0; b < NB; b++) {
        double minh = blocks[b].k == K_ATTN ? 3.0 : blocks[b].k == K_FF || blocks[b].k == K_EMBED ? 2.6 : 1.9;
        hb[b] = fmax(minh * u, text_h(cr, tr(L, block_text(L, b)), &bs) + 0.7 * u);
    }
    hb[B_SRC_EMBED] = hb[B_TGT_EMBED] = fmax(hb[B_SRC_EMBED], hb[B_TGT_EMBED]);
    // N× and, under it, the badge: two lines, as wide as the widest it can say
    for (int side = ENC; side <= DEC; side++) {
        int layers = side == ENC ? mi->L_enc : mi->L_dec;
        if (layers > 0) snprintf(L->n_text[side], sizeof L->n_text[side], "%d×", layers);
        else snprintf(L->n_text[side], sizeof L->n_text[side], "N×");
    }
    L->n_h = text_h(cr, "N×", &ns);
    char s1[80], s2[80];
    int most = mi->L_enc > mi->L_dec ? mi->L_enc : mi->L_dec;
    snprintf(s1, sizeof s1, tr(L, "layer %d of %d"), most > 0 ? most : 8, most > 0 ? most : 8);
    snprintf(s2, sizeof s2, tr(L, "head %d of %d"), mi->H > 0 ? mi->H : 8, mi->H > 0 ? mi->H : 8);
    L->badge_w = fmax(text_w(cr, s1, &gs), text_w(cr, s2, &gs)) + 0.8 * u;
    L->badge_h = 2 * text_h(cr, s1, &gs) + 0.5 * u;
    L->plus_r = 0.55 * u;
    L->icon_r = 0.9 * u;
    L->lw = 0.1 * u;
    double margin = 1.4 * u; // inside a stack, beside the boxes: the residual lines
    L->cx[ENC] = 0;
    L->cx[DEC] = bw + 2 * margin + 2.2 * u;
    L->y0 = L->x0 = INFINITY;
    L->y1 = L->x1 = -INFINITY;
    for (int side = ENC; side <= DEC; side++) {
        double cx = L->cx[side], bx = cx - bw / 2;
        int emb = side == ENC ? B_SRC_EMBED : B_TGT_EMBED, pe = emb + 1;
        // y grows downwards; 0 is the bottom of the embeddings
        L->box[emb] = (rect){bx, -hb[emb], bw, hb[emb]};
        double lab_h = text_h(cr, tr(L, input_text[side]), &ss);
        L->y1 = fmax(L->y1, 1.1 * u + lab_h);
        // the ⊕ between embedding and stack, clear of both by its label's height;
        // the PE icon just outside the column, its label beyond
        double pw = text_w(cr, tr(L, blocks[pe].text), &ss), ph = text_h(cr, tr(L, blocks[pe].text), &ss);
        double half = fmax(L->icon_r, ph / 2) + 0.3 * u, pe_gap = fmax(1.3 * u, half - L->plus_r + 0.9 * u);
        L->plus_y[side] = -hb[emb] - pe_gap - L->plus_r;
        double dir = side == ENC ? -1 : 1;
        L->icon_x[side] = cx + dir * (bw / 2 + 0.2 * u);
        double far = L->icon_x[side] + dir * (L->icon_r + 0.4 * u + pw + 0.3 * u);
        double near = cx - dir * (L->plus_r + 0.6 * u);
        L->box[pe] = (rect){fmin(far, near), L->plus_y[side] - half, fabs(far - near), 2 * half};
        L->x0 = fmin(L->x0, L->box[pe].x);
        L->x1 = fmax(L->x1, L->box[pe].x + L->box[pe].w);
        // the stack, bottom to top: gap below each box, then the box
        double bottom = L->plus_y[side] - L->plus_r - pe_gap, y = bottom;
        static const int enc_seq[] = {B_ENC_ATTN, B_ENC_AN1, B_ENC_FF, B_ENC_AN2};
        static const int dec_seq[] = {B_DEC_SELF, B_DEC_AN1, B_DEC_CROSS, B_DEC_AN2, B_DEC_FF, B_DEC_AN3};
        static const int enc_pre[] = {B_ENC_LN1, B_ENC_ATTN, B_ENC_AN1, B_ENC_LN2, B_ENC_FF, B_ENC_AN2};
        static const int dec_pre[] = {B_DEC_LN1, B_DEC_SELF, B_DEC_AN1, B_DEC_LN2, B_DEC_CROSS, B_DEC_AN2, B_DEC_LN3, B_DEC_FF, B_DEC_AN3};
        const int *seq = side == ENC ? (L->norm_first ? enc_pre : enc_seq) : (L->norm_first ? dec_pre : dec_seq);
        int n = (side == ENC ? 4 : 6) * (L->norm_first ? 3 : 2) / 2;
        double in_y = L->plus_y[side] - L->plus_r;
        for (int k = 0; k < n; k++) {
            int b = seq[k];
            kind kk = blocks[b].k;
            int pre_norm = b >= B_ENC_LN1; // below it, the residual leaves the main line
            double gap = pre_norm ? 1.8 * u : kk == K_NORM ? 1.0 * u : b == B_DEC_CROSS ? 2.8 * u : kk == K_ATTN ? 2.3 * u : 1.8 * u;
            L->in_y[b] = in_y;
            L->tap_y[b] = y - 0.7 * u;
            L->fork_y[b] = b == B_DEC_CROSS ? y - 1.8 * u : y - 1.5 * u;
            y -= gap + hb[b];
            L->box[b] = (rect){bx, y, bw, hb[b]};
            in_y = y;
        }
        L->stack[side] = (rect){bx - margin, y - 0.8 * u, bw + 2 * margin, bottom - (y - 0.8 * u)};
        y = L->stack[side].y;
        // above the stack
        static const int enc_top[] = {B_ENC_NORM};
        static const int dec_top[] = {B_DEC_NORM, B_LINEAR, B_SOFTMAX};
        const int *top = side == ENC ? enc_top : dec_top;
        int nt = side == ENC ? 1 : 3, first = 1;
        for (int k = 0; k < nt; k++) {
            int b = top[k];
            if (!L->has[b]) continue;
            y -= (first ? 1.6 * u : 1.3 * u) + hb[b];
            L->box[b] = (rect){bx, y, bw, hb[b]};
            first = 0;
        }
        if (side == ENC) {
            L->enc_out_y = first ? L->stack[ENC].y + 0.8 * u : y;
            L->turn_y = L->enc_out_y - (first ? 1.8 : 1.0) * u; // clear of the stack's border
            L->y0 = fmin(L->y0, L->turn_y);
        } else {
            L->y0 = fmin(L->y0, y - 1.1 * u - text_h(cr, tr(L, output_text), &ss));
        }
        // N× and the badge beside the stack
        double side_w = fmax(text_w(cr, L->n_text[side], &ns), L->badge_w) + 0.5 * u;
        if (side == ENC) L->x0 = fmin(L->x0, L->stack[ENC].x - side_w);
        else L->x1 = fmax(L->x1, L->stack[DEC].x + L->stack[DEC].w + side_w);
    }
    L->gutter_x = (L->stack[ENC].x + L->stack[ENC].w + L->stack[DEC].x) / 2;
}

// ---------------------------------------------------------------- drawing
static void line(cairo_t *cr, double x0, double y0, double x1, double y1) {
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
}

static double mid_y(rect r) { return r.y + r.h / 2; }

// The main line into sublayer b from in_y: straight into a feed-forward,
// parted into V, K, Q for attention (cross-attention: Q only, from the right).
static void feed_wires(cairo_t *cr, const layout *L, int side, int b) {
    rect r = L->box[b];
    double cx = L->cx[side], bot = r.y + r.h;
    double xv = r.x + r.w * 0.2, xk = r.x + r.w * 0.5, xq = r.x + r.w * 0.8;
    if (b == B_DEC_CROSS) { // Q from below on the right; K, V come from the encoder
        line(cr, cx, L->in_y[b], cx, L->tap_y[b]);
        line(cr, cx, L->tap_y[b], xq, L->tap_y[b]);
        render_arrow(cr, xq, L->tap_y[b], xq, bot, L->head);
    } else if (blocks[b].k == K_ATTN) { // one line parts into V, K, Q
        line(cr, cx, L->in_y[b], cx, L->fork_y[b]);
        line(cr, xv, L->fork_y[b], xq, L->fork_y[b]);
        render_arrow(cr, xv, L->fork_y[b], xv, bot, L->head);
        render_arrow(cr, xk, L->fork_y[b], xk, bot, L->head);
        render_arrow(cr, xq, L->fork_y[b], xq, bot, L->head);
    } else {
        render_arrow(cr, cx, L->in_y[b], cx, bot, L->head);
    }
}

// Pre-LN: the main line into norm n, from it into sublayer b; the residual
// leaves below the norm and goes around both into the side of the add a.
static void sublayer_wires_pre(cairo_t *cr, const layout *L, int side, int n, int b, int a) {
    rect nr = L->box[n], r = L->box[b], ar = L->box[a];
    double cx = L->cx[side], res_x = side == ENC ? r.x - 0.75 * L->u : r.x + r.w + 0.75 * L->u;
    render_arrow(cr, cx, L->in_y[n], cx, nr.y + nr.h, L->head);
    cairo_move_to(cr, cx, L->tap_y[n]);
    cairo_line_to(cr, res_x, L->tap_y[n]);
    cairo_line_to(cr, res_x, mid_y(ar));
    cairo_stroke(cr);
    render_arrow(cr, res_x, mid_y(ar), side == ENC ? ar.x : ar.x + ar.w, mid_y(ar), L->head);
    feed_wires(cr, L, side, b);
    render_arrow(cr, cx, r.y, cx, ar.y + ar.h, L->head);
}

// The wires of one sublayer b and its Add & Norm an: the main line up from
// in_y, the residual around the sublayer into the side of Add & Norm.
static void sublayer_wires(cairo_t *cr, const layout *L, int side, int b, int an) {
    rect r = L->box[b], a = L->box[an];
    double cx = L->cx[side];
    double res_x = side == ENC ? r.x - 0.75 * L->u : r.x + r.w + 0.75 * L->u;
    feed_wires(cr, L, side, b);
    // residual: out at the tap, up the outer side, into Add & Norm
    cairo_move_to(cr, cx, L->tap_y[b]);
    cairo_line_to(cr, res_x, L->tap_y[b]);
    cairo_line_to(cr, res_x, mid_y(a));
    cairo_stroke(cr);
    render_arrow(cr, res_x, mid_y(a), side == ENC ? a.x : a.x + a.w, mid_y(a), L->head);
    render_arrow(cr, cx, r.y, cx, a.y + a.h, L->head);
}

static void draw_wires(cairo_t *cr, const layout *L) {
    double u = L->u;
    for (int side = ENC; side <= DEC; side++) {
        double cx = L->cx[side];
        int emb = side == ENC ? B_SRC_EMBED : B_TGT_EMBED;
        rect e = L->box[emb];
        render_arrow(cr, cx, 1.0 * u, cx, e.y + e.h, L->head);                          // inputs -> embedding
        render_arrow(cr, cx, e.y, cx, L->plus_y[side] + L->plus_r, L->head);            // embedding -> ⊕
        double dir = side == ENC ? 1 : -1;                                 // icon -> ⊕
        line(cr, L->icon_x[side] + dir * L->icon_r, L->plus_y[side], cx - dir * L->plus_r, L->plus_y[side]);
    }
    if (L->norm_first) {
        sublayer_wires_pre(cr, L, ENC, B_ENC_LN1, B_ENC_ATTN, B_ENC_AN1);
        sublayer_wires_pre(cr, L, ENC, B_ENC_LN2, B_ENC_FF, B_ENC_AN2);
        sublayer_wires_pre(cr, L, DEC, B_DEC_LN1, B_DEC_SELF, B_DEC_AN1);
        sublayer_wires_pre(cr, L, DEC, B_DEC_LN2, B_DEC_CROSS, B_DEC_AN2);
        sublayer_wires_pre(cr, L, DEC, B_DEC_LN3, B_DEC_FF, B_DEC_AN3);
    } else {
        sublayer_wires(cr, L, ENC, B_ENC_ATTN, B_ENC_AN1);
        sublayer_wires(cr, L, ENC, B_ENC_FF, B_ENC_AN2);
        sublayer_wires(cr, L, DEC, B_DEC_SELF, B_DEC_AN1);
        sublayer_wires(cr, L, DEC, B_DEC_CROSS, B_DEC_AN2);
        sublayer_wires(cr, L, DEC, B_DEC_FF, B_DEC_AN3);
    }
    // encoder top -> (Norm) -> up, across the gutter, into the cross-attention as K and V
    rect an2 = L->box[B_ENC_AN2];
    double cx = L->cx[ENC];
    if (L->has[B_ENC_NORM]) render_arrow(cr, cx, an2.y, cx, L->box[B_ENC_NORM].y + L->box[B_ENC_NORM].h, L->head);
    rect c = L->box[B_DEC_CROSS];
    double wy = L->fork_y[B_DEC_CROSS], xv = c.x + c.w * 0.2, xk = c.x + c.w * 0.45;
    cairo_move_to(cr, cx, L->enc_out_y);
    cairo_line_to(cr, cx, L->turn_y);
    cairo_line_to(cr, L->gutter_x, L->turn_y);
    cairo_line_to(cr, L->gutter_x, wy);
    cairo_line_to(cr, xk, wy);
    cairo_stroke(cr);
    render_arrow(cr, xv, wy, xv, c.y + c.h, L->head);
    render_arrow(cr, xk, wy, xk, c.y + c.h, L->head);
    // decoder top -> (Norm) -> Linear -> Softmax -> output
    static const int chain[] = {B_DEC_AN3, B_DEC_NORM, B_LINEAR, B_SOFTMAX};
    double dx = L->cx[DEC];
    int prev = B_DEC_AN3;
    for (int k = 1; k < 4; k++) {
        if (!L->has[chain[k]]) continue;
        render_arrow(cr, dx, L->box[prev].y, dx, L->box[chain[k]].y + L->box[chain[k]].h, L->head);
        prev = chain[k];
    }
    render_arrow(cr, dx, L->box[B_SOFTMAX].y, dx, L->box[B_SOFTMAX].y - 1.0 * u, L->head);
}

static void draw_box(cairo_t *cr, const layout *L, int b) {
    rect r = L->box[b];
    render_rgb f = kind_fill(blocks[b].k);
    render_rounded(cr, r, 0.35 * L->u);
    render_set_rgb(cr, f);
    cairo_fill_preserve(cr);
    render_set_rgb(cr, (render_rgb){f.r * 0.55, f.g * 0.55, f.b * 0.55});
    cairo_set_line_width(cr, L->lw);
    cairo_stroke(cr);
    render_text_style st = box_style(L);
    double th = text_h(cr, tr(L, block_text(L, b)), &st);
    render_text(cr, tr(L, block_text(L, b)), r.x + 0.4 * L->u, mid_y(r) - th / 2, &st);
}

// The ⊕, the wave icon and the "Positional Encoding" label of one side.
static void draw_pe(cairo_t *cr, const layout *L, int side, const render_theme *th) {
    double cx = L->cx[side], y = L->plus_y[side], r = L->plus_r, ix = L->icon_x[side], ir = L->icon_r;
    cairo_set_line_width(cr, L->lw);
    cairo_new_path(cr); // text leaves a current point; an arc would join it
    cairo_arc(cr, cx, y, r, 0, 2 * M_PI);
    render_set_rgb(cr, th->bg);
    cairo_fill_preserve(cr);
    render_set_rgb(cr, th->fg);
    cairo_stroke(cr);
    line(cr, cx - r, y, cx + r, y);
    line(cr, cx, y - r, cx, y + r);
    cairo_arc(cr, ix, y, ir, 0, 2 * M_PI);
    render_set_rgb(cr, th->bg);
    cairo_fill_preserve(cr);
    render_set_rgb(cr, th->fg);
    cairo_stroke(cr);
    for (int k = 0; k <= 24; k++) { // one period of a sine across the icon
        double t = k / 24.0, px = ix - ir * 0.7 + t * ir * 1.4, py = y - ir * 0.45 * sin(2 * M_PI * t);
        if (k) cairo_line_to(cr, px, py);
        else cairo_move_to(cr, px, py);
    }
    cairo_stroke(cr);
    render_text_style st = side_style(L, th->fg);
    const char *text = tr(L, blocks[side == ENC ? B_SRC_PE : B_TGT_PE].text);
    double tw = text_w(cr, text, &st), tht = text_h(cr, text, &st);
    st.width = tw + 1; // a paragraph, so its two lines align towards the icon
    st.align = side == ENC ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
    double x = side == ENC ? ix - ir - 0.4 * L->u - tw : ix + ir + 0.4 * L->u;
    render_text(cr, text, x, y - tht / 2, &st);
}

// Accent glow and outline around rectangle r.
static void highlight(cairo_t *cr, const layout *L, rect r, render_rgb a, int under) {
    double rad = 0.35 * L->u;
    if (under) {
        for (int k = 3; k >= 1; k--) {
            render_rounded(cr, r, rad);
            cairo_set_source_rgba(cr, a.r, a.g, a.b, 0.16);
            cairo_set_line_width(cr, k * 0.5 * L->u);
            cairo_stroke(cr);
        }
        return;
    }
    render_rounded(cr, r, rad);
    render_set_rgb(cr, a);
    cairo_set_line_width(cr, 0.28 * L->u);
    cairo_stroke(cr);
}

// The column labels, and N× beside each stack (the badge's room kept under it).
static void draw_labels(cairo_t *cr, const layout *L, const render_theme *th) {
    double u = L->u;
    render_text_style st = side_style(L, th->fg);
    st.align = RENDER_ALIGN_CENTER;
    st.width = L->bw + 2 * u;
    for (int side = ENC; side <= DEC; side++)
        render_text(cr, tr(L, input_text[side]), L->cx[side] - L->bw / 2 - u, 1.1 * u, &st);
    double oh = text_h(cr, tr(L, output_text), &st);
    render_text(cr, tr(L, output_text), L->cx[DEC] - L->bw / 2 - u, L->box[B_SOFTMAX].y - 1.1 * u - oh, &st);
    render_text_style ns = n_style(L, th->fg);
    for (int side = ENC; side <= DEC; side++) {
        rect s = L->stack[side];
        ns.align = side == ENC ? RENDER_ALIGN_RIGHT : RENDER_ALIGN_LEFT;
        double y = mid_y(s) - (L->n_h + 0.3 * u + L->badge_h) / 2;
        render_text(cr, L->n_text[side], side == ENC ? s.x - 0.5 * u : s.x + s.w + 0.5 * u, y, &ns);
    }
}

// "layer 2 of 6" / "head 1 of 8" under the N× of the stack the stage is in.
static void draw_badge(cairo_t *cr, const layout *L, const tf_stage *s, const model_info *mi, render_rgb accent) {
    int side = s->side == TF_SIDE_DEC ? DEC : ENC, layers = side == ENC ? mi->L_enc : mi->L_dec;
    char text[160];
    int k = layers > 0 ? snprintf(text, sizeof text, tr(L, "layer %d of %d"), s->layer + 1, layers)
                       : snprintf(text, sizeof text, tr(L, "layer %d"), s->layer + 1);
    if (s->head >= 0 && k > 0 && (size_t)k + 1 < sizeof text) {
        text[k++] = '\n';
        if (mi->H > 0) snprintf(text + k, sizeof text - (size_t)k, tr(L, "head %d of %d"), s->head + 1, mi->H);
        else snprintf(text + k, sizeof text - (size_t)k, tr(L, "head %d"), s->head + 1);
    }
    double u = L->u;
    int dark = 0.2126 * accent.r + 0.7152 * accent.g + 0.0722 * accent.b < 0.55;
    render_text_style st = badge_style(L, dark ? (render_rgb){1, 1, 1} : box_ink);
    double tw = text_w(cr, text, &st), tht = text_h(cr, text, &st);
    rect stack = L->stack[side];
    rect b = {0, mid_y(stack) - (L->n_h + 0.3 * u + L->badge_h) / 2 + L->n_h + 0.3 * u, tw + 0.8 * u, tht + 0.5 * u};
    b.x = side == ENC ? stack.x - 0.5 * u - b.w : stack.x + stack.w + 0.5 * u;
    render_rounded(cr, b, 0.3 * u);
    render_set_rgb(cr, accent);
    cairo_fill(cr);
    st.width = tw + 1;
    st.align = RENDER_ALIGN_CENTER;
    render_text(cr, text, b.x + 0.4 * u, b.y + 0.25 * u, &st);
}

int render_architecture(cairo_t *cr, const tf_trace *t, const tf_model *m, int stage, const render_opts *o, double w,
                        double h, render_arch_box *boxes, int max) {
    if (t && t->n > 0 && tf_stage_is_lstm(&t->stages[0])) return render_unrolled(cr, t, m, stage, o, w, h, boxes, max);
    render_theme th = render_theme_get(o);
    render_set_rgb(cr, th.bg);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
    model_info mi = {0}; // without a model: the paper's figure, N× and no final norms
    if (m) mi = (model_info){m->cfg.has_enc_norm, m->cfg.has_dec_norm, m->cfg.L_enc, m->cfg.L_dec, m->cfg.H, m->cfg.norm_first};
    const tf_stage *s = t && stage >= 0 && stage < t->n ? &t->stages[stage] : NULL;
    double ts = o && o->text_scale > 0 ? o->text_scale : 1;
    // Boxes as wide as the paper's, or as narrow as their words allow when
    // the rectangle is narrower than the drawing. Where the fit would make
    // the type small (a side panel), a second pass sets it larger against
    // the arrows and gaps.
    layout L;
    double boost = 1, sc = 1, W = 1, H = 1;
    for (int pass = 0; pass < 2; pass++) {
        const char *(*translate)(const char *) = o ? o->translate : NULL;
        double fs = 16 * ts * boost, min_bw = widest_line(cr, fs, translate) + 2 * 16, bw = fmax(9 * 16, min_bw);
        arch_layout(cr, &L, &mi, fs, bw, translate);
        W = L.x1 - L.x0 + 2 * L.u;
        H = L.y1 - L.y0 + 2 * L.u;
        if (W / H > w / h) {
            double nbw = fmax(min_bw, bw - (W - H * w / h) / 2);
            arch_layout(cr, &L, &mi, fs, nbw, translate);
            W = L.x1 - L.x0 + 2 * L.u;
            H = L.y1 - L.y0 + 2 * L.u;
        }
        sc = fmax(1e-6, fmin(w / W, h / H));
        double want = 11 * ts / (sc * fs); // the type at least 11 px × text_scale
        if (pass || want <= 1) break;
        boost = fmin(want, 1.5);
    }
    int lit = s ? (int)tf_stage_block(s) : -1;
    if (lit >= 0 && !L.has[lit]) lit = -1;
    // fit: uniform scale, centred, a margin of one unit
    double tx = w / 2 - sc * (L.x0 + L.x1) / 2, ty = h / 2 - sc * (L.y0 + L.y1) / 2;
    if (o && o->high_contrast) L.lw *= 1.6;
    L.head = fmax(0.5 * L.u, 0.3 * L.fs) * (o && o->high_contrast ? 1.25 : 1);
    cairo_save(cr);
    cairo_translate(cr, tx, ty);
    cairo_scale(cr, sc, sc);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    for (int side = ENC; side <= DEC; side++) { // the N× stacks
        render_rounded(cr, L.stack[side], 0.9 * L.u);
        render_set_rgb(cr, th.panel);
        cairo_fill_preserve(cr);
        render_set_rgb(cr, th.grid);
        cairo_set_line_width(cr, L.lw * 1.2);
        cairo_stroke(cr);
    }
    if (lit >= 0) { // a tint under the ⊕ group, a glow under a box
        if (blocks[lit].k == K_PE) {
            render_rounded(cr, L.box[lit], 0.35 * L.u);
            cairo_set_source_rgba(cr, th.accent.r, th.accent.g, th.accent.b, 0.18);
            cairo_fill(cr);
        }
        highlight(cr, &L, L.box[lit], th.accent, 1);
    }
    render_set_rgb(cr, th.fg);
    cairo_set_line_width(cr, L.lw);
    draw_wires(cr, &L);
    for (int b = 0; b < NB; b++)
        if (L.has[b] && blocks[b].k != K_PE) draw_box(cr, &L, b);
    draw_pe(cr, &L, ENC, &th);
    draw_pe(cr, &L, DEC, &th);
    draw_labels(cr, &L, &th);
    if (lit >= 0) highlight(cr, &L, L.box[lit], th.accent, 0);
    if (lit >= 0 && s->layer >= 0) draw_badge(cr, &L, s, &mi, th.accent);
    cairo_restore(cr);
    int n = 0;
    for (int b = 0; b < NB; b++) {
        if (!L.has[b]) continue;
        if (boxes && n < max) {
            render_arch_box *x = &boxes[n];
            rect r = L.box[b];
            *x = (render_arch_box){tx + sc * r.x, ty + sc * r.y, sc * r.w, sc * r.h, (tf_block)b, tr(&L, block_label(&L, b)), -1, -1};
        }
        n++;
    }
    return n;
}
