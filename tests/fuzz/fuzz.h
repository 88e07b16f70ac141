// fuzz.h — what the libFuzzer targets share (tests/fuzz/fuzz_*.c).
// Each target defines LLVMFuzzerTestOneInput; a broken invariant aborts
// through FUZZ_CHECK, which libFuzzer reports as a crash with its input.
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// The input as a NUL-terminated string (malloc'd; free it).
static inline char *fuzz_cstr(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    FUZZ_CHECK(s);
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

// An error message is one line: "what is wrong; what to do", no newline.
static inline void fuzz_check_message(const char *msg) {
    FUZZ_CHECK(msg[0]);
    FUZZ_CHECK(!strchr(msg, '\n'));
}

#endif
