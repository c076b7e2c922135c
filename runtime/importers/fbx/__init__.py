"""FBX import (import.h's FBX half): the document, its scene, FBX's transform rules and
the skeletons built from them."""
from .document import Document, Record, read_document
from .fbx import Fbx, SkinMethod, open_fbx
from .scene import Axis, FbxSettings, Scene
from .skeleton import FbxOptions, default_fbx_options

__all__ = ["Axis", "Document", "Fbx", "FbxOptions", "FbxSettings", "Record", "Scene",
           "SkinMethod", "default_fbx_options", "open_fbx", "read_document"]
