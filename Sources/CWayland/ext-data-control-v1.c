/* The client side's description of ext-data-control-v1 (wayland-protocols, staging): its four
   interfaces with their requests and events, as libwayland-client needs them to marshal
   requests and dispatch events. Written for Quire from the protocol's definition: its messages
   are those of wlr-data-control-unstable-v1 version 2, in the same order with the same
   signatures, under the ext_ names (no Debian 12 package ships the protocol's XML file, which
   wayland-protocols 1.39 added). */
#include <stddef.h>
#include <wayland-util.h>

extern const struct wl_interface cwayland_seat_interface; /* core-interfaces.c */
extern const struct wl_interface ext_data_control_manager_v1_interface;
extern const struct wl_interface ext_data_control_device_v1_interface;
extern const struct wl_interface ext_data_control_source_v1_interface;
extern const struct wl_interface ext_data_control_offer_v1_interface;

/* Argument types for the messages below: NULL for arguments that are not objects. */
static const struct wl_interface *no_objects[] = {NULL, NULL};
static const struct wl_interface *new_source[] = {&ext_data_control_source_v1_interface};
static const struct wl_interface *new_device_for_seat[] = {&ext_data_control_device_v1_interface, &cwayland_seat_interface};
static const struct wl_interface *a_source[] = {&ext_data_control_source_v1_interface};
static const struct wl_interface *new_offer[] = {&ext_data_control_offer_v1_interface};
static const struct wl_interface *an_offer[] = {&ext_data_control_offer_v1_interface};

static const struct wl_message manager_requests[] = {
    {"create_data_source", "n", new_source},
    {"get_data_device", "no", new_device_for_seat},
    {"destroy", "", no_objects},
};
const struct wl_interface ext_data_control_manager_v1_interface = {"ext_data_control_manager_v1", 1, 3, manager_requests, 0, NULL};

static const struct wl_message device_requests[] = {
    {"set_selection", "?o", a_source},
    {"destroy", "", no_objects},
    {"set_primary_selection", "?o", a_source},
};
static const struct wl_message device_events[] = {
    {"data_offer", "n", new_offer},
    {"selection", "?o", an_offer},
    {"finished", "", no_objects},
    {"primary_selection", "?o", an_offer},
};
const struct wl_interface ext_data_control_device_v1_interface = {"ext_data_control_device_v1", 1, 3, device_requests, 4, device_events};

static const struct wl_message source_requests[] = {
    {"offer", "s", no_objects},
    {"destroy", "", no_objects},
};
static const struct wl_message source_events[] = {
    {"send", "sh", no_objects},
    {"cancelled", "", no_objects},
};
const struct wl_interface ext_data_control_source_v1_interface = {"ext_data_control_source_v1", 1, 2, source_requests, 2, source_events};

static const struct wl_message offer_requests[] = {
    {"receive", "sh", no_objects},
    {"destroy", "", no_objects},
};
static const struct wl_message offer_events[] = {
    {"offer", "s", no_objects},
};
const struct wl_interface ext_data_control_offer_v1_interface = {"ext_data_control_offer_v1", 1, 2, offer_requests, 1, offer_events};
