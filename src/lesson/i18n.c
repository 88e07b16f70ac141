// i18n.c — gettext for the window's interface, switchable at run time.
//
// GNU gettext picks the catalogue from LANGUAGE, but ignores LANGUAGE while
// the message locale is "C" (the usual one in containers and tests, where no
// other locale may be installed). So the message category is moved to a
// UTF-8 locale that always exists (C.UTF-8), the catalogue is read as UTF-8
// whatever LC_CTYPE says, and a language switch sets LANGUAGE and tells
// gettext to forget the translations it has cached.
#include "i18n.h"

#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TVIZ_LOCALE_DIR
#define TVIZ_LOCALE_DIR "build/locale"
#endif

#ifdef __GLIBC__
extern int _nl_msg_cat_cntr; // glibc's catalogue generation: bumped, cached translations are looked up again
#endif

static int is_dir(const char *p) {
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

const char *i18n_locale_dir(void) {
    static char dir[PATH_MAX];
    const char *v = getenv("TVIZ_LOCALE");
    if (v && *v) return v;
    if (dir[0]) return dir;
    char exe[PATH_MAX], guess[PATH_MAX + 32];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = k > 0 ? (exe[k] = 0, strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = 0;
        static const char *rel[] = {"locale", "../share/locale"}; // build/tviz; bin/tviz of an installed tree
        for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
            snprintf(guess, sizeof guess, "%s/%s", exe, rel[i]);
            if (is_dir(guess) && realpath(guess, dir)) return dir;
        }
    }
    dir[0] = 0;
    return TVIZ_LOCALE_DIR;
}

void i18n_init(void) {
    const char *cur = setlocale(LC_MESSAGES, "");
    if (!cur || !strcmp(cur, "C") || !strcmp(cur, "POSIX")) {
        static const char *utf8[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8"};
        for (size_t i = 0; i < sizeof utf8 / sizeof *utf8; i++)
            if (setlocale(LC_MESSAGES, utf8[i])) break;
    }
    bindtextdomain("tviz", i18n_locale_dir());
    bind_textdomain_codeset("tviz", "UTF-8");
    textdomain("tviz");
}

int i18n_set_language(const char *lang) {
    if (!lang || !*lang) lang = "en";
    setenv("LANGUAGE", lang, 1);
#ifdef __GLIBC__
    ++_nl_msg_cat_cntr;
#endif
    char mo[PATH_MAX + 64];
    snprintf(mo, sizeof mo, "%s/%s/LC_MESSAGES/tviz.mo", i18n_locale_dir(), lang);
    return access(mo, R_OK) == 0;
}
