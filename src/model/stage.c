// stage.c — what a stage is, answered from its fields: the same operation
// one layer up, another head, what a value is computed from, the block of
// Figure 1. The window, the exporter, the arithmetic cards and the lessons
// ask these instead of taking stage ids apart; the ids themselves are made
// in trace.c and read back only here.
#include "tf.h"

#include <stdio.h>
#include <string.h>

static int same_place(const tf_stage *a, const tf_stage *b) {
    return a->family == b->family && a->side == b->side && a->layer == b->layer && a->sublayer == b->sublayer && a->op == b->op &&
           a->index == b->index && a->head == b->head && a->step == b->step;
}

int tf_trace_lookup(const tf_trace *t, const tf_stage *k) {
    for (int i = 0; i < t->n; i++) if (same_place(&t->stages[i], k)) return i;
    return -1;
}

static int valid(const tf_trace *t, int i) { return t && i >= 0 && i < t->n; }

int tf_stage_other_layer(const tf_trace *t, int i, int layer) {
    if (!valid(t, i) || t->stages[i].layer < 0) return -1;
    tf_stage k = t->stages[i];
    k.layer = layer;
    return tf_trace_lookup(t, &k);
}

int tf_stage_other_head(const tf_trace *t, int i, int head) {
    if (!valid(t, i) || t->stages[i].family == TF_FAMILY_LSTM) return -1; // (one attention, no heads)
    tf_stage k = t->stages[i];
    if (k.head < 0) { // into this layer's attention
        if (k.layer < 0) return -1;
        k.sublayer = k.sublayer == TF_SUB_CROSS_ATTN ? TF_SUB_CROSS_ATTN : TF_SUB_SELF_ATTN;
        k.op = TF_OP_WEIGHTS;
        k.index = 0;
    }
    k.head = head;
    return tf_trace_lookup(t, &k);
}

int tf_stage_attention(const tf_trace *t, int from, tf_side side, tf_sublayer sub) {
    const tf_stage *f = valid(t, from) ? &t->stages[from] : NULL;
    if (f && f->family == TF_FAMILY_LSTM) // the one attention of a recurrent model (Luong's), if it has one
        return side == TF_SIDE_DEC && sub == TF_SUB_CROSS_ATTN ? tf_stage_lstm(t, TF_SIDE_DEC, -1, TF_OP_WEIGHTS) : -1;
    tf_stage k = {.family = f ? f->family : TF_FAMILY_TRANSFORMER, .side = side, .sublayer = sub, .op = TF_OP_WEIGHTS, .step = -1};
    k.layer = f && f->layer > 0 ? f->layer : 0;
    k.head = f && f->head > 0 ? f->head : 0;
    int i = tf_trace_lookup(t, &k);
    if (i >= 0) return i;
    k.layer = k.head = 0;
    return tf_trace_lookup(t, &k);
}

static int is_head_op(tf_op op) { return op >= TF_OP_SCORES && op <= TF_OP_HEAD_OUT; }

static tf_sublayer lstm_sublayer(tf_op op) {
    switch (op) {
    case TF_OP_GATE_I: case TF_OP_GATE_F: case TF_OP_GATE_G: case TF_OP_GATE_O: case TF_OP_CELL: case TF_OP_HIDDEN:
        return TF_SUB_RECURRENT;
    case TF_OP_FINAL_H: case TF_OP_FINAL_C: return TF_SUB_FINAL_STATE;
    case TF_OP_SCORES: case TF_OP_WEIGHTS: case TF_OP_CONTEXT: case TF_OP_OUT: return TF_SUB_CROSS_ATTN;
    default: return TF_SUB_NONE;
    }
}

int tf_stage_with_op(const tf_trace *t, int i, tf_op op) {
    if (!valid(t, i)) return -1;
    tf_stage k = t->stages[i];
    if (k.op == op) return i;
    if (k.family == TF_FAMILY_LSTM) { // the same layer's (or block's) stage with that operation
        k.op = op;
        k.sublayer = lstm_sublayer(op);
        if (k.sublayer != t->stages[i].sublayer) return -1;
        return tf_trace_lookup(t, &k);
    }
    int add_norm = (op == TF_OP_ADD || op == TF_OP_NORM) && (k.op == TF_OP_ADD || k.op == TF_OP_NORM);
    k.op = op;
    if (!add_norm) k.index = 0; // add2 <-> norm2
    if (!is_head_op(op)) k.head = -1;
    else if (k.head < 0) k.head = 0;
    return tf_trace_lookup(t, &k);
}

