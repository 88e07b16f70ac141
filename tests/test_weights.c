// test_weights.c — model files: a save/load round trip, and every way a file
// can be broken, each with the exact complaint it must get.
#include "testutil.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sys/stat.h>

static const char *vocab_src = "<unk>\n<eos>\nthe\ncat\nsleeps";
static const char *vocab_tgt = "<unk>\n<bos>\n<eos>\nle\nchat\ndort";

static void small_config(tf_config *c) {
    memset(c, 0, sizeof *c);
    c->C = 8; c->H = 2; c->F = 16; c->L_enc = 2; c->L_dec = 1;
    c->eps = 1e-5f; c->embed_scale_is_sqrt = 1;
    c->has_enc_norm = 1; c->has_generator = 1; c->has_generator_bias = 1;
    c->src_append_eos = 1; c->max_len = 12; c->max_len_set = 1;
}

static void path_in_tmp(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", test_tmpdir(), name); }

// The one valid file the broken ones are made from.
static const char *valid_file(void) {
    static char path[256];
    if (!path[0]) {
        tf_config c;
        small_config(&c);
        tf_model m;
        tf_err e;
        assert_int_equal(tf_model_init(&m, &c, vocab_src, vocab_tgt, 3, &e), 0);
        path_in_tmp(path, sizeof path, "valid.safetensors");
        if (tf_model_save(&m, path, &e)) fail_msg("%s", e.msg);
        tf_model_free(&m);
    }
    return path;
}

static void round_trip(void **state) {
    (void)state;
    tf_config c;
    small_config(&c);
    tf_model a, b;
    tf_err e;
    assert_int_equal(tf_model_init(&a, &c, vocab_src, vocab_tgt, 3, &e), 0);
    char path[256];
    path_in_tmp(path, sizeof path, "roundtrip.safetensors");
    assert_int_equal(tf_model_save(&a, path, &e), 0);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_int_equal(access(tmp, F_OK), -1); // renamed into place, nothing left behind
    if (tf_model_load(&b, path, &e)) fail_msg("%s", e.msg);
    assert_int_equal(b.cfg.C, 8);
    assert_int_equal(b.cfg.H, 2);
    assert_int_equal(b.cfg.L_enc, 2);
    assert_int_equal(b.cfg.L_dec, 1);
    assert_int_equal(b.cfg.max_len, 12);
    assert_int_equal(b.cfg.src_append_eos, 1);
    assert_true(b.cfg.embed_scale_is_sqrt);
    CHECK_CLOSE(b.cfg.embed_scale, sqrt(8.0), 1e-6);
    assert_true(b.cfg.has_enc_norm && !b.cfg.has_dec_norm && b.cfg.has_tgt_embed && b.cfg.has_generator);
    assert_string_equal(b.tgt_vocab.tok[5], "dort");
    int na = tf_model_tensors(&a, NULL), nb = tf_model_tensors(&b, NULL);
    assert_int_equal(na, nb);
    tf_tensor_info ta[64], tb[64];
    assert_true(na <= 64);
    tf_model_tensors(&a, ta);
    tf_model_tensors(&b, tb);
    size_t total = 0;
    for (int i = 0; i < na; i++) {
        assert_string_equal(ta[i].name, tb[i].name);
        size_t n = (size_t)ta[i].shape[0] * (ta[i].rank == 2 ? (size_t)ta[i].shape[1] : 1);
        assert_memory_equal(ta[i].data, tb[i].data, n * sizeof(float));
        total += n;
    }
    assert_int_equal(total, a.n_params);
    assert_int_equal(a.n_params, b.n_params);
    // Xavier bound for in_proj_weight [24, 8]: √(6/32)
    float bound = sqrtf(6.0f / 32.0f), mx = 0;
    for (int i = 0; i < 24 * 8; i++) mx = fmaxf(mx, fabsf(a.enc[0].self_attn.in_w[i]));
    assert_true(mx <= bound && mx > 0.8f * bound);
    CHECK_CLOSE(a.enc[0].n1w[0], 1.0, 0);
    CHECK_CLOSE(a.enc[0].n1b[0], 0.0, 0);
    tf_model_free(&a);
    tf_model_free(&b);
    // the same seed gives the same weights, another seed others
    tf_model s1, s2;
    assert_int_equal(tf_model_init(&s1, &c, vocab_src, vocab_tgt, 3, &e), 0);
    assert_int_equal(tf_model_init(&s2, &c, vocab_src, vocab_tgt, 4, &e), 0);
    assert_true(memcmp(s1.src_embed, s2.src_embed, sizeof(float) * 8) != 0);
    tf_model_free(&s2);
    assert_int_equal(tf_model_init(&s2, &c, vocab_src, vocab_tgt, 3, &e), 0);
    assert_memory_equal(s1.owned, s2.owned, sizeof(float) * s1.n_params);
    tf_model_free(&s1);
    tf_model_free(&s2);
}

// Saving into a missing folder fails cleanly and leaves no file.
static void save_fails_cleanly(void **state) {
    (void)state;
    tf_config c;
    small_config(&c);
    tf_model m;
    tf_err e;
    assert_int_equal(tf_model_init(&m, &c, vocab_src, vocab_tgt, 3, &e), 0);
    assert_int_equal(tf_model_save(&m, "/nonexistent-dir/m.safetensors", &e), -1);
    assert_non_null(strstr(e.msg, "cannot write"));
    tf_model_free(&m);
}

// ---------------------------------------------------------------- broken files
typedef struct {
    char *bytes; size_t n;     // the whole file
    cJSON *header;             // parsed header
    size_t data_at;            // where the data starts
} sfile;

static void sfile_read(sfile *f) {
    f->bytes = read_file(valid_file(), &f->n);
    assert_non_null(f->bytes);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = (hl << 8) | (unsigned char)f->bytes[i];
    f->data_at = 8 + hl;
    f->header = cJSON_ParseWithLength(f->bytes + 8, hl);
    assert_non_null(f->header);
}

// Writes header + the original data to name; returns the path.
static const char *sfile_write(sfile *f, const char *name) {
    static char path[256];
    path_in_tmp(path, sizeof path, name);
    char *h = cJSON_PrintUnformatted(f->header);
    size_t hl = strlen(h), n = 8 + hl + (f->n - f->data_at);
    char *out = malloc(n);
    for (int i = 0; i < 8; i++) out[i] = (char)((uint64_t)hl >> (8 * i));
    memcpy(out + 8, h, hl);
    memcpy(out + 8 + hl, f->bytes + f->data_at, f->n - f->data_at);
    write_file(path, out, n);
    free(out);
    free(h);
    return path;
}

static void sfile_free(sfile *f) {
    cJSON_Delete(f->header);
    free(f->bytes);
}

static void expect_error(const char *path, const char *phrase) {
    tf_model m;
    tf_err e = {{0}};
    if (tf_model_load(&m, path, &e) == 0) { tf_model_free(&m); fail_msg("%s loaded; expected an error about \"%s\"", path, phrase); }
    if (!strstr(e.msg, phrase)) fail_msg("%s: error \"%s\" does not say \"%s\"", path, e.msg, phrase);
    assert_null(strchr(e.msg, '\n')); // one line
}

static void set_meta(sfile *f, const char *key, const char *value) {
    cJSON *meta = cJSON_GetObjectItem(f->header, "__metadata__");
    cJSON_DeleteItemFromObject(meta, key);
    if (value) cJSON_AddStringToObject(meta, key, value);
}

static void broken_bytes(void **state) {
    (void)state;
    char path[256];
    path_in_tmp(path, sizeof path, "empty.safetensors");
    write_file(path, "", 0);
    expect_error(path, "too few");
    expect_error("/nonexistent/model.safetensors", "cannot open");
    expect_error(test_tmpdir(), "config.json: missing, so this folder is not a MarianMT checkpoint"); // a folder: read as a Marian checkpoint
    sfile f;
    sfile_read(&f);
    // header length larger than the file
    path_in_tmp(path, sizeof path, "liar.safetensors");
    char *liar = malloc(f.n);
    memcpy(liar, f.bytes, f.n);
    liar[3] = 0x7f;
    write_file(path, liar, f.n);
    expect_error(path, "larger than the file");
    // truncated data
    path_in_tmp(path, sizeof path, "truncated.safetensors");
    write_file(path, f.bytes, f.n - 100);
    expect_error(path, "truncated");
    // a header that is not JSON
    memcpy(liar, f.bytes, f.n);
    liar[8] = '[';
    liar[9] = '}';
    path_in_tmp(path, sizeof path, "notjson.safetensors");
    write_file(path, liar, f.n);
    expect_error(path, "not a JSON object");
    // NaN and infinity in the weights
    float nan = NAN, inf = INFINITY;
    memcpy(liar, f.bytes, f.n);
    memcpy(liar + f.data_at + 4 * 5, &nan, 4);
    path_in_tmp(path, sizeof path, "nan.safetensors");
    write_file(path, liar, f.n);
    expect_error(path, "NaN at index 5");
    memcpy(liar, f.bytes, f.n);
    memcpy(liar + f.n - 4, &inf, 4);
    write_file(path, liar, f.n);
    expect_error(path, "infinity");
    free(liar);
    sfile_free(&f);
}

typedef struct { const char *file, *phrase; void (*mutate)(sfile *); } breakage;

static void m_dtype(sfile *f) { cJSON_ReplaceItemInObject(cJSON_GetObjectItem(f->header, "src_embed.weight"), "dtype", cJSON_CreateString("BF16")); }
static void m_f16_bytes(sfile *f) { cJSON_ReplaceItemInObject(cJSON_GetObjectItem(f->header, "src_embed.weight"), "dtype", cJSON_CreateString("F16")); }
static void m_step(sfile *f) { set_meta(f, "train_step", "-5"); }
static void m_exact(sfile *f) { set_meta(f, "heldout_exact", "1.5"); }
static void m_loss_curve(sfile *f) { set_meta(f, "loss_every", "10"); set_meta(f, "loss_curve", "5.1 4.2 x 3.9"); }
static void m_loss_every(sfile *f) { set_meta(f, "loss_curve", "5.1 4.2"); set_meta(f, "loss_every", "0"); }
static void m_heldout_curve(sfile *f) { set_meta(f, "heldout_curve", "100:0.5 200:1.5"); }
static void m_align_part(sfile *f) { set_meta(f, "align_layer", "0"); set_meta(f, "align_rate", "0.5"); }
static void m_align_range(sfile *f) { set_meta(f, "align_layer", "0"); set_meta(f, "align_head", "9"); set_meta(f, "align_rate", "0.5"); }
static void m_shape(sfile *f) {
    cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "encoder.layers.0.linear1.weight"), "shape");
    cJSON_ReplaceItemInArray(s, 0, cJSON_CreateNumber(8));
    cJSON_ReplaceItemInArray(s, 1, cJSON_CreateNumber(16)); // transposed: same bytes, wrong shape
}
static void m_missing(sfile *f) { cJSON_DeleteItemFromObject(f->header, "decoder.layers.0.norm3.bias"); }
static void m_offsets_out(sfile *f) {
    cJSON *o = cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "generator.bias"), "data_offsets");
    cJSON_ReplaceItemInArray(o, 0, cJSON_CreateNumber(1e7));
    cJSON_ReplaceItemInArray(o, 1, cJSON_CreateNumber(1e7 + 24));
}
static void m_overlap(sfile *f) {
    const cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "encoder.layers.0.norm1.weight"), "data_offsets");
    cJSON *b = cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "encoder.layers.0.norm1.bias"), "data_offsets");
    cJSON_ReplaceItemInArray(b, 0, cJSON_CreateNumber(cJSON_GetArrayItem(a, 0)->valuedouble + 4));
    cJSON_ReplaceItemInArray(b, 1, cJSON_CreateNumber(cJSON_GetArrayItem(a, 1)->valuedouble + 4));
}
static void m_byte_count(sfile *f) {
    cJSON *o = cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "generator.bias"), "data_offsets");
    cJSON_ReplaceItemInArray(o, 1, cJSON_CreateNumber(cJSON_GetArrayItem(o, 1)->valuedouble - 4));
}
static void m_no_meta(sfile *f) { cJSON_DeleteItemFromObject(f->header, "__metadata__"); }
static void m_no_dmodel(sfile *f) { set_meta(f, "d_model", NULL); }
static void m_bad_dmodel(sfile *f) { set_meta(f, "d_model", "eight"); }
static void m_heads(sfile *f) { set_meta(f, "nhead", "3"); }
static void m_layers(sfile *f) { set_meta(f, "num_encoder_layers", "0"); }
static void m_no_unk(sfile *f) { set_meta(f, "src_vocab", "<eos>\nthe\ncat\nsleeps\nzzz"); }
static void m_no_bos(sfile *f) { set_meta(f, "tgt_vocab", "<unk>\nzz\n<eos>\nle\nchat\ndort"); }
static void m_no_eos(sfile *f) { set_meta(f, "src_vocab", "<unk>\nxx\nthe\ncat\nsleeps"); }
static void m_vocab_size(sfile *f) { set_meta(f, "tgt_vocab", "<unk>\n<bos>\n<eos>\nle\nchat"); }
static void m_scale(sfile *f) { set_meta(f, "embed_scale", "big"); }
static void m_eps(sfile *f) { set_meta(f, "layer_norm_eps", "-1"); }
static void m_meta_number(sfile *f) { cJSON_ReplaceItemInObject(cJSON_GetObjectItem(f->header, "__metadata__"), "nhead", cJSON_CreateNumber(2)); }
static void m_rank(sfile *f) { cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "generator.bias"), "shape"), cJSON_CreateNumber(1)); cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetObjectItem(f->header, "generator.bias"), "shape"), cJSON_CreateNumber(1)); }
static void m_shared_mismatch(sfile *f) { cJSON_DeleteItemFromObject(f->header, "tgt_embed.weight"); set_meta(f, "tgt_vocab", "<unk>\n<bos>\n<eos>\nle"); }

