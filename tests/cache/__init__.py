"""Tests of tuner.cache (a package, so module names never clash with other folders' tests)."""
