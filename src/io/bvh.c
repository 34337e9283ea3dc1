/* bvh.c - the BVH (Biovision Hierarchy) loader.
 *
 * Reads HIERARCHY (ROOT / JOINT blocks with OFFSET and CHANNELS, End Sites)
 * and MOTION (Frames, Frame Time, one line of channel values per frame) into
 * one rig and one clip. Decisions, also in docs/cli.md:
 * - Joints are stored in file order, which is parent-first. Rest transform:
 *   translation = OFFSET, rotation identity, scale 1. End Sites are not
 *   joints (their OFFSET is read and checked, then dropped). Several ROOTs
 *   are allowed; each is a root joint.
 * - Rotation channels are intrinsic Euler angles in degrees, composed in the
 *   order they are listed (Zrotation Xrotation Yrotation gives
 *   q = qz * qx * qy), so each joint has its own Euler order. Position
 *   channels (any joint, not only the root) replace the matching OFFSET
 *   component; axes without a position channel keep the OFFSET value.
 * - The clip is named after the file's base name without its extension
 *   ("motion" without a name), keys frame i at i * frame_time, linear keys
 *   (rotation by the sampler's shortest-arc slerp), loop flag off. A joint
 *   gets a rotation track when it has rotation channels and a translation
 *   track when it has position channels; one with no channels has none.
 * - Joint names: a joint whose (parent name, name) pair is already taken
 *   by a joint under another parent of the same name is renamed
 *   "<name>#<N>" (N = its joint index, in file order) with a warning, the
 *   glTF loader's rule, because clips and the rig identify joints by that
 *   pair. Two same-named joints under one parent (or two same-named
 *   ROOTs) are an error instead.
 * - A Frames header that disagrees with the data is a warning through
 *   options->logger; the frames actually present are used, however large
 *   the header number. A last frame line cut off by the end of the file
 *   (fewer values than channels and no line break after it) is dropped
 *   with a warning; a short or long line anywhere else is an error.
 * - Limits (BW_ERR_LIMIT): 1024 joints, nesting depth 256, 6 channels per
 *   joint, 4,194,304 frame lines, names of 255 bytes, numbers of magnitude
 *   above 1e9. NaN, infinity and overflowing numbers are BW_ERR_NON_FINITE;
 *   everything else malformed is BW_ERR_PARSE.
 * Every error message starts with "FILE:LINE:" and err->line is that line;
 * every warning starts with "FILE:LINE:" too.
 * Nothing is allocated in proportion to a header count: the frame data is
 * counted first, so memory is bounded by the input size.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "loaders.h"

#define MAX_JOINTS 1024
#define MAX_DEPTH 256
#define MAX_CHANNELS_PER_JOINT 6
#define MAX_FRAMES (1 << 22)
#define MAX_NAME 255
#define MAX_MAGNITUDE 1e9
#define PI_D 3.14159265358979323846

/* Channel kinds; the axis is kind % 3, rotation when kind >= 3. */
enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT };
static const char *const channel_names[6] = {"Xposition", "Yposition", "Zposition",
                                             "Xrotation", "Yrotation", "Zrotation"};

typedef struct joint_info {
    char *name;   /* allocated, NUL-terminated */
    size_t name_size;
    int parent;
    int line;
    float offset[3];
    bool has_offset;
    bool has_channels;
    int channel_count;
    unsigned char channels[MAX_CHANNELS_PER_JOINT];
    int first_column; /* column of the joint's first channel in a frame line */
} joint_info;

typedef struct token {
    const char *s;
    size_t n;
    int line;
} token;

typedef struct parser {
    const char *p, *end;
    int line;
    const char *name; /* display name for messages */
    const char *file; /* err->file (may be NULL) */
    bw_error *err;
    bw_logger logger; /* warnings; fn may be NULL */
    const bw_allocator *a;
    joint_info *joints;
    int joint_count, joint_cap;
    int column_count; /* channels over all joints */
} parser;

static bw_result fail(parser *ps, int line, bw_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static bw_result fail(parser *ps, int line, bw_result code, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line <= 0) return bw_fail_at(ps->err, code, ps->file, 0, NULL, "%s: %s", ps->name, msg);
    return bw_fail_at(ps->err, code, ps->file, line, NULL, "%s:%d: %s", ps->name, line, msg);
}

static void warn(parser *ps, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A warning through the caller's logger, "FILE:LINE: message" like errors. */
static void warn(parser *ps, int line, const char *fmt, ...)
{
    if (!ps->logger.fn) return;
    char msg[400], full[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "%s:%d: %s", ps->name, line, msg);
    ps->logger.fn(ps->logger.user, BW_LOG_WARNING, full);
}

/* A token quoted for a message: at most 40 bytes, control bytes never
 * reach it because the lexer rejects them. */
static const char *quote(const token *t, char buf[48])
{
    size_t n = t->n > 40 ? 40 : t->n;
    memcpy(buf, t->s, n);
    if (t->n > 40) memcpy(buf + 37, "...", 3);
    buf[n] = '\0';
    return buf;
}

/* ---- lexer: whitespace-separated tokens, '{' and '}' always alone ---- */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }
static int is_eol(char c) { return c == '\n' || c == '\r'; }

