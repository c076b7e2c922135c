"""The battle viewer's entry point (stadium.app.cli: the options, checked).

With no arguments it opens a window on the playable battle (keys: --help); where no
window can open it plays a seeded battle headless and says where the frames went.
"""
import sys

from stadium.app.cli import main

if __name__ == "__main__":
    sys.exit(main())
