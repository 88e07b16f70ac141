// train_cmd.c — `tviz train` (a small translator, trained as §5 of the paper
// does it) and `tviz translate` (greedy decoding, one sentence per line).
#include "cli.h"
#include "../train/train.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *train_help =
    "Usage: tviz train -o MODEL [options]\n"
    "Trains an encoder-decoder from scratch on an English→Persian corpus, as §5 of\n"
    "the paper does it: Adam (β1 0.9, β2 0.98, ε 1e-9), the warm-up learning-rate\n"
    "schedule, label smoothing 0.1, residual dropout, batches of similar length.\n"
    "\n"
    "Data:\n"
    "  --corpus FILE        sentence pairs, one per line: source<TAB>target (see tviz corpus);\n"
    "                       default: the built-in English→Persian corpus\n"
    "  --heldout FILE       pairs to measure exact-match accuracy on (default: the built-in held-out set)\n"
    "  --corpus-seed N      the built-in corpus's sample (default 1)\n"
    "Model (new runs):\n"
    "  --d-model N (64)  --heads N (4)  --layers N (2 encoder + 2 decoder)  --d-ff N (256)\n"
    "  --arch lstm          a recurrent encoder-decoder instead (Sutskever et al. 2014): an LSTM\n"
    "                       reads the source, its final state starts an LSTM decoder; trained by\n"
    "                       backpropagation through time, gradient-norm clipping and Adam\n"
    "  --attention dot      (lstm) Luong's global dot attention over the encoder's states (default none)\n"
    "  --embed-dim N (128)  --hidden N (256)  (lstm) embedding and state sizes; --layers N (2) each side\n"
    "  --reverse-source 0|1 (lstm) read the source words last to first, as Sutskever §3.3 (default 1)\n"
    "  --bpe N              subword pieces (§5.1): learn N byte-pair merges per language from the\n"
    "                       corpus and store them in the model (src_merges, tgt_merges); a word\n"
    "                       never seen splits into pieces, never <unk> (default 0: whole words)\n"
    "  --norm-first         pre-LN layers, x = x + Sublayer(LayerNorm(x)), with final norms on both\n"
    "                       stacks (torch's norm_first=True); default: post-LN, as the paper\n"
    "  --without PARTS      what if? train without parts of the Transformer: pe (no positional\n"
    "                       encoding), mask (no causal mask), scale, residual; the model keeps them\n"
    "                       off when it runs (__metadata__ \"without\")\n"
    "Training:\n"
    "  --steps N            Adam steps in all (default 2000)\n"
    "  --batch-tokens N     target tokens per batch (default 512)\n"
    "  --warmup N           warm-up steps of the schedule (default 400)\n"
    "  --lr-scale X         multiplies the schedule (default 1)\n"
    "  --dropout P          P_drop (default 0.1)  --label-smoothing E (default 0.1)\n"
    "  --seed N             batch order and dropout (default 1); one thread repeats a run exactly\n"
    "  --lr X               a constant Adam learning rate instead of the schedule (lstm default 0.001)\n"
    "  --clip X             scale the gradient down to this L2 norm when longer (lstm default 5; 0: never)\n"
    "  --threads N          threads in all: sentences of a batch in parallel (default: the cores)\n"
    "Output:\n"
    "  -o FILE              the trained model (safetensors, readable by every tviz command)\n"
    "  --save-every N       a snapshot every N steps (default 250; 0: none)\n"
    "  --snapshots DIR      where snapshots go (default: MODEL's name + .snapshots)\n"
    "  --loss-png FILE      the loss curve (default: MODEL's name + .loss.png)\n"
    "  --eval-every N       held-out accuracy every N steps (default 500; 0: only at the end)\n"
    "  --resume SNAPSHOT    continue a run from a snapshot (its .state file beside it)\n"
    "Ctrl+C saves a snapshot and stops; --resume continues from it.\n";

typedef struct {
    const char *corpus, *heldout, *out, *snapdir, *loss_png, *resume;
    long steps, save_every, eval_every, batch_tokens, corpus_seed;
    int d_model, heads, layers, d_ff;
    long bpe;
    int lstm, attention, embed_dim, hidden, reverse; // --arch lstm and its sizes
    int norm_first, without;  // the variant of a new model (--norm-first, --without)
    int lr_given, clip_given; // --lr, --clip given (else each family's default)
    tf_train_cfg cfg;
} train_opts;

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted = 1; }

// ---------------------------------------------------------------- training state beside a snapshot
// FILE.state: "TVIZSTAT", version, the step, the Adam moments, the loss of
// every step so far and the held-out accuracies, so that --resume continues
// exactly where the run stopped.
typedef struct {
    long step;
    uint64_t seed, corpus_seed;
    long batch_tokens;
    int warmup;
    float lr_scale, dropout, smoothing;
    long n_loss, n_acc;
} state_head;

