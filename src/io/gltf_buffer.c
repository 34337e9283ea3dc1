/* gltf_buffer.c - the glTF loader's byte layer: the GLB container, buffers
 * (GLB BIN chunk, base64 data URIs, files beside the .gltf) and accessors
 * decoded to floats.
 *
 * Every length, offset and stride read from the file is checked against
 * what actually exists before a byte is read, in 64-bit arithmetic on
 * values already bounded (counts <= GLTF_MAX_KEYS, strides <= 252), so no
 * product can wrap. Bytes are assembled little-endian by hand, so unaligned
 * data and big-endian hosts read correctly. Buffers load lazily: a file
 * whose animations never touch a mesh buffer never reads it.
 */
#include <limits.h>
#include <stdio.h>

#include "gltf_internal.h"
#include "safe_file.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au
#define GLB_CHUNK_BIN 0x004E4942u

static uint32_t read_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bw_result bw_gltf_parse_glb(gltf_ctx *c, const unsigned char *data, size_t size)
{
    if (size < 20) return bw_gltf_fail(c, BW_ERR_PARSE, "", "GLB file of %zu bytes is shorter than its header", size);
    if (read_u32(data) != GLB_MAGIC) return bw_gltf_fail(c, BW_ERR_PARSE, "", "not a GLB file (bad magic)");
    uint32_t version = read_u32(data + 4);
    if (version != 2) return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, "", "GLB version %u (only 2 is supported)", version);
    uint32_t length = read_u32(data + 8);
    if (length != size)
        return bw_gltf_fail(c, BW_ERR_PARSE, "", "GLB header declares %u bytes but the data has %zu", length, size);
    size_t json_len = read_u32(data + 12);
    if (read_u32(data + 16) != GLB_CHUNK_JSON)
        return bw_gltf_fail(c, BW_ERR_PARSE, "", "the first GLB chunk is not JSON");
    if (json_len > size - 20)
        return bw_gltf_fail(c, BW_ERR_PARSE, "", "the GLB JSON chunk (%zu bytes) runs past the end of the file",
                            json_len);
    size_t pos = 20 + json_len;
    while (pos < size) {
        if (size - pos < 8)
            return bw_gltf_fail(c, BW_ERR_PARSE, "", "%zu trailing bytes after the last GLB chunk", size - pos);
        size_t len = read_u32(data + pos);
        uint32_t type = read_u32(data + pos + 4);
        if (len > size - pos - 8)
            return bw_gltf_fail(c, BW_ERR_PARSE, "", "GLB chunk at byte %zu (%zu bytes) runs past the end of the file",
                                pos, len);
        if (type == GLB_CHUNK_BIN) {
            if (c->bin) return bw_gltf_fail(c, BW_ERR_PARSE, "", "a second GLB BIN chunk at byte %zu", pos);
            c->bin = data + pos + 8;
            c->bin_size = len;
        } else if (type == GLB_CHUNK_JSON) {
            return bw_gltf_fail(c, BW_ERR_PARSE, "", "a second GLB JSON chunk at byte %zu", pos);
        } /* other chunk types are reserved for extensions: skipped */
        pos += 8 + len;
    }
    c->glb = true;
    return bw_gltf_parse_json(c, (const char *)data + 20, json_len);
}

/* ---- buffers ---- */

static int base64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

