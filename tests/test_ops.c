// test_ops.c — each operation on small cases computed by hand, and the
// tokenizer. The numerical edge cases are in test_numerics.c.
#include "testutil.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>

// ---------------------------------------------------------------- linear
static void linear_by_hand(void **state) {
    (void)state;
    // x (2,3) @ Wᵀ with W (2,3) + b (2)
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const float W[6] = {1, 0, -1, 0.5f, 0.5f, 0.5f};
    const float b[2] = {0.25f, -1};
    float out[4];
    tf_linear(out, x, W, b, 2, 3, 2);
    // row 0: 1-3+0.25 = -1.75; 0.5+1+1.5-1 = 2; row 1: 4-6+0.25 = -1.75; 2+2.5+3-1 = 6.5
    CHECK_CLOSE(out[0], -1.75, 1e-6);
    CHECK_CLOSE(out[1], 2.0, 1e-6);
    CHECK_CLOSE(out[2], -1.75, 1e-6);
    CHECK_CLOSE(out[3], 6.5, 1e-6);
    // long rows take the 8-wide path plus a tail: Σ i·1 for i < 21 = 210
    float xl[21], wl[21], o;
    for (int i = 0; i < 21; i++) { xl[i] = (float)i; wl[i] = 1; }
    tf_linear(&o, xl, wl, NULL, 1, 21, 1);
    CHECK_CLOSE(o, 210.0, 1e-4);
}

// Random x (T,n_in), W (n_out,n_in), b (n_out) in [-1, 1); the fast kernel
// against the plain one. Their sums run in different orders, so they may
// differ by rounding: at most a few float epsilons of the size of the terms,
// |b| + Σ|x·w| (a wrong index or a lost term is off by a whole term).
// Returns the largest difference in units of that size.
static double fast_vs_plain(int T, int n_in, int n_out, int bias, uint64_t seed) {
    tf_rng g;
    tf_rng_seed(&g, seed);
    size_t nx = (size_t)T * n_in, nw = (size_t)n_out * n_in, ny = (size_t)T * n_out;
    float *x = malloc(sizeof(float) * nx), *w = malloc(sizeof(float) * nw), *b = malloc(sizeof(float) * n_out);
    float *slow = malloc(sizeof(float) * ny), *fast = malloc(sizeof(float) * ny);
    assert_true(x && w && b && slow && fast);
    for (size_t i = 0; i < nx; i++) x[i] = 2 * tf_rng_uniform(&g) - 1;
    for (size_t i = 0; i < nw; i++) w[i] = 2 * tf_rng_uniform(&g) - 1;
    for (int o = 0; o < n_out; o++) b[o] = 2 * tf_rng_uniform(&g) - 1;
    for (size_t i = 0; i < ny; i++) slow[i] = fast[i] = NAN; // every output must be written
    tf_linear(slow, x, w, bias ? b : NULL, T, n_in, n_out);
    tf_linear_fast(fast, x, w, bias ? b : NULL, T, n_in, n_out);
    double worst = 0;
    for (int t = 0; t < T; t++)
        for (int o = 0; o < n_out; o++) {
            double size = bias ? fabs(b[o]) : 0;
            for (int i = 0; i < n_in; i++) size += fabs((double)x[(size_t)t * n_in + i] * w[(size_t)o * n_in + i]);
            float s = slow[(size_t)t * n_out + o], f = fast[(size_t)t * n_out + o];
            if (!(fabs((double)s - f) <= 4 * FLT_EPSILON * size))
                fail_msg("linear/fast-vs-plain T %d n_in %d n_out %d bias %d: out[%d][%d] = %.9g fast, %.9g plain", T, n_in,
                         n_out, bias, t, o, f, s);
            if (size > 0 && fabs((double)s - f) / size > worst) worst = fabs((double)s - f) / size;
        }
    free(x); free(w); free(b); free(slow); free(fast);
    return worst;
}

