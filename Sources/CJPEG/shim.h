#include <stdio.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <jpeglib.h>

/* libjpeg reports errors through error_exit, which by default ends the process; here it
   longjmps back into the one C function that owns the setjmp (Swift cannot). */

struct cjpeg_error { struct jpeg_error_mgr manager; jmp_buf back; };

static inline void cjpeg_error_exit(j_common_ptr info) {
  longjmp(((struct cjpeg_error *)info->err)->back, 1);
}
static inline void cjpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

/* Encodes a cairo ARGB32 image (native-endian premultiplied 32-bit words, `stride` bytes a
   row) as a baseline JPEG of `quality` (1-100) into memory libjpeg allocates (*out, freed
   with free()). Alpha is dropped: premultiplied colour is colour over black, as a JPEG of a
   transparent image shows it. Returns 0 on success, 1 when libjpeg failed. */
static inline int cjpeg_encode_argb32(const uint8_t *pixels, int width, int height, int stride, int quality,
                                      unsigned char **out, unsigned long *out_size) {
  struct jpeg_compress_struct info;
  struct cjpeg_error error;
  unsigned char *volatile row = NULL;
  *out = NULL;
  *out_size = 0;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cjpeg_error_exit;
  error.manager.emit_message = cjpeg_quiet;
  if (setjmp(error.back)) {
    jpeg_destroy_compress(&info);
    free(row);
    free(*out);
    *out = NULL;
    return 1;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, out, out_size);
  info.image_width = (JDIMENSION)width;
  info.image_height = (JDIMENSION)height;
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  row = (unsigned char *)malloc((size_t)width * 3);
  if (!row) longjmp(error.back, 1);
  while (info.next_scanline < info.image_height) {
    const uint32_t *source = (const uint32_t *)(pixels + (size_t)info.next_scanline * (size_t)stride);
    for (int x = 0; x < width; x++) {
      uint32_t pixel = source[x];
      row[x * 3] = (unsigned char)(pixel >> 16);
      row[x * 3 + 1] = (unsigned char)(pixel >> 8);
      row[x * 3 + 2] = (unsigned char)pixel;
    }
    JSAMPROW rows[1] = { row };
    jpeg_write_scanlines(&info, rows, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  free(row);
  return 0;
}
