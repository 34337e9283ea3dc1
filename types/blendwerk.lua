---@meta blendwerk
-- LuaCATS annotations of the `blendwerk` Lua module (docs/lua-api.md,
-- docs/lua-rootmotion-blendtree.md) for lua-language-server: add this
-- folder to `workspace.library` (see docs/embedding.md). Definitions only:
-- nothing here runs. tests/package/annotations.lua checks that every
-- function and method listed here exists in the module and the other way
-- round; shapes of plain tables (descriptions, options, results) are
-- classes without a metatable and are not checked by it.

---{x, y, z}, or a table with fields x, y, z
---@alias blendwerk.Vec3 number[]|{x: number, y: number, z: number}
---{x, y, z, w}, a unit quaternion (inputs are normalized)
---@alias blendwerk.Quat number[]|{x: number, y: number, z: number, w: number}
---1-based joint index or an unambiguous joint name
---@alias blendwerk.Joint integer|string
---1-based curve index or curve name
---@alias blendwerk.Curve integer|string
---@alias blendwerk.EaseStyle "linear"|"constant"|"quad"|"cubic"|"quart"|"quint"|"sine"|"exponential"|"circular"|"back"|"elastic"|"bounce"
---@alias blendwerk.EaseDir "in"|"out"|"in_out"
---An opaque track handle from TrackSet:play (not an index)
---@alias blendwerk.Handle integer
---@alias blendwerk.SignalKind "marker"|"loop"|"ended"|"stopped"
---@alias blendwerk.Axis "x"|"y"|"z"|"yaw"

---The module table: `local bw = require "blendwerk"` (a global in `blendwerk run`).
---@class blendwerk
---@field version string the library version, e.g. "0.1.0" (BW_VERSION_STRING)
---@field build blendwerk.BuildInfo how this module was compiled
local blendwerk = {}

---@class blendwerk.BuildInfo
---@field asan boolean true when compiled with AddressSanitizer

-- ---------------------------------------------------------------------
-- Descriptions (plain tables read raw; unknown fields are refused)

---@class blendwerk.TransformDesc
---@field t? blendwerk.Vec3 translation
---@field r? blendwerk.Quat rotation
---@field s? blendwerk.Vec3|number scale (a number is uniform)

---@class blendwerk.JointDesc: blendwerk.TransformDesc
---@field name string non-empty
---@field parent? string|integer|false an earlier joint's name or 1-based index; nil/false for a root

---@class blendwerk.CurveDesc
---@field name string unique
---@field angle? boolean radians, interpolated along the shortest arc
---@field rest? number default 0

---@class blendwerk.RigDesc
---@field joints? blendwerk.JointDesc[] parent-first
---@field curves? blendwerk.CurveDesc[]

---@class blendwerk.KeyDesc
---@field time number seconds, strictly increasing within a track
---@field t? blendwerk.Vec3
---@field r? blendwerk.Quat
---@field s? blendwerk.Vec3|number
---@field weight? number pose weight, default 1
---@field mask? number mask weight, default 0
---@field ease? blendwerk.EaseStyle shapes the segment that ends at this key (default "linear")
---@field dir? blendwerk.EaseDir default "in"

---@class blendwerk.JointTrackDesc
---@field joint string the joint's name
---@field parent? string|false the parent's name, "" or false for a root, nil when unknown
---@field keys blendwerk.KeyDesc[] non-empty

---@class blendwerk.CurveKeyDesc
---@field time number
---@field value number
---@field ease? blendwerk.EaseStyle
---@field dir? blendwerk.EaseDir

---@class blendwerk.CurveTrackDesc
---@field name string the rig curve's name
---@field angle? boolean
---@field keys blendwerk.CurveKeyDesc[]

---@class blendwerk.Marker
---@field name string
---@field time number seconds

---@class blendwerk.ClipDesc
---@field name? string
---@field length? number seconds >= 0; 0 or nil: the last key or marker time
---@field loop? boolean default false
---@field id? integer cache identity, >= 0
---@field revision? integer cache identity, >= 0
---@field joints? blendwerk.JointTrackDesc[]
---@field curves? blendwerk.CurveTrackDesc[]
---@field markers? blendwerk.Marker[]

---@class blendwerk.Contribution
---@field [1] blendwerk.Pose
---@field [2] number? weight (default 1)
---@field [3] integer? priority (default 0)
---@field pose? blendwerk.Pose
---@field weight? number
---@field priority? integer

---@class blendwerk.TrackSetOptions
---@field capacity? integer max simultaneous tracks (default 16, at most 1024)
---@field signal_capacity? integer signals queued per frame (default 256)

---@class blendwerk.LoadOptions
---@field max_bytes? integer largest file / buffer accepted (default 512 MiB)

---@class blendwerk.PlayOptions
---@field time? number start time (default 0)
---@field speed? number default 1; negative plays in reverse
---@field weight? number target weight (default 1)
---@field fade_in? number seconds from weight 0 (default 0)
---@field priority? integer mixer rank (default 0)
---@field loop? boolean default: the clip's flag
---@field on_marker? fun(name: string, marker_time: number, handle: blendwerk.Handle)
---@field on_loop? fun(handle: blendwerk.Handle)
---@field on_ended? fun(handle: blendwerk.Handle)
---@field on_stopped? fun(handle: blendwerk.Handle)

