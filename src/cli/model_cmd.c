// model_cmd.c — `tviz model init`, `info` and `convert`.
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *model_help =
    "Usage:\n"
    "  tviz model init --preset base|worked-example [--seed N] -o FILE\n"
    "      base: the paper's base sizes (d_model 512, 8 heads, 6+6 layers, d_ff 2048),\n"
    "            seeded Xavier weights, a shared English word vocabulary (~180 MB)\n"
    "      worked-example: d_model 4 with the Persian slides' embeddings of\n"
    "            \"I really enjoy learning transformers\" (the shipped assets/models/worked-example)\n"
    "  tviz model info MODEL\n"
    "      the config, vocabularies, every tensor with its shape, and the parameter count\n"
    "  tviz model convert MODEL --f16|--f32 -o FILE\n"
    "      the same model with its weights stored as half precision (F16: half the size,\n"
    "      about 3 significant digits, for snapshots that are only looked at) or float32\n";

static int model_init(int argc, char **argv) {
    const char *preset = NULL, *out = NULL, *seed_s = "1";
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(model_help, stdout); return 0; }
        if ((k = io_opt(argc, argv, &i, "--preset", NULL, &preset))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--seed", NULL, &seed_s))) { if (k < 0) return 1; continue; }
        if ((k = io_opt(argc, argv, &i, "--output", "-o", &out))) { if (k < 0) return 1; continue; }
        return io_error(argv[i], "unknown option for 'model init'; see tviz model --help");
    }
    if (!preset) return io_error("model init", "needs --preset base or --preset worked-example");
    if (!out) return io_error("model init", "needs -o FILE, where to write the model");
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(seed_s, &end, 10);
    if (end == seed_s || *end || errno || *seed_s == '-') return io_error("--seed", "\"%s\" is not a whole number; give e.g. --seed 1", seed_s);
    tf_model m;
    tf_err e;
    int rc;
    if (!strcmp(preset, "base")) rc = cli_preset_base(&m, seed, &e);
    else if (!strcmp(preset, "worked-example")) rc = cli_preset_worked_example(&m, &e);
    else return io_error("--preset", "\"%s\" is not a preset; use base or worked-example", preset);
    if (rc) return io_error(preset, "%s", e.msg);
    if (tf_model_save(&m, out, &e)) rc = io_error(out, "%s", e.msg);
    else fprintf(stderr, "tviz: wrote %s (%zu parameters)\n", out, m.n_params);
    tf_model_free(&m);
    return rc ? 1 : 0;
}

static void print_vocab(const char *name, const tf_vocab *v) {
    printf("%-12s %d tokens:", name, v->n);
    for (int i = 0; i < v->n && i < 12; i++) printf(" %s", v->tok[i]);
    printf("%s\n", v->n > 12 ? " …" : "");
}

