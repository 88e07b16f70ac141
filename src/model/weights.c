// weights.c — model files (safetensors with torch.nn.Transformer names), and
// seeded initialisation. One table of parameters serves load, save and init.
//
// File: u64 little-endian header length N, N bytes of JSON header, raw F32 data.
// Header: {"__metadata__": {"d_model": "4", ...}, "name": {"dtype": "F32",
//          "shape": [..], "data_offsets": [begin, end]}, ...}
#include "tf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { REQUIRED, OPT_ENC_NORM, OPT_DEC_NORM, OPT_TGT_EMBED, OPT_GENERATOR, OPT_GENERATOR_BIAS, OPT_RNN_ATTN };

typedef struct {
    char name[96];
    float **ptr;      // where the model keeps it
    int rank;         // 1 or 2
    int shape[2];
    int group;        // REQUIRED or the optional group it belongs to
} param;

static int present(const tf_config *c, int group) {
    switch (group) {
    case OPT_ENC_NORM: return c->has_enc_norm;
    case OPT_DEC_NORM: return c->has_dec_norm;
    case OPT_TGT_EMBED: return c->has_tgt_embed;
    case OPT_GENERATOR: return c->has_generator;
    case OPT_GENERATOR_BIAS: return c->has_generator_bias;
    case OPT_RNN_ATTN: return c->attention == TF_RNN_ATTN_DOT;
    }
    return 1;
}

static void add(param *p, int *n, float **ptr, int group, int d0, int d1, const char *fmt, int layer) {
    if (p) {
        param *q = &p[*n];
        snprintf(q->name, sizeof q->name, fmt, layer);
        q->ptr = ptr;
        q->rank = d1 ? 2 : 1;
        q->shape[0] = d0;
        q->shape[1] = d1;
        q->group = group;
    }
    (*n)++;
}

static void add_attn(param *p, int *n, tf_attn_w *a, const char *prefix, int l, int C) {
    char f[96];
    snprintf(f, sizeof f, "%s.in_proj_weight", prefix);  add(p, n, &a->in_w, REQUIRED, 3 * C, C, f, l);
    snprintf(f, sizeof f, "%s.in_proj_bias", prefix);    add(p, n, &a->in_b, REQUIRED, 3 * C, 0, f, l);
    snprintf(f, sizeof f, "%s.out_proj.weight", prefix); add(p, n, &a->out_w, REQUIRED, C, C, f, l);
    snprintf(f, sizeof f, "%s.out_proj.bias", prefix);   add(p, n, &a->out_b, REQUIRED, C, 0, f, l);
}

static void add_layer(param *p, int *n, tf_layer_w *w, const char *side, int l, int C, int F, int dec) {
    char pre[64], f[96];
    snprintf(pre, sizeof pre, "%s.layers.%%d.self_attn", side);
    add_attn(p, n, &w->self_attn, pre, l, C);
    if (dec) {
        snprintf(pre, sizeof pre, "%s.layers.%%d.multihead_attn", side);
        add_attn(p, n, &w->cross_attn, pre, l, C);
    }
    snprintf(f, sizeof f, "%s.layers.%%d.linear1.weight", side); add(p, n, &w->w1, REQUIRED, F, C, f, l);
    snprintf(f, sizeof f, "%s.layers.%%d.linear1.bias", side);   add(p, n, &w->b1, REQUIRED, F, 0, f, l);
    snprintf(f, sizeof f, "%s.layers.%%d.linear2.weight", side); add(p, n, &w->w2, REQUIRED, C, F, f, l);
    snprintf(f, sizeof f, "%s.layers.%%d.linear2.bias", side);   add(p, n, &w->b2, REQUIRED, C, 0, f, l);
    float **norms[3][2] = {{&w->n1w, &w->n1b}, {&w->n2w, &w->n2b}, {&w->n3w, &w->n3b}};
    for (int k = 0; k < (dec ? 3 : 2); k++) {
        snprintf(f, sizeof f, "%s.layers.%%d.norm%d.weight", side, k + 1); add(p, n, norms[k][0], REQUIRED, C, 0, f, l);
        snprintf(f, sizeof f, "%s.layers.%%d.norm%d.bias", side, k + 1);   add(p, n, norms[k][1], REQUIRED, C, 0, f, l);
    }
}

// A recurrent model (DESIGN.md "Recurrent models"): torch.nn.LSTM's names,
// "encoder.weight_ih_l0" …, then the embeddings, attention and generator.
static int lstm_param_table(tf_model *m, param *p) {
    const tf_config *c = &m->cfg;
    int n = 0, C = c->C, E = c->E;
    for (int side = 0; side < 2; side++) {
        tf_lstm_w *w = side ? m->ldec : m->lenc;
        const char *name = side ? "decoder" : "encoder";
        char f[96];
        for (int l = 0; l < c->L_enc; l++) {
            snprintf(f, sizeof f, "%s.weight_ih_l%%d", name); add(p, &n, &w[l].w_ih, REQUIRED, 4 * C, l ? C : E, f, l);
            snprintf(f, sizeof f, "%s.weight_hh_l%%d", name); add(p, &n, &w[l].w_hh, REQUIRED, 4 * C, C, f, l);
            snprintf(f, sizeof f, "%s.bias_ih_l%%d", name);   add(p, &n, &w[l].b_ih, REQUIRED, 4 * C, 0, f, l);
            snprintf(f, sizeof f, "%s.bias_hh_l%%d", name);   add(p, &n, &w[l].b_hh, REQUIRED, 4 * C, 0, f, l);
        }
    }
    add(p, &n, &m->attn_cw, OPT_RNN_ATTN, C, 2 * C, "attn.combine.weight", 0);
    add(p, &n, &m->attn_cb, OPT_RNN_ATTN, C, 0, "attn.combine.bias", 0);
    add(p, &n, &m->src_embed, REQUIRED, c->V_src, E, "src_embed.weight", 0);
    add(p, &n, &m->tgt_embed, REQUIRED, c->V_tgt, E, "tgt_embed.weight", 0);
    add(p, &n, &m->gen_w, REQUIRED, c->V_tgt, C, "generator.weight", 0);
    add(p, &n, &m->gen_b, REQUIRED, c->V_tgt, 0, "generator.bias", 0);
    return n;
}

// Every tensor a model of config c may have, in file order. p NULL counts.
static int param_table(tf_model *m, param *p) {
    const tf_config *c = &m->cfg;
    if (c->arch == TF_ARCH_LSTM) return lstm_param_table(m, p);
    int n = 0, C = c->C, F = c->F;
    for (int l = 0; l < c->L_enc; l++) add_layer(p, &n, &m->enc[l], "encoder", l, C, F, 0);
    add(p, &n, &m->enc_norm_w, OPT_ENC_NORM, C, 0, "encoder.norm.weight", 0);
    add(p, &n, &m->enc_norm_b, OPT_ENC_NORM, C, 0, "encoder.norm.bias", 0);
    for (int l = 0; l < c->L_dec; l++) add_layer(p, &n, &m->dec[l], "decoder", l, C, F, 1);
    add(p, &n, &m->dec_norm_w, OPT_DEC_NORM, C, 0, "decoder.norm.weight", 0);
    add(p, &n, &m->dec_norm_b, OPT_DEC_NORM, C, 0, "decoder.norm.bias", 0);
    add(p, &n, &m->src_embed, REQUIRED, c->V_src, C, "src_embed.weight", 0);
    add(p, &n, &m->tgt_embed, OPT_TGT_EMBED, c->V_tgt, C, "tgt_embed.weight", 0);
    add(p, &n, &m->gen_w, OPT_GENERATOR, c->V_tgt, C, "generator.weight", 0);
    add(p, &n, &m->gen_b, OPT_GENERATOR_BIAS, c->V_tgt, 0, "generator.bias", 0);
    return n;
}

