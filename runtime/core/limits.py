"""The library's documented limits and sentinels (module attributes of runtime.capi too)."""

NO_BONE = 0xFFFFFFFF            # MANI_NO_BONE: a root's parent, a name not found
NO_TRACK = 0xFFFFFFFF           # MANI_NO_TRACK

MAX_BONES = 1024                # MANI_MAX_BONES: bones a skeleton may have
MAX_NAME_BYTES = 255            # MANI_MAX_NAME_BYTES: UTF-8 bytes of any name
MAX_IK_CHAIN_BONES = 32         # MANI_MAX_IK_CHAIN_BONES: an IK chain's bones, and a retarget chain's

# Seed of the hash kept beside every name, so a lookup compares 8 bytes before the name.
# Frozen with the file formats.
NAME_HASH_SEED = 0x4D414E49      # "MANI"
