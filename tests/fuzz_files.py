"""Files that open, then used: mutate a good file of each kind (bit flips, and binary32 and
binary64 values a file should never make trouble with written over its payload), stamp
the identity again so the mutation reaches the deep checks, open it, and when it opens use
it through every call of its kind, warnings as errors. The only outcomes allowed are
results and ManiErrors.

    python tests/fuzz_files.py [--kind KIND ...] [--seconds N] [--seed S]

runs the campaign for as long as asked (the tests run a few thousand inputs a kind); a
finding prints the kind, the seed, the mutation and the traceback, and exits 1."""
from __future__ import annotations

import argparse
import struct
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import runtime as rt  # noqa: E402
from runtime import capi  # noqa: E402
from runtime.core import container  # noqa: E402

from hostile_world import World  # noqa: E402
from runtime.matching import Trajectory  # noqa: E402
from runtime.learned import LearnedOutput  # noqa: E402

F32 = [3.4e38, -3.4e38, 1.4e-45, -1.4e-45, 1e-38, 1e38, float("inf"), -float("inf"),
       float("nan"), -0.0, 0.0, 1.0, -1.0, 65504.0, 2.0 ** 64]
U32 = [0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 1, 2, 255, 1024, 65535]
F64 = [0x7FF0000000000001, 0x7FF8000000000000, 0x7FEFFFFFFFFFFFFF, 0x0000000000000001,
       0xFFF0000000000000, 0x47EFFFFFE0000000, 0x4415AF1D78B58C40]


def reseal(data: bytearray) -> bytes:
    """The container's identity stamped again over the (mutated) contents."""
    if len(data) >= 32 and data[:4] == container.MAGIC:
        kind, version, minor = struct.unpack_from("<HHH", data, 4)
        seed = kind | version << 16 | minor << 32
        struct.pack_into("<Q", data, 16, rt.hash64(seed, bytes(data[32:])))
    return bytes(data)


def payload_start(good: bytes) -> int:
    count = struct.unpack_from("<H", good, 10)[0]
    return min(32 + 24 * count, len(good))