static int model_info(int argc, char **argv) {
    if (argc < 2) return io_error("model info", "needs a model: a file or a shipped name such as " IO_DEFAULT_MODEL);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) { fputs(model_help, stdout); return 0; }
    if (argc > 2) return io_error(argv[2], "unexpected; tviz model info takes one model");
    tf_model m;
    char path[4096];
    if (io_load_model(&m, argv[1], path, sizeof path)) return 1;
    const tf_config *c = &m.cfg;
    printf("%s%s\n", argv[1], strcmp(path, argv[1]) ? " (shipped with tviz)" : ""); // as named, not where it was found
    if (c->arch == TF_ARCH_LSTM) {
        printf("arch lstm: an LSTM encoder-decoder (Sutskever et al. 2014)%s\n",
               c->attention == TF_RNN_ATTN_DOT ? " with global dot attention (Luong et al. 2015)" : ", no attention: the decoder sees only v");
        printf("embed_dim %d · hidden_size %d · layers %d encoder + %d decoder · source %s · max_len %d%s · src_append_eos %d\n", c->E, c->C,
               c->L_enc, c->L_dec, c->reverse_source ? "read in reverse" : "read in order", c->max_len, c->max_len_set ? "" : " (default)",
               c->src_append_eos);
    } else {
    printf("d_model %d · heads %d (d_k = d_v = %d) · layers %d encoder + %d decoder · d_ff %d\n", c->C, c->H, c->D, c->L_enc, c->L_dec, c->F);
    printf("layer_norm_eps %g · embed_scale %s%g · max_len %d%s · src_append_eos %d\n", (double)c->eps,
           c->embed_scale_is_sqrt ? "√d_model = " : "", (double)c->embed_scale, c->max_len, c->max_len_set ? "" : " (default)", c->src_append_eos);
    printf("final norms: encoder %s, decoder %s · target embedding %s · generator %s%s\n",
           c->has_enc_norm ? "yes" : "no", c->has_dec_norm ? "yes" : "no",
           c->has_tgt_embed ? "own" : "shared with the source", c->has_generator ? "own" : "tied to the target embedding",
           c->has_generator_bias ? " with bias" : "");
    if (c->marian) {
        static const char *const act[] = {"ReLU", "SiLU (swish)", "GELU"};
        printf("a MarianMT checkpoint folder: feed-forward %s · positions sin | cos in two halves · output tied to model.shared.weight + final_logits_bias · "
               "decoding starts from %s, ends at %s\n", act[c->act], m.tgt_vocab.tok[m.tgt_vocab.bos], m.tgt_vocab.tok[m.tgt_vocab.eos]);
    }
    char parts[64];
    printf("layers: %s · trained without: %s\n", c->norm_first ? "pre-LN (norm_first: x + Sublayer(LayerNorm(x)))" : "post-LN (the paper: LayerNorm(x + Sublayer(x)))",
           c->trained_without ? tf_without_format(c->trained_without, parts, sizeof parts) : "nothing");
    }
    print_vocab("src_vocab", &m.src_vocab);
    if (m.shared_vocab) printf("tgt_vocab    shared with src_vocab\n");
    else print_vocab("tgt_vocab", &m.tgt_vocab);
    if (m.src_bpe.n || m.tgt_bpe.n)
        printf("subword merges (BPE): %d source, %d target; pieces that a word continues after end in @@\n", m.src_bpe.n, m.tgt_bpe.n);
    int nt = tf_model_tensors(&m, NULL);
    tf_tensor_info *ts = nt > 0 ? calloc((size_t)nt, sizeof *ts) : NULL;
    if (!ts) { tf_model_free(&m); return io_error(NULL, "out of memory"); }
    tf_model_tensors(&m, ts);
    printf("tensors (%d):\n", nt);
    for (int i = 0; i < nt; i++) {
        if (ts[i].rank == 2) printf("  %-46s [%d, %d]\n", ts[i].name, ts[i].shape[0], ts[i].shape[1]);
        else printf("  %-46s [%d]\n", ts[i].name, ts[i].shape[0]);
    }
    free(ts);
    for (int i = 0; i < m.n_extra && i < 8; i++) printf("  %-46s (not used by tviz)\n", m.extra_names[i]);
    if (m.n_extra > 8) printf("  … and %d more tensors not used by tviz\n", m.n_extra - 8);
    printf("parameters: %zu (%.1f MB as float32)%s\n", m.n_params, (double)m.n_params * 4 / 1e6,
           m.n_f16 ? "; stored as F16 in the file" : "");
    if (m.train_step >= 0) {
        printf("trained: step %d", m.train_step);
        if (m.step_loss >= 0) printf(" · loss %.3f", (double)m.step_loss);
        if (m.heldout_exact >= 0) printf(" · held-out exact match %.1f%%", 100.0 * m.heldout_exact);
        printf("\n");
    }
    if (m.n_loss_curve)
        printf("loss curve: %d point%s, each the mean of %d steps, from %.3f to %.3f\n", m.n_loss_curve, m.n_loss_curve == 1 ? "" : "s", m.loss_every,
               (double)m.loss_curve[0], (double)m.loss_curve[m.n_loss_curve - 1]);
    if (m.n_heldout_curve) {
        printf("held-out exact match:");
        for (int i = 0; i < m.n_heldout_curve; i++) printf(" %.1f%% at step %d%s", 100.0 * m.heldout_curve[i], m.heldout_steps[i], i + 1 < m.n_heldout_curve ? "," : "\n");
    }
    tf_model_free(&m);
    return 0;
}

static int model_convert(int argc, char **argv) {
    const char *in = NULL, *out = NULL;
    int f16 = -1;
    for (int i = 1; i < argc; i++) {
        int k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(model_help, stdout); return 0; }
        if (!strcmp(argv[i], "--f16") || !strcmp(argv[i], "--f32")) { f16 = argv[i][3] == '1'; continue; }
        if ((k = io_opt(argc, argv, &i, "--output", "-o", &out))) { if (k < 0) return 1; continue; }
        if (argv[i][0] == '-' || in) return io_error(argv[i], "unexpected for 'model convert'; see tviz model --help");
        in = argv[i];
    }
    if (!in) return io_error("model convert", "needs a model: a file or a shipped name");
    if (f16 < 0) return io_error("model convert", "needs --f16 or --f32, the precision to store the weights in");
    if (!out) return io_error("model convert", "needs -o FILE, where to write the model");
    tf_model m;
    tf_err e;
    char path[4096];
    if (io_load_model(&m, in, path, sizeof path)) return 1;
    int rc = f16 ? tf_model_save_f16(&m, out, &e) : tf_model_save(&m, out, &e);
    if (rc) io_error(out, "%s", e.msg);
    else fprintf(stderr, "tviz: wrote %s (%zu parameters as %s)\n", out, m.n_params, f16 ? "F16" : "F32");
    tf_model_free(&m);
    return rc ? 1 : 0;
}

int cmd_model(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) { fputs(model_help, stdout); return argc < 2; }
    if (!strcmp(argv[1], "init")) return model_init(argc - 1, argv + 1);
    if (!strcmp(argv[1], "info")) return model_info(argc - 1, argv + 1);
    if (!strcmp(argv[1], "convert")) return model_convert(argc - 1, argv + 1);
    return io_error(argv[1], "unknown; use tviz model init, info or convert");
}
