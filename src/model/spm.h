// spm.h — SentencePiece models (MarianMT's source.spm and target.spm) behind a
// C interface. Debian's libsentencepiece is a C++ library with no C API, so
// spm.cc is a small C++ shim that only calls it; the rest of tviz stays C11.
// The browser build has no SentencePiece: src/web/spm.c gives these entry
// points an answer that says so.
#ifndef TF_SPM_H
#define TF_SPM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tf_spm tf_spm;

// Reads a SentencePiece model file; NULL when it cannot, with the reason in why (n bytes).
tf_spm *tf_spm_load(const char *path, char *why, size_t n);
void tf_spm_free(tf_spm *s);
// The pieces of UTF-8 text, as spm_encode prints them (malloc'd strings in a
// malloc'd array, free each and the array). Returns their count, or -1.
int tf_spm_encode(const tf_spm *s, const char *text, char ***pieces);
int tf_spm_size(const tf_spm *s);                 // pieces the model holds
const char *tf_spm_piece(const tf_spm *s, int i); // piece i (valid while s lives)
int tf_spm_is_normal(const tf_spm *s, int i);     // 1: a piece of text (not <unk>, <s>, </s>, unused or a byte)

#ifdef __cplusplus
}
#endif
#endif