typedef struct {
    float *loss; long n_loss, cap_loss;
    float *acc; int *acc_step; long n_acc;
} history;

static void history_push(history *h, float l) {
    if (h->n_loss == h->cap_loss) {
        long cap = h->cap_loss ? 2 * h->cap_loss : 1024;
        float *p = realloc(h->loss, sizeof(float) * (size_t)cap);
        if (!p) return;
        h->loss = p;
        h->cap_loss = cap;
    }
    h->loss[h->n_loss++] = l;
}

static void history_acc(history *h, long step, float a) {
    float *p = realloc(h->acc, sizeof(float) * (size_t)(h->n_acc + 1));
    if (p) h->acc = p;
    int *q = realloc(h->acc_step, sizeof(int) * (size_t)(h->n_acc + 1));
    if (q) h->acc_step = q;
    if (!p || !q) return;
    h->acc[h->n_acc] = a;
    h->acc_step[h->n_acc++] = (int)step;
}

static int state_save(const char *path, const tf_trainer *t, const train_opts *o, const history *h) {
    size_t np = t->m->n_params;
    state_head hd = {t->step, t->cfg.seed, (uint64_t)o->corpus_seed, o->batch_tokens, t->cfg.warmup, t->cfg.lr_scale,
                     t->cfg.dropout, t->cfg.label_smoothing, h->n_loss, h->n_acc};
    io_membuf b = {0};
    io_membuf_append(&b, "TVIZSTAT\1\0\0\0", 12);
    io_membuf_append(&b, &np, sizeof np);
    io_membuf_append(&b, &hd, sizeof hd);
    io_membuf_append(&b, t->adam_m, sizeof(float) * np);
    io_membuf_append(&b, t->adam_v, sizeof(float) * np);
    io_membuf_append(&b, h->loss, sizeof(float) * (size_t)h->n_loss);
    io_membuf_append(&b, h->acc, sizeof(float) * (size_t)h->n_acc);
    io_membuf_append(&b, h->acc_step, sizeof(int) * (size_t)h->n_acc);
    int rc = b.failed ? io_error(path, "out of memory") : io_write_file(path, (const char *)b.p, b.n);
    free(b.p);
    return rc;
}

static int state_load(const char *path, tf_trainer *t, train_opts *o, history *h) {
    size_t n;
    FILE *f = fopen(path, "rb");
    if (!f) return io_error(path, "cannot read the training state (%s); --resume needs the .state file written beside the snapshot", strerror(errno));
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = len > 0 ? malloc((size_t)len) : NULL;
    n = p ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    state_head hd;
    size_t np, need = 12 + sizeof np + sizeof hd;
    int rc = 1;
    if (!p || n != (size_t)len || n < need || memcmp(p, "TVIZSTAT\1\0\0\0", 12)) {
        io_error(path, "is not a tviz training state (or is cut short); resume from a snapshot tviz train wrote");
        goto done;
    }
    memcpy(&np, p + 12, sizeof np);
    memcpy(&hd, p + 12 + sizeof np, sizeof hd);
    if (np != t->m->n_params) { io_error(path, "belongs to a model with %zu parameters, not %zu; give the snapshot it was saved with", np, t->m->n_params); goto done; }
    if (hd.n_loss < 0 || hd.n_acc < 0 || hd.n_loss > 100000000 || hd.n_acc > 1000000 ||
        n != need + sizeof(float) * (2 * np + (size_t)hd.n_loss + (size_t)hd.n_acc) + sizeof(int) * (size_t)hd.n_acc) {
        io_error(path, "has the wrong size for its contents; the file is damaged");
        goto done;
    }
    const unsigned char *q = p + need;
    memcpy(t->adam_m, q, sizeof(float) * np); q += sizeof(float) * np;
    memcpy(t->adam_v, q, sizeof(float) * np); q += sizeof(float) * np;
    for (long i = 0; i < hd.n_loss; i++, q += sizeof(float)) { float l; memcpy(&l, q, sizeof l); history_push(h, l); }
    const unsigned char *qs = q + sizeof(float) * (size_t)hd.n_acc;
    for (long i = 0; i < hd.n_acc; i++) {
        float a; int s;
        memcpy(&a, q + sizeof(float) * (size_t)i, sizeof a);
        memcpy(&s, qs + sizeof(int) * (size_t)i, sizeof s);
        history_acc(h, s, a);
    }
    t->step = (int)hd.step;
    t->cfg.seed = hd.seed;
    t->cfg.warmup = hd.warmup;
    t->cfg.lr_scale = hd.lr_scale;
    t->cfg.dropout = hd.dropout;
    t->cfg.label_smoothing = hd.smoothing;
    o->corpus_seed = (long)hd.corpus_seed;
    o->batch_tokens = hd.batch_tokens;
    rc = 0;
done:
    free(p);
    return rc;
}

