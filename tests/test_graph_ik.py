"""The graph's IK nodes (two-bone, aim, CCD, FABRIK): each node's output is its solver's
on its input pose, called directly through runtime.ik, bit for bit; their file records are
checked on open; every build refusal; subsets plan their chains; the JSON form is a fixed
point."""
import math

import numpy as np
import pytest

import runtime as rt
from runtime import capi
from runtime.core.errors import BuildReason as R
from runtime.graph.build.build import build
from runtime.graph.file import Graph
from runtime.graph.instance import GraphInstance
from runtime.graph.json.read import GraphNamedAssets, read_text
from runtime.graph.json.write import write_text
from runtime.graph.source import *  # noqa: F403
from runtime.graph.source import ParameterType as T
from runtime.graph.subset import GraphSubset
from runtime.ik import (AimSolve, ChainSolve, ConeLimit, HingeLimit, MAX_AIM_BONES,
                        MAX_IK_ITERATIONS, TwistLimit, TwoBoneSolve, solve_aim, solve_ccd,
                        solve_fabrik, solve_two_bone)

from graph_solver_fixtures import (bits, bone, bound, evaluated, f32_vector, solver_nodes,
                                   solver_parameters, solver_source)
from runtime_fixtures import random_pose
from test_graph_fixtures import humanoid

F32_PI = float(np.float32(math.pi))


def one_node(node, parameters=None):
    """A graph: the pose parameter, then `node` reading it."""
    return GraphSource(humanoid(), [PoseParameterNode(0), node], 1,
                       parameters or solver_parameters())


def run(source, pose, values=()):
    inst = GraphInstance(bound(source))
    inst.set_pose(0, pose)
    for p, t, v in values:
        inst.set_parameter(p, t, v)
    inst.update(1 / 30)
    return inst, evaluated(inst)


def f32(v):
    """A node's constant as the file holds it (binary32)."""
    if isinstance(v, (tuple, list)):
        return tuple(float(np.float32(x)) for x in v)
    return float(np.float32(v))


def solved(pose, solve, solver):
    out = rt.Pose(humanoid())
    out.write_locals(0, pose.locals)
    solver(out, humanoid(), solve)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_two_bone_node_is_the_solver_on_its_input(seed):
    rng = np.random.default_rng(seed)
    pose = random_pose(humanoid(), rng)
    goal, pole = f32_vector(rng, scale=0.6), f32_vector(rng)
    w = float(np.float32(rng.uniform()))
    node = solver_nodes()[1]
    _, out = run(one_node(node), pose, [(1, T.vector3, goal), (2, T.vector3, pole), (3, T.float_, w)])
    want = solved(pose, TwoBoneSolve(node.start, node.middle, node.end, goal, pole, f32(node.hinge),
                                     f32(node.twist), f32(node.soften), f32(node.weight) * w),
                  solve_two_bone)
    assert np.array_equal(bits(out), bits(want))
    assert not np.array_equal(bits(out), bits(pose))


@pytest.mark.parametrize("seed", range(6))
def test_aim_node_is_the_solver_on_its_input(seed):
    rng = np.random.default_rng(seed)
    pose = random_pose(humanoid(), rng)
    look = f32_vector(rng, scale=2.0)
    node = solver_nodes()[2]
    node.input = 0
    _, out = run(one_node(node), pose, [(5, T.vector3, look)])
    want = solved(pose, AimSolve([a.bone for a in node.bones], look, f32(node.forward), f32(node.up),
                                 f32(node.pole), f32(node.offset), [f32(a.share) for a in node.bones],
                                 f32(node.twist), f32(node.cone), f32(node.weight)), solve_aim)
    assert np.array_equal(bits(out), bits(want))


