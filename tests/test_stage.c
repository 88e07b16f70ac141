// test_stage.c — a stage's identity (stage.c) against the documented ids.
// The ids of DESIGN.md are the reference: this test takes them apart with
// its own small parser and checks every field, every "computed from" link
// (and that the values agree: an add is its two inputs summed), and the
// block of Figure 1, on three models: with final norms (2+2 layers, 4
// heads), without them (3 heads), and the worked example.
#include "testutil.h"

#include <math.h>

typedef struct {
    tf_side side;
    int layer, head, index;
    tf_sublayer sub;
    tf_op op;
    char prefix[64]; // "enc.1.self_attn." for an attention stage, "enc.1." in a layer, "" else
} parsed;

static tf_op op_named(const char *n, int head) {
    static const struct { const char *n; tf_op op; } t[] = {
        {"embed", TF_OP_EMBED}, {"pe", TF_OP_PE}, {"input", TF_OP_INPUT}, {"q", TF_OP_Q}, {"k", TF_OP_K}, {"v", TF_OP_V},
        {"scores", TF_OP_SCORES}, {"scaled", TF_OP_SCALED}, {"masked", TF_OP_MASKED}, {"weights", TF_OP_WEIGHTS},
        {"concat", TF_OP_CONCAT}, {"logits", TF_OP_LOGITS}, {"probs", TF_OP_PROBS}, {"hidden", TF_OP_FFN_HIDDEN},
    };
    if (!strcmp(n, "out")) return head ? TF_OP_HEAD_OUT : TF_OP_OUT;
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) if (!strcmp(n, t[i].n)) return t[i].op;
    fail_msg("unknown operation %s", n);
    return TF_OP_COUNT;
}

// The reference: DESIGN.md's id grammar.
static parsed parse(const char *id) {
    parsed p = {.layer = -1, .head = -1, .sub = TF_SUB_NONE};
    char side[8] = "", rest[64] = "", kind[16] = "", last[16] = "";
    int l, h, n;
    if (sscanf(id, "%7[a-z].%63s", side, rest) != 2) fail_msg("%s: not side.rest", id);
    if (!strcmp(side, "src") || !strcmp(side, "tgt") || !strcmp(side, "out")) {
        p.side = side[0] == 's' ? TF_SIDE_SRC : side[0] == 't' ? TF_SIDE_TGT : TF_SIDE_OUT;
        p.op = op_named(rest, 0);
        return p;
    }
    p.side = !strcmp(side, "enc") ? TF_SIDE_ENC : TF_SIDE_DEC;
    if (!strcmp(rest, "norm")) {
        p.sub = TF_SUB_FINAL_NORM;
        p.op = TF_OP_NORM;
        return p;
    }
    if (sscanf(rest, "%d.%63s", &l, rest) != 2) fail_msg("%s: no layer", id);
    p.layer = l;
    snprintf(p.prefix, sizeof p.prefix, "%s.%d.", side, l);
    if (sscanf(rest, "add%d%n", &n, &h) == 1 && !rest[h]) { p.sub = TF_SUB_ADD_NORM; p.op = TF_OP_ADD; p.index = n; return p; }
    if (sscanf(rest, "norm%d%n", &n, &h) == 1 && !rest[h]) { p.sub = TF_SUB_ADD_NORM; p.op = TF_OP_NORM; p.index = n; return p; }
    if (!strncmp(rest, "ffn.", 4)) { p.sub = TF_SUB_FFN; p.op = !strcmp(rest + 4, "hidden") ? TF_OP_FFN_HIDDEN : TF_OP_FFN_OUT; return p; }
    if (sscanf(rest, "%15[a-z_].head.%d.%15s", kind, &h, last) == 3) p.head = h;
    else if (sscanf(rest, "%15[a-z_].%15s", kind, last) != 2) fail_msg("%s: unreadable", id);
    p.sub = !strcmp(kind, "self_attn") ? TF_SUB_SELF_ATTN : !strcmp(kind, "cross_attn") ? TF_SUB_CROSS_ATTN : TF_SUB_NONE;
    if (p.sub == TF_SUB_NONE) fail_msg("%s: unknown sublayer %s", id, kind);
    snprintf(p.prefix, sizeof p.prefix, "%s.%d.%s.", side, l, kind);
    p.op = op_named(last, p.head >= 0);
    return p;
}

// ---------------------------------------------------------------- what each stage is computed from, by the ids
static int has(const tf_trace *t, const char *id) { return tf_trace_find(t, id) >= 0; }

static int layers(const tf_trace *t, const char *side) {
    char id[32];
    int n = 0;
    for (;; n++) {
        snprintf(id, sizeof id, "%s.%d.add1", side, n);
        if (!has(t, id)) return n;
    }
}