// ---------------------------------------------------------------- pieces of a run
static int write_loss_png(const char *path, const history *h) {
    double w = 960, hh = 480, scale = 1.5;
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)(w * scale), (int)(hh * scale));
    cairo_t *cr = cairo_create(sf);
    cairo_scale(cr, scale, scale);
    render_opts o;
    render_opts_default(&o);
    render_loss_curve(cr, h->loss, (int)h->n_loss, h->acc, h->acc_step, (int)h->n_acc, &o, w, hh);
    cairo_destroy(cr);
    unsigned char *png = NULL;
    size_t n = 0;
    int rc = io_png_surface(sf, &png, &n) ? io_error(path, "could not encode the loss curve") : io_write_file(path, (char *)png, n);
    free(png);
    cairo_surface_destroy(sf);
    return rc;
}

// resumed: the model is a snapshot's (its vocabulary fixed), else built from the training corpus.
static int build_dataset(tf_dataset *d, const tf_corpus *c, const tf_model *m, const char *what, int resumed, int heldout) {
    int bad = -1;
    tf_err e;
    if (!tf_dataset_build(d, c, m, &bad, &e)) return 0;
    if (bad < 0) return io_error(what, "%s", e.msg);
    const char *fix = resumed ? "a snapshot only continues on the corpus it was trained on (or train without --resume)"
                    : heldout ? "a word-level model knows only the training corpus's words: give held-out pairs made of them, or train with --bpe"
                              : "the corpus is inconsistent";
    return io_error(what, "pair %d (\"%.60s\"): %s; %s", bad + 1, c->p[bad].src, e.msg, fix);
}

