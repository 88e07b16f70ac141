// marian.c — MarianMT checkpoint folders (Helsinki-NLP opus-mt-*), read as
// transformers reads them (modeling_marian.py, tokenization_marian.py) into the
// Transformer of tf.h, so every stage, view and lesson works on them unchanged.
//
//   config.json        sizes, activation, scale_embedding, the special token ids
//   vocab.json         {"piece": id, …}: the ids of the SentencePiece pieces (one vocabulary, both sides)
//   model.safetensors  model.shared.weight (V,C); model.{encoder,decoder}.layers.{l}.…; final_logits_bias (1,V)
//   source.spm / target.spm   SentencePiece models of each side (spm.h)
//
// Letters: S, T, C, H, D, F, V as in tf.h.
#include "tf.h"
#include "spm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG "config.json"
#define VOCAB "vocab.json"
#define WEIGHTS "model.safetensors"
#define MARIAN_MAX_LEN 128      // longest sentence in tokens (max_position_embeddings if smaller)
#define MARIAN_MAX_TEXT (256u << 20) // config.json and vocab.json larger than this are not a checkpoint's

struct tf_marian {
    tf_spm *spm[2];            // source.spm, target.spm
    int *slot; size_t n_slot;  // vocab.json's pieces: open addressing, slot -> id, -1 empty
    int n_lang;                // pieces such as >>ara<<: the target languages a multilingual model is told
};

int tf_is_dir(const char *path) {
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

// ---------------------------------------------------------------- JSON with line numbers
static int line_at(const char *text, size_t n, size_t off) {
    int line = 1;
    for (size_t i = 0; i < off && i < n; i++) line += text[i] == '\n';
    return line;
}

// The line of the first "key" in text (a key is found as written, quotes included); 1 if not found.
static int key_line(const char *text, size_t n, const char *key) {
    size_t k = strlen(key);
    for (size_t i = 0; i + k + 2 <= n; i++)
        if (text[i] == '"' && !memcmp(text + i + 1, key, k) && text[i + k + 1] == '"') return line_at(text, n, i);
    return 1;
}

static cJSON *parse_object(const char *file, const char *text, size_t n, tf_err *e) {
    size_t bad;
    if (tf_utf8_check(text, n, &bad)) {
        tf_fail(e, "%s:%d: is not UTF-8 (byte %zu); use the file of the downloaded checkpoint as it is", file, line_at(text, n, bad), bad + 1);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (!root) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        tf_fail(e, "%s:%d: is not valid JSON; download it again or fix the file near that line", file, line_at(text, n, at));
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        tf_fail(e, "%s:1: is JSON but not an object { … }; use the checkpoint's own %s", file, file);
        return NULL;
    }
    return root;
}

// ---------------------------------------------------------------- config.json
typedef struct { const char *text; size_t n; const cJSON *root; } json_file;

static int cfg_int(const json_file *f, const char *key, int required, int def, int lo, int hi, int *out, tf_err *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(f->root, key);
    if (!it || cJSON_IsNull(it)) {
        if (required) return tf_fail(e, CONFIG ":1: has no \"%s\"; a MarianMT config.json gives it, so use the checkpoint's own", key);
        *out = def;
        return 0;
    }
    if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < lo || it->valuedouble > hi)
        return tf_fail(e, CONFIG ":%d: \"%s\" must be a whole number from %d to %d; fix it or use the checkpoint's own config.json",
                       key_line(f->text, f->n, key), key, lo, hi);
    *out = (int)it->valuedouble;
    return 0;
}

static int cfg_bool(const json_file *f, const char *key, int def, int *out, tf_err *e) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(f->root, key);
    *out = def;
    if (!it || cJSON_IsNull(it)) return 0;
    if (!cJSON_IsBool(it)) return tf_fail(e, CONFIG ":%d: \"%s\" must be true or false", key_line(f->text, f->n, key), key);
    *out = cJSON_IsTrue(it);
    return 0;
}