static void linear_fast_matches_plain(void **state) {
    (void)state;
    // odd sizes: partial blocks of 8 rows, partial vectors of 8, partial tiles of 64 columns
    const int Ts[] = {1, 3, 7, 9, 17}, n_ins[] = {1, 5, 13, 33, 100}, n_outs[] = {1, 3, 9, 70};
    double worst = 0;
    uint64_t seed = 1;
    for (int a = 0; a < 5; a++)
        for (int c = 0; c < 5; c++)
            for (int d = 0; d < 4; d++)
                for (int bias = 0; bias < 2; bias++) {
                    double r = fast_vs_plain(Ts[a], n_ins[c], n_outs[d], bias, seed++);
                    if (r > worst) worst = r;
                }
    // long rows (two weight rows per pass, blocks of 6) copied to the stack,
    // and too many of them to copy (read in place); an odd column count
    // leaves one weight row alone
    const int big[3][4] = {{9, 1100, 70, 1}, {17, 1030, 71, 1}, {40, 500, 9, 0}};
    for (int k = 0; k < 3; k++) {
        double r = fast_vs_plain(big[k][0], big[k][1], big[k][2], big[k][3], seed++);
        if (r > worst) worst = r;
    }
    printf("  linear: fast vs plain, largest difference %.2g of |b| + Σ|x·w|\n", worst);
}

// The fast kernel splits output columns over the threads; each is computed
// the same way whoever computes it.
static void linear_fast_same_bits_on_any_threads(void **state) {
    (void)state;
    int T = 7, n_in = 1030, n_out = 130; // n_out · n_in over the threshold for threads
    tf_rng g;
    tf_rng_seed(&g, 7);
    float *x = malloc(sizeof(float) * T * n_in), *w = malloc(sizeof(float) * n_out * n_in), *b = malloc(sizeof(float) * n_out);
    float *one = malloc(sizeof(float) * T * n_out), *all = malloc(sizeof(float) * T * n_out);
    assert_true(x && w && b && one && all);
    for (int i = 0; i < T * n_in; i++) x[i] = 2 * tf_rng_uniform(&g) - 1;
    for (int i = 0; i < n_out * n_in; i++) w[i] = 2 * tf_rng_uniform(&g) - 1;
    for (int o = 0; o < n_out; o++) b[o] = 2 * tf_rng_uniform(&g) - 1;
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    tf_linear_fast(one, x, w, b, T, n_in, n_out);
    omp_set_num_threads(threads > 1 ? threads : 2);
    tf_linear_fast(all, x, w, b, T, n_in, n_out);
    omp_set_num_threads(threads);
    assert_memory_equal(one, all, sizeof(float) * T * n_out);
    free(x); free(w); free(b); free(one); free(all);
}

// Overflow saturates in the fast kernel too (test_numerics checks tf_linear).
static void linear_fast_saturates(void **state) {
    (void)state;
    // x (1,2) @ Wᵀ (2,3): products overflow (1e30·1e30), and +∞ + −∞ would be NaN
    const float x[2] = {1e30f, 1e30f}, w[6] = {1e30f, 1e30f, 1e30f, -1e30f, -1e30f, -1e30f}, bias[3] = {0, 0, 0};
    float y[3];
    tf_linear_fast(y, x, w, bias, 1, 2, 3);
    assert_true(y[0] == FLT_MAX);
    assert_true(y[1] == 0.0f);
    assert_true(y[2] == -FLT_MAX);
}

// ---------------------------------------------------------------- out of memory
static jmp_buf oom_jump;
static const char *oom_file;
static int oom_line;

static void catch_oom(const char *file, int line) {
    oom_file = file;
    oom_line = line;
    longjmp(oom_jump, 1);
}

static void note_oom(const char *file, int line) { (void)file; (void)line; } // returns: tf_oom must abort anyway

// TF_OOM() hands its file and line to the installed handler; with none, or
// one that returns, the program aborts.
static void oom_names_file_and_line(void **state) {
    (void)state;
    volatile int line = 0;
    tf_set_oom_handler(catch_oom);
    if (!setjmp(oom_jump)) { line = __LINE__; TF_OOM(); }
    tf_set_oom_handler(NULL);
    assert_string_equal(oom_file, __FILE__);
    assert_int_equal(oom_line, line);
    for (int returning = 0; returning < 2; returning++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            signal(SIGABRT, SIG_DFL);
            tf_set_oom_handler(returning ? note_oom : NULL);
            TF_OOM();
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    }
}

