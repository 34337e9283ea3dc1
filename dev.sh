#!/usr/bin/env bash
# dev.sh - build, test and run Blendwerk on Debian.
#
#   ./dev.sh demo [ARGS]     build and run the SDL2 demo (docs/demo.md); with no
#                            display it runs headless, printing what plays and
#                            saving its last frame to build/demo.png
#   ./dev.sh screenshots     regenerate the README's images in docs/images/ with
#                            the demo's headless mode
#   ./dev.sh test [KIND]     build and run every test; KIND is asan (the default:
#                            gcc, AddressSanitizer + UBSan), release (gcc -O2,
#                            NDEBUG) or clang; warnings are errors in all three
#   ./dev.sh fuzz [SECONDS]  build the libFuzzer targets (clang) and run each
#   ./dev.sh bench [ARGS]    build optimised and run the benchmark program;
#                            bench --vs-ref [OPTS] compares it with the
#                            ozz-animation yardstick (bench/vs_ref.sh);
#                            bench --character [ARGS] runs the full-character
#                            benchmark (bench/character_bench.c);
#                            bench --report runs every figure of bench/README.md
#   ./dev.sh package-check   install into a temporary prefix and use it as
#                            docs/embedding.md says: examples/embed (CMake,
#                            pkg-config), lua5.4, luarocks make (reuses the
#                            `test release` build); then with shared libraries
#   ./dev.sh deps            install the Debian packages the build needs
#   ./dev.sh help            this text (also with no command); an unknown
#                            command prints it on stderr and exits 2
#
# Missing Debian packages are installed with apt-get when running as root;
# otherwise the script prints the exact command to run.
set -euo pipefail
cd "$(dirname "$0")"

CORE_PKGS=(build-essential cmake pkg-config liblua5.4-dev lua5.4 libcglm-dev libcjson-dev)
DEMO_PKGS=(libsdl2-dev libstb-dev xvfb)
FUZZ_PKGS=(clang libclang-rt-dev)
PACKAGE_PKGS=(luarocks)
JOBS=$(nproc 2>/dev/null || echo 2)

need() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" = 0 ]; then
        echo "dev.sh: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "dev.sh: missing Debian packages. Install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
}

configure_build() { # dir, cmake args...
    local dir=$1; shift
    cmake -S . -B "$dir" "$@" >/dev/null
    cmake --build "$dir" -j "$JOBS"
}

# The comment block at the top of this file, whole (up to its first line
# that is not a comment), without the "# ".
help_text() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

cmd=${1:-help}
shift || true
case "$cmd" in
deps)
    need "${CORE_PKGS[@]}" "${DEMO_PKGS[@]}" "${FUZZ_PKGS[@]}" "${PACKAGE_PKGS[@]}"
    ;;
test)
    kind=${1:-asan}
    case "$kind" in
    asan)
        need "${CORE_PKGS[@]}"
        dir=build-asan
        configure_build $dir -DBW_SANITIZE=ON -DBW_WERROR=ON -DBW_BUILD_DEMO=ON -DCMAKE_BUILD_TYPE=Debug
        export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
        ;;
    release)
        need "${CORE_PKGS[@]}"
        dir=build-release-tests
        configure_build $dir -DBW_WERROR=ON -DBW_BUILD_DEMO=ON -DCMAKE_BUILD_TYPE=Release
        ;;
    clang)
        need "${CORE_PKGS[@]}" clang
        dir=build-clang
        CC=clang configure_build $dir -DBW_WERROR=ON -DBW_BUILD_DEMO=ON -DCMAKE_BUILD_TYPE=Debug
        ;;
    *)
        echo "dev.sh test: unknown kind '$kind' (asan, release or clang)" >&2
        exit 2
        ;;
    esac
    ctest --test-dir $dir --output-on-failure -j "$JOBS"
    ;;
demo)
    need "${CORE_PKGS[@]}" "${DEMO_PKGS[@]}"
    configure_build build -DCMAKE_BUILD_TYPE=Release
    if [ -x build/demo/blendwerk-demo ]; then
        if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
            exec build/demo/blendwerk-demo "$@"
        fi
        echo "(no display: running the demo headless, walking and turning for 3 s; its last frame goes to build/demo.png)"
        exec build/demo/blendwerk-demo --headless --screenshot build/demo.png "$@"
    fi
    echo "(the SDL2 demo was not built: running examples/hello.lua instead)"
    exec build/blendwerk run examples/hello.lua "$@"
    ;;