int tf_stage_is_attention_square(const tf_stage *s) { return s->op >= TF_OP_SCORES && s->op <= TF_OP_WEIGHTS; }
int tf_stage_is_lstm(const tf_stage *s) { return s->family == TF_FAMILY_LSTM; }

int tf_stage_time_steps(const tf_trace *t, int i) {
    if (!valid(t, i)) return 0;
    const tf_stage *s = &t->stages[i];
    if (s->family != TF_FAMILY_LSTM || (s->row_axis != TF_AXIS_SRC && s->row_axis != TF_AXIS_TGT)) return 0;
    return s->rows;
}

int tf_stage_lstm(const tf_trace *t, tf_side side, int layer, tf_op op) {
    tf_stage k = {.family = TF_FAMILY_LSTM, .side = side, .layer = layer, .sublayer = lstm_sublayer(op), .op = op, .head = -1, .step = -1};
    return t ? tf_trace_lookup(t, &k) : -1;
}

int tf_stage_is_gate(const tf_stage *s) {
    return s->family == TF_FAMILY_LSTM && s->op >= TF_OP_GATE_I && s->op <= TF_OP_GATE_O;
}

int tf_stage_lstm_layer(const tf_stage *s, int *decoder) {
    if (s->family != TF_FAMILY_LSTM || s->sublayer != TF_SUB_RECURRENT) return -1;
    if (decoder) *decoder = s->side == TF_SIDE_DEC;
    return s->layer;
}

int tf_stage_count_heads(const tf_trace *t, int i) {
    if (!valid(t, i) || t->stages[i].head < 0) return 0;
    int n = 0;
    while (tf_stage_other_head(t, i, n) >= 0) n++;
    return n;
}

int tf_stage_count_layers(const tf_trace *t, int i) {
    if (!valid(t, i)) return 0;
    if (t->stages[i].layer < 0) return 1;
    int n = 0;
    while (tf_stage_other_layer(t, i, n) >= 0) n++;
    return n;
}

// ---------------------------------------------------------------- the data flow
// What a layer hands on (-1 if none): its last LayerNorm (post-LN), its last add (pre-LN).
static int layer_output(const tf_trace *t, tf_side side, int layer) {
    int best = -1;
    tf_op op = t->norm_first ? TF_OP_ADD : TF_OP_NORM;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        if (s->side == side && s->layer == layer && s->op == op && (best < 0 || s->index > t->stages[best].index)) best = i;
    }
    return best;
}

// The output of a stack's last layer.
static int last_layer_output(const tf_trace *t, tf_side side) {
    int last = -1;
    for (int i = 0; i < t->n; i++) if (t->stages[i].side == side && t->stages[i].layer > last) last = t->stages[i].layer;
    return last >= 0 ? layer_output(t, side, last) : -1;
}

// What a stack hands on: its final norm if the model has one, else its last layer's output.
static int stack_output(const tf_trace *t, tf_side side) {
    for (int i = 0; i < t->n; i++) if (t->stages[i].side == side && t->stages[i].sublayer == TF_SUB_FINAL_NORM) return i;
    return last_layer_output(t, side);
}

// What layer l of a side reads: the embeddings plus PE for layer 0, else the previous layer's output.
static int layer_input(const tf_trace *t, tf_side side, int l) {
    if (l > 0) return layer_output(t, side, l - 1);
    tf_stage k = {.family = TF_FAMILY_TRANSFORMER, .side = side == TF_SIDE_ENC ? TF_SIDE_SRC : TF_SIDE_TGT, .layer = -1,
                  .op = TF_OP_INPUT, .head = -1, .step = -1};
    return tf_trace_lookup(t, &k);
}

// The input of sublayer i's stage: the layer's input before the first add &
// norm, else the add & norm just before it (pre-LN: the norm just before it).
static int sublayer_input(const tf_trace *t, int i) {
    const tf_stage *s = &t->stages[i];
    int best = -1;
    for (int j = 0; j < i; j++) {
        const tf_stage *p = &t->stages[j];
        if (p->side == s->side && p->layer == s->layer && p->op == TF_OP_NORM) best = j;
    }
    return best >= 0 ? best : layer_input(t, s->side, s->layer);
}

