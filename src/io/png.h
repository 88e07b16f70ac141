// png.h — PNG bytes from cairo's pixels, with stb_image_write (png.c).
// Needs only libc and Debian's libstb-dev, so the desktop and the browser
// build compile the same file.
#ifndef IO_PNG_H
#define IO_PNG_H

#include <stddef.h>

// px: h rows of w pixels, stride bytes apart (stride >= w·4), each a
// premultiplied, native-endian 0xAARRGGBB (cairo's ARGB32). Writes an 8-bit
// PNG: RGB when every pixel is opaque, else straight (un-premultiplied) RGBA.
// *out is malloc'd. Returns 0, or -1 (bad size, or out of memory).
int io_png_encode(const unsigned char *px, int w, int h, int stride, unsigned char **out, size_t *n);

#endif
