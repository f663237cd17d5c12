#ifndef CQUIRE_MARKDOWN_H
#define CQUIRE_MARKDOWN_H

#include <stddef.h>

#include <cmark-gfm.h>

/// Starts a region on the calling thread and returns an allocator for cmark-gfm that takes
/// every allocation from the region: large blocks, handed out in order, never freed one by
/// one (freeing the latest allocation, and growing it, happen in place), all released by
/// `quire_markdown_region_end`. A parse and its rendering then cost no `malloc`/`free` per
/// node, as cmark-gfm's own arena gives its command-line program; unlike that arena (one for
/// the whole process), each thread has its own region, so parses on several threads at once
/// are safe. Returns NULL when the thread already has a region (then use the default
/// allocator). Out of memory aborts, as cmark-gfm's default allocator does.
/// `text_length`, the bytes about to be parsed, sizes the region: a text of a mebibyte or
/// more has its blocks mapped from the system (zeroed already), a smaller one from malloc.
cmark_mem *quire_markdown_region_begin(size_t text_length);

/// Releases the calling thread's region: everything allocated from it is gone.
void quire_markdown_region_end(void);

#endif
