/* gltf_json.c - the glTF loader's JSON layer: a bounded pre-scan, parsing
 * through cJSON, a duplicate-key pass, typed member reads that report the
 * JSON path of what they reject, and the loader's error/warning helpers.
 *
 * Why a pre-scan before cJSON: cJSON recurses once per nesting level and
 * only reports "failed at byte N", allocates one node per value, and
 * (1.7.15, Debian's) does not check for duplicate keys. The scan is one
 * linear pass that bounds depth (naming the path where it got too deep),
 * bounds the number of values (so a small file cannot make cJSON allocate
 * without limit), refuses bytes after the top-level object, and makes sure
 * every string is terminated before cJSON looks at it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "gltf_internal.h"

/* ---- messages ---- */

static void vmessage(gltf_ctx *c, char *out, size_t out_size, const char *where, const char *fmt, va_list ap)
{
    char what[400];
    vsnprintf(what, sizeof what, fmt, ap);
    const char *file = c->name ? c->name : "(memory)";
    if (where && where[0]) snprintf(out, out_size, "%s: %s: %s", file, where, what);
    else snprintf(out, out_size, "%s: %s", file, what);
}

bw_result bw_gltf_fail(gltf_ctx *c, bw_result code, const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vmessage(c, msg, sizeof msg, where, fmt, ap);
    va_end(ap);
    return bw_fail_at(c->err, code, c->name, 0, where, "%s", msg);
}

void bw_gltf_warn(gltf_ctx *c, const char *where, const char *fmt, ...)
{
    if (!c->logger.fn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vmessage(c, msg, sizeof msg, where, fmt, ap);
    va_end(ap);
    c->logger.fn(c->logger.user, BW_LOG_WARNING, msg);
}

const char *bw_gltf_path(char *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, GLTF_PATH_SIZE, fmt, ap);
    va_end(ap);
    return buf;
}

/* Line (1-based) of byte `pos` of the JSON text, for syntax errors. */
static int line_of(const char *text, size_t pos)
{
    int line = 1;
    for (size_t i = 0; i < pos; i++)
        if (text[i] == '\n' && line < INT_MAX) line++;
    return line;
}

static bw_result fail_line(gltf_ctx *c, bw_result code, const char *text, size_t pos, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int line = line_of(text, pos);
    bw_fail_at(c->err, code, c->name, line, "", "%s:%d: %s (JSON byte %zu)", c->name ? c->name : "(memory)",
               line, what, pos);
    return code;
}

/* ---- pre-scan ---- */

typedef struct scan_frame {
    char kind;          /* '{' or '[' */
    bool expect_key;    /* object: the next string is a key */
    long index;         /* array: index of the current element */
    const char *key;    /* object: raw text of the current key */
    size_t key_len;
} scan_frame;

/* Render the path of the container being opened below frames[0..n-1]. */
static void scan_path(const scan_frame *frames, int n, char *out, size_t out_size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len + 1 < out_size; i++) {
        int w;
        if (frames[i].kind == '[')
            w = snprintf(out + len, out_size - len, "[%ld]", frames[i].index);
        else
            w = snprintf(out + len, out_size - len, "%s%.*s", len ? "." : "",
                         (int)(frames[i].key_len > 64 ? 64 : frames[i].key_len), frames[i].key ? frames[i].key : "");
        if (w < 0) break;
        len += (size_t)w;
        if (len >= out_size) len = out_size - 1;
    }
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

