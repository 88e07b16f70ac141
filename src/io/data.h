// data.h — where tviz finds the files it ships: models, lessons and the
// interface's translations. Nothing of the build's folder is compiled in;
// each kind of data is looked for, first found wins:
//
//   1. its own variable: TVIZ_ASSETS (a folder holding models/),
//      TVIZ_LESSONS, TVIZ_LOCALE — for tests and translators;
//   2. TVIZ_DATA_DIR=D: D/models, D/lessons, D/locale (or D/../locale, so
//      that D can be an installed share/tviz), and nowhere else;
//   3. beside the program: <bin>/locale (build/locale next to build/tviz,
//      or a copy of tviz that brings its own catalogues);
//   4. installed (make install): <bin>/../share/tviz/models,
//      <bin>/../share/tviz/lessons, <bin>/../share/locale;
//   5. a checkout: the nearest folder above the program (build/tviz,
//      build/asan/tviz) holding assets/models and lessons: its
//      assets/models, lessons and build/locale.
//
// <bin> is the real folder of the running program (/proc/self/exe).
// Messages name these folders by their short names ("models", "lessons"),
// never by the absolute path found.
#ifndef IO_DATA_H
#define IO_DATA_H

#include <stddef.h>

typedef enum { IO_MODELS, IO_LESSONS, IO_LOCALE, IO_CORPUS, IO_N_DATA } io_data; // IO_CORPUS: the corpus word lists

// The folder of one kind of data (an absolute path, valid until the next
// call for the same kind), or NULL when none is found.
const char *io_data_dir(io_data what);

// Where io_data_dir looked, for a message that it found nothing (names of
// variables and folders relative to the program, no absolute path):
// "TVIZ_DATA_DIR/lessons", "TVIZ_LESSONS", "../share/tviz/lessons beside the program".
const char *io_data_looked(io_data what);

// A shipped model by its name: <models>/<name>.safetensors into out.
// Returns 0, IO_NO_DATA when there is no models folder, IO_NO_SUCH when the
// folder has no such model (or the name is not a plain file name).
enum { IO_NO_DATA = -1, IO_NO_SUCH = -2 };
int io_shipped_model(const char *name, char *out, size_t n);

// The shipped models' names, sorted and joined by ", " ("en-fa,
// worked-example"); returns how many there are (0: out is "").
int io_shipped_models(char *out, size_t n);

#endif
