-- character.lua - the full character of blendwerk-character-bench
-- (bench/character_bench.c), a graph file read by the one graph reader
-- (bindings/lua_graph.c) as a user's would be:
--   base:   idle and a 2D directional blend space of 5 clips (idle + forward,
--           back, left, right, synced by their foot markers), crossfading on
--           the planar speed;
--   upper:  an override layer masked to the chest and everything above it,
--           crossfading between two clips on the bool `carry`;
--   breath: an additive layer.
-- With the global BENCH_PREDICATES true every condition is a Lua function
-- (the predicate variant), otherwise the same tests as strings (compiled).
local lua_conditions = BENCH_PREDICATES

local function cond(text, fn)
  if lua_conditions then return fn end
  return text
end

return {
  params = { vx = 0, vz = 0, speed = 0, carry = false },
  masks = { upper = { { "j003", 1 } } },
  layers = {
    { name = "base", entry = "idle",
      states = {
        idle = { clip = "idle", sync = "feet" },
        move = { blend = { kind = "directional", params = { "vx", "vz" }, children = {
                   { at = { 0, 0 }, clip = "idle" },
                   { at = { 0, 1.5 }, clip = "fwd" },
                   { at = { 0, -1.2 }, clip = "back" },
                   { at = { -1.2, 0 }, clip = "left" },
                   { at = { 1.2, 0 }, clip = "right" } } },
                 sync = "feet" },
      },
      transitions = {
        { from = "idle", to = "move", duration = 0.25,
          when = { cond("speed > 0.3", function(p) return p.speed > 0.3 end) } },
        { from = "move", to = "idle", duration = 0.25,
          when = { cond("speed < 0.2", function(p) return p.speed < 0.2 end) } },
      },
    },
    { name = "upper", entry = "wave", mask = "upper", weight = 0.8,
      states = { wave = { clip = "wave" }, carry = { clip = "carry" } },
      transitions = {
        { from = "wave", to = "carry", duration = 0.3,
          when = { cond("carry", function(p) return p.carry end) } },
        { from = "carry", to = "wave", duration = 0.3,
          when = { cond("not carry", function(p) return not p.carry end) } },
      },
    },
    { name = "breath", entry = "breathe", mode = "additive", weight = 0.5,
      states = { breathe = { clip = "breathe" } },
    },
  },
}