static bw_result load_data_uri(gltf_ctx *c, gltf_buffer *b, const char *uri, const char *where)
{
    const char *comma = strchr(uri, ',');
    if (!comma) return bw_gltf_fail(c, BW_ERR_PARSE, where, "data URI without a ','");
    size_t head = (size_t)(comma - uri);
    if (head < 12 || memcmp(comma - 7, ";base64", 7) != 0)
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, where, "only base64 data URIs are supported");
    const char *p = comma + 1;
    size_t n = strlen(p);
    for (int pad = 0; pad < 2 && n > 0 && p[n - 1] == '='; pad++) n--;
    for (size_t i = 0; i < n; i++)
        if (base64_value((unsigned char)p[i]) < 0)
            return bw_gltf_fail(c, BW_ERR_PARSE, where, "invalid base64 character at offset %zu of the data", i);
    if (n % 4 == 1) return bw_gltf_fail(c, BW_ERR_PARSE, where, "base64 data of impossible length %zu", n);
    size_t out_size = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    if (out_size < b->size)
        return bw_gltf_fail(c, BW_ERR_RANGE, where, "data URI holds %zu bytes but byteLength is %zu", out_size, b->size);
    unsigned char *out = (unsigned char *)bw_alloc(c->a, out_size ? out_size : 1);
    if (!out) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, where, "out of memory decoding %zu bytes", out_size);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = base64_value((unsigned char)p[i]); /* valid: checked above */
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o < out_size) out[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1u;
        }
    }
    b->owned = out;
    b->owned_size = out_size ? out_size : 1;
    b->data = out;
    return BW_OK;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A relative file reference inside the .gltf's folder. Schemes and drive
 * letters are refused here; %-escapes are decoded and the decoded path
 * goes to bw_io_read_beneath, which refuses absolute paths, ".." (so
 * "%2e%2e" cannot sneak out either), NUL ("%00") and symbolic links, and
 * checks the file against byteLength before reading it. */
static bw_result load_file_uri(gltf_ctx *c, gltf_buffer *b, const char *uri, const char *where)
{
    const bw_io_origin *o = c->origin;
    if (!o)
        return bw_gltf_fail(c, BW_ERR_IO, where, "external buffer \"%.64s\" but the glTF was loaded from memory", uri);
    size_t n = strlen(uri);
    if (n == 0) return bw_gltf_fail(c, BW_ERR_PARSE, where, "empty URI");
    const char *slash = strpbrk(uri, "/\\");
    const char *colon = strchr(uri, ':');
    if (colon && (!slash || colon < slash))
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, where, "URI schemes and drive letters are refused (%.64s)", uri);
    /* root as a NUL-terminated folder name, then prefix + decoded uri */
    size_t root_cap = o->root_len + 1, rel_cap = o->prefix_len + n + 1;
    char *root = (char *)bw_alloc(c->a, root_cap);
    char *rel = (char *)bw_alloc(c->a, rel_cap);
    bw_result r = root && rel ? BW_OK : bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, where, "out of memory");
    size_t len = 0;
    if (r == BW_OK) {
        memcpy(root, o->root, o->root_len);
        root[o->root_len] = '\0';
        memcpy(rel, o->prefix, o->prefix_len);
        len = o->prefix_len;
    }
    for (size_t i = 0; i < n && r == BW_OK; i++) {
        char ch = uri[i];
        if (ch == '%') {
            int hi = i + 2 < n ? hex_value(uri[i + 1]) : -1;
            int lo = hi >= 0 ? hex_value(uri[i + 2]) : -1;
            if (hi < 0 || lo < 0) r = bw_gltf_fail(c, BW_ERR_PARSE, where, "bad %%-escape in the URI");
            ch = (char)(hi * 16 + lo);
            i += 2;
        }
        rel[len++] = ch;
    }
    void *data = NULL;
    size_t size = 0;
    if (r == BW_OK) {
        rel[len] = '\0';
        /* "buffers[0].uri 'x.bin': not a regular file (FIFO)": the field
         * and the URI as written, then what is wrong with the file */
        char label[GLTF_PATH_SIZE + 80];
        snprintf(label, sizeof label, "%s '%.64s'", where, uri);
        bw_io_read req = {label, c->a, c->max_bytes, b->size};
        bw_error io;
        memset(&io, 0, sizeof io);
        r = bw_io_read_beneath(root, rel, len, &req, &data, &size, &io);
        if (r != BW_OK)
            bw_fail_at(c->err, r, c->name, 0, where, "%s: %s", c->name ? c->name : "(memory)", io.message);
    }
    if (root) bw_free(c->a, root, root_cap);
    if (rel) bw_free(c->a, rel, rel_cap);
    if (r != BW_OK) return r;
    b->owned = (unsigned char *)data;
    b->owned_size = size ? size : 1;
    b->data = b->owned;
    return BW_OK;
}

