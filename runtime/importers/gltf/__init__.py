"""glTF 2.0 in (import.h's glTF half): the document, then skeletons, skins, influences,
clips, morph targets, spring bones and ragdolls read into the runtime's sources and built
by its builders."""
from .clip import animation_name, build_gltf_clip, clip_source
from .document import Gltf, GltfOptions, default_gltf_options, open_gltf
from .mesh import morph_weights, node_mesh, node_skin, primitive_count, target_count
from .morph import build_gltf_morph_targets, morph_source
from .ragdoll import read_ragdoll
from .skeleton import (build_gltf_node_skeleton, build_gltf_skeleton, node_skeleton_source,
                       skeleton_placement, skeleton_source)
from .skin import build_gltf_influences, build_gltf_skin, influence_source, skin_source
from .springs import read_springs

__all__ = ["Gltf", "GltfOptions", "default_gltf_options", "open_gltf", "animation_name",
           "build_gltf_clip", "clip_source", "morph_weights", "node_mesh", "node_skin",
           "primitive_count", "target_count", "build_gltf_morph_targets", "morph_source",
           "build_gltf_node_skeleton", "build_gltf_skeleton", "node_skeleton_source",
           "skeleton_placement", "skeleton_source", "build_gltf_influences", "build_gltf_skin",
           "influence_source", "skin_source", "read_springs", "read_ragdoll"]
