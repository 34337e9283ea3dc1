/* test_io_safety.c - the loaders open files safely (src/io/safe_file.h):
 * glTF external buffers that name a FIFO, a link to /dev/zero with a huge
 * byteLength, a link or a linked folder leading out of the asset's folder,
 * a %00 in the URI or a directory are refused at once with a message
 * naming the field and the URI; the top-level file obeys the same rules;
 * bw_asset_load_beneath keeps a load inside its folder; from Lua,
 * blendwerk.load refuses NUL in names and bw_lua_push_loader_beneath
 * refuses links out of its folder.
 *
 * The fixtures (files, FIFOs, symbolic links) are made at run time in a
 * fresh folder under the build tree. A hang would be the bug itself, so
 * an alarm turns one into a failure after 20 s, and each refusal is timed. */
#define _GNU_SOURCE /* mkfifo, symlink, mkdtemp, clock_gettime under -std=c11 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blendwerk/asset.h"
#include "blendwerk/pose.h"
#include "blendwerk/sample.h"
#include "check.h"
#include "fixtures.h"
#include "gltf_std_doc.h"
#include "lua_blendwerk.h"
#include "lua_support.h"
#include "test_alloc_counter.h"
#include "test_files.h"

static char root[900]; /* the fresh folder; the asset folder is root/asset */

