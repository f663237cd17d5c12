#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libpng reports errors by longjmp-ing out of its error callback, which Swift cannot do:
   the whole encode runs inside this one C function, which owns the setjmp. */

typedef int (*cpng_write_fn)(void *context, const uint8_t *bytes, size_t length);

struct cpng_io { cpng_write_fn write; void *context; int failed; };

static inline void cpng_write_data(png_structp png, png_bytep data, png_size_t length) {
  struct cpng_io *io = (struct cpng_io *)png_get_io_ptr(png);
  if (io->failed || io->write(io->context, data, length) != 0) {
    io->failed = 1;
    png_error(png, "write failed");
  }
}
static inline void cpng_flush(png_structp png) { (void)png; }
static inline void cpng_quiet(png_structp png, png_const_charp message) { (void)png; (void)message; }

/* Encodes a cairo ARGB32 image (native-endian premultiplied 32-bit words, `stride` bytes a
   row). Opaque images are written as 8-bit RGB straight from cairo's rows (BGRX on little
   endian); others are un-premultiplied into RGBA rows. `level` is the zlib level (0-9),
   `filters` a PNG_FILTER_* mask. Text chunks are tEXt (Latin-1 keys and values).
   Returns 0 on success, 1 when libpng failed, 2 when the sink failed. */
static inline int cpng_encode_argb32(const uint8_t *pixels, int width, int height, int stride,
                                     int opaque, const char *const *keys,
                                     const char *const *values, int text_count, int level,
                                     int filters, cpng_write_fn write, void *context) {
  struct cpng_io io = { write, context, 0 };
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, cpng_quiet, cpng_quiet);
  if (!png) return 1;
  png_infop info = png_create_info_struct(png);
  if (!info) { png_destroy_write_struct(&png, NULL); return 1; }
  uint8_t *volatile row = NULL;
  png_textp volatile text = NULL;
  if (setjmp(png_jmpbuf(png))) {
    free(row);
    free(text);
    png_destroy_write_struct(&png, &info);
    return io.failed ? 2 : 1;
  }
  png_set_write_fn(png, &io, cpng_write_data, cpng_flush);
  png_set_compression_level(png, level);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
  png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
               opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  if (text_count > 0) {
    text = (png_textp)calloc((size_t)text_count, sizeof(png_text));
    if (!text) png_error(png, "out of memory");
    for (int i = 0; i < text_count; i++) {
      text[i].compression = PNG_TEXT_COMPRESSION_NONE;
      text[i].key = (png_charp)keys[i];
      text[i].text = (png_charp)values[i];
      text[i].text_length = strlen(values[i]);
    }
    png_set_text(png, info, text, text_count);
  }
  png_write_info(png, info);
  const uint16_t probe = 1;
  const int little = *(const uint8_t *)&probe == 1;
  if (opaque) {
    /* Rows are 32-bit words 0xAARRGGBB: drop the alpha byte, and swap when little endian. */
    png_set_filler(png, 0, little ? PNG_FILLER_AFTER : PNG_FILLER_BEFORE);
    if (little) png_set_bgr(png);
    for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
  } else {
    row = (uint8_t *)malloc((size_t)width * 4);
    if (!row) png_error(png, "out of memory");
    for (int y = 0; y < height; y++) {
      const uint32_t *src = (const uint32_t *)(pixels + (size_t)y * stride);
      for (int x = 0; x < width; x++) {
        uint32_t w = src[x];
        uint32_t a = w >> 24, r = (w >> 16) & 0xff, g = (w >> 8) & 0xff, b = w & 0xff;
        if (a != 0 && a != 255) { r = (r * 255 + a / 2) / a; g = (g * 255 + a / 2) / a; b = (b * 255 + a / 2) / a; }
        row[4 * x] = (uint8_t)(r > 255 ? 255 : r);
        row[4 * x + 1] = (uint8_t)(g > 255 ? 255 : g);
        row[4 * x + 2] = (uint8_t)(b > 255 ? 255 : b);
        row[4 * x + 3] = (uint8_t)a;
      }
      png_write_row(png, row);
    }
  }
  png_write_end(png, info);
  free(row);
  free(text);
  png_destroy_write_struct(&png, &info);
  return 0;
}

static inline const char *cpng_version(void) { return png_get_libpng_ver(NULL); }
