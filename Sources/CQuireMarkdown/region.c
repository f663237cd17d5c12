// The per-thread allocation region for cmark-gfm (see CQuireMarkdown.h).
#include "CQuireMarkdown.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALIGNMENT = 16, HEADER = 16, BLOCK_SIZE = 4 << 20 };

struct block {
  struct block *previous;
  size_t size;  // usable bytes after this header
  size_t used;
  size_t last;  // offset of the latest allocation's header, or SIZE_MAX
};

static _Thread_local struct block *current = NULL;
static _Thread_local int active = 0;

static size_t rounded(size_t size) { return (size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1); }

static unsigned char *base(struct block *block) { return (unsigned char *)block + rounded(sizeof(struct block)); }

static void out_of_memory(void) {
  fprintf(stderr, "[quire] out of memory while parsing Markdown, aborting\n");
  abort();
}

/// `size` bytes (not zeroed) from the region, with the size kept in a header before them.
static void *take(size_t size) {
  if (size > SIZE_MAX - HEADER - ALIGNMENT - sizeof(struct block)) out_of_memory();
  size_t need = HEADER + rounded(size ? size : 1);
  if (current == NULL || current->size - current->used < need) {
    size_t usable = need > BLOCK_SIZE ? need : BLOCK_SIZE;
    struct block *block = malloc(rounded(sizeof(struct block)) + usable);
    if (block == NULL) out_of_memory();
    block->previous = current;
    block->size = usable;
    block->used = 0;
    block->last = SIZE_MAX;
    current = block;
  }
  unsigned char *header = base(current) + current->used;
  *(size_t *)header = size;
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
  size_t old = *(size_t *)((unsigned char *)pointer - HEADER);
  if (is_latest(pointer)) {
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
  if (pointer == NULL || !is_latest(pointer)) return;
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
  while (current != NULL) {
    struct block *previous = current->previous;
    free(current);
    current = previous;
  }
  active = 0;
}
