/* common.c - allocation, error reporting and result names. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>

const bw_transform bw_transform_identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};

static const char *const result_names[BW_RESULT_COUNT] = {
    "ok", "invalid_argument", "out_of_memory", "non_finite", "unsorted", "duplicate", "cycle",
    "order", "not_found", "empty", "parse", "io", "unsupported", "limit", "range",
};

const char *bw_result_name(bw_result result)
{
    if ((int)result < 0 || result >= BW_RESULT_COUNT) return "unknown";
    return result_names[result];
}

void *bw_realloc(const bw_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size == 0) {
        bw_free(a, ptr, old_size);
        return NULL;
    }
    if (a && a->fn) return a->fn(a->user, ptr, ptr ? old_size : 0, new_size);
    return realloc(ptr, new_size);
}

void *bw_alloc(const bw_allocator *a, size_t size)
{
    return bw_realloc(a, NULL, 0, size ? size : 1);
}

void *bw_alloc_zeroed(const bw_allocator *a, size_t size)
{
    void *p = bw_alloc(a, size);
    if (p) memset(p, 0, size ? size : 1);
    return p;
}

void bw_free(const bw_allocator *a, void *ptr, size_t size)
{
    if (!ptr) return;
    if (a && a->fn) a->fn(a->user, ptr, size ? size : 1, 0);
    else free(ptr);
}

char *bw_strdup(const bw_allocator *a, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = (char *)bw_alloc(a, n);
    if (d) memcpy(d, s, n);
    return d;
}

void bw_free_string(const bw_allocator *a, char *s)
{
    if (s) bw_free(a, s, strlen(s) + 1);
}

static bw_result fail_v(bw_error *err, bw_result code, const char *file, int line, const char *where,
                        const char *fmt, va_list ap)
{
    if (!err) return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->line = line;
    if (file) snprintf(err->file, sizeof err->file, "%s", file);
    if (where) snprintf(err->where, sizeof err->where, "%s", where);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return code;
}

bw_result bw_fail(bw_error *err, bw_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(err, code, NULL, 0, NULL, fmt, ap);
    va_end(ap);
    return code;
}

bw_result bw_fail_at(bw_error *err, bw_result code, const char *file, int line, const char *where,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(err, code, file, line, where, fmt, ap);
    va_end(ap);
    return code;
}

void bw_log(const bw_logger *logger, bw_log_level level, const char *fmt, ...)
{
    if (!logger || !logger->fn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    logger->fn(logger->user, level, msg);
}
