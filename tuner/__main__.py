"""`python -m tuner ...`: the `tuner` command line."""
import sys

from tuner.cli import main

if __name__ == "__main__":
    sys.exit(main(prog_name="tuner"))