// Pre-LN: the residual stream at stage i, the last add of its layer before i, or the layer's input.
static int residual_stream(const tf_trace *t, int i) {
    const tf_stage *s = &t->stages[i];
    int best = -1;
    for (int j = 0; j < i; j++) {
        const tf_stage *p = &t->stages[j];
        if (p->side == s->side && p->layer == s->layer && p->op == TF_OP_ADD) best = j;
    }
    return best >= 0 ? best : layer_input(t, s->side, s->layer);
}

static int put_in(int *in, int n, int max, int k) {
    if (k >= 0 && n < max) in[n++] = k;
    return n;
}

// A recurrent model's data flow (DESIGN.md "Recurrent models").
static int lstm_inputs(const tf_trace *t, int i, int *in, int max) {
    const tf_stage *s = &t->stages[i];
    int n = 0, top = -1, dec = s->side == TF_SIDE_DEC;
    for (int j = 0; j < t->n; j++)
        if (t->stages[j].family == TF_FAMILY_LSTM && t->stages[j].sublayer == TF_SUB_RECURRENT && t->stages[j].side == TF_SIDE_ENC &&
            t->stages[j].layer > top) top = t->stages[j].layer;
    int top_dec = tf_stage_count_layers(t, tf_stage_lstm(t, TF_SIDE_DEC, 0, TF_OP_HIDDEN)) - 1;
    switch (s->op) {
    case TF_OP_GATE_I: case TF_OP_GATE_F: case TF_OP_GATE_G: case TF_OP_GATE_O: // x_t, h_{t−1} (of this layer; v at first)
        n = put_in(in, n, max, s->layer == 0 ? tf_stage_lstm(t, dec ? TF_SIDE_TGT : TF_SIDE_SRC, -1, TF_OP_EMBED)
                                             : tf_stage_lstm(t, s->side, s->layer - 1, TF_OP_HIDDEN));
        n = put_in(in, n, max, tf_stage_lstm(t, s->side, s->layer, TF_OP_HIDDEN));
        if (dec) n = put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_ENC, -1, TF_OP_FINAL_H));
        return n;
    case TF_OP_CELL: // f_t ⊙ c_{t−1} + i_t ⊙ g_t
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_GATE_F));
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_GATE_I));
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_GATE_G));
        if (dec) n = put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_ENC, -1, TF_OP_FINAL_C));
        return n;
    case TF_OP_HIDDEN: // o_t ⊙ tanh(c_t)
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_GATE_O));
        return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_CELL));
    case TF_OP_FINAL_H: case TF_OP_FINAL_C: // the last row of every encoder layer
        for (int l = 0; l <= top; l++) n = put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_ENC, l, s->op == TF_OP_FINAL_H ? TF_OP_HIDDEN : TF_OP_CELL));
        return n;
    case TF_OP_SCORES: // h_t · h̄_s
        n = put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_DEC, top_dec, TF_OP_HIDDEN));
        return put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_ENC, top, TF_OP_HIDDEN));
    case TF_OP_WEIGHTS: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_SCORES));
    case TF_OP_CONTEXT:
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_WEIGHTS));
        return put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_ENC, top, TF_OP_HIDDEN));
    case TF_OP_OUT:
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_CONTEXT));
        return put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_DEC, top_dec, TF_OP_HIDDEN));
    case TF_OP_LOGITS: {
        int h = tf_stage_lstm(t, TF_SIDE_DEC, -1, TF_OP_OUT);
        return put_in(in, n, max, h >= 0 ? h : tf_stage_lstm(t, TF_SIDE_DEC, top_dec, TF_OP_HIDDEN));
    }
    case TF_OP_PROBS: return put_in(in, n, max, tf_stage_lstm(t, TF_SIDE_OUT, -1, TF_OP_LOGITS));
    default: return 0;
    }
}