---@class blendwerk.BlendTreeNode
---@field kind? "1d"|"2d"|"cartesian"|"directional"|"grid" absent: a leaf
---@field clip? any a leaf's clip (a Clip supplies its length), reported back untouched
---@field length? number a leaf's length in seconds (needed unless clip is a Clip)
---@field speed? number playback multiplier (default 1)
---@field at? number|number[]|{x: number, y: number} place in the parent's space
---@field param? string a 1d node's parameter
---@field params? string[] {x_name, y_name} of a 2D or grid node
---@field rate_scale? boolean 1d: outside the range the end member plays at x / threshold
---@field x_values? number[] grid columns
---@field y_values? number[] grid rows
---@field children? blendwerk.BlendTreeNode[]

---@class blendwerk.BlendTreeOptions
---@field params? string[] parameter names in index order (fixes the set)

---@class blendwerk.AnimatorLocomotion
---@field clip string a name in clips
---@field speed number m/s the clip was authored at, >= 0

---@class blendwerk.AnimatorHead
---@field chain? string[] joint names, root-most first (default neck_01, neck_02, head)
---@field weights? number[] one per chain joint (default an equal split)
---@field yaw_limit? number radians, default 1.2
---@field pitch_limit? number radians, default 0.6
---@field eye_yaw_limit? number radians, default 0.6
---@field eye_pitch_limit? number radians, default 0.4
---@field disabled? boolean

---@class blendwerk.AnimatorDesc
---@field rig blendwerk.Rig
---@field clips table<string, blendwerk.Clip>|blendwerk.Asset by name (an Asset: its clips by their names)
---@field expression_space? { kind: "arkit52" } | { kind: "custom", dim: integer, map: fun(arkit: number[], out: number[]) }
---@field locomotion? blendwerk.AnimatorLocomotion[]
---@field head? blendwerk.AnimatorHead
---@field gestures? string[] clips that may play as gestures
---@field face? string[] ARKit-52 face clips
---@field blink? false|{ seed?: integer, interval_min?: number, interval_max?: number, duration?: number, disabled?: boolean }
---@field graph? blendwerk.Graph the body base; its clips bound to `clips` by name

---@class blendwerk.CharacterState
---@field velocity? number[] {x, y, z} world m/s
---@field position? number[] {x, y, z} world metres
---@field yaw? number body facing about +Y, radians (0 faces +Z)
---@field clips? table<string, number> explicit clip weights by name
---@field look_at? number[] {x, y, z} world point
---@field expression? number[] 52 ARKit values, or dim values of a custom space (used as is)
---@field face? table<string, number> drive weights of the face clips by name
---@field params? table<string, number|boolean> graph parameters by name
---@field fire? string[] graph triggers to fire

---@class blendwerk.AnimatorEvent
---@field kind "enter"|"exit"|"marker"|"gesture_end"|"blink"
---@field name string|false a marker's name; the state entered or left
---@field layer string|false graph events: the layer
---@field state string|false graph events: the state
---@field clip string|false a marker's clip; the gesture's clip
---@field time number a marker's time in its clip (seconds), else 0

---The animator's layer status is the graph cursor's (cursor:status).
---@alias blendwerk.AnimatorStatus blendwerk.LayerStatus

---@class blendwerk.GestureOptions
---@field duration? number seconds, default the clip's length
---@field fade_in? number seconds
---@field fade_out? number seconds
---@field curve? string an easing name, default "linear"
---@field envelope? fun(t: number, duration: number): number replaces the default envelope (weight in [0, 1])

---@class blendwerk.RootMotionConfig
---@field root? blendwerk.Joint default joint 1
---@field axes? blendwerk.Axis[] default {"x", "z", "yaw"}

---@class blendwerk.Play
---@field binding? blendwerk.Binding
---@field clip? blendwerk.Clip
---@field from? number clip time before the step (default 0)
---@field delta number signed clip-time advance of the step
---@field loop? boolean default: the clip's flag
---@field weight? number >= 0, default 1
---@field priority? integer default 0

---@class blendwerk.PhaseLeaf
---@field weight number
---@field length number
---@field rate? number default 1

-- ---------------------------------------------------------------------
-- Results

---@class blendwerk.Transform
---@field t number[] {x, y, z}
---@field r number[] {x, y, z, w}
---@field s number[] {x, y, z}

---@class blendwerk.JointPose: blendwerk.Transform
---@field coverage number in [0, 1]

---@class blendwerk.PoseSet
---@field t? blendwerk.Vec3
---@field r? blendwerk.Quat
---@field s? blendwerk.Vec3|number
---@field coverage? number in [0, 1]

---@class blendwerk.TrackInfo
---@field joint string
---@field parent? string "" for a root, nil when unknown
---@field channel "translation"|"rotation"|"scale"|"weight"|"mask"|"float"|"angle"
---@field interp "eased"|"cubicspline"
---@field key_count integer

---@class blendwerk.BindingReport
---@field bound integer tracks bound (by_name included)
---@field by_name integer
---@field ambiguous integer
---@field unbound integer

