#include <poppler.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <glib.h>

/* GObject handles arrive in Swift as OpaquePointer; g_object_unref wants gpointer. */
static inline void cpoppler_object_release(void *object) { g_object_unref(object); }

/* GError is freed with g_error_free; kept here so callers never touch GLib memory rules. */
static inline void cpoppler_error_release(GError *error) { g_error_free(error); }

/* g_free is a macro-adjacent function on some GLib versions; one stable entry point. */
static inline void cpoppler_free(void *pointer) { g_free(pointer); }

/* Checksums and file URIs for the freedesktop thumbnail standard, the way GLib (and so
   GNOME's thumbnail factory) computes them. */
static inline char *cpoppler_md5_hex(const char *text) {
  return g_compute_checksum_for_string(G_CHECKSUM_MD5, text, -1);
}