/* Consume one line break: "\n", "\r\n" or a lone "\r". */
static void eat_eol(parser *ps)
{
    if (*ps->p == '\r') {
        ps->p++;
        if (ps->p < ps->end && *ps->p == '\n') ps->p++;
    } else {
        ps->p++;
    }
    ps->line++;
}

/* Skip blanks (and line breaks when `cross`); true when a token starts at
 * p. Without `cross` it stops in front of the line break. */
static bool skip(parser *ps, bool cross)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (is_blank(c)) ps->p++;
        else if (is_eol(c)) {
            if (!cross) return false;
            eat_eol(ps);
        } else return true;
    }
    return false;
}

/* Read the next token: 1 read, 0 none (end of file, or end of line when
 * !cross), -1 error (a control byte: binary data is not a BVH file). */
static int next(parser *ps, token *t, bool cross)
{
    if (!skip(ps, cross)) return 0;
    t->s = ps->p;
    t->line = ps->line;
    if (*ps->p == '{' || *ps->p == '}') {
        ps->p++;
        t->n = 1;
        return 1;
    }
    while (ps->p < ps->end) {
        unsigned char c = (unsigned char)*ps->p;
        if (is_blank((char)c) || is_eol((char)c) || c == '{' || c == '}') break;
        if (c < 0x20 || c == 0x7f) {
            fail(ps, ps->line, BW_ERR_PARSE, "unexpected control byte 0x%02x", c);
            return -1;
        }
        ps->p++;
    }
    t->n = (size_t)(ps->p - t->s);
    return 1;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* Case-insensitive comparison of a token with a keyword. */
static bool is(const token *t, const char *word)
{
    size_t n = strlen(word);
    if (t->n != n) return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)t->s[i]) != lower((unsigned char)word[i])) return false;
    return true;
}

/* Match `word` case-insensitively at p (for "Frames" and "Frame Time",
 * which may be glued to their colon). */
static bool match_word(parser *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n) return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)ps->p[i]) != lower((unsigned char)word[i])) return false;
    ps->p += n;
    return true;
}

/* Parse a decimal number token: [+-] digits [. digits] [e [+-] digits].
 * Converted here rather than by strtod, which also takes "nan", "inf" and
 * hex floats, needs a NUL-terminated copy, and reads ',' as the decimal
 * point when a host has called setlocale. The first 19 significant digits
 * are kept (more than a double holds), then scaled by a power of ten. */
static bw_result number(parser *ps, const token *t, double *out)
{
    char q[48];
    size_t i = 0, n = t->n;
    const char *s = t->s;
    bool negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    uint64_t mantissa = 0;
    int kept = 0;
    long exp10 = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (kept < 19) {
            mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
            if (mantissa) kept++;
        } else {
            exp10++; /* a dropped integer digit still scales */
        }
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
            if (kept < 19) {
                mantissa = mantissa * 10 + (uint64_t)(s[i] - '0');
                if (mantissa) kept++;
                exp10--;
            }
        }
    }
    bool ok = digits > 0;
    if (ok && i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        long e = 0;
        size_t edigits = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
            if (e < 100000) e = e * 10 + (s[i] - '0'); /* far past any double */
        ok = edigits > 0;
        exp10 += eneg ? -e : e;
    }
    if (!ok || i != n) {
        size_t k = (n && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
        token rest = {s + k, n - k, t->line};
        if (is(&rest, "nan") || is(&rest, "inf") || is(&rest, "infinity") || is(&rest, "nan(ind)") ||
            is(&rest, "1.#inf") || is(&rest, "1.#ind") || is(&rest, "1.#qnan"))
            return fail(ps, t->line, BW_ERR_NON_FINITE, "non-finite number '%s'", quote(t, q));
        return fail(ps, t->line, BW_ERR_PARSE, "bad number '%s'", quote(t, q));
    }
    /* Powers of ten up to 1e22 are exact doubles, so for mantissas below
     * 2^53 (every real BVH number) one multiply or divide rounds once and
     * matches strtod exactly. */
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double v = (double)mantissa;
    if (v != 0.0 && exp10 != 0) {
        if (exp10 > 0 && exp10 <= 22) v *= p10[exp10];
        else if (exp10 < 0 && exp10 >= -22) v /= p10[-exp10];
        else {
            /* two steps, so scales like 10^-330 do not underflow early */
            long half = exp10 / 2;
            v = v * pow(10.0, (double)half) * pow(10.0, (double)(exp10 - half));
        }
    }
    if (negative) v = -v;
    if (!isfinite(v)) return fail(ps, t->line, BW_ERR_NON_FINITE, "number '%s' overflows", quote(t, q));
    if (fabs(v) > MAX_MAGNITUDE)
        return fail(ps, t->line, BW_ERR_LIMIT, "number '%s' beyond the magnitude limit 1e9", quote(t, q));
    *out = v;
    return BW_OK;
}

