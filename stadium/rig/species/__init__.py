"""The bundled species, built by code: one module per creature, each with ``build()``.

``python -m stadium.rig.species`` writes them to ``assets/species/<name>.pack``. The
output is byte-identical on every run, so the packs in the repository can be checked
against their source.
"""
from __future__ import annotations

from pathlib import Path

from ...paths import SPECIES
from .. import pack
from . import emberlisk, flitwren, gloopet, mosshoof, ripplewyrm, scrapkit

BUILDERS = (flitwren.build, mosshoof.build, emberlisk.build, ripplewyrm.build,
            scrapkit.build, gloopet.build)

ASSETS = SPECIES


def build_all() -> list[pack.Species]:
    return [build() for build in BUILDERS]


def file_name(species: pack.Species) -> str:
    return f"{species.name.lower()}.pack"


def write_all(directory: Path = ASSETS) -> list[Path]:
    """Build every species and save its pack into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for species in build_all():
        path = directory / file_name(species)
        pack.save(species, path)
        written.append(path)
    return written
