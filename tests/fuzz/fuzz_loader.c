// fuzz_loader.c — the safetensors loader (tf_model_load_mem) on any bytes.
// A file it accepts must be a model that runs: a forward pass on a short
// sentence, with the target given, gives finite probabilities that sum to 1.
#include "fuzz.h"

#include <math.h>

#include "../../src/model/tf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tf_model m;
    tf_err e;
    e.msg[0] = 0;
    if (tf_model_load_mem(&m, data, size, &e)) {
        fuzz_check_message(e.msg);
        return 0;
    }
    FUZZ_CHECK(m.cfg.C == m.cfg.H * m.cfg.D);
    FUZZ_CHECK(m.src_vocab.unk >= 0 && m.tgt_vocab.bos >= 0 && m.tgt_vocab.eos >= 0);
    // Keep each run quick: the forward pass only on models of modest size.
    if ((size_t)m.cfg.C * (size_t)(m.cfg.F + m.cfg.V_tgt) * (size_t)(m.cfg.L_enc + m.cfg.L_dec) < 4000000) {
        tf_run r;
        if (!tf_run_sentence(&r, &m, "I really enjoy it", "a b", &e)) {
            int V = m.cfg.V_tgt;
            for (int t = 0; t < r.T; t++) {
                double sum = 0;
                for (int v = 0; v < V; v++) {
                    float p = r.acts.probs[(size_t)t * V + v];
                    FUZZ_CHECK(isfinite(p) && p >= 0 && p <= 1);
                    sum += p;
                }
                FUZZ_CHECK(fabs(sum - 1) < 1e-3);
            }
            tf_run_free(&r);
        } else fuzz_check_message(e.msg);
    }
    tf_model_free(&m);
    return 0;
}