static void fmt_time(char *buf, size_t n, double s) {
    if (s < 0 || !isfinite(s)) snprintf(buf, n, "?");
    else if (s < 60) snprintf(buf, n, "%.0fs", s);
    else if (s < 3600) snprintf(buf, n, "%dm%02ds", (int)s / 60, (int)s % 60);
    else snprintf(buf, n, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(long step, long steps, double loss, double tok_s, double eta, int tty) {
    char bar[41], t[32];
    int filled = (int)(40.0 * step / steps);
    for (int i = 0; i < 40; i++) bar[i] = i < filled ? '#' : '-';
    bar[40] = 0;
    fmt_time(t, sizeof t, eta);
    fprintf(stderr, "%sstep %6ld/%ld [%s] loss %.3f  %.1fk tok/s  ETA %s%s", tty ? "\r" : "", step, steps, bar, loss,
            tok_s / 1000, t, tty ? "   " : "\n");
}

// Which cross-attention heads align target words with their source words;
// the model keeps the best one (by the row that predicts each word).
static void report_alignment(tf_model *m, const tf_corpus *c, const tf_dataset *d) {
    int H = m->cfg.H, L = m->cfg.L_dec;
    double *acc = malloc(sizeof(double) * (size_t)(L * (H + 1) * 2));
    int words = acc ? tf_align_eval(m, c, d, acc) : -1;
    m->align_layer = m->align_head = -1;
    m->align_rate = -1.0f;
    if (words > 0 && m->cfg.arch == TF_ARCH_LSTM)
        fprintf(stderr, "tviz: attention alignment on %d held-out target words: dec.attn.weights %5.1f%% predicting  %5.1f%% reading\n",
                words, 100 * acc[0], 100 * acc[1]);
    else if (words > 0) {
        fprintf(stderr, "tviz: cross-attention alignment on %d held-out target words (argmax of the row that predicts / reads each word):\n", words);
        for (int l = 0; l < L; l++)
            for (int h = 0; h <= H; h++) {
                char name[32];
                if (h < H) snprintf(name, sizeof name, "head %d", h);
                else snprintf(name, sizeof name, "mean of heads");
                fprintf(stderr, "  dec.%d.cross_attn %-13s %5.1f%% predicting  %5.1f%% reading\n", l, name,
                        100 * acc[(l * (H + 1) + h) * 2], 100 * acc[(l * (H + 1) + h) * 2 + 1]);
                if (h < H && (m->align_layer < 0 || acc[(l * (H + 1) + h) * 2] > m->align_rate)) {
                    m->align_layer = l;
                    m->align_head = h;
                    m->align_rate = (float)acc[(l * (H + 1) + h) * 2];
                }
            }
    }
    free(acc);
}

// ---------------------------------------------------------------- tviz train
static int opt_num(int argc, char **argv, int *i, const char *name, long lo, long hi, long *out, int *rc) {
    const char *v;
    int k = io_opt(argc, argv, i, name, NULL, &v);
    if (k < 0) { *rc = 1; return 1; }
    if (k && cli_whole(name, v, lo, hi, out)) *rc = 1;
    return k;
}

// A recurrent model's training (Sutskever et al.): Adam at a constant 0.001
// and clipping at 5 unless --lr and --clip say otherwise; no dropout in the
// small model here. For a new --arch lstm run and for resuming one.
static void lstm_defaults(train_opts *o) {
    if (!o->lr_given) o->cfg.lr_const = 0.001f;
    if (!o->clip_given) o->cfg.clip_norm = 5.0f;
    o->cfg.dropout = 0.0f;
}

static int parse_train(train_opts *o, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    tf_train_defaults(&o->cfg);
    o->cfg.warmup = 400;
    o->cfg.threads = omp_get_num_procs();
    o->steps = 2000; o->save_every = 250; o->eval_every = 500; o->batch_tokens = 512; o->corpus_seed = 1;
    o->d_model = 64; o->heads = 4; o->layers = 2; o->d_ff = 256;
    o->embed_dim = 128; o->hidden = 256; o->reverse = 1;
    for (int i = 1; i < argc; i++) {
        int rc = 0, k;
        long v = 0;
        const char *s;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(train_help, stdout); return 2; }
        if (!strcmp(argv[i], "--norm-first")) { o->norm_first = 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--without", NULL, &s))) {
            int bits;
            if (k < 0 || io_parse_without(s, &bits)) return 1;
            o->without |= bits;
            continue;
        }
#define STR(name, alias, field) if ((k = io_opt(argc, argv, &i, name, alias, &o->field))) { if (k < 0) return 1; continue; }
        STR("--corpus", NULL, corpus) STR("--heldout", NULL, heldout) STR("--output", "-o", out)
        STR("--snapshots", NULL, snapdir) STR("--loss-png", NULL, loss_png) STR("--resume", NULL, resume)
#undef STR
#define NUM(name, lo, hi, field) if (opt_num(argc, argv, &i, name, lo, hi, &v, &rc)) { if (rc) return 1; o->field = v; continue; }
        NUM("--steps", 1, 10000000, steps) NUM("--save-every", 0, 10000000, save_every)
        NUM("--eval-every", 0, 10000000, eval_every) NUM("--batch-tokens", 16, 1000000, batch_tokens)
        NUM("--corpus-seed", 0, 1000000000, corpus_seed) NUM("--d-model", 2, 1024, d_model) NUM("--heads", 1, 64, heads)
        NUM("--layers", 1, 12, layers) NUM("--d-ff", 1, 8192, d_ff) NUM("--warmup", 1, 10000000, cfg.warmup)
        NUM("--threads", 1, 256, cfg.threads) NUM("--seed", 0, 1000000000, cfg.seed) NUM("--bpe", 0, 100000, bpe)
        NUM("--embed-dim", 1, 4096, embed_dim) NUM("--hidden", 1, 4096, hidden) NUM("--reverse-source", 0, 1, reverse)
#undef NUM
#define FLT(name, lo, hi, field) if ((k = io_opt(argc, argv, &i, name, NULL, &s))) { double d; if (k < 0 || cli_number(name, s, lo, hi, &d)) return 1; o->field = (float)d; continue; }
        FLT("--lr-scale", 1e-6, 1e6, cfg.lr_scale) FLT("--dropout", 0, 0.9, cfg.dropout)
        FLT("--label-smoothing", 0, 0.9, cfg.label_smoothing)
        if ((k = io_opt(argc, argv, &i, "--lr", NULL, &s))) { double d; if (k < 0 || cli_number("--lr", s, 1e-7, 10, &d)) return 1; o->cfg.lr_const = (float)d; o->lr_given = 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--clip", NULL, &s))) { double d; if (k < 0 || cli_number("--clip", s, 0, 1e6, &d)) return 1; o->cfg.clip_norm = (float)d; o->clip_given = 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--arch", NULL, &s))) {
            if (k < 0) return 1;
            if (!strcmp(s, "lstm")) o->lstm = 1;
            else if (strcmp(s, "transformer")) return io_error("--arch", "\"%s\" is not an architecture; use transformer (the default) or lstm", s);
            continue;
        }
        if ((k = io_opt(argc, argv, &i, "--attention", NULL, &s))) {
            if (k < 0) return 1;
            if (!strcmp(s, "dot")) o->attention = 1;
            else if (strcmp(s, "none")) return io_error("--attention", "\"%s\" is not an attention; use none (the default) or dot", s);
            continue;
        }
#undef FLT
        return io_error(argv[i], "unknown option for 'train'; see tviz train --help");
    }
    if (!o->out) return io_error("train", "needs -o FILE, where to write the trained model");
    if (o->heldout && !o->corpus) return io_error("--heldout", "needs --corpus too (without --corpus the built-in held-out set is used)");
    if (o->d_model % o->heads) return io_error("--heads", "%d does not divide --d-model %d", o->heads, o->d_model);
    if (o->attention && !o->lstm) return io_error("--attention", "is for --arch lstm (the Transformer has its own attention)");
    if (o->lstm) lstm_defaults(o);
    if (o->lstm && (o->norm_first || o->without))
        return io_error(o->norm_first ? "--norm-first" : "--without", "is for the Transformer; a recurrent model (--arch lstm) has no such part");
    if (o->resume && (o->norm_first || o->without))
        return io_error(o->norm_first ? "--norm-first" : "--without", "shapes a new model; a snapshot goes on as it was made (leave it out with --resume)");
    // --threads N is the run's threads in all: the kernels inside a lone worker
    // (tf_linear's parallel loop) would otherwise start the cores' number again,
    // and two one-thread runs side by side spin against each other.
    omp_set_num_threads(o->cfg.threads);
    return 0;
}