@pytest.mark.parametrize("seed", range(4))
def test_ccd_and_fabrik_nodes_are_their_solvers_on_their_input(seed):
    rng = np.random.default_rng(seed)
    pose = random_pose(humanoid(), rng)
    goal = f32_vector(rng, scale=0.5)
    q = np.float32(rng.normal(size=4))
    q = tuple(float(v) for v in np.float32(q / np.linalg.norm(q)))
    w = float(np.float32(rng.uniform()))
    ccd, fabrik = solver_nodes()[3:5]
    ccd.input = fabrik.input = 0
    _, out = run(one_node(ccd), pose, [(3, T.float_, w)])
    want = solved(pose, ChainSolve(ccd.root, ccd.end, f32(ccd.goal), ccd.limits, ccd.iterations,
                                   f32(ccd.tolerance), f32(ccd.step), weight=w), solve_ccd)
    assert np.array_equal(bits(out), bits(want))
    inst, out = run(one_node(fabrik), pose, [(1, T.vector3, goal), (4, T.quaternion, q)])
    got_q = tuple(capi.maniGraphInstance_GetParameter(inst, 4).f)     # normalized as the instance keeps it
    want = solved(pose, ChainSolve(fabrik.root, fabrik.end, goal, fabrik.limits, fabrik.iterations,
                                   f32(fabrik.tolerance), pole=f32(fabrik.pole), rotation=got_q,
                                   rotation_weight=f32(fabrik.rotation_weight)), solve_fabrik)
    assert np.array_equal(bits(out), bits(want))


def test_a_node_of_weight_0_passes_its_input_on():
    pose = random_pose(humanoid(), np.random.default_rng(3))
    node = solver_nodes()[1]
    _, out = run(one_node(node), pose, [(1, T.vector3, (0.3, 1.0, 0.2)), (3, T.float_, 0.0)])
    assert np.array_equal(bits(out), bits(pose))


def test_lanes_of_a_batch_are_each_instance_alone():
    rng = np.random.default_rng(5)
    binding = bound(solver_source())
    insts, alone = [], []
    for k in range(3):
        inst = GraphInstance(binding)
        inst.set_pose(0, random_pose(humanoid(), rng))
        inst.set_parameter(1, T.vector3, f32_vector(rng, scale=0.5))
        inst.set_parameter(3, T.float_, float(np.float32(rng.uniform())))
        inst.update(0.1)
        insts.append(inst)
        alone.append(bits(evaluated(inst)))
    from runtime.graph.evaluate.eval import evaluate_lanes
    out = np.zeros((3, humanoid().bone_count, 10), dtype=np.float32)
    evaluate_lanes(insts, out)
    for k in range(3):
        assert np.array_equal(out[k].view(np.uint32), alone[k])


# ---- subsets -------------------------------------------------------------------------------------
def test_subset_plans_add_each_written_chain_and_evaluate_bit_for_bit():
    rng = np.random.default_rng(8)
    binding = bound(solver_source(mirror=False))
    inst = GraphInstance(binding)
    inst.set_pose(0, random_pose(humanoid(), rng))
    inst.set_parameter(1, T.vector3, (0.3, 0.9, 0.2))
    inst.set_parameter(5, T.vector3, (0.0, 1.5, 2.0))
    inst.update(0.1)
    full = evaluated(inst)
    sk = humanoid()
    # the forearm is written by the two-bone node: its end (the hand) and its root path join
    plan = GraphSubset(binding, [bone("forearm_l")])
    assert bone("hand_l") in plan.bones and bone("arm_l") in plan.bones
    # the neck is written by the aim node: the head joins
    assert bone("head") in GraphSubset(binding, [bone("neck")]).bones
    # a bone no IK node writes plans its ancestors alone
    face = bone("face3")
    want, b = set(), face
    while b != rt.NO_BONE:
        want.add(b)
        b = sk.parent(b)
    assert GraphSubset(binding, [face]).bones.tolist() == sorted(want)
    for listed in ([bone("forearm_l")], [bone("leg_l"), bone("toe_r")], [bone("neck"), face],
                   [bone("hand_r")], list(range(0, sk.bone_count, 7))):
        plan = GraphSubset(binding, sorted(listed))
        out = rt.Pose(sk)
        out.locals[...] = 7.0
        inst.evaluate_subset(plan, out)
        rows = plan.bones
        assert np.array_equal(bits(out)[rows], bits(full)[rows])
        rest = np.setdiff1d(np.arange(sk.bone_count), rows)
        assert (out.locals[rest] == 7.0).all()


