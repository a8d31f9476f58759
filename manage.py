#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    from memadmin.cli.faults import main as run

    run(sys.argv)


if __name__ == "__main__":
    main()
