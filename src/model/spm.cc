// spm.cc — the C interface of spm.h over Debian's libsentencepiece (C++).
// Nothing here but calls into the library; no exception crosses into C.
#include "spm.h"

#include <sentencepiece_processor.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

struct tf_spm {
    sentencepiece::SentencePieceProcessor sp;
};

extern "C" tf_spm *tf_spm_load(const char *path, char *why, size_t n) {
    try {
        tf_spm *s = new tf_spm;
        const auto status = s->sp.Load(path);
        if (!status.ok()) {
            snprintf(why, n, "%s", status.ToString().c_str());
            delete s;
            return nullptr;
        }
        if (s->sp.GetPieceSize() < 1) {
            snprintf(why, n, "it holds no pieces");
            delete s;
            return nullptr;
        }
        return s;
    } catch (const std::exception &x) {
        snprintf(why, n, "%s", x.what());
        return nullptr;
    }
}

extern "C" void tf_spm_free(tf_spm *s) { delete s; }

extern "C" int tf_spm_encode(const tf_spm *s, const char *text, char ***pieces) {
    *pieces = nullptr;
    try {
        std::vector<std::string> p;
        if (!s->sp.Encode(text, &p).ok()) return -1;
        char **out = static_cast<char **>(calloc(p.size() + 1, sizeof *out));
        if (!out) return -1;
        for (size_t i = 0; i < p.size(); i++)
            if (!(out[i] = strdup(p[i].c_str()))) {
                for (size_t k = 0; k < i; k++) free(out[k]);
                free(out);
                return -1;
            }
        *pieces = out;
        return static_cast<int>(p.size());
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int tf_spm_size(const tf_spm *s) { return s->sp.GetPieceSize(); }

extern "C" const char *tf_spm_piece(const tf_spm *s, int i) { return s->sp.IdToPiece(i).c_str(); }

extern "C" int tf_spm_is_normal(const tf_spm *s, int i) {
    return !s->sp.IsControl(i) && !s->sp.IsUnknown(i) && !s->sp.IsUnused(i) && !s->sp.IsByte(i);
}