# ---- the JSON form ---------------------------------------------------------------------------------
def test_json_write_read_write_is_a_fixed_point_for_every_ik_kind():
    assets = GraphNamedAssets(humanoid())
    for k in range(1, 5):
        node = solver_nodes()[k]
        node.input = 0
        text = write_text(one_node(node))
        again = read_text(text, assets)
        assert write_text(again) == text
        assert build(again) == build(one_node(node))
    # off values are left out
    text = write_text(one_node(TwoBoneIkNode(0, bone("arm_l"), bone("forearm_l"), bone("hand_l"))))
    assert '"twoBoneIk"' in text and '"weight":' not in text and '"goal":' not in text
    text = write_text(one_node(AimIkNode(0, [AimBone(bone("head"))])))
    assert '"cone":' not in text and '"forward":' not in text and '"share":' not in text
    text = write_text(one_node(CcdIkNode(0, bone("upleg_l"), bone("foot_l"),
                                         limits=[HingeLimit(bone("leg_l"))])))
    assert all(f'"{key}":' not in text for key in ("iterations", "tolerance", "axis", "min", "max"))


def test_json_refuses_bones_it_cannot_name():
    text = write_text(one_node(TwoBoneIkNode(0, bone("arm_l"), bone("forearm_l"), bone("hand_l"))))
    bad = text.replace('"hand_l"', '"hand_x"')
    with pytest.raises(rt.InvalidError) as e:
        read_text(bad, GraphNamedAssets(humanoid()))
    assert e.value.reason == R.Form and e.value.item == bad.index('"hand_x"') - len('"end": ')
    bad = text.replace('"start"', '"begin"')
    with pytest.raises(rt.InvalidError) as e:
        read_text(bad, GraphNamedAssets(humanoid()))
    assert e.value.reason == R.Form


# ---- build refusals --------------------------------------------------------------------------------
def refused(node, error=rt.InvalidError):
    with pytest.raises(error) as e:
        build(one_node(node))
    return e.value.reason, e.value.item, e.value.other


def two_bone(**kw):
    return TwoBoneIkNode(**{**dict(input=0, start=bone("arm_l"), middle=bone("forearm_l"),
                                   end=bone("hand_l")), **kw})


def aim(**kw):
    return AimIkNode(**{**dict(input=0, bones=[AimBone(bone("neck")), AimBone(bone("head"))]), **kw})


def ccd(cls=CcdIkNode, **kw):
    return cls(**{**dict(input=0, root=bone("upleg_l"), end=bone("foot_l")), **kw})


def test_two_bone_refusals():
    n = humanoid().bone_count
    assert refused(two_bone(start=n)) == (R.Node, 1, 1)
    assert refused(two_bone(end=-1)) == (R.Node, 1, 3)
    assert refused(two_bone(start=bone("hand_l"))) == (R.Node, 1, 2)       # not above the middle
    assert refused(two_bone(end=bone("head"))) == (R.Node, 1, 3)           # not below it
    assert refused(two_bone(goal=(0.0, math.inf, 0.0))) == (R.Node, 1, 4)
    assert refused(two_bone(pole=(0.0, 1.0))) == (R.Node, 1, 6)
    assert refused(two_bone(hinge=(1e39, 0.0, 0.0))) == (R.Node, 1, 8)
    assert refused(two_bone(twist=math.nan)) == (R.Node, 1, 9)
    assert refused(two_bone(soften=1.5)) == (R.Weight, 1, 10)
    assert refused(two_bone(weight=-0.1)) == (R.Weight, 1, 11)
    assert refused(two_bone(goal_parameter=3)) == (R.Parameter, 1, 5)      # a float, not a vector3
    assert refused(two_bone(pole_parameter=9)) == (R.Parameter, 1, 7)
    assert refused(two_bone(weight_parameter=1)) == (R.Parameter, 1, 12)
    assert refused(two_bone(input=5)) == (R.Input, 1, 0)