static bw_result load_buffer(gltf_ctx *c, int index)
{
    gltf_buffer *b = &c->buffers[index];
    if (b->data) return BW_OK;
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "buffers[%d]", index);
    const cJSON *obj = c->buffer_json[index];
    long long len;
    bw_result r = bw_gltf_member_int(c, obj, base, "byteLength", true, 1, LLONG_MAX, 0, &len);
    if (r != BW_OK) return r;
    if ((unsigned long long)len > c->max_bytes)
        return bw_gltf_fail(c, BW_ERR_LIMIT, bw_gltf_path(where, "%s.byteLength", base),
                            "byteLength %lld exceeds the %zu-byte limit", len, c->max_bytes);
    b->size = (size_t)len;
    const char *uri;
    r = bw_gltf_member_string(c, obj, base, "uri", false, &uri);
    if (r != BW_OK) return r;
    bw_gltf_path(where, "%s.uri", base);
    if (!uri) {
        if (!c->glb || index != 0) return bw_gltf_fail(c, BW_ERR_PARSE, where, "buffer has no uri");
        if (!c->bin) return bw_gltf_fail(c, BW_ERR_PARSE, where, "buffer 0 has no uri and the GLB has no BIN chunk");
        if (b->size > c->bin_size)
            return bw_gltf_fail(c, BW_ERR_RANGE, bw_gltf_path(where, "%s.byteLength", base),
                                "byteLength %zu exceeds the GLB BIN chunk (%zu bytes)", b->size, c->bin_size);
        b->data = c->bin;
        return BW_OK;
    }
    if (!strncmp(uri, "data:", 5)) return load_data_uri(c, b, uri, where);
    return load_file_uri(c, b, uri, where);
}

/* ---- accessors ---- */

