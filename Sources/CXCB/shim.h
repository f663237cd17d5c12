#include <stdint.h>
#include <string.h>
#include <xcb/xcb.h>
#include <xcb/xfixes.h>

/* xcb_xfixes_id is a mutable C global, which Swift 6 refuses to touch: hand out its address. */
static inline xcb_extension_t *cxcb_xfixes_extension(void) { return &xcb_xfixes_id; }

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
