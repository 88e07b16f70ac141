// marian.c — `make bench` on a MarianMT checkpoint of opus-mt-en-ar's shapes
// (6 + 6 layers, d_model 512, 8 heads, d_ff 2048, 62,802 pieces; random weights):
//   bench_marian --make DIR   writes DIR/config.json, vocab.json and model.safetensors
//                             (DIR/spm.vocab from spm_train gives the first pieces)
//   bench_marian DIR          loading, the traced forward pass of the seed sentence
//                             beside reading the weights once, greedy decoding of
//                             10 tokens for a 10-word sentence, and window frames.
// Prints medians; asserts nothing.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "frames.h"
#include <omp.h>

enum { C = 512, H = 8, F = 2048, L = 6, V = 62802 };

// ---------------------------------------------------------------- the checkpoint
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static float uniform(void) { // xorshift64*, in [-1, 1)
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (float)((rng * 0x2545F4914F6CDD1Dull) >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
}

typedef struct { char name[96]; int d0, d1; } tensor;

static int tensors(tensor *t) {
    int n = 0;
    char pre[64];
#define T(d0_, d1_, ...) do { if (t) { snprintf(t[n].name, sizeof t[n].name, __VA_ARGS__); t[n].d0 = d0_; t[n].d1 = d1_; } n++; } while (0)
    for (int side = 0; side < 2; side++)
        for (int l = 0; l < L; l++) {
            snprintf(pre, sizeof pre, "model.%s.layers.%d", side ? "decoder" : "encoder", l);
            const char *attn[2] = {"self_attn", "encoder_attn"};
            for (int a = 0; a < 1 + side; a++) {
                const char *proj[4] = {"q_proj", "k_proj", "v_proj", "out_proj"};
                for (int p = 0; p < 4; p++) {
                    T(C, C, "%s.%s.%s.weight", pre, attn[a], proj[p]);
                    T(C, 0, "%s.%s.%s.bias", pre, attn[a], proj[p]);
                }
                T(C, 0, "%s.%s_layer_norm.weight", pre, attn[a]);
                T(C, 0, "%s.%s_layer_norm.bias", pre, attn[a]);
            }
            T(F, C, "%s.fc1.weight", pre);
            T(F, 0, "%s.fc1.bias", pre);
            T(C, F, "%s.fc2.weight", pre);
            T(C, 0, "%s.fc2.bias", pre);
            T(C, 0, "%s.final_layer_norm.weight", pre);
            T(C, 0, "%s.final_layer_norm.bias", pre);
        }
    T(V, C, "model.shared.weight");
    T(1, V, "final_logits_bias");
#undef T
    return n;
}

static int make(const char *dir) {
    char path[512];
    // config.json: opus-mt-en-ar's
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 1; }
    fprintf(f, "{\n  \"activation_function\": \"swish\",\n  \"architectures\": [\"MarianMTModel\"],\n  \"d_model\": %d,\n"
               "  \"decoder_attention_heads\": %d,\n  \"decoder_ffn_dim\": %d,\n  \"decoder_layers\": %d,\n"
               "  \"decoder_start_token_id\": %d,\n  \"encoder_attention_heads\": %d,\n  \"encoder_ffn_dim\": %d,\n"
               "  \"encoder_layers\": %d,\n  \"eos_token_id\": 0,\n  \"max_position_embeddings\": 512,\n  \"model_type\": \"marian\",\n"
               "  \"normalize_before\": false,\n  \"pad_token_id\": %d,\n  \"scale_embedding\": true,\n"
               "  \"static_position_embeddings\": true,\n  \"vocab_size\": %d\n}\n", C, H, F, L, V - 1, H, F, L, V - 1, V);
    fclose(f);
    // vocab.json: </s>, <unk>, the SentencePiece pieces, made-up pieces up to V − 1, <pad>
    snprintf(path, sizeof path, "%s/spm.vocab", dir);
    FILE *in = fopen(path, "r");
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    f = fopen(path, "w");
    if (!in || !f) { perror(path); return 1; }
    fprintf(f, "{\"</s>\": 0, \"<unk>\": 1");
    int id = 2;
    char line[512];
    while (id < V - 1 && fgets(line, sizeof line, in)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        if (!strcmp(line, "<unk>") || !strcmp(line, "<s>") || !strcmp(line, "</s>") || strchr(line, '"') || strchr(line, '\\')) continue;
        fprintf(f, ", \"%s\": %d", line, id++);
    }
    fclose(in);
    for (; id < V - 1; id++) fprintf(f, ", \"\xe2\x96\x81x%d\": %d", id, id);
    fprintf(f, ", \"<pad>\": %d}\n", V - 1);
    fclose(f);
    // model.safetensors: uniform weights of Xavier's size, LayerNorms near 1
    int n = tensors(NULL);
    tensor *t = calloc((size_t)n, sizeof *t);
    if (!t) return 1;
    tensors(t);
    size_t cap = 1 << 20, len = 0, off = 0;
    char *header = malloc(cap);
    len += (size_t)sprintf(header, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (int k = 0; k < n; k++) {
        size_t bytes = (size_t)t[k].d0 * (size_t)(t[k].d1 ? t[k].d1 : 1) * 4;
        len += (size_t)snprintf(header + len, cap - len, ",\"%s\":{\"dtype\":\"F32\",\"shape\":[%d%s%.0d],\"data_offsets\":[%zu,%zu]}",
                                t[k].name, t[k].d0, t[k].d1 ? "," : "", t[k].d1, off, off + bytes);
        off += bytes;
    }
    len += (size_t)sprintf(header + len, "}");
    while (len % 8) header[len++] = ' ';
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    f = fopen(path, "wb");
    if (!f) { perror(path); return 1; }
    uint64_t hl = len;
    fwrite(&hl, 8, 1, f); // (little-endian machines)
    fwrite(header, 1, len, f);
    float *buf = malloc(sizeof(float) * (size_t)V * C);
    for (int k = 0; k < n; k++) {
        size_t count = (size_t)t[k].d0 * (size_t)(t[k].d1 ? t[k].d1 : 1);
        int norm_w = strstr(t[k].name, "norm.weight") != NULL;
        float a = t[k].d1 && t[k].d0 > 1 ? sqrtf(6.0f / (float)(t[k].d0 + t[k].d1)) : 0.1f;
        for (size_t i = 0; i < count; i++) buf[i] = (norm_w ? 1.0f : 0.0f) + a * uniform();
        fwrite(buf, sizeof(float), count, f);
    }
    free(buf);
    free(header);
    free(t);
    if (fclose(f)) { perror(path); return 1; }
    return 0;
}

// ---------------------------------------------------------------- the measures
int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--make")) return make(argv[2]);
    if (argc != 2) { fprintf(stderr, "usage: bench_marian [--make] DIR\n"); return 2; }
    const char *dir = argv[1], *seed = "I really enjoy learning transformers";
    const char *ten = "The teacher shows the students how every layer reads its input";
    tf_model m;
    tf_err e;
    double tl[5];
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        if (tf_model_load(&m, dir, &e)) { fprintf(stderr, "bench_marian: %s/%s\n", dir, e.msg); return 1; }
        tl[r] = now() - t0;
        if (r < 4) tf_model_free(&m);
    }
    double bw = memory_bandwidth(1), floor_s = (double)m.n_params * sizeof(float) / bw;
    printf("MarianMT of opus-mt-en-ar's shapes (random weights): d_model %d, %d heads, %d+%d layers, d_ff %d, %d pieces, %zu parameters; %d threads\n",
           m.cfg.C, m.cfg.H, m.cfg.L_enc, m.cfg.L_dec, m.cfg.F, m.cfg.V_tgt, m.n_params, omp_get_max_threads());
    printf("  load (config, vocab.json, both .spm, model.safetensors mapped, q|k|v packed): %7.1f ms  (median of 5; goal <= 1000)\n",
           median(tl, 5) * 1e3);
    double tf[9];
    tf_run r;
    for (int k = -1; k < 9; k++) {
        double t0 = now();
        if (tf_run_sentence(&r, &m, seed, seed, &e)) { fprintf(stderr, "bench_marian: %s\n", e.msg); return 1; }
        if (k >= 0) tf[k] = now() - t0;
        if (k < 8) tf_run_free(&r);
    }
    double fwd = median(tf, 9);
    printf("  traced forward of \"%s\" (%d + %d tokens, %d stages): %.1f ms; reading the weights once: %.1f ms (%.1f GB/s): %.2fx (goal <= 2x)\n",
           seed, r.S, r.T, r.trace.n, fwd * 1e3, floor_s * 1e3, bw / 1e9, fwd / floor_s);
    double tg[5];
    int S = 0;
    for (int k = 0; k < 5; k++) {
        tf_run g;
        double t0 = now();
        if (tf_run_greedy(&g, &m, ten, 11, &e)) { fprintf(stderr, "bench_marian: %s\n", e.msg); return 1; }
        tg[k] = now() - t0;
        S = g.S;
        tf_run_free(&g);
    }
    printf("  greedy translation of a 10-word sentence (%d source tokens), 10 tokens decoded: %.0f ms (median of 5; goal <= 500)\n", S,
           median(tg, 5) * 1e3);
    // the window's frame at 1920 × 1080 on the traced run
    app_world wd = {.m = &m, .r = &r, .model_name = "opus-mt shapes"};
    const bench_frame frames[] = {
        {"out.probs", 0, APP_MODE_TOPK, "top-k of the probabilities over 62,802 pieces"},
        {"out.probs", 0, APP_MODE_AUTO, "heatmap of the probabilities (8 × 62,802)"},
        {"out.logits", 0, APP_MODE_AUTO, "heatmap of the logits (8 × 62,802)"},
        {"dec.5.cross_attn.head.7.weights", 0, APP_MODE_AUTO, "one cross-attention heatmap"},
        {"enc.0.self_attn.head.0.weights", 1, APP_MODE_AUTO, "all 8 heads of an attention layer"},
    };
    for (size_t k = 0; k < sizeof frames / sizeof *frames; k++) {
        double t = frame_median(&frames[k], &wd, seed, seed);
        if (t < 0) return 1;
        printf("  window frame at 1920 × 1080, %-48s %6.1f ms  (median of 15)\n", frames[k].what, t * 1e3);
    }
    tf_run_free(&r);
    tf_model_free(&m);
    return 0;
}