/* ---- HIERARCHY ---- */

/* Index of the joint named `name` whose parent is named `parent_name`
 * ("" for roots), or -1. Quadratic over at most MAX_JOINTS joints. */
static int find_pair(const parser *ps, const char *parent_name, const char *name)
{
    for (int i = 0; i < ps->joint_count; i++) {
        const joint_info *j = &ps->joints[i];
        const char *pn = j->parent >= 0 ? ps->joints[j->parent].name : "";
        if (!strcmp(j->name, name) && !strcmp(pn, parent_name)) return i;
    }
    return -1;
}

static bw_result add_joint(parser *ps, int parent, int line, token *opener_out, bool *has_opener)
{
    /* The name is the rest of the line up to '{': several tokens join with
     * single spaces, so names with spaces survive. */
    char name[MAX_NAME + 16]; /* room for a "#N" suffix */
    size_t len = 0;
    token t;
    int r;
    *has_opener = false;
    while ((r = next(ps, &t, false)) == 1) {
        if (is(&t, "{")) {
            *has_opener = true;
            *opener_out = t;
            break;
        }
        if (is(&t, "}")) return fail(ps, t.line, BW_ERR_PARSE, "unexpected '}' in a joint name");
        if (len + (len ? 1 : 0) + t.n > MAX_NAME)
            return fail(ps, line, BW_ERR_LIMIT, "joint name longer than %d bytes", MAX_NAME);
        if (len) name[len++] = ' ';
        memcpy(name + len, t.s, t.n);
        len += t.n;
    }
    if (r < 0) return BW_ERR_PARSE;
    if (len == 0) return fail(ps, line, BW_ERR_PARSE, "joint without a name");
    name[len] = '\0';
    if (ps->joint_count >= MAX_JOINTS) return fail(ps, line, BW_ERR_LIMIT, "more than %d joints", MAX_JOINTS);
    /* The rig and clips name a joint by (parent name, name), so that pair
     * must be unique. Under one parent a repeat is an authoring error;
     * under another parent that merely shares the name, the later joint is
     * renamed, as the glTF loader does. */
    const char *pname = parent >= 0 ? ps->joints[parent].name : "";
    int clash = find_pair(ps, pname, name);
    char renamed[MAX_NAME + 16];
    if (clash >= 0) {
        if (ps->joints[clash].parent == parent)
            return fail(ps, line, BW_ERR_DUPLICATE, "joint '%s' appears twice under the same parent (first on line %d)",
                        name, ps->joints[clash].line);
        snprintf(renamed, sizeof renamed, "%.255s#%d", name, ps->joint_count);
        if (find_pair(ps, pname, renamed) >= 0)
            return fail(ps, line, BW_ERR_DUPLICATE,
                        "joint '%s' under a parent named '%s' is taken twice (lines %d and %d), and so is '%s'", name,
                        pname, ps->joints[clash].line, line, renamed);
        warn(ps, line, "joint '%s' under a parent named '%s' is already on line %d; this one becomes '%s'", name, pname,
             ps->joints[clash].line, renamed);
        len = strlen(renamed);
        memcpy(name, renamed, len + 1);
    }
    if (ps->joint_count == ps->joint_cap) {
        int ncap = ps->joint_cap ? ps->joint_cap * 2 : 32;
        joint_info *nj = (joint_info *)bw_realloc(ps->a, ps->joints, sizeof *nj * (size_t)ps->joint_cap,
                                                  sizeof *nj * (size_t)ncap);
        if (!nj) return fail(ps, line, BW_ERR_OUT_OF_MEMORY, "out of memory");
        ps->joints = nj;
        ps->joint_cap = ncap;
    }
    joint_info *j = &ps->joints[ps->joint_count];
    memset(j, 0, sizeof *j);
    j->name = (char *)bw_alloc(ps->a, len + 1);
    if (!j->name) return fail(ps, line, BW_ERR_OUT_OF_MEMORY, "out of memory");
    memcpy(j->name, name, len + 1);
    j->name_size = len + 1;
    j->parent = parent;
    j->line = line;
    ps->joint_count++;
    return BW_OK;
}

/* Expect '{' (possibly on a later line) unless the name line had it. */
static bw_result open_block(parser *ps, bool has_opener, int line, const char *what)
{
    if (has_opener) return BW_OK;
    token t;
    int r = next(ps, &t, true);
    if (r < 0) return BW_ERR_PARSE;
    if (r == 0) return fail(ps, ps->line, BW_ERR_PARSE, "unexpected end of file: expected '{' after %s on line %d",
                            what, line);
    if (!is(&t, "{")) {
        char q[48];
        return fail(ps, t.line, BW_ERR_PARSE, "expected '{' after %s, found '%s'", what, quote(&t, q));
    }
    return BW_OK;
}

