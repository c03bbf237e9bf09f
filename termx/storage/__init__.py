"""Storage: the database engine and migrations (db), the embedded server (embedded), binary COPY (copyrows), corpora
in PostgreSQL (store), the loaded index and its disk cache (loaded), analyst SQL files (sqlfiles) and paths."""
