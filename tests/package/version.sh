#!/bin/sh
# version.sh VERSION BLENDWERK_EXE SOURCE_DIR BINARY_DIR
# Every place that states the version agrees with project(VERSION):
# `blendwerk --version`, the Lua module's blendwerk.version, the generated
# version.h, blendwerk.pc, blendwerkConfigVersion.cmake, the versioned
# rockspec and the newest release in CHANGELOG.md.
set -eu
version=$1 exe=$2 src=$3 bin=$4
fail=0
check() { # what, got
    if [ "$2" != "$version" ]; then
        echo "$1 says '$2', project(VERSION) is '$version'" >&2
        fail=1
    fi
}
check "blendwerk --version" "$("$exe" --version | sed -n 's/^blendwerk //p')"
check "the Lua module's blendwerk.version" "$(echo 'io.write(blendwerk.version)' | "$exe" run -)"
check "version.h" "$(sed -n 's/^#define BW_VERSION_STRING "\(.*\)"$/\1/p' "$bin/include/blendwerk/version.h")"
if [ -f "$bin/blendwerk.pc" ]; then
    check "blendwerk.pc" "$(sed -n 's/^Version: //p' "$bin/blendwerk.pc")"
fi
if [ -f "$bin/blendwerkConfigVersion.cmake" ]; then
    check "blendwerkConfigVersion.cmake" "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$bin/blendwerkConfigVersion.cmake")"
fi
check "the versioned rockspec" "$(sed -n 's/^version = "\(.*\)-1"$/\1/p' "$bin/blendwerk-$version-1.rockspec")"
check "CHANGELOG.md's newest release" "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -n 1)"
grep -q '^version = "scm-1"$' "$src/blendwerk-scm-1.rockspec" || { echo "blendwerk-scm-1.rockspec: version is not scm-1" >&2; fail=1; }
[ $fail = 0 ] && echo "version $version everywhere"
exit $fail
