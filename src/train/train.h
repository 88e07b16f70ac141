// train.h — training the Transformer as section 5 of the paper does it:
// backward pass, label-smoothed cross-entropy, residual dropout, Adam with the
// warm-up schedule. Like src/model, this code never prints or draws.
//
// Usage:
//   tf_model m;  tf_model_clone(&m, &loaded, &e);        // weights in m.owned
//   tf_train_cfg cfg;  tf_train_defaults(&cfg);
//   tf_trainer t;  tf_trainer_init(&t, &m, &cfg, &e);
//   for (...) { tf_train_grad(&t, batch, n, &loss, &ntok); tf_adam_step(&t); }
//   tf_trainer_free(&t);
#ifndef TF_TRAIN_H
#define TF_TRAIN_H

#include "../model/tf.h"
#include "corpus.h"

// One sentence pair as token ids.
typedef struct {
    const int *src; int S;  // source tokens (with <eos> when the model appends it)
    const int *tgt; int T;  // decoder input: <bos> y1 … yn
    const int *out;         // what each position must predict: y1 … yn <eos>  (T)
} tf_example;

typedef struct {
    float label_smoothing;      // ε_ls: 0.1 (§5.4)
    float dropout;              // P_drop on sub-layer outputs and embedding sums: 0.1 (§5.4)
    float beta1, beta2, adam_eps; // 0.9, 0.98, 1e-9 (§5.3)
    int warmup;                 // warmup_steps: 4000 (§5.3)
    float lr_scale;             // multiplies the schedule: 1 in the paper
    int threads;                // sentences of a batch run in parallel; 1 repeats a run exactly
    uint64_t seed;              // dropout masks
    float clip_norm;            // > 0: the gradient is scaled down to this global L2 norm when longer (Sutskever §3.4: 5)
    float lr_const;             // > 0: a constant learning rate instead of the warm-up schedule (the recurrent models: 0.001)
} tf_train_cfg;

void tf_train_defaults(tf_train_cfg *c);
// lrate = d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5)   (§5.3, equation 3);
// lr_const when it is set
double tf_lr(const tf_train_cfg *c, int d_model, int step);

typedef struct tf_workspace tf_workspace;

typedef struct {
    tf_model *m;            // the model being trained, weights in m->owned (tf_model_clone)
    tf_model grad;          // the same layout: gradient of the loss
    float *adam_m, *adam_v; // (n_params) first and second moments
    int step;               // Adam steps taken
    tf_train_cfg cfg;
    int n_ws;
    tf_workspace *ws;       // one per thread
    double grad_norm;       // the global L2 norm of the last step's gradient, before clipping
} tf_trainer;

int tf_trainer_init(tf_trainer *t, tf_model *m, const tf_train_cfg *cfg, tf_err *e);
void tf_trainer_free(tf_trainer *t);

// Forward and backward over a batch; t->grad = ∂loss/∂weights where loss is
// the mean label-smoothed cross-entropy over the batch's target tokens.
// *loss gets that mean, *n_tokens the number of target tokens. dropout_on 0
// turns dropout off (evaluation, gradient checks).
int tf_train_grad(tf_trainer *t, const tf_example *batch, int n, int dropout_on, double *loss, int *n_tokens,
                  tf_err *e);
// One Adam update with the gradient in t->grad: step++, lr = tf_lr(step).
void tf_adam_step(tf_trainer *t);

// ---------------------------------------------------------------- data (data.c)
// A corpus as token ids for one model.
typedef struct {
    int n;
    tf_example *ex;   // (n) pointing into ids
    int *ids;
    long n_tokens;    // target tokens, <eos> included
} tf_dataset;

// Tokenizes every pair with the model's vocabularies (<eos> appended to the
// source if the model does so). A word the vocabulary lacks, or a pair longer
// than max_len, is an error: *bad_pair gets its 0-based index.
int tf_dataset_build(tf_dataset *d, const tf_corpus *c, const tf_model *m, int *bad_pair, tf_err *e);
void tf_dataset_free(tf_dataset *d);

// Batching by length (§5.1): pairs sorted by length (equal lengths in a
// seeded order) and cut into batches of about batch_tokens target tokens.
typedef struct {
    int n;             // batches
    int *start, *len;  // (n) ranges of order
    int *order;        // example indices, by length
    int max_len;       // pairs in the largest batch
} tf_batches;
int tf_batches_make(tf_batches *b, const tf_dataset *d, int batch_tokens, uint64_t seed, tf_err *e);
void tf_batches_free(tf_batches *b);
// The batch of a step (0-based): every epoch visits each batch once, in an
// order drawn from seed and the epoch, so a resumed run sees what an
// uninterrupted one would. Copies the pairs into out; returns their number.
int tf_batches_get(const tf_batches *b, const tf_dataset *d, long step, uint64_t seed, tf_example *out);

