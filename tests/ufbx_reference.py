"""Run as a script in a subprocess: prints every node's world matrix (3 rows of 4) and every skin
cluster's geometry_to_bone as ufbx evaluates the FBX file named by argv[1], as JSON
{"nodes": {name: rows}, "skins": [[rows of each cluster]], "frames": [nodes at each
time given after the file, in seconds, and under "\x00weights" every blend channel's
keyframes' effective weights], "channels": [[name, weight, [[target weight,
effective weight, shape name, offsets, vertices] per keyframe]]]}. ufbx can crash the
interpreter when a scene is freed with objects alive, so the process leaves by os._exit.

With --skinned before the file it prints instead {"skinned": [at each time, every mesh's
[node name, whether local, vertex positions] as ufbx skins them]} (a process of its own:
the binding crashes reading nodes of a scene evaluated after a skinned one is read)."""
import json
import os
import sys

import ufbx


def skinned(path: str, times) -> None:
    scene = ufbx.load_file(path)
    out = []
    keep = []
    for t in times:
        ev = ufbx.evaluate_scene(scene, scene.anim, t, evaluate_skinning=True)
        keep.append(ev)
        at = []
        meshes = ev.meshes
        for j in range(len(meshes)):
            mesh = meshes[j]
            if len(mesh.instances) == 0:
                continue
            v = mesh.skinned_position.values
            at.append([mesh.instances[0].name, mesh.skinned_is_local,
                       [[v[i].x, v[i].y, v[i].z] for i in range(len(v))]])
        out.append(at)
    sys.stdout.write(json.dumps({"skinned": out}) + "\n")
    sys.stdout.flush()
    os._exit(0)


def main() -> None:
    if sys.argv[1] == "--skinned":
        skinned(sys.argv[2], [float(x) for x in sys.argv[3:]])
    scene = ufbx.load_file(sys.argv[1])
    out = {}
    nodes = scene.nodes
    for i in range(len(nodes)):
        node = nodes[i]
        if node.is_root:
            continue
        m = node.node_to_world
        cols = [m.c0, m.c1, m.c2, m.c3]
        out[node.name] = [[c.x for c in cols], [c.y for c in cols], [c.z for c in cols]]
    skins = []
    deformers = scene.skin_deformers
    for i in range(len(deformers)):
        clusters = deformers[i].clusters
        rows = []
        for j in range(len(clusters)):
            m = clusters[j].geometry_to_bone
            cols = [m.c0, m.c1, m.c2, m.c3]
            rows.append([[c.x for c in cols], [c.y for c in cols], [c.z for c in cols]])
        skins.append(rows)
    channels = []
    chans = scene.blend_channels
    for j in range(len(chans)):
        ch = chans[j]
        keys = ch.keyframes
        shapes = []
        for k in range(len(keys)):
            kf = keys[k]
            sh = kf.shape
            v, iv = sh.position_offsets, sh.offset_vertices
            shapes.append([kf.target_weight, kf.effective_weight, sh.name,
                           [[v[i].x, v[i].y, v[i].z] for i in range(len(v))],
                           [int(iv[i]) for i in range(len(iv))]])
        channels.append([ch.name, ch.weight, shapes])
    frames = []
    keep = []                      # evaluated scenes stay alive until the process exits
    for t in (float(x) for x in sys.argv[2:]):
        ev = ufbx.evaluate_scene(scene, scene.anim, t)
        keep.append(ev)
        at = {}
        enodes = ev.nodes
        for i in range(len(enodes)):
            node = enodes[i]
            if node.is_root:
                continue
            m = node.node_to_world
            cols = [m.c0, m.c1, m.c2, m.c3]
            at[node.name] = [[c.x for c in cols], [c.y for c in cols], [c.z for c in cols]]
        weights = []
        echans = ev.blend_channels
        for j in range(len(echans)):
            keys = echans[j].keyframes
            weights.append([keys[k].effective_weight for k in range(len(keys))])
        at["\x00weights"] = weights
        frames.append(at)
    out = {"nodes": out, "skins": skins, "frames": frames, "channels": channels}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
