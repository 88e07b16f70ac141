// trace.c — the Trace: every intermediate of the forward pass as a named
// matrix. It is one table of stage definitions laid over the activation
// structs (offsets into tf_acts, tf_layer_acts, tf_attn_acts); the math in
// model.c and ops.c has no hooks and knows nothing of it.
#include "tf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Marks the words a learner reads (titles, formula glosses) for `make pot`;
// src/render translates them. The model itself stays English and prints nothing.
#define N_(s) (s)

// Sizes a definition can name. X is the sequence of the current side (S in
// the encoder, T in the decoder); Q and K are an attention block's query and
// key lengths.
enum { DIM_S, DIM_T, DIM_X, DIM_Q, DIM_K, DIM_C, DIM_D, DIM_F, DIM_V };

// Attention flavours, for the formulas that differ between them.
enum { ENC_SELF, DEC_SELF, CROSS };

typedef struct {
    const char *name;      // id suffix, e.g. "add1" or "self_attn.q"
    const char *title;
    const char *formula[3];// by attention flavour; [0] alone when the same
    size_t off;            // offsetof the float * in its struct (of the block, for a nested attention block)
    int rows, cols;        // DIM_*
    tf_kind kind;
    tf_op op;
    tf_sublayer sub;       // TF_SUB_SELF_ATTN inside an attention block: the block says which
    int index;             // add & norm: 1, 2, 3
} stage_def;

#define ONE(f) {f, NULL, NULL}
#define SIGNED TF_KIND_SIGNED
#define PROB TF_KIND_PROB

// One attention block: projections, then each head, then concat and W_O.
static const stage_def attn_defs[] = {
    {"q", N_("Queries"), {"Q = X·W_Q + b_Q", NULL, N_("Q = Y·W_Q + b_Q  (Y: decoder, after Add & Norm 1)")}, offsetof(tf_attn_acts, q), DIM_Q, DIM_C, SIGNED, TF_OP_Q, TF_SUB_SELF_ATTN, 0},
    {"k", N_("Keys"), {"K = X·W_K + b_K", NULL, N_("K = Z·W_K + b_K  (Z: encoder output)")}, offsetof(tf_attn_acts, k), DIM_K, DIM_C, SIGNED, TF_OP_K, TF_SUB_SELF_ATTN, 0},
    {"v", N_("Values"), {"V = X·W_V + b_V", NULL, N_("V = Z·W_V + b_V  (Z: encoder output)")}, offsetof(tf_attn_acts, v), DIM_K, DIM_C, SIGNED, TF_OP_V, TF_SUB_SELF_ATTN, 0},
};
static const stage_def head_defs[] = {
    {"scores", N_("Scores"), ONE("Q_h·K_hᵀ"), offsetof(tf_attn_acts, scores), DIM_Q, DIM_K, SIGNED, TF_OP_SCORES, TF_SUB_SELF_ATTN, 0},
    {"scaled", N_("Scaled scores"), ONE("Q_h·K_hᵀ / √d_k"), offsetof(tf_attn_acts, scaled), DIM_Q, DIM_K, SIGNED, TF_OP_SCALED, TF_SUB_SELF_ATTN, 0},
    {"masked", N_("Masked scores"),
     {N_("no mask: one sentence has no padding"), N_("−∞ where key j > query i (causal mask)"), N_("no mask: every target position sees every source word")},
     offsetof(tf_attn_acts, masked), DIM_Q, DIM_K, TF_KIND_MASKED, TF_OP_MASKED, TF_SUB_SELF_ATTN, 0},
    {"weights", N_("Attention weights"), ONE(N_("softmax(Q_h·K_hᵀ / √d_k), each row sums to 1")), offsetof(tf_attn_acts, weights), DIM_Q, DIM_K, PROB, TF_OP_WEIGHTS, TF_SUB_SELF_ATTN, 0},
    {"out", N_("Head output"), ONE("head_h = softmax(Q_h·K_hᵀ / √d_k)·V_h"), offsetof(tf_attn_acts, head_out), DIM_Q, DIM_D, SIGNED, TF_OP_HEAD_OUT, TF_SUB_SELF_ATTN, 0},
};
static const stage_def attn_tail_defs[] = {
    {"concat", N_("Heads concatenated"), ONE("Concat(head_1, …, head_h)"), offsetof(tf_attn_acts, concat), DIM_Q, DIM_C, SIGNED, TF_OP_CONCAT, TF_SUB_SELF_ATTN, 0},
    {"out", N_("Attention output"), ONE("MultiHead = Concat(head_1, …, head_h)·W_O + b_O"), offsetof(tf_attn_acts, out), DIM_Q, DIM_C, SIGNED, TF_OP_OUT, TF_SUB_SELF_ATTN, 0},
};

