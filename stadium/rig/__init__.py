"""Species packs (pack, species/, roster), the CPU rig after StadiumRig.lua (rig), and their
conversion to runtime skeletons and clips (convert). No GL and no window here."""
from .pack import PackError, Species
from .rig import StadiumRig
from .roster import Roster

__all__ = ["PackError", "Species", "StadiumRig", "Roster"]
