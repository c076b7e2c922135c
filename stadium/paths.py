"""Where the repository keeps what the code loads at run time."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHADERS = ROOT / "shaders"
SPECIES = ROOT / "assets" / "species"
RUNTIME_CLIPS = ROOT / "assets" / "runtime"     # the compressed clips the battle plays
