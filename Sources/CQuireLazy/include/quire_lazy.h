#ifndef QUIRE_LAZY_H
#define QUIRE_LAZY_H

// The first call of a lazily loaded function lands here (from common.S): loads its library,
// finds the function, fills its slot and returns its address. Exits with status 6 naming
// the library when it cannot be loaded.
void *quire_lazy_resolve(long index);

#endif