static const char *at(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", root, rel);
    return buf;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK_INT(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* root/<rel> := STD_DOC with that buffer byteLength and uri */
static void write_doc(const char *rel, const char *byte_length, const char *uri)
{
    static const char buffer[] = "\"byteLength\":64,\"uri\":\"@URI@\"";
    const char *b = strstr(STD_DOC, buffer);
    char text[4096], path[1024];
    snprintf(text, sizeof text, "%.*s\"byteLength\":%s,\"uri\":\"%s\"%s", (int)(b - STD_DOC), STD_DOC, byte_length,
             uri, b + strlen(buffer));
    write_file(at(path, sizeof path, rel), text, strlen(text));
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Load root/<rel> by name; expect `code` and, on failure, a message
 * containing `fragment`, within 1 s, allocating under 1 MiB at peak (the
 * document's own size and the loader's tables, never the buffer). */
static void expect_load(const char *rel, bw_result code, const char *fragment)
{
    char path[1024];
    alloc_counter count = ALLOC_COUNTER(-1);
    bw_allocator a = {alloc_counter_fn, &count};
    bw_asset_options opt = {0};
    opt.allocator = a;
    bw_asset *asset = NULL;
    bw_error err;
    memset(&err, 0, sizeof err);
    double t0 = now();
    bw_result r = bw_asset_load_file(at(path, sizeof path, rel), &opt, &asset, &err);
    double took = now() - t0;
    if (r != (bw_result)code) fprintf(stderr, "  loading %s: %s\n", rel, err.message);
    CHECK_INT(r, code);
    if (code != BW_OK) {
        CHECK_CONTAINS(err.message, fragment);
        CHECK(took < 1.0);
        if (count.peak_bytes >= 1 << 20) fprintf(stderr, "  %s: peak %lld bytes\n", rel, count.peak_bytes);
        CHECK(count.peak_bytes < 1 << 20);
    }
    bw_asset_destroy(asset);
    CHECK_INT(count.live_blocks, 0);
}

/* The loaded clip at t = 1 puts joint "b" at (1, 2, 3). */
static void check_sample(const bw_asset *asset)
{
    bw_binding *b = fixture_binding(asset->clips[0], asset->rig);
    bw_pose pose;
    CHECK_INT(bw_pose_init(&pose, asset->rig, NULL), BW_OK);
    bw_sample_clip(b, asset->rig, 1.0f, &pose);
    CHECK_NEAR(pose.joints[1].t[0], 1.0, 0.0);
    CHECK_NEAR(pose.joints[1].t[1], 2.0, 0.0);
    CHECK_NEAR(pose.joints[1].t[2], 3.0, 0.0);
    bw_pose_deinit(&pose);
    bw_binding_destroy(b);
}

static void setup(void)
{
    char path[1024], target[1024];
    snprintf(root, sizeof root, "%s/test_io_safety_XXXXXX", BW_BINARY_DIR);
    if (!mkdtemp(root)) {
        fprintf(stderr, "mkdtemp %s failed\n", root);
        exit(1);
    }
    mkdir(at(path, sizeof path, "asset"), 0755);
    mkdir(at(path, sizeof path, "asset/sub"), 0755);
    mkdir(at(path, sizeof path, "outside"), 0755);
    unsigned char bytes[64];
    std_bytes(bytes);
    write_file(at(path, sizeof path, "asset/data.bin"), bytes, sizeof bytes);
    write_file(at(path, sizeof path, "asset/sub/data.bin"), bytes, sizeof bytes);
    write_file(at(path, sizeof path, "outside/secret.bin"), bytes, sizeof bytes);
    CHECK_INT(mkfifo(at(path, sizeof path, "asset/fifo.bin"), 0600), 0);
    CHECK_INT(symlink("/dev/zero", at(path, sizeof path, "asset/zero.bin")), 0);
    CHECK_INT(symlink("../outside/secret.bin", at(path, sizeof path, "asset/escape.bin")), 0);
    CHECK_INT(symlink(at(target, sizeof target, "outside"), at(path, sizeof path, "asset/linked")), 0);
    CHECK_INT(symlink("data.bin", at(path, sizeof path, "asset/alias.bin")), 0); /* inside, still a link */
    write_doc("asset/good.gltf", "64", "data.bin");
    write_doc("asset/sub.gltf", "64", "./sub//data.bin");
    write_doc("asset/fifo.gltf", "64", "fifo.bin");
    write_doc("asset/zero.gltf", "400000000", "zero.bin");
    write_doc("asset/escape.gltf", "64", "escape.bin");
    write_doc("asset/linked.gltf", "64", "linked/secret.bin");
    write_doc("asset/alias.gltf", "64", "alias.bin");
    write_doc("asset/nul.gltf", "64", "data.bin%00.txt");
    write_doc("asset/dir.gltf", "64", "sub");
    write_doc("asset/updir.gltf", "64", "sub/%2e%2e/data.bin");
    write_doc("asset/short.gltf", "65", "data.bin");
    write_doc("outside/x.gltf", "64", "secret.bin");
    write_doc("asset/sub/inner.gltf", "64", "data.bin");   /* asset/sub/data.bin */
    write_doc("asset/sub/up.gltf", "64", "../data.bin");   /* asset/data.bin, but through ".." */
    CHECK_INT(symlink("good.gltf", at(path, sizeof path, "asset/link.gltf")), 0);
    CHECK_INT(mkfifo(at(path, sizeof path, "asset/pipe.gltf"), 0600), 0);
    mkdir(at(path, sizeof path, "asset/folder.gltf"), 0755);
    CHECK_INT(symlink("/dev/zero", at(path, sizeof path, "asset/zero.bvh")), 0);
}

static void a_normal_external_buffer_still_loads(void)
{
    char path[1024];
    const char *docs[] = {"asset/good.gltf", "asset/sub.gltf"};
    for (int i = 0; i < 2; i++) {
        bw_asset *asset = NULL;
        bw_error err;
        CHECK_INT(bw_asset_load_file(at(path, sizeof path, docs[i]), NULL, &asset, &err), BW_OK);
        if (asset) check_sample(asset);
        bw_asset_destroy(asset);
    }
}

static void a_fifo_buffer_is_refused_without_blocking(void)
{
    expect_load("asset/fifo.gltf", BW_ERR_IO, "buffers[0].uri 'fifo.bin': not a regular file (FIFO)");
}

static void a_link_to_dev_zero_is_refused_before_reading(void)
{
    /* 400 MB under the 512 MiB default limit: only the link rule stops it,
     * before any byte is read (peak allocation stays under 1 MiB) */
    expect_load("asset/zero.gltf", BW_ERR_UNSUPPORTED, "buffers[0].uri 'zero.bin': is a symbolic link");
}

static void links_out_of_the_folder_are_refused(void)
{
    expect_load("asset/escape.gltf", BW_ERR_UNSUPPORTED, "buffers[0].uri 'escape.bin': is a symbolic link");
    expect_load("asset/linked.gltf", BW_ERR_UNSUPPORTED, "folder 'linked' is a symbolic link");
    expect_load("asset/alias.gltf", BW_ERR_UNSUPPORTED, "'alias.bin': is a symbolic link");
    expect_load("asset/updir.gltf", BW_ERR_UNSUPPORTED, "\"..\" would leave the folder");
}

static void nul_and_directories_are_refused(void)
{
    expect_load("asset/nul.gltf", BW_ERR_UNSUPPORTED, "'data.bin%00.txt': the path contains a NUL byte");
    expect_load("asset/dir.gltf", BW_ERR_IO, "buffers[0].uri 'sub': is a directory");
    expect_load("asset/short.gltf", BW_ERR_RANGE, "the file holds 64 bytes but byteLength is 65");
}

static void the_top_level_file_obeys_the_same_rules(void)
{
    expect_load("asset/link.gltf", BW_ERR_UNSUPPORTED, "link.gltf: is a symbolic link");
    expect_load("asset/pipe.gltf", BW_ERR_IO, "pipe.gltf: not a regular file (FIFO)");
    expect_load("asset/folder.gltf", BW_ERR_IO, "folder.gltf: is a directory");
    expect_load("asset/zero.bvh", BW_ERR_UNSUPPORTED, "zero.bvh: is a symbolic link");
    expect_load("asset/missing.gltf", BW_ERR_IO, "missing.gltf: cannot open");
    /* a device named directly (no link): refused by fstat before any read */
    bw_asset *dev = NULL;
    bw_error dev_err;
    double t0 = now();
    CHECK_INT(bw_asset_load_file("/dev/zero", NULL, &dev, &dev_err), BW_ERR_IO);
    CHECK_STR(dev_err.message, "/dev/zero: not a regular file (character device)");
    CHECK(now() - t0 < 1.0);
    CHECK(dev == NULL);
    /* over the limit: refused by size before reading */
    char path[1024];
    bw_asset_options opt = {0};
    opt.max_bytes = 100;
    bw_asset *asset = NULL;
    bw_error err;
    CHECK_INT(bw_asset_load_file(at(path, sizeof path, "asset/good.gltf"), &opt, &asset, &err), BW_ERR_LIMIT);
    CHECK_CONTAINS(err.message, "-byte limit");
    CHECK(asset == NULL);
}

static void load_beneath_keeps_the_load_in_its_folder(void)
{
    char dir[1024];
    at(dir, sizeof dir, "asset");
    bw_asset *asset = NULL;
    bw_error err;
    const char *loads[] = {"good.gltf", "sub/inner.gltf", "./sub//inner.gltf"};
    for (int i = 0; i < 3; i++) {
        /* the buffer resolves beside the file, beneath dir */
        CHECK_INT(bw_asset_load_beneath(dir, loads[i], NULL, &asset, &err), BW_OK);
        if (asset) check_sample(asset);
        bw_asset_destroy(asset);
        asset = NULL;
    }
    static const struct {
        const char *path;
        bw_result code;
        const char *fragment;
    } refused[] = {
        {"../outside/x.gltf", BW_ERR_UNSUPPORTED, "\"..\" would leave the folder"},
        {"linked/../good.gltf", BW_ERR_UNSUPPORTED, "\"..\" would leave the folder"},
        {"sub/up.gltf", BW_ERR_UNSUPPORTED, "buffers[0].uri '../data.bin': \"..\" would leave the folder"},
        {"/etc/passwd", BW_ERR_UNSUPPORTED, "absolute paths are refused"},
        {"link.gltf", BW_ERR_UNSUPPORTED, "link.gltf: is a symbolic link"},
        {"linked/x.gltf", BW_ERR_UNSUPPORTED, "folder 'linked' is a symbolic link"},
        {"pipe.gltf", BW_ERR_IO, "pipe.gltf: not a regular file (FIFO)"},
        {"sub/", BW_ERR_IO, "names a folder"},
        {"", BW_ERR_UNSUPPORTED, "empty path"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        memset(&err, 0, sizeof err);
        CHECK_INT(bw_asset_load_beneath(dir, refused[i].path, NULL, &asset, &err), refused[i].code);
        CHECK_CONTAINS(err.message, refused[i].fragment);
        CHECK(asset == NULL);
    }
    CHECK_INT(bw_asset_load_beneath(dir, NULL, NULL, &asset, &err), BW_ERR_INVALID_ARGUMENT);
}

/* Run `code` in a fresh state with the module as `blendwerk` and
 * `load_beneath` = bw_lua_push_loader_beneath(root/asset); returns the
 * string it returns (or its error), copied into out. */
static void run_lua(const char *code, char *out, size_t out_size)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "blendwerk", luaopen_blendwerk, 1);
    lua_pop(L, 1);
    char dir[1024];
    bw_lua_push_loader_beneath(L, at(dir, sizeof dir, "asset"));
    lua_setglobal(L, "load_beneath");
    lua_pushstring(L, root);
    lua_setglobal(L, "root");
    if (luaL_dostring(L, code) != LUA_OK) snprintf(out, out_size, "error: %s", lua_tostring(L, -1));
    else snprintf(out, out_size, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(not a string)");
    lua_close(L);
}

static void lua_loads_refuse_links_and_nul(void)
{
    char out[1024];
    run_lua("local a = assert(load_beneath('good.gltf')) return a:kind() .. ' ' .. a:rig():joint_count()", out,
            sizeof out);
    CHECK_STR(out, "gltf 2");
    run_lua("local a, msg = load_beneath('linked/x.gltf') return tostring(a) .. ': ' .. msg", out, sizeof out);
    CHECK_STR(out, "nil: linked/x.gltf: folder 'linked' is a symbolic link (links are not followed)");
    run_lua("local a, msg = load_beneath('../outside/x.gltf') return tostring(a) .. ': ' .. msg", out, sizeof out);
    CHECK_STR(out, "nil: ../outside/x.gltf: \"..\" would leave the folder");
    run_lua("local a, msg = blendwerk.load(root .. '/asset/good.gltf\\0.bvh') return tostring(a) .. ': ' .. msg", out,
            sizeof out);
    CHECK_CONTAINS(out, "nil: ");
    CHECK_CONTAINS(out, "good.gltf: the path contains a NUL byte");
    run_lua("local a, msg = blendwerk.load(root .. '/asset/link.gltf') return tostring(a) .. ': ' .. msg", out,
            sizeof out);
    CHECK_CONTAINS(out, "link.gltf: is a symbolic link");
    run_lua("local a, msg = load_beneath('good.gltf', {max_bytes = 100, bogus = 1}) return msg", out, sizeof out);
    CHECK_CONTAINS(out, "unknown field 'bogus'");
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_io_safety: a load blocked for 20 s\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    alarm(20);
    setup();
    RUN(a_normal_external_buffer_still_loads);
    RUN(a_fifo_buffer_is_refused_without_blocking);
    RUN(a_link_to_dev_zero_is_refused_before_reading);
    RUN(links_out_of_the_folder_are_refused);
    RUN(nul_and_directories_are_refused);
    RUN(the_top_level_file_obeys_the_same_rules);
    RUN(load_beneath_keeps_the_load_in_its_folder);
    RUN(lua_loads_refuse_links_and_nul);
    remove_tree(root); /* links are removed, never followed */
    return check_summary();
}
