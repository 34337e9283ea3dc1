#!/usr/bin/env bash
# check.sh BUILD_DIR - Blendwerk installs and is consumed as documented
# (docs/embedding.md). BUILD_DIR is a configured and built tree (CI reuses
# the Release test build). Everything else happens in a temporary folder:
#   1. cmake --install into a temporary prefix; the expected files are there;
#   2. examples/embed built with find_package(blendwerk CONFIG) against that
#      prefix, with pkg-config only, and with add_subdirectory (the ALIAS
#      targets); all three print the same 100 frames of the root joint;
#   3. a Lua host linking blendwerk::lua (and blendwerk-lua.pc) runs a
#      chunk; the installed blendwerk.so loads in the stock lua5.4;
#   4. `luarocks make` of blendwerk-scm-1.rockspec into a temporary tree;
#      `require "blendwerk"` from there with lua5.4, and the annotation
#      test (tests/package/annotations.lua) against that module (skipped
#      with BW_PACKAGE_LUAROCKS=0: the rock does not depend on BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:?usage: check.sh BUILD_DIR}" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
version=$(sed -n 's/^#define BW_VERSION_STRING "\(.*\)"$/\1/p' "$build/include/blendwerk/version.h")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/blendwerk-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
step() { echo "== package check: $*"; }
die() { echo "package check FAILED: $*" >&2; exit 1; }

step "install $version into a temporary prefix"
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
# lib, lib64 or lib/<multiarch>: where blendwerk.pc went
libdir=$(cd "$prefix" && find . -path '*/pkgconfig/blendwerk.pc' | sed 's|^\./||; s|/pkgconfig/blendwerk.pc$||' | head -n 1)
[ -n "$libdir" ] || die "no blendwerk.pc under $prefix"
for f in include/blendwerk/blendwerk.h include/blendwerk/types.h include/blendwerk/version.h \
    include/blendwerk/lua_blendwerk.h bin/blendwerk "$libdir/pkgconfig/blendwerk.pc" "$libdir/pkgconfig/blendwerk-lua.pc" \
    "$libdir/cmake/blendwerk/blendwerkConfig.cmake" "$libdir/cmake/blendwerk/blendwerkConfigVersion.cmake" \
    "$libdir/lua/5.4/blendwerk.so" share/blendwerk/types/blendwerk.lua; do
    [ -e "$prefix/$f" ] || die "$f is not installed"
done
ls "$prefix/$libdir"/libblendwerk.* "$prefix/$libdir"/libblendwerk_lua.* >/dev/null || die "libraries missing"
[ "$("$prefix/bin/blendwerk" --version)" = "blendwerk $version" ] || die "installed blendwerk --version"

step "examples/embed with find_package(blendwerk CONFIG REQUIRED)"
cmake -S examples/embed -B "$tmp/embed-cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build "$tmp/embed-cmake" -j "$jobs" >/dev/null
"$tmp/embed-cmake/embed" >"$tmp/cmake.out"
# 100 frames; the first is the walk clip at time 0: hips at rest (0, 1, 0)
[ "$(grep -c '^frame ' "$tmp/cmake.out")" = 100 ] || die "embed did not print 100 frames"
grep -q '^frame  0 t 0.000  hips t 0.0000 1.0000 0.0000  r 0.0000 0.0000 0.0000 1.0000$' "$tmp/cmake.out" ||
    die "embed's first frame: $(sed -n 2p "$tmp/cmake.out")"
# the last frame is the turn clip alone at 3.3 s = 0.3 s into its loop: the
# hips have turned 0.6 x 45 degrees, 27 degrees, about +Y (shortest-arc
# slerp of one key interval): r = (0, sin 13.5, 0, cos 13.5)
grep -q '^frame 99 t 3.300  hips t 0.0000 1.0000 0.0000  r 0.0000 0.2334 0.0000 0.9724$' "$tmp/cmake.out" ||
    die "embed's last frame: $(tail -n 1 "$tmp/cmake.out")"
sed -n '1,2p;$p' "$tmp/cmake.out"
if [ -f ../shared/assets/Fox.glb ]; then
    "$tmp/embed-cmake/embed" ../shared/assets/Fox.glb >"$tmp/fox.out"
    [ "$(grep -c '^frame ' "$tmp/fox.out")" = 100 ] || die "embed Fox.glb did not print 100 frames"
    sed -n '1p;$p' "$tmp/fox.out"
fi

step "examples/embed with pkg-config only"
PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" make -s -f examples/embed/pkg-config.mk BUILD="$tmp/embed-pc" \
    CFLAGS="-O2 -Wall -Wextra -Werror"
LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/embed-pc/embed" >"$tmp/pc.out" # (a shared install)
cmp -s "$tmp/cmake.out" "$tmp/pc.out" || die "the pkg-config build prints other frames"

step "examples/embed with add_subdirectory (blendwerk::blendwerk as an ALIAS)"
cmake -S examples/embed -B "$tmp/embed-sub" -DCMAKE_BUILD_TYPE=Release -DBLENDWERK_SOURCE_DIR="$PWD" >/dev/null
cmake --build "$tmp/embed-sub" -j "$jobs" >/dev/null
"$tmp/embed-sub/embed" >"$tmp/sub.out"
cmp -s "$tmp/cmake.out" "$tmp/sub.out" || die "the add_subdirectory build prints other frames"

step "a Lua host (tests/package/host) with blendwerk::lua and with blendwerk-lua.pc"
cmake -S tests/package/host -B "$tmp/host" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build "$tmp/host" >/dev/null
[ "$("$tmp/host/host")" = "$version $version 0.5" ] || die "the Lua host printed '$("$tmp/host/host")'"
# shellcheck disable=SC2046 # word splitting of pkg-config's flags is intended
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/host-pc" tests/package/host/host.c \
    $(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs blendwerk-lua)
[ "$(LD_LIBRARY_PATH="$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/host-pc")" = "$version $version 0.5" ] ||
    die "the pkg-config Lua host"

step "the installed blendwerk.so in the stock lua5.4"
got=$(LUA_CPATH="$prefix/$libdir/lua/5.4/?.so" lua5.4 -e 'io.write(require("blendwerk").version)')
[ "$got" = "$version" ] || die "require 'blendwerk' from the prefix gave version '$got'"

if [ "${BW_PACKAGE_LUAROCKS:-1}" = 0 ]; then
    echo "package check passed in $(($(date +%s) - start)) s (luarocks not run: BW_PACKAGE_LUAROCKS=0)"
    exit 0
fi
step "luarocks make into a temporary tree"
rocks=$tmp/rocks
CMAKE_BUILD_PARALLEL_LEVEL=$jobs luarocks --lua-version 5.4 --tree "$rocks" make blendwerk-scm-1.rockspec >"$tmp/luarocks.log" 2>&1 ||
    { cat "$tmp/luarocks.log" >&2; die "luarocks make"; }
module=$(find "$rocks/lib/lua/5.4" -name blendwerk.so | head -n 1)
[ -n "$module" ] || die "luarocks installed no blendwerk.so under $rocks/lib/lua/5.4"
eval "$(luarocks --lua-version 5.4 --tree "$rocks" path)"
got=$(lua5.4 -e 'local bw = require "blendwerk"; io.write(package.searchpath("blendwerk", package.cpath), " ", bw.version)')
[ "$got" = "$module $version" ] || die "require 'blendwerk' through luarocks' paths: $got"
echo "$got"
lua5.4 tests/package/annotations.lua types/blendwerk.lua

echo "package check passed in $(($(date +%s) - start)) s"
