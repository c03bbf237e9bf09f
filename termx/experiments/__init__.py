"""Experiments built on the applications: the white space recovery experiment and the demo corpus."""
