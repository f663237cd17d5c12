/* Floor for bench-types: GIO's g_content_type_guess (shared-mime-info through xdgmime) on
 * each file named on stdin, one per line: read up to BOUND bytes, guess with the name and
 * the bytes, print the MIME type. One process, like `file -f`. */
#include <gio/gio.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  size_t bound = argc > 1 ? (size_t)atol(argv[1]) : 65536;
  char *buffer = g_malloc(bound);
  char line[8192];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    int fd = open(line, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    ssize_t got = 0;
    if (fd >= 0) { got = pread(fd, buffer, bound, 0); close(fd); }
    if (got < 0) got = 0;
    gboolean uncertain = FALSE;
    gchar *type = g_content_type_guess(line, (const guchar *)buffer, (gsize)got, &uncertain);
    gchar *mime = g_content_type_get_mime_type(type);
    printf("%s\n", mime ? mime : type);
    g_free(mime);
    g_free(type);
  }
  g_free(buffer);
  return 0;
}
