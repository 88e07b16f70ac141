// tf.h — the instrumented Transformer of "Attention Is All You Need".
//
// One set of letters throughout (DESIGN.md):
//   S source length, T target length, C d_model, H heads, D = C/H = d_k = d_v,
//   F d_ff, V vocabulary size, L layers.
// Row vectors as in the paper: X (T,C), Q = X W_Q, scores = Q Kᵀ / √d_k.
//
// The model never draws or prints: every failure comes back as a status and
// a message in tf_err, which the caller shows to the user.
//
// Usage:
//   tf_model m; tf_err e;
//   if (tf_model_load(&m, "model.safetensors", &e)) { fputs(e.msg, stderr); ... }
//   tf_run r;
//   if (tf_run_sentence(&r, &m, "I really enjoy learning transformers", NULL, &e)) ...
//   for (int i = 0; i < r.trace.n; i++) r.trace.stages[i] ...   // every intermediate
//   tf_run_free(&r); tf_model_free(&m);
#ifndef TF_H
#define TF_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

#define TF_VERSION "0.1.0"

// Supported sizes. The paper's base model is C 512, H 8, L 6+6, F 2048.
#define TF_MAX_C 4096
#define TF_MAX_H 64
#define TF_MAX_L 48
#define TF_MAX_F 16384
#define TF_MAX_V 1000000
#define TF_DEFAULT_MAX_LEN 64  // sentence length limit when the file sets none

// ---------------------------------------------------------------- errors
typedef struct {
    char msg[512]; // one line: "what is wrong; what to do" (no file prefix)
} tf_err;

int tf_fail(tf_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3))); // fills e, returns -1
void tf_one_line(char *s, size_t cap); // control characters in s written as \n, \x1B (s holds cap bytes)

// Out of memory is fatal, with file and line: TF_OOM() hands them to the
// handler the program installed (src/main.c prints one line and exits 1);
// with none, or if it returns, abort(). The model itself never prints.
typedef void (*tf_oom_handler)(const char *file, int line);
void tf_set_oom_handler(tf_oom_handler h); // NULL: abort
_Noreturn void tf_oom(const char *file, int line);
#define TF_OOM() tf_oom(__FILE__, __LINE__)

// ---------------------------------------------------------------- vocabulary
typedef struct {
    int n;        // number of tokens V
    char **tok;   // (V) NUL-terminated UTF-8 tokens, pointing into text
    char *text;   // storage
    int unk, bos, eos, pad; // indices of the specials, -1 if absent
} tf_vocab;

int tf_vocab_parse(tf_vocab *v, const char *joined, const char *what, tf_err *e); // tokens joined by '\n'
void tf_vocab_free(tf_vocab *v);
int tf_vocab_find(const tf_vocab *v, const char *tok); // exact, then lower-cased; -1 if absent

// UTF-8 check: 0 if valid; else -1 and *bad_at = byte offset of the first bad byte.
int tf_utf8_check(const char *s, size_t n, size_t *bad_at);

// Splits a sentence into words: white space separates, punctuation is a word
// of its own. Returns the number of words (0 for an empty sentence) or -1.
// words[i] are malloc'd; free with tf_words_free.
int tf_split_words(const char *sentence, char ***words, tf_err *e);
void tf_words_free(char **words, int n);

// ---------------------------------------------------------------- subword pieces (paper §5.1)
// Byte-pair encoding as subword-nmt does it (Sennrich et al., 2016): a word is
// split into its characters, the last one marked "</w>" (end of word), and
// the learned merges are applied, the earliest learned first, until none
// applies. Every piece but a word's last is shown with a trailing "@@", so a
// learner sees where a word continues: "transformers" -> "transform@@ ers".
// The merges are stored in a model's __metadata__ as src_merges and
// tgt_merges: one merge a line, the two pieces separated by one space
// ("t r", "tr an", "er s</w>"); a first line "#version: …" is skipped.
typedef struct {
    int n;              // merges (0: none, a word-level model)
    char *text;         // the merges, one a line (for saving)
    char *buf;          // a copy of text, cut into lines
    char **line;        // (n) each merge "a b", pointing into buf
    int *slot; size_t n_slot; // hash table: slot -> rank, -1 empty
} tf_bpe;

// Parses merges text ("a b" lines); what names it in errors ("src_merges").
int tf_bpe_parse(tf_bpe *b, const char *text, const char *what, tf_err *e);
void tf_bpe_free(tf_bpe *b);
// Rank of the merge "a b" (0 = learned first), or -1.
int tf_bpe_rank(const tf_bpe *b, const char *a, const char *bb);
// The pieces of one word, "@@" marked (malloc'd; free with tf_words_free).
// Returns their number (≥ 1), or -1.
int tf_bpe_word(const tf_bpe *b, const char *word, char ***pieces, tf_err *e);
// A sentence as tokens: its words (tf_split_words), each split into pieces
// when b has merges (b NULL or empty: words). Returns the count or -1.
int tf_tokens(const tf_bpe *b, const char *sentence, char ***tokens, tf_err *e);
// Tokens back into text: pieces ending in "@@" join the next one, the rest
// are separated by spaces; SentencePiece pieces (when one starts with "▁",
// MarianMT's) join, each "▁" a space. malloc'd; NULL when out of memory.
char *tf_join_tokens(char *const *tokens, int n);