static void broken_headers(void **state) {
    (void)state;
    const breakage cases[] = {
        {"dtype", "is BF16; tviz reads F32 and F16", m_dtype},
        {"f16bytes", "its shape needs", m_f16_bytes},
        {"trainstep", "\"train_step\" is -5", m_step},
        {"heldout", "a fraction from 0 to 1", m_exact},
        {"losscurve", "\"loss_curve\": item 3 is not a number of 0 or more", m_loss_curve},
        {"lossevery", "\"loss_every\" is 0", m_loss_every},
        {"heldoutcurve", "\"heldout_curve\": item 2 is not step:fraction", m_heldout_curve},
        {"alignpart", "names an aligning head only in part", m_align_part},
        {"alignrange", "\"align_head\" 9: the decoder has", m_align_range},
        {"shape", "has shape [8, 16] but the config", m_shape},
        {"missing", "\"decoder.layers.0.norm3.bias\" is missing", m_missing},
        {"offsets", "truncated", m_offsets_out},
        {"overlap", "overlap", m_overlap},
        {"bytecount", "its shape needs", m_byte_count},
        {"nometa", "no __metadata__", m_no_meta},
        {"nodmodel", "no \"d_model\"", m_no_dmodel},
        {"baddmodel", "not a whole number", m_bad_dmodel},
        {"heads", "not divisible by nhead 3", m_heads},
        {"layers", "num_encoder_layers 0", m_layers},
        {"nounk", "no <unk>", m_no_unk},
        {"nobos", "no <bos>", m_no_bos},
        {"noeos", "src_append_eos is 1", m_no_eos},
        {"vocabsize", "tensor \"tgt_embed.weight\" has shape [6, 8]", m_vocab_size},
        {"scale", "embed_scale", m_scale},
        {"eps", "layer_norm_eps", m_eps},
        {"metanumber", "not a string", m_meta_number},
        {"rank", "3 dimensions", m_rank},
        {"shared", "no tgt_embed.weight", m_shared_mismatch},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        sfile f;
        sfile_read(&f);
        cases[i].mutate(&f);
        char name[64];
        snprintf(name, sizeof name, "%s.safetensors", cases[i].file);
        expect_error(sfile_write(&f, name), cases[i].phrase);
        sfile_free(&f);
    }
    // and the untouched header, rewritten the same way, still loads
    sfile f;
    sfile_read(&f);
    tf_model m;
    tf_err e;
    if (tf_model_load(&m, sfile_write(&f, "rewritten.safetensors"), &e)) fail_msg("%s", e.msg);
    tf_model_free(&m);
    sfile_free(&f);
}

