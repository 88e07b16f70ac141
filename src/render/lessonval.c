// lessonval.c — the live values of a lesson ({{expr}}, lessons/README.md):
// numbers, tokens and sizes read from the trace on screen, so that a lesson
// quotes what the window shows for any model and any sentence.
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int why(char *out, size_t n, const char *fmt, const char *a) {
    snprintf(out, n, fmt, a);
    return -1;
}

// An index along a length: 0, 1, … from the start, -1, -2, … from the end.
static int index_of(const char *s, int len, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end) return -1;
    if (v < 0) v += len;
    if (v < 0 || v >= len) return -1;
    *out = (int)v;
    return 0;
}

const char *render_model_name(const char *path, char *buf, size_t n) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(buf, n, "%s", base);
    size_t k = strlen(buf), e = strlen(".safetensors");
    if (k > e && !strcmp(buf + k - e, ".safetensors")) buf[k - e] = 0;
    return buf;
}

// A stage named by id, "this" (the stage the text is beside) or "this:NAME"
// (this stage's id with its last part replaced: this:weights beside
// enc.0.self_attn.head.1.out). -1 if there is none.
// "align": the weights of the model's aligning cross-attention head (tf_model.align_*), -1 if it has none.
static int aligning_stage(const render_lesson_ctx *c) { return tf_trace_aligning_stage(c->t, c->m); }

static int stage_of(const render_lesson_ctx *c, const char *ref) {
    if (!strcmp(ref, "this")) return c->stage;
    if (!strcmp(ref, "align")) return aligning_stage(c);
    return tf_stage_named(c->t, c->stage, ref);
}

static void put_value(float v, char *out, size_t n) { render_format_value(v, out, n, 4); }

// A size or scale: "8" rather than "8.0000", "1.4142" otherwise.
static void put_number(float v, char *out, size_t n) {
    if (v == floorf(v) && fabsf(v) < 1e6f) snprintf(out, n, "%d", (int)v);
    else put_value(v, out, n);
}

// Subword pieces (paper §5.1): a piece ending in "@@" is continued by the next.
static int continues(const char *tok) {
    size_t k = strlen(tok);
    return k > 2 && !strcmp(tok + k - 2, "@@");
}

// The source's words (not <eos>), and the first word read as more than one
// piece: its pieces [*first, *first + *count). *count 0 when none is split.
static int source_words(const tf_trace *t, int *first, int *count) {
    int words = 0;
    *first = *count = 0;
    for (int i = 0; i < t->S; i++) {
        if (!strcmp(t->src_labels[i], t->eos)) continue;
        int j = i;
        while (j + 1 < t->S && continues(t->src_labels[j])) j++;
        if (j > i && !*count) { *first = i; *count = j - i + 1; }
        words++;
        i = j;
    }
    return words;
}

// How peaked the rows of a probability stage are (render.h); here, as the
// lessons and the compare view both read it.
void render_prob_rows(const tf_stage *s, int *one_hot, double *mean_entropy) {
    int oh = 0, rows = 0;
    double sum = 0;
    for (int i = 0; i < s->rows; i++) {
        const float *p = s->data + (size_t)i * s->cols;
        double h = 0, mx = 0, tot = 0;
        for (int j = 0; j < s->cols; j++) {
            tot += p[j];
            if (p[j] > mx) mx = p[j];
            if (p[j] > 0) h -= p[j] * log2(p[j]);
        }
        if (tot <= 0) continue; // a row masked everywhere: no distribution
        rows++;
        oh += mx >= 0.99;
        sum += h;
    }
    if (one_hot) *one_hot = oh;
    if (mean_entropy) *mean_entropy = rows ? sum / rows : 0;
}

