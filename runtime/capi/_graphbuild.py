"""graphbuild.h: building graph files and their JSON text form.

Success returns None: the file (or, for maniWriteGraphJson, the UTF-8 text) is the
builder's to copy (maniBuilder_CopyBuilt). maniBuildGraphJson takes a GraphNamedAssets
(runtime.graph.json.read): the skeleton and the named clips and slots the text's names take,
and the retargeting maps the named clips play through (a clip slot takes its clip's map).
"""
from ..graph.build.build import build_graph
from ..graph.json.read import build_graph_json
from ..graph.json.write import write_graph_json

__all__ = ["maniBuildGraph", "maniWriteGraphJson", "maniBuildGraphJson"]

__pending__ = {}



def maniBuildGraph(builder, source) -> None:
    build_graph(builder, source)


def maniWriteGraphJson(builder, source) -> None:
    write_graph_json(builder, source)


def maniBuildGraphJson(builder, text, assets) -> None:
    build_graph_json(builder, text, assets)
