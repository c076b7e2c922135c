"""Animation graphs: node sources (source), the build and its checks (build/), the JSON
form (json/), the file (file, format), binding to assets, instances and their update
(update/) and evaluation (evaluate/), saved states, subsets and batches."""
from . import source
from .batch import evaluate_batch, update_batch
from .binding import GraphAssets, GraphBinding, bind
from .build.build import build_graph
from .file import Graph
from .instance import GraphInstance, GraphNodeView, GraphValue, compile_graph_aside
from .json.read import GraphNamedAssets, build_graph_json
from .json.write import write_graph_json
from .source import GraphSource
from .subset import GraphSubset, evaluate_subset

__all__ = ["source", "evaluate_batch", "update_batch", "GraphAssets", "GraphBinding", "bind",
           "build_graph", "Graph", "GraphInstance", "GraphNodeView", "GraphValue",
           "GraphNamedAssets", "build_graph_json", "write_graph_json", "GraphSource",
           "GraphSubset", "evaluate_subset", "compile_graph_aside"]
