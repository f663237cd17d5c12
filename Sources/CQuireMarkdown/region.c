// The per-thread allocation region for cmark-gfm (see CQuireMarkdown.h).
#include "CQuireMarkdown.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALIGNMENT = 16, HEADER = 16, BLOCK_SIZE = 4 << 20, LARGE = 256 << 10 };
enum { IN_BLOCK = 0, ON_ITS_OWN = 1 };

// Every allocation is preceded by 16 bytes: its size, then its kind. One in a block is
// handed out in order; one of LARGE bytes or more (a growing output buffer, a long text) is
// a malloc of its own, so that growing it is realloc's business (no copy left behind), kept
// in a list so that the region's end frees it.
struct large {
  struct large *previous, *next;
  size_t size;
  size_t kind;
};

struct block {
  struct block *previous;
  size_t size;  // usable bytes after this header
  size_t used;
  size_t last;  // offset of the latest allocation's header, or SIZE_MAX
};

static _Thread_local struct block *current = NULL;
static _Thread_local struct large *larges = NULL;
static _Thread_local int active = 0;

static size_t rounded(size_t size) { return (size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1); }

static unsigned char *base(struct block *block) { return (unsigned char *)block + rounded(sizeof(struct block)); }

static void out_of_memory(void) {
  fprintf(stderr, "[quire] out of memory while parsing Markdown, aborting\n");
  abort();
}

static size_t kind_of(void *pointer) { return ((size_t *)pointer)[-1]; }
static size_t size_of(void *pointer) { return ((size_t *)pointer)[-2]; }

/// `large` (just made or moved by realloc) put at the head of the region's list, holding
/// `size` bytes; returns its bytes.
static void *link_large(struct large *large, size_t size) {
  if (large == NULL) out_of_memory();
  large->previous = NULL;
  large->next = larges;
  if (larges != NULL) larges->previous = large;
  larges = large;
  large->size = size;
  large->kind = ON_ITS_OWN;
  return large + 1;
}

/// A large allocation of `size` bytes on its own, linked into the region's list.
static void *take_large(size_t size) {
  if (size > SIZE_MAX - sizeof(struct large)) out_of_memory();
  return link_large(malloc(sizeof(struct large) + size), size);
}

static void unlink_large(struct large *large) {
  if (large->previous != NULL) large->previous->next = large->next; else larges = large->next;
  if (large->next != NULL) large->next->previous = large->previous;
}

/// `size` bytes (not zeroed) from the region, with the size kept in a header before them.
static void *take(size_t size) {
  if (size >= LARGE) return take_large(size);
  size_t need = HEADER + rounded(size ? size : 1);
  if (current == NULL || current->size - current->used < need) {
    // Smaller than LARGE, so any request fits a fresh block.
    size_t usable = BLOCK_SIZE;
    struct block *block = malloc(rounded(sizeof(struct block)) + usable);
    if (block == NULL) out_of_memory();
    block->previous = current;
    block->size = usable;
    block->used = 0;
    block->last = SIZE_MAX;
    current = block;
  }
  unsigned char *header = base(current) + current->used;
  ((size_t *)header)[0] = size;
  ((size_t *)header)[1] = IN_BLOCK;
  current->last = current->used;
  current->used += need;
  return header + HEADER;
}

/// Whether `pointer` is the latest allocation of the current block.
static int is_latest(void *pointer) {
  return current != NULL && current->last != SIZE_MAX && (unsigned char *)pointer == base(current) + current->last + HEADER;
}

static void *region_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) out_of_memory();
  void *pointer = take(count * size);
  memset(pointer, 0, count * size);
  return pointer;
}

static void *region_realloc(void *pointer, size_t size) {
  if (pointer == NULL) return take(size);
  if (kind_of(pointer) == ON_ITS_OWN) {
    struct large *large = (struct large *)pointer - 1;
    unlink_large(large);
    if (size > SIZE_MAX - sizeof(struct large)) out_of_memory();
    return link_large(realloc(large, sizeof(struct large) + size), size);
  }
  size_t old = size_of(pointer);
  if (is_latest(pointer) && size < LARGE) {
    // The latest allocation grows (or shrinks) where it is when the block has room.
    size_t need = HEADER + rounded(size ? size : 1);
    if (current->size - current->last >= need) {
      *(size_t *)((unsigned char *)pointer - HEADER) = size;
      current->used = current->last + need;
      return pointer;
    }
  }
  void *moved = take(size);
  memcpy(moved, pointer, old < size ? old : size);
  return moved;
}

static void region_free(void *pointer) {
  if (pointer == NULL) return;
  if (kind_of(pointer) == ON_ITS_OWN) {
    struct large *large = (struct large *)pointer - 1;
    unlink_large(large);
    free(large);
    return;
  }
  if (!is_latest(pointer)) return;
  current->used = current->last;
  current->last = SIZE_MAX;
}

static cmark_mem region_allocator = {region_calloc, region_realloc, region_free};

cmark_mem *quire_markdown_region_begin(void) {
  if (active) return NULL;
  active = 1;
  return &region_allocator;
}

void quire_markdown_region_end(void) {
  while (larges != NULL) {
    struct large *next = larges->next;
    free(larges);
    larges = next;
  }
  while (current != NULL) {
    struct block *previous = current->previous;
    free(current);
    current = previous;
  }
  active = 0;
}