// ---------------------------------------------------------------- config + weights
typedef enum { TF_ARCH_TRANSFORMER, TF_ARCH_LSTM } tf_arch;
// The feed-forward network's activation: ReLU in the paper; MarianMT's config
// names its own ("swish" = SiLU x·σ(x), "relu", "gelu" = x·Φ(x) with erf).
typedef enum { TF_ACT_RELU, TF_ACT_SILU, TF_ACT_GELU } tf_act;
typedef enum { TF_RNN_ATTN_NONE, TF_RNN_ATTN_DOT } tf_rnn_attention;

typedef struct {
    int C, H, D, F;            // d_model, heads, d_k = C/H, d_ff
    int L_enc, L_dec;          // encoder and decoder layers
    int V_src, V_tgt;          // vocabulary sizes
    float eps;                 // LayerNorm epsilon
    float embed_scale;         // multiplies embeddings: √C by default (§3.4)
    int embed_scale_is_sqrt;   // 1 when the file said "sqrt"
    int src_append_eos;        // append <eos> to the source
    int max_len;               // longest sentence in tokens (TF_DEFAULT_MAX_LEN if unset)
    int max_len_set;           // 1 when the file gave max_len
    int has_enc_norm, has_dec_norm; // optional final LayerNorms (torch.nn.Transformer has them)
    int has_tgt_embed, has_generator, has_generator_bias;
    // Recurrent models (__metadata__ arch = lstm, DESIGN.md "Recurrent models"):
    // C is hidden_size, L_enc = L_dec = num_layers, H 1, D = C, F = 4C (the
    // four gates side by side), so sizes read the same everywhere.
    tf_arch arch;              // TF_ARCH_TRANSFORMER (the default) or TF_ARCH_LSTM
    int E;                     // embed_dim (lstm); 0 for the Transformer
    tf_rnn_attention attention; // lstm: TF_RNN_ATTN_NONE or TF_RNN_ATTN_DOT (Luong, global, no input feeding)
    int reverse_source;        // lstm: 1 reads the source words last to first (Sutskever §2); <eos> stays last
    // Variants (DESIGN.md "Transformer variants"):
    int norm_first;            // 1: pre-LN layers, x = x + Sublayer(LayerNorm(x)) (__metadata__ "norm_first")
    int trained_without;       // TF_WITHOUT_* the model was trained without (__metadata__ "without")
    int without;               // TF_WITHOUT_* switched off when it runs: trained_without and what was asked (--without)
    // A MarianMT checkpoint folder (marian.c, DESIGN.md "Real translators"):
    int marian;                // 1: read from config.json + model.safetensors + vocab.json + *.spm
    tf_act act;                // the FFN's activation (TF_ACT_RELU for every tviz model)
    int pe_split;              // 1: sin in columns 0…C/2−1, cos in C/2…C−1 (Marian); 0: interleaved (the paper)
} tf_config;

// ---------------------------------------------------------------- what if? parts switched off
// Each is one bit of tf_config.without; the forward pass (and training) leaves the part out:
//   pe        no positional encoding on either side: X = E
//   scale     scores are not divided by √d_k
//   mask      the decoder's self-attention sees every target position, later ones too
//   residual  a sublayer's output replaces its input: LayerNorm(Sublayer(x)) (pre-LN: Sublayer(LayerNorm(x)))
enum { TF_WITHOUT_PE = 1, TF_WITHOUT_SCALE = 2, TF_WITHOUT_MASK = 4, TF_WITHOUT_RESIDUAL = 8, TF_WITHOUT_ALL = 15 };
#define TF_WITHOUT_PARTS 4
const char *tf_without_name(int part);  // part 0..3 -> "pe", "scale", "mask", "residual"
// "pe,scale" (names separated by commas, spaces allowed; "" or "none": nothing) -> bits.
// An unknown name: -1 and "…is not a part…; the parts are pe, scale, mask and residual".
int tf_without_parse(const char *list, int *bits, tf_err *e);
// bits -> "pe,scale" ("" for none); returns buf.
const char *tf_without_format(int bits, char *buf, size_t n);

typedef struct {
    float *in_w;   // (3C, C) rows: W_Q | W_K | W_V, torch Linear layout [out, in]
    float *in_b;   // (3C)
    float *out_w;  // (C, C)  W_O
    float *out_b;  // (C)
} tf_attn_w;

typedef struct {
    tf_attn_w self_attn;
    tf_attn_w cross_attn;            // decoder only ("multihead_attn" in torch)
    float *w1; float *b1;            // (F, C) (F)
    float *w2; float *b2;            // (C, F) (C)
    float *n1w, *n1b, *n2w, *n2b;    // (C) each
    float *n3w, *n3b;                // (C) decoder only
} tf_layer_w;

// One layer of a recurrent stack, as torch.nn.LSTM stores it (gate order i, f, g, o).
// Letters here: E embed_dim, C hidden_size (DESIGN.md calls it H).
typedef struct {
    float *w_ih;   // (4C, E for layer 0, else C)  weight_ih_l{k}
    float *w_hh;   // (4C, C)                      weight_hh_l{k}
    float *b_ih;   // (4C)                         bias_ih_l{k}
    float *b_hh;   // (4C)                         bias_hh_l{k}
} tf_lstm_w;

