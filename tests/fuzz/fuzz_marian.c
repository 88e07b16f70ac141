// fuzz_marian.c — the readers of a MarianMT folder's text files, on any bytes.
// The first byte picks the file: even, config.json; odd, vocab.json (its
// vocab_size the byte's upper bits + 3). An error is one line that starts
// with the file's name and ":<line>: "; what is accepted must hold together:
// sizes in range and consistent, every id 0 … V−1 a non-empty piece, <unk> there.
#include "fuzz.h"

#include "../../src/model/tf.h"

static void check_located(const char *msg, const char *file) {
    fuzz_check_message(msg);
    size_t l = strlen(file);
    FUZZ_CHECK(!strncmp(msg, file, l) && msg[l] == ':' && msg[l + 1] >= '1' && msg[l + 1] <= '9');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    tf_err e;
    if (!(data[0] & 1)) {
        tf_config c;
        tf_marian_ids ids;
        if (tf_marian_config(&c, &ids, text, n, &e)) { check_located(e.msg, "config.json"); return 0; }
        FUZZ_CHECK(c.C >= 1 && c.C <= TF_MAX_C && c.H >= 1 && c.C % c.H == 0 && c.D * c.H == c.C);
        FUZZ_CHECK(c.L_enc >= 1 && c.L_dec >= 1 && c.F >= 1 && c.V_src == ids.V && c.V_tgt == ids.V);
        FUZZ_CHECK(ids.pad >= 0 && ids.pad < ids.V && ids.eos >= 0 && ids.eos < ids.V && ids.start >= 0 && ids.start < ids.V);
        FUZZ_CHECK(c.max_len >= 1 && c.max_len <= ids.max_pos && c.marian && c.pe_split);
        FUZZ_CHECK(c.act == TF_ACT_RELU || c.act == TF_ACT_SILU || c.act == TF_ACT_GELU);
        return 0;
    }
    int V = (data[0] >> 1) + 3;
    tf_vocab v;
    if (tf_marian_vocab(&v, text, n, V, &e)) { check_located(e.msg, "vocab.json"); return 0; }
    FUZZ_CHECK(v.n == V && v.unk >= 0 && v.unk < V);
    for (int i = 0; i < V; i++) FUZZ_CHECK(v.tok[i][0] && !strchr(v.tok[i], '\n'));
    tf_vocab_free(&v);
    return 0;
}
