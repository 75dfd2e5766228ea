"""The command line of ``skfed compare`` (used by :mod:`skfed.__main__`)."""

import sys
import textwrap
import warnings

from ._datasets import DEFAULT_DATASET
from ._run import compare
from ._specs import _registry


def add_arguments(parser):
    """Options of ``skfed compare`` (used by :mod:`skfed.__main__`)."""
    parser.add_argument(
        "--dataset", default=DEFAULT_DATASET, metavar="NAME",
        help=f"dataset to compare on (default: {DEFAULT_DATASET}); --list shows all",
    )
    parser.add_argument(
        "--methods", nargs="+", metavar="NAME",
        help="methods to run (space- or comma-separated); default: every method "
        "that applies to the dataset's task",
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--seeds", nargs="+", type=int, metavar="SEED",
                       help="seeds of the repeats (default: 0)")
    group.add_argument("--repeats", type=int, metavar="N",
                       help="run seeds 0 .. N-1")
    parser.add_argument("--output-dir", metavar="DIR",
                        help="write results.csv, runs.csv, node_scores.csv, results.json, "
                        "table.txt and, with matplotlib, node_scores.png and score_vs_bytes.png")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 6 nodes, <= 80 training samples each, cheap settings")
    parser.add_argument("--n-jobs", type=int, default=None, help="node-parallel jobs")
    parser.add_argument("--no-plots", action="store_true", help="do not draw plots")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("--quiet", "-q", action="store_true",
                           help="no progress, only the table")
    verbosity.add_argument("--verbose", "-v", action="store_true",
                           help="also the methods' own progress (rounds)")
    parser.add_argument("--list", action="store_true",
                        help="list the datasets and methods, then exit")
    return parser


def list_registry():
    """The registered datasets and methods, one line each (``skfed compare --list``)."""
    lines = ["datasets:"]
    for name, spec in _registry("DATASETS").items():
        default = " (default)" if name == DEFAULT_DATASET else ""
        lines.append(f"  {name:<24} {spec.task:<11} {spec.description}{default}")
    lines.append("methods:")
    for name, spec in _registry("METHODS").items():
        lines.append(f"  {name:<24} {','.join(spec.tasks):<28} {spec.description}")
    return "\n".join(lines)


def run_cli(args, stdout=None):
    """Run ``skfed compare`` from parsed arguments; return the exit code."""
    stdout = sys.stdout if stdout is None else stdout
    if args.list:
        print(list_registry(), file=stdout)
        return 0
    methods = None
    if args.methods:
        methods = [m.strip() for item in args.methods for m in item.split(",") if m.strip()]
    if args.repeats is not None:
        if args.repeats < 1:
            raise ValueError("--repeats must be >= 1.")
        seeds = list(range(args.repeats))
    else:
        seeds = args.seeds or [0]
    verbose = 0 if args.quiet else (2 if args.verbose else 1)
    result = compare(
        args.dataset, methods, seeds=seeds, quick=args.quick, n_jobs=args.n_jobs,
        verbose=verbose,
    )
    print(result.format(), file=stdout)
    if result.notes and not args.quiet:
        print("\nWarnings raised during the fits:", file=stdout)
        if any("ConvergenceWarning" in note for note in result.notes):
            print(textwrap.fill(
                "(A ConvergenceWarning: the fit stopped at the iteration budget compare "
                "gives the method, before its tolerance; its row scores the model it "
                "returned.)", width=100, initial_indent="  ", subsequent_indent="  "),
                file=stdout)
        for note in result.notes:
            print(textwrap.fill(note, width=100, initial_indent="  ",
                                subsequent_indent="      "), file=stdout)
    if args.output_dir:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            paths = result.save(args.output_dir, plots=not args.no_plots)
        for warning in caught:
            print(f"\n{warning.message}", file=stdout)
        if not args.quiet:
            print(f"\nWrote {', '.join(p.name for p in paths)} to {args.output_dir}", file=stdout)
    return 0