static void layer_out(const tf_trace *t, const char *side, int l, char *out) {
    (void)t;
    sprintf(out, "%s.%d.%s", side, l, side[0] == 'e' ? "norm2" : "norm3");
}

static void stack_out(const tf_trace *t, const char *side, char *out) {
    sprintf(out, "%s.norm", side);
    if (!has(t, out)) layer_out(t, side, layers(t, side) - 1, out);
}

static void layer_in(const tf_trace *t, const char *side, int l, char *out) {
    if (l == 0) sprintf(out, "%s.input", side[0] == 'e' ? "src" : "tgt");
    else layer_out(t, side, l - 1, out);
}

// Fills want[] with the ids stage s is computed from, in formula order.
static int expected_inputs(const tf_trace *t, const tf_stage *s, char want[][80]) {
    parsed p = parse(s->id);
    const char *side = p.side == TF_SIDE_ENC ? "enc" : "dec";
    int enc = p.side == TF_SIDE_ENC, n = 0;
    switch (p.op) {
    case TF_OP_EMBED: case TF_OP_PE: return 0;
    case TF_OP_INPUT:
        sprintf(want[n++], "%s.embed", p.side == TF_SIDE_SRC ? "src" : "tgt");
        sprintf(want[n++], "%s.pe", p.side == TF_SIDE_SRC ? "src" : "tgt");
        return n;
    case TF_OP_Q: case TF_OP_K: case TF_OP_V:
        if (p.sub == TF_SUB_SELF_ATTN) layer_in(t, side, p.layer, want[n++]);
        else if (p.op == TF_OP_Q) sprintf(want[n++], "dec.%d.norm1", p.layer);
        else stack_out(t, "enc", want[n++]);
        return n;
    case TF_OP_SCORES: sprintf(want[0], "%sq", p.prefix); sprintf(want[1], "%sk", p.prefix); return 2;
    case TF_OP_SCALED: sprintf(want[0], "%shead.%d.scores", p.prefix, p.head); return 1;
    case TF_OP_MASKED: sprintf(want[0], "%shead.%d.scaled", p.prefix, p.head); return 1;
    case TF_OP_WEIGHTS: sprintf(want[0], "%shead.%d.masked", p.prefix, p.head); return 1;
    case TF_OP_HEAD_OUT: sprintf(want[0], "%shead.%d.weights", p.prefix, p.head); sprintf(want[1], "%sv", p.prefix); return 2;
    case TF_OP_CONCAT:
        for (int h = 0;; h++) {
            sprintf(want[n], "%shead.%d.out", p.prefix, h);
            if (!has(t, want[n])) return n;
            n++;
        }
    case TF_OP_OUT: sprintf(want[0], "%sconcat", p.prefix); return 1;
    case TF_OP_ADD: {
        static const char *const enc_sub[] = {"", "self_attn.out", "ffn.out"}, *const dec_sub[] = {"", "self_attn.out", "cross_attn.out", "ffn.out"};
        if (p.index == 1) layer_in(t, side, p.layer, want[n++]);
        else sprintf(want[n++], "%snorm%d", p.prefix, p.index - 1);
        sprintf(want[n++], "%s%s", p.prefix, enc ? enc_sub[p.index] : dec_sub[p.index]);
        return n;
    }
    case TF_OP_NORM:
        if (p.sub == TF_SUB_FINAL_NORM) layer_out(t, side, layers(t, side) - 1, want[n++]);
        else sprintf(want[n++], "%sadd%d", p.prefix, p.index);
        return n;
    case TF_OP_FFN_HIDDEN: sprintf(want[0], "%s%s", p.prefix, enc ? "norm1" : "norm2"); return 1;
    case TF_OP_FFN_OUT: sprintf(want[0], "%sffn.hidden", p.prefix); return 1;
    case TF_OP_LOGITS: stack_out(t, "dec", want[0]); return 1;
    case TF_OP_PROBS: sprintf(want[0], "out.logits"); return 1;
    default: return 0;
    }
}

