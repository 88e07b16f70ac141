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

#ifdef __GLIBC__
extern int _nl_msg_cat_cntr; // glibc's catalogue generation: bumped, cached translations are looked up again
#endif

static char locale_folder[PATH_MAX]; // "" until i18n_set_dir

void i18n_set_dir(const char *dir) { snprintf(locale_folder, sizeof locale_folder, "%s", dir ? dir : ""); }

const char *i18n_locale_dir(void) { return locale_folder[0] ? locale_folder : NULL; }

void i18n_init(void) {
    const char *cur = setlocale(LC_MESSAGES, "");
    if (!cur || !strcmp(cur, "C") || !strcmp(cur, "POSIX")) {
        static const char *utf8[] = {"C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8"};
        for (size_t i = 0; i < sizeof utf8 / sizeof *utf8; i++)
            if (setlocale(LC_MESSAGES, utf8[i])) break;
    }
    if (!locale_folder[0]) return; // no catalogues: every string stays English
    bindtextdomain("tviz", locale_folder);
    bind_textdomain_codeset("tviz", "UTF-8");
    textdomain("tviz");
}

int i18n_set_language(const char *lang) {
    if (!lang || !*lang) lang = "en";
    setenv("LANGUAGE", lang, 1);
#ifdef __GLIBC__
    ++_nl_msg_cat_cntr;
#endif
    if (!locale_folder[0]) return 0;
    char mo[PATH_MAX + 64];
    snprintf(mo, sizeof mo, "%s/%s/LC_MESSAGES/tviz.mo", locale_folder, lang);
    return access(mo, R_OK) == 0;
}