// Options of transformers' Marian/BART configuration that change the
// computation; tviz runs only the value opus-mt checkpoints have.
static const struct { const char *key; int refused; const char *what; } options[] = {
    {"normalize_before", 1, "LayerNorm before each sublayer (pre-LN)"},
    {"add_final_layer_norm", 1, "a LayerNorm after each stack"},
    {"normalize_embedding", 1, "a LayerNorm on the embeddings"},
    {"layernorm_embedding", 1, "a LayerNorm on the embeddings"},
    {"add_bias_logits", 1, "a bias inside the output layer"},
    {"static_position_embeddings", 0, "learned positional embeddings"},
    {"share_encoder_decoder_embeddings", 0, "separate target embeddings"},
    {"tie_word_embeddings", 0, "an output layer not tied to the embeddings"},
};

int tf_marian_config(tf_config *c, tf_marian_ids *ids, const char *text, size_t n, tf_err *e) {
    memset(c, 0, sizeof *c);
    memset(ids, 0, sizeof *ids);
    cJSON *root = parse_object(CONFIG, text, n, e);
    if (!root) return -1;
    json_file f = {text, n, root};
    int rc = -1, H_dec, F_dec, scale, dv;
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (mt && (!cJSON_IsString(mt) || strcmp(mt->valuestring, "marian"))) {
        tf_fail(e, CONFIG ":%d: model_type is %s%.40s%s, not \"marian\"; tviz opens MarianMT checkpoints (Helsinki-NLP opus-mt-*)",
                key_line(text, n, "model_type"), cJSON_IsString(mt) ? "\"" : "", cJSON_IsString(mt) ? mt->valuestring : "not a string",
                cJSON_IsString(mt) ? "\"" : "");
        goto done;
    }
    for (size_t k = 0; k < sizeof options / sizeof *options; k++) {
        int v;
        if (cfg_bool(&f, options[k].key, !options[k].refused, &v, e)) goto done;
        if (v == options[k].refused) {
            tf_fail(e, CONFIG ":%d: \"%s\" is %s (%s), which tviz does not implement; it runs MarianMT as opus-mt checkpoints have it",
                    key_line(text, n, options[k].key), options[k].key, v ? "true" : "false", options[k].what);
            goto done;
        }
    }
    if (cfg_int(&f, "d_model", 1, 0, 1, TF_MAX_C, &c->C, e) || cfg_int(&f, "encoder_layers", 1, 0, 1, TF_MAX_L, &c->L_enc, e) ||
        cfg_int(&f, "decoder_layers", 1, 0, 1, TF_MAX_L, &c->L_dec, e) ||
        cfg_int(&f, "encoder_attention_heads", 1, 0, 1, TF_MAX_H, &c->H, e) ||
        cfg_int(&f, "decoder_attention_heads", 1, 0, 1, TF_MAX_H, &H_dec, e) ||
        cfg_int(&f, "encoder_ffn_dim", 1, 0, 1, TF_MAX_F, &c->F, e) || cfg_int(&f, "decoder_ffn_dim", 1, 0, 1, TF_MAX_F, &F_dec, e) ||
        cfg_int(&f, "vocab_size", 1, 0, 3, TF_MAX_V, &ids->V, e) ||
        cfg_int(&f, "max_position_embeddings", 0, 1024, 1, 1000000, &ids->max_pos, e) ||
        cfg_int(&f, "pad_token_id", 1, 0, 0, ids->V - 1, &ids->pad, e) ||
        cfg_int(&f, "eos_token_id", 0, 0, 0, ids->V - 1, &ids->eos, e) ||
        cfg_int(&f, "decoder_start_token_id", 0, ids->pad, 0, ids->V - 1, &ids->start, e) ||
        cfg_int(&f, "decoder_vocab_size", 0, ids->V, ids->V, ids->V, &dv, e) ||
        cfg_bool(&f, "scale_embedding", 0, &scale, e))
        goto done;
    if (H_dec != c->H) {
        tf_fail(e, CONFIG ":%d: decoder_attention_heads %d differs from encoder_attention_heads %d; tviz runs models whose stacks have the same heads",
                key_line(text, n, "decoder_attention_heads"), H_dec, c->H);
        goto done;
    }
    if (F_dec != c->F) {
        tf_fail(e, CONFIG ":%d: decoder_ffn_dim %d differs from encoder_ffn_dim %d; tviz runs models whose stacks have the same d_ff",
                key_line(text, n, "decoder_ffn_dim"), F_dec, c->F);
        goto done;
    }
    if (c->C % c->H) {
        tf_fail(e, CONFIG ":%d: d_model %d is not divisible by encoder_attention_heads %d; each head needs d_model/heads dimensions",
                key_line(text, n, "d_model"), c->C, c->H);
        goto done;
    }
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(root, "activation_function");
    const char *a = cJSON_IsString(act) ? act->valuestring : act ? "" : "gelu"; // (MarianConfig's default)
    if (!strcmp(a, "swish") || !strcmp(a, "silu")) c->act = TF_ACT_SILU;
    else if (!strcmp(a, "relu")) c->act = TF_ACT_RELU;
    else if (!strcmp(a, "gelu")) c->act = TF_ACT_GELU;
    else {
        tf_fail(e, CONFIG ":%d: activation_function is \"%.40s\"; tviz knows swish (SiLU), silu, relu and gelu",
                key_line(text, n, "activation_function"), a);
        goto done;
    }
    c->D = c->C / c->H;
    c->V_src = c->V_tgt = ids->V;
    c->eps = 1e-5f; // nn.LayerNorm's default, as modeling_marian.py builds them
    c->embed_scale_is_sqrt = scale;
    c->embed_scale = scale ? sqrtf((float)c->C) : 1.0f;
    c->src_append_eos = 1; // MarianTokenizer appends </s>
    c->max_len = ids->max_pos < MARIAN_MAX_LEN ? ids->max_pos : MARIAN_MAX_LEN;
    c->max_len_set = 1;
    c->has_generator_bias = 1; // final_logits_bias
    c->marian = 1;
    c->pe_split = 1;
    rc = 0;
done:
    cJSON_Delete(root);
    return rc;
}