// Greedy decoding of ex.src for each pair; the pair counts as right when
// the output (up to <eos>) equals ex.out exactly. Returns the number right.
int tf_eval_exact(const tf_model *m, const tf_dataset *d, int threads, tf_err *e);
// How well cross-attention aligns target words with their source words, for
// pairs whose alignment the corpus gives (c->p[i].align, d built from c).
// Teacher-forced runs; for each decoder layer l and head h (h = H: the mean
// of the heads), the share of aligned target tokens whose row of the
// cross-attention weights peaks at their source word (with subword pieces:
// at a piece of it; every piece of a target word counts). Row of word w: w when
// predicting (the row that outputs it), w + 1 when reading (the row whose
// input it is). acc has L_dec · (H+1) · 2 entries: [(l·(H+1) + h)·2 + reading].
// Returns the number of aligned words counted.
int tf_align_eval(const tf_model *m, const tf_corpus *c, const tf_dataset *d, double *acc);

// Greedy decoding of src (S ids) into out (at most max ids, <eos> not
// included); a is a workspace of max_len tokens. Returns the length.
int tf_greedy(tf_acts *a, const tf_model *m, const int *src, int S, int *out, int max);

// ---------------------------------------------------------------- evaluation (eval.c)
// Exact match and token accuracy of greedy translations, overall and by the
// number of source words: 1–5, 6–10, 11–15, 16–20, 21–30, 31+.
#define TF_EVAL_BUCKETS 6
typedef struct {
    int n, exact;      // pairs; pairs whose output equals the reference word for word
    long ref_words;    // words of the references
    long right_words;  // output words equal to the reference word at the same position
} tf_eval_bucket;
typedef struct {
    tf_eval_bucket all, by_len[TF_EVAL_BUCKETS];
    int too_long;      // sources longer than the model's max_len (counted as wrong)
    // beam search (tf_eval_corpus_beam): sentences whose beam choice scores
    // above, equal to (the same output, or the same score) and below greedy's
    // output under the beam's score (log P / lp, tf.h "beam search")
    int beam_above, beam_equal, beam_below;
} tf_eval_result;
int tf_eval_bucket_of(int source_words);
const char *tf_eval_bucket_name(int bucket); // "1-5", …, "31+"
// Translates every source of c greedily (words the model lacks read as
// <unk>; pieces joined back into words) and compares with the target.
// outputs (c->n entries, or NULL) get the translations (malloc'd; NULL for a
// source too long). Returns 0, or -1 when out of memory.
int tf_eval_corpus(const tf_model *m, const tf_corpus *c, int threads, tf_eval_result *r, char **outputs, tf_err *e);
// The same with beam search of width K and length penalty alpha (K 0: greedy),
// and greedy decoding's output scored beside it.
int tf_eval_corpus_beam(const tf_model *m, const tf_corpus *c, int threads, int K, double alpha, tf_eval_result *r, char **outputs,
                        tf_err *e);

// ---------------------------------------------------------------- subword merges (bpe.c)
// Learns up to n_merges byte-pair merges (paper §5.1) from the words of one
// side of c (0 source, 1 target): "a b" lines in the order learned, for
// tf_bpe_parse. malloc'd; NULL with e filled (out of memory, nothing to merge).
char *tf_bpe_learn(const tf_corpus *c, int side, int n_merges, tf_err *e);
// The vocabulary of a subword model for one side: "<pad>\n<unk>\n<bos>\n<eos>",
// every piece the corpus splits into, every character as "x" and "x@@" and
// every symbol a merge makes: any word of those characters has known pieces.
// malloc'd; NULL when out of memory.
char *tf_bpe_vocab(const tf_corpus *c, int side, const tf_bpe *b);

// ---------------------------------------------------------------- pieces (backward.c)
// Label-smoothed cross-entropy of one sentence from logits (T,V): returns the
// summed loss; dlogits (T,V) = (softmax − q) · scale, q = (1−ε)·onehot + ε/V.
double tf_xent_backward(float *dlogits, const float *logits, const int *y, int T, int V, float eps, float scale);
// Gradient of tf_encode + tf_decode for one pair: a holds the forward's
// activations, d (same layout, zeroed) gets their gradients, with d->logits
// holding ∂loss/∂logits on entry. Adds the weights' gradients into g.
void tf_backward(tf_model *g, tf_acts *d, const tf_acts *a, const tf_model *m, const int *src, const int *tgt);
// The gradient of a linear layer out (T,n_out) = x (T,n_in) Wᵀ + b: dx += dout W,
// dW += doutᵀ x, db += Σ_t dout (dx, dw, db may be NULL).
void tf_linear_backward(float *dx, float *dw, float *db, const float *dout, const float *x, const float *w, int T, int n_in,
                        int n_out);
// The same as tf_backward for a recurrent model (lstm_backward.c): backpropagation
// through time over every layer of the decoder, then the encoder.
// The weight gradients that are sums over every time step (the layers' W_ih,
// W_hh and biases, the generator) are kept as rows in defer (NULL: added at
// once) and summed for all the pairs of a thread by tf_lstm_defer_flush: one
// pass over each weight matrix per batch instead of one per pair.
typedef struct tf_lstm_defer tf_lstm_defer;
tf_lstm_defer *tf_lstm_defer_new(const tf_model *m);  // NULL when out of memory
void tf_lstm_defer_flush(tf_lstm_defer *f, tf_model *g, const tf_model *m); // adds the kept rows' gradients into g, empties f
void tf_lstm_defer_free(tf_lstm_defer *f);
void tf_lstm_backward(tf_model *g, tf_acts *d, const tf_acts *a, const tf_model *m, const int *src, const int *tgt,
                      tf_lstm_defer *defer);

#endif