static bw_result read_offset(parser *ps, int line, float out[3])
{
    for (int k = 0; k < 3; k++) {
        token t;
        int r = next(ps, &t, false);
        if (r < 0) return BW_ERR_PARSE;
        if (r == 0 || is(&t, "{") || is(&t, "}"))
            return fail(ps, line, BW_ERR_PARSE, "OFFSET needs 3 numbers, found %d", k);
        double v;
        bw_result e = number(ps, &t, &v);
        if (e != BW_OK) return e;
        out[k] = (float)v;
    }
    /* whatever follows on the line ('}' of a one-line block, or junk) is
     * the main loop's business */
    return BW_OK;
}

static bw_result read_channels(parser *ps, joint_info *j, int line)
{
    token t;
    char q[48];
    int r = next(ps, &t, false);
    if (r < 0) return BW_ERR_PARSE;
    if (r == 0) return fail(ps, line, BW_ERR_PARSE, "CHANNELS needs a count");
    long count = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return fail(ps, line, BW_ERR_PARSE, "CHANNELS count '%s' is not a non-negative integer", quote(&t, q));
        if (count <= MAX_CHANNELS_PER_JOINT) count = count * 10 + (t.s[i] - '0');
    }
    if (count > MAX_CHANNELS_PER_JOINT)
        return fail(ps, line, BW_ERR_LIMIT, "CHANNELS count '%s' beyond the limit of %d", quote(&t, q),
                    MAX_CHANNELS_PER_JOINT);
    for (long k = 0; k < count; k++) {
        r = next(ps, &t, false);
        if (r < 0) return BW_ERR_PARSE;
        if (r == 0) return fail(ps, line, BW_ERR_PARSE, "CHANNELS lists %ld of %ld names", k, count);
        int kind = -1;
        for (int c = 0; c < 6; c++)
            if (is(&t, channel_names[c])) kind = c;
        if (kind < 0) return fail(ps, line, BW_ERR_PARSE, "unknown channel '%s'", quote(&t, q));
        for (long m = 0; m < k; m++)
            if (j->channels[m] == kind) return fail(ps, line, BW_ERR_DUPLICATE, "channel %s listed twice", channel_names[kind]);
        j->channels[k] = (unsigned char)kind;
    }
    j->channel_count = (int)count;
    j->has_channels = true;
    j->first_column = ps->column_count;
    ps->column_count += (int)count;
    return BW_OK;
}

/* Parse from after HIERARCHY to after the MOTION keyword. The block stack
 * is explicit (no recursion), so nesting depth costs no C stack. */
static bw_result parse_hierarchy(parser *ps)
{
    /* stack entries: a joint index, or -1 for an End Site */
    int stack[MAX_DEPTH];
    int depth = 0;
    char q[48];
    for (;;) {
        token t;
        int r = next(ps, &t, true);
        if (r < 0) return BW_ERR_PARSE;
        if (r == 0) {
            if (depth > 0)
                return fail(ps, ps->line, BW_ERR_PARSE, "unexpected end of file: %d block%s not closed with '}'", depth,
                            depth == 1 ? "" : "s");
            return fail(ps, ps->line, BW_ERR_PARSE, "unexpected end of file: expected MOTION");
        }
        int top = depth ? stack[depth - 1] : -2; /* -2: outside every block */
        if (is(&t, "ROOT") || is(&t, "JOINT")) {
            bool root = is(&t, "ROOT");
            if (root && depth > 0) return fail(ps, t.line, BW_ERR_PARSE, "ROOT inside another joint");
            if (!root && depth == 0) return fail(ps, t.line, BW_ERR_PARSE, "JOINT outside a ROOT");
            if (!root && top == -1) return fail(ps, t.line, BW_ERR_PARSE, "JOINT inside an End Site");
            if (depth >= MAX_DEPTH) return fail(ps, t.line, BW_ERR_LIMIT, "nesting deeper than %d", MAX_DEPTH);
            token opener;
            bool has_opener;
            bw_result e = add_joint(ps, root ? -1 : top, t.line, &opener, &has_opener);
            if (e != BW_OK) return e;
            e = open_block(ps, has_opener, t.line, root ? "ROOT" : "JOINT");
            if (e != BW_OK) return e;
            stack[depth++] = ps->joint_count - 1;
        } else if (is(&t, "End")) {
            token site;
            r = next(ps, &site, false);
            if (r < 0) return BW_ERR_PARSE;
            if (r == 0 || !is(&site, "Site")) return fail(ps, t.line, BW_ERR_PARSE, "expected 'End Site'");
            if (depth == 0 || top == -1) return fail(ps, t.line, BW_ERR_PARSE, "End Site outside a joint");
            if (depth >= MAX_DEPTH) return fail(ps, t.line, BW_ERR_LIMIT, "nesting deeper than %d", MAX_DEPTH);
            token opener;
            r = next(ps, &opener, false);
            if (r < 0) return BW_ERR_PARSE;
            if (r > 0 && !is(&opener, "{"))
                return fail(ps, t.line, BW_ERR_PARSE, "unexpected '%s' after End Site", quote(&opener, q));
            bw_result e = open_block(ps, r > 0, t.line, "End Site");
            if (e != BW_OK) return e;
            stack[depth++] = -1;
        } else if (is(&t, "OFFSET")) {
            if (depth == 0) return fail(ps, t.line, BW_ERR_PARSE, "OFFSET outside a joint");
            float off[3];
            bw_result e = read_offset(ps, t.line, off);
            if (e != BW_OK) return e;
            if (top >= 0) {
                joint_info *j = &ps->joints[top];
                if (j->has_offset) return fail(ps, t.line, BW_ERR_DUPLICATE, "second OFFSET for joint '%s'", j->name);
                memcpy(j->offset, off, sizeof off);
                j->has_offset = true;
            }
        } else if (is(&t, "CHANNELS")) {
            if (depth == 0 || top == -1) return fail(ps, t.line, BW_ERR_PARSE, "CHANNELS outside a joint");
            joint_info *j = &ps->joints[top];
            if (j->has_channels) return fail(ps, t.line, BW_ERR_DUPLICATE, "second CHANNELS for joint '%s'", j->name);
            bw_result e = read_channels(ps, j, t.line);
            if (e != BW_OK) return e;
        } else if (is(&t, "}")) {
            if (depth == 0) return fail(ps, t.line, BW_ERR_PARSE, "'}' without a matching '{'");
            if (top >= 0 && !ps->joints[top].has_offset)
                return fail(ps, ps->joints[top].line, BW_ERR_PARSE, "joint '%s' has no OFFSET", ps->joints[top].name);
            depth--;
        } else if (is(&t, "MOTION")) {
            if (depth > 0)
                return fail(ps, t.line, BW_ERR_PARSE, "MOTION before the hierarchy is closed (%d '}' missing)", depth);
            if (ps->joint_count == 0) return fail(ps, t.line, BW_ERR_EMPTY, "no ROOT joint before MOTION");
            return BW_OK;
        } else {
            return fail(ps, t.line, BW_ERR_PARSE, "unexpected '%s'", quote(&t, q));
        }
    }
}

