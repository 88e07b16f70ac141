// san_keep_libs.c — linked into the sanitizer build of tviz only (make
// check-sanitize). SDL and Mesa unload the libraries they open at exit, and
// LeakSanitizer then cannot name (or tests/lsan.supp suppress) what those
// libraries allocated for themselves. Exported from the executable, this
// dlclose comes first for every library: nothing is unloaded, every stack
// keeps its names, and leak checking covers the window too.
int dlclose(void *handle);
int dlclose(void *handle) {
    (void)handle;
    return 0;
}
