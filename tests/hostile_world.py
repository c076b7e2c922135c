"""One of everything the C names take, built in code, and a valid call of every function in
runtime.capi.__all__ (no tests here): the hostile-argument test swaps one argument at a time."""
from functools import cached_property

import numpy as np

import runtime as rt
from runtime import capi
from runtime.clip.build import ChannelPath, ChannelSource, ClipSource, DiscreteTrackSource, FloatTrackSource
from runtime.clip.clip import ClipEvent, LoopPolicy
from runtime.clip.rootmotion import RootMotionSource
from runtime.deform.influences import CenterSource, InfluenceSource
from runtime.deform.morph import MorphJob, MorphSemantic, MorphStream
from runtime.deform.morph_build import MorphAttribute, MorphChannelSource, MorphSource, MorphTargetSource
from runtime.deform.skin import SkinSource
from runtime.deform.skinning import SkinJob, SkinStream, StreamKind
from runtime.graph.binding import GraphAssets
from runtime.graph.json.read import GraphNamedAssets
from runtime.mapping import MirrorClipSource, MirrorMap, MirrorMapSource, MirrorRule, RulePlace
from runtime.mapping import (RetargetChain, RetargetClipSource, RetargetMap, RetargetMapSource,
                             RetargetPair, RetargetPelvis, RetargetTranslation)
from runtime.ik.body import BodyBone, BodyEffector, BodyLimit, BodyLimitKind, BodySolve
from runtime.graph.source import ClipNode, ClipSlotSource, GraphSource, ParameterSource, ParameterType
from runtime.ik import AimSolve, ChainSolve, ConeLimit, HingeLimit, TwistLimit, TwoBoneSolve
from runtime.physics import (ColliderShape, ColliderSource, JointSource, LimitSource,
                             SpringLimitKind, SpringSetSource, SpringSource)
from runtime.physics import BodySource, RagdollGround, RagdollShape, RagdollSource
from runtime.pose.blend import BlendLayer, MaskChain
from runtime.matching import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag, MatchQuery,
                              MotionDatabaseSource, Trajectory, TrajectoryGoal)
from runtime.samples.humanoid import humanoid_source
from runtime.importers.common import default_import_clip_options

BONES = 12
VERTICES = 6


def _built(fn, source) -> bytes:
    b = rt.Builder()
    fn(b, source)
    return bytes(capi.maniBuilder_CopyBuilt(b))