#define LOSS_EVERY 10 // steps each value of a model file's loss curve averages

// The model file records where training is: the step, the mean loss of the
// last 100 steps, and the held-out accuracy when it was measured at this step.
static void record(tf_model *m, int step, const history *h) {
    m->train_step = step;
    m->step_loss = m->heldout_exact = -1.0f;
    if (h->n_loss) {
        double sum = 0.0;
        long from = h->n_loss > 100 ? h->n_loss - 100 : 0;
        for (long i = from; i < h->n_loss; i++) sum += h->loss[i];
        m->step_loss = (float)(sum / (double)(h->n_loss - from));
    }
    if (h->n_acc && h->acc_step[h->n_acc - 1] == step) m->heldout_exact = h->acc[h->n_acc - 1];
    // and the curves so far: the loss as the mean of each LOSS_EVERY steps (a last, shorter block included)
    int nb = (int)((h->n_loss + LOSS_EVERY - 1) / LOSS_EVERY);
    float *blocks = malloc(sizeof(float) * (size_t)(nb ? nb : 1));
    if (!blocks) return;
    for (int b = 0; b < nb; b++) {
        long from = (long)b * LOSS_EVERY, to = from + LOSS_EVERY < h->n_loss ? from + LOSS_EVERY : h->n_loss;
        double sum = 0.0;
        for (long i = from; i < to; i++) sum += h->loss[i];
        blocks[b] = (float)(sum / (double)(to - from));
    }
    tf_err e;
    tf_model_set_curves(m, blocks, nb, LOSS_EVERY, h->acc_step, h->acc, (int)h->n_acc, &e); // (fails only for every < 1)
    free(blocks);
}

static int snapshot(const char *dir, const tf_trainer *t, const train_opts *o, const history *h, char *path, size_t n) {
    if (mkdir(dir, 0777) && errno != EEXIST) return io_error(dir, "cannot make the snapshot folder (%s)", strerror(errno));
    char st[4200];
    tf_err e;
    snprintf(path, n, "%s/step-%06d.safetensors", dir, t->step);
    io_beside(st, sizeof st, path, ".state");
    record(t->m, t->step, h);
    if (tf_model_save(t->m, path, &e)) return io_error(path, "%s", e.msg);
    return state_save(st, t, o, h);
}

// The longest pair of c in tokens (source + <eos>, <bos> + target) under merges sb, tb.
static int longest_pair(const tf_corpus *c, const tf_bpe *sb, const tf_bpe *tb) {
    int best = 0;
    for (int i = 0; i < c->n; i++) {
        char **t;
        tf_err e;
        int ns = tf_tokens(sb, c->p[i].src, &t, &e);
        if (ns > 0) tf_words_free(t, ns);
        int nt = tf_tokens(tb, c->p[i].tgt, &t, &e);
        if (nt > 0) tf_words_free(t, nt);
        if (ns + 1 > best) best = ns + 1;
        if (nt + 1 > best) best = nt + 1;
    }
    return best;
}

