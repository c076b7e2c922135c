"""The graph's documented limits and sentinels (module attributes of runtime.capi too).

A source past one of the counts below is refused with LimitError (no misuse): the file
keeps counts and indices in 32 bits, but these bounds keep an update's work and an
instance's size predictable and a corrupted file from asking for absurd memory.
"""

GRAPH_NONE = 0xFFFFFFFF             # MANI_GRAPH_NONE: no node, no state, no transition
NO_PARAMETER = 0xFFFFFFFF           # MANI_NO_PARAMETER: a name that names no parameter

MAX_GRAPH_NODES = 4096              # nodes of a graph, subgraphs inlined
MAX_GRAPH_PARAMETERS = 1024
MAX_GRAPH_CLIPS = 4096              # clip slots
MAX_GRAPH_SYNC_GROUPS = 256
MAX_GRAPH_DATABASES = 64            # motion database slots
MAX_GRAPH_MODELS = 64               # learned model slots
MAX_GRAPH_SPRING_SETS = 64          # spring set slots
MAX_GRAPH_RETARGET_MAPS = 16        # retargeting maps the clip slots name
MAX_GRAPH_INPUTS = 64               # inputs, points or states of one node
MAX_GRAPH_TRIANGLES = 128           # triangles of a triangulated blend space
MAX_GRAPH_TRANSITIONS = 256         # transitions of one state machine
MAX_GRAPH_EVENTS = 1 << 16         # distinct event names the conditions of a graph name
MAX_GRAPH_CONDITIONS = 8            # MANI_MAX_GRAPH_CONDITIONS: conditions of one transition
MAX_GRAPH_CHAIN_LIMIT = 16          # a machine's chain limit (transitions blending at once)
DEFAULT_GRAPH_CHAIN_LIMIT = 4       # a machine's chain limit when its source gives 0
MAX_GRAPH_DEPTH = 8                 # MANI_MAX_GRAPH_DEPTH: subgraphs nested in subgraphs
MAX_GRAPH_TIME_FACTOR = 64.0        # MANI_MAX_GRAPH_TIME_FACTOR: |speed| and |time scale|
MAX_GRAPH_SECONDS = 1.0e6           # durations, cooldowns, seek times and state times
MAX_GRAPH_MATCH_COST = 1.0e6        # |a motion matching node's biases, costs and threshold|
MAX_GRAPH_MATCH_QUERIES = 64        # query inputs of one motion matching node

# MANI_GRAPH_LEARNED_MAX_STEPS: the most steps of its model a learned motion matching node
# takes in one update. Eight steps of a 30 Hz model cover a 4 Hz frame; a longer update
# (a hitch, a paused game's first frame) drops the rest rather than costing a Stepper run
# per missed step, and the node's next projection catches up with the query.
GRAPH_LEARNED_MAX_STEPS = 8

# MANI_GRAPH_EVENT_THRESHOLD: an update lists a clip node's events when its share of the
# output is above this (a clip slot built with all_events lists them at any share above 0).
# A tenth keeps the footsteps of the clips a blend space leans on and drops the ones it
# merely touches on its way between them.
GRAPH_EVENT_THRESHOLD = 0.1

# The bits that say, in a name refusal's `other`, which of the source's lists the name is in
# (other = bit << 24 | the earlier item for DuplicateName and NameHash).
LIST_PARAMETERS = 1
LIST_CLIPS = 2
LIST_SYNC_GROUPS = 4
LIST_DATABASES = 8
LIST_MODELS = 16
LIST_SPRING_SETS = 32
LIST_NODES = 64
LIST_SHIFT = 24