---@class blendwerk.Leaf
---@field clip any the leaf's clip value from the description
---@field weight number in (0, 1]; the leaves sum to 1
---@field rate number total playback rate
---@field length number seconds
---@field leaf integer the leaf's 1-based number
---@field time? number sample time after the step (step only)
---@field from? number clip time before the step (step only)
---@field delta? number signed clip-time advance (step only)

---@class blendwerk.RootDelta
---@field x number character-frame translation at the start of the step
---@field y number
---@field z number
---@field yaw number radians about +Y
---@field coverage number 0..1
---@field used integer plays that contributed
---@field skipped integer plays skipped (non-finite, wrong layout)

-- ---------------------------------------------------------------------
-- Module functions

---A rig from a description, or nil and a message.
---@param desc blendwerk.RigDesc
---@return blendwerk.Rig? rig
---@return string? message
function blendwerk.rig(desc) end

---A clip compiled from a keyframe sequence, or nil and a message.
---@param desc blendwerk.ClipDesc
---@return blendwerk.Clip? clip
---@return string? message
function blendwerk.clip(desc) end

---Matches the clip's tracks to the rig's joints (a new Binding each call).
---@param clip blendwerk.Clip
---@param rig blendwerk.Rig
---@return blendwerk.Binding? binding
---@return string? message
function blendwerk.bind(clip, rig) end

---An empty pose for the rig: identity transforms, coverage 0.
---@param rig blendwerk.Rig
---@return blendwerk.Pose
function blendwerk.pose(rig) end

---The per-joint priority mixer. Writes into `out` (returned) when given.
---@param contributions (blendwerk.Pose|blendwerk.Contribution)[]
---@param base? blendwerk.Pose what the ranks overlay (default: the rest pose)
---@param out? blendwerk.Pose
---@return blendwerk.Pose
function blendwerk.mix(contributions, base, out) end

---A track set playing clips on the rig.
---@param rig blendwerk.Rig
---@param options? blendwerk.TrackSetOptions
---@return blendwerk.TrackSet? set
---@return string? message
function blendwerk.track_set(rig, options) end

---Loads a glTF 2.0 (.gltf, .glb) or BVH (.bvh) file.
---@param path string
---@param options? blendwerk.LoadOptions
---@return blendwerk.Asset? asset
---@return string? message names the file and the line or JSON path
function blendwerk.load(path, options) end

---The easing curve value at u (clamped to [0, 1]).
---@param style blendwerk.EaseStyle
---@param dir blendwerk.EaseDir|nil default "in"
---@param u number
---@return number
function blendwerk.ease(style, dir, u) end

---Every easing style name, in bw_ease_style order (easing.h): a new list each call.
---@return blendwerk.EaseStyle[]
function blendwerk.easing_styles() end

---Angle interpolation along the shortest arc (radians, not reduced to a range).
---@param a number
---@param b number
---@param u number
---@return number
function blendwerk.lerp_angle(a, b, u) end

---Raises "what: unknown field 'x' (accepted fields: ...)" when t has a key that is not
---one of names (at most 32), positioned like error(message, level) (default 1); returns t.
---@generic T: table
---@param t T
---@param names string[]
---@param what string
---@param level? integer 1: the line calling check_fields; 2: that function's caller
---@return T
function blendwerk.check_fields(t, names, what, level) end

-- Procedural helpers (include/blendwerk/procedural.h; docs/lua-api.md
-- "Procedural controls"). Numbers in and out as multiple values; a NaN,
-- infinite or out-of-float-range argument raises naming it.

---Split q = swing * twist, twist about the axis (any non-zero length).
---@param qx number
---@param qy number
---@param qz number
---@param qw number
---@param ax number
---@param ay number
---@param az number
---@return number sx, number sy, number sz, number sw, number tx, number ty, number tz, number tw
function blendwerk.swing_twist(qx, qy, qz, qw, ax, ay, az) end

---The rotation turning +Z onto forward with +Y toward up (default 0, 1, 0).
---@param fx number
---@param fy number
---@param fz number
---@param ux? number
---@param uy? number
---@param uz? number
---@return number x, number y, number z, number w
function blendwerk.look_rotation(fx, fy, fz, ux, uy, uz) end

---The body frame b turned toward direction d, yaw and pitch clamped in the body frame.
---@param bx number
---@param by number
---@param bz number
---@param bw number
---@param dx number
---@param dy number
---@param dz number
---@param yaw_limit number radians >= 0
---@param pitch_limit number radians >= 0
---@return number x, number y, number z, number w
function blendwerk.rotate_toward(bx, by, bz, bw, dx, dy, dz, yaw_limit, pitch_limit) end

---Yaw (relative to the body's facing, wrapped to (-pi, pi]) and pitch (up
---positive) of a world target seen from joint `joint` of the pose, for a
---body at `position` (world) facing body_yaw.
---@param pose blendwerk.Pose
---@param joint integer|blendwerk.AimSetup 1-based joint index (a setup: its head)
---@param position number[] {x, y, z} world
---@param body_yaw number radians, 0 faces +Z
---@param target number[] {x, y, z} world
---@return number yaw, number pitch
function blendwerk.aim_angles(pose, joint, position, body_yaw, target) end

