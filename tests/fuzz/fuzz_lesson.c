// fuzz_lesson.c — the lesson parser and the glossary parser on any bytes.
// The input goes to a memory file (memfd) that both read by path; the first
// byte picks the language (en, fa or ar: how glossary words inflect) and which parser.
#define _GNU_SOURCE
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "../../src/lesson/lesson.h"
#include "../../src/render/render.h"

// A small model and sentence whose trace the live values ({{…}}, [if …]) read.
static render_lesson_ctx *values(void) {
    static tf_model m;
    static tf_run r;
    static render_lesson_ctx c;
    if (!c.t) {
        tf_config cfg = {.C = 4, .H = 2, .F = 8, .L_enc = 1, .L_dec = 1, .eps = 1e-5f, .embed_scale_is_sqrt = 1, .max_len = 6};
        tf_err e;
        FUZZ_CHECK(tf_model_init(&m, &cfg, "<unk>\n<bos>\n<eos>\na\nb", NULL, 1, &e) == 0);
        FUZZ_CHECK(tf_run_sentence(&r, &m, "a b", NULL, &e) == 0);
        c = (render_lesson_ctx){&r.trace, &m, "fuzz", -1, r.greedy};
    }
    return &c;
}

static const char *ids[] = {"src.pe", "enc.0.self_attn.head.1.weights", "dec.1.cross_attn.out", "out.probs", "intro", ""};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("lesson", 0);
        FUZZ_CHECK(fd >= 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (size < 1) return 0;
    FUZZ_CHECK(ftruncate(fd, 0) == 0);
    FUZZ_CHECK(pwrite(fd, data + 1, size - 1, 0) == (ssize_t)(size - 1));
    const char *lang = data[0] & 4 ? "ar" : data[0] & 1 ? "fa" : "en";
    char err[512] = "";
    if (data[0] & 2) {
        glossary g;
        if (glossary_load(&g, path, lang, err, sizeof err) == 0) {
            for (int i = 0; i < g.n; i++) {
                FUZZ_CHECK(g.key[i][0] && g.word[i][0]);
                FUZZ_CHECK(glossary_word(&g, g.key[i]) == g.word[i]);
            }
            for (int i = 0; i < g.n_forms; i++) FUZZ_CHECK(g.forms[i].entry >= 0 && g.forms[i].entry < g.n && g.forms[i].text[0]);
            // the glossary's words found in the file itself (its comments are text): whole words, in order, not overlapping
            char *text = malloc(size);
            FUZZ_CHECK(text);
            memcpy(text, data + 1, size - 1);
            text[size - 1] = 0;
            int len = (int)strlen(text), prev = 0;
            glossary_hit h[64];
            int n = glossary_find(&g, text, h, 64);
            FUZZ_CHECK(n >= 0 && n <= 64);
            for (int k = 0; k < n; k++) {
                FUZZ_CHECK(h[k].start >= prev && h[k].start < h[k].end && h[k].end <= len);
                FUZZ_CHECK(h[k].entry >= 0 && h[k].entry < g.n);
                if (n < 64) FUZZ_CHECK(glossary_at(&g, text, h[k].start) == h[k].entry);
                prev = h[k].end;
            }
            free(text);
            glossary_free(&g);
        } else fuzz_check_message(err);
        return 0;
    }
    lesson l;
    if (lesson_load(&l, path, lang, err, sizeof err) == 0) {
        FUZZ_CHECK(l.title);
        for (int i = 0; i < l.n; i++) {
            FUZZ_CHECK(l.sec[i].n_patterns >= 1);
            for (int k = 0; k < l.sec[i].n_blocks; k++) {
                const lesson_block *b = &l.sec[i].blocks[k];
                FUZZ_CHECK(b->markup && b->line >= 1);
                // every value and condition read beside some stage (or none): a value or "?", a condition 1, 0 or -1 with a reason
                render_lesson_ctx *c = values();
                c->stage = (int)((unsigned)(i * 31 + k + data[0]) % (unsigned)(c->t->n + 1)) - 1;
                char out[300], why[300] = "";
                lesson_expand(b->markup, render_lesson_value, c, out, sizeof out);
                FUZZ_CHECK(memchr(out, 0, sizeof out) != NULL);
                if (b->cond) {
                    FUZZ_CHECK(b->cond[0]);
                    int v = render_lesson_cond(c, b->cond, why, sizeof why);
                    FUZZ_CHECK(v == 1 || v == 0 || (v == -1 && why[0]));
                }
            }
        }
        for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
            const lesson_section *s = lesson_for_stage(&l, ids[i]);
            FUZZ_CHECK(!s || (s >= l.sec && s < l.sec + l.n));
            s = lesson_section_named(&l, ids[i]);
            FUZZ_CHECK(!s || (s >= l.sec && s < l.sec + l.n));
        }
        lesson_free(&l);
    } else {
        fuzz_check_message(err);
        // "LINE: what is wrong; what to do", the line a number from 0 (unreadable) up
        char *end;
        long line = strtol(err, &end, 10);
        FUZZ_CHECK(end != err && *end == ':' && line >= 0);
    }
    return 0;
}
