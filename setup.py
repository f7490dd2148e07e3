"""Maps the design card's top-level folders into the single `tuner` import namespace.

`cache/` installs as `tuner.cache`, `compiler/` as `tuner.compiler`, and so on; no top-level
`cache` or `compiler` module ever reaches site-packages.
"""
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).parent
FOLDERS = {"tuner": "tuner", "tuner.cache": "cache", "tuner.compiler": "compiler",
           "tuner.heuristics": "heuristics", "tuner.datagen": "datagen"}


def packages():
    found = []
    for name, folder in FOLDERS.items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            rel = init.parent.relative_to(ROOT / folder)
            found.append(".".join([name, *rel.parts]) if rel.parts else name)
    return found


setup(package_dir=FOLDERS, packages=packages())