// ---------------------------------------------------------------- softmax
static void softmax_by_hand(void **state) {
    (void)state;
    const float x[3] = {1, 2, 3};
    float p[3];
    tf_softmax_rows(p, x, 1, 3);
    // e^1, e^2, e^3 over their sum
    CHECK_CLOSE(p[0], 0.0900305732, 1e-7);
    CHECK_CLOSE(p[1], 0.2447284711, 1e-7);
    CHECK_CLOSE(p[2], 0.6652409558, 1e-7);
}

// ---------------------------------------------------------------- LayerNorm
static void layernorm_by_hand(void **state) {
    (void)state;
    const float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, b[4] = {0, 0, 0, 0};
    float y[4];
    tf_layernorm(y, x, w, b, 1e-5f, 1, 4);
    // mean 2.5, biased variance 1.25: (x - 2.5) / √(1.25 + 1e-5)
    CHECK_CLOSE(y[0], -1.5 / sqrt(1.25001), 1e-6);
    CHECK_CLOSE(y[3], 1.5 / sqrt(1.25001), 1e-6);
    double mean = 0, var = 0;
    for (int i = 0; i < 4; i++) mean += y[i];
    for (int i = 0; i < 4; i++) var += (y[i] - mean / 4) * (y[i] - mean / 4);
    CHECK_CLOSE(mean / 4, 0.0, 1e-7);
    CHECK_CLOSE(var / 4, 1.0, 1e-4);
    // the affine part: y·w + b
    const float w2[4] = {2, 2, 2, 2}, b2[4] = {1, 1, 1, 1};
    float z[4];
    tf_layernorm(z, x, w2, b2, 1e-5f, 1, 4);
    for (int i = 0; i < 4; i++) CHECK_CLOSE(z[i], 2 * y[i] + 1, 1e-6);
}

// ---------------------------------------------------------------- PE
static void positional_encoding_by_hand(void **state) {
    (void)state;
    float pe[5 * 4];
    tf_positional_encoding(pe, 5, 4);
    // d_model 4: dims 0,1 use pos/1, dims 2,3 use pos/100 (10000^(2/4) = 100)
    for (int pos = 0; pos < 5; pos++) {
        CHECK_CLOSE(pe[pos * 4 + 0], sin(pos), 1e-7);
        CHECK_CLOSE(pe[pos * 4 + 1], cos(pos), 1e-7);
        CHECK_CLOSE(pe[pos * 4 + 2], sin(pos / 100.0), 1e-7);
        CHECK_CLOSE(pe[pos * 4 + 3], cos(pos / 100.0), 1e-7);
    }
    CHECK_CLOSE(pe[4 * 4 + 1], -0.65364, 1e-5); // the slides' PE(4, 1) = cos(4)
    float big[3 * 512];
    tf_positional_encoding(big, 3, 512);
    CHECK_CLOSE(big[2 * 512 + 510], sin(2 / pow(10000.0, 510.0 / 512)), 1e-7);
    CHECK_CLOSE(big[2 * 512 + 511], cos(2 / pow(10000.0, 510.0 / 512)), 1e-7);
}

// ---------------------------------------------------------------- attention
// C 2, one head (D 2), identity projections, x = I: Q = K = V = I.
static void attention_by_hand(void **state) {
    (void)state;
    float in_w[12] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, in_b[6] = {0};
    float out_w[4] = {1, 0, 0, 1}, out_b[2] = {0};
    tf_attn_w w = {in_w, in_b, out_w, out_b};
    float buf[64], *p = buf;
    tf_attn_acts a;
    a.q = p; p += 4; a.k = p; p += 4; a.v = p; p += 4; a.scores = p; p += 4; a.scaled = p; p += 4;
    a.masked = p; p += 4; a.weights = p; p += 4; a.head_out = p; p += 4; a.concat = p; p += 4; a.out = p;
    const float x[4] = {1, 0, 0, 1};
    tf_attention(&a, &w, x, x, 0, 2, 2, 2, 1);
    // scores = I, scaled = I / √2; weights row 0 = softmax(1/√2, 0)
    CHECK_CLOSE(a.scores[0], 1.0, 1e-7);
    CHECK_CLOSE(a.scores[1], 0.0, 1e-7);
    CHECK_CLOSE(a.scaled[0], 1 / sqrt(2.0), 1e-7);
    double w0 = 1 / (1 + exp(-1 / sqrt(2.0)));
    CHECK_CLOSE(a.weights[0], w0, 1e-6);
    CHECK_CLOSE(a.weights[1], 1 - w0, 1e-6);
    CHECK_CLOSE(a.out[0], w0, 1e-6); // weights · V with V = I, W_O = I
    CHECK_CLOSE(a.out[1], 1 - w0, 1e-6);
    tf_attention(&a, &w, x, x, 1, 2, 2, 2, 1); // causal
    assert_true(isinf(a.masked[1]) && a.masked[1] < 0);
    assert_true(a.weights[0] == 1.0f && a.weights[1] == 0.0f);
    CHECK_CLOSE(a.weights[2], 1 - w0, 1e-6);
}

