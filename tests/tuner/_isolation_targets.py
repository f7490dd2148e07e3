"""Functions a spawned benchmark worker runs in tests (importable by name; no torch import)."""
import os
import time


def fast(ms):
    return ms


def crash():
    os._exit(3)  # what a segfaulting kernel looks like to the parent


def hang():
    while True:  # what a deadlocked kernel looks like
        time.sleep(0.05)


def fail():
    raise RuntimeError("illegal memory access")
