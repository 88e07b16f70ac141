// trace_json.c — a run's trace as the JSON `tviz trace` writes (format
// tviz-trace/1, README.md "The trace"): the configuration, the tokens, every
// stage with its identity, labels and values (−∞ as null), and the
// comparison run of what if?. The browser's window.tviz.trace() returns the same.
#include "tf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A float in its shortest form that reads back as the same float.
static cJSON *number(float v) {
    char buf[32];
    for (int p = 6; p <= 9; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, (double)v);
        if (strtof(buf, NULL) == v) break;
    }
    return cJSON_CreateRaw(buf);
}

static cJSON *labels(const tf_trace *t, tf_axis axis, int n) {
    cJSON *arr = cJSON_CreateArray();
    char buf[16];
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, cJSON_CreateString(tf_axis_label(t, axis, i, buf, sizeof buf)));
    return arr;
}

static const char *kind_name(tf_kind k) {
    switch (k) {
    case TF_KIND_PROB: return "probabilities";
    case TF_KIND_MASKED: return "masked";
    case TF_KIND_IDS: return "ids";
    default: return "signed";
    }
}

static cJSON *words(char **w, int n) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(arr, cJSON_CreateString(w[i]));
    return arr;
}

// What if? The parts switched off in a trace, by name.
static cJSON *without_list(int bits) {
    cJSON *without = cJSON_CreateArray();
    for (int k = 0; k < TF_WITHOUT_PARTS; k++)
        if (bits & (1 << k)) cJSON_AddItemToArray(without, cJSON_CreateString(tf_without_name(k)));
    return without;
}

static cJSON *stages_json(const tf_trace *t) {
    cJSON *stages = cJSON_CreateArray();
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", s->id);
        cJSON_AddStringToObject(o, "title", s->title);
        cJSON_AddStringToObject(o, "formula", s->formula);
        cJSON_AddStringToObject(o, "kind", kind_name(s->kind));
        // its identity as fields (null where it does not apply)
        cJSON_AddStringToObject(o, "family", tf_family_name(s->family));
        cJSON_AddStringToObject(o, "side", tf_side_name(s->side));
        cJSON_AddItemToObject(o, "layer", s->layer >= 0 ? cJSON_CreateNumber(s->layer) : cJSON_CreateNull());
        cJSON_AddStringToObject(o, "sublayer", tf_sublayer_name(s->sublayer));
        cJSON_AddStringToObject(o, "op", tf_op_name(s->op));
        cJSON_AddItemToObject(o, "index", s->index > 0 ? cJSON_CreateNumber(s->index) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "head", s->head >= 0 ? cJSON_CreateNumber(s->head) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "step", s->step >= 0 ? cJSON_CreateNumber(s->step) : cJSON_CreateNull());
        cJSON_AddNumberToObject(o, "rows", s->rows);
        cJSON_AddNumberToObject(o, "cols", s->cols);
        cJSON_AddItemToObject(o, "row_labels", labels(t, s->row_axis, s->rows));
        cJSON_AddItemToObject(o, "col_labels", labels(t, s->col_axis, s->cols));
        cJSON *data = cJSON_AddArrayToObject(o, "data");
        for (int y = 0; y < s->rows; y++) {
            cJSON *row = cJSON_CreateArray();
            for (int x = 0; x < s->cols; x++) {
                float v = s->data[(size_t)y * s->cols + x];
                cJSON_AddItemToArray(row, isinf(v) && v < 0 ? cJSON_CreateNull() : number(v));
            }
            cJSON_AddItemToArray(data, row);
        }
        cJSON_AddItemToArray(stages, o);
    }
    return stages;
}

static const char *fate_name(tf_beam_fate f) { return f == TF_BEAM_KEPT ? "kept" : f == TF_BEAM_ENDED ? "ended" : "pruned"; }

