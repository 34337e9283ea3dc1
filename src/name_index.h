/* name_index.h - name lookups over large lists at setup time (graph
 * compile, refresh and lint), in O(n log n) instead of comparing every
 * name with every other. Internal, not part of the public API.
 *
 * An index holds, for items 0..count-1 of some list, each item's name
 * (NULL: the item has none and is never found). After the names are put
 * and the index is built:
 * - bw_name_index_find(name) is the lowest item index with that name, or
 *   -1: the first match of a linear search from item 0;
 * - bw_name_index_first(i) is the lowest item index whose name equals
 *   item i's (i itself when no earlier item has it), -1 for a NULL name:
 *   "is i a duplicate of an earlier item" is first(i) != i.
 * The names are borrowed: they must outlive the index. One allocation
 * through the caller's allocator (none for count 0); a failed init leaves
 * an empty index that finds nothing, which deinit accepts. */
#ifndef BW_NAME_INDEX_H
#define BW_NAME_INDEX_H

#include <stddef.h>

#include "blendwerk/types.h"

typedef struct bw_name_entry {
    const char *name;
    int item;
} bw_name_entry;

typedef struct bw_name_index {
    bw_allocator alloc;
    bw_name_entry *sorted; /* the items with a name, by (name, item) once built */
    int *first;            /* per item, see above */
    int count;             /* items */
    int named;             /* entries in sorted */
} bw_name_index;

/* Room for `count` items, all without a name; BW_ERR_OUT_OF_MEMORY when
 * the allocation fails. */
bw_result bw_name_index_init(bw_name_index *ix, int count, const bw_allocator *alloc);

/* Item i's name (NULL for none); before bw_name_index_build only. */
void bw_name_index_put(bw_name_index *ix, int i, const char *name);

/* Sort the names and fill first[]. */
void bw_name_index_build(bw_name_index *ix);

/* init, put and build for an array of `count` structs `stride` bytes
 * apart whose member at byte `offset` is the name (const char *). */
bw_result bw_name_index_of(bw_name_index *ix, const void *items, int count, size_t stride, size_t offset,
                           const bw_allocator *alloc);

int bw_name_index_find(const bw_name_index *ix, const char *name);
int bw_name_index_first(const bw_name_index *ix, int i);

void bw_name_index_deinit(bw_name_index *ix);

#endif
