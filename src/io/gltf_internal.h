/* gltf_internal.h - private pieces of the glTF 2.0 loader, shared by
 * gltf.c (rig and clips), gltf_json.c (JSON checks and typed reads) and
 * gltf_buffer.c (GLB container, buffers, accessors).
 *
 * Contract of every function here: on failure it fills ctx->err through
 * bw_gltf_fail (code, file, the JSON path in err->where, a message that
 * repeats both) and returns the code; it never reads outside the input and
 * never leaves memory behind that bw_gltf_ctx_release would not free.
 *
 * Where an error points (err->where):
 * - structural faults of an object (an index out of range, a count that
 *   does not fit its bufferView, a missing field) name that object's field,
 *   e.g. "accessors[7].count" or "bufferViews[2].byteLength";
 * - faults of content seen through a use (a non-finite value, unsorted key
 *   times, an accessor of the wrong type for its use) name the referring
 *   field, e.g. "animations[0].samplers[2].output";
 * - JSON syntax faults have no path: where is "" and err->line holds the
 *   line of the JSON text.
 */
#ifndef BW_IO_GLTF_INTERNAL_H
#define BW_IO_GLTF_INTERNAL_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "blendwerk/asset.h"
#include "common.h"
#include "loaders.h"

/* Limits beyond which input is refused with BW_ERR_LIMIT. The JSON depth
 * limit sits far below cJSON's own (CJSON_NESTING_LIMIT, 1000) so cJSON's
 * recursive parser and cJSON_Delete stay shallow, and we can name the path
 * where the nesting got too deep (cJSON only says "parse failed"). */
#define GLTF_MAX_DEPTH 128
#define GLTF_MAX_ITEMS (1 << 22)       /* JSON values (each costs a cJSON node) */
#define GLTF_MAX_JOINTS (1 << 16)      /* rig joints */
#define GLTF_MAX_CURVES (1 << 16)      /* morph-target curves in the rig */
#define GLTF_MAX_TRACKS (1 << 22)      /* tracks over all clips */
#define GLTF_MAX_KEYS (1 << 26)        /* elements of one animation accessor */

/* A buffer's bytes once resolved (GLB BIN chunk, data URI or file). */
typedef struct gltf_buffer {
    const unsigned char *data; /* NULL until loaded */
    size_t size;               /* the buffer's byteLength */
    unsigned char *owned;      /* decoded / read bytes we must free */
    size_t owned_size;
    bool tried;                /* load attempted (data stays NULL on failure) */
} gltf_buffer;

/* A decoded accessor (floats, normalized integers converted), cached so
 * every accessor is decoded at most once however many samplers share it. */
typedef struct gltf_floats {
    float *data;
    size_t count; /* elements */
    int comps;    /* floats per element */
    bool integer; /* decoded by bw_gltf_accessor_uints (whole numbers) */
} gltf_floats;

typedef struct gltf_ctx {
    const bw_allocator *a;
    bw_error *err;
    const char *name; /* file name for messages; may be NULL */
    const bw_io_origin *origin; /* where external URIs resolve; NULL: from memory, they fail */
    bw_logger logger;
    size_t max_bytes;
    size_t float_budget; /* floats we may still decode / copy (BW_ERR_LIMIT past it) */

    char *json_text; /* NUL-terminated copy handed to cJSON */
    size_t json_size;
    cJSON *root;

    const unsigned char *bin; /* GLB BIN chunk, or NULL */
    size_t bin_size;
    bool glb;

    /* top-level arrays as random-access tables (built once, linearly) */
    const cJSON **nodes;
    int node_count;
    const cJSON **meshes;
    int mesh_count;
    const cJSON **accessors;
    int accessor_count;
    const cJSON **views;
    int view_count;
    const cJSON **buffer_json;
    gltf_buffer *buffers;
    int buffer_count;
    gltf_floats *decoded; /* per accessor */

    struct gltf_block *blocks; /* scratch arena (names, tracks, key data) */
} gltf_ctx;