// ---------------------------------------------------------------- vocab.json
// The pieces in id order, joined by '\n' (tf_vocab_parse's form); malloc'd.
static char *vocab_joined(const char *text, size_t n, int V, tf_err *e) {
    cJSON *root = parse_object(VOCAB, text, n, e);
    if (!root) return NULL;
    char *joined = NULL;
    const char **tok = calloc((size_t)V, sizeof *tok);
    int count = cJSON_GetArraySize(root);
    if (!tok) { tf_fail(e, VOCAB ":1: out of memory for %d pieces", V); goto done; }
    if (count != V) {
        tf_fail(e, VOCAB ":1: holds %d pieces but config.json's vocab_size is %d; use the vocab.json of the same checkpoint", count, V);
        goto done;
    }
    size_t len = 0;
    for (const cJSON *it = root->child; it; it = it->next) {
        const char *k = it->string;
        if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) || it->valuedouble < 0 || it->valuedouble >= V) {
            tf_fail(e, VOCAB ":%d: the id of \"%.40s\" must be a whole number from 0 to %d (vocab_size − 1)", key_line(text, n, k), k, V - 1);
            goto done;
        }
        if (!*k || strchr(k, '\n') || strchr(k, '\r')) {
            tf_fail(e, VOCAB ":%d: a piece is empty or holds a line break; use the checkpoint's own vocab.json", key_line(text, n, k));
            goto done;
        }
        int id = (int)it->valuedouble;
        if (tok[id]) {
            tf_fail(e, VOCAB ":%d: \"%.40s\" and \"%.40s\" both have id %d; each id belongs to one piece", key_line(text, n, k), tok[id], k, id);
            goto done;
        }
        tok[id] = k;
        len += strlen(k) + 1;
    }
    // count == V and no id twice: every id 0 … V−1 has its piece
    joined = malloc(len + 1);
    if (!joined) { tf_fail(e, VOCAB ":1: out of memory for %d pieces", V); goto done; }
    char *p = joined;
    for (int i = 0; i < V; i++) {
        size_t l = strlen(tok[i]);
        memcpy(p, tok[i], l);
        p += l;
        *p++ = '\n';
    }
    p[-1] = 0;
done:
    free(tok);
    cJSON_Delete(root);
    return joined;
}

