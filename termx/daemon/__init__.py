"""The warm command process: an optional accelerator for the `termx` console script.

protocol: the wire format and the socket's location and checks; client: hand a command to the daemon (standard
library only, imported by termx.__main__ before anything else); server: start, stop and run the daemon around a
command function it is given (termx.cli.warm gives it the CLI's app). Nothing here imports termx.cli.
"""
