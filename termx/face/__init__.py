"""The library face by capability (docs/design.md, "Layers"): `termx.Database` and `termx.api.Corpus` are put
together from the small classes here, so that the CLI, the HTTP app and Python callers reach every capability
through one object and the same records. Each module imports its engine and storage modules lazily, inside the
methods, so that `termx --help` and `termx stats` load only what they use."""
