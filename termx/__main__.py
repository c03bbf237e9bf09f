"""`python -m termx` runs the CLI."""

from termx.cli import main

main()
