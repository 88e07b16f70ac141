// data.c — finding the files tviz ships (the order is in data.h).
#include "data.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *env;       // its own variable
    const char *env_sub;   // what it holds below that folder
    const char *name;      // below TVIZ_DATA_DIR
    const char *beside;    // below the program's folder (NULL: not looked for there)
    const char *installed; // below the program's folder, installed
    const char *checkout;  // below a checkout
} where[IO_N_DATA] = {
    [IO_MODELS] = {"TVIZ_ASSETS", "models", "models", NULL, "../share/tviz/models", "assets/models"},
    [IO_LESSONS] = {"TVIZ_LESSONS", "", "lessons", NULL, "../share/tviz/lessons", "lessons"},
    [IO_LOCALE] = {"TVIZ_LOCALE", "", "locale", "locale", "../share/locale", "build/locale"},
    [IO_CORPUS] = {"TVIZ_ASSETS", "corpus", "corpus", NULL, "../share/tviz/corpus", "assets/corpus"},
};

static int is_dir(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

// base/rel, if it is a folder: its real path into out (PATH_MAX). Returns 1 if so.
static int folder(const char *base, const char *rel, char *out) {
    char p[PATH_MAX + 64];
    if (snprintf(p, sizeof p, "%s%s%s", base, *rel ? "/" : "", rel) >= (int)sizeof p) return 0;
    return is_dir(p) && realpath(p, out);
}

// The running program's folder (the kernel's resolved path of /proc/self/exe).
static int program_dir(char *out) {
    ssize_t k = readlink("/proc/self/exe", out, PATH_MAX - 1);
    if (k <= 0) return 0;
    out[k] = 0;
    char *slash = strrchr(out, '/');
    if (!slash) return 0;
    if (slash == out) slash[1] = 0; // "/tviz": the root
    else *slash = 0;
    return 1;
}

// A checkout the program was built in: the nearest of its parents (three at
// most: build/, build/asan/, build/fuzz/) holding assets/models and lessons.
static int checkout_dir(const char *prog, char *out) {
    char d[PATH_MAX];
    snprintf(d, sizeof d, "%s", prog);
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(d, '/');
        if (!slash || slash == d) return 0;
        *slash = 0;
        char a[PATH_MAX], l[PATH_MAX];
        if (folder(d, "assets/models", a) && folder(d, "lessons", l)) {
            snprintf(out, PATH_MAX, "%s", d);
            return 1;
        }
    }
    return 0;
}

const char *io_data_dir(io_data what) {
    static char found[IO_N_DATA][PATH_MAX];
    if ((int)what < 0 || what >= IO_N_DATA) return NULL;
    char *out = found[what];
    const char *v = getenv(where[what].env);
    if (v && *v) return folder(v, where[what].env_sub, out) ? out : NULL;
    v = getenv("TVIZ_DATA_DIR");
    if (v && *v) { // (an installed share/tviz keeps its translations in share/locale: D/../locale)
        if (folder(v, where[what].name, out)) return out;
        return what == IO_LOCALE && folder(v, "../locale", out) ? out : NULL;
    }
    char prog[PATH_MAX], root[PATH_MAX];
    if (!program_dir(prog)) return NULL;
    if (where[what].beside && folder(prog, where[what].beside, out)) return out;
    if (folder(prog, where[what].installed, out)) return out;
    if (checkout_dir(prog, root) && folder(root, where[what].checkout, out)) return out;
    return NULL;
}

const char *io_data_looked(io_data what) {
    static char says[128];
    if ((int)what < 0 || what >= IO_N_DATA) return "";
    const char *v = getenv(where[what].env);
    if (v && *v) snprintf(says, sizeof says, "%s%s%s", where[what].env, *where[what].env_sub ? "/" : "", where[what].env_sub);
    else if ((v = getenv("TVIZ_DATA_DIR")) && *v) snprintf(says, sizeof says, "TVIZ_DATA_DIR/%s", where[what].name);
    else snprintf(says, sizeof says, "%s beside the program", where[what].installed);
    return says;
}

static const char suffix[] = ".safetensors";

int io_shipped_model(const char *name, char *out, size_t n) {
    const char *dir = io_data_dir(IO_MODELS);
    if (!dir) return IO_NO_DATA;
    if (!*name || strchr(name, '/') || name[0] == '.') return IO_NO_SUCH;
    struct stat st;
    if (snprintf(out, n, "%s/%s%s", dir, name, suffix) >= (int)n || stat(out, &st) || !S_ISREG(st.st_mode)) return IO_NO_SUCH;
    return 0;
}

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); } // rows of char[64]

int io_shipped_models(char *out, size_t n) {
    if (n) out[0] = 0;
    const char *dir = io_data_dir(IO_MODELS);
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return 0;
    char names[64][64];
    int k = 0;
    struct dirent *de;
    size_t sl = strlen(suffix);
    while ((de = readdir(d)) && k < 64) {
        size_t l = strlen(de->d_name);
        if (de->d_name[0] == '.' || l <= sl || l - sl >= sizeof names[0] || strcmp(de->d_name + l - sl, suffix)) continue;
        char path[PATH_MAX + 300];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode)) continue; // (a folder of that name is not a model)
        snprintf(names[k++], sizeof names[0], "%.*s", (int)(l - sl), de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], cmp_name);
    size_t used = 0;
    for (int i = 0; i < k && n; i++) {
        int w = snprintf(out + used, n - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= n - used) { out[used] = 0; break; } // whole names only
        used += (size_t)w;
    }
    return k;
}
