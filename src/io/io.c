// io.c — the one-line error, options, shipped models, safe file writing.
#include "io.h"
#include "data.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int io_resolve_model(const char *name, char *out, size_t n) {
    struct stat st;
    if (!*name) return io_error("--model", "is empty; give a model file or a shipped name such as " IO_DEFAULT_MODEL);
    int is_path = strchr(name, '/') || strstr(name, ".safetensors");
    if (is_path || !stat(name, &st)) {
        snprintf(out, n, "%s", name);
        return 0;
    }
    int k = io_shipped_model(name, out, n);
    if (!k) return 0;
    if (k == IO_NO_DATA)
        return io_error(name, "not found: no such file here, and no shipped models (%s); give a .safetensors file, "
                              "set TVIZ_DATA_DIR or reinstall", io_data_looked(IO_MODELS));
    char names[512];
    io_shipped_models(names, sizeof names);
    return io_error(name, "no such model file or shipped model; the shipped ones are %s, or give a path to a .safetensors file",
                    names[0] ? names : "(none)");
}

int io_load_model(tf_model *m, const char *name, char *path, size_t n) {
    if (io_resolve_model(name, path, n)) return 1;
    tf_err e;
    size_t l = strlen(name); // (a MarianMT folder's name without its trailing /)
    while (l > 1 && name[l - 1] == '/') l--;
    if (tf_model_load(m, path, &e)) {
        if (!tf_is_dir(path)) return io_error(name, "%s", e.msg); // as typed: a shipped model's folder is not the user's
        // a MarianMT folder: the message starts with the file in it (and its line): DIR/config.json:12: …
        return io_error(NULL, "%.*s/%s", (int)l, name, e.msg);
    }
    // a warning the loader left (a MarianMT folder's): tviz: warning: DIR/model.safetensors: …
    if (m->note[0]) fprintf(stderr, "tviz: warning: %.*s/%s\n", (int)l, name, m->note);
    return 0;
}

const char *io_no_lessons(void) {
    static char msg[256];
    snprintf(msg, sizeof msg, "not found (%s); set TVIZ_DATA_DIR or reinstall", io_data_looked(IO_LESSONS));
    return msg;
}

void io_beside(char *buf, size_t n, const char *model_path, const char *suffix) {
    size_t l = strlen(model_path);
    const char *ext = ".safetensors";
    size_t el = strlen(ext);
    if (l > el && !strcmp(model_path + l - el, ext)) l -= el;
    snprintf(buf, n, "%.*s%s", (int)l, model_path, suffix);
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

