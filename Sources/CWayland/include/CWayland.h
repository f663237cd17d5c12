#ifndef CWAYLAND_H
#define CWAYLAND_H
/* libwayland-client and the two clipboard protocols that need no window: ext-data-control-v1
   (wayland-protocols) and wlr-data-control-unstable-v1 (wlroots compositors). The wlr header
   and .c file are wayland-scanner's output, made by protocols/generate.sh from Debian's copy
   of the protocol's XML; ext-data-control-v1's interfaces are described by hand in
   ext-data-control-v1.c, and its requests are marshalled below.

   The two protocols have the same requests and events in the same order, so Quire drives
   them through one set of calls that take the protocol as an argument; their events reach
   Swift through wl_proxy_add_dispatcher (an opcode and its arguments), not listener structs. */
#include <stdint.h>
#include <wayland-client.h>

/* The core interfaces Quire uses, described by Quire (core-interfaces.c), so that it refers to
   no variable of libwayland-client and the library loads on first use. */
extern const struct wl_interface cwayland_registry_interface;
extern const struct wl_interface cwayland_seat_interface;

/* ext-data-control-v1's interfaces (ext-data-control-v1.c). */
extern const struct wl_interface ext_data_control_manager_v1_interface;
extern const struct wl_interface ext_data_control_device_v1_interface;
extern const struct wl_interface ext_data_control_source_v1_interface;
extern const struct wl_interface ext_data_control_offer_v1_interface;
#include "wlr-data-control-unstable-v1-client-protocol.h"

typedef enum { CWAYLAND_EXT = 0, CWAYLAND_WLR = 1 } cwayland_protocol;

/* Event opcodes, the same in both protocols. */
enum {
  CWAYLAND_DEVICE_DATA_OFFER = 0,
  CWAYLAND_DEVICE_SELECTION = 1,
  CWAYLAND_DEVICE_FINISHED = 2,
  CWAYLAND_DEVICE_PRIMARY_SELECTION = 3,
  CWAYLAND_SOURCE_SEND = 0,
  CWAYLAND_SOURCE_CANCELLED = 1,
  CWAYLAND_OFFER_OFFER = 0,
  CWAYLAND_REGISTRY_GLOBAL = 0,
  CWAYLAND_REGISTRY_GLOBAL_REMOVE = 1,
};

/* wl_display_get_registry, with Quire's description of wl_registry. */
static inline struct wl_proxy *cwayland_get_registry(struct wl_display *display) {
  return wl_proxy_marshal_flags((struct wl_proxy *)display, WL_DISPLAY_GET_REGISTRY, &cwayland_registry_interface,
                                wl_proxy_get_version((struct wl_proxy *)display), 0, NULL);
}

static inline struct wl_proxy *cwayland_bind_seat(struct wl_proxy *registry, uint32_t name) {
  return (struct wl_proxy *)wl_registry_bind((struct wl_registry *)registry, name, &cwayland_seat_interface, 1);
}

static inline struct wl_proxy *cwayland_bind_manager(struct wl_proxy *registry, uint32_t name, cwayland_protocol protocol,
                                                     uint32_t version) {
  const struct wl_interface *interface =
      protocol == CWAYLAND_EXT ? &ext_data_control_manager_v1_interface : &zwlr_data_control_manager_v1_interface;
  return (struct wl_proxy *)wl_registry_bind((struct wl_registry *)registry, name, interface, version);
}

static inline struct wl_proxy *cwayland_get_device(struct wl_proxy *manager, struct wl_proxy *seat, cwayland_protocol protocol) {
  if (protocol == CWAYLAND_EXT)
    return wl_proxy_marshal_flags(manager, 1, &ext_data_control_device_v1_interface, wl_proxy_get_version(manager), 0, NULL, seat);
  return (struct wl_proxy *)zwlr_data_control_manager_v1_get_data_device((struct zwlr_data_control_manager_v1 *)manager,
                                                                         (struct wl_seat *)seat);
}

