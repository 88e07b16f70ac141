// textfmt.c — the parts of tviz's text that are the same in every build: a
// style's defaults, numbers as the cells show them, plain text made safe for
// markup. (text.c lays text out: pango on the desktop, CanvasKit's
// Paragraph in the browser, src/web/text.c.)
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

render_text_style render_style(double size, render_rgb color) {
    render_text_style s;
    memset(&s, 0, sizeof s);
    s.size = size;
    s.color = color;
    return s;
}

const char *render_format_value(float v, char *buf, size_t n, int digits) {
    if (isinf(v)) snprintf(buf, n, "%s∞", v < 0 ? "−" : "");
    else if (isnan(v)) snprintf(buf, n, "NaN");
    else {
        double a = fabs(v);
        int d = a >= 1000 ? 0 : a >= 100 ? digits - 2 : a >= 10 ? digits - 1 : digits;
        if (d < 0) d = 0;
        snprintf(buf, n, "%.*f", d, (double)v);
        if (buf[0] == '-') { // a real minus sign, and no "-0.00"
            int zero = 1;
            for (const char *p = buf + 1; *p; p++) if (*p >= '1' && *p <= '9') zero = 0;
            if (zero) memmove(buf, buf + 1, strlen(buf));
            else if (strlen(buf) + 3 < n) { memmove(buf + 3, buf + 1, strlen(buf)); memcpy(buf, "−", 3); }
        }
    }
    return buf;
}

size_t render_markup_escape(char *out, size_t n, const char *text) {
    size_t k = 0;
    if (!n) return 0;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : NULL;
        size_t len = e ? strlen(e) : *p < 0x80 ? 1 : *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
        if (k + len >= n) break;
        if (e) memcpy(out + k, e, len);
        else for (size_t i = 0; i < len; i++) {
            if (!p[i]) { len = i; break; } // (a cut sequence at the end of the text: what there is)
            out[k + i] = (char)p[i];
        }
        k += len;
        p += e ? 1 : len;
    }
    out[k] = 0;
    return k;
}