/* ---- MOTION ---- */

/* Expect "LABEL:" at the start of a line, returning the label's line. */
static bw_result expect_label(parser *ps, const char *const *words, int word_count, const char *shown)
{
    if (!skip(ps, true)) return fail(ps, ps->line, BW_ERR_PARSE, "unexpected end of file: expected '%s'", shown);
    for (int w = 0; w < word_count; w++) {
        if (w) skip(ps, false);
        if (!match_word(ps, words[w])) return fail(ps, ps->line, BW_ERR_PARSE, "expected '%s'", shown);
    }
    skip(ps, false);
    if (ps->p >= ps->end || *ps->p != ':') return fail(ps, ps->line, BW_ERR_PARSE, "expected '%s'", shown);
    ps->p++;
    return BW_OK;
}

/* The one value after a label, alone on its line. */
static bw_result label_value(parser *ps, const char *shown, token *t)
{
    int line = ps->line;
    int r = next(ps, t, false);
    if (r < 0) return BW_ERR_PARSE;
    if (r == 0) return fail(ps, line, BW_ERR_PARSE, "'%s' without a value", shown);
    token extra;
    r = next(ps, &extra, false);
    if (r < 0) return BW_ERR_PARSE;
    if (r > 0) return fail(ps, line, BW_ERR_PARSE, "'%s' has more than one value", shown);
    return BW_OK;
}

/* Count the frame lines after the header: every non-blank line must hold
 * exactly column_count values, except a last line that the end of the
 * file cuts short (a download or copy that stopped mid-line): it is
 * dropped with a warning, since the frames before it are intact. Numbers
 * are parsed in the second pass. */
static bw_result count_frames(parser *ps, int *out_frames)
{
    int frames = 0;
    while (ps->p < ps->end) {
        int line = ps->line;
        long values = 0;
        token t;
        int r;
        while ((r = next(ps, &t, false)) == 1) values++;
        if (r < 0) return BW_ERR_PARSE;
        bool at_end = ps->p >= ps->end; /* no line break after this line */
        if (!at_end) eat_eol(ps);
        if (values == 0) continue;
        if (at_end && values < ps->column_count) {
            warn(ps, line, "the last frame line is cut off (%ld of %d values); it is dropped", values,
                 ps->column_count);
            break;
        }
        if (values != ps->column_count)
            return fail(ps, line, BW_ERR_PARSE, "frame %d has %ld values, expected %d (one per channel)", frames,
                        values, ps->column_count);
        if (frames >= MAX_FRAMES) return fail(ps, line, BW_ERR_LIMIT, "more than %d frames", MAX_FRAMES);
        frames++;
    }
    *out_frames = frames;
    return BW_OK;
}

/* Intrinsic Euler rotation in degrees, composed in channel order: each
 * later rotation turns about the already-rotated axes, which is a
 * right-multiplication. Computed in double, then normalized to float. */