def test_aim_refusals():
    assert refused(aim(bones=[])) == (R.Count, 1, 1)
    assert refused(aim(bones=None)) == (R.Count, 1, 0)
    assert refused(aim(bones=[AimBone(bone("head"))] * (MAX_AIM_BONES + 1)), rt.LimitError) == (R.Node, 1, 1)
    assert refused(aim(bones=[AimBone(bone("neck")), 3])) == (R.Node, 1, 1 << 16 | 1)
    assert refused(aim(bones=[AimBone(bone("head")), AimBone(bone("neck"))])) == (R.Node, 1, 1 << 16 | 1)
    assert refused(aim(bones=[AimBone(bone("neck"), -1.0), AimBone(bone("head"))])) == (R.Node, 1, 1 << 16)
    assert refused(aim(bones=[AimBone(bone("neck"), 0.0), AimBone(bone("head"), 0.0)])) == (R.Node, 1, 1)
    assert refused(aim(forward=(1.0, 1.0, 0.0))) == (R.Node, 1, 4)
    assert refused(aim(cone=3.5)) == (R.Node, 1, 10)
    assert refused(aim(weight=2.0)) == (R.Weight, 1, 11)
    assert refused(aim(goal_parameter=4)) == (R.Parameter, 1, 3)
    build(one_node(aim(cone=F32_PI)))          # pi as binary32 holds it


def test_chain_refusals():
    assert refused(ccd(root=bone("hand_l"))) == (R.Node, 1, 2)             # not above the end
    assert refused(ccd(iterations=0)) == (R.Node, 1, 6)
    assert refused(ccd(iterations=MAX_IK_ITERATIONS + 1), rt.LimitError) == (R.Node, 1, 6)
    assert refused(ccd(limits=[ConeLimit(bone("head"))])) == (R.Node, 1, 5)            # off the chain
    assert refused(ccd(limits=[HingeLimit(bone("leg_l"), (0.0, 0.0, 0.0))])) == (R.Node, 1, 5 << 16)
    assert refused(ccd(limits=[TwistLimit(bone("leg_l"), 1.0, 0.5)])) == (R.Node, 1, 5 << 16)
    assert refused(ccd(limits=[None])) == (R.Node, 1, 5 << 16)
    assert refused(ccd(limits=[ConeLimit(bone("leg_l"), 4.0)])) == (R.Node, 1, 5 << 16)
    assert refused(ccd(pole=(0.0, 0.0, 1.0))) == (R.Node, 1, 9)
    assert refused(ccd(pole_parameter=2)) == (R.Node, 1, 10)
    assert refused(ccd(FabrikIkNode, step=0.5)) == (R.Node, 1, 8)
    assert refused(ccd(step=4.0)) == (R.Node, 1, 8)
    assert refused(ccd(tolerance=-1.0)) == (R.Node, 1, 7)
    assert refused(ccd(rotation=(0.0, 0.0, 0.0, 0.0))) == (R.Node, 1, 11)
    assert refused(ccd(rotation_parameter=1)) == (R.Parameter, 1, 12)
    assert refused(ccd(rotation_weight=1.5)) == (R.Weight, 1, 13)
    assert refused(ccd(weight_parameter=0)) == (R.Parameter, 1, 15)
    # the solver's own: a hinge along its bone's axis
    sk = humanoid()
    leg, foot = bone("leg_l"), bone("foot_l")
    along = tuple(float(v) for v in sk.rests[foot, 0:3])
    assert refused(ccd(limits=[HingeLimit(leg, along)])) == (R.Node, 1, 5)


