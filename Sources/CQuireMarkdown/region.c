// The per-thread allocation region for cmark-gfm (see CQuireMarkdown.h).
#include "CQuireMarkdown.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { ALIGNMENT = 16, HEADER = 16, BLOCK_SIZE = 4 << 20, LARGE = 256 << 10 };
enum { IN_BLOCK = 0, ON_ITS_OWN = 1 };
// A text of this many bytes or more has its blocks mapped (zeroed by the system); a smaller
// one takes them from malloc, which reuses memory a parse before it gave back.
enum { MAPPED_TEXT = 1 << 20 };

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
  size_t size;    // usable bytes after this header
  size_t used;
  size_t last;    // offset of the latest allocation's header, or SIZE_MAX
  size_t clean;   // offset from which the block's bytes were never handed out
  size_t mapped;  // bytes mapped for the block (zeroed by the system), or 0 for malloc
};

// A region hands out memory in two lanes. The tree's nodes have one of their own: cmark-gfm
// walks the whole tree several times (inlines, footnotes, extensions, rendering), and with
// the nodes side by side in the order they were made, each walk reads memory in order instead
// of a node here and there between the texts allocated with them.
struct lane {
  struct block *current;
};

static _Thread_local struct lane general = {NULL};
static _Thread_local struct lane nodes = {NULL};
static _Thread_local struct large *larges = NULL;
static _Thread_local int active = 0;
static _Thread_local int mapping = 0;

static size_t rounded(size_t size) { return (size + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1); }

static unsigned char *base(struct block *block) { return (unsigned char *)block + rounded(sizeof(struct block)); }

static void out_of_memory(void) {
  fprintf(stderr, "[quire] out of memory while parsing Markdown, aborting\n");
  abort();
}

static size_t kind_of(void *pointer) { return ((size_t *)pointer)[-1]; }
static size_t size_of(void *pointer) { return ((size_t *)pointer)[-2]; }

// MARK: The size of a node

static size_t node_size = 0;
static pthread_once_t node_size_once = PTHREAD_ONCE_INIT;

static void *probe_calloc(size_t count, size_t size) {
  if (node_size == 0) node_size = count * size;
  return calloc(count, size);
}
static void *probe_realloc(void *pointer, size_t size) { return realloc(pointer, size); }
static void probe_free(void *pointer) { free(pointer); }

/// cmark-gfm keeps its node's size to itself; the first allocation a new node makes is the
/// node.
static void find_node_size(void) {
  cmark_mem probe = {probe_calloc, probe_realloc, probe_free};
  cmark_node *node = cmark_node_new_with_mem(CMARK_NODE_DOCUMENT, &probe);
  if (node != NULL) cmark_node_free(node);
}

// MARK: Large allocations

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

// MARK: Blocks

/// `size` bytes mapped for a block of a large text's region: the system hands them out
/// zeroed, so `calloc` from a part never used needs no `memset` (which, over a tree of hundreds
/// of megabytes, wrote every page twice). NULL when the system has no memory for it.
/// (Huge pages were tried: with the kernel's `defrag=madvise`, each 2 MiB fault could stall
/// in compaction, and a 21 MB preview's time in the kernel went up and varied more.)
static void *map_block(size_t size) {
  void *mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return mapping == MAP_FAILED ? NULL : mapping;
}

/// A fresh block for `lane`: mapped for a large text, from malloc otherwise.
static struct block *add_block(struct lane *lane) {
  struct block *block;
  size_t mapped = 0;
  if (mapping) {
    mapped = BLOCK_SIZE;
    block = map_block(mapped);
  } else {
    block = malloc(BLOCK_SIZE);
  }
  if (block == NULL) out_of_memory();
  block->previous = lane->current;
  block->size = BLOCK_SIZE - rounded(sizeof(struct block));
  block->used = 0;
  block->last = SIZE_MAX;
  block->clean = 0;
  block->mapped = mapped;
  lane->current = block;
  return block;
}

/// `size` bytes (not zeroed) from `lane`, with the size kept in a header before them; `fresh`
/// says whether they are known to be zero (never handed out of a block the system zeroed).
static void *take(struct lane *lane, size_t size, int *fresh) {
  if (size >= LARGE) {
    *fresh = 0;
    return take_large(size);
  }
  size_t need = HEADER + rounded(size ? size : 1);
  struct block *block = lane->current;
  // Smaller than LARGE, so any request fits a fresh block.
  if (block == NULL || block->size - block->used < need) block = add_block(lane);
  unsigned char *header = base(block) + block->used;
  ((size_t *)header)[0] = size;
  ((size_t *)header)[1] = IN_BLOCK;
  *fresh = block->mapped != 0 && block->used >= block->clean;
  block->last = block->used;
  block->used += need;
  if (block->used > block->clean) block->clean = block->used;
  return header + HEADER;
}

/// Whether `pointer` is the latest allocation of the general lane's current block.
static int is_latest(void *pointer) {
  struct block *block = general.current;
  return block != NULL && block->last != SIZE_MAX && (unsigned char *)pointer == base(block) + block->last + HEADER;
}

// MARK: The allocator

static void *region_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) out_of_memory();
  size_t total = count * size;
  int fresh;
  void *pointer = take(total == node_size ? &nodes : &general, total, &fresh);
  // Memory the system zeroed and nothing used yet is zero already.
  if (!fresh) memset(pointer, 0, total);
  return pointer;
}

static void *region_realloc(void *pointer, size_t size) {
  int fresh;
  if (pointer == NULL) return take(&general, size, &fresh);
  if (kind_of(pointer) == ON_ITS_OWN) {
    struct large *large = (struct large *)pointer - 1;
    unlink_large(large);
    if (size > SIZE_MAX - sizeof(struct large)) out_of_memory();
    return link_large(realloc(large, sizeof(struct large) + size), size);
  }
  size_t old = size_of(pointer);
  if (is_latest(pointer) && size < LARGE) {
    // The latest allocation grows (or shrinks) where it is when the block has room.
    struct block *block = general.current;
    size_t need = HEADER + rounded(size ? size : 1);
    if (block->size - block->last >= need) {
      *(size_t *)((unsigned char *)pointer - HEADER) = size;
      block->used = block->last + need;
      if (block->used > block->clean) block->clean = block->used;
      return pointer;
    }
  }
  void *moved = take(&general, size, &fresh);
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
  // Only the general lane's latest allocation goes back (a node freed is left where it is).
  if (!is_latest(pointer)) return;
  general.current->used = general.current->last;
  general.current->last = SIZE_MAX;
}

static cmark_mem region_allocator = {region_calloc, region_realloc, region_free};

cmark_mem *quire_markdown_region_begin(size_t text_length) {
  if (active) return NULL;
  pthread_once(&node_size_once, find_node_size);
  active = 1;
  mapping = text_length >= MAPPED_TEXT;
  return &region_allocator;
}

static void release(struct lane *lane) {
  while (lane->current != NULL) {
    struct block *previous = lane->current->previous;
    if (lane->current->mapped != 0) munmap(lane->current, lane->current->mapped); else free(lane->current);
    lane->current = previous;
  }
}

void quire_markdown_region_end(void) {
  while (larges != NULL) {
    struct large *next = larges->next;
    free(larges);
    larges = next;
  }
  release(&general);
  release(&nodes);
  active = 0;
  mapping = 0;
}
