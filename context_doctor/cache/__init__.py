"""The doctor's caches: the store (document facts, history, memos), its codec, the replayed reports, the report-cache file."""