---@class blendwerk.AimLimits
---@field yaw? number default 1.2 (radians, >= 0)
---@field pitch? number default 0.6
---@field eye_yaw? number default 0.6
---@field eye_pitch? number default 0.4
---@field behind? number default 0.2: the band around straight behind where the side is kept

---The defaults of absent AimLimits fields, the C animator's head-aim limits
---(BW_ANIMATOR_HEAD_LIMITS, as floats): a new table each call.
---@return { yaw: number, pitch: number, eye_yaw: number, eye_pitch: number, behind: number }
function blendwerk.aim_defaults() end

---The head-aim clamp with the behind hysteresis and the overflow to the eyes.
---@param yaw number
---@param pitch number
---@param last_yaw number what the chain took last frame
---@param limits blendwerk.AimLimits|blendwerk.AimSetup
---@return number head_yaw, number head_pitch, number eye_yaw, number eye_pitch
function blendwerk.aim_clamp(yaw, pitch, last_yaw, limits) end

---Split an aim over a chain (at most 16 joints, root-most first) into the
---pose; out (reused) gets joint, x, y, z, w per joint.
---@param pose blendwerk.Pose
---@param joints integer[] 1-based joint indices
---@param weights number[] one per joint
---@param yaw number
---@param pitch number
---@param out? number[]
---@return number[]? out
function blendwerk.aim_chain(pose, joints, weights, yaw, pitch, out) end

---A chain, its weights and limits checked once (immutable; docs/scripting.md
---"Aim setups"): aim_angles, aim_clamp and aim_chain take it in place of
---the joint, the limits, and joints and weights (aim_chain(pose, setup, yaw, pitch [, out])).
---@class blendwerk.AimSetup

---@param rig blendwerk.Rig
---@param joints integer[] 1-based joint indices, root-most first, the last the head (1..16)
---@param weights number[] one per joint
---@param limits? blendwerk.AimLimits
---@return blendwerk.AimSetup
function blendwerk.aim_setup(rig, joints, weights, limits) end