// The block of Figure 1 by the id (the navigator's old string rules).
static tf_block expected_block(const char *id) {
    if (!strcmp(id, "src.embed")) return TF_BLOCK_SRC_EMBED;
    if (!strncmp(id, "src.", 4)) return TF_BLOCK_SRC_PE;
    if (!strcmp(id, "tgt.embed")) return TF_BLOCK_TGT_EMBED;
    if (!strncmp(id, "tgt.", 4)) return TF_BLOCK_TGT_PE;
    if (!strcmp(id, "enc.norm")) return TF_BLOCK_ENC_NORM;
    if (!strcmp(id, "dec.norm")) return TF_BLOCK_DEC_NORM;
    if (!strcmp(id, "out.probs")) return TF_BLOCK_SOFTMAX;
    if (!strncmp(id, "out.", 4)) return TF_BLOCK_LINEAR;
    int dec = !strncmp(id, "dec.", 4);
    const char *r = strchr(id + 4, '.') + 1;
    static const struct { const char *prefix; tf_block enc, dec; } subs[] = {
        {"self_attn", TF_BLOCK_ENC_ATTN, TF_BLOCK_DEC_SELF}, {"cross_attn", TF_BLOCK_NONE, TF_BLOCK_DEC_CROSS},
        {"ffn", TF_BLOCK_ENC_FF, TF_BLOCK_DEC_FF}, {"add1", TF_BLOCK_ENC_AN1, TF_BLOCK_DEC_AN1}, {"norm1", TF_BLOCK_ENC_AN1, TF_BLOCK_DEC_AN1},
        {"add2", TF_BLOCK_ENC_AN2, TF_BLOCK_DEC_AN2}, {"norm2", TF_BLOCK_ENC_AN2, TF_BLOCK_DEC_AN2}, {"add3", TF_BLOCK_NONE, TF_BLOCK_DEC_AN3},
        {"norm3", TF_BLOCK_NONE, TF_BLOCK_DEC_AN3},
    };
    for (size_t k = 0; k < sizeof subs / sizeof *subs; k++)
        if (!strncmp(r, subs[k].prefix, strlen(subs[k].prefix))) return dec ? subs[k].dec : subs[k].enc;
    return TF_BLOCK_NONE;
}

static float at(const tf_stage *s, int r, int c) { return s->data[(size_t)r * s->cols + c]; }

