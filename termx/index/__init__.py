"""The index pipeline, one module per stage: ingest -> units -> suffix -> classes -> docfreq, composed by build
(one shard in memory) and indexer (files to a stored corpus)."""