typedef struct {
    tf_config cfg;
    tf_vocab src_vocab;      // source vocabulary
    tf_vocab tgt_vocab;      // target vocabulary (a copy of the source one if the file has none)
    int shared_vocab;        // 1 when the file has no tgt_vocab
    tf_bpe src_bpe, tgt_bpe; // subword merges (n 0: words), from src_merges / tgt_merges
    float *src_embed;        // (V_src, C)
    float *tgt_embed;        // (V_tgt, C)  = src_embed when absent
    float *gen_w;            // (V_tgt, C)  = tgt_embed when absent (tied, §3.4)
    float *gen_b;            // (V_tgt) or NULL
    float *enc_norm_w, *enc_norm_b; // (C) or NULL
    float *dec_norm_w, *dec_norm_b; // (C) or NULL
    tf_layer_w *enc;         // (L_enc)
    tf_layer_w *dec;         // (L_dec)
    size_t n_params;         // number of distinct parameters
    // storage
    void *map; size_t map_size;   // the memory-mapped file, if loaded
    float *owned;                 // weights we allocated (init, or unaligned file data)
    int n_extra;                  // tensors in the file that tviz does not use
    char extra_names[8][96];      // the first few of them
    int n_f16;                    // tensors stored as F16 in the file (widened to float32 on load)
    // Where training was when the file was written (a snapshot of a run, or its
    // end): __metadata__ "train_step", "step_loss" (the running mean of the
    // label-smoothed loss per token), "heldout_exact" (a fraction, measured at
    // this step). -1 when the file does not say.
    int train_step;
    float step_loss, heldout_exact;
    // The run's curves up to that step (a file tviz train wrote; 0 long
    // otherwise): the mean loss per token of each loss_every steps
    // (__metadata__ "loss_curve", numbers separated by spaces, and
    // "loss_every"), and the held-out exact match where it was measured
    // ("heldout_curve", "step:fraction" pairs separated by spaces).
    // The cross-attention head that aligns best: the head (align_head of
    // decoder layer align_layer) whose row that writes a held-out target word
    // peaks on its source word most often, for align_rate of the words
    // (tviz train measures it: __metadata__ "align_layer", "align_head",
    // "align_rate"). -1 when the file does not say.
    int align_layer, align_head;
    float align_rate;
    float *loss_curve; int n_loss_curve, loss_every;   // (n_loss_curve)
    int *heldout_steps; float *heldout_curve; int n_heldout_curve; // (n_heldout_curve) each
    // arch lstm (src_embed, tgt_embed, gen_w, gen_b above serve it too, (V, E) and (V_tgt, C)):
    tf_lstm_w *lenc, *ldec;  // (L) encoder and decoder layers ("encoder.weight_ih_l0", …)
    float *attn_cw;          // (C, 2C) attention = dot: W_c of h̃ = tanh(W_c [c_t ; h_t] + b_c)  "attn.combine.weight"
    float *attn_cb;          // (C)                                                           "attn.combine.bias"
    struct tf_marian *marian; // a MarianMT folder's tokenizers and vocabulary index (marian.c), else NULL
    char note[256];           // a warning the loader leaves for the user ("" for none): the model prints nothing
} tf_model;

// path is a safetensors file, or a MarianMT checkpoint folder (tf_marian_load).
int tf_model_load(tf_model *m, const char *path, tf_err *e);
// The same from a file already in memory (size bytes); the weights point into
// it where aligned, so it must outlive the model. Used by tf_model_load (on
// the mapped file) and by the fuzzer.
int tf_model_load_mem(tf_model *m, const void *file, size_t size, tf_err *e);
int tf_model_save(const tf_model *m, const char *path, tf_err *e); // writes path.tmp, then renames
// The same with the weights stored as IEEE half precision (safetensors F16):
// half the size, about 3 significant digits; for snapshots that are only looked at.
int tf_model_save_f16(const tf_model *m, const char *path, tf_err *e);
// IEEE 754 half precision <-> float32 (round to nearest even; overflow gives an infinity).
float tf_f16_to_f32(uint16_t h);
uint16_t tf_f32_to_f16(float f);
void tf_model_free(tf_model *m);

typedef struct {
    char name[96];         // torch.nn.Transformer name, e.g. "encoder.layers.0.linear1.weight"
    int rank, shape[2];
    const float *data;
} tf_tensor_info;
// The tensors the model holds, in file order (out NULL only counts).
int tf_model_tensors(const tf_model *m, tf_tensor_info *out);

// A model with seeded Xavier weights. vocab strings are tokens joined by '\n';
// tgt_vocab NULL shares the source one. LayerNorm weights 1, biases 0.
int tf_model_init(tf_model *m, const tf_config *cfg, const char *src_vocab, const char *tgt_vocab,
                  uint64_t seed, tf_err *e);
// A copy of src whose weights are all in dst->owned, in file order (n_params
// floats): what training updates in place.
int tf_model_clone(tf_model *dst, const tf_model *src, tf_err *e);
// Gives m subword merges (NULL: none) for its source and target side; they
// are saved with it and split every sentence it reads.
int tf_model_set_merges(tf_model *m, const char *src_merges, const char *tgt_merges, tf_err *e);
// Gives m copies of a run's curves (see tf_model): n loss values, each the
// mean of every steps, and n_acc held-out measurements at steps[i]. 0 or -1.
int tf_model_set_curves(tf_model *m, const float *loss, int n, int every, const int *steps, const float *acc, int n_acc,
                        tf_err *e);
// Fills cfg with the paper's base sizes (Table 3): C 512, H 8, F 2048, 6+6 layers.
void tf_config_base(tf_config *cfg);

// ---------------------------------------------------------------- deterministic generator
typedef struct { uint64_t s; } tf_rng;
void tf_rng_seed(tf_rng *r, uint64_t seed);
uint64_t tf_rng_next(tf_rng *r);            // xorshift64*
float tf_rng_uniform(tf_rng *r);            // [0, 1)