class World:
    """Read-only assets are made once; each call gets fresh outputs (poses, builders,
    instances, cursors) so no call sees another's leftovers."""

    @cached_property
    def skeleton_source(self):
        return humanoid_source(BONES)

    @cached_property
    def skeleton(self):
        return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), self.skeleton_source))

    def pose(self):
        p = rt.Pose(self.skeleton)
        p.set_rest(self.skeleton)
        return p

    def model_pose(self):
        p = self.pose()
        p.compute_model(self.skeleton)
        return p

    @cached_property
    def mirror_source(self):
        return MirrorMapSource(self.skeleton, pairs=[(6, 7)],
                               rules=[MirrorRule("_l", "_r", RulePlace.suffix),
                                      MirrorRule("_r", "_l", RulePlace.suffix)],
                               name_pairs=[("smile", "frown")], names=["step_l", "step_r"])

    @cached_property
    def mirror_map(self):
        return MirrorMap(_built(capi.maniBuildMirrorMap, self.mirror_source))

    @cached_property
    def plain_clip(self):
        """A clip without float or discrete tracks (what a mirrored clip takes for now)."""
        source = self.clip_source
        return rt.Clip.open(_built(capi.maniBuildClip, ClipSource(
            source.skeleton, source.channels, events=source.events, markers=source.markers,
            root_motion=source.root_motion)))

    @cached_property
    def mirror_text(self):
        b = rt.Builder()
        capi.maniWriteMirrorMapJson(b, self.mirror_source)
        return bytes(capi.maniBuilder_CopyBuilt(b))

    @cached_property
    def clip_source(self):
        sk = self.skeleton
        times = np.array([0.0, 0.5, 1.0])
        rot = np.tile(sk.rests[1, 3:7].astype(np.float64), (3, 1))
        path = np.outer(times, [1.0, 0.0, 0.0]) + sk.rests[0, 0:3]
        return ClipSource(sk, [ChannelSource(1, ChannelPath.rotation, times, rot),
                               ChannelSource(0, ChannelPath.translation, times, path)],
                          [FloatTrackSource("smile", times, [0.0, 1.0, 0.5])],
                          [DiscreteTrackSource("stance", [0.0, 0.5], [1, 2])],
                          [ClipEvent("step", 0.25)], [ClipEvent("left", 0.0)],
                          loop=LoopPolicy.repeat, root_motion=RootMotionSource(0))

    @cached_property
    def clip(self):
        return rt.Clip(_built(capi.maniBuildClip, self.clip_source))

    @cached_property
    def compressed_clip(self):
        b = rt.Builder()
        capi.maniCompressClip(b, self.clip, self.skeleton, capi.maniDefaultCompressOptions())
        return rt.Clip(capi.maniBuilder_CopyBuilt(b))

    def cursor(self):
        return capi.maniInitClipCursor(None, capi.maniClip_GetCursorSize(self.clip))

    @cached_property
    def skin_source(self):
        return SkinSource(self.skeleton, list(range(4)))

    @cached_property
    def skin(self):
        return capi.maniOpenSkin(_built(capi.maniBuildSkin, self.skin_source))

    @cached_property
    def influence_source(self):
        joints = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]])
        weights = np.full((VERTICES, 2), 0.5)
        return InfluenceSource.from_dense(self.skin, joints, weights)

    @cached_property
    def influences(self):
        return capi.maniOpenInfluences(_built(capi.maniBuildInfluences, self.influence_source))

    @cached_property
    def positions(self):
        return np.random.default_rng(1).normal(size=(VERTICES, 3)).astype(np.float32)

    @cached_property
    def center_source(self):
        return CenterSource(self.influences, self.positions, np.array([[0, 1, 2], [3, 4, 5]]))

    @cached_property
    def centered(self):
        return capi.maniOpenInfluences(_built(capi.maniBuildCenters, self.center_source))

    def palette(self):
        return capi.maniPose_ComputePalette(self.model_pose(), self.skeleton, self.skin)

    def dual_quaternions(self):
        return capi.maniConvertPaletteToDualQuaternions(self.palette())

    def skin_job(self, influences=None):
        out = np.zeros_like(self.positions)
        return SkinJob(influences or self.influences, self.palette(), self.dual_quaternions(),
                       [SkinStream(StreamKind.position, self.positions, out)])

    @cached_property
    def morph_source(self):
        rng = np.random.default_rng(2)
        return MorphSource(VERTICES, [MorphAttribute(MorphSemantic.position)], [
            MorphChannelSource("smile", [MorphTargetSource(1.0, [rng.normal(size=(VERTICES, 3))])])])

    @cached_property
    def targets(self):
        return capi.maniOpenMorphTargets(_built(capi.maniBuildMorphTargets, self.morph_source))

    def morph_job(self):
        weights = capi.maniMorphTargets_ComputeTargetWeights(self.targets, [0.5])
        out = self.positions.copy()
        return MorphJob(self.targets, weights, [MorphStream(MorphSemantic.position, 0,
                                                            self.positions, out)])

    @cached_property
    def graph_source(self):
        return GraphSource(self.skeleton,
                           parameters=[ParameterSource("speed", ParameterType.float_, 1.0),
                                       ParameterSource("look", ParameterType.pose)],
                           clips=[ClipSlotSource("walk", self.clip)],
                           nodes=[ClipNode(0)], output=0)

    @cached_property
    def graph(self):
        return capi.maniOpenGraph(_built(capi.maniBuildGraph, self.graph_source))

    @cached_property
    def assets(self):
        return GraphAssets(self.skeleton, [self.clip])

    @cached_property
    def named_assets(self):
        return GraphNamedAssets(self.skeleton, [("walk", self.clip)])

    @cached_property
    def graph_text(self):
        b = rt.Builder()
        capi.maniWriteGraphJson(b, self.graph_source)
        return bytes(capi.maniBuilder_CopyBuilt(b))

    @cached_property
    def binding(self):
        return capi.maniBindGraph(self.graph, self.assets)[0]

    def instance(self):
        inst = capi.maniInitGraphInstance(self.binding)
        capi.maniGraphInstance_Update(inst, 1 / 60)
        return inst

    def scratch(self):
        return bytearray(capi.maniGraphBinding_GetScratchSize(self.binding))

    @cached_property
    def plan(self):
        return capi.maniPlanGraphSubset(self.binding, [0, 1])

    # the left arm (arm, forearm, hand) and the spine to the head of the 12-bone humanoid
    two_bone_solve = TwoBoneSolve(7, 9, 11, (0.3, 1.2, 0.2), pole=(0.0, 0.0, -1.0))
    aim_solve = AimSolve([3, 4, 5], (0.0, 1.6, 1.0), forward=(0.0, 0.0, 1.0), pole=(0.0, 1.0, 0.0),
                         cone=1.0)
    chain_solve = ChainSolve(6, 11, (0.3, 1.2, 0.2), [HingeLimit(9, (0.0, 0.0, 1.0), -2.0, 0.0),
                                                      ConeLimit(7, 1.0), TwistLimit(11, -0.5, 0.5)],
                             iterations=8)

    @cached_property
    def body_solve(self):
        """Head and left hand pulled from the hips, the spine's middle stiff, the forearm a
        hinge."""
        sk = self.skeleton
        head, hand = sk.find_bone("head"), sk.find_bone("hand_l")
        return BodySolve(top=0, effectors=[
            BodyEffector(head, (0.05, 1.5, 0.1), rotation_weight=0.5),
            BodyEffector(hand, (0.5, 1.3, 0.2))], bones=[
            BodyBone(sk.find_bone("spine1"), stiffness=0.5),
            BodyBone(sk.find_bone("forearm_l"), limit=BodyLimit(BodyLimitKind.hinge, (0, 0, 1), -2.0, 0.0))],
            iterations=4)

    def body_scratch(self):
        return bytearray(capi.maniSkeleton_GetBodyIkScratchSize(self.skeleton, self.body_solve))

    @cached_property
    def saved(self):
        return bytes(capi.maniGraphInstance_Save(self.instance()))

    @cached_property
    def retarget_target(self):
        """Another humanoid (more bones, other rests) to retarget the 12-bone one onto."""
        return rt.Skeleton.open(rt.build_skeleton(rt.Builder(), humanoid_source(16, seed=3)))

    def target_pose(self):
        return rt.Pose(self.retarget_target)

    @cached_property
    def retarget_source(self):
        """The spine as a chain, an arm paired with a scaled translation and a carried
        scale, the hips by the pelvis rule, the rest by name."""
        sk, tg = self.skeleton, self.retarget_target
        return RetargetMapSource(sk, tg, pairs=[RetargetPair(7, 7, 0.5, RetargetTranslation.scaled, True)],
                                 chains=[RetargetChain(1, 3, 1, 3)],
                                 pelvis=RetargetPelvis(0, 0, absolute=(0, 0.5, 0)), match_names=True)

    @cached_property
    def retarget_map(self):
        return RetargetMap(_built(capi.maniBuildRetargetMap, self.retarget_source))

    @cached_property
    def retarget_text(self):
        b = rt.Builder()
        capi.maniWriteRetargetMapJson(b, self.retarget_source)
        return bytes(capi.maniBuilder_CopyBuilt(b))

    def retarget_scratch(self):
        return bytearray(capi.maniRetargetMap_GetScratchSize(self.retarget_map))

    @cached_property
    def spring_source(self):
        """An arm swinging from the chest (center: spine2) with a cone limit, the neck with a
        hinge; a sphere, a capsule, an inside sphere and a plane."""
        cone = LimitSource(SpringLimitKind.cone, 1.0)
        return SpringSetSource(self.skeleton, [
            SpringSource("arm", [JointSource(7, 0.02, 1.0, 0.3, limit=cone), JointSource(9, 0.02),
                                 JointSource(11)], [0, 1], center=3),
            SpringSource("neck", [JointSource(4, limit=LimitSource(SpringLimitKind.hinge, 0.5)),
                                  JointSource(5)], [1])],
            [ColliderSource(3, ColliderShape.sphere, (0, 0, 0.1), 0.08),
             ColliderSource(1, ColliderShape.capsule, (0, 0, 0), 0.05, (0, 0.2, 0)),
             ColliderSource(0, ColliderShape.inside_sphere, (0, 0.3, 0), 2.0),
             ColliderSource(0, ColliderShape.plane, (0, -1.0, 0), normal=(0, 1, 0))],
            [[0], [1, 2, 3]])

    @cached_property
    def spring_set(self):
        return capi.maniOpenSpringSet(_built(capi.maniBuildSpringSet, self.spring_source))

    def spring_state(self):
        return capi.maniInitSpringState(self.spring_set, self.skeleton)

    def moving_spring_state(self):
        state = self.spring_state()
        for k in range(3):
            capi.maniSpringState_Step(state, self.pose(), [0.1 * k, 0, 0, 0, 0, 0, 1, 1, 1, 1],
                                      [0, 0, 0], 1 / 50)
        return state

    @cached_property
    def spring_saved(self):
        return bytes(capi.maniSpringState_Save(self.moving_spring_state()))

    @cached_property
    def ragdoll_source(self):
        """Six bodies: a box on the hips, capsules up the spine and down the arm, a sphere
        for the head, a box hand; drives on the arm."""
        return RagdollSource(self.skeleton, [
            BodySource("hips", 0, RagdollShape.box, (0.15, 0.1, 0.1), 10.0),
            BodySource("chest", 2, RagdollShape.capsule, (0.1, 0.05, 0), 8.0, (0, 0.1, 0)),
            BodySource("head", 5, RagdollShape.sphere, (0.1, 0, 0), 4.0, (0, 0.08, 0)),
            BodySource("arm", 7, RagdollShape.capsule, (0.04, 0.08, 0), 2.0, (0.12, 0, 0),
                       (0, 0, 0.7071068, 0.7071068), (0, -0.12, 0), twist_min=-1.0,
                       stiffness=50.0, damping=5.0, max_force=100.0),
            BodySource("forearm", 9, RagdollShape.capsule, (0.035, 0.08, 0), 1.5, (0.12, 0, 0),
                       stiffness=30.0, damping=3.0),
            BodySource("hand", 11, RagdollShape.box, (0.04, 0.02, 0.05), 0.5)],
            facing=(0, 0, 1), up=(0, 1, 0))

    @cached_property
    def ragdoll(self):
        return capi.maniOpenRagdoll(_built(capi.maniBuildRagdoll, self.ragdoll_source))

    def ragdoll_bodies(self):
        placement = [0.5, 0, 0.2, 0, 0.2, 0, 0.9797959, 1, 1, 1]
        return capi.maniRagdoll_ComputeBodiesFromPose(self.ragdoll, self.model_pose(), placement,
                                                      self.model_pose(), placement, 1 / 60)[0]

    @cached_property
    def gltf_bytes(self):
        from gltf_make import rig
        return rig().json_bytes()

    def gltf(self):
        """A fresh document: some calls supply, read into or close it."""
        return capi.maniOpenGltf(rt.Builder(), self.gltf_bytes)

    @cached_property
    def read_gltf(self):
        return self.gltf()

    def ragdoll_gltf(self):
        """A fresh document with OMI physics bodies, shapes and joints on its rig."""
        from gltf_make import ragdoll_rig
        return capi.maniOpenGltf(rt.Builder(), ragdoll_rig().json_bytes())

    @cached_property
    def ragdoll_gltf_skeleton(self):
        b = rt.Builder()
        capi.maniBuildGltfSkeleton(b, self.ragdoll_gltf(), 0, capi.maniDefaultGltfOptions())
        return rt.Skeleton.open(capi.maniBuilder_CopyBuilt(b))

    @cached_property
    def gltf_skeleton(self):
        b = rt.Builder()
        capi.maniBuildGltfSkeleton(b, self.read_gltf, 0, capi.maniDefaultGltfOptions())
        return rt.Skeleton.open(capi.maniBuilder_CopyBuilt(b))

    @cached_property
    def gltf_skin(self):
        b = rt.Builder()
        capi.maniBuildGltfSkin(b, self.read_gltf, 0, self.gltf_skeleton,
                               capi.maniDefaultGltfOptions())
        return capi.maniOpenSkin(capi.maniBuilder_CopyBuilt(b))

    @cached_property
    def match_clip(self):
        """A clip whose root curves and turns, with a float track and its mirror partner."""
        sk = self.skeleton
        times = np.linspace(0.0, 1.0, 5)
        yaw = 0.8 * times
        root_t = np.column_stack([np.sin(yaw), np.zeros(5), 2 * times])
        root_q = np.column_stack([np.zeros(5), np.sin(yaw / 2), np.zeros(5), np.cos(yaw / 2)])
        bend = np.column_stack([np.sin(0.3 * np.cos(6 * times)), np.zeros((5, 2)),
                                np.cos(0.3 * np.cos(6 * times))])
        return rt.Clip.open(_built(capi.maniBuildClip, ClipSource(
            sk, [ChannelSource(0, ChannelPath.translation, times, root_t),
                 ChannelSource(0, ChannelPath.rotation, times, root_q),
                 ChannelSource(3, ChannelPath.rotation, times, bend)],
            [FloatTrackSource("smile", times, np.cos(4 * times)),
             FloatTrackSource("frown", times, np.sin(4 * times))],
            root_motion=RootMotionSource(0))))

    @cached_property
    def match_source(self):
        K = MatchChannelKind
        return MotionDatabaseSource(
            self.skeleton, [self.match_clip],
            [MatchEntry(0, 0.0, 1.0, tags=1), MatchEntry(0, 0.0, 1.0, tags=2, flags=MatchEntryFlag.mirrored),
             MatchEntry(0, 0.25, 0.75, tags=1, cost_bias=0.5, flags=MatchEntryFlag.no_jump)],
            [MatchChannel(K.bone_position, 5, (0.0, 0.25)), MatchChannel(K.bone_velocity, 5),
             MatchChannel(K.trajectory_position, 0, (0.2, 0.4)),
             MatchChannel(K.trajectory_facing, 0, (0.4,), 2.0),
             MatchChannel(K.float_track, track="smile", weight=0.5)],
            rate=30.0, mirror_map=self.mirror_map, leaf_size=4)

    @cached_property
    def match_bytes(self):
        return _built(capi.maniBuildMotionDatabase, self.match_source)

    @cached_property
    def database(self):
        return capi.maniOpenMotionDatabase(self.match_bytes)

    @cached_property
    def learned_source(self):
        from learned_fixtures import source
        return source(self)

    @cached_property
    def learned_bytes(self):
        return _built(capi.maniBuildLearnedModel, self.learned_source)

    @cached_property
    def learned_model(self):
        return capi.maniOpenLearnedModel(self.learned_bytes)

    def learned_scratch(self):
        return np.zeros(self.learned_model.scratch_size // 4 + 1, np.float64)

    def learned_state(self):
        return np.full(self.learned_model.state_count, 0.25, np.float32)

    def learned_output(self):
        from runtime.learned import LearnedOutput
        return LearnedOutput(self.pose(), np.zeros(6, np.float32), np.zeros(1, np.float32),
                             np.zeros(1, np.float32))

    @cached_property
    def learned_trainer_source(self):
        from runtime.learned.train import (LearnedTrainerOptions, LearnedTrainerProjector,
                                           LearnedTrainerSource)
        options = LearnedTrainerOptions(latent_count=4, width=8, compressor_layers=1,
                                        decompressor_layers=1, stepper_layers=1,
                                        projector_layers=1, batch=8, stepper_window=3,
                                        decompressor_iterations=3, stepper_iterations=3,
                                        projector_iterations=3)
        return LearnedTrainerSource(self.skeleton, self.database, [self.match_clip],
                                    self.mirror_map, [LearnedTrainerProjector(1, 0)], [2],
                                    ["smile"], ["step"], options)

    def learned_trainer(self):
        return capi.maniCreateLearnedTrainer(capi.maniDefaultLearnedTrainerDef(),
                                             self.learned_trainer_source)

    @cached_property
    def learned_trained(self):
        t = self.learned_trainer()
        capi.maniLearnedTrainer_Train(t, 100)
        return t

    def match_query(self):
        features = capi.maniMotionDatabase_GetFeatures(self.database, 0, np.zeros(64, np.float32), 64)
        raw = np.zeros(features, np.float32)
        offsets, scales = np.zeros(64, np.float32), np.zeros(64, np.float32)
        capi.maniMotionDatabase_GetNormalization(self.database, offsets, scales, 64)
        raw[:] = offsets[:features] + scales[:features] * 0.25
        return MatchQuery(raw, continuing_frame=3, continuing_bias=-0.1, transition_cost=0.2,
                          required_tags=1, end_exclusion=0.1, history_time=0.2, picks=[5, 40])

    @cached_property
    def fbx_bytes(self):
        """A small binary FBX: a limb chain of three models under a null."""
        from fbx_writer import BlendSpec, CurveSpec, ModelSpec, SkinSpec, scene_nodes, write_binary
        models = [ModelSpec("top"),
                  ModelSpec("hip", 0, {"Lcl Translation": (0.0, 1.0, 0.0), "InheritType": 2},
                            "LimbNode"),
                  ModelSpec("knee", 1, {"Lcl Rotation": (10.0, 0.0, 0.0)}, "LimbNode"),
                  ModelSpec("body", 0, {}, "Mesh")]
        eye = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        skin = SkinSpec(3, [0, 0, 0, 0, 1, 0, 0, 2, 0],
                        [(1, [0, 1], [1.0, 0.5], eye, eye), (2, [1, 2], [0.5, 1.0], None, eye)])
        second = 46186158000
        curves = [CurveSpec(2, "Lcl Rotation", 0, [0, second // 2, second], [10.0, 40.0, 10.0])]
        blend = BlendSpec(3, [0, 0, 0, 0, 1, 0, 0, 2, 0],
                          [("open", 25.0, [50.0, 100.0], [("half", [1], [1.0, 0.0, 0.0], None),
                                                          ("full", [2], [0.0, 1.0, 0.0], None)])])
        return write_binary(scene_nodes(models, skin=skin, curves=curves, blend=blend), 7500)

    def new_fbx(self):
        return capi.maniOpenFbx(rt.Builder(), self.fbx_bytes)

    @cached_property
    def fbx(self):
        return self.new_fbx()

    @cached_property
    def fbx_skeleton(self):
        b = rt.Builder()
        capi.maniBuildFbxSkeleton(b, self.fbx, 0, capi.maniDefaultFbxOptions())
        return rt.Skeleton.open(bytes(capi.maniBuilder_CopyBuilt(b)))

    @cached_property
    def fbx_skin(self):
        b = rt.Builder()
        capi.maniBuildFbxSkin(b, self.fbx, 0, self.fbx_skeleton, capi.maniDefaultFbxOptions())
        return rt.Skin(bytes(capi.maniBuilder_CopyBuilt(b)))


def valid_calls(w: World) -> dict:
    """Each listed function's name -> a function making a valid argument tuple."""
    sk, clip, graph = (lambda: w.skeleton), (lambda: w.clip), (lambda: w.graph)
    move = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    gltf_options = capi.maniDefaultGltfOptions()
    one = {
        "maniApplyMorphTargets": lambda: (w.morph_job(),),
        "maniBindGraph": lambda: (w.graph, w.assets),
        "maniBlendRootMotion": lambda: ([move, move], [0.5, 0.5]),
        "maniBuildCenters": lambda: (rt.Builder(), w.center_source),
        "maniBuildClip": lambda: (rt.Builder(), w.clip_source),
        "maniBuildGraph": lambda: (rt.Builder(), w.graph_source),
        "maniBuildGraphJson": lambda: (rt.Builder(), w.graph_text, w.named_assets),
        "maniBuildInfluences": lambda: (rt.Builder(), w.influence_source),
        "maniBuildMorphTargets": lambda: (rt.Builder(), w.morph_source),
        "maniBuildSkeleton": lambda: (rt.Builder(), w.skeleton_source),
        "maniBuildSkin": lambda: (rt.Builder(), w.skin_source),
        "maniBuilder_CopyBuilt": lambda: (_with_skeleton(w),),
        "maniBuilder_CopySkeletonOrder": lambda: (_with_skeleton(w),),
        "maniBuilder_GetMisuse": lambda: (rt.Builder(),),
        "maniBuilder_MeasureClip": lambda: (rt.Builder(), w.clip_source, w.clip),
        "maniClipCursor_Sample": lambda: (w.cursor(), w.clip, w.skeleton, 0.3, w.pose()),
        "maniClipCursor_SampleFloats": lambda: (w.cursor(), w.clip, 0.3),
        "maniClip_GetEventRange": lambda: (w.clip, 0.0, 0.5),
        "maniClip_GetRootMotion": lambda: (w.clip, 0.2, 0.1),
        "maniClip_RestoreRootMotion": lambda: (w.clip, w.skeleton, 0.3, w.pose()),
        "maniClip_Sample": lambda: (w.clip, w.skeleton, 0.3, w.pose()),
        "maniClip_SampleBones": lambda: (w.clip, w.skeleton, 0.3, [0, 1], w.pose()),
        "maniClip_SampleFloats": lambda: (w.clip, 0.3),
        "maniClip_GetDiscreteValue": lambda: (w.clip, 0, 0.3),
        "maniClip_FindDiscreteTrack": lambda: (w.clip, "stance"),
        "maniClip_FindFloatTrack": lambda: (w.clip, "smile"),
        "maniComposeRootMotion": lambda: (move, move),
        "maniConvertPaletteToDualQuaternions": lambda: (w.palette(),),
        "maniConvertPaletteToRows": lambda: (w.palette(),),
        "maniCreateBuilder": lambda: (capi.maniDefaultBuilderDef(),),
        "maniDecomposeAffine": lambda: (np.eye(4, dtype=np.float32)[:3],),
        "maniDestroyBuilder": lambda: (rt.Builder(),),
        "maniGetResultName": lambda: (0,),
        "maniGraphInstance_Evaluate": lambda: (w.instance(), w.scratch(), w.pose()),
        "maniGraphInstance_EvaluateSubset": lambda: (w.instance(), w.plan, w.scratch(), w.pose()),
        "maniGraphInstance_GetParameter": lambda: (w.instance(), 0),
        "maniGraphInstance_GetPose": lambda: (w.instance(), 1, w.pose()),
        "maniGraphInstance_InspectNode": lambda: (w.instance(), 0),
        "maniGraphInstance_Restore": lambda: (w.instance(), w.saved),
        "maniGraphInstance_Save": lambda: (w.instance(),),
        "maniGraphInstance_SetParameter": lambda: (w.instance(), 0, ParameterType.float_, 2.0),
        "maniGraphInstance_SetPose": lambda: (w.instance(), 1, w.pose()),
        "maniGraphInstance_Update": lambda: (w.instance(), 1 / 60),
        "maniGraph_FindParameter": lambda: (w.graph, "speed"),
        "maniGraph_GetNodeInput": lambda: (w.graph, 0, 0),
        "maniHash64": lambda: (7, b"abc"),
        "maniInfluences_GetInfluence": lambda: (w.influences, 0, 0),
        "maniInfluences_IsSkinFit": lambda: (w.influences, w.skin),
        "maniInitGraphInstance": lambda: (w.binding,),
        "maniInitPose": lambda: (w.skeleton,),
        "maniMorphTargets_ComputeTargetWeights": lambda: (w.targets, [0.5]),
        "maniMorphTargets_FindChannel": lambda: (w.targets, "smile"),
        "maniMorphTargets_FindTarget": lambda: (w.targets, "smile"),
        "maniOpenClip": lambda: (_built(capi.maniBuildClip, w.clip_source),),
        "maniOpenGraph": lambda: (_built(capi.maniBuildGraph, w.graph_source),),
        "maniOpenInfluences": lambda: (_built(capi.maniBuildInfluences, w.influence_source),),
        "maniOpenMorphTargets": lambda: (_built(capi.maniBuildMorphTargets, w.morph_source),),
        "maniOpenSkeleton": lambda: (_built(capi.maniBuildSkeleton, w.skeleton_source),),
        "maniOpenSkin": lambda: (_built(capi.maniBuildSkin, w.skin_source),),
        "maniPlanGraphSubset": lambda: (w.binding, [0, 1]),
        "maniPose_SolveTwoBone": lambda: (w.pose(), w.skeleton, w.two_bone_solve),
        "maniPose_SolveAim": lambda: (w.pose(), w.skeleton, w.aim_solve),
        "maniPose_SolveCcd": lambda: (w.pose(), w.skeleton, w.chain_solve),
        "maniPose_SolveFabrik": lambda: (w.pose(), w.skeleton, w.chain_solve),
        "maniPose_SolveBodyXpbd": lambda: (w.pose(), w.skeleton, w.body_solve, w.body_scratch()),
        "maniPose_SolveBodySdls": lambda: (w.pose(), w.skeleton, w.body_solve, w.body_scratch()),
        "maniSkeleton_GetBodyIkScratchSize": lambda: (w.skeleton, w.body_solve),
        "maniPose_AddLayers": lambda: (w.pose(), w.skeleton, [BlendLayer(_difference(w), 0.5)]),
        "maniPose_ComputeModel": lambda: (w.pose(), w.skeleton),
        "maniPose_ComputePalette": lambda: (w.model_pose(), w.skeleton, w.skin),
        "maniPose_GetModel": lambda: (w.model_pose(), 1),
        "maniPose_GetModelTransform": lambda: (w.model_pose(), 1),
        "maniPose_ReadLocals": lambda: (w.pose(), 0, 2),
        "maniPose_ReadModels": lambda: (w.model_pose(), 0, 2),
        "maniPose_SetLocal": lambda: (w.pose(), 1, [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]),
        "maniPose_SetRest": lambda: (w.pose(), w.skeleton),
        "maniPose_WriteLocals": lambda: (w.pose(), 0, [[0, 0, 0, 0, 0, 0, 1, 1, 1, 1]]),
        "maniSkeleton_BlendPoses": lambda: (w.skeleton, [BlendLayer(w.pose(), 1.0)], 0.1, w.pose()),
        "maniSkeleton_BuildMask": lambda: (w.skeleton, [MaskChain(1, 0.5)], 0.0),
        "maniSkeleton_ComputePoseDifference": lambda: (w.skeleton, w.pose(), w.pose(), w.pose()),
        "maniSkeleton_FindBone": lambda: (w.skeleton, w.skeleton.bone_name(1)),
        "maniSkinBlended": lambda: (w.skin_job(),),
        "maniSkinCenters": lambda: (w.skin_job(w.centered),),
        "maniSkinDualQuaternion": lambda: (w.skin_job(),),
        "maniSkinLinear": lambda: (w.skin_job(),),
        "maniWriteGraphJson": lambda: (rt.Builder(), w.graph_source),
        "maniBuildMirrorMap": lambda: (rt.Builder(), w.mirror_source),
        "maniBuildMirrorMapJson": lambda: (rt.Builder(), w.mirror_text, w.skeleton),
        "maniBuildMirroredClip": lambda: (rt.Builder(), MirrorClipSource(w.mirror_map, w.skeleton,
                                                                         w.plain_clip)),
        "maniMirrorMap_MirrorName": lambda: (w.mirror_map, "smile"),
        "maniMirrorMap_MirrorNameHash": lambda: (w.mirror_map, 12345),
        "maniMirrorMap_MirrorPose": lambda: (w.mirror_map, w.skeleton, w.pose(), w.pose()),
        "maniMirrorMap_MirrorRootMotion": lambda: (w.mirror_map, move),
        "maniOpenMirrorMap": lambda: (_built(capi.maniBuildMirrorMap, w.mirror_source),),
        "maniWriteMirrorMapJson": lambda: (rt.Builder(), w.mirror_source),
        "maniBuildRetargetMap": lambda: (rt.Builder(), w.retarget_source),
        "maniWriteRetargetMapJson": lambda: (rt.Builder(), w.retarget_source),
        "maniBuildRetargetMapJson": lambda: (rt.Builder(), w.retarget_text, w.skeleton,
                                             w.retarget_target),
        "maniBuildRetargetedClip": lambda: (rt.Builder(), RetargetClipSource(
            w.retarget_map, w.skeleton, w.retarget_target, w.clip)),
        "maniOpenRetargetMap": lambda: (_built(capi.maniBuildRetargetMap, w.retarget_source),),
        "maniRetargetMap_GetIdentity": lambda: (w.retarget_map,),
        "maniRetargetMap_GetSourceIdentity": lambda: (w.retarget_map,),
        "maniRetargetMap_GetTargetIdentity": lambda: (w.retarget_map,),
        "maniRetargetMap_GetScratchSize": lambda: (w.retarget_map,),
        "maniRetargetMap_RetargetPose": lambda: (w.retarget_map, w.skeleton, w.pose(),
                                                 w.retarget_target, w.target_pose(),
                                                 w.retarget_scratch()),
        "maniRetargetMap_RetargetRootMotion": lambda: (w.retarget_map, [1.0, 2.0, 3.0]),
        "maniGraphSubset_GetBones": lambda: (w.plan,),
        "maniInitClipCursor": lambda: (None, capi.maniClip_GetCursorSize(w.clip)),
        "maniBuildSpringSet": lambda: (rt.Builder(), w.spring_source),
        "maniOpenSpringSet": lambda: (_built(capi.maniBuildSpringSet, w.spring_source),),
        "maniInitSpringState": lambda: (w.spring_set, w.skeleton),
        "maniSpringState_Step": lambda: (w.moving_spring_state(), w.pose(),
                                         [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 0], 1 / 60),
        "maniSpringState_Apply": lambda: (w.moving_spring_state(), w.pose()),
        "maniSpringState_Reset": lambda: (w.moving_spring_state(),),
        "maniSpringState_Save": lambda: (w.moving_spring_state(),),
        "maniSpringState_Restore": lambda: (w.spring_state(), w.spring_saved),
        "maniBuildRagdoll": lambda: (rt.Builder(), w.ragdoll_source),
        "maniOpenRagdoll": lambda: (_built(capi.maniBuildRagdoll, w.ragdoll_source),),
        "maniRagdoll_GetBody": lambda: (w.ragdoll, 1),
        "maniRagdoll_ComputeBodiesFromPose": lambda: (
            w.ragdoll, w.model_pose(), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1], w.model_pose(),
            [0.1, 0, 0, 0, 0, 0, 1, 1, 1, 1], 1 / 60, np.zeros((8, 13), np.float32), 8),
        "maniRagdoll_ComputeJointTargets": lambda: (w.ragdoll, w.ragdoll_bodies(),
                                                    np.zeros((6, 7), np.float32), 6),
        "maniRagdoll_ComputePoseFromBodies": lambda: (
            w.ragdoll, w.skeleton, w.ragdoll_bodies(), [0.5, 0, 0.2, 0, 0.2, 0, 0.9797959, 1, 1, 1],
            w.pose(), w.pose()),
        "maniRagdoll_ComputeGetUpPlacement": lambda: (w.ragdoll, w.ragdoll_bodies(),
                                                      RagdollGround()),
        "maniCompressClip": lambda: (rt.Builder(), w.clip, w.skeleton, capi.maniDefaultCompressOptions()),
        "maniClip_IsCompressed": lambda: (w.compressed_clip,),
        "maniOpenGltf": lambda: (rt.Builder(), w.gltf_bytes),
        "maniCloseGltf": lambda: (w.gltf(),),
        "maniGltf_GetBufferUri": lambda: (w.read_gltf, 1),
        "maniGltf_SupplyBuffer": lambda: (w.gltf(), 1, b"abcd"),
        "maniBuildGltfSkeleton": lambda: (rt.Builder(), w.read_gltf, 0, gltf_options),
        "maniBuildGltfNodeSkeleton": lambda: (rt.Builder(), w.read_gltf, 1, gltf_options),
        "maniGltf_GetSkeletonPlacement": lambda: (w.read_gltf, 0, gltf_options),
        "maniBuildGltfSkin": lambda: (rt.Builder(), w.read_gltf, 0, w.gltf_skeleton,
                                      gltf_options),
        "maniBuildGltfClip": lambda: (rt.Builder(), w.read_gltf, 0, w.gltf_skeleton,
                                      gltf_options, capi.maniDefaultImportClipOptions()),
        "maniGltf_ReadSprings": lambda: (w.gltf(), w.gltf_skeleton, gltf_options),
        "maniGltf_ReadRagdoll": lambda: (w.ragdoll_gltf(), w.ragdoll_gltf_skeleton, gltf_options,
                                         [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
        "maniGltf_GetPrimitiveTargetCount": lambda: (w.read_gltf, 0, 0),
        "maniGltf_GetMorphWeights": lambda: (w.read_gltf, 3, np.zeros(1, np.float32)),
        "maniBuildGltfInfluences": lambda: (rt.Builder(), w.read_gltf, 0, 0, w.gltf_skin),
        "maniBuildGltfMorphTargets": lambda: (rt.Builder(), w.read_gltf, 0, 0, gltf_options),
        "maniBuildMotionDatabase": lambda: (rt.Builder(), w.match_source),
        "maniOpenMotionDatabase": lambda: (w.match_bytes,),
        "maniMotionDatabase_Search": lambda: (w.database, w.match_query()),
        "maniBuildLearnedModel": lambda: (rt.Builder(), w.learned_source),
        "maniOpenLearnedModel": lambda: (w.learned_bytes,),
        "maniLearnedModel_GetNormalization": lambda: (w.learned_model, np.zeros(64, np.float32),
                                                      np.zeros(64, np.float32), 64),
        "maniLearnedModel_Project": lambda: (w.learned_model, 1,
                                             np.full(w.database.feature_count, 0.5, np.float32),
                                             np.zeros(64, np.float32), 64, w.learned_scratch(),
                                             w.learned_model.scratch_size),
        "maniLearnedModel_Step": lambda: (w.learned_model, w.learned_state(), w.learned_scratch(),
                                          w.learned_model.scratch_size),
        "maniLearnedModel_Decompress": lambda: (w.learned_model, w.learned_state(),
                                                w.learned_output(), w.learned_scratch(),
                                                w.learned_model.scratch_size),
        "maniCreateLearnedTrainer": lambda: (capi.maniDefaultLearnedTrainerDef(),
                                             w.learned_trainer_source),
        "maniDestroyLearnedTrainer": lambda: (w.learned_trainer(),),
        "maniLearnedTrainer_GetMisuse": lambda: (w.learned_trainer(),),
        "maniLearnedTrainer_Train": lambda: (w.learned_trainer(), 2),
        "maniLearnedTrainer_SaveCheckpoint": lambda: (w.learned_trained, bytearray(1 << 16)),
        "maniLearnedTrainer_RestoreCheckpoint": lambda: (
            w.learned_trainer(), capi.maniLearnedTrainer_SaveCheckpoint(w.learned_trained)),
        "maniBuildLearnedModelFromTrainer": lambda: (rt.Builder(), w.learned_trained, 0),
        "maniAdvanceTrajectory": lambda: (Trajectory(velocity=(1, 0, 0)),
                                          TrajectoryGoal((0, 0, 2), (0, 0.6, 0, 0.8)), 0.1),
        "maniMotionDatabase_ComputeTrajectoryFeatures": lambda: (
            w.database, Trajectory(rotation=(0, 0.6, 0, 0.8)), Trajectory(position=(1, 0, 2))),
        "maniOpenFbx": lambda: (rt.Builder(), w.fbx_bytes),
        "maniCloseFbx": lambda: (w.new_fbx(),),
        "maniFbx_GetVersion": lambda: (w.fbx,),
        "maniFbx_GetModelCount": lambda: (w.fbx,),
        "maniFbx_GetModelBoneName": lambda: (w.fbx, 1),
        "maniFbx_GetRenamedCount": lambda: (w.fbx,),
        "maniFbx_GetRenamedModel": lambda: (w.fbx, 0),
        "maniFbx_GetSkeletonCount": lambda: (w.fbx,),
        "maniFbx_GetSkinCount": lambda: (w.fbx,),
        "maniFbx_GetSkinSkeleton": lambda: (w.fbx, 0),
        "maniFbx_GetSkinModel": lambda: (w.fbx, 0),
        "maniFbx_ReadSettings": lambda: (w.fbx,),
        "maniBuildFbxSkeleton": lambda: (rt.Builder(), w.fbx, 0, capi.maniDefaultFbxOptions()),
        "maniBuildFbxModelSkeleton": lambda: (rt.Builder(), w.fbx, 0, capi.maniDefaultFbxOptions()),
        "maniFbx_GetSkeletonPlacement": lambda: (w.fbx, 0, capi.maniDefaultFbxOptions()),
        "maniFbx_GetSkinMethod": lambda: (w.fbx, 0),
        "maniBuildFbxSkin": lambda: (rt.Builder(), w.fbx, 0, w.fbx_skeleton,
                                     capi.maniDefaultFbxOptions()),
        "maniBuildFbxInfluences": lambda: (rt.Builder(), w.fbx, 0, w.fbx_skin),
        "maniFbx_GetClipCount": lambda: (w.fbx,),
        "maniFbx_GetClipName": lambda: (w.fbx, 0),
        "maniFbx_GetMorphCount": lambda: (w.fbx,),
        "maniFbx_GetMorphModel": lambda: (w.fbx, 0),
        "maniFbx_GetMorphTargetCount": lambda: (w.fbx, 0),
        "maniBuildFbxMorphTargets": lambda: (rt.Builder(), w.fbx, 0, capi.maniDefaultFbxOptions()),
        "maniFbx_GetMorphWeights": lambda: (w.fbx, 0),
        "maniBuildFbxClip": lambda: (rt.Builder(), w.fbx, 0, w.fbx_skeleton,
                                     capi.maniDefaultFbxOptions(),
                                     default_import_clip_options()),
        "maniFbx_GetModelPlacement": lambda: (w.fbx, 1, capi.maniDefaultFbxOptions()),
    }
    by_first = {"clip": clip, "graph": graph, "skeleton": sk, "pose": w.pose,
                "targets": lambda: w.targets, "influences": lambda: w.influences,
                "skin": lambda: w.skin, "binding": lambda: w.binding, "instance": w.instance,
                "map": lambda: w.mirror_map, "set": lambda: w.spring_set,
                "ragdoll": lambda: w.ragdoll, "gltf": lambda: w.read_gltf,
                "database": lambda: w.database, "model": lambda: w.learned_model}
    calls = {}
    import inspect
    for name in capi.__all__:
        if name in one:
            calls[name] = one[name]
            continue
        params = list(inspect.signature(getattr(capi, name)).parameters.values())
        required = [p for p in params if p.default is inspect.Parameter.empty]
        if not required:
            calls[name] = lambda: ()
        elif required[0].name in by_first and len(required) <= 2:
            head = by_first[required[0].name]
            calls[name] = (lambda head=head, n=len(required): (head(),) + (0,) * (n - 1))
        else:
            raise AssertionError(f"no valid call written for {name}")
    return calls


def _with_skeleton(w: World):
    b = rt.Builder()
    capi.maniBuildSkeleton(b, w.skeleton_source)
    return b


def _difference(w: World):
    out = w.pose()
    capi.maniSkeleton_ComputePoseDifference(w.skeleton, w.pose(), w.pose(), out)
    return out