static int new_model(tf_model *m, const train_opts *o, const tf_corpus *c, const tf_corpus *held) {
    tf_config cfg = {0};
    cfg.C = o->d_model; cfg.H = o->heads; cfg.F = o->d_ff; cfg.L_enc = cfg.L_dec = o->layers;
    cfg.eps = 1e-5f; cfg.embed_scale_is_sqrt = 1; cfg.src_append_eos = 1;
    if (o->lstm) {
        cfg.arch = TF_ARCH_LSTM;
        cfg.E = o->embed_dim;
        cfg.C = o->hidden;
        cfg.attention = o->attention ? TF_RNN_ATTN_DOT : TF_RNN_ATTN_NONE;
        cfg.reverse_source = o->reverse;
    }
    cfg.max_len = 24; cfg.max_len_set = 1;
    cfg.norm_first = o->norm_first;
    cfg.has_enc_norm = cfg.has_dec_norm = o->norm_first; // pre-LN sums are normalised once more at the top (as torch's)
    cfg.trained_without = cfg.without = o->without;
    char *sv = NULL, *tv = NULL, *sm = NULL, *tm = NULL;
    tf_bpe sb = {0}, tb = {0};
    tf_err e;
    int rc = 0;
    if (o->bpe > 0) { // subword pieces: merges learned from the training corpus, each side on its own
        double t0 = (double)clock() / CLOCKS_PER_SEC;
        if (!(sm = tf_bpe_learn(c, 0, (int)o->bpe, &e)) || !(tm = tf_bpe_learn(c, 1, (int)o->bpe, &e))) { rc = io_error("--bpe", "%s", e.msg); goto done; }
        if (tf_bpe_parse(&sb, sm, "src_merges", &e) || tf_bpe_parse(&tb, tm, "tgt_merges", &e)) { rc = io_error("--bpe", "%s", e.msg); goto done; }
        sv = tf_bpe_vocab(c, 0, &sb);
        tv = tf_bpe_vocab(c, 1, &tb);
        fprintf(stderr, "tviz: learned %d source and %d target merges in %.1f s\n", sb.n, tb.n, (double)clock() / CLOCKS_PER_SEC - t0);
    } else {
        sv = tf_corpus_vocab(c, 0);
        tv = tf_corpus_vocab(c, 1);
    }
    if (!sv || !tv) { rc = io_error("train", "out of memory"); goto done; }
    int need = longest_pair(c, &sb, &tb), need_h = held ? longest_pair(held, &sb, &tb) : 0;
    if (need_h > need) need = need_h;
    if (need + 8 > cfg.max_len) cfg.max_len = need + 8; // room for a sentence a little longer than any seen
    if (tf_model_init(m, &cfg, sv, tv, o->cfg.seed, &e)) { rc = io_error("train", "%s", e.msg); goto done; }
    if (sm && tf_model_set_merges(m, sm, tm, &e)) { tf_model_free(m); rc = io_error("train", "%s", e.msg); goto done; }
done:
    tf_bpe_free(&sb);
    tf_bpe_free(&tb);
    free(sv); free(tv); free(sm); free(tm);
    return rc;
}