static size_t numel(const param *p) { return (size_t)p->shape[0] * (size_t)(p->rank == 2 ? p->shape[1] : 1); }

static int alloc_layers(tf_model *m, tf_err *e) {
    if (m->cfg.arch == TF_ARCH_LSTM) {
        m->lenc = calloc((size_t)m->cfg.L_enc, sizeof *m->lenc);
        m->ldec = calloc((size_t)m->cfg.L_dec, sizeof *m->ldec);
        if (!m->lenc || !m->ldec) return tf_fail(e, "out of memory for the model's layers");
        return 0;
    }
    m->enc = calloc((size_t)m->cfg.L_enc, sizeof *m->enc);
    m->dec = calloc((size_t)m->cfg.L_dec, sizeof *m->dec);
    if (!m->enc || !m->dec) return tf_fail(e, "out of memory for the model's layers");
    return 0;
}

// Tied and shared weights (§3.4): absent tgt_embed = src_embed; absent generator = tgt_embed.
static void tie(tf_model *m) {
    if (!m->cfg.has_tgt_embed) m->tgt_embed = m->src_embed;
    if (!m->cfg.has_generator) m->gen_w = m->tgt_embed;
    if (!m->cfg.has_generator_bias) m->gen_b = NULL;
}

// A recurrent model's sizes, in its own keys; fills the Transformer's letters
// the rest of tviz reads (C = hidden_size, H 1, D = C, F = 4C, L_enc = L_dec).
static int check_lstm_config(tf_config *c, tf_err *e) {
    if (c->E < 1 || c->E > TF_MAX_C) return tf_fail(e, "__metadata__ \"embed_dim\" %d is outside 1..%d", c->E, TF_MAX_C);
    if (c->C < 1 || c->C > TF_MAX_C) return tf_fail(e, "__metadata__ \"hidden_size\" %d is outside 1..%d", c->C, TF_MAX_C);
    if (c->L_enc < 1 || c->L_enc > TF_MAX_L) return tf_fail(e, "__metadata__ \"num_layers\" %d is outside 1..%d", c->L_enc, TF_MAX_L);
    if (c->max_len < 1 || c->max_len > 100000) return tf_fail(e, "max_len %d is outside 1..100000", c->max_len);
    if (c->reverse_source != 0 && c->reverse_source != 1) return tf_fail(e, "__metadata__ \"reverse_source\" must be \"0\" or \"1\"");
    c->L_dec = c->L_enc;
    c->H = 1;
    c->D = c->C;
    c->F = 4 * c->C;
    c->eps = 1e-5f;
    c->embed_scale = 1.0f;
    c->embed_scale_is_sqrt = 0;
    c->has_enc_norm = c->has_dec_norm = 0;
    c->has_tgt_embed = c->has_generator = c->has_generator_bias = 1;
    return 0;
}

static int check_config(const tf_config *c, tf_err *e) {
    if (c->arch == TF_ARCH_LSTM) return check_lstm_config((tf_config *)c, e);
    if (c->C < 1 || c->C > TF_MAX_C) return tf_fail(e, "d_model %d is outside 1..%d", c->C, TF_MAX_C);
    if (c->H < 1 || c->H > TF_MAX_H) return tf_fail(e, "nhead %d is outside 1..%d", c->H, TF_MAX_H);
    if (c->C % c->H) return tf_fail(e, "d_model %d is not divisible by nhead %d; each head needs d_model/nhead dimensions", c->C, c->H);
    if (c->L_enc < 1 || c->L_enc > TF_MAX_L) return tf_fail(e, "num_encoder_layers %d is outside 1..%d", c->L_enc, TF_MAX_L);
    if (c->L_dec < 1 || c->L_dec > TF_MAX_L) return tf_fail(e, "num_decoder_layers %d is outside 1..%d", c->L_dec, TF_MAX_L);
    if (c->F < 1 || c->F > TF_MAX_F) return tf_fail(e, "dim_feedforward %d is outside 1..%d", c->F, TF_MAX_F);
    if (!(c->eps > 0.0f) || !isfinite(c->eps)) return tf_fail(e, "layer_norm_eps must be a positive number");
    if (!isfinite(c->embed_scale)) return tf_fail(e, "embed_scale must be \"sqrt\" or a finite number");
    if (c->max_len < 1 || c->max_len > 100000) return tf_fail(e, "max_len %d is outside 1..100000", c->max_len);
    return 0;
}

static int check_vocabs(const tf_model *m, tf_err *e) {
    if (m->tgt_vocab.bos < 0) return tf_fail(e, "the target vocabulary has no <bos>; the decoder starts from it, so add \"<bos>\"");
    if (m->tgt_vocab.eos < 0) return tf_fail(e, "the target vocabulary has no <eos>; decoding stops on it, so add \"<eos>\"");
    if (m->cfg.src_append_eos && m->src_vocab.eos < 0)
        return tf_fail(e, "src_append_eos is 1 but the source vocabulary has no <eos>; add \"<eos>\" or set src_append_eos to 0");
    return 0;
}

void tf_config_base(tf_config *c) {
    memset(c, 0, sizeof *c);
    c->C = 512; c->H = 8; c->D = 64; c->F = 2048; c->L_enc = 6; c->L_dec = 6;
    c->eps = 1e-5f; c->embed_scale = sqrtf(512.0f); c->embed_scale_is_sqrt = 1;
    c->max_len = 64; c->max_len_set = 1;
}

// ---------------------------------------------------------------- load
static int meta_int(const cJSON *meta, const char *key, int required, int def, int *out, tf_err *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
    if (!it) {
        if (required) return tf_fail(e, "__metadata__ has no \"%s\"; add it (a whole number as a string)", key);
        *out = def;
        return 0;
    }
    if (!cJSON_IsString(it)) return tf_fail(e, "__metadata__ \"%s\" is not a string; safetensors metadata values are strings such as \"4\"", key);
    char *end;
    errno = 0;
    long v = strtol(it->valuestring, &end, 10);
    if (end == it->valuestring || *end || errno || v < -1000000000L || v > 1000000000L)
        return tf_fail(e, "__metadata__ \"%s\" is \"%.40s\", not a whole number", key, it->valuestring);
    *out = (int)v;
    return 0;
}