screenshots)
    need "${CORE_PKGS[@]}" "${DEMO_PKGS[@]}"
    configure_build build -DCMAKE_BUILD_TYPE=Release
    demo=build/demo/blendwerk-demo
    mkdir -p docs/images
    "$demo" --headless --size 960x540 --frames 150 --screenshot docs/images/demo-walk.png >/dev/null
    "$demo" --headless --size 960x540 --timeline graphs/demo.timeline.lua --frames 262 \
        --screenshot docs/images/demo-timeline.png >/dev/null
    if [ -f ../shared/assets/Fox.glb ]; then
        "$demo" --headless --size 960x540 --frames 90 --model ../shared/assets/Fox.glb \
            --screenshot docs/images/demo-fox.png >/dev/null
    fi
    ls -l docs/images
    ;;
fuzz)
    need "${CORE_PKGS[@]}" "${FUZZ_PKGS[@]}"
    secs=${1:-30}
    CC=clang configure_build build-fuzz -DBW_FUZZ=ON -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF -DBW_BUILD_BENCH=OFF
    for f in build-fuzz/fuzz/fuzz_*; do
        [ -x "$f" ] || continue
        name=$(basename "$f")
        corpus=build-fuzz/corpus/$name
        mkdir -p "$corpus"
        echo "== $name for ${secs}s"
        seeds=(fuzz/seeds/"${name#fuzz_}")
        # the shared BVH capture is a seed for the BVH target (cut to max_len, it
        # still loads); the shared glTF files are not: too big, or external buffers
        if [ "$name" = fuzz_bvh ] && [ -d ../shared/assets ]; then seeds+=(../shared/assets); fi
        # the example graphs and timelines seed both Lua targets (read in place, not copied)
        case $name in fuzz_graph | fuzz_timeline) seeds+=(graphs) ;; esac
        # the graph-file and timeline targets print the loaders' problems on
        # stderr (as simulate does): closed, libFuzzer's own report still shows
        quiet=()
        case $name in fuzz_graph | fuzz_timeline) quiet=(-close_fd_mask=2) ;; esac
        # the graph-file and timeline targets write each input as a mod file
        # in a folder of TMPDIR: one under the build folder per target, made
        # afresh, so a run that crashed leaves nothing in /tmp
        tmp=$PWD/build-fuzz/tmp/$name
        rm -rf "$tmp" && mkdir -p "$tmp"
        TMPDIR=$tmp "$f" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 ${quiet[@]+"${quiet[@]}"} "$corpus" "${seeds[@]}" 2>&1 | tail -n 3
    done
    ;;
package-check)
    need "${CORE_PKGS[@]}" "${PACKAGE_PKGS[@]}"
    # the same configuration as `./dev.sh test release`, so CI builds it once
    configure_build build-release-tests -DBW_WERROR=ON -DBW_BUILD_DEMO=ON -DCMAKE_BUILD_TYPE=Release
    tests/package/check.sh build-release-tests
    # The same with BUILD_SHARED_LIBS=ON. A shared libblendwerk exports only
    # what the headers declare BW_API, so this waits until they do.
    if grep -q '^BW_API ' include/blendwerk/*.h; then
        configure_build build-package-shared -DBUILD_SHARED_LIBS=ON -DBW_WERROR=ON -DCMAKE_BUILD_TYPE=Release \
            -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF -DBW_BUILD_BENCH=OFF
        sh tests/tools/exported_symbols.sh build-package-shared/libblendwerk.so include/blendwerk core
        sh tests/tools/exported_symbols.sh build-package-shared/blendwerk.so include/blendwerk
        BW_PACKAGE_LUAROCKS=0 tests/package/check.sh build-package-shared
    else
        echo "dev.sh package-check: no public header declares BW_API yet: the shared-library check is skipped"
    fi
    ;;
bench)
    need "${CORE_PKGS[@]}"
    if [ "${1:-}" = --vs-ref ]; then
        shift
        exec bench/vs_ref.sh "$@"
    fi
    if [ "${1:-}" = --report ]; then
        shift
        exec bench/report.sh "$@"
    fi
    configure_build build-release -DCMAKE_BUILD_TYPE=Release -DBW_BUILD_TESTS=OFF -DBW_BUILD_DEMO=OFF
    if [ "${1:-}" = --character ]; then
        shift
        exec build-release/bench/blendwerk-character-bench "$@"
    fi
    exec build-release/bench/blendwerk-bench "$@"
    ;;
help | -h | --help)
    help_text
    ;;
*)
    echo "dev.sh: unknown command '$cmd'" >&2
    help_text >&2
    exit 2
    ;;
esac