int cmd_train(int argc, char **argv) {
    train_opts o;
    int rc = parse_train(&o, argc, argv);
    if (rc) return rc == 2 ? 0 : rc;
    char snapdir[4200], loss_png[4200], path[4300];
    if (o.snapdir) snprintf(snapdir, sizeof snapdir, "%s", o.snapdir);
    else io_beside(snapdir, sizeof snapdir, o.out, ".snapshots");
    if (o.loss_png) snprintf(loss_png, sizeof loss_png, "%s", o.loss_png);
    else io_beside(loss_png, sizeof loss_png, o.out, ".loss.png");

    tf_model loaded = {0}, m = {0};
    tf_trainer t = {0};
    tf_corpus train = {0}, held = {0};
    tf_dataset dtrain = {0}, dheld = {0};
    tf_batches bt = {0};
    history h = {0};
    tf_example *batch = NULL;
    tf_err e;
    rc = 1;
    if (o.resume) {
        if (tf_model_load(&loaded, o.resume, &e)) { io_error(o.resume, "%s", e.msg); goto done; }
        if (tf_model_clone(&m, &loaded, &e)) { io_error(o.resume, "%s", e.msg); goto done; }
        tf_model_free(&loaded);
        if (m.cfg.arch == TF_ARCH_LSTM) lstm_defaults(&o); // the state keeps neither --lr nor --clip
        if (tf_trainer_init(&t, &m, &o.cfg, &e)) { io_error("train", "%s", e.msg); goto done; }
        io_beside(path, sizeof path, o.resume, ".state");
        if (state_load(path, &t, &o, &h)) goto done;
        if (t.step >= o.steps) { io_error("--steps", "the snapshot is already at step %d; give a larger --steps to go on", t.step); goto done; }
    }
    // the corpus
    if (o.corpus) {
        if (cli_load_corpus(&train, o.corpus) || (o.heldout && cli_load_corpus(&held, o.heldout))) goto done;
    } else {
        tf_lexicon *lx = cli_lexicon(NULL);
        if (!lx) goto done;
        int gen = tf_corpus_generate(&train, &held, lx, (uint64_t)o.corpus_seed, &e);
        tf_lexicon_free(lx);
        if (gen) { io_error("train", "%s", e.msg); goto done; }
    }
    if (!o.resume) {
        if (new_model(&m, &o, &train, &held) || tf_trainer_init(&t, &m, &o.cfg, &e)) {
            if (m.owned && !t.m) io_error("train", "%s", e.msg);
            goto done;
        }
    }
    const char *cname = o.corpus ? o.corpus : "the built-in corpus", *hname = o.heldout ? o.heldout : "the built-in held-out set";
    if (build_dataset(&dtrain, &train, &m, cname, o.resume != NULL, 0) || (held.n && build_dataset(&dheld, &held, &m, hname, o.resume != NULL, 1))) goto done;
    if (tf_batches_make(&bt, &dtrain, (int)o.batch_tokens, t.cfg.seed, &e)) { io_error(cname, "%s", e.msg); goto done; }
    batch = malloc(sizeof *batch * (size_t)bt.max_len);
    if (!batch) { io_error("train", "out of memory"); goto done; }
    char parts[64], variant[96] = "";
    if (m.cfg.norm_first || m.cfg.trained_without)
        snprintf(variant, sizeof variant, "%s%s%s", m.cfg.norm_first ? ", pre-LN" : "", m.cfg.trained_without ? ", without " : "",
                 tf_without_format(m.cfg.trained_without, parts, sizeof parts));
    if (m.cfg.arch == TF_ARCH_LSTM)
        fprintf(stderr, "tviz: training %zu parameters (LSTM: embed_dim %d, hidden_size %d, %d+%d layers, attention %s, source %s; "
                        "Adam at %g, clipping at %g) on %d pairs (%d batches of about %ld target tokens), %d held out; %d thread%s\n",
                m.n_params, m.cfg.E, m.cfg.C, m.cfg.L_enc, m.cfg.L_dec, m.cfg.attention == TF_RNN_ATTN_DOT ? "dot" : "none",
                m.cfg.reverse_source ? "reversed" : "in order", (double)t.cfg.lr_const, (double)t.cfg.clip_norm, dtrain.n, bt.n,
                o.batch_tokens, dheld.n, t.n_ws, t.n_ws == 1 ? "" : "s");
    else
    fprintf(stderr, "tviz: training %zu parameters (d_model %d, %d heads, %d+%d layers, d_ff %d%s) on %d pairs "
                    "(%d batches of about %ld target tokens), %d held out; %d thread%s\n",
            m.n_params, m.cfg.C, m.cfg.H, m.cfg.L_enc, m.cfg.L_dec, m.cfg.F, variant, dtrain.n, bt.n, o.batch_tokens, dheld.n,
            t.n_ws, t.n_ws == 1 ? "" : "s");
    if (o.resume) fprintf(stderr, "tviz: resuming at step %d of %ld\n", t.step, o.steps);

    interrupted = 0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int tty = isatty(2);
    double t0 = now(), last_print = 0, tok = 0, ema = -1;
    int step0 = t.step; // after --resume, the snapshot's step: the time below is this run's
    long first = t.step;
    // the untrained model too, so that a timeline starts where training did
    if (o.save_every && t.step == 0 && snapshot(snapdir, &t, &o, &h, path, sizeof path)) goto restore;
    while (t.step < o.steps && !interrupted) {
        int n = tf_batches_get(&bt, &dtrain, t.step, t.cfg.seed, batch);
        double loss;
        int ntok;
        if (tf_train_grad(&t, batch, n, 1, &loss, &ntok, &e)) { io_error(cname, "%s", e.msg); goto restore; }
        for (int i = 0; i < n; i++) tok += batch[i].S + batch[i].T;
        tf_adam_step(&t);
        history_push(&h, (float)loss);
        ema = ema < 0 ? loss : 0.98 * ema + 0.02 * loss;
        double el = now() - t0;
        if (el - last_print > (tty ? 0.2 : 10.0) || t.step == o.steps) {
            double per = el / (double)(t.step - first);
            progress(t.step, o.steps, ema, tok / el, per * (double)(o.steps - t.step), tty);
            last_print = el;
        }
        int last = t.step == o.steps;
        if (dheld.n && ((o.eval_every && t.step % o.eval_every == 0) || last)) {
            int right = tf_eval_exact(&m, &dheld, t.n_ws, &e);
            if (right < 0) { io_error("train", "%s", e.msg); goto restore; }
            history_acc(&h, t.step, (float)right / (float)dheld.n);
            fprintf(stderr, "%sheld-out exact match at step %d (%.0f s): %d of %d (%.1f%%)\n", tty ? "\n" : "", t.step,
                    now() - t0, right, dheld.n, 100.0 * right / dheld.n);
        }
        if (o.save_every && (t.step % o.save_every == 0 || last) && snapshot(snapdir, &t, &o, &h, path, sizeof path))
            goto restore;
    }
    if (tty) fputc('\n', stderr);
    if (interrupted) {
        if (!snapshot(snapdir, &t, &o, &h, path, sizeof path))
            fprintf(stderr, "tviz: interrupted at step %d; continue with: tviz train -o %s --resume %s%s%s --steps %ld\n",
                    t.step, o.out, path, o.corpus ? " --corpus " : "", o.corpus ? o.corpus : "", o.steps);
        rc = 130;
        goto restore;
    }
    if (dheld.n) report_alignment(&m, &held, &dheld);
    if (write_loss_png(loss_png, &h)) goto restore;
    record(&m, t.step, &h);
    if (tf_model_save(&m, o.out, &e)) { io_error(o.out, "%s", e.msg); goto restore; }
    if (!o.corpus && held.n) { // the held-out set it was measured on, beside it (test_train reads it)
        char *text;
        size_t len;
        io_beside(path, sizeof path, o.out, ".heldout.tsv");
        if (tf_corpus_format(&held, &text, &len)) { io_error("train", "out of memory"); goto restore; }
        int wrc = io_write_file(path, text, len);
        free(text);
        if (wrc) goto restore;
    }
    if (step0)
        fprintf(stderr, "tviz: wrote %s (%zu parameters, %d steps: %d to %d in %.0f s after the snapshot) and the loss curve %s\n", o.out,
                m.n_params, t.step, step0 + 1, t.step, now() - t0, loss_png);
    else
        fprintf(stderr, "tviz: wrote %s (%zu parameters, %d steps in %.0f s) and the loss curve %s\n", o.out, m.n_params, t.step,
                now() - t0, loss_png);
    rc = 0;
restore:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
done:
    free(batch);
    free(h.loss);
    free(h.acc);
    free(h.acc_step);
    tf_batches_free(&bt);
    tf_dataset_free(&dtrain);
    tf_dataset_free(&dheld);
    tf_corpus_free(&train);
    tf_corpus_free(&held);
    tf_trainer_free(&t);
    tf_model_free(&m);
    tf_model_free(&loaded);
    return rc;
}