static int meta_str(const cJSON *meta, const char *key, const char **out, tf_err *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(meta, key);
    *out = NULL;
    if (!it) return 0;
    if (!cJSON_IsString(it)) return tf_fail(e, "__metadata__ \"%s\" is not a string", key);
    *out = it->valuestring;
    return 0;
}

// __metadata__ "train_step", "step_loss", "heldout_exact": optional.
static int read_training(tf_model *m, const cJSON *meta, tf_err *e) {
    m->step_loss = m->heldout_exact = -1.0f;
    if (meta_int(meta, "train_step", 0, -1, &m->train_step, e)) return -1;
    if (m->train_step < -1) return tf_fail(e, "__metadata__ \"train_step\" is %d; a step is 0 or more", m->train_step);
    const char *keys[2] = {"step_loss", "heldout_exact"};
    float *vals[2] = {&m->step_loss, &m->heldout_exact};
    for (int i = 0; i < 2; i++) {
        const char *s;
        char *end;
        if (meta_str(meta, keys[i], &s, e)) return -1;
        if (!s) continue;
        *vals[i] = strtof(s, &end);
        if (end == s || *end || !isfinite(*vals[i]) || *vals[i] < 0 || (i == 1 && *vals[i] > 1))
            return tf_fail(e, "__metadata__ \"%s\" is \"%.40s\"; give %s", keys[i], s, i ? "a fraction from 0 to 1" : "a number of 0 or more");
    }
    // the aligning head: "align_layer", "align_head", "align_rate" (all three, or none)
    const char *ar;
    if (meta_int(meta, "align_layer", 0, -1, &m->align_layer, e) || meta_int(meta, "align_head", 0, -1, &m->align_head, e) ||
        meta_str(meta, "align_rate", &ar, e))
        return -1;
    m->align_rate = -1.0f;
    if (ar) {
        char *end;
        m->align_rate = strtof(ar, &end);
        if (end == ar || *end || !(m->align_rate >= 0 && m->align_rate <= 1))
            return tf_fail(e, "__metadata__ \"align_rate\" is \"%.40s\"; give a fraction from 0 to 1", ar);
    }
    if ((m->align_layer >= 0) != (m->align_head >= 0) || (m->align_layer >= 0) != (ar != NULL))
        return tf_fail(e, "__metadata__ names an aligning head only in part; give align_layer, align_head and align_rate together, or none");
    if (m->align_layer >= m->cfg.L_dec || m->align_head >= m->cfg.H || m->align_layer < -1 || m->align_head < -1)
        return tf_fail(e, "__metadata__ \"align_layer\" %d, \"align_head\" %d: the decoder has %d layers of %d heads (counted from 0)",
                       m->align_layer, m->align_head, m->cfg.L_dec, m->cfg.H);
    // the curves: "loss_curve" (with "loss_every") and "heldout_curve"
    const char *lc, *hc;
    if (meta_str(meta, "loss_curve", &lc, e) || meta_str(meta, "heldout_curve", &hc, e)) return -1;
    if (meta_int(meta, "loss_every", 0, 1, &m->loss_every, e)) return -1;
    if (lc && m->loss_every < 1) return tf_fail(e, "__metadata__ \"loss_every\" is %d; give the steps each loss_curve value averages (1 or more)", m->loss_every);
    for (int pass = 0; pass < 2; pass++) {
        const char *text = pass ? hc : lc, *key = pass ? "heldout_curve" : "loss_curve";
        if (!text) continue;
        int cap = 1;
        for (const char *q = text; *q; q++) cap += *q == ' ';
        float *v = malloc(sizeof(float) * (size_t)cap);
        int *st = pass ? malloc(sizeof(int) * (size_t)cap) : NULL;
        if (!v || (pass && !st)) TF_OOM();
        if (pass) { m->heldout_curve = v; m->heldout_steps = st; } else m->loss_curve = v;
        int n = 0, item = 0;
        for (const char *q = text; *q;) {
            char *end;
            item++;
            if (pass) {
                long k = strtol(q, &end, 10);
                if (end == q || *end != ':' || k < 0 || k > INT_MAX) goto bad;
                st[n] = (int)k;
                q = end + 1;
            }
            v[n] = strtof(q, &end);
            if (end == q || (*end && *end != ' ') || !isfinite(v[n]) || v[n] < 0 || (pass && v[n] > 1)) goto bad;
            n++;
            q = *end ? end + 1 : end;
            continue;
        bad:
            return tf_fail(e, "__metadata__ \"%s\": item %d is not %s; write them separated by one space", key, item,
                           pass ? "step:fraction (\"1400:0.82\")" : "a number of 0 or more");
        }
        if (pass) m->n_heldout_curve = n; else m->n_loss_curve = n;
    }
    return 0;
}

int tf_model_set_curves(tf_model *m, const float *loss, int n, int every, const int *steps, const float *acc, int n_acc,
                        tf_err *e) {
    free(m->loss_curve); free(m->heldout_curve); free(m->heldout_steps);
    m->loss_curve = m->heldout_curve = NULL;
    m->heldout_steps = NULL;
    m->n_loss_curve = m->n_heldout_curve = 0;
    m->loss_every = every;
    if (n > 0) {
        if (every < 1) return tf_fail(e, "a loss curve needs the steps each value averages (1 or more)");
        if (!(m->loss_curve = malloc(sizeof(float) * (size_t)n))) TF_OOM();
        memcpy(m->loss_curve, loss, sizeof(float) * (size_t)n);
        m->n_loss_curve = n;
    }
    if (n_acc > 0) {
        m->heldout_curve = malloc(sizeof(float) * (size_t)n_acc);
        m->heldout_steps = malloc(sizeof(int) * (size_t)n_acc);
        if (!m->heldout_curve || !m->heldout_steps) TF_OOM();
        memcpy(m->heldout_curve, acc, sizeof(float) * (size_t)n_acc);
        memcpy(m->heldout_steps, steps, sizeof(int) * (size_t)n_acc);
        m->n_heldout_curve = n_acc;
    }
    return 0;
}

// arch = lstm: embed_dim, hidden_size, num_layers, attention, reverse_source (DESIGN.md).
static int read_lstm_config(tf_config *c, const cJSON *meta, tf_err *e) {
    const char *s;
    if (meta_int(meta, "embed_dim", 1, 0, &c->E, e) || meta_int(meta, "hidden_size", 1, 0, &c->C, e) ||
        meta_int(meta, "num_layers", 1, 0, &c->L_enc, e) || meta_int(meta, "reverse_source", 0, 0, &c->reverse_source, e) ||
        meta_int(meta, "src_append_eos", 0, 0, &c->src_append_eos, e) || meta_int(meta, "max_len", 0, 0, &c->max_len, e) ||
        meta_str(meta, "attention", &s, e))
        return -1;
    if (!s || !strcmp(s, "none")) c->attention = TF_RNN_ATTN_NONE;
    else if (!strcmp(s, "dot")) c->attention = TF_RNN_ATTN_DOT;
    else return tf_fail(e, "__metadata__ \"attention\" is \"%.40s\"; tviz knows \"none\" and \"dot\" (Luong's global dot attention)", s);
    if (c->src_append_eos != 0 && c->src_append_eos != 1) return tf_fail(e, "__metadata__ \"src_append_eos\" must be \"0\" or \"1\"");
    c->max_len_set = c->max_len != 0;
    if (!c->max_len_set) c->max_len = TF_DEFAULT_MAX_LEN;
    return check_config(c, e);
}

