"""graph.h.

Conventions beyond the package's: names come back as str (None past a count); a
maniGraphValue is a GraphValue (SetParameter also takes a plain bool, int, float or
sequence for the parameter's type); maniGraphInstance_Update returns (events, event count,
root move) and fills `eventsOut` (a list) when one is given; maniGraphInstance_Save returns
the state's bytes, or their size when it measures (None and capacity 0) or writes them
into `bytesOut`; the scratch and
memory arguments may be None (the library then uses its own).
"""
from ..core import args
from ..core.base import ABI_VERSION
from ..core.errors import FormatError, InvalidError
from ..graph.file import Graph, is_open
from ..graph.binding import GraphBinding, binding_size
from ..graph.instance import GraphInstance
from ..graph.limits import (GRAPH_EVENT_THRESHOLD, GRAPH_LEARNED_MAX_STEPS, GRAPH_NONE, MAX_GRAPH_CHAIN_LIMIT,
                            MAX_GRAPH_CLIPS, MAX_GRAPH_CONDITIONS, MAX_GRAPH_DATABASES,
                            MAX_GRAPH_DEPTH, MAX_GRAPH_INPUTS, MAX_GRAPH_MODELS, MAX_GRAPH_NODES,
                            MAX_GRAPH_PARAMETERS, MAX_GRAPH_RETARGET_MAPS, MAX_GRAPH_SPRING_SETS,
                            MAX_GRAPH_SYNC_GROUPS, MAX_GRAPH_TIME_FACTOR, MAX_GRAPH_TRANSITIONS,
                            MAX_GRAPH_TRIANGLES, NO_PARAMETER)
from ..graph.subset import GraphSubset, evaluate_subset, subset_size
from ..core.limits import NO_TRACK
from ..pose.pose import Pose

MANI_GRAPH_NONE = GRAPH_NONE
MANI_NO_PARAMETER = NO_PARAMETER
MANI_GRAPH_EVENT_THRESHOLD = GRAPH_EVENT_THRESHOLD
MANI_GRAPH_LEARNED_MAX_STEPS = GRAPH_LEARNED_MAX_STEPS
MANI_MAX_GRAPH_NODES = MAX_GRAPH_NODES
MANI_MAX_GRAPH_PARAMETERS = MAX_GRAPH_PARAMETERS
MANI_MAX_GRAPH_CLIPS = MAX_GRAPH_CLIPS
MANI_MAX_GRAPH_SYNC_GROUPS = MAX_GRAPH_SYNC_GROUPS
MANI_MAX_GRAPH_DATABASES = MAX_GRAPH_DATABASES
MANI_MAX_GRAPH_MODELS = MAX_GRAPH_MODELS
MANI_MAX_GRAPH_SPRING_SETS = MAX_GRAPH_SPRING_SETS
MANI_MAX_GRAPH_RETARGET_MAPS = MAX_GRAPH_RETARGET_MAPS
MANI_MAX_GRAPH_INPUTS = MAX_GRAPH_INPUTS
MANI_MAX_GRAPH_TRIANGLES = MAX_GRAPH_TRIANGLES
MANI_MAX_GRAPH_TRANSITIONS = MAX_GRAPH_TRANSITIONS
MANI_MAX_GRAPH_CONDITIONS = MAX_GRAPH_CONDITIONS
MANI_MAX_GRAPH_CHAIN_LIMIT = MAX_GRAPH_CHAIN_LIMIT
MANI_MAX_GRAPH_DEPTH = MAX_GRAPH_DEPTH
MANI_MAX_GRAPH_TIME_FACTOR = MAX_GRAPH_TIME_FACTOR
MANI_ABI_VERSION = ABI_VERSION
__constants__ = [name for name in list(globals()) if name.startswith("MANI_")]

__all__ = [
    "maniOpenGraph", "maniGraph_GetIdentity", "maniGraph_GetSkeletonIdentity",
    "maniGraph_GetNodeCount", "maniGraph_GetParameterCount", "maniGraph_FindParameter",
    "maniGraph_GetParameterType", "maniGraph_GetParameterName", "maniGraph_GetClipCount",
    "maniGraph_GetClipIdentity", "maniGraph_GetClipName", "maniGraph_GetDatabaseCount",
    "maniGraph_GetDatabaseIdentity", "maniGraph_GetDatabaseName", "maniGraph_GetModelCount",
    "maniGraph_GetModelIdentity", "maniGraph_GetModelName", "maniGraph_GetSpringSetCount",
    "maniGraph_GetSpringSetIdentity", "maniGraph_GetSpringSetName",
    "maniGraph_GetRetargetMapCount", "maniGraph_GetRetargetMapIdentity",
    "maniGraph_GetMirrorMapIdentity", "maniGraph_GetRetargetMapSourceIdentity",
    "maniGraph_GetClipRetargetMap", "maniGraph_GetNodeKind", "maniGraph_GetNodeInputCount",
    "maniGraph_GetNodeInput", "maniGraph_GetOutputNode", "maniGraph_GetNodeSourcePlace",
    "maniGraph_GetBindingSize", "maniBindGraph", "maniGraphBinding_GetInstanceSize",
    "maniInitGraphInstance", "maniGraphInstance_SetParameter", "maniGraphInstance_SetPose",
    "maniGraphInstance_GetPose", "maniGraphInstance_GetParameter", "maniGraphInstance_InspectNode",
    "maniGraphInstance_Save", "maniGraphInstance_Restore", "maniGraphInstance_Update",
    "maniGraphBinding_GetScratchSize", "maniGraphInstance_Evaluate",
    "maniGraphBinding_GetSubsetSize", "maniPlanGraphSubset", "maniGraphSubset_GetBones",
    "maniGraphInstance_EvaluateSubset",
]