// Half precision: every one of the 65,536 bit patterns widens and narrows
// back to itself, rounding is to nearest even, and a model saved as F16 loads
// within half a unit in the last place of every weight, its training record kept.
static void half_precision(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = tf_f16_to_f32((uint16_t)h);
        if (isnan(f)) { assert_true((h & 0x7c00) == 0x7c00 && (h & 0x3ff)); continue; }
        assert_int_equal(tf_f32_to_f16(f), h);
    }
    const struct { float f; uint16_t h; } known[] = {
        {1.0f, 0x3c00}, {-2.0f, 0xc000}, {65504.0f, 0x7bff}, {65520.0f, 0x7c00}, {0.1f, 0x2e66},
        {5.9604645e-8f, 0x0001}, {2.9802322e-8f, 0x0000}, {1.0009765625f, 0x3c01},
        {1.00048828125f, 0x3c00}, // halfway between 0x3c00 and 0x3c01: to the even one
        {1.00146484375f, 0x3c02}, // halfway between 0x3c01 and 0x3c02: to the even one
        {INFINITY, 0x7c00}, {-0.0f, 0x8000}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) assert_int_equal(tf_f32_to_f16(known[i].f), known[i].h);
    tf_rng r;
    tf_rng_seed(&r, 7);
    for (int i = 0; i < 100000; i++) { // nearest: no other half is closer (below 2^15: no overflow)
        float f = (float)((tf_rng_uniform(&r) - 0.5) * pow(2.0, (double)(i % 36) - 20.0));
        uint16_t h = tf_f32_to_f16(f);
        double d = fabs((double)tf_f16_to_f32(h) - f);
        for (int k = -1; k <= 1; k += 2) {
            uint16_t o = (uint16_t)(h + k);
            if ((o & 0x7c00) == 0x7c00 || (o ^ h) & 0x8000) continue;
            assert_true(d <= fabs((double)tf_f16_to_f32(o) - f));
        }
    }
    tf_config c;
    small_config(&c);
    tf_model m, back;
    tf_err e;
    assert_int_equal(tf_model_init(&m, &c, vocab_src, vocab_tgt, 3, &e), 0);
    assert_int_equal(m.train_step, -1);
    m.train_step = 250; m.step_loss = 2.5f; m.heldout_exact = 0.75f;
    const float loss[3] = {9.5f, 4.25f, 2.5f}, acc[2] = {0.125f, 0.75f};
    const int acc_at[2] = {100, 250};
    assert_int_equal(tf_model_set_curves(&m, loss, 3, 100, acc_at, acc, 2, &e), 0);
    assert_int_equal(m.align_layer, -1);
    m.align_layer = c.L_dec - 1; m.align_head = 1; m.align_rate = 0.875f;
    char path[256];
    path_in_tmp(path, sizeof path, "half.safetensors");
    assert_int_equal(tf_model_save_f16(&m, path, &e), 0);
    if (tf_model_load(&back, path, &e)) fail_msg("%s", e.msg);
    assert_int_equal(back.n_params, m.n_params);
    assert_true(back.n_f16 > 0);
    assert_int_equal(back.train_step, 250);
    assert_true(back.step_loss == 2.5f && back.heldout_exact == 0.75f);
    assert_int_equal(back.n_loss_curve, 3);
    assert_int_equal(back.loss_every, 100);
    assert_true(back.loss_curve[0] == 9.5f && back.loss_curve[1] == 4.25f && back.loss_curve[2] == 2.5f);
    assert_true(back.align_layer == c.L_dec - 1 && back.align_head == 1 && back.align_rate == 0.875f);
    assert_int_equal(back.n_heldout_curve, 2);
    assert_true(back.heldout_steps[0] == 100 && back.heldout_steps[1] == 250);
    assert_true(back.heldout_curve[0] == 0.125f && back.heldout_curve[1] == 0.75f);
    assert_true(fabs((double)back.src_embed[5] - m.src_embed[5]) <= fabs((double)m.src_embed[5]) / 2048 + 1e-7);
    for (int i = 0; i < c.C * c.F; i++) {
        float w = m.enc[1].w1[i], v = back.enc[1].w1[i];
        assert_true(fabs((double)v - w) <= fabs((double)w) / 2048 + 3e-8);
    }
    char path32[256]; // two bytes a weight instead of four (the headers differ by a few offset digits)
    path_in_tmp(path32, sizeof path32, "full.safetensors");
    assert_int_equal(tf_model_save(&m, path32, &e), 0);
    struct stat st32, st16;
    assert_int_equal(stat(path32, &st32), 0);
    assert_int_equal(stat(path, &st16), 0);
    long saved = (long)(st32.st_size - st16.st_size) - 2 * (long)m.n_params;
    assert_true(saved > -64 && saved < 64);
    tf_model_free(&back);
    tf_model_free(&m);
}

