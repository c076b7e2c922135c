"""maniPose_SolveFabrik on unconstrained chains against a plain scalar FABRIK (Aristidou and
Lasenby, positions only): on such a chain turning each bone by the shortest arc onto its
joint's new place is the classic forward pass, so the end after n iterations must be the
reference's end after n iterations, up to the binary32 the pose stores."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.ik import ChainSolve, solve_fabrik

from ik_fixtures import positions
from test_ik_chains import ROOT, chain_problem


def reference_fabrik(joints, goal, iterations):
    """Classic FABRIK on joint positions (root first): each iteration the backward pass (end
    on the goal, each joint at its bone's length from the one below, toward where it was),
    then the forward pass (root back in place, each joint at its bone's length from the one
    above, toward where the backward pass left it). The end after each iteration."""
    p = [np.array(j, dtype=np.float64) for j in joints]
    goal = np.asarray(goal, dtype=np.float64)
    lengths = [float(np.linalg.norm(p[i + 1] - p[i])) for i in range(len(p) - 1)]
    root = p[0].copy()
    ends = []
    for _ in range(iterations):
        p[-1] = goal.copy()
        for i in range(len(p) - 2, -1, -1):
            d = p[i] - p[i + 1]
            p[i] = p[i + 1] + d / np.linalg.norm(d) * lengths[i]
        p[0] = root.copy()
        for i in range(len(p) - 1):
            d = p[i + 1] - p[i]
            p[i + 1] = p[i] + d / np.linalg.norm(d) * lengths[i]
        ends.append(p[-1].copy())
    return ends


def ends_per_iteration(seed, iterations):
    """Our end after 1..iterations iterations (each a fresh solve, no early stop), the
    reference's, and the chain's span."""
    rng, sk, pose, end, goal, span = chain_problem(seed)
    joints = positions(sk, pose)[ROOT:end + 1]
    ours = []
    for n in range(1, iterations + 1):
        pose = type(pose)(sk)
        solve_fabrik(pose, sk, ChainSolve(ROOT, end, tuple(goal), iterations=n, tolerance=0.0))
        ours.append(positions(sk, pose)[end])
    return np.array(ours), np.array(reference_fabrik(joints, goal, iterations)), goal, span


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_each_iteration_ends_where_scalar_fabrik_does(seed):
    ours, reference, goal, span = ends_per_iteration(seed, 8)
    gap = np.linalg.norm(ours - reference, axis=1) / span
    assert gap.max() <= 1e-5, gap


def test_seed_10408_converges_monotonically_to_the_tolerance():
    """The chain that stalled: its error rose at iterations 3 and 32 and was still past the
    tolerance after 256 (the forward pass turned each bone from its child's stale place)."""
    ours, reference, goal, span = ends_per_iteration(10408, 12)
    errors = np.linalg.norm(ours - goal, axis=1) / span
    assert np.all(np.diff(errors) <= 1e-6), errors
    assert np.linalg.norm(ours - reference, axis=1).max() / span <= 1e-5
    rng, sk, pose, end, goal, span = chain_problem(10408)
    used = np.zeros(1, np.int64)
    assert solve_fabrik(pose, sk, ChainSolve(ROOT, end, tuple(goal), iterations=256,
                                             tolerance=1e-3 * span), iterations_out=used)
    assert used[0] <= 16
