// test_marian.c — MarianMT checkpoint folders against an independent reference.
//
// tests/ref/make_marian_fixtures.py builds tiny Marian checkpoints (2 + 2 layers,
// d_model 16, 2 heads, SiLU or ReLU, random LayerNorms and final_logits_bias,
// SentencePiece models trained by spm_train) and computes every stage in
// PyTorch, written from transformers' modeling_marian.py; tokens.tsv holds what
// spm_encode and vocab.json make of English, Persian and Arabic sentences.
#include "fixture_cases.h"
#include "../src/render/render.h"

#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOL 1e-4 // |C - reference| <= TOL · max(1, |reference|) at every stage
#define DIR "tests/fixtures/marian"

static void load(tf_model *m, const char *dir) {
    tf_err e;
    if (tf_model_load(m, dir, &e)) fail_msg("%s: %s", dir, e.msg);
}

// marian/trace: every stage of every case, the greedy one included, to 1e-4.
static void trace_matches_reference(void **state) {
    (void)state;
    fixture_case cs[8];
    int n = load_cases(DIR "/cases.txt", cs, 8);
    assert_true(n >= 3); // SiLU with scale_embedding, greedy from >>ara<<, ReLU without scaling
    for (int i = 0; i < n; i++) {
        tf_model m;
        load(&m, cs[i].model);
        compare_trace(&cs[i], DIR, &m, TOL);
        tf_model_free(&m);
    }
}

// marian/config: what config.json says became the model's configuration.
static void config_read(void **state) {
    (void)state;
    tf_model m;
    load(&m, DIR "/tiny");
    const tf_config *c = &m.cfg;
    assert_int_equal(c->C, 16);
    assert_int_equal(c->H, 2);
    assert_int_equal(c->F, 32);
    assert_int_equal(c->L_enc, 2);
    assert_int_equal(c->L_dec, 2);
    assert_true(c->marian && c->pe_split && c->act == TF_ACT_SILU && c->src_append_eos);
    CHECK_CLOSE(c->embed_scale, 4.0, 1e-6);
    // the decoder starts from the pad token, </s> ends it
    assert_int_equal(m.tgt_vocab.bos, m.cfg.V_tgt - 1);
    assert_string_equal(m.tgt_vocab.tok[m.tgt_vocab.bos], "<pad>");
    assert_string_equal(m.tgt_vocab.tok[m.tgt_vocab.eos], "</s>");
    // tied: the output layer is the shared embedding; final_logits_bias is the generator's bias
    assert_ptr_equal(m.gen_w, m.src_embed);
    assert_ptr_equal(m.tgt_embed, m.src_embed);
    assert_non_null(m.gen_b);
    assert_string_equal(m.note, ""); // the stored lm_head.weight equals model.shared.weight
    tf_model_free(&m);
    load(&m, DIR "/relu");
    assert_int_equal(m.cfg.act, TF_ACT_RELU);
    CHECK_CLOSE(m.cfg.embed_scale, 1.0, 0);
    tf_model_free(&m);
}

// marian/tokenizer: pieces and ids as spm_encode + vocab.json give them, a leading >>xx<< whole.
static void tokenizer_matches_spm_encode(void **state) {
    (void)state;
    tf_model m;
    load(&m, DIR "/tiny");
    char *txt = read_file(DIR "/tokens.tsv", NULL);
    assert_non_null(txt);
    int lines = 0, langs = 0;
    for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        char *f[4] = {line, NULL, NULL, NULL};
        for (int k = 1; k < 4; k++) {
            f[k] = strchr(f[k - 1], '\t');
            assert_non_null(f[k]);
            *f[k]++ = 0;
        }
        int side = atoi(f[0]);
        tf_err e;
        char **tok;
        int n = tf_model_tokens(&m, side, f[1], &tok, &e);
        if (n < 0) fail_msg("%s: %s", f[1], e.msg);
        char *want = f[2], *ids = f[3];
        for (int i = 0; i < n; i++) {
            char *sp = strchr(want, ' ');
            size_t l = sp ? (size_t)(sp - want) : strlen(want);
            if (strlen(tok[i]) != l || memcmp(tok[i], want, l)) fail_msg("%s: piece %d is \"%s\", spm_encode \"%.*s\"", f[1], i, tok[i], (int)l, want);
            want = sp ? sp + 1 : want + l;
            char *end;
            long id = strtol(ids, &end, 10);
            int got = tf_model_token_id(&m, side, tok[i]);
            if ((got < 0 ? m.src_vocab.unk : got) != id) fail_msg("%s: piece \"%s\" has id %d, vocab.json %ld", f[1], tok[i], got, id);
            ids = end;
            langs += i == 0 && tok[0][0] == '>';
        }
        if (*want) fail_msg("%s: tviz made %d pieces, spm_encode more (\"%s\" left)", f[1], n, want);
        assert_int_equal(tf_model_needs_lang_token(&m, f[1]), f[1][0] != '>');
        tf_words_free(tok, n);
    }
    assert_true(lines >= 8);
    assert_int_equal(langs, 2); // >>ara<< and >>pes<< each one token
    free(txt);
    tf_model_free(&m);
}

