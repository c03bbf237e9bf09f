"""Joint document frequency jdf(x, y) = documents holding both x and y: exact from suffix-array intervals,
estimated from bottom-k MinHash sketches of every frequent class, association measures and related terms."""