static bw_result prescan(gltf_ctx *c, const char *text, size_t size, size_t *out_begin)
{
    scan_frame frames[GLTF_MAX_DEPTH];
    int depth = 0;
    size_t pos = 0, items = 1;
    /* A UTF-8 byte order mark is not allowed by glTF but harmless: skip it. */
    if (size >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        pos = 3;
    while (pos < size && is_space(text[pos])) pos++;
    if (pos >= size) return fail_line(c, BW_ERR_PARSE, text, pos, "no JSON content");
    if (text[pos] != '{') return fail_line(c, BW_ERR_PARSE, text, pos, "the glTF JSON must be an object");
    *out_begin = pos;
    size_t end = 0; /* one past the top-level object's closing brace */
    while (pos < size) {
        char ch = text[pos];
        if (ch == '"') {
            size_t start = ++pos;
            while (pos < size && text[pos] != '"') pos += text[pos] == '\\' ? 2 : 1;
            if (pos >= size) return fail_line(c, BW_ERR_PARSE, text, start - 1, "unterminated string");
            if (depth > 0 && frames[depth - 1].kind == '{' && frames[depth - 1].expect_key) {
                frames[depth - 1].key = text + start;
                frames[depth - 1].key_len = pos - start;
                frames[depth - 1].expect_key = false;
            }
            pos++;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (depth >= GLTF_MAX_DEPTH) {
                char where[GLTF_PATH_SIZE];
                scan_path(frames, depth, where, sizeof where);
                int line = line_of(text, pos);
                bw_fail_at(c->err, BW_ERR_LIMIT, c->name, line, where,
                           "%s: %s: JSON nested deeper than %d levels (line %d)", c->name ? c->name : "(memory)",
                           where, GLTF_MAX_DEPTH, line);
                return BW_ERR_LIMIT;
            }
            frames[depth].kind = ch;
            frames[depth].expect_key = ch == '{';
            frames[depth].index = 0;
            frames[depth].key = NULL;
            frames[depth].key_len = 0;
            depth++;
            items += 2;
        } else if (ch == '}' || ch == ']') {
            if (depth == 0) break; /* unbalanced: cJSON reports it */
            depth--;
            if (depth == 0) {
                end = pos + 1;
                break;
            }
        } else if (ch == ',') {
            items++;
            if (depth > 0) {
                if (frames[depth - 1].kind == '[') frames[depth - 1].index++;
                else frames[depth - 1].expect_key = true;
            }
        }
        if (items > GLTF_MAX_ITEMS || items * sizeof(cJSON) > c->max_bytes)
            return fail_line(c, BW_ERR_LIMIT, text, pos, "more JSON values than the loader accepts (%zu)", items);
        pos++;
    }
    if (end == 0) return fail_line(c, BW_ERR_PARSE, text, size, "the JSON object is not closed");
    for (size_t i = end; i < size; i++) {
        if (is_space(text[i]) || (c->glb && text[i] == '\0')) continue;
        return fail_line(c, BW_ERR_PARSE, text, i, "trailing bytes after the JSON object");
    }
    return BW_OK;
}

/* ---- duplicate keys ---- */

static int compare_keys(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static bw_result dup_fail(gltf_ctx *c, char *path, size_t len, const char *key)
{
    snprintf(path + len, GLTF_PATH_SIZE - len, "%s%s", len ? "." : "", key);
    return bw_gltf_fail(c, BW_ERR_DUPLICATE, path, "duplicate key \"%s\"", key);
}

/* Depth is bounded by the pre-scan (GLTF_MAX_DEPTH), so recursion is safe. */
static bw_result dup_check(gltf_ctx *c, const cJSON *item, char *path, size_t len)
{
    if (cJSON_IsObject(item)) {
        size_t n = 0;
        const cJSON *ch;
        cJSON_ArrayForEach(ch, item) n++;
        if (n > 1 && n <= 16) {
            for (const cJSON *x = item->child; x; x = x->next)
                for (const cJSON *y = x->next; y; y = y->next)
                    if (!strcmp(x->string, y->string)) return dup_fail(c, path, len, y->string);
        } else if (n > 16) {
            const cJSON **keys = (const cJSON **)bw_alloc(c->a, n * sizeof *keys);
            if (!keys) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, path, "out of memory");
            size_t i = 0;
            cJSON_ArrayForEach(ch, item) keys[i++] = ch;
            qsort(keys, n, sizeof *keys, compare_keys);
            for (i = 1; i < n; i++)
                if (!strcmp(keys[i - 1]->string, keys[i]->string)) {
                    const char *key = keys[i]->string;
                    bw_free(c->a, keys, n * sizeof *keys);
                    return dup_fail(c, path, len, key);
                }
            bw_free(c->a, keys, n * sizeof *keys);
        }
    }
    if (!cJSON_IsObject(item) && !cJSON_IsArray(item)) return BW_OK;
    long index = 0;
    const cJSON *ch;
    cJSON_ArrayForEach(ch, item)
    {
        if (cJSON_IsObject(ch) || cJSON_IsArray(ch)) {
            size_t sub = len;
            if (len + 1 < GLTF_PATH_SIZE) {
                int w = cJSON_IsArray(item) ? snprintf(path + len, GLTF_PATH_SIZE - len, "[%ld]", index)
                                            : snprintf(path + len, GLTF_PATH_SIZE - len, "%s%s", len ? "." : "",
                                                       ch->string);
                sub = w < 0 ? len : len + (size_t)w;
                if (sub >= GLTF_PATH_SIZE) sub = GLTF_PATH_SIZE - 1;
            }
            bw_result r = dup_check(c, ch, path, sub);
            if (r != BW_OK) return r;
            path[len] = '\0';
        }
        index++;
    }
    return BW_OK;
}

bw_result bw_gltf_parse_json(gltf_ctx *c, const char *text, size_t size)
{
    size_t begin = 0;
    bw_result r = prescan(c, text, size, &begin);
    if (r != BW_OK) return r;
    /* cJSON gets its own NUL-terminated copy with zero padding after it, so
     * no parse path can run past the end of our input. */
    c->json_size = size - begin + 8;
    c->json_text = (char *)bw_alloc_zeroed(c->a, c->json_size);
    if (!c->json_text) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "", "out of memory for the JSON text");
    memcpy(c->json_text, text + begin, size - begin);
    const char *stop = NULL;
    c->root = cJSON_ParseWithLengthOpts(c->json_text, size - begin, &stop, 0);
    if (!c->root) {
        size_t at = stop && stop >= c->json_text ? (size_t)(stop - c->json_text) : 0;
        return fail_line(c, BW_ERR_PARSE, text, begin + at, "malformed JSON");
    }
    char path[GLTF_PATH_SIZE];
    path[0] = '\0';
    return dup_check(c, c->root, path, 0);
}

