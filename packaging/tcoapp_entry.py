"""Entry point of the frozen desktop bundle: the same `tcoapp` command as the installed package."""
import multiprocessing
import sys

from tcoapp.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
