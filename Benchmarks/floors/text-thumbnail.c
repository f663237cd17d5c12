/* The floor for a small Markdown thumbnail (bench-speed): the least a program that draws text
   with the same libraries must do. It reads the file, lays its text out with pango (the
   default font map, so fontconfig reads the machine's configuration and font caches, as
   Quire's does), draws it with cairo on a white SIZE x SIZE image and writes a PNG with
   cairo's writer. No Markdown parsing, no type identification, no argument parser.

   Usage: text-thumbnail-floor SIZE IN OUT
   Built by bench-speed with: cc -O2 text-thumbnail.c $(pkg-config --cflags --libs pangocairo) */
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: text-thumbnail-floor SIZE IN OUT\n"); return 2; }
  int size = atoi(argv[1]);
  gchar *text = NULL;
  gsize length = 0;
  if (!g_file_get_contents(argv[2], &text, &length, NULL)) { fprintf(stderr, "cannot read %s\n", argv[2]); return 1; }
  cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, size, size);
  cairo_t *cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  PangoLayout *layout = pango_cairo_create_layout(cr);
  PangoFontDescription *font = pango_font_description_from_string("Sans 9");
  pango_layout_set_font_description(layout, font);
  pango_layout_set_width(layout, (size - 16) * PANGO_SCALE);
  pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text(layout, text, (int)length);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_move_to(cr, 8, 8);
  pango_cairo_show_layout(cr, layout);
  int status = cairo_surface_write_to_png(surface, argv[3]) == CAIRO_STATUS_SUCCESS ? 0 : 1;
  g_object_unref(layout);
  pango_font_description_free(font);
  cairo_destroy(cr);
  cairo_surface_destroy(surface);
  g_free(text);
  return status;
}