static inline struct wl_proxy *cwayland_create_source(struct wl_proxy *manager, cwayland_protocol protocol) {
  if (protocol == CWAYLAND_EXT)
    return wl_proxy_marshal_flags(manager, 0, &ext_data_control_source_v1_interface, wl_proxy_get_version(manager), 0, NULL);
  return (struct wl_proxy *)zwlr_data_control_manager_v1_create_data_source((struct zwlr_data_control_manager_v1 *)manager);
}

static inline void cwayland_source_offer(struct wl_proxy *source, cwayland_protocol protocol, const char *mime_type) {
  if (protocol == CWAYLAND_EXT)
    wl_proxy_marshal_flags(source, 0, NULL, wl_proxy_get_version(source), 0, mime_type);
  else
    zwlr_data_control_source_v1_offer((struct zwlr_data_control_source_v1 *)source, mime_type);
}

static inline void cwayland_source_destroy(struct wl_proxy *source, cwayland_protocol protocol) {
  if (protocol == CWAYLAND_EXT)
    wl_proxy_marshal_flags(source, 1, NULL, wl_proxy_get_version(source), WL_MARSHAL_FLAG_DESTROY);
  else
    zwlr_data_control_source_v1_destroy((struct zwlr_data_control_source_v1 *)source);
}

/* Sets the clipboard (primary = 0) or the primary selection to source, or empties it (NULL). */
static inline void cwayland_set_selection(struct wl_proxy *device, cwayland_protocol protocol, struct wl_proxy *source, int primary) {
  if (protocol == CWAYLAND_EXT) {
    /* set_primary_selection is request 2, set_selection request 0. */
    wl_proxy_marshal_flags(device, primary ? 2 : 0, NULL, wl_proxy_get_version(device), 0, source);
  } else {
    struct zwlr_data_control_device_v1 *d = (struct zwlr_data_control_device_v1 *)device;
    struct zwlr_data_control_source_v1 *s = (struct zwlr_data_control_source_v1 *)source;
    if (primary)
      zwlr_data_control_device_v1_set_primary_selection(d, s);
    else
      zwlr_data_control_device_v1_set_selection(d, s);
  }
}

static inline void cwayland_offer_receive(struct wl_proxy *offer, cwayland_protocol protocol, const char *mime_type, int32_t fd) {
  if (protocol == CWAYLAND_EXT)
    wl_proxy_marshal_flags(offer, 0, NULL, wl_proxy_get_version(offer), 0, mime_type, fd);
  else
    zwlr_data_control_offer_v1_receive((struct zwlr_data_control_offer_v1 *)offer, mime_type, fd);
}

static inline void cwayland_offer_destroy(struct wl_proxy *offer, cwayland_protocol protocol) {
  if (protocol == CWAYLAND_EXT)
    wl_proxy_marshal_flags(offer, 1, NULL, wl_proxy_get_version(offer), WL_MARSHAL_FLAG_DESTROY);
  else
    zwlr_data_control_offer_v1_destroy((struct zwlr_data_control_offer_v1 *)offer);
}

/* The names the compositor lists its globals by. */
static inline const char *cwayland_manager_name(cwayland_protocol protocol) {
  return protocol == CWAYLAND_EXT ? ext_data_control_manager_v1_interface.name : zwlr_data_control_manager_v1_interface.name;
}
static inline uint32_t cwayland_manager_version(cwayland_protocol protocol) {
  return (uint32_t)(protocol == CWAYLAND_EXT ? ext_data_control_manager_v1_interface.version
                                             : zwlr_data_control_manager_v1_interface.version);
}

/* One event argument: a string, a descriptor, an object (a proxy) or an unsigned number. */
static inline const char *cwayland_argument_string(const union wl_argument *arguments, int index) { return arguments[index].s; }
static inline int32_t cwayland_argument_fd(const union wl_argument *arguments, int index) { return arguments[index].h; }
static inline struct wl_proxy *cwayland_argument_proxy(const union wl_argument *arguments, int index) {
  return (struct wl_proxy *)arguments[index].o;
}
static inline uint32_t cwayland_argument_uint(const union wl_argument *arguments, int index) { return arguments[index].u; }
#endif
