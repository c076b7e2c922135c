"""Which species the viewer can send out, and loading them once each."""
from __future__ import annotations

from pathlib import Path

from . import pack
from ..errors import UnknownSpecies
from ..paths import SPECIES


class Roster:
    """The packs in a folder, by name; a name can also be a path to a .pack file."""

    def __init__(self, folder: Path = SPECIES):
        self.paths = sorted(Path(folder).glob("*.pack"))
        self._loaded: dict[Path, object] = {}

    @property
    def names(self) -> list[str]:
        return [path.stem for path in self.paths]

    def path(self, name: str) -> Path:
        """The pack a name stands for: a file path as given, else a bundled species by
        file name, ignoring case. UnknownSpecies names what there is."""
        given = Path(name)
        if given.suffix == ".pack" or given.exists():
            return given
        for path in self.paths:
            if path.stem.lower() == name.lower():
                return path
        raise UnknownSpecies(f"no species {name!r}; bundled: {', '.join(self.names) or 'none'}")

    def load(self, name: str):
        """The Species for a name, loaded on first use (a PackError says why not)."""
        path = self.path(name)
        species = self._loaded.get(path)
        if species is None:
            species = self._loaded[path] = pack.load(path)
        return species

    def step(self, name: str, by: int) -> str:
        """The bundled species `by` places after `name`, wrapping around."""
        names = self.names
        if not names:
            return name
        lowered = [n.lower() for n in names]
        here = lowered.index(name.lower()) if name.lower() in lowered else -1
        return names[(here + by) % len(names)]