// marian/decode/pad: greedy decoding never picks the pad token, even when it is the largest.
static void never_pad(void **state) {
    (void)state;
    tf_model m;
    load(&m, DIR "/tiny");
    int V = m.cfg.V_tgt, pad = m.tgt_vocab.pad;
    float *row = calloc((size_t)V, sizeof *row);
    assert_non_null(row);
    row[pad] = 100.0f;
    row[7] = 3.0f;
    assert_int_equal(tf_model_next_token(&m, row), 7);
    row[pad] = 0.0f;
    row[3] = 5.0f;
    assert_int_equal(tf_model_next_token(&m, row), 3);
    free(row);
    tf_model_free(&m);
}

// marian/pe/split: sin in the first half, cos of the same angles in the second.
static void pe_split(void **state) {
    (void)state;
    int T = 5, C = 8;
    float pe[40];
    tf_positional_encoding_split(pe, T, C);
    for (int pos = 0; pos < T; pos++)
        for (int j = 0; j < C / 2; j++) {
            double angle = pos / pow(10000.0, 2.0 * j / C);
            CHECK_CLOSE(pe[pos * C + j], sin(angle), 1e-7);
            CHECK_CLOSE(pe[pos * C + C / 2 + j], cos(angle), 1e-7);
        }
}

// marian/join: SentencePiece pieces back into text.
static void join_pieces(void **state) {
    (void)state;
    char *p[] = {"\xe2\x96\x81Hel", "lo", "\xe2\x96\x81world", "."};
    char *s = tf_join_tokens(p, 4);
    assert_string_equal(s, "Hello world.");
    free(s);
}

// marian/arith: the cards of the cells differ from the paper's where the model does:
// PE in two halves, and the model's activation in the feed-forward layer.
static void arithmetic_cards(void **state) {
    (void)state;
    tf_model m;
    tf_run r;
    tf_err e;
    load(&m, DIR "/tiny");
    if (tf_run_sentence(&r, &m, "I enjoy learning.", NULL, &e)) fail_msg("%s", e.msg);
    char lines[64][200];
    int pe = tf_trace_find(&r.trace, "src.pe"), n = render_arith_lines(&r.trace, &m, pe, 3, 10, NULL, lines, 64);
    // C 16: dimension 10 is the cosine of angle 3 / 10000^(4/16) (j = 2 of the second half)
    char want[64];
    snprintf(want, sizeof want, "cos(%.4g", 3 / pow(10000.0, 4.0 / 16));
    int found = 0;
    for (int k = 0; k < n; k++) found |= strstr(lines[k], want) != NULL;
    if (!found) { for (int k = 0; k < n; k++) print_message("  | %s\n", lines[k]); fail_msg("no line with %s", want); }
    int hid = tf_trace_find(&r.trace, "enc.0.ffn.hidden");
    n = render_arith_lines(&r.trace, &m, hid, 1, 5, NULL, lines, 64);
    found = 0;
    for (int k = 0; k < n; k++) found |= !strncmp(lines[k], "SiLU(z) = z · σ(z)", strlen("SiLU(z) = z · σ(z)"));
    for (int k = 0; k < n; k++) if (strstr(lines[k], "max(0") || strstr(lines[k], "ReLU")) fail_msg("a SiLU model's card says: %s", lines[k]);
    if (!found) { for (int k = 0; k < n; k++) print_message("  | %s\n", lines[k]); fail_msg("no SiLU result line"); }
    tf_run_free(&r);
    tf_model_free(&m);
}

// A copy of the tiny checkpoint in the test's folder, its model.safetensors
// passed through edit (the file's bytes, its header parsed) first.
static const char *copy_tiny(const char *name, void (*edit)(char **data, size_t *n, const cJSON *h)) {
    static const char *const files[] = {"config.json", "vocab.json", "source.spm", "target.spm", "model.safetensors"};
    static char dir[256];
    char path[512];
    snprintf(dir, sizeof dir, "%s/%s", test_tmpdir(), name);
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int k = 0; k < 5; k++) {
        size_t n = 0;
        snprintf(path, sizeof path, DIR "/tiny/%s", files[k]);
        char *data = read_file(path, &n);
        assert_non_null(data);
        if (k == 4) {
            uint64_t hl;
            memcpy(&hl, data, 8);
            cJSON *h = cJSON_ParseWithLength(data + 8, (size_t)hl);
            assert_non_null(h);
            edit(&data, &n, h);
            cJSON_Delete(h);
        }
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        write_file(path, data, n);
        free(data);
    }
    return dir;
}

static void remove_copy(const char *dir) {
    static const char *const files[] = {"config.json", "vocab.json", "source.spm", "target.spm", "model.safetensors"};
    char path[512];
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        remove(path);
    }
    rmdir(dir);
}