/* ---- typed reads ---- */

static const char *type_name(const cJSON *item)
{
    if (!item) return "nothing";
    if (cJSON_IsNumber(item)) return "a number";
    if (cJSON_IsString(item)) return "a string";
    if (cJSON_IsArray(item)) return "an array";
    if (cJSON_IsObject(item)) return "an object";
    if (cJSON_IsBool(item)) return "a boolean";
    if (cJSON_IsNull(item)) return "null";
    return "an invalid value";
}

bw_result bw_gltf_int(gltf_ctx *c, const cJSON *item, const char *where, long long lo, long long hi,
                      long long *out)
{
    if (!cJSON_IsNumber(item)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected an integer, found %s", type_name(item));
    double d = item->valuedouble;
    /* Integer-ness first: 1.5 where [0, 0] is allowed is wrong because it
     * is a fraction, and saying "outside [0, 0]" would hide that. */
    if (!isfinite(d)) return bw_gltf_fail(c, BW_ERR_NON_FINITE, where, "must be an integer, found %g", d);
    if (d != floor(d)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "must be an integer, found %.15g", d);
    /* beyond 2^53 doubles are not exact integers, and converting one past
     * LLONG_MAX would be undefined: refuse before converting */
    if (d < (double)lo || d > (double)hi)
        return bw_gltf_fail(c, BW_ERR_RANGE, where, "%.15g is outside [%lld, %lld]", d, lo, hi);
    if (fabs(d) > 9007199254740992.0) /* inside a range as wide as long long's: say the real bound */
        return bw_gltf_fail(c, BW_ERR_RANGE, where, "%.15g is beyond 2^53, past which a JSON number is not an exact integer",
                            d);
    *out = (long long)d;
    return BW_OK;
}

bw_result bw_gltf_member_int(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                             bool required, long long lo, long long hi, long long dflt, long long *out)
{
    char where[GLTF_PATH_SIZE];
    bw_gltf_path(where, "%s%s%s", obj_where, obj_where[0] ? "." : "", key);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!item) {
        if (required) return bw_gltf_fail(c, BW_ERR_PARSE, where, "required member is missing");
        *out = dflt;
        return BW_OK;
    }
    return bw_gltf_int(c, item, where, lo, hi, out);
}

