"""`python -m webimage …` and the `webimage` console script: the binary's own command line
(`webimage img2dataset --url_list=… …` is img2dataset's), run in place of this process."""

import os
import sys

from ._binary import binary_path


def main():
    binary = binary_path()
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
