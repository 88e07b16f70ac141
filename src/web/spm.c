// spm.c — spm.h in the browser: Debian's libsentencepiece is C++ and is not
// compiled to WebAssembly here, so a MarianMT folder cannot be tokenized in
// the browser; its loader stops at source.spm with this reason. The desktop
// tviz opens such folders (src/model/spm.cc).
#include "../model/spm.h"

#include <stdio.h>

tf_spm *tf_spm_load(const char *path, char *why, size_t n) {
    (void)path;
    snprintf(why, n, "the browser build has no SentencePiece; open MarianMT folders with the desktop tviz");
    return NULL;
}
void tf_spm_free(tf_spm *s) { (void)s; }
int tf_spm_encode(const tf_spm *s, const char *text, char ***pieces) { (void)s; (void)text; *pieces = NULL; return -1; }
int tf_spm_size(const tf_spm *s) { (void)s; return 0; }
const char *tf_spm_piece(const tf_spm *s, int i) { (void)s; (void)i; return ""; }
int tf_spm_is_normal(const tf_spm *s, int i) { (void)s; (void)i; return 0; }
