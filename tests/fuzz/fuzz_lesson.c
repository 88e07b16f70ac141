// fuzz_lesson.c — the lesson parser and the glossary parser on any bytes.
// The input goes to a memory file (memfd) that both read by path; the first
// byte picks the language (left to right or not) and which parser.
#define _GNU_SOURCE
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "../../src/lesson/lesson.h"

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
    const char *lang = data[0] & 1 ? "fa" : "en";
    char err[512] = "";
    if (data[0] & 2) {
        glossary g;
        if (glossary_load(&g, path, lang, err, sizeof err) == 0) {
            for (int i = 0; i < g.n; i++) {
                FUZZ_CHECK(g.key[i][0] && g.word[i][0]);
                FUZZ_CHECK(glossary_word(&g, g.key[i]) == g.word[i]);
            }
            glossary_free(&g);
        } else fuzz_check_message(err);
        return 0;
    }
    lesson l;
    if (lesson_load(&l, path, lang, err, sizeof err) == 0) {
        FUZZ_CHECK(l.title);
        for (int i = 0; i < l.n; i++) {
            FUZZ_CHECK(l.sec[i].n_patterns >= 1);
            for (int k = 0; k < l.sec[i].n_blocks; k++) FUZZ_CHECK(l.sec[i].blocks[k].markup && l.sec[i].blocks[k].line >= 1);
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