// The beam search (tf.h "beam search"): its settings, every step's candidates
// (best first; parent is a candidate's place in the step before, -1 for
// <bos>), and the chosen hypothesis (its step and place).
static cJSON *beam_json(const tf_model *m, const tf_beam *b) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "size", b->K);
    cJSON_AddNumberToObject(o, "alpha", b->alpha);
    cJSON_AddNumberToObject(o, "limit", b->limit);
    cJSON *steps = cJSON_AddArrayToObject(o, "steps");
    for (int t = 0; t < b->n_steps; t++) {
        cJSON *step = cJSON_CreateArray();
        for (int i = b->first[t]; i < b->first[t + 1]; i++) {
            const tf_beam_node *n = &b->node[i];
            cJSON *c = cJSON_CreateObject();
            cJSON_AddStringToObject(c, "token", m->tgt_vocab.tok[n->token]);
            cJSON_AddNumberToObject(c, "parent", n->parent < 0 ? -1 : n->parent - b->first[t - 1]);
            cJSON_AddNumberToObject(c, "logp", n->logp);
            cJSON_AddStringToObject(c, "fate", fate_name(n->fate));
            if (n->fate == TF_BEAM_ENDED) cJSON_AddNumberToObject(c, "score", n->score);
            cJSON_AddItemToArray(step, c);
        }
        cJSON_AddItemToArray(steps, step);
    }
    cJSON *choice = cJSON_AddObjectToObject(o, "choice");
    if (b->choice >= 0) {
        int t = tf_beam_step_of(b, b->choice);
        cJSON_AddNumberToObject(choice, "step", t);
        cJSON_AddNumberToObject(choice, "index", b->choice - b->first[t]);
        cJSON_AddNumberToObject(choice, "score", b->node[b->choice].score);
    }
    return o;
}

char *tf_trace_json(const tf_model *m, const tf_run *r, const tf_run *cmp) {
    const tf_config *c = &m->cfg;
    const tf_trace *t = &r->trace;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", "tviz-trace/1");
    cJSON *cfg = cJSON_AddObjectToObject(root, "config");
    if (c->arch == TF_ARCH_LSTM) { // a recurrent model: its own keys (DESIGN.md "Recurrent models")
        cJSON_AddStringToObject(cfg, "arch", "lstm");
        cJSON_AddNumberToObject(cfg, "embed_dim", c->E);
        cJSON_AddNumberToObject(cfg, "hidden_size", c->C);
        cJSON_AddNumberToObject(cfg, "num_layers", c->L_enc);
        cJSON_AddStringToObject(cfg, "attention", c->attention == TF_RNN_ATTN_DOT ? "dot" : "none");
        cJSON_AddNumberToObject(cfg, "reverse_source", c->reverse_source);
    } else {
        if (c->marian) { // a MarianMT checkpoint (DESIGN.md "Real translators")
            static const char *const act[] = {"relu", "silu", "gelu"};
            cJSON_AddStringToObject(cfg, "family", "marian");
            cJSON_AddStringToObject(cfg, "activation", act[c->act]);
            cJSON_AddStringToObject(cfg, "positional_encoding", "sin | cos halves");
        }
        cJSON_AddNumberToObject(cfg, "d_model", c->C);
        cJSON_AddNumberToObject(cfg, "nhead", c->H);
        cJSON_AddNumberToObject(cfg, "num_encoder_layers", c->L_enc);
        cJSON_AddNumberToObject(cfg, "num_decoder_layers", c->L_dec);
        cJSON_AddNumberToObject(cfg, "dim_feedforward", c->F);
        cJSON_AddItemToObject(cfg, "layer_norm_eps", number(c->eps));
        cJSON_AddItemToObject(cfg, "embed_scale", number(c->embed_scale));
    }
    cJSON_AddNumberToObject(cfg, "src_append_eos", c->src_append_eos);
    cJSON_AddNumberToObject(cfg, "max_len", c->max_len);
    cJSON_AddNumberToObject(cfg, "src_vocab_size", c->V_src);
    cJSON_AddNumberToObject(cfg, "tgt_vocab_size", c->V_tgt);
    if (c->arch != TF_ARCH_LSTM) cJSON_AddNumberToObject(cfg, "norm_first", c->norm_first);
    // what if? the parts switched off in this run (DESIGN.md "Transformer variants")
    cJSON_AddItemToObject(root, "without", without_list(t->without));
    cJSON_AddItemToObject(root, "src_tokens", labels(t, TF_AXIS_SRC, r->S));
    cJSON_AddItemToObject(root, "tgt_tokens", labels(t, TF_AXIS_TGT, r->T));
    cJSON_AddItemToObject(root, "src_words", words(r->src_words, r->S));
    cJSON_AddBoolToObject(root, "greedy", r->greedy);
    if (r->greedy) cJSON_AddBoolToObject(root, "stopped_on_eos", r->stopped_on_eos);
    if (r->beam) cJSON_AddItemToObject(root, "beam", beam_json(m, r->beam));
    cJSON_AddItemToObject(root, "stages", stages_json(t));
    // the comparison: the same tokens with every part on, its stages in the same order
    if (cmp) {
        cJSON *o = cJSON_AddObjectToObject(root, "compare");
        cJSON_AddItemToObject(o, "without", without_list(cmp->trace.without));
        cJSON_AddItemToObject(o, "stages", stages_json(&cmp->trace));
    }
    char *out = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return out;
}
