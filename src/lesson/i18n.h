// i18n.h — the window's interface strings through GNU gettext (po/*.po,
// built by the Makefile into build/locale/<lang>/LC_MESSAGES/tviz.mo).
// English is the fallback: a missing catalogue or an untranslated string
// shows the msgid. The command line's messages are not translated.
#ifndef I18N_H
#define I18N_H

#include <libintl.h>

#define _(s) gettext(s)
#define N_(s) (s) // marked for xgettext, translated where it is shown

// The folder that holds <lang>/LC_MESSAGES/tviz.mo, as the program found it
// at start-up (src/io/data.h; build/locale in a checkout, share/locale when
// installed). NULL until set, or when none was found: then English.
void i18n_set_dir(const char *dir);
const char *i18n_locale_dir(void);
// Binds the "tviz" domain (UTF-8) to that folder and makes gettext usable
// even when the message locale is "C", where GNU gettext ignores LANGUAGE.
// Call once, after i18n_set_dir.
void i18n_init(void);
// Switches the interface language at run time (e.g. "fa"); NULL or "en" is
// English. Returns 1 if a catalogue for it was found, 0 if English is shown.
int i18n_set_language(const char *lang);

#endif