def test_chains_past_the_limit_are_refused_as_the_solver_refuses_them():
    bones = [rt.BoneSource("b0", -1, (0, 0, 0))] + [rt.BoneSource(f"b{i}", i - 1, (0, 0.1, 0))
                                                     for i in range(1, 40)]
    sk = rt.Skeleton.open(rt.build_skeleton(rt.Builder(), rt.SkeletonSource(bones)))
    src = GraphSource(sk, [PoseParameterNode(0), CcdIkNode(0, 0, 39)], 1, solver_parameters())
    with pytest.raises(rt.LimitError) as e:
        build(src)
    assert (e.value.reason, e.value.item, e.value.other) == (R.Node, 1, 2)
    with pytest.raises(rt.LimitError):
        solve_ccd(rt.Pose(sk), sk, ChainSolve(0, 39, (0.0, 0.0, 0.0)))


def test_a_difference_is_no_input_of_an_ik_node():
    from test_graph_fixtures import slots
    src = GraphSource(humanoid(), [ClipNode(0), two_bone()], 1, solver_parameters(), slots("e"))
    with pytest.raises(rt.InvalidError) as e:
        build(src)
    assert (e.value.reason, e.value.item, e.value.other) == (R.Difference, 1, 0)


# ---- the file -------------------------------------------------------------------------------------
def test_open_checks_each_ik_record_word():
    data = bytearray(build(solver_source(mirror=False)))
    g = Graph(bytes(data))
    assert [n.kind for n in g.nodes][1:] == [NodeKind.two_bone_ik, NodeKind.aim_ik, NodeKind.ccd_ik,
                                               NodeKind.fabrik_ik]
    assert capi.maniGraph_GetNodeKind(g, 3) == NodeKind.ccd_ik
    from test_graph_open import sections, restamp
    at, size, _ = sections(bytes(data))[b"NDAT"]
    words = np.frombuffer(bytes(data[at:at + size]), dtype="<u4")
    refused = 0
    for k in range(words.size):
        for value in (0xFFFFFFFF, 0x7FC00000, 0x40A00000):       # NONE, NaN, 5.0
            d = bytearray(data)
            d[at + 4 * k:at + 4 * k + 4] = int(value).to_bytes(4, "little")
            try:
                Graph(restamp(d))
            except rt.FormatError as e:
                assert at <= e.offset <= at + size
                refused += 1
    assert refused > words.size        # most words refuse at least one of the three


# ---- full body ------------------------------------------------------------------------------------
from runtime.ik.body import (MAX_BODY_IK_EFFECTORS, BodyBone, BodyEffector, BodyLimit,  # noqa: E402
                             BodyLimitKind, BodySolve, BodyTopMode, body_ik_scratch_size,
                             solve_body_sdls, solve_body_xpbd)


def body_solve(goal=(0.0, 0.0, 0.0), rotation=(0.0, 0.0, 0.0, 1.0), **kw):
    effectors = [BodyEffector(bone("hand_l"), goal, rotation, 0.5),
                 BodyEffector(bone("hand_r"), (-0.5, 1.25, 0.25), strength=0.75, pull_chain=0.25),
                 BodyEffector(bone("head"), (0.0, 1.75, 0.125), strength=0.5)]
    settings = [BodyBone(bone("spine1"), 0.5, BodyLimit(BodyLimitKind.cone, (0.0, 1.0, 0.0), 0.0, 0.5)),
                BodyBone(bone("forearm_l"), 0.0, BodyLimit(BodyLimitKind.hinge, (1.0, 0.0, 0.0), -2.0, 0.0),
                         (0.25, 0.0, 0.0), 0.5)]
    return BodySolve(**{**dict(top=bone("spine0"), effectors=effectors, bones=settings, iterations=12,
                               top_mode=BodyTopMode.pinned), **kw})


def body_node(**kw):
    return BodyIkNode(**{**dict(input=0, solve=body_solve(), goal_parameters=[1],
                                rotation_parameters=[4]), **kw})