// ---------------------------------------------------------------- operations (ops.c)
// Each is one plain function: outputs first, sizes last.
// Finite weights give finite activations: a value that overflows saturates at
// ±FLT_MAX (tf_sat) instead of becoming ±∞, and so never turns into NaN further on
// (∞ − ∞, 0 · ∞). The loader refuses NaN and infinite weights outright.
static inline float tf_sat(float y) { return y > FLT_MAX ? FLT_MAX : y < -FLT_MAX ? -FLT_MAX : y == y ? y : 0.0f; }
// x (T,n_in) @ Wᵀ, W (n_out,n_in) as torch stores it, + b (n_out, or NULL) -> out (T,n_out)
void tf_linear(float *out, const float *x, const float *w, const float *b, int T, int n_in, int n_out);
// The same, fast (blocked, vectorised, over the cores), equal up to rounding;
// the model calls this one. Allocates nothing; the same bits on any number of threads.
void tf_linear_fast(float *out, const float *x, const float *w, const float *b, int T, int n_in, int n_out);
void tf_softmax_rows(float *out, const float *x, int rows, int cols);
void tf_layernorm(float *out, const float *x, const float *w, const float *b, float eps, int T, int C);
void tf_positional_encoding(float *pe, int T, int C);
// MarianMT's (modeling_marian.py): not interleaved, sin(pos / 10000^(2j/C)) in
// column j and cos of the same angle in column C/2 + j, j < C/2 (C odd: sin in the first C/2+1).
void tf_positional_encoding_split(float *pe, int T, int C);
void tf_relu(float *out, const float *x, int n);
void tf_silu(float *out, const float *x, int n);  // x·σ(x) ("swish")
void tf_gelu(float *out, const float *x, int n);  // x·Φ(x) = x/2·(1 + erf(x/√2))
void tf_activation(float *out, const float *x, int n, tf_act act);
void tf_add(float *out, const float *a, const float *b, int n);
void tf_mul(float *out, const float *a, const float *b, int n); // elementwise

// ---------------------------------------------------------------- activations
typedef struct {
    float *q, *k, *v;    // (Tq,C) (Tk,C) (Tk,C) all heads side by side
    float *scores;       // (H,Tq,Tk) Q_h K_hᵀ
    float *scaled;       // (H,Tq,Tk) / √D
    float *masked;       // (H,Tq,Tk) −∞ where masked
    float *weights;      // (H,Tq,Tk) softmax
    float *head_out;     // (H,Tq,D)  weights · V_h
    float *concat;       // (Tq,C)
    float *out;          // (Tq,C)    concat W_O + b_O
} tf_attn_acts;

typedef struct {
    tf_attn_acts self_attn;   // (T,T) masks: none in the encoder, causal in the decoder
    tf_attn_acts cross_attn;  // decoder only: queries (T), keys/values from the encoder (S)
    float *add1, *norm1;      // (T,C)
    float *add2, *norm2;      // (T,C)
    float *add3, *norm3;      // (T,C) decoder only
    float *ffn_hidden;        // (T,F) after ReLU
    float *ffn_out;           // (T,C)
    // Training only (src/train), NULL otherwise: residual dropout masks (§5.4),
    // 0 or 1/(1-P_drop), multiplied into each sub-layer's output before the add.
    float *drop1, *drop2, *drop3; // (T,C)
} tf_layer_acts;

// One recurrent layer's activations over the time steps of its side (X = S or T).
typedef struct {
    float *i, *f, *g, *o;        // (X,C) gate activations: σ, σ, tanh, σ
    float *c, *h;                // (X,C) cell state c_t = f ⊙ c_{t−1} + i ⊙ g;  h_t = o ⊙ tanh(c_t)
} tf_lstm_acts;

typedef struct {
    int S, T;                    // lengths in use
    int S_cap, T_cap;            // lengths allocated
    float *src_embed, *src_pe, *src_input; // (S,C)
    float *enc_norm;             // (S,C) final encoder norm (if the model has one)
    float *memory;               // (S,C) = enc_norm or the last norm2; points into the above
    float *tgt_embed, *tgt_pe, *tgt_input; // (T,C)
    float *dec_norm;             // (T,C)
    float *dec_out;              // (T,C) = dec_norm or the last norm3
    float *logits, *probs;       // (T,V_tgt)
    float *src_drop, *tgt_drop;  // training only: dropout masks on embedding + PE (§5.4), else NULL
    tf_layer_acts *enc;          // (L_enc)
    tf_layer_acts *dec;          // (L_dec)
    float *block;                // one allocation for everything above
    size_t n_floats;
    // arch lstm (lstm.c): src_embed (S,E), tgt_embed (T,E), logits and probs
    // above; rows are time steps in the order the network reads them.
    tf_lstm_acts *lenc, *ldec;   // (L) each
    float *final_h, *final_c;    // (L,C) the encoder's state after its last step: Sutskever's v
    float *attn_scores;          // (T,S) h_tᵀ h̄_s              (attention = dot)
    float *attn_weights;         // (T,S) softmax of each row
    float *attn_context;         // (T,C) Σ_s weights · h̄_s
    float *attn_out;             // (T,C) h̃ = tanh(W_c [context ; h_t] + b_c)
    float *top;                  // (T,C) what the output layer reads: attn_out, or the top decoder layer's h
    float *gates;                // (max(S,T),4C) scratch: pre-activations of the four gates
} tf_acts;

int tf_acts_alloc(tf_acts *a, const tf_config *cfg, int S_cap, int T_cap, tf_err *e);
void tf_acts_free(tf_acts *a);

