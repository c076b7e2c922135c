"""Motion matching's documented bounds (module attributes of runtime.capi as MANI_*)."""

MAX_MATCH_RATE = 240.0          # MANI_MAX_MATCH_RATE: frames a second a database samples at most
MAX_MATCH_CLIPS = 4096          # MANI_MAX_MATCH_CLIPS
MAX_MATCH_CHANNELS = 64         # MANI_MAX_MATCH_CHANNELS
MAX_MATCH_ENTRIES = 65536       # MANI_MAX_MATCH_ENTRIES
MAX_MATCH_FRAMES = 1 << 22      # MANI_MAX_MATCH_FRAMES: 19 hours at 60 Hz
MAX_MATCH_FEATURES = 256        # MANI_MAX_MATCH_FEATURES: floats a frame's features hold
MAX_MATCH_TIMES = 16            # MANI_MAX_MATCH_TIMES: times a channel samples
MAX_MATCH_REACH = 10.0          # MANI_MAX_MATCH_REACH: seconds a channel's time lies from its frame
MAX_MATCH_HISTORY = 64          # MANI_MAX_MATCH_HISTORY: picks a query excludes around
MAX_MATCH_LEAF = 1024           # the largest leaf size a tree takes
NO_FRAME = 0xFFFFFFFF           # MANI_NO_FRAME: no continuing frame; a search that found none