static int component_size(long long type)
{
    switch (type) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static int type_components(const char *type)
{
    static const struct { const char *name; int comps; } types[] = {
        {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(type, types[i].name)) return types[i].comps;
    return 0;
}

/* One component as a float: floats as stored, integers normalized per the
 * glTF spec (signed types clamp at -1 so -128 and -127 both give -1). */
static float read_component(const unsigned char *p, long long type)
{
    switch (type) {
    case 5120: { float f = (float)(int8_t)p[0] / 127.0f; return f < -1.0f ? -1.0f : f; }
    case 5121: return (float)p[0] / 255.0f;
    case 5122: {
        float f = (float)(int16_t)(uint16_t)(p[0] | p[1] << 8) / 32767.0f;
        return f < -1.0f ? -1.0f : f;
    }
    case 5123: return (float)(uint16_t)(p[0] | p[1] << 8) / 65535.0f;
    default: {
        uint32_t u = read_u32(p);
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    }
}

/* One unsigned integer component (5121, 5123, 5125) as a float: exact
 * below 2^24, the largest index or joint number a mesh may use. */
static float read_integer(const unsigned char *p, long long type)
{
    if (type == 5121) return (float)p[0];
    if (type == 5123) return (float)(uint16_t)(p[0] | p[1] << 8);
    return (float)read_u32(p);
}

/* A bufferView's bytes: [begin, begin + length) of a loaded buffer. */
typedef struct view_bytes {
    const unsigned char *data;
    size_t length;
    size_t stride; /* 0 when the view does not set byteStride */
} view_bytes;

static bw_result get_view(gltf_ctx *c, int index, view_bytes *out)
{
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "bufferViews[%d]", index);
    const cJSON *v = c->views[index];
    long long buffer, offset, length, stride;
    bw_result r = bw_gltf_member_int(c, v, base, "buffer", true, 0, (long long)c->buffer_count - 1, 0, &buffer);
    if (r == BW_OK) r = bw_gltf_member_int(c, v, base, "byteOffset", false, 0, LLONG_MAX / 4, 0, &offset);
    if (r == BW_OK) r = bw_gltf_member_int(c, v, base, "byteLength", true, 1, LLONG_MAX / 4, 0, &length);
    if (r == BW_OK) r = bw_gltf_member_int(c, v, base, "byteStride", false, 4, 252, 0, &stride);
    if (r != BW_OK) return r;
    if (stride % 4)
        return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.byteStride", base),
                            "byteStride %lld is not a multiple of 4", stride);
    r = load_buffer(c, (int)buffer);
    if (r != BW_OK) return r;
    size_t bsize = c->buffers[buffer].size;
    if ((unsigned long long)offset > bsize || (unsigned long long)length > bsize - (size_t)offset)
        return bw_gltf_fail(c, BW_ERR_RANGE, bw_gltf_path(where, "%s.byteLength", base),
                            "bytes [%lld, %lld + %lld) exceed buffer %lld (%zu bytes)", offset, offset, length, buffer,
                            bsize);
    out->data = c->buffers[buffer].data + offset;
    out->length = (size_t)length;
    out->stride = (size_t)stride;
    return BW_OK;
}

/* Bytes [offset, offset + need) must lie inside the view. */
static bool fits(const view_bytes *v, unsigned long long offset, unsigned long long need)
{
    return offset <= v->length && need <= v->length - offset;
}

static bw_result read_sparse(gltf_ctx *c, const cJSON *sparse, const char *base, long long ctype, int comps,
                             size_t count, float *out)
{
    char sbase[GLTF_PATH_SIZE], ibase[GLTF_PATH_SIZE], vbase[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(sbase, "%s.sparse", base);
    if (!cJSON_IsObject(sparse)) return bw_gltf_fail(c, BW_ERR_PARSE, sbase, "expected an object");
    long long n;
    bw_result r = bw_gltf_member_int(c, sparse, sbase, "count", true, 1, (long long)count, 0, &n);
    if (r != BW_OK) return r;
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    bw_gltf_path(ibase, "%s.indices", sbase);
    bw_gltf_path(vbase, "%s.values", sbase);
    if (!cJSON_IsObject(ind)) return bw_gltf_fail(c, BW_ERR_PARSE, ibase, "required object is missing");
    if (!cJSON_IsObject(val)) return bw_gltf_fail(c, BW_ERR_PARSE, vbase, "required object is missing");
    long long iview, ioff, itype, vview, voff;
    r = bw_gltf_member_int(c, ind, ibase, "bufferView", true, 0, (long long)c->view_count - 1, 0, &iview);
    if (r == BW_OK) r = bw_gltf_member_int(c, ind, ibase, "byteOffset", false, 0, LLONG_MAX / 4, 0, &ioff);
    if (r == BW_OK) r = bw_gltf_member_int(c, ind, ibase, "componentType", true, 0, LLONG_MAX, 0, &itype);
    if (r == BW_OK) r = bw_gltf_member_int(c, val, vbase, "bufferView", true, 0, (long long)c->view_count - 1, 0, &vview);
    if (r == BW_OK) r = bw_gltf_member_int(c, val, vbase, "byteOffset", false, 0, LLONG_MAX / 4, 0, &voff);
    if (r != BW_OK) return r;
    if (itype != 5121 && itype != 5123 && itype != 5125)
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, bw_gltf_path(where, "%s.componentType", ibase),
                            "sparse index component type %lld (expected 5121, 5123 or 5125)", itype);
    view_bytes iv, vv;
    r = get_view(c, (int)iview, &iv);
    if (r == BW_OK) r = get_view(c, (int)vview, &vv);
    if (r != BW_OK) return r;
    int isize = component_size(itype), csize = component_size(ctype);
    size_t elem = (size_t)csize * (size_t)comps;
    if (!fits(&iv, (unsigned long long)ioff, (unsigned long long)n * (unsigned long long)isize))
        return bw_gltf_fail(c, BW_ERR_RANGE, bw_gltf_path(where, "%s.count", sbase),
                            "%lld sparse indices exceed bufferView %lld", n, iview);
    if (!fits(&vv, (unsigned long long)voff, (unsigned long long)n * elem))
        return bw_gltf_fail(c, BW_ERR_RANGE, bw_gltf_path(where, "%s.count", sbase),
                            "%lld sparse values exceed bufferView %lld", n, vview);
    const unsigned char *ip = iv.data + ioff, *vp = vv.data + voff;
    long long prev = -1;
    for (long long k = 0; k < n; k++) {
        const unsigned char *q = ip + (size_t)k * (size_t)isize;
        long long idx = isize == 1 ? q[0] : isize == 2 ? (long long)(q[0] | q[1] << 8) : (long long)read_u32(q);
        if (idx <= prev || (size_t)idx >= count)
            return bw_gltf_fail(c, BW_ERR_RANGE, ibase, "sparse index %lld at %lld is out of order or out of range",
                                idx, k);
        prev = idx;
        for (int j = 0; j < comps; j++)
            out[(size_t)idx * (size_t)comps + (size_t)j] =
                read_component(vp + (size_t)k * elem + (size_t)j * (size_t)csize, ctype);
    }
    return BW_OK;
}

bw_result bw_gltf_budget(gltf_ctx *c, size_t n, const char *where)
{
    if (n > c->float_budget)
        return bw_gltf_fail(c, BW_ERR_LIMIT, where, "animation data larger than the %zu-byte limit", c->max_bytes);
    c->float_budget -= n;
    return BW_OK;
}

static const char *comps_name(int comps)
{
    return comps == 1 ? "SCALAR" : comps == 2 ? "VEC2" : comps == 3 ? "VEC3" : comps == 4 ? "VEC4" : "?";
}

/* Decode accessor `index`: floats (floats and normalized integers) or,
 * when `integer`, unsigned integers that are not normalized (indices,
 * joint numbers) kept as whole numbers. */
static bw_result decode_accessor(gltf_ctx *c, int index, int comps, const char *use_where, bool integer,
                                 const gltf_floats **out)
{
    gltf_floats *cached = &c->decoded[index];
    char base[GLTF_PATH_SIZE], where[GLTF_PATH_SIZE];
    bw_gltf_path(base, "accessors[%d]", index);
    if (cached->data) {
        if (cached->integer != integer)
            return bw_gltf_fail(c, BW_ERR_PARSE, use_where, "accessor %d is used both as %s and as %s", index,
                                integer ? "integers" : "floats", integer ? "floats" : "integers");
        if (cached->comps != comps)
            return bw_gltf_fail(c, BW_ERR_PARSE, use_where, "accessor %d is %s, expected %s", index,
                                comps_name(cached->comps), comps_name(comps));
        *out = cached;
        return BW_OK;
    }
    const cJSON *acc = c->accessors[index];
    long long ctype, count, offset, view = -1;
    const char *type;
    bw_result r = bw_gltf_member_int(c, acc, base, "componentType", true, 0, LLONG_MAX, 0, &ctype);
    if (r == BW_OK) r = bw_gltf_member_int(c, acc, base, "count", true, 1, LLONG_MAX, 0, &count);
    if (r == BW_OK) r = bw_gltf_member_string(c, acc, base, "type", true, &type);
    if (r == BW_OK) r = bw_gltf_member_int(c, acc, base, "byteOffset", false, 0, LLONG_MAX / 4, 0, &offset);
    if (r == BW_OK && cJSON_GetObjectItemCaseSensitive(acc, "bufferView"))
        r = bw_gltf_member_int(c, acc, base, "bufferView", true, 0, (long long)c->view_count - 1, 0, &view);
    if (r != BW_OK) return r;
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(acc, "normalized");
    if (norm && !cJSON_IsBool(norm))
        return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.normalized", base), "expected a boolean");
    bool normalized = cJSON_IsTrue(norm);
    int csize = component_size(ctype);
    if (!csize)
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, bw_gltf_path(where, "%s.componentType", base),
                            "unknown component type %lld", ctype);
    int tcomps = type_components(type);
    if (!tcomps) return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.type", base), "unknown type \"%.32s\"", type);
    if (tcomps != comps)
        return bw_gltf_fail(c, BW_ERR_PARSE, use_where, "accessor %d is %s, expected %s", index, type, comps_name(comps));
    if (integer && (normalized || (ctype != 5121 && ctype != 5123 && ctype != 5125)))
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, use_where,
                            "accessor %d: component type %lld%s is not usable for indices "
                            "(unsigned 8/16/32-bit integers, not normalized)",
                            index, ctype, normalized ? " with \"normalized\"" : "");
    if (!integer && (ctype == 5125 || (ctype != 5126 && !normalized)))
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, use_where,
                            "accessor %d: component type %lld%s is not usable for animation data "
                            "(float or normalized 8/16-bit integers)",
                            index, ctype, normalized ? "" : " without \"normalized\"");
    if (count > GLTF_MAX_KEYS)
        return bw_gltf_fail(c, BW_ERR_LIMIT, bw_gltf_path(where, "%s.count", base), "count %lld exceeds the limit %d",
                            count, GLTF_MAX_KEYS);
    size_t n = (size_t)count * (size_t)comps;
    r = bw_gltf_budget(c, n, bw_gltf_path(where, "%s.count", base));
    if (r != BW_OK) return r;
    /* Validate the bytes before allocating anything. */
    view_bytes vb = {NULL, 0, 0};
    size_t elem = (size_t)csize * (size_t)comps, stride = elem;
    if (view >= 0) {
        r = get_view(c, (int)view, &vb);
        if (r != BW_OK) return r;
        if (vb.stride) {
            if (vb.stride < elem)
                return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "bufferViews[%lld].byteStride", view),
                                    "byteStride %zu is smaller than one %s element (%zu bytes)", vb.stride, type, elem);
            stride = vb.stride;
        }
        unsigned long long need = (unsigned long long)stride * (unsigned long long)(count - 1) + elem;
        if (!fits(&vb, (unsigned long long)offset, need))
            return bw_gltf_fail(c, BW_ERR_RANGE, bw_gltf_path(where, "%s.count", base),
                                "%lld elements of %zu bytes (stride %zu) from byteOffset %lld exceed bufferView %lld "
                                "(%zu bytes)",
                                count, elem, stride, offset, view, vb.length);
    } else if (offset) {
        return bw_gltf_fail(c, BW_ERR_PARSE, bw_gltf_path(where, "%s.byteOffset", base),
                            "byteOffset without a bufferView");
    }
    float *f = (float *)bw_alloc_zeroed(c->a, n * sizeof(float));
    if (!f) return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, base, "out of memory for %zu floats", n);
    if (vb.data) {
        const unsigned char *p = vb.data + offset;
        for (size_t i = 0; i < (size_t)count; i++, p += stride)
            for (int j = 0; j < comps; j++)
                f[i * (size_t)comps + (size_t)j] = integer ? read_integer(p + (size_t)j * (size_t)csize, ctype)
                                                           : read_component(p + (size_t)j * (size_t)csize, ctype);
    }
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(acc, "sparse");
    if (sparse && integer) r = bw_gltf_fail(c, BW_ERR_UNSUPPORTED, bw_gltf_path(where, "%s.sparse", base),
                                            "sparse integer accessors are not supported");
    else if (sparse) r = read_sparse(c, sparse, base, ctype, comps, (size_t)count, f);
    for (size_t i = 0; r == BW_OK && i < n; i++)
        if (!isfinite(f[i]))
            r = bw_gltf_fail(c, BW_ERR_NON_FINITE, use_where, "accessor %d element %zu component %zu is not finite",
                             index, i / (size_t)comps, i % (size_t)comps);
    if (r != BW_OK) {
        bw_free(c->a, f, n * sizeof(float));
        return r;
    }
    cached->data = f;
    cached->count = (size_t)count;
    cached->comps = comps;
    cached->integer = integer;
    *out = cached;
    return BW_OK;
}