// ---------------------------------------------------------------- tviz translate
static const char *translate_help =
    "Usage: tviz translate [--model M] [--without PARTS] [--beam K [--alpha A]] [SENTENCE ...]\n"
    "Prints the greedy translation of each sentence (or of each line of standard\n"
    "input when none is given). Default model: " IO_DEFAULT_MODEL ".\n"
    "--beam K uses beam search of width K instead (the paper: 4), --alpha A its length\n"
    "penalty (default 0.6): score = log P(Y) / ((5 + |Y|) / 6)^A.\n"
    "--without pe,scale,mask,residual switches those parts of the Transformer off (what if?).\n";

static int translate_one(const tf_model *m, const char *src, int beam, double alpha, const char *where) {
    tf_run r;
    tf_err e;
    if (beam ? tf_run_beam(&r, m, src, beam, alpha, &e) : tf_run_greedy(&r, m, src, 0, &e)) return io_error(where, "%s", e.msg);
    char *text = tf_join_tokens(r.tgt_words + 1, r.T - 1); // pieces joined back into words
    if (!text) { tf_run_free(&r); return io_error(where, "out of memory"); }
    printf("%s\n", text);
    free(text);
    if (r.n_src_unk) fprintf(stderr, "tviz: %s: %d word%s not in the model's vocabulary, read as <unk>\n", where,
                             r.n_src_unk, r.n_src_unk == 1 ? " is" : "s are");
    tf_run_free(&r);
    return 0;
}

int cmd_translate(int argc, char **argv) {
    const char *model = IO_DEFAULT_MODEL, *list;
    int first = argc, without = 0, beam = 0;
    double alpha = IO_DEFAULT_ALPHA;
    for (int i = 1; i < argc; i++) {
        int k, bits;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(translate_help, stdout); return 0; }
        if ((k = io_beam_opt(argc, argv, &i, &beam, &alpha))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--model", NULL, &model))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--without", NULL, &list))) { if (k < 0 || io_parse_without(list, &bits)) return 1; without |= bits; continue; }
        if (!strcmp(argv[i], "--")) { first = i + 1; break; }
        if (argv[i][0] == '-' && argv[i][1]) return io_error(argv[i], "unknown option for 'translate'; see tviz translate --help");
        first = i;
        break;
    }
    tf_model m;
    char path[4096];
    if (io_load_model(&m, model, path, sizeof path)) return 1;
    if (io_beam_check(&m, beam, alpha)) { tf_model_free(&m); return 1; }
    m.cfg.without |= without;
    int rc = 0;
    if (first < argc) {
        for (int i = first; i < argc; i++) rc |= translate_one(&m, argv[i], beam, alpha, "translate");
    } else {
        char line[4096], where[64];
        for (int n = 1; fgets(line, sizeof line, stdin); n++) {
            line[strcspn(line, "\r\n")] = 0;
            if (!*line) { printf("\n"); continue; }
            snprintf(where, sizeof where, "stdin:%d", n);
            rc |= translate_one(&m, line, beam, alpha, where);
        }
    }
    fflush(stdout);
    tf_model_free(&m);
    return rc;
}
