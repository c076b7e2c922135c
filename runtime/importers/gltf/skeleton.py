"""Skeletons of a glTF document: a skin group's nodes (joints, their common root and the
nodes between) or a node's subtree, each node a bone named by its bone name with its local
as the rest, the basis change applied; and where the skeleton hangs (its placement), or
that placement folded into the root."""
from __future__ import annotations

import numpy as np

from ...core.errors import InvalidError, ManiError
from ...core.limits import NO_BONE
from ...pose.skeleton import BoneSource, SkeletonSource, build_skeleton
from ..common import ImportFormatError, ImportReason
from . import space
from .document import Gltf, GltfOptions, opened_document, quiet

__all__ = ["skeleton_source", "node_skeleton_source", "build_gltf_skeleton",
           "build_gltf_node_skeleton", "skeleton_placement"]


def _group(doc: Gltf, skeleton) -> tuple[list[int], int]:
    if isinstance(skeleton, bool) or not isinstance(skeleton, int) \
            or not 0 <= skeleton < len(doc.skeletons):
        raise InvalidError(f"skeleton {skeleton!r} past the {len(doc.skeletons)} skeletons")
    return doc.skeletons[skeleton]


def _subtree(doc: Gltf, node) -> list[int]:
    if isinstance(node, bool) or not isinstance(node, int) or not 0 <= node < len(doc.nodes):
        raise InvalidError(f"node {node!r} past the {len(doc.nodes)} nodes")
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(doc.nodes[n].children))
    return out


def _above_root(doc: Gltf, root: int) -> np.ndarray:
    return space.above(doc, root) if root != -1 else np.eye(4)


def folded_trs(doc: Gltf, placement: np.ndarray, t, q, s, root: int, what: str):
    """The root's TRS with the placement composed in front: P (T R S) as one TRS, which
    takes a placement of uniform scale (Matrix at the root otherwise)."""
    pt, pq, ps = space.decompose(placement, root, doc.nodes[root].at, what)
    if np.ptp(ps) > 1e-6 * float(ps.max()):
        raise ImportFormatError(f"{what}: the nodes above root {root} scale unevenly, which "
                                "a folded root cannot hold", ImportReason.Matrix,
                                offset=doc.nodes[root].at, item=root)
    return (pt + ps[0] * (np.asarray(t) @ space.quat_matrix(pq).T), _mul(pq, q),
            ps[0] * np.asarray(s))


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Quaternion products a b (x y z w), b of shape (4,) or (k, 4)."""
    av, aw = a[:3], a[3]
    bv, bw = b[..., :3], b[..., 3:4]
    v = aw * bv + bw * av + np.cross(av, bv)
    w = aw * bw - bv @ av[:, None]
    return np.concatenate([v, w], axis=-1)


def _source(doc: Gltf, nodes: list[int], options: GltfOptions, what: str) -> SkeletonSource:
    place = {n: i for i, n in enumerate(nodes)}
    bones = []
    for n in nodes:
        t, q, s = space.local_trs(doc, n, what)
        parent = place.get(doc.nodes[n].parent, NO_BONE)
        if parent == NO_BONE and options.fold_placement:
            t, q, s = folded_trs(doc, _above_root(doc, n), t, q, s, n, what)
        bones.append(BoneSource(doc.names[n], parent, space.points(options, t),
                                space.rotations(options, q), space.scales(options, s)))
    return SkeletonSource(bones)


@quiet
def skeleton_source(doc, skeleton, options) -> SkeletonSource:
    """The source of a skin group's skeleton (bones in node order; the build sorts them
    depth-first)."""
    doc, options = opened_document(doc), _options(options)
    nodes, _ = _group(doc, skeleton)
    return _source(doc, nodes, options, f"skeleton {skeleton}")


@quiet
def node_skeleton_source(doc, node, options) -> SkeletonSource:
    """The source of a node's subtree as a skeleton, for rigid hierarchies."""
    doc, options = opened_document(doc), _options(options)
    return _source(doc, _subtree(doc, node), options, f"node {node}")


def _options(options) -> GltfOptions:
    if not isinstance(options, GltfOptions):
        raise InvalidError("options must be GltfOptions")
    return options.checked()


def _build(builder, source: SkeletonSource, nodes: list[int]) -> bytes:
    try:
        return build_skeleton(builder, source)
    except ManiError as e:
        if e.reason == 0 or not isinstance(e, InvalidError):
            raise
        raise ImportFormatError(f"the skeleton builder refuses node "
                                f"{nodes[min(e.item, len(nodes) - 1)]}: {e}",
                                ImportReason.Build, item=int(e.reason)) from None


def build_gltf_skeleton(builder, doc, skeleton, options) -> bytes:
    """maniBuildGltfSkeleton."""
    from ...core.builder import Builder
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    source = skeleton_source(doc, skeleton, options)
    return _build(builder, source, doc.skeletons[skeleton][0])


def build_gltf_node_skeleton(builder, doc, node, options) -> bytes:
    """maniBuildGltfNodeSkeleton."""
    from ...core.builder import Builder
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    source = node_skeleton_source(doc, node, options)
    return _build(builder, source, _subtree(doc, node))


@quiet
def skeleton_placement(doc, skeleton, options) -> np.ndarray:
    """maniGltf_GetSkeletonPlacement: (3, 4) float32, the nodes above the root composed
    and the basis change applied; identity when the options fold it."""
    doc, options = opened_document(doc), _options(options)
    _, root = _group(doc, skeleton)
    if options.fold_placement or root == -1:
        return np.eye(4, dtype=np.float32)[:3]
    m = _above_root(doc, root)
    if not np.isfinite(m).all() or np.abs(m[3] - [0, 0, 0, 1]).max() > 1e-6:
        p = doc.nodes[root].parent
        raise ImportFormatError(f"skeleton {skeleton}: the nodes above its root are not "
                                "affine", ImportReason.Matrix, offset=doc.nodes[p].at, item=p)
    out = space.matrix(options, m)[:3]
    if not (np.abs(out) < 3.4e38).all():
        p = doc.nodes[root].parent
        raise ImportFormatError("placement past binary32", ImportReason.Matrix,
                                offset=doc.nodes[p].at, item=p)
    return out.astype(np.float32)