// Two heads see separate column blocks: head 1 of Q·Kᵀ uses dims 2..3 only.
static void heads_split_columns(void **state) {
    (void)state;
    enum { C = 4, H = 2, T = 2 };
    float in_w[3 * C * C] = {0}, in_b[3 * C] = {0}, out_w[C * C] = {0}, out_b[C] = {0};
    for (int k = 0; k < 3; k++) for (int i = 0; i < C; i++) in_w[k * C * C + i * C + i] = 1;
    for (int i = 0; i < C; i++) out_w[i * C + i] = 1;
    tf_attn_w w = {in_w, in_b, out_w, out_b};
    float buf[256], *p = buf;
    tf_attn_acts a;
    a.q = p; p += T * C; a.k = p; p += T * C; a.v = p; p += T * C; a.scores = p; p += H * T * T;
    a.scaled = p; p += H * T * T; a.masked = p; p += H * T * T; a.weights = p; p += H * T * T;
    a.head_out = p; p += T * C; a.concat = p; p += T * C; a.out = p;
    const float x[T * C] = {1, 2, 3, 4, 5, 6, 7, 8};
    tf_attention(&a, &w, x, x, 0, T, T, C, H);
    CHECK_CLOSE(a.scores[0], 1 * 1 + 2 * 2, 1e-5);          // head 0, q0·k0 over dims 0,1
    CHECK_CLOSE(a.scores[1], 1 * 5 + 2 * 6, 1e-5);          // head 0, q0·k1
    CHECK_CLOSE(a.scores[T * T + 0], 3 * 3 + 4 * 4, 1e-5);  // head 1, q0·k0 over dims 2,3
    CHECK_CLOSE(a.scores[T * T + 3], 7 * 7 + 8 * 8, 1e-5);  // head 1, q1·k1
    // concat puts head 1's output in columns 2..3
    CHECK_CLOSE(a.concat[2], a.head_out[T * 2 + 0], 1e-7);
    CHECK_CLOSE(a.concat[C + 3], a.head_out[T * 2 + 3], 1e-7);
}

// ---------------------------------------------------------------- tokenizer
static int split(const char *s, char ***w) {
    tf_err e;
    return tf_split_words(s, w, &e);
}

static void words_and_punctuation(void **state) {
    (void)state;
    char **w;
    int n = split("Hello, world!  It's <unk>.", &w);
    const char *want[] = {"Hello", ",", "world", "!", "It", "'", "s", "<unk>", "."};
    assert_int_equal(n, 9);
    for (int i = 0; i < n; i++) assert_string_equal(w[i], want[i]);
    tf_words_free(w, n);
    n = split("من واقعاً از یادگیری لذت می‌برم؟", &w); // ZWNJ stays inside the word, ؟ is punctuation
    assert_int_equal(n, 7);
    assert_string_equal(w[5], "می‌برم");
    assert_string_equal(w[6], "؟");
    tf_words_free(w, n);
    assert_int_equal(split("  \t\n ", &w), 0);
    tf_words_free(w, 0);
}

