"""Command line of skfed: ``skfed compare`` (also ``python -m skfed compare``)."""

import argparse
import sys

__all__ = ["main"]


def _parser():
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="skfed",
        description="scikit-learn estimators for federated and decentralized "
        "personalized learning.",
    )
    parser.add_argument("--version", action="version", version=f"skfed {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    from .compare import add_arguments

    compare = commands.add_parser(
        "compare",
        help="compare the skfed methods with the Global and Local baselines on a dataset",
        description="Split every node's data into train and test, fit the Global "
        "baseline (one scikit-learn model on the pooled data), the Local baseline "
        "(one model per node) and every registered skfed method that applies, and "
        "print mean and worst per-node test score, bytes communicated and fit time.",
    )
    add_arguments(compare)
    return parser


def main(argv=None):
    """Entry point of the ``skfed`` console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "compare":
        from .compare import run_cli

        try:
            return run_cli(args)
        except (ValueError, FileNotFoundError) as exc:
            print(f"skfed compare: error: {exc}", file=sys.stderr)
            return 2
    parser.error(f"unknown command {args.command!r}")  # pragma: no cover
    return 2


if __name__ == "__main__":
    sys.exit(main())