__pending__ = {}



def maniOpenGraph(data) -> Graph:
    return Graph(data)


def _item(items, k, what: str):
    k = args.integer(k, what)
    return items[k] if 0 <= k < len(items) else None


def maniGraph_GetIdentity(graph) -> int:
    return graph.identity if is_open(graph) else 0


def maniGraph_GetSkeletonIdentity(graph) -> int:
    return graph.skeleton_identity if is_open(graph) else 0


def maniGraph_GetNodeCount(graph) -> int:
    return graph.node_count if is_open(graph) else 0


def maniGraph_GetParameterCount(graph) -> int:
    return graph.parameter_count if is_open(graph) else 0


def maniGraph_FindParameter(graph, name) -> int:
    return graph.find_parameter(name) if is_open(graph) else NO_PARAMETER


def maniGraph_GetParameterType(graph, parameter: int):
    if not is_open(graph):
        raise InvalidError("no graph")
    t = graph.parameter_type(parameter)
    if t is None:
        raise InvalidError(f"parameter {parameter!r} past the count")
    return t


def maniGraph_GetParameterName(graph, parameter: int):
    return graph.parameter_name(parameter) if is_open(graph) else None


def maniGraph_GetClipCount(graph) -> int:
    return graph.clip_count if is_open(graph) else 0


def maniGraph_GetClipIdentity(graph, clip: int) -> int:
    return (_item(graph.clip_identities, clip, "clip") or 0) if is_open(graph) else 0


def maniGraph_GetClipName(graph, clip: int):
    return graph.clip_name(clip) if is_open(graph) else None


def maniGraph_GetDatabaseCount(graph) -> int:
    return len(graph.database_identities) if is_open(graph) else 0


def maniGraph_GetDatabaseIdentity(graph, database: int) -> int:
    return (_item(graph.database_identities, database, "database") or 0) if is_open(graph) else 0


def maniGraph_GetDatabaseName(graph, database: int):
    return graph.database_name(database) if is_open(graph) else None


def maniGraph_GetModelCount(graph) -> int:
    return len(graph.model_identities) if is_open(graph) else 0


def maniGraph_GetModelIdentity(graph, model: int) -> int:
    return (_item(graph.model_identities, model, "model") or 0) if is_open(graph) else 0


def maniGraph_GetModelName(graph, model: int):
    return graph.model_name(model) if is_open(graph) else None


def maniGraph_GetSpringSetCount(graph) -> int:
    return len(graph.spring_set_identities) if is_open(graph) else 0


def maniGraph_GetSpringSetIdentity(graph, slot: int) -> int:
    return (_item(graph.spring_set_identities, slot, "slot") or 0) if is_open(graph) else 0


def maniGraph_GetSpringSetName(graph, slot: int):
    return graph.spring_set_name(slot) if is_open(graph) else None


def maniGraph_GetRetargetMapCount(graph) -> int:
    return len(graph.map_identities) if is_open(graph) else 0


def maniGraph_GetRetargetMapIdentity(graph, slot: int) -> int:
    return (_item(graph.map_identities, slot, "slot") or 0) if is_open(graph) else 0


def maniGraph_GetMirrorMapIdentity(graph) -> int:
    return graph.mirror_identity if is_open(graph) else 0


def maniGraph_GetRetargetMapSourceIdentity(graph, slot: int) -> int:
    return (_item(graph.map_source_identities, slot, "slot") or 0) if is_open(graph) else 0


def maniGraph_GetClipRetargetMap(graph, clip: int) -> int:
    m = _item(graph.clip_maps, clip, "clip") if is_open(graph) else None
    return NO_TRACK if m is None else m


def maniGraph_GetNodeKind(graph, node: int) -> int:
    return graph.node_kind(node) if is_open(graph) else 0


def maniGraph_GetNodeInputCount(graph, node: int) -> int:
    return len(graph.node_inputs(node)) if is_open(graph) else 0


