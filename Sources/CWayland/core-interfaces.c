/* The two core Wayland interfaces Quire uses, described here as ext-data-control-v1's are:
   libwayland-client's own wl_registry_interface and wl_seat_interface are variables, and a
   program that refers to a library's variable must have the library mapped at exec, while
   scripts/generate-lazy-libraries loads libwayland-client (and libffi with it) only when the
   Wayland clipboard is first used. Names, versions and signatures are wayland.xml's; a
   compositor's events are read by these descriptions, and libwayland-client compares
   interfaces by name. wl_seat is described at version 1, the version Quire binds: Quire only
   passes the seat to get_data_device and never calls its requests, whose object types are
   left NULL. */
#include <stddef.h>
#include <wayland-util.h>

static const struct wl_interface *no_objects[] = {NULL, NULL, NULL, NULL};

static const struct wl_message registry_requests[] = {
    {"bind", "usun", no_objects},
};
static const struct wl_message registry_events[] = {
    {"global", "usu", no_objects},
    {"global_remove", "u", no_objects},
};
const struct wl_interface cwayland_registry_interface = {"wl_registry", 1, 1, registry_requests, 2, registry_events};

static const struct wl_message seat_requests[] = {
    {"get_pointer", "n", no_objects},
    {"get_keyboard", "n", no_objects},
    {"get_touch", "n", no_objects},
};
static const struct wl_message seat_events[] = {
    {"capabilities", "u", no_objects},
};
const struct wl_interface cwayland_seat_interface = {"wl_seat", 1, 3, seat_requests, 1, seat_events};
