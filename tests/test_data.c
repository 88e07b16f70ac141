// test_data.c — where tviz finds its models, lessons and translations
// (src/io/data.h): in this checkout from build/, through each variable, and
// through TVIZ_DATA_DIR alone. (The installed layout, share/tviz beside
// bin/, is run for real by tests/install_test.sh.)
#include "testutil.h"

#include <dirent.h>

#include <limits.h>
#include <sys/stat.h>

#include "../src/io/data.h"

static const char *vars[] = {"TVIZ_DATA_DIR", "TVIZ_ASSETS", "TVIZ_LESSONS", "TVIZ_LOCALE"};

static int clean_env(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
    return 0;
}

static void real(const char *rel, char *out) { assert_non_null(realpath(rel, out)); }

static void mk(const char *dir, const char *rel) {
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(mkdir(p, 0777), 0);
}

static void touch(const char *dir, const char *rel) {
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    write_file(p, "x", 1);
}

// A fresh folder below the test's temporary one.
static const char *fresh(const char *name) {
    static char d[256];
    snprintf(d, sizeof d, "%.100s/%.100s", test_tmpdir(), name);
    assert_int_equal(mkdir(d, 0777), 0);
    return d;
}

// data/checkout: build/test_data finds the checkout's assets/models, lessons
// and build/locale (make runs the tests from the checkout's top folder).
static void checkout(void **state) {
    (void)state;
    char want[PATH_MAX];
    real("assets/models", want);
    assert_string_equal(io_data_dir(IO_MODELS), want);
    real("lessons", want);
    assert_string_equal(io_data_dir(IO_LESSONS), want);
    real("build/locale", want);
    assert_string_equal(io_data_dir(IO_LOCALE), want);
    assert_null(io_data_dir(IO_N_DATA));
}

// data/own-variables: TVIZ_ASSETS (its models/), TVIZ_LESSONS, TVIZ_LOCALE;
// a variable naming no folder finds nothing rather than something else.
static void own_variables(void **state) {
    (void)state;
    char d[256], want[PATH_MAX];
    snprintf(d, sizeof d, "%.250s", fresh("own"));
    mk(d, "models");
    setenv("TVIZ_ASSETS", d, 1);
    snprintf(want, sizeof want, "%s/models", d);
    assert_string_equal(io_data_dir(IO_MODELS), want);
    setenv("TVIZ_LESSONS", d, 1);
    assert_string_equal(io_data_dir(IO_LESSONS), d);
    setenv("TVIZ_LOCALE", "/nonexistent", 1);
    assert_null(io_data_dir(IO_LOCALE));
    setenv("TVIZ_DATA_DIR", "/nonexistent", 1); // the variable of one kind wins
    assert_string_equal(io_data_dir(IO_LESSONS), d);
    clean_env(NULL);
}

// data/data-dir: D/models, D/lessons, D/locale and nowhere else (not the checkout).
static void data_dir_alone(void **state) {
    (void)state;
    char d[256], want[PATH_MAX];
    snprintf(d, sizeof d, "%.250s", fresh("share-tviz"));
    mk(d, "models");
    mk(d, "lessons");
    setenv("TVIZ_DATA_DIR", d, 1);
    snprintf(want, sizeof want, "%s/models", d);
    assert_string_equal(io_data_dir(IO_MODELS), want);
    snprintf(want, sizeof want, "%s/lessons", d);
    assert_string_equal(io_data_dir(IO_LESSONS), want);
    assert_null(io_data_dir(IO_LOCALE)); // no D/locale: English, not the checkout's build/locale
    mk(d, "../locale"); // D an installed share/tviz: share/locale
    snprintf(want, sizeof want, "%s/locale", test_tmpdir());
    char real_want[PATH_MAX];
    real(want, real_want);
    assert_string_equal(io_data_dir(IO_LOCALE), real_want);
    mk(d, "locale"); // its own wins
    snprintf(want, sizeof want, "%s/locale", d);
    assert_string_equal(io_data_dir(IO_LOCALE), want);
    clean_env(NULL);
}

// data/shipped: a name finds <models>/<name>.safetensors; anything else does not.
static void shipped_models(void **state) {
    (void)state;
    char path[PATH_MAX], want[PATH_MAX], list[256];
    assert_int_equal(io_shipped_model("worked-example", path, sizeof path), 0);
    real("assets/models/worked-example.safetensors", want);
    assert_string_equal(path, want);
    assert_int_equal(io_shipped_model("nosuch", path, sizeof path), IO_NO_SUCH);
    assert_int_equal(io_shipped_model("../models/en-fa", path, sizeof path), IO_NO_SUCH);
    assert_int_equal(io_shipped_model("", path, sizeof path), IO_NO_SUCH);
    assert_int_equal(io_shipped_model("en-fa.snapshots/step-000250", path, sizeof path), IO_NO_SUCH);
    assert_int_equal(io_shipped_model("worked-example", path, 10), IO_NO_SUCH); // does not fit: not cut short
    // every model file of assets/models, counted here, listed by name (sorted)
    int files = 0;
    DIR *dir = opendir("assets/models");
    assert_non_null(dir);
    for (struct dirent *de; (de = readdir(dir));) {
        size_t l = strlen(de->d_name);
        files += l > 12 && !strcmp(de->d_name + l - 12, ".safetensors");
    }
    closedir(dir);
    assert_int_equal(io_shipped_models(list, sizeof list), files);
    assert_true(!strncmp(list, "en-fa, ", 7) && strstr(list, ", worked-example"));

    char d[256];
    snprintf(d, sizeof d, "%.250s", fresh("other"));
    mk(d, "models");
    mk(d, "models/c.safetensors"); // a folder is not a model
    touch(d, "models/b.safetensors");
    touch(d, "models/a.safetensors");
    touch(d, "models/notes.txt");
    touch(d, "models/.safetensors");
    setenv("TVIZ_DATA_DIR", d, 1);
    assert_int_equal(io_shipped_models(list, sizeof list), 2);
    assert_string_equal(list, "a, b");
    assert_int_equal(io_shipped_model("c", path, sizeof path), IO_NO_SUCH);
    assert_int_equal(io_shipped_model("b", path, sizeof path), 0);
    assert_int_equal(io_shipped_models(list, 4), 2); // as much as fits, whole names only
    assert_string_equal(list, "a");

    setenv("TVIZ_DATA_DIR", test_tmpdir(), 1); // no models/ there
    assert_int_equal(io_shipped_model("worked-example", path, sizeof path), IO_NO_DATA);
    assert_int_equal(io_shipped_models(list, sizeof list), 0);
    assert_string_equal(list, "");
    clean_env(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(checkout, clean_env),
        cmocka_unit_test_setup(own_variables, clean_env),
        cmocka_unit_test_setup(data_dir_alone, clean_env),
        cmocka_unit_test_setup(shipped_models, clean_env),
    };
    return cmocka_run_group_tests_name("data", tests, NULL, NULL);
}
