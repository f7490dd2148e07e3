"""Tuning-result cache: keys, local SQLite store, shared Redis store, integrity, stats, export/import."""
