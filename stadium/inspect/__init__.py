"""The asset inspector (`python -m stadium.inspect FILE`): any glTF, GLB, FBX or BVH file
in the diorama, skinned on the CPU by the runtime, its clips played frame by frame."""
