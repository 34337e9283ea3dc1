/* blendwerk/types.h - vocabulary shared by every Blendwerk module.
 *
 * Result codes, the allocator and logger hooks, error reports with file and
 * line, and the local transform. Every fallible call returns a bw_result and
 * leaves its outputs untouched on failure; callers that want a human message
 * pass a bw_error (may be NULL).
 *
 * Conventions: Y is up, characters face +Z. Quaternions are (x, y, z, w)
 * and unit length. Times are seconds. Angles are radians.
 */
#ifndef BLENDWERK_TYPES_H
#define BLENDWERK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BW_API marks every function and object of the public API: the one export
 * macro. Blendwerk is compiled with hidden visibility (C_VISIBILITY_PRESET
 * hidden), so in libblendwerk.so, libblendwerk_lua.so and the Lua module
 * blendwerk.so only what a public header declares BW_API is visible to
 * other programs; internal helpers shared between source files stay out of
 * the ABI. Static libraries are unaffected. tests/tools/exported_symbols.sh
 * checks the result. */
#if defined(__GNUC__) || defined(__clang__)
#define BW_API __attribute__((visibility("default")))
#else
#define BW_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One list of result ids; bw_result_name() gives each a stable string. */
typedef enum bw_result {
    BW_OK = 0,
    BW_ERR_INVALID_ARGUMENT, /* NULL where an object is required, bad enum, negative count */
    BW_ERR_OUT_OF_MEMORY,    /* the allocator returned NULL */
    BW_ERR_NON_FINITE,       /* NaN or infinity in a time, value or weight */
    BW_ERR_UNSORTED,         /* key times not strictly increasing */
    BW_ERR_DUPLICATE,        /* duplicate (parent, name) pair, key time or key */
    BW_ERR_CYCLE,            /* cyclic parents */
    BW_ERR_ORDER,            /* a parent listed after its child */
    BW_ERR_NOT_FOUND,        /* a named joint, clip, state or parameter is missing */
    BW_ERR_EMPTY,            /* an object that needs content has none */
    BW_ERR_PARSE,            /* malformed file content (JSON, BVH, Lua table) */
    BW_ERR_IO,               /* a file could not be read */
    BW_ERR_UNSUPPORTED,      /* valid input using a feature Blendwerk does not implement */
    BW_ERR_LIMIT,            /* a size or count beyond a documented limit */
    BW_ERR_RANGE,            /* an index out of range, or a finite value outside its
                                allowed range (a negative duration or speed) */
    BW_RESULT_COUNT
} bw_result;

/* Stable lowercase name of a result, e.g. "non_finite". Never NULL. */
BW_API const char *bw_result_name(bw_result result);

/* Allocator in the style of lua_Alloc: nsize == 0 frees `ptr` and returns
 * NULL; otherwise it (re)allocates from osize to nsize bytes and returns the
 * block or NULL. `osize` is the block's previous size (0 for a new block).
 * All Blendwerk objects that allocate take a `const bw_allocator *`; NULL
 * means the C library's malloc/realloc/free. The allocator must outlive
 * every object created with it. */
typedef void *(*bw_alloc_fn)(void *user, void *ptr, size_t osize, size_t nsize);
typedef struct bw_allocator {
    bw_alloc_fn fn;
    void *user;
} bw_allocator;

/* Level and message of a log line. The core never prints: it only reports
 * through a logger the caller supplies. */
typedef enum bw_log_level { BW_LOG_INFO, BW_LOG_WARNING, BW_LOG_ERROR } bw_log_level;
typedef void (*bw_log_fn)(void *user, bw_log_level level, const char *message);
typedef struct bw_logger {
    bw_log_fn fn;
    void *user;
} bw_logger;

/* A human-readable error report. `file` and `line` name where in the
 * user's input the problem is, when there is such a place (line 0 means
 * none; for JSON assets `where` holds a JSON path such as
 * "animations[0].channels[3].sampler"). */
typedef struct bw_error {
    bw_result code;
    int line;
    char file[256];
    char where[256];
    char message[512];
} bw_error;

/* Local transform of a joint: translation, rotation (unit quaternion
 * x,y,z,w), scale. Arrays so that cglm's vec3/versor functions apply. */
typedef struct bw_transform {
    float t[3];
    float r[4];
    float s[3];
} bw_transform;

/* The identity transform: t = 0, r = (0,0,0,1), s = 1. */
BW_API extern const bw_transform bw_transform_identity;

#ifdef __cplusplus
}
#endif
#endif
