#include <stdint.h>
#include <string.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>
#include <xcb/xcbext.h>

/* The XFIXES extension's record for xcb_get_extension_data, which asks the server by the
   record's name and caches the answer by its address: a record of our own serves as well as
   libxcb-xfixes' xcb_xfixes_id. That variable is not used, so quire refers to no variable of
   the XCB libraries, and scripts/generate-lazy-libraries can load them when the X11 clipboard
   is first used instead of at exec. (Swift 6 refuses to touch a mutable C global itself.) */
static inline xcb_extension_t *cxcb_xfixes_extension(void) {
  static xcb_extension_t extension = {"XFIXES", 0};
  return &extension;
}

/* xcb_send_event takes the event as a 32-byte char buffer: build a SelectionNotify in one. */
static inline xcb_void_cookie_t cxcb_send_selection_notify(xcb_connection_t *c, xcb_window_t requestor,
                                                          xcb_atom_t selection, xcb_atom_t target,
                                                          xcb_atom_t property, xcb_timestamp_t time) {
  char buffer[32];
  memset(buffer, 0, sizeof buffer);
  xcb_selection_notify_event_t *event = (xcb_selection_notify_event_t *)buffer;
  event->response_type = XCB_SELECTION_NOTIFY;
  event->time = time;
  event->requestor = requestor;
  event->selection = selection;
  event->target = target;
  event->property = property;
  return xcb_send_event(c, 0, requestor, XCB_EVENT_MASK_NO_EVENT, buffer);
}