bw_result bw_gltf_member_string(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                                bool required, const char **out)
{
    char where[GLTF_PATH_SIZE];
    bw_gltf_path(where, "%s%s%s", obj_where, obj_where[0] ? "." : "", key);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (!item) return required ? bw_gltf_fail(c, BW_ERR_PARSE, where, "required member is missing") : BW_OK;
    if (!cJSON_IsString(item) || !item->valuestring)
        return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected a string, found %s", type_name(item));
    *out = item->valuestring;
    return BW_OK;
}

bw_result bw_gltf_member_floats(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                                int n, float *out, bool *present)
{
    char where[GLTF_PATH_SIZE];
    bw_gltf_path(where, "%s%s%s", obj_where, obj_where[0] ? "." : "", key);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present) *present = item != NULL;
    if (!item) return BW_OK;
    if (!cJSON_IsArray(item)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected an array, found %s", type_name(item));
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, item)
    {
        if (i >= n) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected %d numbers, found more", n);
        if (!cJSON_IsNumber(x))
            return bw_gltf_fail(c, BW_ERR_PARSE, where, "element %d: expected a number, found %s", i, type_name(x));
        double d = x->valuedouble;
        if (!isfinite(d) || fabs(d) > 3.4e38)
            return bw_gltf_fail(c, BW_ERR_NON_FINITE, where, "element %d is not a finite float (%g)", i, d);
        out[i++] = (float)d;
    }
    if (i != n) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected %d numbers, found %d", n, i);
    return BW_OK;
}

bw_result bw_gltf_member_array(gltf_ctx *c, const cJSON *obj, const char *obj_where, const char *key,
                               bool required, const cJSON **out, int *count)
{
    char where[GLTF_PATH_SIZE];
    bw_gltf_path(where, "%s%s%s", obj_where, obj_where[0] ? "." : "", key);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    *out = NULL;
    if (count) *count = 0;
    if (!item) return required ? bw_gltf_fail(c, BW_ERR_PARSE, where, "required member is missing") : BW_OK;
    if (!cJSON_IsArray(item)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected an array, found %s", type_name(item));
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, item) n++; /* bounded by the pre-scan's value limit */
    *out = item;
    if (count) *count = n;
    return BW_OK;
}

bw_result bw_gltf_table(gltf_ctx *c, const char *key, const cJSON ***out, int *count)
{
    const cJSON *arr;
    int n;
    *out = NULL;
    *count = 0;
    bw_result r = bw_gltf_member_array(c, c->root, "", key, false, &arr, &n);
    if (r != BW_OK || n == 0) return r;
    const cJSON **table = (const cJSON **)bw_alloc(c->a, (size_t)n * sizeof *table);
    if (!table) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, key, "out of memory");
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr)
    {
        if (!cJSON_IsObject(x)) {
            char where[GLTF_PATH_SIZE];
            bw_free(c->a, table, (size_t)n * sizeof *table);
            return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s[%d]", key, i), "expected an object, found %s",
                                type_name(x));
        }
        table[i++] = x;
    }
    *out = table;
    *count = n;
    return BW_OK;
}