static void euler_to_quat(const unsigned char *kinds, const double *degrees, int n, float out[4])
{
    double q[4] = {0.0, 0.0, 0.0, 1.0};
    for (int k = 0; k < n; k++) {
        double half = fmod(degrees[k], 360.0) * (PI_D / 360.0);
        double s = sin(half), c = cos(half);
        double b[4] = {0.0, 0.0, 0.0, c};
        b[kinds[k] - CH_XROT] = s;
        double x = q[3] * b[0] + q[0] * b[3] + q[1] * b[2] - q[2] * b[1];
        double y = q[3] * b[1] - q[0] * b[2] + q[1] * b[3] + q[2] * b[0];
        double z = q[3] * b[2] + q[0] * b[1] - q[1] * b[0] + q[2] * b[3];
        double w = q[3] * b[3] - q[0] * b[0] - q[1] * b[1] - q[2] * b[2];
        q[0] = x; q[1] = y; q[2] = z; q[3] = w;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) out[i] = (float)(q[i] / len);
}

/* The clip's name: the file's base name without its extension. */
static char *clip_name(const bw_allocator *a, const char *path)
{
    const char *base = path ? path : "";
    for (const char *s = base; *s; s++)
        if (*s == '/' || *s == '\\') base = s + 1;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) n = (size_t)(dot - base);
    if (n == 0) {
        base = "motion";
        n = 6;
    }
    char *s = (char *)bw_alloc(a, n + 1);
    if (!s) return NULL;
    memcpy(s, base, n);
    s[n] = '\0';
    return s;
}

typedef struct motion {
    int frames;         /* frames read from the data */
    long header_frames; /* what the Frames: line said, saturated at MAX_FRAMES + 1 */
    char header_text[48]; /* the Frames: value as written, for messages */
    bool header_clamped;  /* no channels and a header beyond the limit: already warned */
    int frames_line;
    float frame_time;
    float *times; /* frames */
    float **rot;  /* per joint: frames * 4 floats, or NULL */
    float **pos;  /* per joint: frames * 3 floats, or NULL */
    double *row;  /* column_count scratch */
} motion;

static void motion_free(const bw_allocator *a, motion *m, int joint_count, int column_count)
{
    size_t f = (size_t)m->frames;
    for (int j = 0; j < joint_count; j++) {
        if (m->rot) bw_free(a, m->rot[j], sizeof(float) * 4 * f);
        if (m->pos) bw_free(a, m->pos[j], sizeof(float) * 3 * f);
    }
    bw_free(a, m->rot, sizeof(float *) * (size_t)joint_count);
    bw_free(a, m->pos, sizeof(float *) * (size_t)joint_count);
    bw_free(a, m->times, sizeof(float) * f);
    bw_free(a, m->row, sizeof(double) * (size_t)(column_count ? column_count : 1));
    memset(m, 0, sizeof *m);
}

/* Convert one frame line's values (already in m->row) into keys. */
static void store_frame(const parser *ps, motion *m, int frame)
{
    for (int j = 0; j < ps->joint_count; j++) {
        const joint_info *ji = &ps->joints[j];
        const double *v = m->row + ji->first_column;
        if (m->rot[j]) {
            unsigned char kinds[MAX_CHANNELS_PER_JOINT];
            double deg[MAX_CHANNELS_PER_JOINT];
            int n = 0;
            for (int k = 0; k < ji->channel_count; k++)
                if (ji->channels[k] >= CH_XROT) {
                    kinds[n] = ji->channels[k];
                    deg[n++] = v[k];
                }
            euler_to_quat(kinds, deg, n, m->rot[j] + 4 * (size_t)frame);
        }
        if (m->pos[j]) {
            float *p = m->pos[j] + 3 * (size_t)frame;
            memcpy(p, ji->offset, sizeof ji->offset);
            for (int k = 0; k < ji->channel_count; k++)
                if (ji->channels[k] < CH_XROT) p[ji->channels[k]] = (float)v[k];
        }
    }
}

/* From after MOTION to the end: the two header lines, then the frames.
 * On failure the caller frees `m` with motion_free. */