static void check_model(const char *path, const char *src, const char *tgt) {
    tf_model m;
    tf_run r;
    tf_err e;
    if (tf_model_load(&m, path, &e)) fail_msg("%s: %s", path, e.msg);
    if (tf_run_sentence(&r, &m, src, tgt, &e)) fail_msg("%s: %s", path, e.msg);
    const tf_trace *t = &r.trace;
    int checked_sums = 0;
    for (int i = 0; i < t->n; i++) {
        const tf_stage *s = &t->stages[i];
        parsed p = parse(s->id);
        if (s->family != TF_FAMILY_TRANSFORMER || s->side != p.side || s->layer != p.layer || s->sublayer != p.sub || s->op != p.op ||
            s->head != p.head || s->index != p.index || s->step != -1)
            fail_msg("%s: fields %s/%d/%s/%s/%d/%d, the id says %s/%d/%s/%s/%d/%d", s->id, tf_side_name(s->side), s->layer,
                     tf_sublayer_name(s->sublayer), tf_op_name(s->op), s->head, s->index, tf_side_name(p.side), p.layer,
                     tf_sublayer_name(p.sub), tf_op_name(p.op), p.head, p.index);
        assert_int_equal(tf_stage_is_attention_square(s), p.op >= TF_OP_SCORES && p.op <= TF_OP_WEIGHTS);
        if (tf_stage_block(s) != expected_block(s->id)) fail_msg("%s: block %d, want %d", s->id, tf_stage_block(s), expected_block(s->id));
        // computed from
        char want[64][80];
        int in[64], nw = expected_inputs(t, s, want), ng = tf_stage_inputs(t, i, in, 64);
        if (ng != nw) fail_msg("%s: %d inputs, want %d (first wanted: %s)", s->id, ng, nw, nw ? want[0] : "-");
        for (int k = 0; k < nw; k++)
            if (strcmp(t->stages[in[k]].id, want[k])) fail_msg("%s: input %d is %s, want %s", s->id, k, t->stages[in[k]].id, want[k]);
        // and the values agree: sums are sums, scaled scores are scores / √d_k
        if (s->op == TF_OP_ADD || s->op == TF_OP_INPUT) {
            const tf_stage *a = &t->stages[in[0]], *b = &t->stages[in[1]];
            for (int y = 0; y < s->rows; y++)
                for (int x = 0; x < s->cols; x++)
                    if (fabsf(at(s, y, x) - (at(a, y, x) + at(b, y, x))) > 1e-5f * (1 + fabsf(at(s, y, x))))
                        fail_msg("%s[%d][%d] = %g, but %s + %s = %g", s->id, y, x, at(s, y, x), a->id, b->id, at(a, y, x) + at(b, y, x));
            checked_sums++;
        }
        if (s->op == TF_OP_SCALED) {
            const tf_stage *a = &t->stages[in[0]];
            float d = sqrtf((float)m.cfg.D);
            for (int y = 0; y < s->rows; y++)
                for (int x = 0; x < s->cols; x++)
                    if (fabsf(at(s, y, x) - at(a, y, x) / d) > 1e-5f * (1 + fabsf(at(s, y, x)))) fail_msg("%s[%d][%d] is not %s / √d_k", s->id, y, x, a->id);
        }
        // other layer / head / operation
        if (p.layer >= 0) {
            for (int l = -1; l <= p.layer + 1; l++) {
                char id[96];
                snprintf(id, sizeof id, "%s", s->id);
                char *dot = strchr(id, '.');
                char tail[96];
                snprintf(tail, sizeof tail, "%s", strchr(dot + 1, '.'));
                snprintf(dot + 1, sizeof id - (size_t)(dot + 1 - id), "%d%s", l, tail);
                assert_int_equal(tf_stage_other_layer(t, i, l), tf_trace_find(t, id));
            }
        }
        if (p.head >= 0) {
            assert_int_equal(tf_stage_count_heads(t, i), m.cfg.H);
            char id[96];
            snprintf(id, sizeof id, "%shead.%d.scores", p.prefix, p.head);
            assert_int_equal(tf_stage_with_op(t, i, TF_OP_SCORES), tf_trace_find(t, id));
            snprintf(id, sizeof id, "%sv", p.prefix);
            assert_int_equal(tf_stage_with_op(t, i, TF_OP_V), tf_trace_find(t, id));
            char blk[64], all[64];
            tf_stage_block_id(s, 0, blk, sizeof blk);
            tf_stage_block_id(s, 1, all, sizeof all);
            snprintf(id, sizeof id, "%.*s", (int)strlen(p.prefix) - 1, p.prefix);
            assert_string_equal(blk, id);
            assert_string_equal(all, p.side == TF_SIDE_ENC ? (p.sub == TF_SUB_SELF_ATTN ? "enc.self_attn" : "?")
                                                            : (p.sub == TF_SUB_SELF_ATTN ? "dec.self_attn" : "dec.cross_attn"));
        }
        // names relative to this stage, as lessons write them
        if (p.head >= 0) {
            char id[96];
            snprintf(id, sizeof id, "%shead.%d.scores", p.prefix, p.head);
            assert_int_equal(tf_stage_named(t, i, "this:scores"), tf_trace_find(t, id));
        }
        assert_int_equal(tf_stage_named(t, i, "this"), i);
        assert_int_equal(tf_stage_named(t, i, s->id), i);
    }
    assert_true(checked_sums >= 3);
    // Each block's stage: the layer of the stage one is on when on its side, else layer 0.
    for (int i = 0; i < t->n; i++) {
        for (int b = 0; b < TF_BLOCK_COUNT; b++) {
            int got = tf_block_stage(t, i, (tf_block)b), want = -1;
            const tf_stage *cur = &t->stages[i];
            for (int k = 0; k < t->n && want < 0; k++) {
                const tf_stage *s = &t->stages[k];
                if (expected_block(s->id) != (tf_block)b) continue;
                parsed ps = parse(s->id), pc = parse(cur->id);
                if (pc.layer >= 0 && ps.side == pc.side && ps.layer == pc.layer) want = k;
            }
            for (int k = 0; k < t->n && want < 0; k++)
                if (expected_block(t->stages[k].id) == (tf_block)b && parse(t->stages[k].id).layer <= 0) want = k;
            if (got != want) fail_msg("block %d from %s: %s, want %s", b, cur->id, got >= 0 ? t->stages[got].id : "none", want >= 0 ? t->stages[want].id : "none");
        }
    }
    printf("  %-46s %4d stages: fields, inputs and blocks as the ids say\n", path, t->n);
    tf_run_free(&r);
    tf_model_free(&m);
}

static void with_final_norms(void **state) {
    (void)state;
    check_model("tests/fixtures/multihead.safetensors", "the white house falls", "la maison blanche tombe");
}

static void without_final_norms(void **state) {
    (void)state;
    check_model("tests/fixtures/plain.safetensors", "I really enjoy learning transformers", NULL);
}

static void worked_example(void **state) {
    (void)state;
    check_model("assets/models/worked-example.safetensors", "I really enjoy learning transformers", NULL);
}

static void names(void **state) {
    (void)state;
    assert_string_equal(tf_op_name(TF_OP_WEIGHTS), "weights");
    assert_string_equal(tf_op_name(TF_OP_FFN_HIDDEN), "ffn_hidden");
    assert_string_equal(tf_side_name(TF_SIDE_DEC), "decoder");
    assert_string_equal(tf_sublayer_name(TF_SUB_CROSS_ATTN), "cross_attn");
    assert_string_equal(tf_family_name(TF_FAMILY_TRANSFORMER), "transformer");
    for (int op = 0; op < TF_OP_COUNT; op++) assert_string_not_equal(tf_op_name((tf_op)op), "?");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(with_final_norms),
        cmocka_unit_test(without_final_norms),
        cmocka_unit_test(worked_example),
        cmocka_unit_test(names),
    };
    return cmocka_run_group_tests_name("stage identity", tests, NULL, NULL);
}
