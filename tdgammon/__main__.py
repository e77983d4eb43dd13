"""``python -m tdgammon`` runs the command line, exactly like ``tdgammon``."""

import sys

from tdgammon.engine.interfaces.cli import main

if __name__ == "__main__":
    sys.exit(main())
