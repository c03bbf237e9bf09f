"""The seeds' adaptation studies on a loaded index: cross-validation by halves (freq*), adaptation by
method 1 (history/test) and method 2 (df_2/df_1), priming, the shape of Pr(k) and fitted null models."""