static void bad_text(void **state) {
    (void)state;
    char **w;
    tf_err e;
    assert_int_equal(tf_split_words("caf\xc3", &w, &e), -1); // cut in the middle of a character
    assert_non_null(strstr(e.msg, "UTF-8"));
    assert_int_equal(tf_split_words("a\x07 b", &w, &e), -1);
    assert_non_null(strstr(e.msg, "U+0007"));
    size_t at;
    assert_int_equal(tf_utf8_check("ok\xc0\xaf", 4, &at), -1); // overlong '/'
    assert_int_equal(at, 2);
    assert_int_equal(tf_utf8_check("\xed\xa0\x80", 3, &at), -1); // a surrogate
    assert_int_equal(tf_utf8_check("\xf4\x90\x80\x80", 4, &at), -1); // above U+10FFFF
    assert_int_equal(tf_utf8_check("ok € 𝄞", strlen("ok € 𝄞"), &at), 0);
}

static void vocabulary(void **state) {
    (void)state;
    tf_vocab v;
    tf_err e;
    assert_int_equal(tf_vocab_parse(&v, "<unk>\n<bos>\n<eos>\nI\nhello\ncafé\n", "v", &e), 0);
    assert_int_equal(v.n, 6);
    assert_int_equal(v.unk, 0);
    assert_int_equal(v.bos, 1);
    assert_int_equal(v.eos, 2);
    assert_int_equal(tf_vocab_find(&v, "I"), 3);      // as written
    assert_int_equal(tf_vocab_find(&v, "Hello"), 4);  // then lower-cased
    assert_int_equal(tf_vocab_find(&v, "CAFÉ"), 5);   // Latin-1 capitals too
    assert_int_equal(tf_vocab_find(&v, "i"), -1);
    assert_int_equal(tf_vocab_find(&v, "world"), -1);
    tf_vocab_free(&v);
    assert_int_equal(tf_vocab_parse(&v, "a\nb", "src_vocab", &e), -1);
    assert_non_null(strstr(e.msg, "no <unk>"));
    assert_int_equal(tf_vocab_parse(&v, "<unk>\na\na", "src_vocab", &e), -1);
    assert_non_null(strstr(e.msg, "twice"));
    assert_int_equal(tf_vocab_parse(&v, "<unk>\n\na", "src_vocab", &e), -1);
    assert_non_null(strstr(e.msg, "empty token"));
}

// ---------------------------------------------------------------- sentences through a model
static void sentences(void **state) {
    (void)state;
    tf_model m;
    tf_err e;
    tf_run r;
    assert_int_equal(tf_model_load(&m, "assets/models/worked-example.safetensors", &e), 0);
    assert_int_equal(tf_run_sentence(&r, &m, "I really enjoy quantum physics", "من", &e), 0);
    assert_int_equal(r.S, 5);
    assert_int_equal(r.n_src_unk, 2);
    assert_string_equal(r.trace.src_labels[3], "<unk>"); // shown as such
    assert_string_equal(r.src_words[3], "quantum");      // and what was typed
    assert_string_equal(r.trace.tgt_labels[0], "<bos>");
    assert_string_equal(r.trace.tgt_labels[1], "من");
    tf_run_free(&r);
    assert_int_equal(tf_run_sentence(&r, &m, "", NULL, &e), -1);
    assert_non_null(strstr(e.msg, "empty"));
    assert_int_equal(tf_run_sentence(&r, &m, "I \xff", NULL, &e), -1);
    assert_non_null(strstr(e.msg, "UTF-8"));
    assert_int_equal(tf_run_sentence(&r, &m, "I I I I I I I I I I I I I I I I I", NULL, &e), -1); // 17 > max_len 16
    assert_non_null(strstr(e.msg, "at most 16"));
    assert_int_equal(tf_run_sentence(&r, &m, "I", "a b c d e f g h i j k l m n o p", &e), -1); // <bos> + 16
    assert_non_null(strstr(e.msg, "target"));
    tf_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_by_hand),
        cmocka_unit_test(linear_fast_matches_plain),
        cmocka_unit_test(linear_fast_same_bits_on_any_threads),
        cmocka_unit_test(linear_fast_saturates),
        cmocka_unit_test(oom_names_file_and_line),
        cmocka_unit_test(softmax_by_hand),
        cmocka_unit_test(layernorm_by_hand),
        cmocka_unit_test(positional_encoding_by_hand),
        cmocka_unit_test(attention_by_hand),
        cmocka_unit_test(heads_split_columns),
        cmocka_unit_test(words_and_punctuation),
        cmocka_unit_test(bad_text),
        cmocka_unit_test(vocabulary),
        cmocka_unit_test(sentences),
    };
    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
