"""Learned motion matching's documented bounds (module attributes of runtime.capi as MANI_*).

Chosen to hold Holden's networks (4 hidden layers of 512, 32 latent values, 338 outputs)
with room: a network of MAX_LEARNED_LAYERS layers as wide as MAX_LEARNED_WIDTH stays under
MAX_LEARNED_WEIGHTS (64 MiB of float32 weights), and a state or output row is never wider
than one layer."""

MAX_LEARNED_RATE = 240.0          # MANI_MAX_LEARNED_RATE: steps a second at most
MAX_LEARNED_LATENT = 256          # MANI_MAX_LEARNED_LATENT: latent values a state holds
MAX_LEARNED_PROJECTORS = 16       # MANI_MAX_LEARNED_PROJECTORS
MAX_LEARNED_FLOAT_TRACKS = 64     # MANI_MAX_LEARNED_FLOAT_TRACKS
MAX_LEARNED_EVENTS = 64           # MANI_MAX_LEARNED_EVENTS
MAX_LEARNED_LAYERS = 8            # MANI_MAX_LEARNED_LAYERS: layers (weight matrices) a network
MAX_LEARNED_WIDTH = 4096          # MANI_MAX_LEARNED_WIDTH: values a layer takes in or gives
MAX_LEARNED_WEIGHTS = 1 << 24     # MANI_MAX_LEARNED_WEIGHTS: weights a network holds
