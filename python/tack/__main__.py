"""python -m tack [--json]: the installation's report (tack.info()), to paste into a bug report."""
import argparse
import json
import sys

from ._info import format_info, info


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tack",
                                     description="What this installation of Tack is and what it finds.")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = info()
    print(json.dumps(report, indent=2) if args.json else format_info(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