static void change_lm_head(char **data, size_t *n, const cJSON *h) {
    (void)n;
    uint64_t hl;
    memcpy(&hl, *data, 8);
    const cJSON *off = cJSON_GetObjectItem(cJSON_GetObjectItem(h, "lm_head.weight"), "data_offsets");
    assert_non_null(off);
    float *w = (float *)(void *)(*data + 8 + hl + (size_t)cJSON_GetArrayItem(off, 0)->valuedouble);
    *w += 0.5f;
}

// marian/lm-head: a stored lm_head.weight that is not the shared embedding is
// reported (tf_model.note) and not used: the output stays tied, as MarianMT ties it.
static void lm_head_that_differs(void **state) {
    (void)state;
    const char *dir = copy_tiny("lm-head", change_lm_head);
    tf_model m;
    load(&m, dir);
    assert_non_null(strstr(m.note, "lm_head.weight differs from model.shared.weight"));
    assert_ptr_equal(m.gen_w, m.src_embed);
    tf_model_free(&m);
    remove_copy(dir);
}

// Every tensor stored as F16 (IEEE half precision, safetensors "F16"), in the same order.
static void to_f16(char **data, size_t *n, const cJSON *h) {
    uint64_t hl;
    memcpy(&hl, *data, 8);
    cJSON *nh = cJSON_Duplicate(h, 1);
    const char *body = *data + 8 + hl;
    size_t total = 0;
    for (cJSON *t = nh->child; t; t = t->next) {
        if (!strcmp(t->string, "__metadata__")) continue;
        cJSON *off = cJSON_GetObjectItem(t, "data_offsets");
        size_t b = (size_t)cJSON_GetArrayItem(off, 0)->valuedouble, e = (size_t)cJSON_GetArrayItem(off, 1)->valuedouble;
        cJSON_ReplaceItemInObject(t, "dtype", cJSON_CreateString("F16"));
        cJSON_SetNumberValue(cJSON_GetArrayItem(off, 0), (double)(b / 2));
        cJSON_SetNumberValue(cJSON_GetArrayItem(off, 1), (double)(e / 2));
        total += (e - b) / 2;
    }
    char *js = cJSON_PrintUnformatted(nh);
    size_t jl = strlen(js), pad = (jl + 7) / 8 * 8;
    char *out = malloc(8 + pad + total);
    assert_non_null(out);
    uint64_t nl = pad;
    memcpy(out, &nl, 8);
    memset(out + 8, ' ', pad);
    memcpy(out + 8, js, jl);
    for (size_t i = 0; i < total / 2; i++) { // (the tensors are contiguous from offset 0)
        float f;
        memcpy(&f, body + 4 * i, 4);
        uint16_t x = tf_f32_to_f16(f);
        memcpy(out + 8 + pad + 2 * i, &x, 2);
    }
    free(js);
    cJSON_Delete(nh);
    free(*data);
    *data = out;
    *n = 8 + pad + total;
}

// marian/f16: a checkpoint saved in half precision reads as its weights rounded to F16.
static void f16_checkpoint(void **state) {
    (void)state;
    const char *dir = copy_tiny("f16", to_f16);
    tf_model a, b;
    load(&a, DIR "/tiny");
    load(&b, dir);
    assert_int_equal(b.n_params, a.n_params);
    assert_int_equal(a.n_f16, 0);
    assert_true(b.n_f16 > 60); // every tensor tviz reads
    size_t VC = (size_t)a.cfg.V_tgt * a.cfg.C, CC = (size_t)a.cfg.C * a.cfg.C;
    for (size_t i = 0; i < VC; i++) assert_true(b.src_embed[i] == tf_f16_to_f32(tf_f32_to_f16(a.src_embed[i])));
    for (size_t i = 0; i < 3 * CC; i++) // W_Q | W_K | W_V of the decoder's last cross-attention
        assert_true(b.dec[1].cross_attn.in_w[i] == tf_f16_to_f32(tf_f32_to_f16(a.dec[1].cross_attn.in_w[i])));
    tf_run r;
    tf_err e;
    if (tf_run_sentence(&r, &b, "I enjoy learning.", NULL, &e)) fail_msg("%s", e.msg);
    tf_run_free(&r);
    tf_model_free(&a);
    tf_model_free(&b);
    remove_copy(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_matches_reference),
        cmocka_unit_test(config_read),
        cmocka_unit_test(tokenizer_matches_spm_encode),
        cmocka_unit_test(never_pad),
        cmocka_unit_test(pe_split),
        cmocka_unit_test(join_pieces),
        cmocka_unit_test(arithmetic_cards),
        cmocka_unit_test(lm_head_that_differs),
        cmocka_unit_test(f16_checkpoint),
    };
    return cmocka_run_group_tests_name("marian", tests, NULL, NULL);
}