def mutate(good: bytes, rng) -> tuple[bytes, str]:
    data = bytearray(good)
    start = payload_start(good)
    span = len(data) - start
    what = []
    for _ in range(int(rng.integers(1, 4))):
        choice = int(rng.integers(4))
        if choice == 0 or span < 8:
            at = int(rng.integers(len(data)))
            bit = int(rng.integers(8))
            data[at] ^= 1 << bit
            what.append(f"flip {at}.{bit}")
        elif choice == 1:
            at = start + 4 * int(rng.integers(span // 4))
            value = F32[int(rng.integers(len(F32)))]
            struct.pack_into("<f", data, at, value)
            what.append(f"f32 {value} at {at}")
        elif choice == 2:
            at = start + 4 * int(rng.integers(span // 4))
            value = U32[int(rng.integers(len(U32)))]
            struct.pack_into("<I", data, at, value)
            what.append(f"u32 {value:#x} at {at}")
        else:
            at = start + 8 * int(rng.integers(span // 8))
            value = F64[int(rng.integers(len(F64)))]
            struct.pack_into("<Q", data, at, value)
            what.append(f"u64 {value:#x} at {at}")
    return reseal(data), ", ".join(what)


# ---- each kind: good bytes, the open, and every use --------------------------------------
def _all(calls):
    for call in calls:
        try:
            call()
        except rt.ManiError:
            pass


def use_skeleton(w: World, sk):
    n = capi.maniSkeleton_GetBoneCount(sk)
    pose = capi.maniInitPose(sk)
    _all([lambda: capi.maniPose_ComputeModel(pose, sk)]
         + [lambda b=b: capi.maniSkeleton_GetRest(sk, b) for b in range(n)]
         + [lambda b=b: capi.maniPose_GetModelTransform(pose, b) for b in range(n)]
         + [lambda b=b: capi.maniSkeleton_GetBoneName(sk, b) for b in range(n)]
         + [lambda: capi.maniSkeleton_BuildMask(sk, [], 0.5),
            lambda: capi.maniSkeleton_BlendPoses(sk, [rt.BlendLayer(capi.maniInitPose(sk), 0.5)],
                                                 0.1, capi.maniInitPose(sk))])


def use_clip(w: World, clip):
    sk, pose = w.skeleton, w.pose()
    times = [0.0, 0.3, 1e30, -1e30, 0.999999]
    calls = [lambda: capi.maniClip_GetDuration(clip), lambda: capi.maniClip_GetSampleRate(clip)]
    for t in times:
        calls += [lambda t=t: capi.maniClip_Sample(clip, sk, t, pose),
                  lambda t=t: capi.maniClip_SampleFloats(clip, t),
                  lambda t=t: capi.maniClip_GetDiscreteValue(clip, 0, t),
                  lambda t=t: capi.maniClip_GetEventRange(clip, t, t + 0.5),
                  lambda t=t: capi.maniClip_GetRootMotion(clip, t, 0.25),
                  lambda t=t: capi.maniClip_RestoreRootMotion(clip, sk, t, pose),
                  lambda t=t: capi.maniClipCursor_Sample(w.cursor(), clip, sk, t, pose),
                  lambda t=t: capi.maniClipCursor_SampleFloats(w.cursor(), clip, t),
                  lambda t=t: capi.maniClip_SampleBones(clip, sk, t, [0, 1], pose)]
    calls += [lambda: clip.sample_batch(sk, times, rt.PoseBatch(sk, len(times))),
              lambda: clip.sample_floats_batch(times), lambda: clip.decoded(sk)]
    calls += [lambda i=i: capi.maniClip_GetEvent(clip, i) for i in range(3)]
    calls += [lambda i=i: capi.maniClip_GetMarker(clip, i) for i in range(3)]
    calls += [lambda: capi.maniPose_ComputeModel(pose, sk)]
    _all(calls)


def use_skin(w: World, skin):
    n = capi.maniSkin_GetJointCount(skin)
    _all([lambda j=j: capi.maniSkin_GetInverseBind(skin, j) for j in range(n)]
         + [lambda: capi.maniConvertPaletteToDualQuaternions(
             capi.maniPose_ComputePalette(w.model_pose(), w.skeleton, skin))])


def use_influences(w: World, infl):
    def skin_all():
        job = w.skin_job(infl)
        for method in (capi.maniSkinLinear, capi.maniSkinDualQuaternion, capi.maniSkinBlended,
                       capi.maniSkinCenters):
            try:
                method(job)
            except rt.ManiError:
                pass
    _all([skin_all] + [lambda v=v: capi.maniInfluences_GetInfluence(infl, v, 0) for v in range(6)]
         + [lambda v=v: capi.maniInfluences_GetCenter(infl, v) for v in range(6)])


def use_morph(w: World, targets):
    def apply():
        weights = capi.maniMorphTargets_ComputeTargetWeights(targets, [0.5])
        out = w.positions.copy()
        from runtime.deform.morph import MorphJob, MorphSemantic, MorphStream
        capi.maniApplyMorphTargets(MorphJob(targets, weights, [
            MorphStream(MorphSemantic.position, 0, w.positions, out)]))
    n = capi.maniMorphTargets_GetTargetCount(targets)
    _all([apply] + [lambda t=t: capi.maniMorphTargets_GetTargetFullWeight(targets, t)
                    for t in range(n)]
         + [lambda x=x: capi.maniMorphTargets_ComputeTargetWeights(targets, [x])
            for x in (-3.0, -1.0, 0.0, 1.0, 3e38)])


def use_graph(w: World, graph):
    def run():
        binding = capi.maniBindGraph(graph, w.assets)[0]
        inst = capi.maniInitGraphInstance(binding)
        scratch = bytearray(capi.maniGraphBinding_GetScratchSize(binding))
        for _ in range(3):
            capi.maniGraphInstance_Update(inst, 0.1)
            capi.maniGraphInstance_Evaluate(inst, scratch, w.pose())
    _all([run])


def use_state(w: World, data):
    def run():
        inst = capi.maniInitGraphInstance(w.binding)
        capi.maniGraphInstance_Restore(inst, data)
        capi.maniGraphInstance_Update(inst, 0.1)
        capi.maniGraphInstance_Evaluate(inst, w.scratch(), w.pose())
    _all([run])


def use_mirror(w: World, mirror):
    n = mirror.bone_count
    _all([lambda b=b: capi.maniMirrorMap_GetPartner(mirror, b) for b in range(n + 1)]
         + [lambda b=b: capi.maniMirrorMap_GetBoneFlags(mirror, b) for b in range(n + 1)]
         + [lambda name=name: capi.maniMirrorMap_MirrorName(mirror, name)
            for name in ("smile", "frown", "step_l", "step_r", "x")]
         + [lambda h=h: capi.maniMirrorMap_MirrorNameHash(mirror, h) for h in (0, 1, 2 ** 64 - 1)]
         + [lambda: capi.maniMirrorMap_MirrorPose(mirror, w.skeleton, w.pose(), w.pose()),
            lambda: capi.maniMirrorMap_MirrorRootMotion(mirror, [1, 2, 3, 0, 0, 0, 1])])


def use_retarget(w: World, retarget_map):
    def clip():
        b = rt.Builder()
        capi.maniBuildRetargetedClip(b, rt.RetargetClipSource(retarget_map, w.skeleton,
                                                              w.retarget_target, w.clip))
        rt.Clip.open(capi.maniBuilder_CopyBuilt(b))
    _all([lambda: capi.maniRetargetMap_RetargetPose(retarget_map, w.skeleton, w.pose(),
                                                    w.retarget_target, w.target_pose()),
          lambda: capi.maniRetargetMap_RetargetRootMotion(retarget_map, [1.0, -2.0, 3.0]),
          lambda: capi.maniRetargetMap_GetScratchSize(retarget_map), clip])


def use_spring_set(w: World, spring_set):
    def run():
        state = capi.maniInitSpringState(spring_set, w.skeleton)
        pose = w.pose()
        for k in range(4):
            capi.maniSpringState_Step(state, pose, [0.2 * k, 0, 0, 0, 0, 0, 1, 1, 1, 1],
                                      [0, 0, 1], 0.03)
            capi.maniSpringState_Apply(state, pose)
        capi.maniSpringState_Restore(capi.maniInitSpringState(spring_set, w.skeleton),
                                     capi.maniSpringState_Save(state))
    n = capi.maniSpringSet_GetSpringCount(spring_set)
    _all([run, lambda: capi.maniSpringSet_GetStepRate(spring_set)]
         + [lambda s=s: capi.maniSpringSet_GetSpringName(spring_set, s) for s in range(n + 1)])


def use_spring_state(w: World, data):
    def run():
        state = w.spring_state()
        capi.maniSpringState_Restore(state, data)
        pose = w.pose()
        capi.maniSpringState_Step(state, pose, None, None, 0.05)
        capi.maniSpringState_Apply(state, pose)
        capi.maniPose_ComputeModel(pose, w.skeleton)
    _all([run])


def use_ragdoll(w: World, ragdoll):
    placement = [0.2, 0, 0, 0, 0.6, 0, 0.8, 1, 1, 1]
    n = capi.maniRagdoll_GetBodyCount(ragdoll)

    def run():
        bodies = capi.maniRagdoll_ComputeBodiesFromPose(ragdoll, w.model_pose(), placement,
                                                        w.model_pose(),
                                                        [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], 0.1)[0]
        capi.maniRagdoll_ComputeJointTargets(ragdoll, bodies)
        capi.maniRagdoll_ComputePoseFromBodies(ragdoll, w.skeleton, bodies, placement, w.pose(),
                                               w.pose())
        capi.maniRagdoll_ComputeGetUpPlacement(ragdoll, bodies, rt.RagdollGround())
    _all([run, lambda: capi.maniRagdoll_GetIdentity(ragdoll)]
         + [lambda b=b: capi.maniRagdoll_GetBody(ragdoll, b) for b in range(n + 1)])
def use_motion_database(w: World, database):
    def run():
        query = w.match_query()
        query.picks, query.continuing_frame = [], capi.MANI_NO_FRAME
        if query.features.size == database.feature_count:
            capi.maniMotionDatabase_Search(database, query)
        capi.maniMotionDatabase_ComputeTrajectoryFeatures(database, Trajectory(), Trajectory())
    frames, channels = database.frame_count, database.channel_count
    _all([run, lambda: capi.maniMotionDatabase_GetNormalization(database),
          lambda: capi.maniMotionDatabase_GetClipIdentity(database, 0)]
         + [lambda c=c: capi.maniMotionDatabase_GetChannel(database, c) for c in range(channels + 1)]
         + [lambda c=c: capi.maniMotionDatabase_GetChannelName(database, c) for c in range(channels + 1)]
         + [lambda e=e: capi.maniMotionDatabase_GetEntry(database, e) for e in range(database.entry_count + 1)]
         + [lambda f=f: capi.maniMotionDatabase_GetFrame(database, f) for f in (0, frames - 1, frames)]
         + [lambda f=f: capi.maniMotionDatabase_GetFeatures(database, f, np.zeros(256, np.float32), 256)
            for f in (0, frames - 1, frames)])


def use_learned_model(w: World, model):
    scratch = np.zeros(model.scratch_size // 4 + 1, np.float64)
    size = model.scratch_size

    def run():
        state = np.zeros(64, np.float32)
        n = capi.maniLearnedModel_Project(model, 0, np.full(model.feature_count, 0.5, np.float32),
                                          state, 64, scratch, size)
        capi.maniLearnedModel_Step(model, state[:n], scratch, size)
        pose = rt.Pose(w.skeleton) if model.bone_count == w.skeleton.bone_count else None
        if pose is not None:
            pose.set_rest(w.skeleton)
            out = LearnedOutput(pose, np.zeros(6, np.float32), np.zeros(64, np.float32),
                                np.zeros(64, np.float32))
            capi.maniLearnedModel_Decompress(model, state[:n], out, scratch, size)
    _all([run, lambda: capi.maniLearnedModel_GetNormalization(model)]
         + [lambda c=c: capi.maniLearnedModel_GetChannel(model, c) for c in range(model.channel_count + 1)]
         + [lambda p=p: capi.maniLearnedModel_GetProjector(model, p) for p in range(model.projector_count + 1)]
         + [lambda t=t: capi.maniLearnedModel_GetFloatTrackName(model, t) for t in range(model.float_track_count + 1)]
         + [lambda e=e: capi.maniLearnedModel_GetEventName(model, e) for e in range(model.event_count + 1)])


KINDS = {
    "skeleton": (lambda w: _bytes(w, capi.maniBuildSkeleton, w.skeleton_source),
                 capi.maniOpenSkeleton, use_skeleton),
    "clip": (lambda w: _bytes(w, capi.maniBuildClip, w.clip_source), capi.maniOpenClip, use_clip),
    "compressed_clip": (lambda w: bytes(w.compressed_clip.data), capi.maniOpenClip, use_clip),
    "skin": (lambda w: _bytes(w, capi.maniBuildSkin, w.skin_source), capi.maniOpenSkin, use_skin),
    "influences": (lambda w: _bytes(w, capi.maniBuildCenters, w.center_source),
                   capi.maniOpenInfluences, use_influences),
    "morph": (lambda w: _bytes(w, capi.maniBuildMorphTargets, w.morph_source),
              capi.maniOpenMorphTargets, use_morph),
    "graph": (lambda w: _bytes(w, capi.maniBuildGraph, w.graph_source), capi.maniOpenGraph,
              use_graph),
    "state": (lambda w: w.saved, lambda data: data, use_state),
    "mirror": (lambda w: _bytes(w, capi.maniBuildMirrorMap, w.mirror_source),
               capi.maniOpenMirrorMap, use_mirror),
    "retarget": (lambda w: _bytes(w, capi.maniBuildRetargetMap, w.retarget_source),
                 capi.maniOpenRetargetMap, use_retarget),
    "spring": (lambda w: _bytes(w, capi.maniBuildSpringSet, w.spring_source),
               capi.maniOpenSpringSet, use_spring_set),
    "spring_state": (lambda w: w.spring_saved, lambda data: data, use_spring_state),
    "ragdoll": (lambda w: _bytes(w, capi.maniBuildRagdoll, w.ragdoll_source),
                capi.maniOpenRagdoll, use_ragdoll),
    "motion_database": (lambda w: bytes(w.match_bytes), capi.maniOpenMotionDatabase,
                        use_motion_database),
    "learned_model": (lambda w: bytes(w.learned_bytes), capi.maniOpenLearnedModel,
                      use_learned_model),
}


def _built(w, fn, source):
    b = rt.Builder()
    fn(b, source)
    return b


def _bytes(w, fn, source) -> bytes:
    return bytes(capi.maniBuilder_CopyBuilt(_built(w, fn, source)))


def campaign(kind: str, trials: int | None = None, seconds: float | None = None, seed: int = 0):
    """Runs mutations of one kind; returns (inputs tried, files that opened, findings)."""
    w = World()
    make, opener, use = KINDS[kind]
    good = make(w)
    rng = np.random.default_rng(seed)
    opened, findings, tried = 0, [], 0
    end = time.monotonic() + seconds if seconds else None
    while (trials is None or tried < trials) and (end is None or time.monotonic() < end):
        data, what = mutate(good, rng)
        tried += 1
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                thing = opener(data)
            except rt.ManiError:
                continue
            opened += 1
            try:
                use(w, thing)
            except Exception:           # noqa: BLE001 - what escapes is the finding
                findings.append(f"{kind} [{what}]:\n{traceback.format_exc(limit=4)}")
    return tried, opened, findings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", action="append", choices=sorted(KINDS))
    parser.add_argument("--seconds", type=float, default=60.0, help="per kind (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args(argv)
    bad = 0
    for kind in a.kind or sorted(KINDS):
        tried, opened, findings = campaign(kind, seconds=a.seconds, seed=a.seed)
        print(f"{kind}: {tried} inputs, {opened} opened, {len(findings)} findings", flush=True)
        for f in findings[:5]:
            print(f)
        bad += bool(findings)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