bw_result bw_gltf_accessor_floats(gltf_ctx *c, int index, int comps, const char *use_where,
                                  const gltf_floats **out)
{
    return decode_accessor(c, index, comps, use_where, false, out);
}

bw_result bw_gltf_accessor_uints(gltf_ctx *c, int index, int comps, const char *use_where,
                                 const gltf_floats **out)
{
    return decode_accessor(c, index, comps, use_where, true, out);
}

/* ---- the document ---- */

static bw_result check_document(gltf_ctx *c)
{
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(c->root, "asset");
    if (!cJSON_IsObject(asset)) return bw_gltf_fail(c, BW_ERR_PARSE, "asset", "required object is missing");
    const char *version;
    bw_result r = bw_gltf_member_string(c, asset, "asset", "version", true, &version);
    if (r != BW_OK) return r;
    if (strncmp(version, "2.", 2) != 0)
        return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, "asset.version", "glTF version \"%.16s\" (only 2.x is supported)",
                            version);
    const cJSON *req;
    r = bw_gltf_member_array(c, c->root, "", "extensionsRequired", false, &req, NULL);
    if (r != BW_OK) return r;
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, req)
    {
        char where[GLTF_PATH_SIZE];
        bw_gltf_path(where, "extensionsRequired[%d]", k++);
        if (!cJSON_IsString(e)) return bw_gltf_fail(c, BW_ERR_PARSE, where, "expected a string");
        /* compressed buffer views would be read as garbage: refuse them */
        if (!strcmp(e->valuestring, "EXT_meshopt_compression") || !strcmp(e->valuestring, "KHR_meshopt_compression"))
            return bw_gltf_fail(c, BW_ERR_UNSUPPORTED, where, "required extension %s is not supported", e->valuestring);
    }
    return BW_OK;
}

