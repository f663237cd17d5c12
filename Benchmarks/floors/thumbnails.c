/* The floor for PDF thumbnails: page 1 of each PDF through poppler-glib into a cairo image
   surface at the target scale, on white, encoded by libpng with the same fast settings Quire
   uses (zlib level 1, Sub filter, RGB). No Quire, no worker processes, no time limits, no
   metadata chunks beyond what Quire also writes (none needed for the floor).

   Usage: thumbnails-floor SIZE OUTDIR PROCESSES FILE...
   With PROCESSES > 1 the files are dealt round-robin to that many forked processes.
   Prints "ok N failed M" for all processes together. Built by bench-thumbnails with:
   cc -O2 thumbnails.c $(pkg-config --cflags --libs poppler-glib cairo libpng) */
#include <cairo.h>
#include <glib.h>
#include <png.h>
#include <poppler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_png(cairo_surface_t *s, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f) return 1;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) { png_destroy_write_struct(&png, &info); fclose(f); return 1; }
  png_init_io(png, f);
  png_set_compression_level(png, 1);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
  int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
  png_write_info(png, info);
  png_set_filler(png, 0, PNG_FILLER_AFTER);
  png_set_bgr(png);
  unsigned char *data = cairo_image_surface_get_data(s);
  int stride = cairo_image_surface_get_stride(s);
  for (int y = 0; y < h; y++) png_write_row(png, data + (size_t)y * stride);
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  fclose(f);
  return 0;
}

static int thumbnail(const char *path, int size, const char *outdir, int index) {
  char *uri = g_filename_to_uri(path, NULL, NULL);
  if (!uri) return 1;
  PopplerDocument *doc = poppler_document_new_from_file(uri, NULL, NULL);
  g_free(uri);
  if (!doc) return 1;
  int result = 1;
  PopplerPage *page = poppler_document_get_n_pages(doc) > 0 ? poppler_document_get_page(doc, 0) : NULL;
  if (page) {
    double pw, ph;
    poppler_page_get_size(page, &pw, &ph);
    if (pw > 0 && ph > 0) {
      int w = pw >= ph ? size : (int)(pw * size / ph + 0.5), h = pw >= ph ? (int)(ph * size / pw + 0.5) : size;
      if (w < 1) w = 1;
      if (h < 1) h = 1;
      cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
      cairo_t *cr = cairo_create(s);
      cairo_set_source_rgb(cr, 1, 1, 1);
      cairo_paint(cr);
      cairo_scale(cr, w / pw, h / ph);
      poppler_page_render(page, cr);
      cairo_destroy(cr);
      cairo_surface_flush(s);
      char out[4096];
      snprintf(out, sizeof out, "%s/%d.png", outdir, index);
      result = write_png(s, out);
      cairo_surface_destroy(s);
    }
    g_object_unref(page);
  }
  g_object_unref(doc);
  return result;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: %s SIZE OUTDIR PROCESSES FILE...\n", argv[0]); return 2; }
  int size = atoi(argv[1]), processes = atoi(argv[3]);
  const char *outdir = argv[2];
  if (processes < 1) processes = 1;
  int fds[64][2];
  for (int p = 0; p < processes; p++) {
    pipe(fds[p]);
    if (fork() == 0) {
      int ok = 0, failed = 0;
      for (int i = 4 + p; i < argc; i += processes) {
        if (thumbnail(argv[i], size, outdir, i) == 0) ok++; else failed++;
      }
      dprintf(fds[p][1], "%d %d\n", ok, failed);
      _exit(0);
    }
    close(fds[p][1]);
  }
  int ok = 0, failed = 0;
  for (int p = 0; p < processes; p++) {
    char buf[64] = {0};
    read(fds[p][0], buf, sizeof buf - 1);
    int a = 0, b = 0;
    sscanf(buf, "%d %d", &a, &b);
    ok += a;
    failed += b;
    wait(NULL);
  }
  printf("ok %d failed %d\n", ok, failed);
  return 0;
}