int tf_stage_inputs(const tf_trace *t, int i, int *in, int max) {
    if (!valid(t, i)) return 0;
    const tf_stage *s = &t->stages[i];
    if (s->family == TF_FAMILY_LSTM) return lstm_inputs(t, i, in, max);
    int n = 0;
    switch (s->op) {
    case TF_OP_EMBED: case TF_OP_PE: return 0;
    case TF_OP_INPUT:
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_EMBED));
        return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_PE));
    case TF_OP_Q: case TF_OP_K: case TF_OP_V:
        if (s->sublayer == TF_SUB_CROSS_ATTN && s->op != TF_OP_Q) return put_in(in, n, max, stack_output(t, TF_SIDE_ENC));
        return put_in(in, n, max, sublayer_input(t, i));
    case TF_OP_SCORES:
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_Q));
        return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_K));
    case TF_OP_SCALED: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_SCORES));
    case TF_OP_MASKED: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_SCALED));
    case TF_OP_WEIGHTS: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_MASKED));
    case TF_OP_HEAD_OUT:
        n = put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_WEIGHTS));
        return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_V));
    case TF_OP_CONCAT: {
        int h0 = tf_stage_with_op(t, i, TF_OP_HEAD_OUT);
        for (int h = 0, k; h0 >= 0 && (k = tf_stage_other_head(t, h0, h)) >= 0; h++) n = put_in(in, n, max, k);
        return n;
    }
    case TF_OP_OUT: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_CONCAT));
    case TF_OP_ADD: { // x + Sublayer(x): the sublayer is the one just before
        int sub = -1;
        for (int j = i - 1; j >= 0 && sub < 0; j--) {
            const tf_stage *p = &t->stages[j];
            if (p->side != s->side || p->layer != s->layer) break;
            if ((p->op == TF_OP_OUT || p->op == TF_OP_FFN_OUT) && p->head < 0) sub = j;
        }
        if (sub < 0) return 0;
        n = put_in(in, n, max, t->norm_first ? residual_stream(t, i) : sublayer_input(t, sub));
        return put_in(in, n, max, sub);
    }
    case TF_OP_NORM:
        if (s->sublayer == TF_SUB_FINAL_NORM) return put_in(in, n, max, last_layer_output(t, s->side));
        if (s->sublayer == TF_SUB_PRE_NORM) return put_in(in, n, max, residual_stream(t, i));
        return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_ADD));
    case TF_OP_FFN_HIDDEN: return put_in(in, n, max, sublayer_input(t, i));
    case TF_OP_FFN_OUT: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_FFN_HIDDEN));
    case TF_OP_LOGITS: return put_in(in, n, max, stack_output(t, TF_SIDE_DEC));
    case TF_OP_PROBS: return put_in(in, n, max, tf_stage_with_op(t, i, TF_OP_LOGITS));
    default: return 0;
    }
}

// ---------------------------------------------------------------- Figure 1
tf_block tf_stage_block(const tf_stage *s) {
    if (s->family != TF_FAMILY_TRANSFORMER) return TF_BLOCK_NONE;
    int enc = s->side == TF_SIDE_ENC;
    switch (s->side) {
    case TF_SIDE_SRC: return s->op == TF_OP_EMBED ? TF_BLOCK_SRC_EMBED : TF_BLOCK_SRC_PE; // pe, input: the ⊕
    case TF_SIDE_TGT: return s->op == TF_OP_EMBED ? TF_BLOCK_TGT_EMBED : TF_BLOCK_TGT_PE;
    case TF_SIDE_OUT: return s->op == TF_OP_PROBS ? TF_BLOCK_SOFTMAX : TF_BLOCK_LINEAR;
    default: break;
    }
    switch (s->sublayer) {
    case TF_SUB_SELF_ATTN: return enc ? TF_BLOCK_ENC_ATTN : TF_BLOCK_DEC_SELF;
    case TF_SUB_CROSS_ATTN: return enc ? TF_BLOCK_NONE : TF_BLOCK_DEC_CROSS;
    case TF_SUB_FFN: return enc ? TF_BLOCK_ENC_FF : TF_BLOCK_DEC_FF;
    case TF_SUB_FINAL_NORM: return enc ? TF_BLOCK_ENC_NORM : TF_BLOCK_DEC_NORM;
    case TF_SUB_PRE_NORM:
        if (enc) return s->index == 1 ? TF_BLOCK_ENC_LN1 : s->index == 2 ? TF_BLOCK_ENC_LN2 : TF_BLOCK_NONE;
        return s->index == 1 ? TF_BLOCK_DEC_LN1 : s->index == 2 ? TF_BLOCK_DEC_LN2 : s->index == 3 ? TF_BLOCK_DEC_LN3 : TF_BLOCK_NONE;
    case TF_SUB_ADD_NORM:
        if (enc) return s->index == 1 ? TF_BLOCK_ENC_AN1 : s->index == 2 ? TF_BLOCK_ENC_AN2 : TF_BLOCK_NONE;
        return s->index == 1 ? TF_BLOCK_DEC_AN1 : s->index == 2 ? TF_BLOCK_DEC_AN2 : s->index == 3 ? TF_BLOCK_DEC_AN3 : TF_BLOCK_NONE;
    default: return TF_BLOCK_NONE;
    }
}

