#include <pango/pangocairo.h>
#include <cairo-ft.h>
#include <fontconfig/fontconfig.h>
#include <hb.h>
#include <hb-ot.h>

/* PangoLayout / PangoFontDescription handles: GObject casts Swift cannot express. */
static inline void cpango_object_release(void *object) { g_object_unref(object); }