// Multi-head attention (§3.2.2): queries from xq (Tq,C), keys and values from
// xkv (Tk,C); causal masks key j > query i. Fills every field of a.
void tf_attention(tf_attn_acts *a, const tf_attn_w *w, const float *xq, const float *xkv, int causal,
                  int Tq, int Tk, int C, int H);
// The same with the division by √d_k optional (scaled 0: scaled = scores, the what-if "scale").
void tf_attention_ex(tf_attn_acts *a, const tf_attn_w *w, const float *xq, const float *xkv, int causal, int scaled,
                     int Tq, int Tk, int C, int H);
// The same without a causal mask, with the keys and values a->k, a->v (Tk,C) that an
// earlier call computed: the cross-attention while decoding, over the unchanging encoder output.
void tf_attention_kv_kept(tf_attn_acts *a, const tf_attn_w *w, const float *xq, int scaled, int Tq, int Tk, int C, int H);

// The forward pass. src (S) and tgt (T) are token ids; tgt starts with <bos>.
void tf_encode(tf_acts *a, const tf_model *m, const int *src, int S);
void tf_decode(tf_acts *a, const tf_model *m, const int *tgt, int T); // after tf_encode
// The same with the output layer (logits, probs) computed from row first on; the
// rows before are left as they are (greedy decoding: with the causal mask they do not change).
// first > 0 also keeps the cross-attention's keys and values of the call before.
void tf_decode_rows(tf_acts *a, const tf_model *m, const int *tgt, int T, int first);
// (Both run the recurrent model when m->cfg.arch is TF_ARCH_LSTM: tf_lstm_encode, tf_lstm_decode.)
// Greedy decoding's step: the same as tf_decode on tgt (T), after a tf_decode
// or tf_decode_next on its first T−1 tokens. A recurrent model computes only
// the new position (the earlier ones do not change); the Transformer all of them.
void tf_decode_next(tf_acts *a, const tf_model *m, const int *tgt, int T);
// Beam search: makes dst (the same source encoded) continue from src's first
// T decoder tokens, so that tf_decode_next on one token more extends src's
// hypothesis: a recurrent model's h and c; nothing for the Transformer.
void tf_decode_continue_from(tf_acts *dst, const tf_acts *src, const tf_model *m, int T);

// ---------------------------------------------------------------- the recurrent models (lstm.c)
// Sutskever et al. (2014) §2 and Luong et al. (2015): DESIGN.md "Recurrent models".
// src (S) is in the order the encoder reads it: tf_source_order puts it there.
void tf_lstm_encode(tf_acts *a, const tf_model *m, const int *src, int S);
void tf_lstm_decode(tf_acts *a, const tf_model *m, const int *tgt, int T);
// Puts a tokenized source (S ids, a trailing <eos> included when the model
// appends one) in the order the model reads it: the words reversed when
// reverse_source is 1, <eos> last. Does nothing for other models. The
// strings of words (or NULL) are moved the same way.
void tf_source_order(const tf_config *c, int *ids, char **words, int S);
size_t tf_lstm_acts_layout(tf_acts *a, const tf_config *c, float *base); // the recurrent tf_acts's block

// ---------------------------------------------------------------- the Trace
typedef enum {
    TF_KIND_SIGNED,   // any real values (diverging colour map)
    TF_KIND_PROB,     // probabilities in [0,1], rows sum to 1
    TF_KIND_MASKED,   // scores with −∞ where masked
    TF_KIND_IDS       // token ids
} tf_kind;

typedef enum { TF_AXIS_SRC, TF_AXIS_TGT, TF_AXIS_DIM, TF_AXIS_VOCAB,
               TF_AXIS_LAYER  // one row per layer (enc.final.h, enc.final.c of a recurrent model)
} tf_axis;

// A stage's identity, as fields: what the window, the exporter, the lessons
// and the JSON ask about a stage. Only src/model makes or reads stage ids;
// every other room asks the functions below (stage.c).
typedef enum { TF_FAMILY_TRANSFORMER, TF_FAMILY_LSTM } tf_family;
typedef enum { TF_SIDE_SRC, TF_SIDE_ENC, TF_SIDE_TGT, TF_SIDE_DEC, TF_SIDE_OUT } tf_side;
typedef enum {
    TF_SUB_NONE,        // embeddings, positions, the output layer
    TF_SUB_SELF_ATTN,   // (masked, in the decoder) multi-head self-attention
    TF_SUB_CROSS_ATTN,  // the decoder's attention over the encoder output
    TF_SUB_FFN,         // position-wise feed-forward network
    TF_SUB_ADD_NORM,    // residual connection and LayerNorm after a sublayer
    TF_SUB_FINAL_NORM,  // the optional LayerNorm after a whole stack
    TF_SUB_RECURRENT,   // an LSTM layer: gates, cell and hidden state over the time steps
    TF_SUB_FINAL_STATE, // the encoder's last (h, c) of every layer, handed to the decoder (v)
    TF_SUB_PRE_NORM,    // pre-LN (norm_first): the LayerNorm before a sublayer (index 1, 2, 3)
} tf_sublayer;
typedef enum {
    TF_OP_EMBED, TF_OP_PE, TF_OP_INPUT,                         // src.* / tgt.*
    TF_OP_Q, TF_OP_K, TF_OP_V,                                  // projections, all heads
    TF_OP_SCORES, TF_OP_SCALED, TF_OP_MASKED, TF_OP_WEIGHTS,    // one head: the attention squares
    TF_OP_HEAD_OUT, TF_OP_CONCAT, TF_OP_OUT,                    // weights·V_h, heads side by side, ·W_O
    TF_OP_ADD, TF_OP_NORM,                                      // x + Sublayer(x), LayerNorm
    TF_OP_FFN_HIDDEN, TF_OP_FFN_OUT,
    TF_OP_LOGITS, TF_OP_PROBS,
    // recurrent models (family lstm); their attention reuses SCORES, WEIGHTS and OUT (h̃)
    TF_OP_GATE_I, TF_OP_GATE_F, TF_OP_GATE_G, TF_OP_GATE_O, // input, forget gates, cell candidate, output gate
    TF_OP_CELL, TF_OP_HIDDEN,                               // c_t, h_t
    TF_OP_FINAL_H, TF_OP_FINAL_C,                           // the encoder's last h and c of every layer
    TF_OP_CONTEXT,                                          // Σ_s a_t(s) h̄_s
    TF_OP_COUNT
} tf_op;

