/* name_index.c - sorted name lookups for setup time (name_index.h). */
#include "name_index.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"

static size_t index_bytes(int count) { return (size_t)count * (sizeof(bw_name_entry) + sizeof(int)); }

bw_result bw_name_index_init(bw_name_index *ix, int count, const bw_allocator *alloc)
{
    memset(ix, 0, sizeof *ix);
    if (alloc) ix->alloc = *alloc;
    if (count <= 0) return BW_OK;
    /* entries first: they hold pointers, the stricter alignment */
    char *block = (char *)bw_alloc(&ix->alloc, index_bytes(count));
    if (!block) return BW_ERR_OUT_OF_MEMORY;
    ix->sorted = (bw_name_entry *)(void *)block;
    ix->first = (int *)(void *)(block + (size_t)count * sizeof(bw_name_entry));
    ix->count = count;
    for (int i = 0; i < count; i++) ix->first[i] = -1;
    return BW_OK;
}

void bw_name_index_put(bw_name_index *ix, int i, const char *name)
{
    if (name && i >= 0 && i < ix->count) ix->sorted[ix->named++] = (bw_name_entry){name, i};
}

/* By name, then by item: equal names keep their items ascending, so the
 * first of a run is the lowest item. */
static int entry_cmp(const void *pa, const void *pb)
{
    const bw_name_entry *a = (const bw_name_entry *)pa, *b = (const bw_name_entry *)pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->item > b->item) - (a->item < b->item);
}

void bw_name_index_build(bw_name_index *ix)
{
    if (ix->named > 1) qsort(ix->sorted, (size_t)ix->named, sizeof *ix->sorted, entry_cmp);
    int head = 0;
    for (int k = 0; k < ix->named; k++) {
        if (k > 0 && strcmp(ix->sorted[k].name, ix->sorted[k - 1].name) != 0) head = k;
        ix->first[ix->sorted[k].item] = ix->sorted[head].item;
    }
}

bw_result bw_name_index_of(bw_name_index *ix, const void *items, int count, size_t stride, size_t offset,
                           const bw_allocator *alloc)
{
    bw_result r = bw_name_index_init(ix, items ? count : 0, alloc);
    if (r != BW_OK) return r;
    for (int i = 0; i < ix->count; i++)
        bw_name_index_put(ix, i, *(const char *const *)(const void *)((const char *)items + stride * (size_t)i + offset));
    bw_name_index_build(ix);
    return BW_OK;
}

int bw_name_index_find(const bw_name_index *ix, const char *name)
{
    if (!name) return -1;
    int lo = 0, hi = ix->named; /* the first entry whose name is >= name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(ix->sorted[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < ix->named && strcmp(ix->sorted[lo].name, name) == 0 ? ix->sorted[lo].item : -1;
}

int bw_name_index_first(const bw_name_index *ix, int i) { return i >= 0 && i < ix->count ? ix->first[i] : -1; }

void bw_name_index_deinit(bw_name_index *ix)
{
    if (ix->count > 0) bw_free(&ix->alloc, ix->sorted, index_bytes(ix->count));
    ix->sorted = NULL;
    ix->first = NULL;
    ix->count = ix->named = 0;
}