int tf_marian_vocab(tf_vocab *v, const char *text, size_t n, int V, tf_err *e) {
    memset(v, 0, sizeof *v);
    v->unk = v->bos = v->eos = v->pad = -1;
    char *joined = vocab_joined(text, n, V, e);
    if (!joined) return -1;
    tf_err why;
    int rc = tf_vocab_parse(v, joined, "it", &why); // (a piece twice, no <unk>)
    free(joined);
    if (rc) return tf_fail(e, VOCAB ":1: %s", why.msg);
    return 0;
}

// ---------------------------------------------------------------- the pieces' ids
static uint64_t hash_str(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int index_vocab(struct tf_marian *mm, const tf_vocab *v) {
    mm->n_slot = 2;
    while (mm->n_slot < 2 * (size_t)v->n) mm->n_slot *= 2;
    mm->slot = malloc(sizeof(int) * mm->n_slot);
    if (!mm->slot) return -1;
    memset(mm->slot, 0xff, sizeof(int) * mm->n_slot);
    for (int i = 0; i < v->n; i++) {
        size_t s = hash_str(v->tok[i]) & (mm->n_slot - 1);
        while (mm->slot[s] >= 0) s = (s + 1) & (mm->n_slot - 1);
        mm->slot[s] = i;
        size_t l = strlen(v->tok[i]);
        mm->n_lang += l > 4 && !strncmp(v->tok[i], ">>", 2) && !strcmp(v->tok[i] + l - 2, "<<");
    }
    return 0;
}

static int piece_id(const struct tf_marian *mm, const tf_vocab *v, const char *tok) {
    size_t s = hash_str(tok) & (mm->n_slot - 1);
    for (; mm->slot[s] >= 0; s = (s + 1) & (mm->n_slot - 1))
        if (!strcmp(v->tok[mm->slot[s]], tok)) return mm->slot[s];
    return -1;
}

int tf_model_token_id(const tf_model *m, int target, const char *tok) {
    if (m->marian) return piece_id(m->marian, &m->src_vocab, tok); // (one vocabulary for both sides)
    return tf_vocab_find(target ? &m->tgt_vocab : &m->src_vocab, tok);
}

// The length of a leading language token ">>ara<<" (MarianTokenizer.remove_language_code), else 0.
static size_t lang_code(const char *s) {
    const char *end = strncmp(s, ">>", 2) ? NULL : strstr(s + 2, "<<");
    return end ? (size_t)(end + 2 - s) : 0;
}

int tf_model_tokens(const tf_model *m, int target, const char *sentence, char ***tokens, tf_err *e) {
    if (!m->marian) return tf_tokens(target ? &m->tgt_bpe : &m->src_bpe, sentence, tokens, e);
    size_t code = lang_code(sentence);
    char **p;
    int n = tf_spm_encode(m->marian->spm[target ? 1 : 0], sentence + code, &p);
    if (n < 0) return tf_fail(e, "the sentence could not be split into SentencePiece pieces; retype it");
    if (code) {
        char **q = realloc(p, sizeof(char *) * (size_t)(n + 2));
        char *c = q ? strndup(sentence, code) : NULL;
        if (!c) { tf_words_free(q ? q : p, n); return tf_fail(e, "out of memory while reading the sentence"); }
        memmove(q + 1, q, sizeof(char *) * (size_t)n);
        q[0] = c;
        p = q;
        n++;
    }
    *tokens = p;
    return n;
}

int tf_model_needs_lang_token(const tf_model *m, const char *sentence) {
    return m->marian && m->marian->n_lang > 0 && !lang_code(sentence);
}

void tf_marian_free(struct tf_marian *mm) {
    if (!mm) return;
    tf_spm_free(mm->spm[0]);
    tf_spm_free(mm->spm[1]);
    free(mm->slot);
    free(mm);
}

// ---------------------------------------------------------------- model.safetensors
// One tensor the model reads. qkv: 1, 2, 3 for W_Q, W_K, W_V (or their
// biases), copied side by side into the attention's in_w (in_b); 0 otherwise.
typedef struct {
    char name[112];
    float **dst;       // where the model keeps it (for qkv: the block's in_w or in_b)
    int d0, d1;        // shape (d1 0: a vector; [d0] or [1, d0] is read)
    int qkv, optional;
    const cJSON *entry;
    size_t b;          // where its data begins
    int f16;
} want;

static void want_add(want *w, int *n, float **dst, int d0, int d1, int qkv, int optional, const char *name) {
    if (w) {
        want *x = &w[*n];
        memset(x, 0, sizeof *x);
        snprintf(x->name, sizeof x->name, "%s", name);
        x->dst = dst;
        x->d0 = d0;
        x->d1 = d1;
        x->qkv = qkv;
        x->optional = optional;
    }
    (*n)++;
}

// "model.encoder.layers.0.self_attn.q_proj.weight" …: pre is "model.encoder.layers.0.self_attn"
static void want_attn(want *w, int *n, tf_attn_w *a, const char *pre, int C) {
    char name[112];
    static const char *const proj[3] = {"q_proj", "k_proj", "v_proj"};
    for (int k = 0; k < 3; k++) {
        snprintf(name, sizeof name, "%s.%s.weight", pre, proj[k]);
        want_add(w, n, &a->in_w, C, C, k + 1, 0, name);
        snprintf(name, sizeof name, "%s.%s.bias", pre, proj[k]);
        want_add(w, n, &a->in_b, C, 0, k + 1, 0, name);
    }
    snprintf(name, sizeof name, "%s.out_proj.weight", pre);
    want_add(w, n, &a->out_w, C, C, 0, 0, name);
    snprintf(name, sizeof name, "%s.out_proj.bias", pre);
    want_add(w, n, &a->out_b, C, 0, 0, 0, name);
}

// Every tensor of a Marian model of config c, in the order tviz keeps them. w NULL counts.
// Layer norms: self_attn_layer_norm is norm1, the decoder's encoder_attn_layer_norm
// norm2, final_layer_norm the last (norm2 in the encoder, norm3 in the decoder).
static int want_table(tf_model *m, want *w, float **lm_head) {
    const tf_config *c = &m->cfg;
    int n = 0, C = c->C, F = c->F, V = c->V_tgt;
    char pre[80], name[112];
    for (int side = 0; side < 2; side++) {
        for (int l = 0; l < (side ? c->L_dec : c->L_enc); l++) {
            tf_layer_w *x = side ? &m->dec[l] : &m->enc[l];
            struct { const char *suffix; float **dst; int d0, d1; } rest[] = {
                {"self_attn_layer_norm.weight", &x->n1w, C, 0}, {"self_attn_layer_norm.bias", &x->n1b, C, 0},
                {"encoder_attn_layer_norm.weight", &x->n2w, C, 0}, {"encoder_attn_layer_norm.bias", &x->n2b, C, 0},
                {"fc1.weight", &x->w1, F, C}, {"fc1.bias", &x->b1, F, 0}, {"fc2.weight", &x->w2, C, F}, {"fc2.bias", &x->b2, C, 0},
                {"final_layer_norm.weight", side ? &x->n3w : &x->n2w, C, 0}, {"final_layer_norm.bias", side ? &x->n3b : &x->n2b, C, 0},
            };
            snprintf(pre, sizeof pre, "model.%s.layers.%d", side ? "decoder" : "encoder", l);
            snprintf(name, sizeof name, "%s.self_attn", pre);
            want_attn(w, &n, &x->self_attn, name, C);
            if (side) {
                snprintf(name, sizeof name, "%s.encoder_attn", pre);
                want_attn(w, &n, &x->cross_attn, name, C);
            }
            for (size_t k = 0; k < sizeof rest / sizeof *rest; k++) {
                if (!side && !strncmp(rest[k].suffix, "encoder_attn", 12)) continue;
                snprintf(name, sizeof name, "%s.%s", pre, rest[k].suffix);
                want_add(w, &n, rest[k].dst, rest[k].d0, rest[k].d1, 0, 0, name);
            }
        }
    }
    want_add(w, &n, &m->src_embed, V, C, 0, 0, "model.shared.weight");
    want_add(w, &n, &m->gen_b, V, 0, 0, 1, "final_logits_bias"); // (a buffer of zeros in transformers when absent)
    want_add(w, &n, lm_head, V, C, 0, 1, "lm_head.weight");
    return n;
}

static size_t numel(const want *w) { return (size_t)w->d0 * (size_t)(w->d1 ? w->d1 : 1); }

static void shape_text(char *buf, size_t n, const int *shape, int rank) {
    if (rank == 0) snprintf(buf, n, "[]");
    else if (rank == 1) snprintf(buf, n, "[%d]", shape[0]);
    else snprintf(buf, n, "[%d, %d]", shape[0], shape[1]);
}

// Reads model.safetensors (mapped: file, size) into m's weight pointers.
static int read_weights(tf_model *m, const unsigned char *file, size_t size, tf_err *e) {
    const tf_config *c = &m->cfg;
    if (size < 8) return tf_fail(e, WEIGHTS ": has %zu bytes, too few for safetensors; download it again", size);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = (hl << 8) | file[i];
    if (hl < 2 || hl > size - 8) return tf_fail(e, WEIGHTS ": its header length (%llu bytes) does not fit the file (%zu bytes); it is truncated or not safetensors",
                                                (unsigned long long)hl, size);
    const char *json = (const char *)file + 8, *end = NULL;
    size_t bad;
    if (tf_utf8_check(json, (size_t)hl, &bad)) return tf_fail(e, WEIGHTS ": its header is not UTF-8 (byte %zu); the file is damaged", bad + 9);
    cJSON *root = cJSON_ParseWithLengthOpts(json, (size_t)hl, &end, 0);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return tf_fail(e, WEIGHTS ": its header is not a JSON object; the file is damaged or not safetensors");
    }
    const char *data = json + hl;
    size_t data_size = size - 8 - (size_t)hl;
    float *lm_head = NULL;
    int nw = want_table(m, NULL, NULL), rc = -1;
    want *w = calloc((size_t)nw, sizeof *w);
    if (!w) { tf_fail(e, "out of memory"); goto done; }
    want_table(m, w, &lm_head);
    size_t own = 0;
    for (int k = 0; k < nw; k++) {
        w[k].entry = cJSON_GetObjectItemCaseSensitive(root, w[k].name);
        if (!w[k].entry && !strcmp(w[k].name, "model.shared.weight")) // (some exports keep only the encoder's copy)
            w[k].entry = cJSON_GetObjectItemCaseSensitive(root, "model.encoder.embed_tokens.weight");
        if (!w[k].entry) {
            if (w[k].optional) continue;
            tf_fail(e, WEIGHTS ": has no tensor \"%s\"; a MarianMT model of config.json's sizes has it, so download the whole checkpoint", w[k].name);
            goto done;
        }
        int shape[2] = {0, 0}, rank = 0;
        size_t b, en;
        tf_err why;
        if (tf_st_entry(w[k].entry, data_size, shape, &rank, &b, &en, &w[k].f16, &why)) {
            tf_fail(e, WEIGHTS ": %s", why.msg);
            goto done;
        }
        int ok = w[k].d1 ? rank == 2 && shape[0] == w[k].d0 && shape[1] == w[k].d1
                         : (rank == 1 && shape[0] == w[k].d0) || (rank == 2 && shape[0] == 1 && shape[1] == w[k].d0);
        if (!ok) {
            char got[48], need[48];
            int ws[2] = {w[k].d0, w[k].d1};
            shape_text(got, sizeof got, shape, rank);
            shape_text(need, sizeof need, ws, w[k].d1 ? 2 : 1);
            tf_fail(e, WEIGHTS ": tensor \"%s\" has shape %s but config.json (d_model %d, encoder_ffn_dim %d, vocab_size %d) needs %s; "
                       "use the config.json of the same checkpoint", w[k].name, got, c->C, c->F, c->V_tgt, need);
            goto done;
        }
        w[k].b = b;
        m->n_f16 += w[k].f16;
        if (w[k].qkv || w[k].f16 || (uintptr_t)(data + b) % sizeof(float)) own += numel(&w[k]);
    }
    if (own && !(m->owned = malloc(own * sizeof(float)))) { tf_fail(e, "out of memory for the weights"); goto done; }
    size_t used = 0;
    for (int k = 0; k < nw; k++) {
        if (!w[k].entry) continue;
        const char *src = data + w[k].b;
        size_t n = numel(&w[k]);
        float *dst;
        if (w[k].qkv) { // W_Q | W_K | W_V side by side: the block is taken at W_Q
            if (w[k].qkv == 1) { *w[k].dst = m->owned + used; used += 3 * n; }
            dst = *w[k].dst + (size_t)(w[k].qkv - 1) * n;
        } else if (w[k].f16 || (uintptr_t)src % sizeof(float)) {
            dst = *w[k].dst = m->owned + used;
            used += n;
        } else dst = *w[k].dst = (float *)(uintptr_t)src;
        if (w[k].f16)
            for (size_t i = 0; i < n; i++) {
                const unsigned char *le = (const unsigned char *)src + 2 * i;
                dst[i] = tf_f16_to_f32((uint16_t)(le[0] | le[1] << 8));
            }
        else if (dst != (const float *)(const void *)src) memcpy(dst, src, n * sizeof(float));
        for (size_t i = 0; i < n; i++)
            if (!isfinite(dst[i])) {
                tf_fail(e, WEIGHTS ": tensor \"%s\" holds %s at index %zu; the weights are broken, so download the checkpoint again",
                        w[k].name, isnan(dst[i]) ? "NaN" : "an infinity", i);
                goto done;
            }
        if (w[k].dst != &lm_head) m->n_params += n;
    }
    // Tied (tie_word_embeddings): the output layer is model.shared.weight, as transformers ties it.
    m->tgt_embed = m->gen_w = m->src_embed;
    m->cfg.has_generator_bias = m->gen_b != NULL;
    if (lm_head && memcmp(lm_head, m->src_embed, sizeof(float) * (size_t)c->V_tgt * (size_t)c->C))
        snprintf(m->note, sizeof m->note, WEIGHTS ": lm_head.weight differs from model.shared.weight; tviz ties the output layer "
                                          "to the embeddings as MarianMT does, so lm_head.weight is not used");
    for (const cJSON *t = root->child; t; t = t->next) { // what tviz does not read (the stored positions, copies of the embeddings)
        int k = 0;
        while (k < nw && w[k].entry != t) k++;
        if (k < nw || !strcmp(t->string, "__metadata__")) continue;
        if (m->n_extra < 8) snprintf(m->extra_names[m->n_extra], sizeof m->extra_names[0], "%s", t->string);
        m->n_extra++;
    }
    rc = 0;
done:
    free(w);
    cJSON_Delete(root);
    return rc;
}