// The blocks of the paper's Figure 1, in execution order.
typedef enum {
    TF_BLOCK_NONE = -1,
    TF_BLOCK_SRC_EMBED, TF_BLOCK_SRC_PE, TF_BLOCK_ENC_ATTN, TF_BLOCK_ENC_AN1, TF_BLOCK_ENC_FF, TF_BLOCK_ENC_AN2, TF_BLOCK_ENC_NORM,
    TF_BLOCK_TGT_EMBED, TF_BLOCK_TGT_PE, TF_BLOCK_DEC_SELF, TF_BLOCK_DEC_AN1, TF_BLOCK_DEC_CROSS, TF_BLOCK_DEC_AN2,
    TF_BLOCK_DEC_FF, TF_BLOCK_DEC_AN3, TF_BLOCK_DEC_NORM, TF_BLOCK_LINEAR, TF_BLOCK_SOFTMAX,
    // pre-LN (norm_first): the norms before the sublayers (the AN blocks are then the residual adds)
    TF_BLOCK_ENC_LN1, TF_BLOCK_ENC_LN2, TF_BLOCK_DEC_LN1, TF_BLOCK_DEC_LN2, TF_BLOCK_DEC_LN3,
    TF_BLOCK_COUNT
} tf_block;

typedef struct {
    char id[80];           // e.g. "enc.0.self_attn.head.1.weights" (DESIGN.md; for people, JSON and lesson globs)
    const char *title;     // human title: "Attention weights"
    const char *formula;   // the formula it comes from, in Unicode
    tf_family family;
    tf_side side;
    int layer;             // -1 when not in a layer
    tf_sublayer sublayer;
    tf_op op;
    int index;             // which add & norm (or pre-LN norm) of its layer (1, 2, 3); 0 for every other stage
    int head;              // -1 when not one head
    int step;              // time step of a recurrent model; -1 for the Transformer
    int rows, cols;
    tf_axis row_axis, col_axis;
    tf_kind kind;
    const float *data;     // (rows, cols), points into tf_acts
} tf_stage;

// ---------------------------------------------------------------- beam search (beam.c)
// The paper's §6.1: beam size K, length penalty α (K 4, α 0.6 there). A
// hypothesis Y (the tokens after <bos>, its final <eos> included) scores
//   log P(Y) / lp(Y),  lp(Y) = (5 + |Y|)^α / (5 + 1)^α   (Wu et al. 2016, §7)
// and ends at <eos>, or when it reaches tf_decode_limit tokens without one.
// Each step extends every live hypothesis by every token and sorts the
// candidates by log P (ties: the earlier hypothesis, then the lower id). Of
// the best 2K: an <eos> among the first K ends its hypothesis; the first K
// that are not <eos> stay alive (at the limit they end); the rest are pruned.
// The search stops once K hypotheses have ended or none is alive, and chooses
// the ended one of highest score (the first on a tie). K 1 is greedy decoding.
#define TF_BEAM_MAX 64    // widest beam
typedef enum { TF_BEAM_KEPT, TF_BEAM_ENDED, TF_BEAM_PRUNED } tf_beam_fate;
typedef struct {
    int parent;           // the node of the step before it extends (-1: <bos>)
    int token;            // target vocabulary id
    double logp;          // log P of the hypothesis up to and with this token
    double score;         // ended: logp / lp(|Y|); else 0
    tf_beam_fate fate;
} tf_beam_node;
typedef struct tf_beam {
    int K;                // beam size
    double alpha;         // length penalty α
    int limit;            // most tokens of a hypothesis, <eos> not counted (tf_decode_limit)
    int n_steps;          // decoding steps taken
    int *first;           // (n_steps + 1) the nodes of step t are first[t] … first[t+1]−1, by log P, best first
    tf_beam_node *node;   // (n_nodes) every candidate among the best 2K of each step
    int n_nodes;
    int choice;           // the node that ends the chosen hypothesis (-1: none, a limit of 0)
} tf_beam;

// The most tokens decoding writes after <bos> (<eos> not counted) for a
// source of S tokens: S + 50 (§6.1), and no more than the model's max_len
// allows the decoder input (<bos> included). Greedy decoding stops there too.
int tf_decode_limit(const tf_config *c, int S);
double tf_length_penalty(int len, double alpha); // ((5 + len) / 6)^α
// log Σ_j exp(z_j) of a row of logits (n), in double: log P(j) = z_j − this.
double tf_log_sum_exp(const float *z, int n);
// Checks a beam size and α: K 1 … min(V_tgt, TF_BEAM_MAX), α a finite number ≥ 0.
int tf_beam_check(const tf_model *m, int K, double alpha, tf_err *e);
// Searches the translations of src (S ids, in the order the model reads them,
// as tf_source_order leaves them). Fills b (free with tf_beam_free).
int tf_beam_search(tf_beam *b, const tf_model *m, const int *src, int S, int K, double alpha, tf_err *e);
void tf_beam_free(tf_beam *b);
// The tokens of the hypothesis that ends at node (its <eos> included, if it
// has one) into ids (at most max, oldest first). Returns their number.
int tf_beam_tokens(const tf_beam *b, int node, int *ids, int max);
int tf_beam_step_of(const tf_beam *b, int node); // the step a node belongs to

