"""`python -m termx` runs the CLI."""

from termx.launch import main

main()