void bw_gltf_ctx_init(gltf_ctx *c, const char *name, const bw_io_origin *origin, const bw_asset_options *options,
                      bw_error *err)
{
    c->a = options ? &options->allocator : NULL;
    c->err = err;
    c->name = name;
    c->origin = origin;
    if (options) c->logger = options->logger;
    c->max_bytes = options && options->max_bytes ? options->max_bytes : ((size_t)512 << 20);
    c->float_budget = c->max_bytes / sizeof(float);
}

bw_result bw_gltf_open(gltf_ctx *c, const void *data, size_t size)
{
    bw_result r;
    if (size >= 4 && !memcmp(data, "glTF", 4)) r = bw_gltf_parse_glb(c, (const unsigned char *)data, size);
    else r = bw_gltf_parse_json(c, (const char *)data, size);
    if (r == BW_OK) r = check_document(c);
    if (r == BW_OK) r = bw_gltf_table(c, "nodes", &c->nodes, &c->node_count);
    if (r == BW_OK) r = bw_gltf_table(c, "meshes", &c->meshes, &c->mesh_count);
    if (r == BW_OK) r = bw_gltf_table(c, "accessors", &c->accessors, &c->accessor_count);
    if (r == BW_OK) r = bw_gltf_table(c, "bufferViews", &c->views, &c->view_count);
    if (r == BW_OK) r = bw_gltf_table(c, "buffers", &c->buffer_json, &c->buffer_count);
    if (r != BW_OK) return r;
    /* a zero count leaves NULL (bw_gltf_close frees by count) */
    if (c->accessor_count)
        c->decoded = (gltf_floats *)bw_alloc_zeroed(c->a, (size_t)c->accessor_count * sizeof *c->decoded);
    if (c->buffer_count)
        c->buffers = (gltf_buffer *)bw_alloc_zeroed(c->a, (size_t)c->buffer_count * sizeof *c->buffers);
    if ((c->accessor_count && !c->decoded) || (c->buffer_count && !c->buffers))
        return bw_gltf_fail(c, BW_ERR_OUT_OF_MEMORY, "", "out of memory");
    return BW_OK;
}