static int read_config(tf_config *c, const cJSON *meta, tf_err *e) {
    memset(c, 0, sizeof *c);
    const char *arch;
    if (meta_str(meta, "arch", &arch, e)) return -1;
    if (arch && !strcmp(arch, "lstm")) {
        c->arch = TF_ARCH_LSTM;
        return read_lstm_config(c, meta, e);
    }
    if (arch && strcmp(arch, "transformer"))
        return tf_fail(e, "__metadata__ \"arch\" is \"%.40s\"; tviz reads \"transformer\" (the default) and \"lstm\"", arch);
    if (meta_int(meta, "d_model", 1, 0, &c->C, e) || meta_int(meta, "nhead", 1, 0, &c->H, e) ||
        meta_int(meta, "num_encoder_layers", 1, 0, &c->L_enc, e) ||
        meta_int(meta, "num_decoder_layers", 1, 0, &c->L_dec, e) ||
        meta_int(meta, "dim_feedforward", 1, 0, &c->F, e) ||
        meta_int(meta, "src_append_eos", 0, 0, &c->src_append_eos, e) ||
        meta_int(meta, "max_len", 0, 0, &c->max_len, e) ||
        meta_int(meta, "norm_first", 0, 0, &c->norm_first, e))
        return -1;
    if (c->src_append_eos != 0 && c->src_append_eos != 1) return tf_fail(e, "__metadata__ \"src_append_eos\" must be \"0\" or \"1\"");
    if (c->norm_first != 0 && c->norm_first != 1)
        return tf_fail(e, "__metadata__ \"norm_first\" must be \"0\" (post-LN, the paper) or \"1\" (pre-LN)");
    c->max_len_set = c->max_len != 0;
    if (!c->max_len_set) c->max_len = TF_DEFAULT_MAX_LEN;
    const char *s;
    char *end;
    if (meta_str(meta, "layer_norm_eps", &s, e)) return -1;
    c->eps = 1e-5f;
    if (s) {
        c->eps = strtof(s, &end);
        if (end == s || *end) return tf_fail(e, "__metadata__ \"layer_norm_eps\" is \"%.40s\", not a number", s);
    }
    if (meta_str(meta, "without", &s, e)) return -1;
    if (s) { // the parts the model was trained without: it runs without them too
        tf_err why;
        if (tf_without_parse(s, &c->trained_without, &why))
            return tf_fail(e, "__metadata__ \"without\" is \"%.40s\": %s", s, why.msg);
        c->without = c->trained_without;
    }
    if (meta_str(meta, "embed_scale", &s, e)) return -1;
    if (!s || !strcmp(s, "sqrt")) c->embed_scale_is_sqrt = 1;
    else {
        c->embed_scale = strtof(s, &end);
        if (end == s || *end) return tf_fail(e, "__metadata__ \"embed_scale\" is \"%.40s\"; use \"sqrt\" or a number such as \"1\"", s);
    }
    if (check_config(c, e)) return -1;
    c->D = c->C / c->H;
    if (c->embed_scale_is_sqrt) c->embed_scale = sqrtf((float)c->C);
    return 0;
}

typedef struct { size_t b, e; const char *name; } span;

static int cmp_span(const void *x, const void *y) {
    const span *a = x, *b = y;
    return a->b < b->b ? -1 : a->b > b->b ? 1 : (a->e < b->e ? -1 : a->e > b->e);
}

static void shape_str(char *buf, size_t n, const int *shape, int rank) {
    if (rank == 1) snprintf(buf, n, "[%d]", shape[0]);
    else snprintf(buf, n, "[%d, %d]", shape[0], shape[1]);
}