def maniGraph_GetNodeInput(graph, node: int, input: int) -> int:
    if not is_open(graph):
        return GRAPH_NONE
    got = _item(graph.node_inputs(node), input, "input")
    return GRAPH_NONE if got is None else got


def maniGraph_GetOutputNode(graph) -> int:
    return graph.output_node if is_open(graph) else GRAPH_NONE


def maniGraph_GetNodeSourcePlace(graph, node: int) -> int:
    return graph.node_place(node) if is_open(graph) else GRAPH_NONE


def maniGraph_GetBindingSize(graph) -> int:
    return binding_size(graph) if is_open(graph) else 0


def maniBindGraph(graph, assets, memory=None, size=None):
    """(binding, unbound): unbound is GRAPH_NONE on success; a refusal for a slot no asset
    binds carries the slot as `.unbound` (clip slots first, then database, model, spring set
    and map slots, then the mirror map). A map slot binds first (its clips are of its map's
    source skeleton): to the map of its identity in `retarget_maps`, then to its source
    skeleton in `source_skeletons`."""
    if graph is None or assets is None:
        raise InvalidError("no graph or no assets")
    return GraphBinding(graph, assets, memory, size), GRAPH_NONE


def maniGraphBinding_GetInstanceSize(binding) -> int:
    return binding.instance_bytes if isinstance(binding, GraphBinding) else 0


def maniInitGraphInstance(binding, memory=None, size=None) -> GraphInstance:
    return GraphInstance(binding, memory, size)


def _instance(instance) -> GraphInstance:
    if not isinstance(instance, GraphInstance):
        raise InvalidError("no instance")
    return instance


def maniGraphInstance_SetParameter(instance, parameter: int, type, value) -> None:
    _instance(instance).set_parameter(parameter, type, value)


def maniGraphInstance_SetPose(instance, parameter: int, pose) -> None:
    _instance(instance).set_pose(parameter, pose)


def maniGraphInstance_GetPose(instance, parameter: int, poseOut) -> None:
    _instance(instance).get_pose(parameter, poseOut)


def maniGraphInstance_GetParameter(instance, parameter: int):
    return _instance(instance).get_parameter(parameter)


def maniGraphInstance_InspectNode(instance, node: int):
    return _instance(instance).inspect(node)


def maniGraphInstance_Save(instance, bytesOut=None, capacity=None):
    """The state's bytes (no buffer, no capacity); its size, measured (no buffer, capacity 0)
    or written into `bytesOut`'s first `capacity` bytes (CapacityError with .size when
    short)."""
    inst = _instance(instance)
    capacity = None if capacity is None else args.count(capacity, "capacity")
    if bytesOut is None:
        if capacity:
            raise InvalidError("no buffer with a positive capacity")
        return inst.save() if capacity is None else len(inst.save())
    view = args.writable_bytes(bytesOut, "bytesOut")
    return inst.save(view if capacity is None else view[:capacity])


def maniGraphInstance_Restore(instance, data) -> None:
    _instance(instance).restore(data)


def maniGraphInstance_Update(instance, delta: float, eventsOut=None, capacity=None):
    """(events, event count, root move); events are the first `capacity` listed (all when
    capacity is None), also put into eventsOut when it is a list. The count is how many the
    update listed. When a learned node's model fails (FormatError) the update has completed:
    eventsOut is filled all the same and the error's `.written` carries the three results,
    as CapacityError's `.count` carries the count the spec still writes."""
    inst = _instance(instance)
    if eventsOut is not None:
        args.of(eventsOut, list, "eventsOut")
    capacity = None if capacity is None else args.count(capacity, "capacity")
    if eventsOut is None and capacity:
        raise InvalidError("no events array with a capacity")
    try:
        events, count, move = inst.update(delta, capacity)
    except FormatError as err:
        if eventsOut is not None:
            eventsOut[:] = err.written[0]
        raise
    if eventsOut is not None:
        eventsOut[:] = events
    return events, count, move


def maniGraphBinding_GetScratchSize(binding) -> int:
    return binding.scratch_bytes if isinstance(binding, GraphBinding) else 0


def maniGraphInstance_Evaluate(instance, scratch, poseOut) -> None:
    if not isinstance(poseOut, Pose):
        raise InvalidError("no pose")
    _instance(instance).evaluate(poseOut, scratch)


def maniGraphBinding_GetSubsetSize(binding) -> int:
    return subset_size(binding) if isinstance(binding, GraphBinding) else 0


def maniPlanGraphSubset(binding, bones, memory=None, size=None) -> GraphSubset:
    return GraphSubset(binding, bones, memory, size)


def maniGraphSubset_GetBones(plan):
    return plan.get_bones() if isinstance(plan, GraphSubset) else None


def maniGraphInstance_EvaluateSubset(instance, plan, scratch, pose) -> None:
    if not isinstance(pose, Pose):
        raise InvalidError("no pose")
    evaluate_subset(_instance(instance), plan, pose, scratch)
