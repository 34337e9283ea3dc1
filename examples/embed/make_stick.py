#!/usr/bin/env python3
"""make_stick.py - writes stick.gltf, the embedding example's own asset.

A three-joint stick figure (hips > spine > head, Y up, facing +Z) and two
looping clips, 1 s each, keyed at 0, 0.5 and 1 s with LINEAR samplers:
  walk: the hips move 1 m forward (+Z) and bob 5 cm;
  turn: the hips turn 90 degrees about +Y.
The buffer is embedded as a base64 data URI, so the file stands alone.
Run it again after changing the numbers: python3 make_stick.py
"""
import base64, json, math, struct

times = [0.0, 0.5, 1.0]
walk_t = [(0, 1.0, 0), (0, 1.05, 0.5), (0, 1.0, 1.0)]
half = [math.sin(a / 2) for a in (0, math.pi / 4, math.pi / 2)]
turn_r = [(0, s, 0, math.sqrt(1 - s * s)) for s in half]

blob = b""
views, accessors = [], []
def add(values, kind, count, lo=None, hi=None):
    global blob
    data = struct.pack("<%df" % len(values), *values)
    views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)})
    acc = {"bufferView": len(views) - 1, "componentType": 5126, "count": count, "type": kind}
    if lo is not None:
        acc["min"], acc["max"] = lo, hi
    accessors.append(acc)
    blob += data
    return len(accessors) - 1

t_in = add(times, "SCALAR", 3, [0.0], [1.0])
walk_out = add([c for v in walk_t for c in v], "VEC3", 3)
turn_out = add([c for v in turn_r for c in v], "VEC4", 3)

def clip(name, output, path):
    return {"name": name,
            "samplers": [{"input": t_in, "output": output, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": path}}]}

gltf = {
    "asset": {"version": "2.0", "generator": "blendwerk examples/embed/make_stick.py"},
    "scene": 0,
    "scenes": [{"nodes": [0]}],
    "nodes": [{"name": "hips", "translation": [0, 1, 0], "children": [1]},
              {"name": "spine", "translation": [0, 0.3, 0], "children": [2]},
              {"name": "head", "translation": [0, 0.3, 0]}],
    "animations": [clip("walk", walk_out, "translation"), clip("turn", turn_out, "rotation")],
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
    "bufferViews": views,
    "accessors": accessors,
}
with open("stick.gltf", "w") as f:
    json.dump(gltf, f, indent=1)
    f.write("\n")
