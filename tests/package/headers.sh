#!/bin/sh
# headers.sh SOURCE_DIR BUILD_DIR - blendwerk.h includes every public
# header: each include/blendwerk/*.h of the source tree and the generated
# include/blendwerk/version.h of the build tree has its
# `#include "blendwerk/NAME"` line in include/blendwerk/blendwerk.h
# (README.md and docs/embedding.md say it is the whole API in one include).
set -eu
src=${1:?usage: headers.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: headers.sh SOURCE_DIR BUILD_DIR}
all=$src/include/blendwerk/blendwerk.h
missing=0
for h in "$src"/include/blendwerk/*.h "$build"/include/blendwerk/version.h; do
    name=$(basename "$h")
    [ "$name" = blendwerk.h ] && continue
    if ! grep -q "^#include \"blendwerk/$name\"\$" "$all"; then
        echo "include/blendwerk/blendwerk.h does not include blendwerk/$name" >&2
        missing=$((missing + 1))
    fi
done
[ "$missing" -eq 0 ] || exit 1
echo "blendwerk.h includes every public header"
