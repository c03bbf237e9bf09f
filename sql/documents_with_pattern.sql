-- documents_with_pattern: the documents that contain a pattern at least :k times (there are df_k of them).
--
-- Occurrences come from termx.occurrences (the suffix-array interval of the pattern, mapped to documents), so
-- overlapping occurrences count, exactly as in df_k: 'aa' occurs twice in 'aaa'.
-- Columns: doc_no, doc (document name), occurrences, first_offset (in tokens from the document's start).
-- :corpus   corpus name
-- :pattern  the pattern, read in the corpus's unit
-- :k        smallest number of occurrences (default 2)
SELECT o.doc_no, o.doc, count(*) AS occurrences, min(o.doc_offset) AS first_offset
FROM termx.occurrences(CAST(:corpus AS text), CAST(:pattern AS text)) o
GROUP BY o.doc_no, o.doc
HAVING count(*) >= CAST(:k AS integer)
ORDER BY occurrences DESC, o.doc_no;