int tf_block_stage(const tf_trace *t, int from, tf_block b) {
    const tf_stage *f = valid(t, from) ? &t->stages[from] : NULL;
    int first = -1;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        if (tf_stage_block(s) != b) continue;
        if (f && f->layer >= 0 && s->side == f->side && s->layer == f->layer) return i; // the layer being looked at
        if (first < 0 && s->layer <= 0) first = i;
    }
    return first;
}

// ---------------------------------------------------------------- names
int tf_stage_named(const tf_trace *t, int i, const char *ref) {
    if (!strcmp(ref, "this")) return valid(t, i) ? i : -1;
    if (!strncmp(ref, "this:", 5)) { // this stage's id with its last part replaced
        if (!valid(t, i)) return -1;
        char id[128];
        const char *cur = t->stages[i].id, *dot = strrchr(cur, '.');
        if (!dot) return -1;
        snprintf(id, sizeof id, "%.*s.%s", (int)(dot - cur), cur, ref + 5);
        return tf_trace_find(t, id);
    }
    return tf_trace_find(t, ref);
}

const char *tf_stage_block_id(const tf_stage *s, int all_layers, char *buf, size_t n) {
    if (all_layers || s->layer < 0) snprintf(buf, n, "%s.%s", s->side == TF_SIDE_DEC ? "dec" : "enc", tf_sublayer_name(s->sublayer));
    else snprintf(buf, n, "%s.%d.%s", s->side == TF_SIDE_DEC ? "dec" : "enc", s->layer, tf_sublayer_name(s->sublayer));
    return buf;
}

const char *tf_family_name(tf_family f) { return f == TF_FAMILY_LSTM ? "lstm" : "transformer"; }

const char *tf_side_name(tf_side s) {
    static const char *const names[] = {"source", "encoder", "target", "decoder", "output"};
    return s >= TF_SIDE_SRC && s <= TF_SIDE_OUT ? names[s] : "?";
}

const char *tf_sublayer_name(tf_sublayer s) {
    static const char *const names[] = {"none", "self_attn", "cross_attn", "ffn", "add_norm", "final_norm", "recurrent", "final_state", "pre_norm"};
    return s >= TF_SUB_NONE && s <= TF_SUB_PRE_NORM ? names[s] : "?";
}

const char *tf_op_name(tf_op op) {
    static const char *const names[TF_OP_COUNT] = {
        "embed", "pe", "input", "q", "k", "v", "scores", "scaled", "masked", "weights", "head_out", "concat", "out",
        "add", "norm", "ffn_hidden", "ffn_out", "logits", "probs",
        "i", "f", "g", "o", "c", "h", "final_h", "final_c", "context",
    };
    return op >= 0 && op < TF_OP_COUNT ? names[op] : "?";
}

int tf_trace_vocab_id(const tf_trace *t, const char *tok) {
    for (int j = 0; tok && j < t->V; j++) if (t->vocab[j] && !strcmp(t->vocab[j], tok)) return j;
    return -1;
}

int tf_trace_aligning_stage(const tf_trace *t, const tf_model *m) {
    if (!m || m->align_layer < 0 || m->align_head < 0) return -1;
    tf_stage k = {.family = TF_FAMILY_TRANSFORMER, .side = TF_SIDE_DEC, .layer = m->align_layer, .sublayer = TF_SUB_CROSS_ATTN,
                  .op = TF_OP_WEIGHTS, .head = m->align_head, .step = -1};
    return tf_trace_lookup(t, &k);
}