typedef struct {
    int n;
    tf_stage *stages;          // (n) in execution order
    int S, T, C, V;            // lengths and sizes the axes refer to
    const char *const *src_labels; // (S) source tokens as the model sees them ("<unk>" included)
    const char *const *tgt_labels; // (T) decoder input tokens, "<bos>" first
    const char *const *vocab;      // (V) target vocabulary, for out.logits / out.probs columns
    const char *eos;               // the end-of-sentence token as the labels show it ("<eos>"; "</s>" in MarianMT)
    int without;                   // TF_WITHOUT_* parts switched off in this run (the model's cfg.without)
    int norm_first;                // 1: a pre-LN model
    const tf_beam *beam;           // the beam search that chose the target (tf_run_beam), or NULL
} tf_trace;

// Lays the stage table over the activations a (no copy, no math).
int tf_trace_build(tf_trace *t, const tf_model *m, const tf_acts *a,
                   const char *const *src_labels, const char *const *tgt_labels, tf_err *e);
// Label of entry i along an axis: a token, or the dimension index as text.
const char *tf_axis_label(const tf_trace *t, tf_axis axis, int i, char *buf, size_t n);
void tf_trace_free(tf_trace *t);
int tf_trace_find(const tf_trace *t, const char *id); // index or -1
int tf_trace_vocab_id(const tf_trace *t, const char *tok); // the target vocabulary's id of a token label, or -1
// The weights of the model's aligning cross-attention head (tf_model.align_*) in its trace, or -1.
int tf_trace_aligning_stage(const tf_trace *t, const tf_model *m);
// The same for a recurrent model (lstm.c; tf_trace_build calls it).
int tf_lstm_trace_build(tf_trace *t, const tf_model *m, const tf_acts *a);

// ---------------------------------------------------------------- stage identity (stage.c)
// Questions the other rooms ask about stages. Each returns a stage index, or
// -1 when the trace has no such stage.
// The stage whose fields equal k's (id, title, formula, data and sizes ignored).
int tf_trace_lookup(const tf_trace *t, const tf_stage *k);
int tf_stage_other_layer(const tf_trace *t, int i, int layer); // the same operation in another layer
// The same operation in another head; from a stage of a layer that is not one
// head, the attention weights of head h of that layer's attention (the
// cross-attention from its sublayer, else the self-attention).
int tf_stage_other_head(const tf_trace *t, int i, int head);
// The attention weights of side's sublayer (self or cross), in the layer and
// head of stage from where they exist, else in layer 0, head 0.
int tf_stage_attention(const tf_trace *t, int from, tf_side side, tf_sublayer sub);
// The stage of the same attention head (or, for stages that are not one head,
// of the same layer and sublayer) whose operation is op.
int tf_stage_with_op(const tf_trace *t, int i, tf_op op);
// The stages stage i is computed from, in the order of its formula (e.g. an
// add: its input x, then Sublayer(x)). Returns how many (at most max).
int tf_stage_inputs(const tf_trace *t, int i, int *in, int max);
int tf_stage_count_heads(const tf_trace *t, int i);   // heads of stage i's attention (0 if it is not one head)
int tf_stage_count_layers(const tf_trace *t, int i);  // layers that have stage i's operation
int tf_stage_is_attention_square(const tf_stage *s);  // queries × keys: scores, scaled, masked, weights
int tf_stage_is_lstm(const tf_stage *s);
// Recurrent models: how many time steps stage i's rows are (S for the
// encoder's stages, T for the decoder's and the output's; 0 when its rows are
// not time steps, as enc.final.h, or for the Transformer).
int tf_stage_time_steps(const tf_trace *t, int i);
// The stage of a recurrent model with these fields (layer -1 for stages
// outside a layer), or -1.
int tf_stage_lstm(const tf_trace *t, tf_side side, int layer, tf_op op);
int tf_stage_is_gate(const tf_stage *s);       // i, f, g or o of an LSTM layer
// The weights stage i's values come from: for an LSTM layer the layer index
// (its tf_lstm_w), with *decoder set for the decoder's; -1 when none.
int tf_stage_lstm_layer(const tf_stage *s, int *decoder);
// Figure 1: the block a stage belongs to, and the block's first stage, in the
// layer of stage from when from is on the block's side, else in layer 0.
tf_block tf_stage_block(const tf_stage *s);
int tf_block_stage(const tf_trace *t, int from, tf_block b);
// A stage named relative to stage i: "this" is i, "this:NAME" the stage of
// i's head or layer whose id ends in NAME ("this:scores" beside
// enc.0.self_attn.head.1.weights); anything else is an id.
int tf_stage_named(const tf_trace *t, int i, const char *ref);
// The id of the attention block a head stage belongs to ("enc.0.self_attn"),
// and of all its layers ("enc.self_attn"); for file names. Returns buf.
const char *tf_stage_block_id(const tf_stage *s, int all_layers, char *buf, size_t n);
// Names, for JSON and messages: "transformer", "encoder", "self_attn", "weights".
const char *tf_family_name(tf_family f);
const char *tf_side_name(tf_side s);
const char *tf_sublayer_name(tf_sublayer s);
const char *tf_op_name(tf_op op);

