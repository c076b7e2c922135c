"""The asset inspector (`python -m stadium.inspect FILE`): any glTF, GLB, FBX or BVH file
in the diorama, skinned on the CPU by the runtime, its clips played frame by frame: with
its morph targets weighed, its VRM spring bones swaying and its OMI physics bodies shown
(and dropped as a ragdoll in the window)."""
