"""The `termx` console script and `python -m termx`: the command runs in the daemon when one takes it, else here.

Only the standard-library launcher (termx.daemon.client) is imported before that choice; the CLI (Typer,
SQLAlchemy, numpy...) only when the command runs in this process.
"""

import sys

from termx.daemon.client import forward


def main() -> None:
    """Console-script entry point."""
    code = forward(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from termx.cli import main as run_here

    run_here()


if __name__ == "__main__":
    main()