// ---------------------------------------------------------------- a whole run
typedef struct {
    int S, T;
    int *src_ids, *tgt_ids;      // (S) (T)
    const char **src_labels, **tgt_labels; // (S) (T) the vocabulary's token for each id
    char **src_words;            // (S) what the user typed for each token ("<eos>" for an appended one)
    char **tgt_words;            // (T)
    int n_src_unk, n_tgt_unk;    // words not in the vocabulary
    int greedy;                  // 1 when the target was decoded, not given
    int stopped_on_eos;          // greedy: 1 if <eos> ended it, 0 if max_len did
    tf_beam *beam;               // tf_run_beam: the search (trace.beam points to it); else NULL
    tf_acts acts;
    tf_trace trace;
} tf_run;

// Tokenizes, runs the encoder, then the decoder on <bos> + tgt, or greedy
// decoding when tgt is NULL. Errors: empty or invalid sentence, too long.
int tf_run_sentence(tf_run *r, const tf_model *m, const char *src, const char *tgt, tf_err *e);
// Greedy decoding that stops once the decoder input holds limit tokens
// (<bos> included): limit 1 shows the first prediction, 2 the second, …
int tf_run_greedy(tf_run *r, const tf_model *m, const char *src, int limit, tf_err *e);
// Beam search (K, α: tf_beam_search) instead of greedy decoding: the run's
// target is the chosen hypothesis, its trace records the search (trace.beam).
int tf_run_beam(tf_run *r, const tf_model *m, const char *src, int K, double alpha, tf_err *e);
void tf_run_free(tf_run *r);
// m on the very tokens of another run (its source, its decoder input; no
// decoding): the same stages, so they can be set side by side.
int tf_run_same_input(tf_run *r, const tf_model *m, const tf_run *like, tf_err *e);
// What if? The comparison for a run with parts switched off: m with every
// part on (cfg.without 0), on the same tokens as like. Stage i of r is stage
// i of like (switches change numbers, never stages).
int tf_run_compare(tf_run *r, const tf_model *m, const tf_run *like, tf_err *e);

// The run's trace as JSON, format tviz-trace/1 (README.md "The trace";
// trace_json.c), with "compare" (cmp's stages) when cmp is not NULL. A
// malloc'd string, or NULL when out of memory.
char *tf_trace_json(const tf_model *m, const tf_run *r, const tf_run *cmp);

// ---------------------------------------------------------------- MarianMT checkpoint folders (marian.c)
// DIR is a Hugging Face MarianMT checkpoint (Helsinki-NLP opus-mt-*):
// config.json, model.safetensors, source.spm, target.spm, vocab.json. The
// computation is transformers' modeling_marian.py (DESIGN.md "Real
// translators"): post-LN, positions in two halves (tf_positional_encoding_split),
// embeddings · √C when scale_embedding, q/k/v/out projections with biases
// (stored here as in_w = W_Q | W_K | W_V), the config's activation,
// final_logits_bias, logits tied to model.shared.weight, decoding from
// decoder_start_token_id (the pad token) to </s>, pad never chosen.
// A message names the file it is about, relative to DIR, and its line when the
// file is text: "config.json:12: activation_function is \"mish\"; …".
int tf_marian_load(tf_model *m, const char *dir, tf_err *e);
int tf_is_dir(const char *path); // 1 when path is a folder
typedef struct {
    int pad, eos, start;  // pad_token_id, eos_token_id, decoder_start_token_id
    int V, max_pos;       // vocab_size, max_position_embeddings
} tf_marian_ids;
// The readers, on a file's text (n bytes; also what the fuzzer calls):
// config.json -> c (sizes, activation, scale) and ids; vocab.json -> v, whose
// tokens must be the ids 0 … V−1, each once (V from config.json).
int tf_marian_config(tf_config *c, tf_marian_ids *ids, const char *text, size_t n, tf_err *e);
int tf_marian_vocab(tf_vocab *v, const char *text, size_t n, int V, tf_err *e);
void tf_marian_free(struct tf_marian *mm);

// The tokens of a sentence as m reads it (target 0: the source side, 1: the
// target side): SentencePiece pieces for a Marian model (a leading language
// token such as >>ara<< kept whole), else tf_tokens with the side's merges.
// malloc'd (tf_words_free); returns the count or -1.
int tf_model_tokens(const tf_model *m, int target, const char *sentence, char ***tokens, tf_err *e);
// A token's id in that side's vocabulary (Marian: exactly as written), or -1.
int tf_model_token_id(const tf_model *m, int target, const char *tok);
// What greedy decoding picks from one row of logits or probabilities (V_tgt):
// the largest; for a Marian model never the pad token (as transformers does).
int tf_model_next_token(const tf_model *m, const float *row);
// 1 when m is a Marian model whose vocabulary names target languages
// (">>ara<<" …) and the sentence does not start with one.
int tf_model_needs_lang_token(const tf_model *m, const char *sentence);

// One tensor entry of a safetensors header (weights.c; shared with marian.c):
// checks dtype (F32, F16), rank ≤ 2, shape and data_offsets within data_size.
struct cJSON;
int tf_st_entry(const struct cJSON *t, size_t data_size, int *shape, int *rank, size_t *b, size_t *end, int *f16, tf_err *e);

#endif
