// Loads quire's heavy C libraries on first use: see scripts/generate-lazy-libraries, which
// writes symbols.h and trampolines.S, and common.S, which calls quire_lazy_resolve.
#include "quire_lazy.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols.h"

extern void *quire_lazy_slots[];

static _Atomic(void *) handles[QUIRE_LAZY_LIBRARY_COUNT];

// Says which library could not be loaded or lacks a function, and what to do, and stops:
// quire cannot go on without a function it is about to call.
static void fail(const char *what, const char *name, const char *detail) {
  dprintf(STDERR_FILENO,
          "quire: cannot %s %s (%s); install its Debian package (scripts/setup lists them) "
          "or build quire again against the libraries this machine has\n",
          what, name, detail ? detail : "unknown error");
  _exit(6);
}

static void *library(int index) {
  void *handle = atomic_load_explicit(&handles[index], memory_order_acquire);
  if (handle) return handle;
  // dlopen counts references: a second thread's load of the same library returns the
  // same handle, so a race costs nothing but a count.
  handle = dlopen(quire_lazy_libraries[index][0], RTLD_LAZY | RTLD_GLOBAL);
  if (!handle) handle = dlopen(quire_lazy_libraries[index][1], RTLD_LAZY | RTLD_GLOBAL);
  if (!handle) fail("load", quire_lazy_libraries[index][0], dlerror());
  atomic_store_explicit(&handles[index], handle, memory_order_release);
  return handle;
}

void *quire_lazy_resolve(long index) {
  const struct quire_lazy_function *function = &quire_lazy_functions[index];
  void *address = dlsym(library(function->library), function->name);
  if (!address) fail("find the function", function->name, dlerror());
  __atomic_store_n(&quire_lazy_slots[index], address, __ATOMIC_RELEASE);
  return address;
}