// Extra tensors are listed but do not stop a model from loading; an
// unaligned data section (header length not a multiple of 4) still loads,
// through a copy.
static void extra_and_unaligned(void **state) {
    (void)state;
    sfile f;
    sfile_read(&f);
    cJSON *extra = cJSON_CreateObject();
    cJSON_AddStringToObject(extra, "dtype", "F32");
    int shape[1] = {0};
    cJSON_AddItemToObject(extra, "shape", cJSON_CreateIntArray(shape, 1));
    double end = (double)(f.n - f.data_at), off[2] = {end, end};
    cJSON_AddItemToObject(extra, "data_offsets", cJSON_CreateDoubleArray(off, 2));
    cJSON_AddItemToObject(f.header, "pos_scale", extra);
    // pad the header so that the data starts at an odd byte
    char note[8] = "";
    for (int i = 0; i < 4; i++) {
        set_meta(&f, "note", note);
        char *h = cJSON_PrintUnformatted(f.header);
        size_t hl = strlen(h);
        free(h);
        if ((8 + hl) % 4 == 1) break;
        note[i] = 'x';
    }
    const char *p = sfile_write(&f, "unaligned.safetensors");
    tf_model m, ref;
    tf_err e;
    if (tf_model_load(&m, p, &e)) fail_msg("%s", e.msg);
    assert_non_null(m.owned); // the unaligned tensors were copied
    assert_int_equal(m.n_extra, 1);
    assert_string_equal(m.extra_names[0], "pos_scale");
    assert_int_equal(tf_model_load(&ref, valid_file(), &e), 0);
    assert_null(ref.owned); // the aligned file is used in place
    assert_memory_equal(m.src_embed, ref.src_embed, sizeof(float) * (size_t)m.cfg.V_src * m.cfg.C);
    assert_memory_equal(m.dec[0].n3b, ref.dec[0].n3b, sizeof(float) * (size_t)m.cfg.C);
    assert_memory_equal(m.gen_b, ref.gen_b, sizeof(float) * (size_t)m.cfg.V_tgt);
    tf_model_free(&m);
    tf_model_free(&ref);
    sfile_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(save_fails_cleanly),
        cmocka_unit_test(broken_bytes),
        cmocka_unit_test(broken_headers),
        cmocka_unit_test(extra_and_unaligned),
        cmocka_unit_test(half_precision),
    };
    return cmocka_run_group_tests_name("weights", tests, NULL, NULL);
}