static const stage_def enc_layer_defs[] = {
    {"self_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, self_attn), 0, 0, SIGNED, 0, TF_SUB_SELF_ATTN, 0},
    {"add1", N_("Residual 1"), ONE("x + MultiHead(x)"), offsetof(tf_layer_acts, add1), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 1},
    {"norm1", N_("Layer norm 1"), ONE("LayerNorm(x + MultiHead(x))"), offsetof(tf_layer_acts, norm1), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_ADD_NORM, 1},
    {"ffn.hidden", N_("Feed-forward hidden"), ONE("max(0, x·W_1 + b_1)"), offsetof(tf_layer_acts, ffn_hidden), DIM_X, DIM_F, SIGNED, TF_OP_FFN_HIDDEN, TF_SUB_FFN, 0},
    {"ffn.out", N_("Feed-forward output"), ONE("FFN(x) = max(0, x·W_1 + b_1)·W_2 + b_2"), offsetof(tf_layer_acts, ffn_out), DIM_X, DIM_C, SIGNED, TF_OP_FFN_OUT, TF_SUB_FFN, 0},
    {"add2", N_("Residual 2"), ONE("x + FFN(x)"), offsetof(tf_layer_acts, add2), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 2},
    {"norm2", N_("Layer norm 2"), ONE("LayerNorm(x + FFN(x))"), offsetof(tf_layer_acts, norm2), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_ADD_NORM, 2},
};
static const stage_def dec_layer_defs[] = {
    {"self_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, self_attn), 0, 0, SIGNED, 0, TF_SUB_SELF_ATTN, 0},
    {"add1", N_("Residual 1"), ONE("y + MaskedMultiHead(y)"), offsetof(tf_layer_acts, add1), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 1},
    {"norm1", N_("Layer norm 1"), ONE("LayerNorm(y + MaskedMultiHead(y))"), offsetof(tf_layer_acts, norm1), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_ADD_NORM, 1},
    {"cross_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, cross_attn), 0, 0, SIGNED, 0, TF_SUB_CROSS_ATTN, 0},
    {"add2", N_("Residual 2"), ONE("y + MultiHead(y, Z, Z)"), offsetof(tf_layer_acts, add2), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 2},
    {"norm2", N_("Layer norm 2"), ONE("LayerNorm(y + MultiHead(y, Z, Z))"), offsetof(tf_layer_acts, norm2), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_ADD_NORM, 2},
    {"ffn.hidden", N_("Feed-forward hidden"), ONE("max(0, y·W_1 + b_1)"), offsetof(tf_layer_acts, ffn_hidden), DIM_X, DIM_F, SIGNED, TF_OP_FFN_HIDDEN, TF_SUB_FFN, 0},
    {"ffn.out", N_("Feed-forward output"), ONE("FFN(y) = max(0, y·W_1 + b_1)·W_2 + b_2"), offsetof(tf_layer_acts, ffn_out), DIM_X, DIM_C, SIGNED, TF_OP_FFN_OUT, TF_SUB_FFN, 0},
    {"add3", N_("Residual 3"), ONE("y + FFN(y)"), offsetof(tf_layer_acts, add3), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 3},
    {"norm3", N_("Layer norm 3"), ONE("LayerNorm(y + FFN(y))"), offsetof(tf_layer_acts, norm3), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_ADD_NORM, 3},
};
// Pre-LN layers (norm_first, as torch's TransformerEncoderLayer(norm_first=True)):
// x = x + Sublayer(LayerNorm(x)). The norms move before their sublayers and
// get ids of their own (pre_norm1, 2, 3); each add hands its sum on.
static const stage_def enc_layer_pre_defs[] = {
    {"pre_norm1", N_("Layer norm 1, before attention"), ONE("LayerNorm(x)"), offsetof(tf_layer_acts, norm1), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_PRE_NORM, 1},
    {"self_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, self_attn), 0, 0, SIGNED, 0, TF_SUB_SELF_ATTN, 0},
    {"add1", N_("Residual 1"), ONE("x + MultiHead(LayerNorm(x))"), offsetof(tf_layer_acts, add1), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 1},
    {"pre_norm2", N_("Layer norm 2, before the feed-forward"), ONE("LayerNorm(x)"), offsetof(tf_layer_acts, norm2), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_PRE_NORM, 2},
    {"ffn.hidden", N_("Feed-forward hidden"), ONE("max(0, LayerNorm(x)·W_1 + b_1)"), offsetof(tf_layer_acts, ffn_hidden), DIM_X, DIM_F, SIGNED, TF_OP_FFN_HIDDEN, TF_SUB_FFN, 0},
    {"ffn.out", N_("Feed-forward output"), ONE("FFN(LayerNorm(x)) = max(0, LayerNorm(x)·W_1 + b_1)·W_2 + b_2"), offsetof(tf_layer_acts, ffn_out), DIM_X, DIM_C, SIGNED, TF_OP_FFN_OUT, TF_SUB_FFN, 0},
    {"add2", N_("Residual 2"), ONE("x + FFN(LayerNorm(x))"), offsetof(tf_layer_acts, add2), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 2},
};
static const stage_def dec_layer_pre_defs[] = {
    {"pre_norm1", N_("Layer norm 1, before masked attention"), ONE("LayerNorm(y)"), offsetof(tf_layer_acts, norm1), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_PRE_NORM, 1},
    {"self_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, self_attn), 0, 0, SIGNED, 0, TF_SUB_SELF_ATTN, 0},
    {"add1", N_("Residual 1"), ONE("y + MaskedMultiHead(LayerNorm(y))"), offsetof(tf_layer_acts, add1), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 1},
    {"pre_norm2", N_("Layer norm 2, before cross-attention"), ONE("LayerNorm(y)"), offsetof(tf_layer_acts, norm2), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_PRE_NORM, 2},
    {"cross_attn", NULL, ONE(NULL), offsetof(tf_layer_acts, cross_attn), 0, 0, SIGNED, 0, TF_SUB_CROSS_ATTN, 0},
    {"add2", N_("Residual 2"), ONE("y + MultiHead(LayerNorm(y), Z, Z)"), offsetof(tf_layer_acts, add2), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 2},
    {"pre_norm3", N_("Layer norm 3, before the feed-forward"), ONE("LayerNorm(y)"), offsetof(tf_layer_acts, norm3), DIM_X, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_PRE_NORM, 3},
    {"ffn.hidden", N_("Feed-forward hidden"), ONE("max(0, LayerNorm(y)·W_1 + b_1)"), offsetof(tf_layer_acts, ffn_hidden), DIM_X, DIM_F, SIGNED, TF_OP_FFN_HIDDEN, TF_SUB_FFN, 0},
    {"ffn.out", N_("Feed-forward output"), ONE("FFN(LayerNorm(y)) = max(0, LayerNorm(y)·W_1 + b_1)·W_2 + b_2"), offsetof(tf_layer_acts, ffn_out), DIM_X, DIM_C, SIGNED, TF_OP_FFN_OUT, TF_SUB_FFN, 0},
    {"add3", N_("Residual 3"), ONE("y + FFN(LayerNorm(y))"), offsetof(tf_layer_acts, add3), DIM_X, DIM_C, SIGNED, TF_OP_ADD, TF_SUB_ADD_NORM, 3},
};
static const stage_def src_defs[] = {
    {"src.embed", N_("Source embedding"), ONE(N_("E[token]·√d_model (or the model's embed_scale)")), offsetof(tf_acts, src_embed), DIM_S, DIM_C, SIGNED, TF_OP_EMBED, TF_SUB_NONE, 0},
    {"src.pe", N_("Positional encoding"), ONE("PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(…)"), offsetof(tf_acts, src_pe), DIM_S, DIM_C, SIGNED, TF_OP_PE, TF_SUB_NONE, 0},
    {"src.input", N_("Encoder input"), ONE("X = E + PE"), offsetof(tf_acts, src_input), DIM_S, DIM_C, SIGNED, TF_OP_INPUT, TF_SUB_NONE, 0},
};
static const stage_def enc_norm_def =
    {"enc.norm", N_("Encoder final norm"), ONE("Z = LayerNorm(x)"), offsetof(tf_acts, enc_norm), DIM_S, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_FINAL_NORM, 0};
static const stage_def tgt_defs[] = {
    {"tgt.embed", N_("Target embedding"), ONE(N_("E[token]·√d_model (or the model's embed_scale), inputs shifted right by <bos>")), offsetof(tf_acts, tgt_embed), DIM_T, DIM_C, SIGNED, TF_OP_EMBED, TF_SUB_NONE, 0},
    {"tgt.pe", N_("Positional encoding"), ONE("PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(…)"), offsetof(tf_acts, tgt_pe), DIM_T, DIM_C, SIGNED, TF_OP_PE, TF_SUB_NONE, 0},
    {"tgt.input", N_("Decoder input"), ONE("Y = E + PE"), offsetof(tf_acts, tgt_input), DIM_T, DIM_C, SIGNED, TF_OP_INPUT, TF_SUB_NONE, 0},
};
static const stage_def dec_norm_def =
    {"dec.norm", N_("Decoder final norm"), ONE("LayerNorm(y)"), offsetof(tf_acts, dec_norm), DIM_T, DIM_C, SIGNED, TF_OP_NORM, TF_SUB_FINAL_NORM, 0};
static const stage_def out_defs[] = {
    {"out.logits", N_("Logits"), ONE(N_("y·Eᵀ + b  (the generator, tied to the target embedding when absent)")), offsetof(tf_acts, logits), DIM_T, DIM_V, SIGNED, TF_OP_LOGITS, TF_SUB_NONE, 0},
    {"out.probs", N_("Output probabilities"), ONE(N_("softmax(logits) over the vocabulary")), offsetof(tf_acts, probs), DIM_T, DIM_V, PROB, TF_OP_PROBS, TF_SUB_NONE, 0},
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct {
    tf_trace *t;
    const tf_acts *a;
    const tf_config *c;
    tf_side side;
    tf_sublayer attn;         // the attention block being emitted (self or cross)
    int layer, head, flavour; // flavour: ENC_SELF, DEC_SELF or CROSS within attention
    int X, Q, K;              // lengths of the current side and attention block
    tf_axis ax_x, ax_q, ax_k;
} ctx;

static int dim_size(const ctx *x, int d) {
    switch (d) {
    case DIM_S: return x->a->S;
    case DIM_T: return x->a->T;
    case DIM_X: return x->X;
    case DIM_Q: return x->Q;
    case DIM_K: return x->K;
    case DIM_C: return x->c->C;
    case DIM_D: return x->c->D;
    case DIM_F: return x->c->F;
    default: return x->c->V_tgt;
    }
}

static tf_axis dim_axis(const ctx *x, int d) {
    switch (d) {
    case DIM_S: return TF_AXIS_SRC;
    case DIM_T: return TF_AXIS_TGT;
    case DIM_X: return x->ax_x;
    case DIM_Q: return x->ax_q;
    case DIM_K: return x->ax_k;
    case DIM_V: return TF_AXIS_VOCAB;
    default: return TF_AXIS_DIM;
    }
}

// What if? A stage a switched-off part changes directly says so in its title
// or formula (the parts: tf.h, tf_config.without).
static void switched_off(const ctx *x, tf_stage *s) {
    int w = x->c->without;
    switch (s->op) {
    case TF_OP_PE:
        if (w & TF_WITHOUT_PE) {
            s->title = N_("Positional encoding (switched off)");
            s->formula = N_("PE = 0: the model is given no word positions (what if: without pe)");
        }
        break;
    case TF_OP_INPUT:
        if (w & TF_WITHOUT_PE) s->formula = s->side == TF_SIDE_SRC ? N_("X = E  (no positional encoding)") : N_("Y = E  (no positional encoding)");
        break;
    case TF_OP_SCALED:
        if (w & TF_WITHOUT_SCALE) {
            s->title = N_("Scores, not scaled");
            s->formula = N_("Q_h·K_hᵀ, not divided by √d_k (what if: without scale)");
        }
        break;
    case TF_OP_WEIGHTS:
        if (w & TF_WITHOUT_SCALE) s->formula = N_("softmax(Q_h·K_hᵀ) without √d_k, each row sums to 1");
        break;
    case TF_OP_HEAD_OUT:
        if (w & TF_WITHOUT_SCALE) s->formula = "head_h = softmax(Q_h·K_hᵀ)·V_h";
        break;
    case TF_OP_MASKED:
        if ((w & TF_WITHOUT_MASK) && s->side == TF_SIDE_DEC && s->sublayer == TF_SUB_SELF_ATTN) {
            s->title = N_("Scores, no mask");
            s->formula = N_("no mask: every position sees every target position, later ones too (what if: without mask)");
        }
        break;
    case TF_OP_ADD:
        if (w & TF_WITHOUT_RESIDUAL) {
            s->title = N_("Sublayer output (residual switched off)");
            s->formula = N_("Sublayer(x) alone: x is not added back (what if: without residual)");
        }
        break;
    case TF_OP_NORM:
        if ((w & TF_WITHOUT_RESIDUAL) && s->sublayer == TF_SUB_ADD_NORM) s->formula = N_("LayerNorm(Sublayer(x)), no residual");
        break;
    case TF_OP_Q: // pre-LN: the queries of cross-attention come from the second norm
        if (x->c->norm_first && s->sublayer == TF_SUB_CROSS_ATTN) s->formula = N_("Q = LayerNorm(y)·W_Q + b_Q  (y: decoder, after residual 1)");
        break;
    default: break;
    }
}

// Appends one stage. base is the struct the definition's offset refers to;
// extra offsets the data (one head's slice). t->stages NULL only counts.
// A MarianMT model's own formulas where it differs from the paper: the
// positional encoding's halves and the feed-forward's activation (post-LN only).
static const char *model_formula(const tf_config *c, const stage_def *d, int decoder, const char *paper) {
    static const char *const ffn[3][2][2] = { // [act][decoder][out]
        {{NULL, NULL}, {NULL, NULL}},
        {{"SiLU(x·W_1 + b_1) = z·σ(z)", "FFN(x) = SiLU(x·W_1 + b_1)·W_2 + b_2"},
         {"SiLU(y·W_1 + b_1) = z·σ(z)", "FFN(y) = SiLU(y·W_1 + b_1)·W_2 + b_2"}},
        {{"GELU(x·W_1 + b_1) = z·Φ(z)", "FFN(x) = GELU(x·W_1 + b_1)·W_2 + b_2"},
         {"GELU(y·W_1 + b_1) = z·Φ(z)", "FFN(y) = GELU(y·W_1 + b_1)·W_2 + b_2"}},
    };
    if (d->op == TF_OP_PE) return c->pe_split ? "PE(pos, j) = sin(pos / 10000^(2j/d_model)), PE(pos, d_model/2 + j) = cos(…)" : paper;
    if (c->norm_first || c->act == TF_ACT_RELU) return paper;
    return ffn[c->act][decoder][d->op == TF_OP_FFN_OUT];
}

static void emit(ctx *x, const stage_def *d, const void *base, size_t extra, const char *id) {
    tf_trace *t = x->t;
    if (t->stages) {
        tf_stage *s = &t->stages[t->n];
        snprintf(s->id, sizeof s->id, "%s", id);
        s->title = d->title;
        s->formula = d->formula[x->flavour] ? d->formula[x->flavour] : d->formula[0];
        if (d->op == TF_OP_PE || d->op == TF_OP_FFN_HIDDEN || d->op == TF_OP_FFN_OUT) s->formula = model_formula(x->c, d, x->side == TF_SIDE_DEC, s->formula);
        s->family = TF_FAMILY_TRANSFORMER;
        s->side = x->side;
        s->layer = x->layer;
        s->sublayer = d->sub == TF_SUB_SELF_ATTN ? x->attn : d->sub;
        s->op = d->op;
        s->index = d->index;
        s->head = x->head;
        s->step = -1;
        s->rows = dim_size(x, d->rows);
        s->cols = dim_size(x, d->cols);
        s->row_axis = dim_axis(x, d->rows);
        s->col_axis = dim_axis(x, d->cols);
        s->kind = d->kind;
        s->data = *(float *const *)((const char *)base + d->off) + extra;
        switched_off(x, s);
    }
    t->n++;
}

static void emit_list(ctx *x, const stage_def *defs, int n, const void *base, const char *prefix) {
    char id[80];
    for (int i = 0; i < n; i++) {
        snprintf(id, sizeof id, "%s%s", prefix, defs[i].name);
        emit(x, &defs[i], base, 0, id);
    }
}

static void emit_attention(ctx *x, const tf_attn_acts *aa, const char *prefix) {
    char id[80];
    emit_list(x, attn_defs, N(attn_defs), aa, prefix);
    for (int h = 0; h < x->c->H; h++) {
        x->head = h;
        for (int i = 0; i < N(head_defs); i++) {
            const stage_def *d = &head_defs[i];
            snprintf(id, sizeof id, "%shead.%d.%s", prefix, h, d->name);
            size_t per_head = (size_t)dim_size(x, d->rows) * (size_t)dim_size(x, d->cols);
            emit(x, d, aa, (size_t)h * per_head, id);
        }
    }
    x->head = -1;
    emit_list(x, attn_tail_defs, N(attn_tail_defs), aa, prefix);
}

static void emit_layer(ctx *x, const stage_def *defs, int n, const tf_layer_acts *la, const char *side, int l) {
    char prefix[32], id[80];
    x->layer = l;
    for (int i = 0; i < n; i++) {
        const stage_def *d = &defs[i];
        if (!d->title) { // a nested attention block
            int cross = d->sub == TF_SUB_CROSS_ATTN;
            x->attn = d->sub;
            x->flavour = cross ? CROSS : x->side == TF_SIDE_DEC ? DEC_SELF : ENC_SELF;
            x->Q = x->X;
            x->ax_q = x->ax_x;
            x->K = cross ? x->a->S : x->X;
            x->ax_k = cross ? TF_AXIS_SRC : x->ax_x;
            snprintf(prefix, sizeof prefix, "%s.%d.%s.", side, l, d->name);
            emit_attention(x, (const tf_attn_acts *)((const char *)la + d->off), prefix);
            x->flavour = ENC_SELF;
            continue;
        }
        snprintf(id, sizeof id, "%s.%d.%s", side, l, d->name);
        emit(x, d, la, 0, id);
    }
    x->layer = -1;
}

static void walk(ctx *x) {
    const tf_config *c = x->c;
    const tf_acts *a = x->a;
    x->layer = x->head = -1;
    x->flavour = ENC_SELF;
    x->side = TF_SIDE_SRC;
    emit_list(x, src_defs, N(src_defs), a, "");
    x->side = TF_SIDE_ENC;
    x->X = a->S;
    x->ax_x = TF_AXIS_SRC;
    for (int l = 0; l < c->L_enc; l++)
        if (c->norm_first) emit_layer(x, enc_layer_pre_defs, N(enc_layer_pre_defs), &a->enc[l], "enc", l);
        else emit_layer(x, enc_layer_defs, N(enc_layer_defs), &a->enc[l], "enc", l);
    if (c->has_enc_norm) emit(x, &enc_norm_def, a, 0, enc_norm_def.name);
    x->side = TF_SIDE_TGT;
    emit_list(x, tgt_defs, N(tgt_defs), a, "");
    x->side = TF_SIDE_DEC;
    x->X = a->T;
    x->ax_x = TF_AXIS_TGT;
    for (int l = 0; l < c->L_dec; l++)
        if (c->norm_first) emit_layer(x, dec_layer_pre_defs, N(dec_layer_pre_defs), &a->dec[l], "dec", l);
        else emit_layer(x, dec_layer_defs, N(dec_layer_defs), &a->dec[l], "dec", l);
    if (c->has_dec_norm) emit(x, &dec_norm_def, a, 0, dec_norm_def.name);
    x->side = TF_SIDE_OUT;
    emit_list(x, out_defs, N(out_defs), a, "");
}

int tf_trace_build(tf_trace *t, const tf_model *m, const tf_acts *a,
                   const char *const *src_labels, const char *const *tgt_labels, tf_err *e) {
    memset(t, 0, sizeof *t);
    if (m->cfg.arch == TF_ARCH_LSTM) {
        if (tf_lstm_trace_build(t, m, a)) return tf_fail(e, "out of memory for the trace");
    } else {
        ctx x = {.t = t, .a = a, .c = &m->cfg};
        walk(&x); // count
        int n = t->n;
        t->stages = calloc((size_t)n, sizeof *t->stages);
        if (!t->stages) return tf_fail(e, "out of memory for the trace");
        t->n = 0;
        walk(&x); // fill
    }
    t->S = a->S;
    t->T = a->T;
    t->C = m->cfg.C;
    t->V = m->cfg.V_tgt;
    t->src_labels = src_labels;
    t->tgt_labels = tgt_labels;
    t->vocab = (const char *const *)m->tgt_vocab.tok;
    t->eos = m->tgt_vocab.eos >= 0 ? m->tgt_vocab.tok[m->tgt_vocab.eos] : "<eos>";
    t->without = m->cfg.without;
    t->norm_first = m->cfg.norm_first;
    return 0;
}

void tf_trace_free(tf_trace *t) {
    free(t->stages);
    memset(t, 0, sizeof *t);
}

int tf_trace_find(const tf_trace *t, const char *id) {
    for (int i = 0; i < t->n; i++) if (!strcmp(t->stages[i].id, id)) return i;
    return -1;
}

const char *tf_axis_label(const tf_trace *t, tf_axis axis, int i, char *buf, size_t n) {
    switch (axis) {
    case TF_AXIS_SRC: return t->src_labels[i];
    case TF_AXIS_TGT: return t->tgt_labels[i];
    case TF_AXIS_VOCAB: return t->vocab[i];
    case TF_AXIS_LAYER: snprintf(buf, n, "layer %d", i + 1); return buf;
    default: snprintf(buf, n, "%d", i); return buf;
    }
}