void bw_gltf_close(gltf_ctx *c)
{
    for (int i = 0; i < c->accessor_count && c->decoded; i++)
        if (c->decoded[i].data)
            bw_free(c->a, c->decoded[i].data, c->decoded[i].count * (size_t)c->decoded[i].comps * sizeof(float));
    bw_free(c->a, c->decoded, (size_t)c->accessor_count * sizeof *c->decoded);
    for (int i = 0; i < c->buffer_count && c->buffers; i++)
        if (c->buffers[i].owned) bw_free(c->a, c->buffers[i].owned, c->buffers[i].owned_size);
    bw_free(c->a, c->buffers, (size_t)c->buffer_count * sizeof *c->buffers);
    bw_free(c->a, (void *)c->nodes, (size_t)c->node_count * sizeof *c->nodes);
    bw_free(c->a, (void *)c->meshes, (size_t)c->mesh_count * sizeof *c->meshes);
    bw_free(c->a, (void *)c->accessors, (size_t)c->accessor_count * sizeof *c->accessors);
    bw_free(c->a, (void *)c->views, (size_t)c->view_count * sizeof *c->views);
    bw_free(c->a, (void *)c->buffer_json, (size_t)c->buffer_count * sizeof *c->buffer_json);
    if (c->root) cJSON_Delete(c->root);
    bw_free(c->a, c->json_text, c->json_size);
    c->decoded = NULL;
    c->buffers = NULL;
    c->nodes = c->meshes = c->accessors = c->views = c->buffer_json = NULL;
    c->root = NULL;
    c->json_text = NULL;
}
