#include <pango/pangocairo.h>

/* PangoLayout / PangoFontDescription handles: GObject casts Swift cannot express. */
static inline void cpango_object_release(void *object) { g_object_unref(object); }
