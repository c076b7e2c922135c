"""glTF 2.0 in (import.h's glTF half): the document, then skeletons, skins, influences,
clips and morph targets read into the runtime's sources and built by its builders."""
from .document import Gltf, GltfOptions, default_gltf_options, open_gltf

__all__ = ["Gltf", "GltfOptions", "default_gltf_options", "open_gltf"]