static bw_result parse_motion(parser *ps, motion *m)
{
    static const char *const frames_words[] = {"Frames"};
    static const char *const time_words[] = {"Frame", "Time"};
    char q[48];
    token t;
    bw_result e = expect_label(ps, frames_words, 1, "Frames:");
    if (e != BW_OK) return e;
    m->frames_line = ps->line;
    e = label_value(ps, "Frames:", &t);
    if (e != BW_OK) return e;
    long header = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.s[i] < '0' || t.s[i] > '9')
            return fail(ps, m->frames_line, BW_ERR_PARSE, "Frames: '%s' is not a non-negative integer", quote(&t, q));
        if (header <= MAX_FRAMES) header = header * 10 + (t.s[i] - '0');
    }
    /* A header number is only a claim: memory follows the frame lines
     * that are there, so a huge one is the same mismatch as any other
     * (a warning once the data is counted), not an error. */
    if (header > MAX_FRAMES) header = MAX_FRAMES + 1L;
    m->header_frames = header;
    quote(&t, m->header_text);

    e = expect_label(ps, time_words, 2, "Frame Time:");
    if (e != BW_OK) return e;
    int time_line = ps->line;
    e = label_value(ps, "Frame Time:", &t);
    if (e != BW_OK) return e;
    double frame_time;
    e = number(ps, &t, &frame_time);
    if (e != BW_OK) return e;
    if (!((float)frame_time > 0.0f))
        return fail(ps, time_line, BW_ERR_PARSE, "Frame Time must be positive, found '%s'", quote(&t, q));
    m->frame_time = (float)frame_time;

    /* first pass: count (and shape-check) the frame lines, so memory follows
     * the data, never the header */
    const char *data_start = ps->p;
    int data_line = ps->line;
    int frames = 0;
    e = count_frames(ps, &frames);
    if (e != BW_OK) return e;
    /* without channels a frame line is empty and cannot be counted: the
     * header is all there is, and there is nothing to key (nothing is
     * allocated per frame either) */
    if (ps->column_count == 0) {
        frames = header > MAX_FRAMES ? MAX_FRAMES : (int)header;
        if (header > MAX_FRAMES) {
            warn(ps, m->frames_line, "Frames: %s is beyond the limit of %d; using %d", m->header_text, MAX_FRAMES,
                 MAX_FRAMES);
            m->header_clamped = true;
        }
    }

    const bw_allocator *a = ps->a;
    size_t f = (size_t)frames;
    int jc = ps->joint_count;
    m->rot = (float **)bw_alloc_zeroed(a, sizeof(float *) * (size_t)jc);
    m->pos = (float **)bw_alloc_zeroed(a, sizeof(float *) * (size_t)jc);
    m->row = (double *)bw_alloc(a, sizeof(double) * (size_t)(ps->column_count ? ps->column_count : 1));
    if (!m->rot || !m->pos || !m->row) return fail(ps, data_line, BW_ERR_OUT_OF_MEMORY, "out of memory");
    if (f && ps->column_count) {
        m->times = (float *)bw_alloc(a, sizeof(float) * f);
        if (!m->times) return fail(ps, data_line, BW_ERR_OUT_OF_MEMORY, "out of memory");
    }
    m->frames = frames; /* from here on motion_free knows the array sizes */
    for (int j = 0; j < jc && ps->column_count; j++) {
        bool has_rot = false, has_pos = false;
        for (int k = 0; k < ps->joints[j].channel_count; k++) {
            if (ps->joints[j].channels[k] >= CH_XROT) has_rot = true;
            else has_pos = true;
        }
        if (f && has_rot && !(m->rot[j] = (float *)bw_alloc(a, sizeof(float) * 4 * f)))
            return fail(ps, data_line, BW_ERR_OUT_OF_MEMORY, "out of memory");
        if (f && has_pos && !(m->pos[j] = (float *)bw_alloc(a, sizeof(float) * 3 * f)))
            return fail(ps, data_line, BW_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (m->times) {
        for (int i = 0; i < frames; i++) {
            m->times[i] = (float)((double)i * frame_time);
            if (i > 0 && !(m->times[i] > m->times[i - 1]))
                return fail(ps, time_line, BW_ERR_PARSE, "Frame Time %g is too small to give distinct key times",
                            frame_time);
        }
    }

    /* second pass: the numbers; the first pass guaranteed the shape */
    if (ps->column_count == 0) return BW_OK;
    ps->p = data_start;
    ps->line = data_line;
    int frame = 0;
    while (frame < frames && ps->p < ps->end) {
        int col = 0;
        while (col < ps->column_count && next(ps, &t, false) == 1) {
            e = number(ps, &t, &m->row[col++]);
            if (e != BW_OK) return e;
        }
        skip(ps, false);
        if (ps->p < ps->end) eat_eol(ps);
        if (col == 0) continue;
        store_frame(ps, m, frame++);
    }
    return BW_OK;
}

static void free_joints(parser *ps)
{
    for (int i = 0; i < ps->joint_count; i++) bw_free(ps->a, ps->joints[i].name, ps->joints[i].name_size);
    bw_free(ps->a, ps->joints, sizeof(joint_info) * (size_t)ps->joint_cap);
    ps->joints = NULL;
    ps->joint_count = ps->joint_cap = 0;
}

/* The core's message (no file, no line) prefixed with the file name. The
 * parse validated everything the core checks, so this is for running out
 * of memory. */
static void core_failed(parser *ps, bw_result code, const char *what)
{
    char msg[sizeof ps->err->message];
    snprintf(msg, sizeof msg, "%s", ps->err ? ps->err->message : "");
    bw_fail_at(ps->err, code, ps->file, 0, NULL, "%s: building %s: %s", ps->name, what, msg);
}

/* Build the rig, the clip and the joint_node array from parsed data. */
static bw_result build(parser *ps, const motion *m, bw_asset *asset)
{
    const bw_allocator *a = ps->a;
    int jc = ps->joint_count;
    bw_rig *rig = NULL;
    bw_clip *clip = NULL;
    bw_clip **clips = NULL;
    int *nodes = NULL;
    char *name = NULL;
    bw_rig_joint_desc *jd = NULL;
    bw_track_desc *td = NULL;
    bw_result e = BW_ERR_OUT_OF_MEMORY;

    jd = (bw_rig_joint_desc *)bw_alloc_zeroed(a, sizeof *jd * (size_t)jc);
    td = (bw_track_desc *)bw_alloc_zeroed(a, sizeof *td * (size_t)(2 * jc));
    nodes = (int *)bw_alloc(a, sizeof(int) * (size_t)jc);
    clips = (bw_clip **)bw_alloc(a, sizeof(bw_clip *));
    name = clip_name(a, ps->file);
    if (!jd || !td || !nodes || !clips || !name) {
        fail(ps, 0, BW_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    for (int j = 0; j < jc; j++) {
        jd[j].name = ps->joints[j].name;
        jd[j].parent = ps->joints[j].parent;
        jd[j].rest = bw_transform_identity;
        memcpy(jd[j].rest.t, ps->joints[j].offset, sizeof jd[j].rest.t);
        nodes[j] = -1;
    }
    bw_rig_desc rd = {.joints = jd, .joint_count = jc};
    if (a) rd.allocator = *a;
    e = bw_rig_create(&rd, &rig, ps->err);
    if (e != BW_OK) {
        core_failed(ps, e, "the rig");
        goto done;
    }

    int tc = 0;
    for (int j = 0; j < jc && m->frames > 0; j++) {
        const char *parent = ps->joints[j].parent >= 0 ? ps->joints[ps->joints[j].parent].name : "";
        const float *values[2] = {m->rot ? m->rot[j] : NULL, m->pos ? m->pos[j] : NULL};
        const bw_channel kinds[2] = {BW_CHANNEL_ROTATION, BW_CHANNEL_TRANSLATION};
        for (int c = 0; c < 2; c++) {
            if (!values[c]) continue;
            td[tc].parent = parent;
            td[tc].joint = ps->joints[j].name;
            td[tc].channel = kinds[c];
            td[tc].interp = BW_INTERP_EASED;
            td[tc].key_count = m->frames;
            td[tc].times = m->times;
            td[tc].values = values[c];
            tc++;
        }
    }
    bw_clip_desc cd = {.name = name, .tracks = td, .track_count = tc, .logger = ps->logger};
    if (a) cd.allocator = *a;
    e = bw_clip_create(&cd, &clip, ps->err);
    if (e != BW_OK) {
        core_failed(ps, e, "the clip");
        goto done;
    }

    clips[0] = clip;
    asset->kind = BW_ASSET_BVH;
    asset->rig = rig;
    asset->clips = clips;
    asset->clip_count = 1;
    asset->joint_node = nodes;
    asset->frame_time = m->frame_time;
    asset->frame_count = m->frames;
    if (a) asset->allocator = *a;
    rig = NULL;
    clip = NULL;
    clips = NULL;
    nodes = NULL;
done:
    bw_clip_destroy(clip);
    bw_rig_destroy(rig);
    bw_free(a, clips, sizeof(bw_clip *));
    bw_free(a, nodes, sizeof(int) * (size_t)jc);
    bw_free_string(a, name);
    bw_free(a, jd, sizeof *jd * (size_t)jc);
    bw_free(a, td, sizeof *td * (size_t)(2 * jc));
    return e;
}

bw_result bw_bvh_load(const void *data, size_t size, const char *name, const bw_asset_options *options,
                      bw_asset *asset, bw_error *err)
{
    if (!data || !asset) return bw_fail(err, BW_ERR_INVALID_ARGUMENT, "bw_bvh_load: NULL argument");
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.p = (const char *)data;
    ps.end = ps.p + size;
    ps.line = 1;
    ps.name = name ? name : "(bvh)";
    ps.file = name;
    ps.err = err;
    ps.a = options ? &options->allocator : NULL;
    if (options) ps.logger = options->logger;

    /* a UTF-8 byte order mark is not part of the first keyword */
    if (size >= 3 && !memcmp(ps.p, "\xEF\xBB\xBF", 3)) ps.p += 3;

    motion m;
    memset(&m, 0, sizeof m);
    bw_result e;
    token t;
    int r = next(&ps, &t, true);
    if (r < 0) {
        e = BW_ERR_PARSE;
        goto done;
    }
    if (r == 0 || !is(&t, "HIERARCHY")) {
        e = fail(&ps, r ? t.line : ps.line, BW_ERR_PARSE, "not a BVH file: expected HIERARCHY");
        goto done;
    }
    e = parse_hierarchy(&ps);
    if (e != BW_OK) goto done;
    e = parse_motion(&ps, &m);
    if (e != BW_OK) goto done;
    e = build(&ps, &m, asset);
    if (e != BW_OK) goto done;

    if (m.header_frames != m.frames && !m.header_clamped)
        warn(&ps, m.frames_line, "the header says Frames: %s but %d frame%s follow; using %d", m.header_text, m.frames,
             m.frames == 1 ? "" : "s", m.frames);
done:
    motion_free(ps.a, &m, ps.joint_count, ps.column_count);
    free_joints(&ps);
    return e;
}