// Reads one tensor entry of the header; checks dtype, shape and offsets.
int tf_st_entry(const cJSON *t, size_t data_size, int *shape, int *rank, size_t *b, size_t *end, int *f16, tf_err *e) {
    const char *nm = t->string;
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(t, "dtype");
    const cJSON *shp = cJSON_GetObjectItemCaseSensitive(t, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(t, "data_offsets");
    if (!cJSON_IsObject(t) || !cJSON_IsString(dtype) || !cJSON_IsArray(shp) || !cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2)
        return tf_fail(e, "tensor \"%.60s\" needs \"dtype\", \"shape\" and two \"data_offsets\" in the header", nm);
    *f16 = !strcmp(dtype->valuestring, "F16");
    if (!*f16 && strcmp(dtype->valuestring, "F32"))
        return tf_fail(e, "tensor \"%.60s\" is %.10s; tviz reads F32 and F16, so save the model with float32 weights", nm, dtype->valuestring);
    *rank = cJSON_GetArraySize(shp);
    if (*rank > 2) return tf_fail(e, "tensor \"%.60s\" has %d dimensions; tviz's tensors have 1 or 2", nm, *rank);
    size_t count = 1;
    for (int i = 0; i < *rank; i++) {
        const cJSON *d = cJSON_GetArrayItem(shp, i);
        if (!cJSON_IsNumber(d) || d->valuedouble < 0 || d->valuedouble > 1e9 || d->valuedouble != (int)d->valuedouble)
            return tf_fail(e, "tensor \"%.60s\" has a bad shape entry; dimensions are whole numbers", nm);
        shape[i] = (int)d->valuedouble;
        count *= (size_t)shape[i];
    }
    const cJSON *ob = cJSON_GetArrayItem(off, 0), *oe = cJSON_GetArrayItem(off, 1);
    if (!cJSON_IsNumber(ob) || !cJSON_IsNumber(oe) || ob->valuedouble < 0 || oe->valuedouble < ob->valuedouble ||
        ob->valuedouble != floor(ob->valuedouble) || oe->valuedouble != floor(oe->valuedouble))
        return tf_fail(e, "tensor \"%.60s\" has bad data_offsets; they must be whole numbers with begin <= end", nm);
    if (oe->valuedouble > (double)data_size) // (compared as doubles: 4e48 has no size_t)
        return tf_fail(e, "tensor \"%.60s\" ends at byte %.0f of the data but the file holds only %zu bytes of data; the file is truncated",
                       nm, oe->valuedouble, data_size);
    *b = (size_t)ob->valuedouble;
    *end = (size_t)oe->valuedouble;
    size_t need = count * (*f16 ? 2 : 4);
    if (*end - *b != need)
        return tf_fail(e, "tensor \"%.60s\" has %zu bytes of data but its shape needs %zu; the header is inconsistent", nm, *end - *b, need);
    return 0;
}

int tf_model_load(tf_model *m, const char *path, tf_err *e) {
    memset(m, 0, sizeof *m);
    if (tf_is_dir(path)) return tf_marian_load(m, path, e);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return tf_fail(e, "cannot open the model (%s); check the path or use a shipped name such as worked-example", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) { close(fd); return tf_fail(e, "is not a regular file; give a .safetensors model file"); }
    size_t size = (size_t)st.st_size;
    if (size < 8) { close(fd); return tf_fail(e, "the file has %zu bytes, too few for safetensors (8-byte header length first); it is truncated or not a model", size); }
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return tf_fail(e, "cannot map the model into memory (%s)", strerror(errno));
    // PyTorch's pytorch_model.bin: a zip, or before PyTorch 1.6 a pickle that starts with torch's magic
    // number (both would be a safetensors header longer than any file)
    if ((size >= 4 && !memcmp(map, "PK\3\4", 4)) || (size >= 10 && !memcmp(map, "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20", 10))) {
        munmap(map, size);
        return tf_fail(e, "is a PyTorch pickle (pytorch_model.bin), which tviz never opens; convert it to model.safetensors once "
                          "(man tviz, MARIANMT CHECKPOINTS)");
    }
    if (tf_model_load_mem(m, map, size, e)) { munmap(map, size); return -1; }
    m->map = map; // the weights point into it: unmapped by tf_model_free
    m->map_size = size;
    return 0;
}

int tf_model_load_mem(tf_model *m, const void *file, size_t size, tf_err *e) {
    memset(m, 0, sizeof *m);
    cJSON *root = NULL;
    param *tab = NULL;
    span *spans = NULL;
    int *found = NULL;
    size_t *begins = NULL; // (np) where each tensor starts in the data
    char *half = NULL;     // (np) 1 for a tensor stored as F16
    if (size < 8) return tf_fail(e, "the file has %zu bytes, too few for safetensors (8-byte header length first); it is truncated or not a model", size);
    const unsigned char *bytes = file;
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = (hl << 8) | bytes[i];
    if (hl > size - 8) { tf_fail(e, "the header length (%llu bytes) is larger than the file (%zu bytes); the file is truncated or not safetensors", (unsigned long long)hl, size); goto fail; }
    if (hl < 2) { tf_fail(e, "the header is %llu bytes long, too short for JSON; the file is not safetensors", (unsigned long long)hl); goto fail; }
    const char *json = (const char *)bytes + 8;
    size_t bad;
    if (tf_utf8_check(json, (size_t)hl, &bad)) { tf_fail(e, "the header is not UTF-8 (byte %zu); the file is damaged", bad + 9); goto fail; }
    const char *json_end = NULL;
    root = cJSON_ParseWithLengthOpts(json, (size_t)hl, &json_end, 0);
    if (!root || !cJSON_IsObject(root)) {
        size_t at = json_end ? (size_t)(json_end - json) : (cJSON_GetErrorPtr() ? (size_t)(cJSON_GetErrorPtr() - json) : 0);
        tf_fail(e, "the header is not a JSON object (error near header byte %zu); the file is damaged or not safetensors", at);
        goto fail;
    }
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
    if (!cJSON_IsObject(meta)) { tf_fail(e, "the header has no __metadata__ with the model's config; tviz needs d_model, nhead, ... there (see README.md, 'Model files')"); goto fail; }
    if (read_config(&m->cfg, meta, e)) goto fail;
    const char *sv, *tv;
    if (meta_str(meta, "src_vocab", &sv, e) || meta_str(meta, "tgt_vocab", &tv, e)) goto fail;
    if (!sv) { tf_fail(e, "__metadata__ has no \"src_vocab\"; add the source tokens joined by newlines"); goto fail; }
    if (tf_vocab_parse(&m->src_vocab, sv, "src_vocab", e)) goto fail;
    m->shared_vocab = tv == NULL;
    if (tf_vocab_parse(&m->tgt_vocab, tv ? tv : sv, tv ? "tgt_vocab" : "src_vocab", e)) goto fail;
    m->cfg.V_src = m->src_vocab.n;
    m->cfg.V_tgt = m->tgt_vocab.n;
    if (check_vocabs(m, e)) goto fail;
    const char *sm, *tm; // subword merges (paper §5.1): optional
    if (meta_str(meta, "src_merges", &sm, e) || meta_str(meta, "tgt_merges", &tm, e)) goto fail;
    if (sm && tf_bpe_parse(&m->src_bpe, sm, "__metadata__ \"src_merges\"", e)) goto fail;
    if (tm && tf_bpe_parse(&m->tgt_bpe, tm, "__metadata__ \"tgt_merges\"", e)) goto fail;
    if (alloc_layers(m, e)) goto fail;
    if (read_training(m, meta, e)) goto fail;

    // Which optional tensors are there decides the config's has_* flags.
    const char *data = json + hl;
    size_t data_size = size - 8 - (size_t)hl;
    tf_config *c = &m->cfg;
    if (c->arch != TF_ARCH_LSTM) { // (a recurrent model has every one: check_lstm_config)
        c->has_enc_norm = (cJSON_GetObjectItemCaseSensitive(root, "encoder.norm.weight") != NULL);
        c->has_dec_norm = (cJSON_GetObjectItemCaseSensitive(root, "decoder.norm.weight") != NULL);
        c->has_tgt_embed = (cJSON_GetObjectItemCaseSensitive(root, "tgt_embed.weight") != NULL);
        c->has_generator = (cJSON_GetObjectItemCaseSensitive(root, "generator.weight") != NULL);
        c->has_generator_bias = (cJSON_GetObjectItemCaseSensitive(root, "generator.bias") != NULL);
    }
    if (!c->has_tgt_embed && c->V_tgt != c->V_src) {
        tf_fail(e, "there is a tgt_vocab of %d tokens but no tgt_embed.weight; add the target embedding, or drop tgt_vocab to share the source one", c->V_tgt);
        goto fail;
    }
    int np = param_table(m, NULL);
    tab = calloc((size_t)np, sizeof *tab);
    found = calloc((size_t)np, sizeof *found);
    int nt = cJSON_GetArraySize(root);
    spans = calloc((size_t)nt + 1, sizeof *spans);
    if (!tab || !found || !spans) { tf_fail(e, "out of memory reading the header"); goto fail; }
    param_table(m, tab);
    int ns = 0;
    size_t unaligned = 0;
    begins = calloc((size_t)np, sizeof *begins);
    half = calloc((size_t)np, 1);
    if (!begins || !half) { tf_fail(e, "out of memory reading the header"); goto fail; }
    for (const cJSON *t = root->child; t; t = t->next) {
        if (!strcmp(t->string, "__metadata__")) continue;
        int shape[2] = {0, 0}, rank = 0;
        size_t b = 0, end = 0;
        int f16 = 0;
        if (tf_st_entry(t, data_size, shape, &rank, &b, &end, &f16, e)) goto fail;
        spans[ns++] = (span){b, end, t->string};
        int k = 0;
        while (k < np && strcmp(tab[k].name, t->string)) k++;
        if (k == np) {
            if (m->n_extra < 8) snprintf(m->extra_names[m->n_extra], sizeof m->extra_names[0], "%s", t->string);
            m->n_extra++;
            continue;
        }
        if (rank != tab[k].rank || shape[0] != tab[k].shape[0] || (rank == 2 && shape[1] != tab[k].shape[1])) {
            char got[48], want[48];
            shape_str(got, sizeof got, shape, rank);
            shape_str(want, sizeof want, tab[k].shape, tab[k].rank);
            if (c->arch == TF_ARCH_LSTM)
                tf_fail(e, "tensor \"%s\" has shape %s but the config (embed_dim %d, hidden_size %d, num_layers %d, %d+%d tokens) needs %s",
                        tab[k].name, got, c->E, c->C, c->L_enc, c->V_src, c->V_tgt, want);
            else
                tf_fail(e, "tensor \"%s\" has shape %s but the config (d_model %d, nhead %d, dim_feedforward %d, %d+%d tokens) needs %s",
                        tab[k].name, got, c->C, c->H, c->F, c->V_src, c->V_tgt, want);
            goto fail;
        }
        found[k] = 1;
        begins[k] = b;
        half[k] = (char)f16;
        m->n_f16 += f16;
        if (f16 || (uintptr_t)(data + b) % sizeof(float)) unaligned += numel(&tab[k]); // widened or copied
    }
    qsort(spans, (size_t)ns, sizeof *spans, cmp_span);
    for (int i = 1; i < ns; i++)
        if (spans[i].b < spans[i - 1].e && spans[i].e > spans[i].b) {
            tf_fail(e, "tensors \"%.50s\" and \"%.50s\" overlap in the data; the header is inconsistent", spans[i - 1].name, spans[i].name);
            goto fail;
        }
    if (unaligned && !(m->owned = malloc(unaligned * sizeof(float)))) { tf_fail(e, "out of memory"); goto fail; }
    size_t used = 0;
    for (int k = 0; k < np; k++) {
        if (!found[k]) {
            if (tab[k].group == REQUIRED || (tab[k].group == OPT_RNN_ATTN && present(c, OPT_RNN_ATTN))) { // (attention = dot needs W_c)
                if (c->arch == TF_ARCH_LSTM)
                    tf_fail(e, "tensor \"%s\" is missing; a recurrent model of this config (num_layers %d, attention %s) has it", tab[k].name,
                            c->L_enc, c->attention == TF_RNN_ATTN_DOT ? "dot" : "none");
                else
                    tf_fail(e, "tensor \"%s\" is missing; a torch.nn.Transformer of this config has it", tab[k].name);
                goto fail;
            }
            continue;
        }
        const char *src = data + begins[k];
        size_t n = numel(&tab[k]);
        float *dst;
        if (half[k]) {
            dst = m->owned + used;
            used += n;
            for (size_t i = 0; i < n; i++) {
                const unsigned char *le = (const unsigned char *)src + 2 * i;
                dst[i] = tf_f16_to_f32((uint16_t)(le[0] | le[1] << 8));
            }
        } else if ((uintptr_t)src % sizeof(float)) { dst = m->owned + used; used += n; memcpy(dst, src, n * sizeof(float)); }
        else dst = (float *)(uintptr_t)src;
        for (size_t i = 0; i < n; i++)
            if (!isfinite(dst[i])) {
                tf_fail(e, "tensor \"%s\" holds %s at index %zu; the weights are broken, so re-export or retrain the model",
                        tab[k].name, isnan(dst[i]) ? "NaN" : "an infinity", i);
                goto fail;
            }
        *tab[k].ptr = dst;
        m->n_params += n;
    }
    tie(m);
    free(tab); free(found); free(spans); free(begins); free(half);
    cJSON_Delete(root);
    return 0;
fail:
    free(tab); free(found); free(spans); free(begins); free(half);
    cJSON_Delete(root);
    tf_model_free(m);
    return -1;
}

void tf_model_free(tf_model *m) {
    if (m->map) munmap(m->map, m->map_size);
    free(m->owned);
    free(m->enc);
    free(m->dec);
    free(m->lenc);
    free(m->ldec);
    tf_vocab_free(&m->src_vocab);
    tf_vocab_free(&m->tgt_vocab);
    tf_bpe_free(&m->src_bpe);
    tf_bpe_free(&m->tgt_bpe);
    free(m->loss_curve);
    free(m->heldout_curve);
    free(m->heldout_steps);
    tf_marian_free(m->marian);
    memset(m, 0, sizeof *m);
}

int tf_model_set_merges(tf_model *m, const char *src_merges, const char *tgt_merges, tf_err *e) {
    tf_bpe_free(&m->src_bpe);
    tf_bpe_free(&m->tgt_bpe);
    if (src_merges && tf_bpe_parse(&m->src_bpe, src_merges, "src_merges", e)) return -1;
    if (tgt_merges && tf_bpe_parse(&m->tgt_bpe, tgt_merges, "tgt_merges", e)) { tf_bpe_free(&m->src_bpe); return -1; }
    return 0;
}

int tf_model_tensors(const tf_model *m, tf_tensor_info *out) {
    tf_model *mm = (tf_model *)m; // the table only takes the addresses of its fields
    int np = param_table(mm, NULL), k = 0;
    param *tab = calloc((size_t)np, sizeof *tab);
    if (!tab) return -1;
    param_table(mm, tab);
    for (int i = 0; i < np; i++) {
        if (!present(&m->cfg, tab[i].group)) continue;
        if (out) {
            memcpy(out[k].name, tab[i].name, sizeof out[k].name);
            out[k].rank = tab[i].rank;
            out[k].shape[0] = tab[i].shape[0];
            out[k].shape[1] = tab[i].shape[1];
            out[k].data = *tab[i].ptr;
        }
        k++;
    }
    free(tab);
    return k;
}

// ---------------------------------------------------------------- save
static char *join_vocab(const tf_vocab *v) {
    size_t n = 0;
    for (int i = 0; i < v->n; i++) n += strlen(v->tok[i]) + 1;
    char *s = malloc(n + 1), *p = s;
    if (!s) return NULL;
    for (int i = 0; i < v->n; i++) {
        size_t l = strlen(v->tok[i]);
        memcpy(p, v->tok[i], l);
        p += l;
        *p++ = '\n';
    }
    if (p > s) p--;
    *p = 0;
    return s;
}

static cJSON *metadata_json(const tf_model *m) {
    const tf_config *c = &m->cfg;
    cJSON *meta = cJSON_CreateObject();
    char buf[64];
#define META_INT(key, v) (snprintf(buf, sizeof buf, "%d", (v)), cJSON_AddStringToObject(meta, key, buf))
    if (c->arch == TF_ARCH_LSTM) {
        cJSON_AddStringToObject(meta, "arch", "lstm");
        META_INT("embed_dim", c->E);
        META_INT("hidden_size", c->C);
        META_INT("num_layers", c->L_enc);
        cJSON_AddStringToObject(meta, "attention", c->attention == TF_RNN_ATTN_DOT ? "dot" : "none");
        META_INT("reverse_source", c->reverse_source);
    } else {
    META_INT("d_model", c->C);
    META_INT("nhead", c->H);
    META_INT("num_encoder_layers", c->L_enc);
    META_INT("num_decoder_layers", c->L_dec);
    META_INT("dim_feedforward", c->F);
    snprintf(buf, sizeof buf, "%g", (double)c->eps);
    cJSON_AddStringToObject(meta, "layer_norm_eps", buf);
    if (c->embed_scale_is_sqrt) cJSON_AddStringToObject(meta, "embed_scale", "sqrt");
    else { snprintf(buf, sizeof buf, "%.9g", (double)c->embed_scale); cJSON_AddStringToObject(meta, "embed_scale", buf); }
    }
    META_INT("src_append_eos", c->src_append_eos);
    if (c->max_len_set) META_INT("max_len", c->max_len);
    if (c->norm_first) META_INT("norm_first", 1);
#undef META_INT
    if (c->trained_without) cJSON_AddStringToObject(meta, "without", tf_without_format(c->trained_without, buf, sizeof buf));
    char *sv = join_vocab(&m->src_vocab);
    if (sv) cJSON_AddStringToObject(meta, "src_vocab", sv);
    free(sv);
    if (!m->shared_vocab) {
        char *tv = join_vocab(&m->tgt_vocab);
        if (tv) cJSON_AddStringToObject(meta, "tgt_vocab", tv);
        free(tv);
    }
    if (m->src_bpe.n) cJSON_AddStringToObject(meta, "src_merges", m->src_bpe.text);
    if (m->tgt_bpe.n) cJSON_AddStringToObject(meta, "tgt_merges", m->tgt_bpe.text);
    if (m->train_step >= 0) {
        snprintf(buf, sizeof buf, "%d", m->train_step);
        cJSON_AddStringToObject(meta, "train_step", buf);
    }
    if (m->step_loss >= 0) { snprintf(buf, sizeof buf, "%.6g", (double)m->step_loss); cJSON_AddStringToObject(meta, "step_loss", buf); }
    if (m->heldout_exact >= 0) { snprintf(buf, sizeof buf, "%.6g", (double)m->heldout_exact); cJSON_AddStringToObject(meta, "heldout_exact", buf); }
    if (m->align_layer >= 0) {
        snprintf(buf, sizeof buf, "%d", m->align_layer);
        cJSON_AddStringToObject(meta, "align_layer", buf);
        snprintf(buf, sizeof buf, "%d", m->align_head);
        cJSON_AddStringToObject(meta, "align_head", buf);
        snprintf(buf, sizeof buf, "%.4g", (double)m->align_rate);
        cJSON_AddStringToObject(meta, "align_rate", buf);
    }
    if (m->n_loss_curve || m->n_heldout_curve) {
        int n = m->n_loss_curve > m->n_heldout_curve ? m->n_loss_curve : m->n_heldout_curve;
        char *text = malloc((size_t)n * 32 + 1);
        if (!text) TF_OOM();
        if (m->n_loss_curve) {
            size_t k = 0;
            for (int i = 0; i < m->n_loss_curve; i++) k += (size_t)sprintf(text + k, "%s%.5g", i ? " " : "", (double)m->loss_curve[i]);
            cJSON_AddStringToObject(meta, "loss_curve", text);
            snprintf(buf, sizeof buf, "%d", m->loss_every);
            cJSON_AddStringToObject(meta, "loss_every", buf);
        }
        if (m->n_heldout_curve) {
            size_t k = 0;
            for (int i = 0; i < m->n_heldout_curve; i++)
                k += (size_t)sprintf(text + k, "%s%d:%.5g", i ? " " : "", m->heldout_steps[i], (double)m->heldout_curve[i]);
            cJSON_AddStringToObject(meta, "heldout_curve", text);
        }
        free(text);
    }
    return meta;
}

float tf_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
    if (exp == 0x1f) x = sign | 0x7f800000u | (man << 13); // infinity, NaN
    else if (exp) x = sign | ((exp + 112) << 23) | (man << 13);
    else if (!man) x = sign;
    else { // subnormal: shift the first 1 up to the implicit bit
        int k = 0;
        while (!(man & 0x400)) { man <<= 1; k++; }
        x = sign | ((uint32_t)(113 - k) << 23) | ((man & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

uint16_t tf_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, man = x & 0x7fffff, fexp = (x >> 23) & 0xff;
    if (fexp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
    int exp = (int)fexp - 127 + 15;
    if (exp >= 31) return (uint16_t)(sign | 0x7c00);
    if (exp <= 0) { // a subnormal half (units of 2^-24), or zero
        if (exp < -10) return (uint16_t)sign;
        man |= 0x800000;
        int shift = 14 - exp;
        uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; // a carry into the exponent is right (up to infinity)
    return (uint16_t)(sign | h);
}

static int save(const tf_model *m, const char *path, int f16, tf_err *e);
int tf_model_save(const tf_model *m, const char *path, tf_err *e) { return save(m, path, 0, e); }
int tf_model_save_f16(const tf_model *m, const char *path, tf_err *e) { return save(m, path, 1, e); }

static int save(const tf_model *m, const char *path, int f16, tf_err *e) {
    if (m->cfg.marian) return tf_fail(e, "the model is a MarianMT checkpoint, which tviz reads but does not write or train; use its folder as it is");
    tf_model *mm = (tf_model *)m; // the table only takes the addresses of its fields
    int np = param_table(mm, NULL);
    param *tab = calloc((size_t)np, sizeof *tab);
    cJSON *root = cJSON_CreateObject();
    char *header = NULL, tmp[4096];
    FILE *f = NULL;
    int rc = -1;
    if (!tab || !root) { tf_fail(e, "out of memory"); goto done; }
    param_table(mm, tab);
    cJSON_AddItemToObject(root, "__metadata__", metadata_json(m));
    size_t off = 0;
    for (int k = 0; k < np; k++) {
        if (!present(&m->cfg, tab[k].group)) continue;
        cJSON *t = cJSON_AddObjectToObject(root, tab[k].name);
        cJSON_AddStringToObject(t, "dtype", f16 ? "F16" : "F32");
        cJSON *shape = cJSON_AddArrayToObject(t, "shape");
        for (int i = 0; i < tab[k].rank; i++) cJSON_AddItemToArray(shape, cJSON_CreateNumber(tab[k].shape[i]));
        size_t bytes = numel(&tab[k]) * (f16 ? 2 : sizeof(float));
        double o[2] = {(double)off, (double)(off + bytes)};
        cJSON_AddItemToObject(t, "data_offsets", cJSON_CreateDoubleArray(o, 2));
        off += bytes;
    }
    header = cJSON_PrintUnformatted(root);
    if (!header) { tf_fail(e, "out of memory"); goto done; }
    size_t hl = strlen(header), padded = (hl + 7) / 8 * 8;
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) { tf_fail(e, "the output path is too long"); goto done; }
    f = fopen(tmp, "wb");
    if (!f) { tf_fail(e, "cannot write %s (%s); check the folder exists and is writable", tmp, strerror(errno)); goto done; }
    unsigned char len8[8];
    for (int i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)padded >> (8 * i));
    int ok = fwrite(len8, 1, 8, f) == 8 && fwrite(header, 1, hl, f) == hl;
    for (size_t i = hl; ok && i < padded; i++) ok = fputc(' ', f) != EOF;
    for (int k = 0; ok && k < np; k++) {
        if (!present(&m->cfg, tab[k].group)) continue;
        if (!f16) { ok = fwrite(*tab[k].ptr, sizeof(float), numel(&tab[k]), f) == numel(&tab[k]); continue; }
        for (size_t i = 0; ok && i < numel(&tab[k]); i++) {
            uint16_t h = tf_f32_to_f16((*tab[k].ptr)[i]);
            unsigned char le[2] = {(unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
            ok = fwrite(le, 1, 2, f) == 2;
        }
    }
    if (fclose(f) != 0) ok = 0;
    f = NULL;
    if (!ok) { tf_fail(e, "writing %s failed (%s); is the disk full?", tmp, strerror(errno)); remove(tmp); goto done; }
    if (rename(tmp, path)) { tf_fail(e, "cannot rename %s to %s (%s)", tmp, path, strerror(errno)); remove(tmp); goto done; }
    rc = 0;
done:
    free(header);
    cJSON_Delete(root);
    free(tab);
    return rc;
}

// ---------------------------------------------------------------- init
int tf_model_init(tf_model *m, const tf_config *cfg, const char *src_vocab, const char *tgt_vocab, uint64_t seed, tf_err *e) {
    memset(m, 0, sizeof *m);
    m->train_step = -1;
    m->align_layer = m->align_head = -1;
    m->align_rate = -1.0f;
    m->step_loss = m->heldout_exact = -1.0f;
    m->cfg = *cfg;
    tf_config *c = &m->cfg;
    if (!c->max_len_set) c->max_len = TF_DEFAULT_MAX_LEN;
    if (check_config(c, e)) return -1;
    if (c->arch != TF_ARCH_LSTM) {
        c->D = c->C / c->H;
        if (c->embed_scale_is_sqrt) c->embed_scale = sqrtf((float)c->C);
    }
    if (tf_vocab_parse(&m->src_vocab, src_vocab, "src_vocab", e)) goto fail;
    m->shared_vocab = tgt_vocab == NULL;
    if (tf_vocab_parse(&m->tgt_vocab, tgt_vocab ? tgt_vocab : src_vocab, tgt_vocab ? "tgt_vocab" : "src_vocab", e)) goto fail;
    c->V_src = m->src_vocab.n;
    c->V_tgt = m->tgt_vocab.n;
    if (c->arch != TF_ARCH_LSTM) c->has_tgt_embed = tgt_vocab != NULL;
    if (check_vocabs(m, e) || alloc_layers(m, e)) goto fail;
    int np = param_table(m, NULL);
    param *tab = calloc((size_t)np, sizeof *tab);
    if (!tab) { tf_fail(e, "out of memory"); goto fail; }
    param_table(m, tab);
    size_t total = 0;
    for (int k = 0; k < np; k++) if (present(c, tab[k].group)) total += numel(&tab[k]);
    m->owned = malloc(total * sizeof(float));
    if (!m->owned) { free(tab); tf_fail(e, "out of memory for %zu weights", total); goto fail; }
    tf_rng rng;
    tf_rng_seed(&rng, seed);
    size_t used = 0;
    for (int k = 0; k < np; k++) {
        if (!present(c, tab[k].group)) continue;
        float *w = *tab[k].ptr = m->owned + used;
        size_t n = numel(&tab[k]);
        used += n;
        const char *nm = tab[k].name;
        size_t l = strlen(nm);
        int is_norm = strstr(nm, "norm") != NULL;
        if (c->arch == TF_ARCH_LSTM && (!strncmp(nm, "encoder.", 8) || !strncmp(nm, "decoder.", 8) || !strncmp(nm, "attn.", 5))) {
            // torch.nn.LSTM's own: every weight and bias U(-k, k), k = 1/√hidden_size
            float a = 1.0f / sqrtf((float)c->C);
            for (size_t i = 0; i < n; i++) w[i] = (2.0f * tf_rng_uniform(&rng) - 1.0f) * a;
        } else if (tab[k].rank == 2) {
            // Xavier (Glorot) uniform: U(-a, a), a = √(6 / (fan_in + fan_out))
            float a = sqrtf(6.0f / (float)(tab[k].shape[0] + tab[k].shape[1]));
            for (size_t i = 0; i < n; i++) w[i] = (2.0f * tf_rng_uniform(&rng) - 1.0f) * a;
        } else {
            float v = is_norm && l > 7 && !strcmp(nm + l - 7, ".weight") ? 1.0f : 0.0f;
            for (size_t i = 0; i < n; i++) w[i] = v;
        }
        m->n_params += n;
    }
    free(tab);
    tie(m);
    return 0;
fail:
    tf_model_free(m);
    return -1;
}

int tf_model_clone(tf_model *dst, const tf_model *src, tf_err *e) {
    if (src->cfg.marian) return tf_fail(e, "the model is a MarianMT checkpoint, which tviz reads but does not write or train; use its folder as it is");
    char *sv = join_vocab(&src->src_vocab), *tv = src->shared_vocab ? NULL : join_vocab(&src->tgt_vocab);
    int rc = -1;
    if (!sv || (!src->shared_vocab && !tv)) { tf_fail(e, "out of memory"); goto done; }
    tf_config c = src->cfg;
    c.max_len_set = 1; // keep the source's limit, set or not
    if (tf_model_init(dst, &c, sv, tv, 1, e)) goto done;
    dst->cfg.max_len_set = src->cfg.max_len_set;
    if (tf_model_set_merges(dst, src->src_bpe.n ? src->src_bpe.text : NULL, src->tgt_bpe.n ? src->tgt_bpe.text : NULL, e)) {
        tf_model_free(dst);
        goto done;
    }
    int n = tf_model_tensors(src, NULL);
    tf_tensor_info *a = malloc(sizeof *a * (size_t)n * 2);
    if (!a || tf_model_tensors(dst, a + n) != n) { free(a); tf_model_free(dst); tf_fail(e, "out of memory"); goto done; }
    tf_model_tensors(src, a);
    for (int k = 0; k < n; k++)
        memcpy((float *)a[n + k].data, a[k].data, sizeof(float) * (size_t)a[k].shape[0] * (a[k].rank == 2 ? a[k].shape[1] : 1));
    free(a);
    dst->train_step = src->train_step;
    dst->step_loss = src->step_loss;
    dst->heldout_exact = src->heldout_exact;
    dst->align_layer = src->align_layer;
    dst->align_head = src->align_head;
    dst->align_rate = src->align_rate;
    if (tf_model_set_curves(dst, src->loss_curve, src->n_loss_curve, src->loss_every, src->heldout_steps, src->heldout_curve,
                            src->n_heldout_curve, e)) { tf_model_free(dst); goto done; }
    rc = 0;
done:
    free(sv);
    free(tv);
    return rc;
}
