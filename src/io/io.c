// io.c — the one-line error, options, shipped models, safe file writing.
#include "io.h"
#include "../lesson/lesson.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TVIZ_ASSETS_DIR
#define TVIZ_ASSETS_DIR "assets"
#endif

int io_error(const char *where, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tf_one_line(msg, sizeof msg); // one line, whatever a file or an argument holds
    char w[512];
    snprintf(w, sizeof w, "%s", where ? where : "");
    tf_one_line(w, sizeof w);
    where = where ? w : NULL;
    if (where) fprintf(stderr, "tviz: %s: %s\n", where, msg);
    else fprintf(stderr, "tviz: %s\n", msg);
    return 1;
}

int io_opt(int argc, char **argv, int *i, const char *name, const char *alias, const char **val) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (!strncmp(a, name, n) && a[n] == '=') { *val = a + n + 1; return 1; }
    if (strcmp(a, name) && !(alias && !strcmp(a, alias))) return 0;
    if (*i + 1 >= argc) { io_error(a, "needs a value; see tviz --help"); return -1; }
    *val = argv[++*i];
    return 1;
}

const char *io_assets_dir(void) {
    static char dir[PATH_MAX];
    return tviz_data_dir("assets", "TVIZ_ASSETS", TVIZ_ASSETS_DIR, dir, sizeof dir);
}

int io_resolve_model(const char *name, char *out, size_t n) {
    struct stat st;
    if (!*name) return io_error("--model", "is empty; give a model file or a shipped name such as " IO_DEFAULT_MODEL);
    int is_path = strchr(name, '/') || strstr(name, ".safetensors");
    if (is_path || !stat(name, &st)) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    snprintf(out, n, "%s/models/%s.safetensors", io_assets_dir(), name);
    if (!stat(out, &st)) return 0;
    return io_error(name, "no such model file or shipped model; shipped ones are in %s/models (e.g. " IO_DEFAULT_MODEL
                           "), or give a path to a .safetensors file", io_assets_dir());
}

int io_load_model(tf_model *m, const char *name, char *path, size_t n) {
    if (io_resolve_model(name, path, n)) return 1;
    tf_err e;
    if (tf_model_load(m, path, &e)) return io_error(path, "%s", e.msg);
    return 0;
}

int io_write_file(const char *path, const char *data, size_t len) {
    if (!strcmp(path, "-")) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) return io_error("stdout", "write failed (%s)", strerror(errno));
        return 0;
    }
    struct stat st;
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        // a device or a pipe (/dev/stdout, a FIFO): write into it, never rename over it
        if (S_ISDIR(st.st_mode)) return io_error(path, "is a folder; give a file name");
        FILE *f = fopen(path, "wb");
        if (!f) return io_error(path, "cannot write here (%s)", strerror(errno));
        int ok = fwrite(data, 1, len, f) == len, err = errno;
        if (fclose(f)) { ok = 0; err = errno; }
        return ok ? 0 : io_error(path, "writing failed (%s)", strerror(err));
    }
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof tmp) return io_error(path, "the path is too long");
    FILE *f = fopen(tmp, "wb");
    if (!f) return io_error(path, "cannot write here (%s); check that the folder exists and is writable", strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    int err = errno;
    if (fclose(f)) { ok = 0; err = errno; }
    if (ok && rename(tmp, path)) { ok = 0; err = errno; }
    if (!ok) {
        remove(tmp);
        return io_error(path, "writing failed (%s); nothing was written", strerror(err));
    }
    return 0;
}

