"""Seeded, shardable, resumable problem generators and self-describing dataset files."""