// What if? The first source token that occurs twice (positions *a < *b);
// 0 and *a = *b = 0 when no token repeats.
static int twin(const tf_trace *t, int *a, int *b) {
    *a = *b = 0;
    for (int j = 1; j < t->S; j++)
        for (int i = 0; i < j; i++)
            if (!strcmp(t->src_labels[i], t->src_labels[j]) && strcmp(t->src_labels[i], t->eos)) { *a = i; *b = j; return 1; }
    return 0;
}

static int scalar(const render_lesson_ctx *c, const char *name, char *out, size_t n, int *words) {
    const tf_config *g = &c->m->cfg;
    struct { const char *name; long v; } ints[] = {
        {"d_model", g->C}, {"heads", g->H}, {"d_k", g->D}, {"d_ff", g->F}, {"enc_layers", g->L_enc},
        {"dec_layers", g->L_dec}, {"src_vocab", g->V_src}, {"tgt_vocab", g->V_tgt}, {"src_len", c->t->S},
        {"tgt_len", c->t->T}, {"max_len", g->max_len}, {"params", (long)c->m->n_params},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (!strcmp(name, ints[i].name)) { snprintf(out, n, "%ld", ints[i].v); return 0; }
    if (!strcmp(name, "sqrt_d_k")) { put_number(sqrtf((float)g->D), out, n); return 0; }
    if (!strcmp(name, "sqrt_d_model")) { put_number(sqrtf((float)g->C), out, n); return 0; }
    if (!strcmp(name, "embed_scale")) { put_number(g->embed_scale, out, n); return 0; }
    int first, count;
    if (!strcmp(name, "src_words")) { snprintf(out, n, "%d", source_words(c->t, &first, &count)); return 0; }
    if (!strncmp(name, "align_", 6)) { // the aligning head: align_layer and align_head counted from 1, align_rate in %
        int ai = aligning_stage(c);
        if (ai < 0) return why(out, n, "%s: this model names no aligning head ([if aligning] tells)", name);
        if (!strcmp(name, "align_layer")) snprintf(out, n, "%d", c->m->align_layer + 1);
        else if (!strcmp(name, "align_head")) snprintf(out, n, "%d", c->m->align_head + 1);
        else if (!strcmp(name, "align_rate")) snprintf(out, n, "%.0f%%", 100.0 * c->m->align_rate);
        else if (!strcmp(name, "align_id")) { *words = 1; snprintf(out, n, "%s", c->t->stages[ai].id); }
        else return why(out, n, "%s is not a value tviz knows; use align_layer, align_head, align_rate or align_id", name);
        return 0;
    }
    if (!strcmp(name, "src_merges") || !strcmp(name, "tgt_merges")) {
        snprintf(out, n, "%d", name[0] == 's' ? c->m->src_bpe.n : c->m->tgt_bpe.n);
        return 0;
    }
    // where training ended, as the model file records it ("—" when it does not: [if trained] tells)
    if (!strcmp(name, "train_loss")) { if (c->m->step_loss >= 0) snprintf(out, n, "%.3f", (double)c->m->step_loss); else snprintf(out, n, "—"); return 0; }
    if (!strcmp(name, "train_step")) { if (c->m->train_step >= 0) snprintf(out, n, "%d", c->m->train_step); else snprintf(out, n, "—"); return 0; }
    if (!strcmp(name, "heldout")) { if (c->m->heldout_exact >= 0) snprintf(out, n, "%.1f", 100.0 * c->m->heldout_exact); else snprintf(out, n, "—"); return 0; }
    int ta, tb;
    if (!strcmp(name, "twin_a") || !strcmp(name, "twin_b")) { twin(c->t, &ta, &tb); snprintf(out, n, "%d", name[5] == 'a' ? ta : tb); return 0; }
    *words = 1; // the rest are words
    if (!strcmp(name, "split_word") || !strcmp(name, "split_pieces")) { // the first word read as pieces, or its pieces
        source_words(c->t, &first, &count);
        if (!count) count = c->t->S > 0; // none split: the first word, one piece ([if split] tells)
        if (name[6] == 'p') { // the pieces as the rows show them, a space between
            size_t k = 0;
            for (int i = first; i < first + count && k < n; i++) k += (size_t)snprintf(out + k, n - k, "%s%s", i > first ? " " : "", c->t->src_labels[i]);
            return k < n ? 0 : why(out, n, "%s: too long", name);
        }
        char *text = tf_join_tokens((char *const *)c->t->src_labels + first, count);
        if (!text) return why(out, n, "%s: out of memory", name);
        snprintf(out, n, "%s", text);
        free(text);
        return 0;
    }
    if (!strcmp(name, "model")) { snprintf(out, n, "%s", c->model ? c->model : "?"); return 0; }
    if (!strcmp(name, "twin")) { // the repeated token (none: the first)
        twin(c->t, &ta, &tb);
        snprintf(out, n, "%s", c->t->S > 0 ? c->t->src_labels[ta] : "");
        return 0;
    }
    int src = !strcmp(name, "sentence");
    if (src || !strcmp(name, "translation")) { // the source's tokens, or the decoder input's after <bos>, up to <eos>
        const char *const *tok = src ? c->t->src_labels : c->t->tgt_labels;
        int first = !src, end = first;
        while (end < (src ? c->t->S : c->t->T) && strcmp(tok[end], c->t->eos)) end++;
        char *text = tf_join_tokens((char *const *)tok + first, end - first); // subword pieces back into words
        if (!text) return why(out, n, "%s: out of memory", name);
        size_t k = (size_t)snprintf(out, n, "%s", text);
        free(text);
        if (k >= n) return why(out, n, "%s: too long", name);
        return 0;
    }
    return why(out, n, "%s is not a value tviz knows (see lessons/README.md)", name);
}

// A value kept in one piece inside text of either direction: numbers and
// rows left to right (LRI … PDI: "−0.5, 1.2" in a Persian sentence stays as
// the matrix shows it), tokens in their own direction (FSI … PDI).
static int isolate(char *out, size_t n, int rc, int words) {
    size_t k = strlen(out);
    if (rc || k + 7 > n) return rc;
    memmove(out + 3, out, k + 1);
    memcpy(out, words ? "\u2068" : "\u2066", 3);
    memcpy(out + k + 3, "\u2069", 4);
    return 0;
}

// expr's value in out; *words set when it is tokens or names, not numbers.
static int value(const render_lesson_ctx *c, const char *expr, char *out, size_t n, int *words) {
    char buf[256], *w[5];
    int nw = 0;
    snprintf(buf, sizeof buf, "%s", expr);
    for (char *save = NULL, *p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
        if (nw == 4) return why(out, n, "%s: too many words; write {{stage row col}}", expr);
        w[nw++] = p;
    }
    if (!nw) return why(out, n, "%s", "an empty {{}}");
    if (nw == 1) return scalar(c, w[0], out, n, words);
    if (!strcmp(w[0], "src") || !strcmp(w[0], "tgt")) { // a token: src 0, tgt -1
        *words = 1;
        int src = w[0][0] == 's', len = src ? c->t->S : c->t->T, i;
        if (nw != 2 || index_of(w[1], len, &i)) return why(out, n, "%s: no such token; write src N or tgt N (N from 0, or -1 for the last)", expr);
        snprintf(out, n, "%s", src ? c->t->src_labels[i] : c->t->tgt_labels[i]);
        return 0;
    }
    int si = stage_of(c, w[0]);
    if (si < 0) return why(out, n, "%s: no such stage in this model", w[0]);
    const tf_stage *s = &c->t->stages[si];
    if (nw == 2 && (!strcmp(w[1], "rows") || !strcmp(w[1], "cols"))) {
        snprintf(out, n, "%d", w[1][0] == 'r' ? s->rows : s->cols);
        return 0;
    }
    if (nw == 2 && (!strcmp(w[1], "onehot") || !strcmp(w[1], "entropy"))) { // what if? how peaked the rows are
        int oh = 0;
        double h = 0;
        if (s->kind == TF_KIND_PROB) render_prob_rows(s, &oh, &h);
        else return why(out, n, "%s: onehot and entropy read rows of probabilities (attention weights, out.probs)", expr);
        if (w[1][0] == 'o') snprintf(out, n, "%d", oh);
        else snprintf(out, n, "%.2f", h);
        return 0;
    }
    int r, col, ta, tb;
    const char *rowname = w[1];
    if (!strcmp(rowname, "twin") || !strcmp(rowname, "twin2") || !strcmp(rowname, "twin_gap")) { // the rows of a repeated source token
        if (s->row_axis != TF_AXIS_SRC) return why(out, n, "%s: twin reads a stage whose rows are the source tokens", expr);
        twin(c->t, &ta, &tb);
        if (!strcmp(rowname, "twin_gap")) { // the largest difference between the two rows
            double gap = 0;
            for (int j = 0; j < s->cols; j++) {
                float x = s->data[(size_t)ta * s->cols + j], y = s->data[(size_t)tb * s->cols + j];
                if (isfinite(x) && isfinite(y)) gap = fmax(gap, fabs((double)x - y));
            }
            put_value((float)gap, out, n);
            return 0;
        }
        static char idx[16];
        snprintf(idx, sizeof idx, "%d", rowname[4] ? tb : ta);
        rowname = idx;
    }
    if (index_of(rowname, s->rows, &r)) return why(out, n, "%s: no such row", expr);
    const float *row = s->data + (size_t)r * (size_t)s->cols;
    if (nw == 2) { // the row as a vector, its numbers as the cells show them: all up to 6, else the first 4 and "…"
        // (no-break spaces: a vector never wraps; split over two lines of
        // right-to-left text, its halves would sit at opposite ends)
        size_t k = (size_t)snprintf(out, n, "(");
        int shown = s->cols <= 6 ? s->cols : 4;
        for (int j = 0; j < shown && k < n; j++) {
            char v[32];
            k += (size_t)snprintf(out + k, n - k, "%s%s", j ? ",\u00a0" : "", render_format_value(row[j], v, sizeof v, 2));
        }
        if (k < n) snprintf(out + k, n - k, "%s)", shown < s->cols ? ",\u00a0…" : "");
        return 0;
    }
    if (nw == 4) return why(out, n, "%s: too many words; write {{stage row col}}", expr);
    if (!index_of(w[2], s->cols, &col)) { put_value(row[col], out, n); return 0; }
    int best = 0, zeros = 0;
    double sum = 0;
    for (int j = 0; j < s->cols; j++) {
        if (isfinite(row[j])) sum += row[j];
        if (row[j] > row[best]) best = j;
        zeros += row[j] == 0;
    }
    if (!strcmp(w[2], "max")) put_value(row[best], out, n);
    else if (!strcmp(w[2], "sum")) put_value((float)sum, out, n);
    else if (!strcmp(w[2], "zeros")) snprintf(out, n, "%d", zeros);
    else if (!strcmp(w[2], "argmax") || !strcmp(w[2], "label")) {
        char num[32];
        int col_label = w[2][0] == 'a';
        *words = 1;
        snprintf(out, n, "%s", tf_axis_label(c->t, col_label ? s->col_axis : s->row_axis, col_label ? best : r, num, sizeof num));
    }
    else return why(out, n, "%s: no such column; a column is a number, max, argmax, sum, zeros or label", expr);
    return 0;
}

int render_lesson_value(void *ctx, const char *expr, char *out, size_t n) {
    int words = 0, rc = value(ctx, expr, out, n, &words);
    return isolate(out, n, rc, words);
}

// How far the rows of this attention stage are from uniform towards one-hot,
// 0 to 1: each row's largest weight rescaled so that 1/n (n keys it may see,
// from the masked sibling stage) is 0 and 1 is 1, averaged over the rows
// with a choice (a causal mask's first row, with one key, says nothing).
static double attention_sharpness(const render_lesson_ctx *c) {
    const tf_stage *s = &c->t->stages[c->stage];
    int mi = stage_of(c, "this:masked");
    const tf_stage *mk = mi >= 0 && c->t->stages[mi].rows == s->rows && c->t->stages[mi].cols == s->cols ? &c->t->stages[mi] : NULL;
    double sum = 0;
    int rows = 0;
    for (int r = 0; r < s->rows; r++) {
        int keys = 0;
        float m = 0;
        for (int j = 0; j < s->cols; j++) {
            size_t at = (size_t)r * (size_t)s->cols + (size_t)j;
            keys += !mk || isfinite(mk->data[at]);
            m = fmaxf(m, s->data[at]);
        }
        if (keys < 2) continue;
        sum += (m - 1.0 / keys) / (1 - 1.0 / keys);
        rows++;
    }
    return rows ? sum / rows : 0;
}

int render_lesson_cond(const render_lesson_ctx *c, const char *cond, char *out, size_t n) {
    int neg = cond[0] == '!';
    const char *p = cond + neg;
    int v;
    char name[128];
    if (!strncmp(p, "model=", 6)) v = !strcmp(c->model ? c->model : "", p + 6);
    else if (!strncmp(p, "model!=", 7)) v = !!strcmp(c->model ? c->model : "", p + 7);
    else if (!strncmp(p, "has ", 4)) v = tf_trace_find(c->t, p + 4) >= 0;
    else if (!strcmp(p, "greedy")) v = c->greedy;
    else if (!strcmp(p, "pieces")) v = c->m->src_bpe.n > 0; // the model reads subword pieces (§5.1)
    else if (!strcmp(p, "split")) { int first, count; source_words(c->t, &first, &count); v = count > 0; } // a word of the sentence is
    else if (!strcmp(p, "aligning")) v = aligning_stage(c) >= 0; // tviz train measured an aligning head, and it is in the trace
    else if (!strcmp(p, "tied")) v = !c->m->cfg.has_generator; // the output layer is the target embedding (§3.4)
    else if (!strcmp(p, "recurrent")) v = c->m->cfg.arch == TF_ARCH_LSTM; // a seq2seq LSTM or an RNN with attention
    else if (!strcmp(p, "reversed")) v = c->m->cfg.arch == TF_ARCH_LSTM && c->m->cfg.reverse_source; // it reads the source backwards
    else if (!strncmp(p, "without=", 8)) { // what if? the run on screen is without this part
        int bits;
        tf_err e;
        if (tf_without_parse(p + 8, &bits, &e) || !bits) return why(out, n, "[if %s]: write without=pe, without=scale, without=mask or without=residual", cond);
        v = (c->t->without & bits) == bits;
    } else if (!strcmp(p, "twin")) { int a, b; v = twin(c->t, &a, &b); } // a source token occurs twice
    else if (!strcmp(p, "norm_first")) v = c->m->cfg.norm_first; // pre-LN layers
    else if (!strcmp(p, "trained")) v = c->m->train_step >= 0; // the file records where its training ended
    else if (!strcmp(p, "sharp") || !strcmp(p, "flat")) { // attention weights only: beside anything else neither holds
        if (c->stage < 0) return why(out, n, "%s: sharp and flat need a stage", cond);
        v = c->t->stages[c->stage].op == TF_OP_WEIGHTS && (attention_sharpness(c) >= 0.5) == (p[0] == 's');
    } else {
        snprintf(name, sizeof name, "%s", cond);
        return why(out, n, "[if %s]: not a condition tviz knows; use model=NAME, model!=NAME, has STAGE, greedy, tied, pieces, split, aligning, recurrent, "
                           "reversed, sharp, flat, without=PART, twin, norm_first or trained, ! in front for not", name);
    }
    return neg ? !v : v;
}
