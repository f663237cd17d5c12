/* The like-for-like floor for `quire preview` (bench-speed): cmark-gfm asked for what Quire
   renders. Its own program (`cmark-gfm -e …`) has no footnotes option in Debian 12's 0.29, and
   footnotes cost cmark-gfm two more walks over the tree; this one turns them on
   (CMARK_OPT_FOOTNOTES) with the extensions Quire uses (table, strikethrough, autolink,
   tasklist, tagfilter), in safe mode, with cmark-gfm's arena allocator as its program uses,
   and writes the HTML fragment to standard output.

   Usage: cmark-footnotes-floor FILE
   Built by bench-speed with: cc -O2 cmark-footnotes.c $(pkg-config --cflags --libs libcmark-gfm) -lcmark-gfm-extensions */
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: cmark-footnotes-floor FILE\n"); return 2; }
  FILE *file = fopen(argv[1], "rb");
  if (!file) { perror(argv[1]); return 1; }
  cmark_gfm_core_extensions_ensure_registered();
  int options = CMARK_OPT_FOOTNOTES;
  cmark_parser *parser = cmark_parser_new_with_mem(options, cmark_get_arena_mem_allocator());
  const char *names[] = {"table", "strikethrough", "autolink", "tasklist", "tagfilter"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    cmark_syntax_extension *extension = cmark_find_syntax_extension(names[i]);
    if (extension) cmark_parser_attach_syntax_extension(parser, extension);
  }
  char buffer[65536];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, file)) > 0) cmark_parser_feed(parser, buffer, got);
  fclose(file);
  cmark_node *document = cmark_parser_finish(parser);
  char *html = cmark_render_html_with_mem(document, options, cmark_parser_get_syntax_extensions(parser), cmark_get_arena_mem_allocator());
  fwrite(html, 1, strlen(html), stdout);
  cmark_arena_reset();
  return 0;
}
