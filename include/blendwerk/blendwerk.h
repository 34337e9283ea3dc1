/* blendwerk/blendwerk.h - the whole public C API in one include: every
 * header of include/blendwerk/ and the generated version.h (the Lua
 * openers, blendwerk/lua_blendwerk.h, need Lua's headers and are included
 * on their own). tests/package/headers.sh keeps this list complete. */
#ifndef BLENDWERK_BLENDWERK_H
#define BLENDWERK_BLENDWERK_H

#include "blendwerk/version.h"
#include "blendwerk/types.h"
#include "blendwerk/easing.h"
#include "blendwerk/rig.h"
#include "blendwerk/clip.h"
#include "blendwerk/bind.h"
#include "blendwerk/pose.h"
#include "blendwerk/sample.h"
#include "blendwerk/mix.h"
#include "blendwerk/play.h"
#include "blendwerk/blendspace.h"
#include "blendwerk/blendtree.h"
#include "blendwerk/rootmotion.h"
#include "blendwerk/graph.h"
#include "blendwerk/graph_lint.h"
#include "blendwerk/asset.h"
#include "blendwerk/jobs.h"
#include "blendwerk/animator.h"
#include "blendwerk/text.h"
#include "blendwerk/mesh.h"
#include "blendwerk/procedural.h"

#endif