// ---------------------------------------------------------------- the folder
// dir/name's whole text (NUL-terminated, *n bytes), or NULL and a message.
static char *read_text(const char *dir, const char *name, size_t *n, tf_err *e) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { tf_fail(e, "%s: cannot open it (%s)", name, strerror(errno)); return NULL; }
    char *buf = NULL;
    size_t cap = 0, len = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            if (cap > MARIAN_MAX_TEXT) { fclose(f); free(buf); tf_fail(e, "%s:1: is larger than %u MB; it is not a checkpoint's", name, MARIAN_MAX_TEXT >> 20); return NULL; }
            cap = cap ? cap * 2 : 65536 * 2;
            char *g = realloc(buf, cap);
            if (!g) { fclose(f); free(buf); tf_fail(e, "%s: out of memory", name); return NULL; }
            buf = g;
        }
        size_t got = fread(buf + len, 1, 65536, f);
        len += got;
        if (got < 65536) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) { free(buf); tf_fail(e, "%s: reading it failed", name); return NULL; }
    buf[len] = 0;
    *n = len;
    return buf;
}

static int exists(const char *dir, const char *name) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return !stat(path, &st) && S_ISREG(st.st_mode);
}

int tf_marian_load(tf_model *m, const char *dir, tf_err *e) {
    memset(m, 0, sizeof *m);
    m->train_step = m->align_layer = m->align_head = -1;
    m->step_loss = m->heldout_exact = m->align_rate = -1.0f;
    m->src_vocab.unk = m->src_vocab.bos = m->src_vocab.eos = m->src_vocab.pad = -1;
    m->tgt_vocab = m->src_vocab;
    static const char *const files[] = {CONFIG, WEIGHTS, VOCAB, "source.spm", "target.spm"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        if (exists(dir, files[k])) continue;
        if (k == 1 && exists(dir, "pytorch_model.bin"))
            return tf_fail(e, WEIGHTS ": missing, there is only pytorch_model.bin, a Python pickle that tviz never opens; "
                              "convert it to model.safetensors once (man tviz, MARIANMT CHECKPOINTS)");
        if (k == 0) return tf_fail(e, CONFIG ": missing, so this folder is not a MarianMT checkpoint; give a .safetensors file or a folder "
                                      "with config.json, model.safetensors, source.spm, target.spm and vocab.json");
        return tf_fail(e, "%s: missing; a MarianMT checkpoint folder has config.json, model.safetensors, source.spm, target.spm "
                          "and vocab.json, so download all of them", files[k]);
    }
    size_t n;
    tf_marian_ids ids;
    char *text = read_text(dir, CONFIG, &n, e), *joined = NULL;
    void *map = MAP_FAILED;
    size_t map_size = 0;
    if (!text) return -1;
    int rc = tf_marian_config(&m->cfg, &ids, text, n, e);
    free(text);
    if (rc) return -1;
    if (!(text = read_text(dir, VOCAB, &n, e))) return -1;
    joined = vocab_joined(text, n, ids.V, e);
    free(text);
    if (!joined) return -1;
    tf_err why;
    if (tf_vocab_parse(&m->src_vocab, joined, "it", &why) || tf_vocab_parse(&m->tgt_vocab, joined, "it", &why)) {
        tf_fail(e, VOCAB ":1: %s", why.msg);
        goto fail;
    }
    m->shared_vocab = 1;
    for (int side = 0; side < 2; side++) { // the decoder starts from decoder_start_token_id (pad), </s> ends both
        tf_vocab *v = side ? &m->tgt_vocab : &m->src_vocab;
        v->bos = ids.start;
        v->eos = ids.eos;
        v->pad = ids.pad;
    }
    if (!(m->marian = calloc(1, sizeof *m->marian)) || index_vocab(m->marian, &m->src_vocab)) { tf_fail(e, "out of memory"); goto fail; }
    for (int side = 0; side < 2; side++) {
        char path[4096], reason[256];
        snprintf(path, sizeof path, "%s/%s", dir, files[3 + side]);
        m->marian->spm[side] = tf_spm_load(path, reason, sizeof reason);
        if (!m->marian->spm[side]) {
            tf_one_line(reason, sizeof reason);
            tf_fail(e, "%s: is not a SentencePiece model (%s); use the checkpoint's own %s", files[3 + side], reason, files[3 + side]);
            goto fail;
        }
        // vocab.json must hold the pieces SentencePiece makes, or they all become <unk>
        const tf_spm *sp = m->marian->spm[side];
        int normal = 0, missing = 0;
        const char *first = NULL;
        for (int i = 0; i < tf_spm_size(sp); i++) {
            if (!tf_spm_is_normal(sp, i)) continue;
            normal++;
            if (piece_id(m->marian, &m->src_vocab, tf_spm_piece(sp, i)) < 0 && !missing++) first = tf_spm_piece(sp, i);
        }
        if (missing * 10 > normal) {
            tf_fail(e, VOCAB ":1: lacks %d of the %d pieces of %s (\"%.40s\" first); the vocab.json and %s come from different checkpoints",
                    missing, normal, files[3 + side], first, files[3 + side]);
            goto fail;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, WEIGHTS);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        tf_fail(e, WEIGHTS ": cannot open it (%s)", strerror(errno));
        if (fd >= 0) close(fd);
        goto fail;
    }
    map_size = (size_t)st.st_size;
    map = map_size ? mmap(NULL, map_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED) { tf_fail(e, WEIGHTS ": cannot map it into memory (%s); is it empty?", map_size ? strerror(errno) : "0 bytes"); goto fail; }
    m->enc = calloc((size_t)m->cfg.L_enc, sizeof *m->enc);
    m->dec = calloc((size_t)m->cfg.L_dec, sizeof *m->dec);
    if (!m->enc || !m->dec) { tf_fail(e, "out of memory for the model's layers"); goto fail; }
    m->map = map;
    m->map_size = map_size;
    map = MAP_FAILED;
    if (read_weights(m, m->map, m->map_size, e)) goto fail;
    free(joined);
    return 0;
fail:
    free(joined);
    if (map != MAP_FAILED) munmap(map, map_size);
    tf_model_free(m);
    return -1;
}
