-- concordance: KWIC lines of a pattern in suffix-array order, like `termx concordance` and the slides' sufconc.
--
-- Contexts count tokens of the corpus's unit (bytes, characters, words); byte contexts are trimmed to whole
-- characters and word contexts are the tokens joined by single spaces.
-- :corpus   corpus name
-- :pattern  the pattern, read in the corpus's unit
-- :left     tokens of left context (default 10)
-- :right    tokens of right context (default 40)
-- :limit    lines (default 100)
SELECT *
FROM termx.concordance(CAST(:corpus AS text), CAST(:pattern AS text), CAST(:left AS integer),
                       CAST(:right AS integer), CAST(:limit AS integer));
