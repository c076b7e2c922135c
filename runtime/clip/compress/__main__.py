"""`python -m runtime.clip.compress`: the library command (runtime.clip.compress_cli). The
compressor is a package so that this runs without a second copy of its module."""
import sys

from ..compress_cli import main

sys.exit(main())
