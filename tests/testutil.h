// testutil.h — small helpers shared by the cmocka tests.
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/model/tf.h"

// Reads a whole file; NULL if it cannot. *n gets its size.
static inline char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) buf[len] = 0;
    if (n) *n = (size_t)len;
    return buf;
}

static inline void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

// A fresh temporary folder for one test binary.
static inline const char *test_tmpdir(void) {
    static char dir[64];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/tviz-test-XXXXXX");
        assert_non_null(mkdtemp(dir));
    }
    return dir;
}

#define CHECK_CLOSE(a, b, tol) do { \
        double a_ = (a), b_ = (b); \
        if (!(fabs(a_ - b_) <= (tol))) fail_msg("%s = %.9g, expected %.9g (tolerance %g)", #a, a_, b_, (double)(tol)); \
    } while (0)

#endif
