"""maniFbx: an opened FBX document and what is read and built from it (import.h's FBX half).

The document is opened from the bytes of a file into memory the builder's allocator gives
(one block the size of the file); closing frees it through the builder's free hook, and from
the moment the close begins the document reads as empty."""
from __future__ import annotations

from enum import IntEnum

import numpy as np

from ...core import args
from ...deform.skin import Skin
from ...pose.skeleton import Skeleton
from ...core.builder import Builder
from ...core.errors import CapacityError, InvalidError
from ..common import ImportClipOptions, ImportFormatError
from . import skeleton as _skeleton
from . import clip as _clip
from . import morph as _morph
from . import skin as _skin
from .document import read_document
from .scene import NONE, FbxSettings, Scene
from .skeleton import FbxOptions
from .transform import evaluate

__all__ = ["Fbx", "SkinMethod", "open_fbx"]


class SkinMethod(IntEnum):
    """maniSkinningMethod as an FBX skin asks for it."""

    linear = 0
    dual_quaternion = 1
    blended = 2


def _options(options) -> FbxOptions:
    if not isinstance(options, FbxOptions):
        raise InvalidError("options must be FbxOptions")
    return options.checked()


class Fbx:
    """An opened FBX document."""

    def __init__(self, builder: Builder, scene: Scene, block):
        self._builder = builder
        self._block = block
        self._scene: Scene | None = scene
        self._evaluated = None
        self._morphs = None

    # ---- life
    def close(self) -> None:
        """maniCloseFbx: from the builder's allocator it closes nothing (one misuse)."""
        builder = self._builder
        if builder is not None and builder._state == "hook":
            builder.misuse += 1
            return
        if self._scene is None:
            return
        self._scene = None
        self._evaluated = None
        self._morphs = None
        block, self._block = self._block, None
        if builder is not None and block is not None and builder._state == "live":
            builder._call_free(block)

    @property
    def is_open(self) -> bool:
        return self._scene is not None

    def _open_scene(self) -> Scene:
        if self._scene is None:
            raise InvalidError("a closed FBX document")
        return self._scene

    def _ev(self, models):
        """The rest evaluation, of every model (kept) or, where some model's properties
        are refused, of `models` and their ancestors alone."""
        if self._evaluated is None:
            try:
                self._evaluated = evaluate(self._open_scene())
            except ImportFormatError:
                return evaluate(self._scene, only=models)
        return self._evaluated

    # ---- reading
    @property
    def version(self) -> int:
        return 0 if self._scene is None else self._scene.version

    @property
    def model_count(self) -> int:
        return 0 if self._scene is None else len(self._scene.models)

    def model_bone_name(self, model) -> bytes | None:
        s = self._scene
        model = args.integer(model, "model")
        if s is None or not 0 <= model < len(s.models):
            return None
        return s.bone_names[model]

    @property
    def renamed_count(self) -> int:
        return 0 if self._scene is None else len(self._scene.renamed)

    def renamed_model(self, index) -> int:
        s = self._scene
        index = args.integer(index, "index")
        if s is None or not 0 <= index < len(s.renamed):
            return NONE
        return s.renamed[index]

    @property
    def skeleton_count(self) -> int:
        return 0 if self._scene is None else len(self._scene.skeletons)

    @property
    def skin_count(self) -> int:
        return 0 if self._scene is None else len(self._scene.skins)

    def skin_skeleton(self, skin) -> int:
        s = self._scene
        skin = args.integer(skin, "skin")
        if s is None or not 0 <= skin < len(s.skins):
            return NONE
        return s.skin_skeleton[skin]

    def skin_model(self, skin) -> int:
        s = self._scene
        skin = args.integer(skin, "skin")
        if s is None or not 0 <= skin < len(s.skins):
            return NONE
        return s.skin_model[skin]

    def read_settings(self) -> FbxSettings:
        return self._open_scene().settings()

    def skin_method(self, skin) -> SkinMethod:
        s = self._scene
        skin = args.integer(skin, "skin")
        if s is None or not 0 <= skin < len(s.skins):
            return SkinMethod.linear
        rec = s.objects[s.skins[skin]].record
        kind = rec.child(b"SkinningType")
        name = kind.string(0) if kind is not None else None
        if name == b"DualQuaternion":
            return SkinMethod.dual_quaternion
        if name == b"Blend":
            return SkinMethod.blended
        indexes, blend = rec.child(b"Indexes"), rec.child(b"BlendWeights")
        if indexes is not None and blend is not None and _has_values(indexes) \
                and _has_values(blend):
            return SkinMethod.blended
        return SkinMethod.linear

    @property
    def clip_count(self) -> int:
        s = self._scene
        if s is None:
            return 0
        return len(s.stacks) if s.version >= 7000 else len(_takes(s))

    def clip_name(self, clip) -> bytes | None:
        s = self._scene
        clip = args.integer(clip, "clip")
        if s is None or not 0 <= clip < self.clip_count:
            return None
        if s.version >= 7000:
            return s.objects[s.stacks[clip]].name
        return _takes(s)[clip].string(0) or b""

    # ---- skeletons
    def _skeleton_models(self, skeleton) -> list[int]:
        s = self._open_scene()
        skeleton = args.integer(skeleton, "skeleton")
        if not 0 <= skeleton < len(s.skeletons):
            raise InvalidError(f"skeleton {skeleton} is past the {len(s.skeletons)} skeletons")
        return _skeleton.skeleton_models(s, skeleton)

    def _subtree(self, model) -> list[int]:
        s = self._open_scene()
        model = args.integer(model, "model")
        if not 0 <= model < len(s.models):
            raise InvalidError(f"model {model} is past the {len(s.models)} models")
        return _skeleton.subtree_models(s, model)

    def build_skeleton(self, builder, skeleton, options) -> bytes:
        """maniBuildFbxSkeleton."""
        _front(builder, self)
        models = self._skeleton_models(skeleton)
        opts = _options(options)
        return _skeleton.build(builder, self._scene, models, self._ev(models), opts)

    def build_model_skeleton(self, builder, model, options) -> bytes:
        """maniBuildFbxModelSkeleton."""
        _front(builder, self)
        models = self._subtree(model)
        opts = _options(options)
        return _skeleton.build(builder, self._scene, models, self._ev(models), opts)

    def _skin_index(self, skin) -> int:
        s = self._open_scene()
        skin = args.integer(skin, "skin")
        if not 0 <= skin < len(s.skins):
            raise InvalidError(f"skin {skin} is past the {len(s.skins)} skins")
        return skin

    def build_skin(self, builder, skin, skeleton, options) -> bytes:
        """maniBuildFbxSkin."""
        _front(builder, self)
        skin = self._skin_index(skin)
        if not isinstance(skeleton, Skeleton) or not skeleton.is_open:
            raise builder.refuse("not an opened skeleton")
        opts = _options(options)
        s = self._scene
        needs = [m for _c, m in _skin.skin_joints(s, skin)]
        if s.skin_model[skin] != NONE:
            needs.append(s.skin_model[skin])
        return _skin.build(builder, s, skin, skeleton, self._ev(needs), opts)

    def build_influences(self, builder, skin, built) -> bytes:
        """maniBuildFbxInfluences."""
        _front(builder, self)
        skin = self._skin_index(skin)
        if not isinstance(built, Skin) or built.joint_count == 0:
            raise builder.refuse("not an opened skin")
        joints = len(_skin.skin_joints(self._scene, skin))
        if built.joint_count != joints:
            raise builder.refuse(f"a skin of {built.joint_count} joints, not the "
                                 f"{joints} this skin's clusters make")
        return _skin.build_influences_of(builder, self._scene, skin, built,
                                         int(self.skin_method(skin)))

    def build_clip(self, builder, clip, skeleton, options, clip_options) -> int:
        """maniBuildFbxClip: returns how many of the skeleton's bones the clip moves."""
        _front(builder, self)
        s = self._scene
        clip = args.integer(clip, "clip")
        if not 0 <= clip < self.clip_count:
            raise InvalidError(f"clip {clip} is past the {self.clip_count} clips")
        if not isinstance(skeleton, Skeleton) or not skeleton.is_open:
            raise builder.refuse("not an opened skeleton")
        opts = _options(options)
        if not isinstance(clip_options, ImportClipOptions):
            raise InvalidError("clip_options must be ImportClipOptions")
        settings = clip_options.checked(skeleton)
        return _clip.build(builder, s, clip, skeleton, opts, settings)

    # ---- morphs
    def _sets(self) -> list:
        if self._scene is None:
            return []
        if self._morphs is None:
            self._morphs = _morph.morph_sets(self._scene)
        return self._morphs

    def _set(self, morph):
        morph = args.integer(morph, "morph")
        sets = self._sets()
        if not 0 <= morph < len(sets):
            raise InvalidError(f"morph {morph} is past the {len(sets)} sets")
        return sets[morph]

    @property
    def morph_count(self) -> int:
        return len(self._sets())

    def morph_model(self, morph) -> int:
        morph = args.integer(morph, "morph")
        sets = self._sets()
        return sets[morph].model if 0 <= morph < len(sets) else NONE

    def morph_target_count(self, morph) -> int:
        morph = args.integer(morph, "morph")
        sets = self._sets()
        return _morph.target_count(sets[morph]) if 0 <= morph < len(sets) else 0

    def build_morph_targets(self, builder, morph, options) -> bytes:
        """maniBuildFbxMorphTargets."""
        _front(builder, self)
        s = self._set(morph)
        opts = _options(options)
        return _morph.build(builder, self._scene, s, opts)

    def morph_weights(self, morph, out=None) -> np.ndarray:
        """maniFbx_GetMorphWeights: the rest target weights, float32; into `out` when
        given (CapacityError with .count when it is short, `out` zeroed)."""
        self._open_scene()
        s = self._set(morph)
        if out is not None and not (isinstance(out, np.ndarray) and out.dtype == np.float32
                                    and out.ndim == 1 and out.flags.writeable):
            raise InvalidError("weights must be a writable float32 array")
        weights = _morph.rest_weights(s)
        if out is None:
            return weights
        if out.size < weights.size:
            out[...] = 0.0
            raise CapacityError(f"{out.size} entries for {weights.size} targets",
                                count=weights.size)
        out[:weights.size] = weights
        return out

    def skeleton_placement(self, skeleton, options) -> np.ndarray:
        models = self._skeleton_models(skeleton)
        opts = _options(options)
        s = self._scene
        root = [m for m in models if s.model_parent[m] not in set(models)]
        if len(root) != 1:          # no common root: every root is at the top
            return _skeleton.placement(s, root[0], self._ev(root), FbxOptions(fold_placement=True))
        return _skeleton.placement(s, root[0], self._ev(root), opts)

    def model_placement(self, model, options) -> np.ndarray:
        models = self._subtree(model)
        opts = _options(options)
        return _skeleton.placement(self._scene, models[0], self._ev(models[:1]), opts)


def _has_values(rec) -> bool:
    try:
        return rec.array().size > 0
    except ImportFormatError:
        return False


def _takes(scene: Scene) -> list:
    takes = scene.doc.top.child(b"Takes")
    return [] if takes is None else takes.all(b"Take")


def _front(builder, fbx) -> None:
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if not isinstance(fbx, Fbx) or not fbx.is_open:
        raise builder.refuse("not an opened FBX document")


def open_fbx(builder, data) -> Fbx:
    """maniOpenFbx: opens FBX bytes (binary or ASCII) into a document."""
    if not isinstance(builder, Builder):
        raise InvalidError("no builder")
    builder.enter()
    if data is None:
        raise InvalidError("no bytes")
    try:
        raw = bytes(memoryview(data).cast("B"))
    except TypeError:
        raise InvalidError("bytes must be a bytes-like object") from None
    block = builder._call_alloc(max(len(raw), 1))
    if block is None:
        raise CapacityError("the allocator failed")
    try:
        scene = Scene(read_document(raw))
    except BaseException:
        builder._call_free(block)
        raise
    return Fbx(builder, scene, block)
