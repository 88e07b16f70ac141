// presets.c — the models tviz can make: the worked example of the Persian
// lecture slides, and the paper's base sizes with seeded weights.
#include "cli.h"

#include <math.h>
#include <string.h>

// The five words of the slides' sentence and their embeddings (d_model = 4),
// row by row as on the slides.
static const char *we_words[5] = {"I", "really", "enjoy", "learning", "transformers"};
static const float we_embed[5][4] = {
    {0.1f, 0.3f, 0.4f, 0.8f},
    {0.9f, 0.1f, 0.5f, 0.2f},
    {0.7f, 0.6f, 0.1f, 0.4f},
    {0.2f, 0.8f, 0.3f, 0.7f},
    {0.5f, 0.4f, 0.9f, 0.3f},
};

// Rounds every weight to one decimal so a student can redo the arithmetic.
static void round_tenths(float *w, size_t n) {
    for (size_t i = 0; i < n; i++) w[i] = roundf(w[i] * 10.0f) / 10.0f + 0.0f;
}

static void round_attn(tf_attn_w *a, int C) {
    round_tenths(a->in_w, (size_t)3 * C * C);
    round_tenths(a->out_w, (size_t)C * C);
}

int cli_preset_worked_example(tf_model *m, tf_err *e) {
    tf_config c = {0};
    c.C = 4; c.H = 2; c.F = 8; c.L_enc = 1; c.L_dec = 1;
    c.eps = 1e-5f; c.embed_scale = 1.0f; // the slides add E and PE unscaled
    c.max_len = 16; c.max_len_set = 1;
    const char *src = "<unk>\nI\nreally\nenjoy\nlearning\ntransformers";
    // "I really enjoy learning transformers" in Persian: من واقعاً از یادگیری ترنسفورمرها لذت می‌برم
    const char *tgt = "<unk>\n<bos>\n<eos>\nمن\nواقعاً\nاز\nیادگیری\nترنسفورمرها\nلذت\nمی‌برم";
    if (tf_model_init(m, &c, src, tgt, 4, e)) return -1;
    int C = m->cfg.C;
    memset(m->src_embed, 0, sizeof(float) * (size_t)C); // <unk> is the zero vector
    for (int w = 0; w < 5; w++) {
        int id = tf_vocab_find(&m->src_vocab, we_words[w]);
        memcpy(m->src_embed + (size_t)id * C, we_embed[w], sizeof we_embed[w]);
    }
    round_tenths(m->tgt_embed, (size_t)m->cfg.V_tgt * C);
    for (int l = 0; l < m->cfg.L_enc; l++) {
        round_attn(&m->enc[l].self_attn, C);
        round_tenths(m->enc[l].w1, (size_t)m->cfg.F * C);
        round_tenths(m->enc[l].w2, (size_t)m->cfg.F * C);
    }
    for (int l = 0; l < m->cfg.L_dec; l++) {
        round_attn(&m->dec[l].self_attn, C);
        round_attn(&m->dec[l].cross_attn, C);
        round_tenths(m->dec[l].w1, (size_t)m->cfg.F * C);
        round_tenths(m->dec[l].w2, (size_t)m->cfg.F * C);
    }
    return 0;
}

// A word vocabulary for the base preset: specials, the slides' sentence and
// common English words. Source and target share it, as in the paper (§5.1).
static const char *base_vocab =
    "<unk>\n<bos>\n<eos>\n<pad>\n.\n,\n?\n!\n'\n\"\n-\n:\n;\n(\n)\n"
    "I\nreally\nenjoy\nlearning\ntransformers\n"
    "the\nof\nand\na\nto\nin\nis\nyou\nthat\nit\nhe\nwas\nfor\non\nare\nas\nwith\nhis\nthey\nat\nbe\nthis\n"
    "have\nfrom\nor\none\nhad\nby\nword\nbut\nnot\nwhat\nall\nwere\nwe\nwhen\nyour\ncan\nsaid\nthere\nuse\nan\n"
    "each\nwhich\nshe\ndo\nhow\ntheir\nif\nwill\nup\nother\nabout\nout\nmany\nthen\nthem\nthese\nso\nsome\nher\n"
    "would\nmake\nlike\nhim\ninto\ntime\nhas\nlook\ntwo\nmore\nwrite\ngo\nsee\nnumber\nno\nway\ncould\npeople\nmy\n"
    "than\nfirst\nwater\nbeen\ncall\nwho\noil\nits\nnow\nfind\nlong\ndown\nday\ndid\nget\ncome\nmade\nmay\npart\n"
    "attention\nattend\nquery\nqueries\nkey\nkeys\nvalue\nvalues\nhead\nheads\nmask\nsoftmax\nlayer\nnorm\n"
    "normalization\nresidual\nconnection\nposition\npositional\nencoding\nencoder\ndecoder\nembedding\n"
    "feed\nforward\nnetwork\nmodel\nmodels\nsequence\ntranslation\ntranslate\nsentence\nlanguage\n"
    "machine\nneural\nlearn\nlearns\nlove\nread\nreading\nbook\nbooks\nstudent\nstudents\nteacher\n"
    "class\nlesson\nschool\nworld\nhello\ngood\nnew\nold\nbig\nsmall\nfast\nslow\nhouse\ncat\ndog\n"
    "need\nneeds\nme\nus\nour\nwork\nworks\nthink\nknow\nwant\ngive\ntake\nhelp\nshow\nstep\nsteps";

int cli_preset_base(tf_model *m, unsigned long long seed, tf_err *e) {
    tf_config c;
    tf_config_base(&c);
    c.has_enc_norm = c.has_dec_norm = 1; // as torch.nn.Transformer
    return tf_model_init(m, &c, base_vocab, NULL, seed, e);
}