@pytest.mark.parametrize("solver", list(BodySolver))
@pytest.mark.parametrize("seed", range(3))
def test_body_node_is_its_solver_on_its_input(solver, seed):
    rng = np.random.default_rng(seed)
    pose = random_pose(humanoid(), rng)
    goal = f32_vector(rng, scale=0.5)
    inst, out = run(one_node(body_node(solver=solver)), pose,
                    [(1, T.vector3, goal), (4, T.quaternion, (0.5, 0.5, 0.5, 0.5))])
    want = rt.Pose(humanoid())
    want.write_locals(0, pose.locals)
    solve = body_solve(goal, (0.5, 0.5, 0.5, 0.5))
    fn = solve_body_xpbd if solver == BodySolver.xpbd else solve_body_sdls
    fn(want, humanoid(), solve, bytearray(body_ik_scratch_size(humanoid(), solve)))
    assert np.array_equal(bits(out), bits(want))
    assert not np.array_equal(bits(out), bits(pose))


def test_body_subsets_plan_the_paths_to_the_effectors():
    binding = bound(one_node(body_node()))
    inst = GraphInstance(binding)
    inst.set_pose(0, random_pose(humanoid(), np.random.default_rng(9)))
    inst.set_parameter(1, T.vector3, (0.25, 1.0, 0.5))
    inst.update(0.1)
    full = evaluated(inst)
    plan = GraphSubset(binding, [bone("spine1")])
    for name in ("hand_l", "hand_r", "head", "forearm_l", "spine0"):
        assert bone(name) in plan.bones
    out = rt.Pose(humanoid())
    inst.evaluate_subset(plan, out)
    assert np.array_equal(bits(out)[plan.bones], bits(full)[plan.bones])
    away = GraphSubset(binding, [bone("toe_l")])       # off the part: the node does not run
    assert bone("hand_l") not in away.bones


def test_body_refusals():
    assert refused(body_node(solve=None)) == (R.Node, 1, 1)
    assert refused(body_node(solver=5)) == (R.Node, 1, 2)
    assert refused(body_node(solve=body_solve(top=bone("hand_r")))) == (R.Node, 1, 1)   # effectors not below
    assert refused(body_node(goal_parameters=[3])) == (R.Parameter, 1, 3 << 16)
    assert refused(body_node(rotation_parameters=[None, 1])) == (R.Parameter, 1, 4 << 16 | 1)
    assert refused(body_node(goal_parameters=[1, 1, 1, 1])) == (R.Node, 1, 3)
    assert refused(body_node(goal_parameters=None)) == (R.Count, 1, 0)
    stretchy = body_solve(bones=[BodyBone(bone("spine1"), stretch=0.5)])
    build(one_node(body_node(solve=stretchy)))                       # XPBD stretches
    assert refused(body_node(solve=stretchy, solver=BodySolver.sdls)) == (R.Node, 1, 1)
    many = body_solve(effectors=[BodyEffector(bone("head"), (0.0, 0.0, 0.0))] * (MAX_BODY_IK_EFFECTORS + 1))
    assert refused(body_node(solve=many, goal_parameters=[], rotation_parameters=[]), rt.LimitError) == \
        (R.Node, 1, 1)
    assert refused(body_node(solve=body_solve(tolerance=-1.0))) == (R.Node, 1, 1)


def test_body_json_is_a_fixed_point():
    for solver in BodySolver:
        src = one_node(body_node(solver=solver))
        text = write_text(src)
        again = read_text(text, GraphNamedAssets(humanoid()))
        assert write_text(again) == text and build(again) == build(src)
    text = write_text(one_node(BodyIkNode(0, BodySolve(bone("spine0"), [BodyEffector(bone("head"), (0.0, 1.0, 0.0))]))))
    assert all(f'"{key}":' not in text for key in ("solver", "topMode", "iterations", "tolerance", "bones",
                                                   "strength", "rotation"))