---aim_angles from the setup's head, aim_clamp with its limits and aim_chain
---over its chain, in one call (the animator's head-aim step).
---@param pose blendwerk.Pose
---@param setup blendwerk.AimSetup
---@param position number[] {x, y, z} the body (world)
---@param body_yaw number
---@param target number[] {x, y, z} (world)
---@param last_yaw number what the chain took last frame
---@return number head_yaw, number head_pitch, number eye_yaw, number eye_pitch
function blendwerk.aim(pose, setup, position, body_yaw, target, last_yaw) end

---@class blendwerk.ControlsDesc
---@field rig blendwerk.Rig the characters' rig (kept alive by the Controls)
---@field dir string the folder of the control scripts (the sandbox's folder)
---@field characters? integer default 1, at most 65536
---@field watch? boolean watch the loaded files (Controls:poll)

---The control runner (docs/scripting.md) with a sandbox of its own; trusted
---states only (a sandboxed script cannot make one).
---@param desc blendwerk.ControlsDesc
---@return blendwerk.Controls? controls
---@return string? message
function blendwerk.controls(desc) end

---1D blend-space weights and playback rates for parameter x.
---@param thresholds number[]
---@param x number
---@return number[] weights
---@return number[] rates
function blendwerk.blend1d_weights(thresholds, x) end

---2D blend-space weights (gradient bands).
---@param points (number[]|{x: number, y: number})[]
---@param x number
---@param y number
---@param mode? "cartesian"|"directional" default "cartesian"
---@return number[] weights
function blendwerk.blend2d_weights(points, x, y, mode) end

---Grid blend-space weights, row-major (index iy * #x_values + ix + 1).
---@param x_values number[]
---@param y_values number[]
---@param x number
---@param y number
---@return number[] weights
function blendwerk.grid_weights(x_values, y_values, x, y) end

---A blend tree from a nested description, or nil and a message.
---@param root blendwerk.BlendTreeNode
---@param options? blendwerk.BlendTreeOptions
---@return blendwerk.BlendTree? tree
---@return string? message
function blendwerk.blend_tree(root, options) end

---@class blendwerk.GraphOptions
---@field rig? blendwerk.Rig the rig cursors animate (graph:cursor() needs it)
---@field clips? blendwerk.Clip[] the clips the graph's states name (by clip:name())

---A state machine graph (docs/graphs.md, SPEC §12.1) from a graph file
---(a Lua chunk returning the table, run in the sandbox when called from
---one) or a table; nil and every problem as "FILE:LINE: path: message".
---@param desc_or_path table|string
---@param options? blendwerk.GraphOptions
---@return blendwerk.Graph? graph
---@return string[]? errors
function blendwerk.graph(desc_or_path, options) end

---Advances a normalized progress by dt seconds against a cycle duration.
---@param progress number
---@param dt number
---@param cycle number seconds
---@return number progress in [0, 1)
function blendwerk.phase_advance(progress, dt, cycle) end

---A leaf's sample time at a progress (reverse for rate < 0; 0 for length <= 0).
---@param progress number
---@param length number
---@param rate? number default 1
---@return number seconds
function blendwerk.leaf_time(progress, length, rate) end

---The cycle duration of a blend of leaves.
---@param leaves blendwerk.PhaseLeaf[]
---@return number seconds
function blendwerk.cycle_duration(leaves) end

---A root-motion extractor bound to the rig, or nil and a message.
---@param rig blendwerk.Rig
---@param config? blendwerk.RootMotionConfig
---@return blendwerk.RootMotion? rm
---@return string? message
function blendwerk.root_motion(rig, config) end

---A character animator (docs/animator.md), or nil and a message.
---@param desc blendwerk.AnimatorDesc
---@return blendwerk.Animator? animator
---@return string? message
function blendwerk.animator(desc) end

---Check a character state: true, or nil and the problems with their field paths.
---@param state blendwerk.CharacterState
---@param animator? blendwerk.Animator
---@return true? ok
---@return string[]? problems
function blendwerk.validate_character_state(state, animator) end

-- ---------------------------------------------------------------------
-- Rig

---A skeleton: joints (parent-first) and float curves. Immutable topology.
---@class blendwerk.Rig
local Rig = {}

---@return integer
function Rig:joint_count() end

---@return integer
function Rig:curve_count() end

---@param joint blendwerk.Joint
---@return string
function Rig:joint_name(joint) end

---@param joint blendwerk.Joint
---@return integer? parent nil for a root
function Rig:joint_parent(joint) end

---@param name string
---@param parent_name? string "" means a root; absent means any parent
---@return integer? index
---@return "not found"|"ambiguous"|nil message
function Rig:find(name, parent_name) end

---@param name string
---@return integer?
function Rig:find_curve(name) end

---@param curve blendwerk.Curve
---@return string
function Rig:curve_name(curve) end

---@param curve blendwerk.Curve
---@return "float"|"angle"
function Rig:curve_kind(curve) end

---@param joint blendwerk.Joint
---@return blendwerk.Transform
function Rig:rest(joint) end

---Changes only the fields given; the revision and signature stay.
---@param joint blendwerk.Joint
---@param transform blendwerk.TransformDesc
function Rig:set_rest(joint, transform) end

---@return integer starts at 1
function Rig:topology_revision() end

---@return integer 64-bit hash of names and parents
function Rig:layout_signature() end

---@return blendwerk.Pose empty (identity, coverage 0)
function Rig:pose() end

---@return blendwerk.Pose the current joint values, coverage 1
function Rig:rest_pose() end

---What creating the rig warned of without failing (a new list each call),
---each message after the "file:line: " of the blendwerk.rig call; an
---Asset's rig gives the asset's warnings.
---@return string[]
function Rig:warnings() end

function Rig:close() end

-- ---------------------------------------------------------------------
-- Clip

---Immutable animation data: joint and curve tracks, markers.
---@class blendwerk.Clip
local Clip = {}

---@return string "" when unnamed
function Clip:name() end

---@return number seconds
function Clip:length() end

---@return boolean
function Clip:loop() end

---@return integer
function Clip:track_count() end

---@param i integer
---@return blendwerk.TrackInfo
function Clip:track(i) end

---@param i integer
---@param time number
---@return number ... the track's values: 1, 3 or 4 numbers
function Clip:sample_track(i, time) end

---@return integer
function Clip:marker_count() end

---@param i integer
---@return string name
---@return number time
function Clip:marker(i) end

---@return blendwerk.Marker[] sorted by time
function Clip:markers() end

---@param rig blendwerk.Rig
---@return blendwerk.Binding? binding a new one each call
---@return string? message
function Clip:bind(rig) end

---Samples at clip time `time` (not wrapped); into `pose` when given.
---@param rig blendwerk.Rig
---@param time number
---@param pose? blendwerk.Pose
---@return blendwerk.Pose
function Clip:sample(rig, time, pose) end

---What compiling the clip warned of without failing (a new list each
---call), each message after the "file:line: " of the blendwerk.clip call;
---an Asset's clip gives the asset's warnings.
---@return string[]
function Clip:warnings() end

function Clip:close() end

-- ---------------------------------------------------------------------
-- Binding

---A clip's tracks matched to one rig layout.
---@class blendwerk.Binding
local Binding = {}

---@return blendwerk.BindingReport
function Binding:report() end

---@param i integer
---@return "exact"|"by_name"|"ambiguous"|"unbound"
function Binding:track_status(i) end

---@param i integer
---@return integer? target joint (or curve) index, nil when unbound
function Binding:track_target(i) end

---@return blendwerk.Clip
function Binding:clip() end

---@return blendwerk.Rig
function Binding:rig() end

---@param time number
---@param pose? blendwerk.Pose
---@return blendwerk.Pose
function Binding:sample(time, pose) end

function Binding:close() end

-- ---------------------------------------------------------------------
-- Pose

---One local transform and coverage per joint, one value and coverage per curve.
---@class blendwerk.Pose
local Pose = {}

---@return integer
function Pose:joint_count() end

---@return integer
function Pose:curve_count() end

---@param joint blendwerk.Joint
---@return blendwerk.JointPose
function Pose:get(joint) end

---@param joint blendwerk.Joint
---@return number x
---@return number y
---@return number z
function Pose:t(joint) end

---@param joint blendwerk.Joint
---@return number x
---@return number y
---@return number z
---@return number w
function Pose:r(joint) end

---@param joint blendwerk.Joint
---@return number x
---@return number y
---@return number z
function Pose:s(joint) end

---@param joint blendwerk.Joint
---@return number coverage in [0, 1]
function Pose:coverage(joint) end

---@param curve blendwerk.Curve
---@return number value
---@return number coverage
function Pose:curve(curve) end

---Absent fields keep their values; r is normalized.
---@param joint blendwerk.Joint
---@param values blendwerk.PoseSet
function Pose:set(joint, values) end

---@param curve blendwerk.Curve
---@param value number
---@param coverage? number default 1
function Pose:set_curve(curve, value, coverage) end

---Identity transforms, coverage 0.
function Pose:clear() end

---The rig's current values, coverage 1.
function Pose:set_rest() end

---@return blendwerk.Pose
function Pose:copy() end

---@return blendwerk.Rig
function Pose:rig() end

---Per joint a 16-number column-major 4x4 model-space matrix.
---@return number[][]
function Pose:local_to_model() end

---@param joint blendwerk.Joint
---@return number x
---@return number y
---@return number z
function Pose:model_position(joint) end

---Batch reads by index (the controls' fast path): 4 numbers per joint, flat,
---into out (reused; a new table when absent).
---@param joints integer[] 1-based joint indices
---@param out? number[]
---@return number[] out
function Pose:rotations(joints, out) end

---3 numbers per joint, flat.
---@param joints integer[]
---@param out? number[]
---@return number[] out
function Pose:translations(joints, out) end

---Model-space positions, 3 numbers per joint, flat.
---@param joints integer[]
---@param out? number[]
---@return number[] out
function Pose:model_positions(joints, out) end

---Write 4 numbers per joint (normalized); all are checked before any is written.
---@param joints integer[]
---@param values number[]
function Pose:set_rotations(joints, values) end

---Write 3 numbers per joint; all are checked before any is written.
---@param joints integer[]
---@param values number[]
function Pose:set_translations(joints, values) end

function Pose:close() end

-- ---------------------------------------------------------------------
-- Controls

---@class blendwerk.ControlInput
---@field position? number[] {x, y, z} world, default the origin
---@field yaw? number the body's facing, radians (0 faces +Z)
---@field target? number[] {x, y, z} world; absent: no target

---Procedural controls run over a pose after composition (bindings/controls.h).
---@class blendwerk.Controls
local Controls = {}

---Load a control file of the folder; options is table-constructor text.
---@param file string
---@param options? string e.g. "{ yaw_limit = 1.0 }"
---@return integer? index 1-based
---@return string? message "file:line: message"
function Controls:load(file, options) end

---Run every control, lowest priority first, over the pose of character i.
---@param character integer 1-based
---@param pose blendwerk.Pose of the Controls' rig, changed in place
---@param input? blendwerk.ControlInput
---@param dt? number seconds, default 0
---@return integer failures controls that failed this frame
function Controls:run(character, pose, input, dt) end

---The numbers of ctx[field] of a character ("gaze", "arkit", ...).
---@param character integer
---@param field string
---@return number[]
function Controls:read(character, field) end

---The joints listed in ctx.overrides with their parent-local rotations in pose.
---@param character integer
---@param pose blendwerk.Pose the pose the run changed
---@return {joint: integer, r: number[]}[]
function Controls:overrides(character, pose) end

---Reload every control loaded from file (between frames).
---@param file string
---@return "none"|"done"|"rejected" result
---@return string? message why it was rejected ("file:line: message")
function Controls:reload(file) end

---With watch = true: reload the files that changed (the caller's clock, seconds).
---@param now number
---@return "none"|"done"|"rejected" result
---@return string? message
function Controls:poll(now) end

---@return integer controls loaded
function Controls:count() end

function Controls:close() end

-- ---------------------------------------------------------------------
-- TrackSet

---Plays clips on one rig; signals are delivered in the drain step.
---@class blendwerk.TrackSet
local TrackSet = {}

---@param clip blendwerk.Clip|blendwerk.Binding
---@param options? blendwerk.PlayOptions
---@return blendwerk.Handle? handle
---@return string? message when the set is full
function TrackSet:play(clip, options) end

---@param h blendwerk.Handle
---@param fade_out? number seconds (default 0)
---@return true? ok
---@return string? message
function TrackSet:stop(h, fade_out) end

---@param h blendwerk.Handle
---@param target number
---@param duration? number seconds (default 0)
---@return true? ok
---@return string? message
function TrackSet:fade(h, target, duration) end

---@param h blendwerk.Handle
---@param speed number
---@return true? ok
---@return string? message
function TrackSet:set_speed(h, speed) end

---@param h blendwerk.Handle
---@param priority integer
---@return true? ok
---@return string? message
function TrackSet:set_priority(h, priority) end

---Fires no markers.
---@param h blendwerk.Handle
---@param time number
---@return true? ok
---@return string? message
function TrackSet:seek(h, time) end

---@param h blendwerk.Handle
---@return boolean
function TrackSet:alive(h) end

---@param h blendwerk.Handle
---@return number?
function TrackSet:time(h) end

---@param h blendwerk.Handle
---@return number?
function TrackSet:weight(h) end

---@param h blendwerk.Handle
---@return number?
function TrackSet:speed(h) end

---@param h blendwerk.Handle
---@return boolean
function TrackSet:stopping(h) end

---@param h blendwerk.Handle
---@return boolean
function TrackSet:looping(h) end

---@return integer live tracks
function TrackSet:count() end

---@return blendwerk.Handle[] in play order
function TrackSet:handles() end

---@param h blendwerk.Handle
---@return blendwerk.Clip?
function TrackSet:clip(h) end

---@param h blendwerk.Handle
---@return blendwerk.Pose? copy of the track's last sampled pose
function TrackSet:track_pose(h) end

---@return integer signals dropped because the queue was full
function TrackSet:dropped_signals() end

---@param dt number seconds
function TrackSet:advance(dt) end

---@param base? blendwerk.Pose
---@return blendwerk.Pose the set's output pose (the same object every frame)
function TrackSet:compose(base) end

---@return integer signals delivered
function TrackSet:drain() end

---advance(dt), compose(base), drain().
---@param dt number seconds
---@param base? blendwerk.Pose
---@return blendwerk.Pose
function TrackSet:update(dt, base) end

---@return blendwerk.Pose
function TrackSet:pose() end

---A set-wide callback for a signal kind (nil removes it).
---@param kind blendwerk.SignalKind
---@param fn? function arguments as the PlayOptions callbacks of that kind
function TrackSet:on(kind, fn) end

function TrackSet:close() end

-- ---------------------------------------------------------------------
-- Asset

---A loaded glTF or BVH file: one rig and its clips.
---@class blendwerk.Asset
local Asset = {}

---@return blendwerk.Rig borrowed; the same handle every call
function Asset:rig() end

---@return integer
function Asset:clip_count() end

---@param name_or_index string|integer a name, "#N" (0-based, file order) or a 1-based number
---@return blendwerk.Clip?
function Asset:clip(name_or_index) end

---@return blendwerk.Clip[] in file order
function Asset:clips() end

---@return "gltf"|"bvh"
function Asset:kind() end

---@return number BVH seconds per frame (0 for glTF)
function Asset:frame_time() end

---@return integer BVH frames read (0 for glTF)
function Asset:frame_count() end

---@return string[] the loader's warnings, in order
function Asset:warnings() end

function Asset:close() end

-- ---------------------------------------------------------------------
-- BlendTree

---A compiled blend tree; the caller keeps the progress, the tree is shared.
---@class blendwerk.BlendTree
local BlendTree = {}

---@param values? table<integer|string, number> one number per parameter, by index or name
---@param out? table reused result table
---@return blendwerk.Leaf[] leaves
---@return number cycle seconds
function BlendTree:evaluate(values, out) end

---@param progress number
---@param dt number seconds
---@param values? table<integer|string, number>
---@param out? table reused result table
---@return number progress in [0, 1)
---@return blendwerk.Leaf[] leaves
---@return number cycle seconds
function BlendTree:step(progress, dt, values, out) end

---@return string[] parameter names in index order
function BlendTree:params() end

---@param name string
---@return integer?
function BlendTree:param_index(name) end

---@return any[] the leaves' clip values in leaf order
function BlendTree:clips() end

---@return integer
function BlendTree:leaf_count() end

---@return integer
function BlendTree:node_count() end

function BlendTree:close() end

-- ---------------------------------------------------------------------
-- RootMotion

---Root-motion extraction and removal for one rig's root joint.
---@class blendwerk.RootMotion
local RootMotion = {}

---@param plays blendwerk.Play[] at most 64
---@param out? table
---@return blendwerk.RootDelta? delta
---@return string? message
function RootMotion:extract(plays, out) end

---@param set blendwerk.TrackSet
---@param out? table
---@return blendwerk.RootDelta
function RootMotion:extract_tracks(set, out) end

---@param target blendwerk.Pose|blendwerk.TransformDesc
---@return blendwerk.Pose|blendwerk.Transform|nil result
---@return string? message
function RootMotion:remove(target) end

---@return integer index
---@return string name
function RootMotion:root() end

---@return blendwerk.Axis[]
function RootMotion:axes() end

---@return blendwerk.Rig
function RootMotion:rig() end

function RootMotion:close() end

-- ---------------------------------------------------------------------
-- Graph and Cursor

---@alias blendwerk.Param integer|string 1-based parameter index or name
---@alias blendwerk.Layer integer|string 1-based layer index or name (default: the first)

---A compiled graph bound to a rig and clips; shared by its cursors.
---@class blendwerk.Graph
local Graph = {}

---@return blendwerk.Cursor? cursor
---@return string? message
function Graph:cursor() end

---@param name string
---@return integer? index 1-based
function Graph:param_index(name) end

---@return string[] parameter names in index order
function Graph:params() end

---@return string[] layer names in order
function Graph:layers() end

---@param layer? blendwerk.Layer
---@return string[] state names in index order
function Graph:states(layer) end

---Take re-exported clips (same count and order, same loop flags and
---marker names; new lengths and marker times) without recompiling, and
---rebind every open cursor of the graph and every animator running it
---(the animator's clips those graph clips played become the new ones) to
---them. Progress stays normalized; fade timers keep their seconds.
---@param clips blendwerk.Clip[]
---@return true? ok
---@return string[]? errors "clips[i]: message" lines; nothing changed
function Graph:refresh_clips(clips) end

function Graph:close() end

---@class blendwerk.GraphEvent
---@field kind "enter"|"exit"|"marker"
---@field layer string
---@field state string
---@field name? string marker name
---@field time? number marker time in its clip, seconds
---@field clip? integer marker: 1-based index into the graph's clips

---@class blendwerk.TransitionStatus
---@field from string? the state current when it fired (nil: a hot-reload fade)
---@field to string
---@field elapsed number seconds
---@field duration number seconds
---@field weight number destination weight
---@field mode "live"|"freeze"
---@field frozen boolean
---@field index integer 1-based transition index in the layer (0: a hot-reload fade)

---@class blendwerk.LayerStatus
---@field state string
---@field progress number accumulated normalized progress
---@field normalized number in [0, 1]
---@field weight number layer weight
---@field travel_pending integer queued travel edges
---@field transition? blendwerk.TransitionStatus

---One character's instance of a graph.
---@class blendwerk.Cursor
local Cursor = {}

---@param param blendwerk.Param
---@param value number|boolean
function Cursor:set(param, value) end

---@param param blendwerk.Param
---@return number|boolean value
function Cursor:get(param) end

---@param trigger blendwerk.Param
function Cursor:fire(trigger) end

---@param trigger blendwerk.Param
function Cursor:reset(trigger) end

---@param state integer|string
---@param layer? blendwerk.Layer
---@return true? ok
---@return string? message no route
function Cursor:travel(state, layer) end

---@param layer blendwerk.Layer
---@param weight number >= 0
---@param fade? number seconds, default 0
function Cursor:layer_weight(layer, weight, fade) end

---@param dt number seconds
---@return blendwerk.Pose pose the cursor's own pose, evaluated
function Cursor:update(dt) end

---@return blendwerk.Pose
function Cursor:pose() end

---@return blendwerk.GraphEvent[] events of the last update
function Cursor:events() end

---Register (or with nil remove) the callback of an event kind, called during update after evaluation:
---"enter" / "exit" as fn(state, layer), "marker" as fn(name, time, state, layer), "event" as fn(event).
---@param kind "enter"|"exit"|"marker"|"event"
---@param fn function?
function Cursor:on(kind, fn) end

---How often the callback of a kind failed, and the first failure's message.
---@param kind "enter"|"exit"|"marker"|"event"
---@return integer failures
---@return string? message
function Cursor:callback_errors(kind) end

---@param layer? blendwerk.Layer
---@return string state
function Cursor:state(layer) end

---@param layer? blendwerk.Layer
---@return blendwerk.LayerStatus
function Cursor:status(layer) end

---@param name string
---@return integer? index 1-based
function Cursor:param_index(name) end

---@return blendwerk.Graph
function Cursor:graph() end

function Cursor:close() end

-- Animator

---One character: state in, update(dt), outputs out.
---@class blendwerk.Animator
local Animator = {}

---@param dt number seconds
---@param state blendwerk.CharacterState
---@param camera? number[] {x, y, z}: the look target when the state has none
---@return true? ok
---@return string[]? problems (the previous state was used; the list is the animator's, refreshed by the next update)
function Animator:update(dt, state, camera) end

---Replace the graph keeping the character's state (hot reload); nil removes it.
---@param graph blendwerk.Graph|nil
---@param fade? number seconds of crossfade from the pose on screen, default 0.2
---@return true? ok
---@return string? message
function Animator:set_graph(graph, fade) end

---The graph layer's state (layer: a name or 1-based index, default 1).
---@param layer? string|integer
---@return blendwerk.AnimatorStatus
function Animator:status(layer) end

---A graph parameter's current value (bools and triggers as booleans).
---@param name string
---@return number|boolean
function Animator:param(name) end

---Travel the graph layer to a state (as Cursor:travel): the shortest route's
---edges fire as their exit-time gates open, conditions ignored.
---@param state string|integer
---@param layer? string|integer
---@return true? ok
---@return string? message "no route from 'a' to 'b' in layer 'l'"
function Animator:travel(state, layer) end

---The last update's events (the animator's list, refreshed in place).
---@return blendwerk.AnimatorEvent[]
function Animator:events() end

---The head chain's parent-local rotations with the aim applied.
---@return { joint: string, r: number[] }[]
function Animator:joint_overrides() end

---@param name string a clip listed in gestures
---@param options? blendwerk.GestureOptions
---@return true? ok
---@return string? message
function Animator:gesture(name, options) end

---@return number[] expression
function Animator:expression() end

---@return { pitch_l: number, yaw_l: number, pitch_r: number, yaw_r: number }
function Animator:gaze() end

---@return { x: number, z: number, yaw: number }
function Animator:root_motion() end

---@return { clip: string, weight: number, rate: number, time: number }[]
function Animator:plays() end

---@return number yaw
---@return number pitch
function Animator:head_aim() end

---What creation warned of without failing (a new list each call).
---@return string[]
function Animator:warnings() end

---The animator's own Pose, refreshed with the output pose at each call.
---@return blendwerk.Pose
function Animator:pose() end

function Animator:close() end

return blendwerk