/* ---- errors and messages (gltf_json.c) ---- */
bw_result bw_gltf_fail(gltf_ctx *c, bw_result code, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void bw_gltf_warn(gltf_ctx *c, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* snprintf into `buf` (256 bytes, truncating) and return it. */
const char *bw_gltf_path(char *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define GLTF_PATH_SIZE 256

/* ---- JSON (gltf_json.c) ---- */
/* Parse `size` bytes of JSON text: checks depth, value count, trailing
 * bytes (whitespace only; NUL padding too when `glb`), syntax (through
 * cJSON) and duplicate keys anywhere in the document. Sets c->root. */
bw_result bw_gltf_parse_json(gltf_ctx *c, const char *text, size_t size);

/* Typed reads. `where` is the path of `item` itself. Each returns BW_OK or
 * fails with BW_ERR_PARSE (wrong type) / BW_ERR_RANGE (outside [lo, hi]) /
 * BW_ERR_NON_FINITE. */
bw_result bw_gltf_int(gltf_ctx *c, const cJSON *item, const char *where, long long lo, long long hi,
                      long long *out);
/* Optional member `key` of object `obj` (path `obj_where`) as an integer in
 * [lo, hi]; `*out` keeps `dflt` when absent. */
bw_result bw_gltf_member_int(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                             bool required, long long lo, long long hi, long long dflt, long long *out);
/* Optional string member; NULL when absent. */
bw_result bw_gltf_member_string(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                                bool required, const char **out);
/* Optional array member of exactly `n` finite numbers (n = 0: any length). */
bw_result bw_gltf_member_floats(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                                int n, float *out, bool *present);
/* Optional member that must be an array (or absent: *out = NULL). */
bw_result bw_gltf_member_array(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                               bool required, const cJSON **out, int *count);
/* Collect the items of a top-level array into a table (objects only). */
bw_result bw_gltf_table(gltf_ctx *c, const char *key, const cJSON ***out, int *count);

/* ---- container and data (gltf_buffer.c) ---- */
/* Split a GLB container into c->json (via bw_gltf_parse_json) and c->bin. */
bw_result bw_gltf_parse_glb(gltf_ctx *c, const unsigned char *data, size_t size);

/* Decode accessor `index` (already range-checked by the caller) as floats
 * with `comps` components per element. `use_where` names the referring
 * field. Integer component types are accepted only when `normalized` (and
 * decoded per the glTF spec); non-finite values fail. The result is cached
 * in c->decoded and owned by the context. */
bw_result bw_gltf_accessor_floats(gltf_ctx *c, int index, int comps, const char *use_where,
                                  const gltf_floats **out);

/* The same for unsigned integer data (indices, JOINTS_0): component type
 * 5121, 5123 or 5125, not normalized, no sparse storage; the values are
 * whole numbers held as floats (exact below 2^24; callers bound them by
 * counts below that). An accessor decodes one way only: asking for both
 * fails. */
bw_result bw_gltf_accessor_uints(gltf_ctx *c, int index, int comps, const char *use_where,
                                 const gltf_floats **out);

/* A document's shared state (gltf.c's loader and gltf_mesh.c):
 * bw_gltf_open parses `data` (GLB or JSON), checks asset.version and
 * extensionsRequired, builds the top-level tables and the per-accessor and
 * per-buffer slots; bw_gltf_close frees all of that (not c->blocks, the
 * rig loader's arena) and is safe after a failed or partial open. */
void bw_gltf_ctx_init(gltf_ctx *c, const char *name, const bw_io_origin *origin, const bw_asset_options *options,
                      bw_error *err); /* the fields from the caller's options (c zeroed first) */
bw_result bw_gltf_open(gltf_ctx *c, const void *data, size_t size);
void bw_gltf_close(gltf_ctx *c);

/* Node `node_index`'s local transform: TRS, or its matrix decomposed
 * (gltf.c). */
bw_result bw_gltf_node_rest(gltf_ctx *c, int node_index, bw_transform *out);

/* ---- the node tree and joint names (gltf.c; the rig loader and gltf_mesh.c) ---- */
/* Node i's "children" into `parent` (node_count entries, -1 where no
 * parent is known yet): BW_ERR_CYCLE at nodes[i].children[k] for a node
 * listing itself, BW_ERR_PARSE for a child that already has a parent. */
bw_result bw_gltf_node_children(gltf_ctx *c, int i, int *parent);
/* Every node's depth in the tree `parent` (roots 0), in linear time;
 * BW_ERR_CYCLE at nodes[p].children for a node that is its own ancestor.
 * `mark` and `path`: node_count ints of scratch. */
bw_result bw_gltf_node_depths(gltf_ctx *c, const int *parent, int *depth, int *mark, int *path);
/* The rig's joint name for node `node`: its "name" when a non-empty
 * string, else "node<N>" (written into `buf`); a joint whose (parent name,
 * name) pair is taken is renamed "<name>#<N>" (GLTF_RENAMED_SUFFIX). */
#define GLTF_NODE_NAME_SIZE 24
#define GLTF_RENAMED_SUFFIX "#%d"
const char *bw_gltf_node_name(const gltf_ctx *c, int node, char buf[GLTF_NODE_NAME_SIZE]);
/* Whether rig joint name `joint` is the one the rig loader gives `node`
 * (its name, or that name renamed). */
bool bw_gltf_is_joint_name(const gltf_ctx *c, int node, const char *joint);

/* Take `n` floats from the decode budget (BW_ERR_LIMIT when exhausted). */
bw_result bw_gltf_budget(gltf_ctx *c, size_t n, const char *where);

#endif
