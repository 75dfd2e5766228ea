"""Does rounding MOCHA's rehearsal reports to 8 bits change the server's choices?

bytes38's rule (``skfed/multitask/_rehearsal_bytes.py``) sends a draw's float
reports as one float64 scale (its largest) and 8-bit integers of it where
float64 reports would cost more than a tenth of the fit's bytes; the server
chooses the centre and the scale on what it decodes.  A report under 1/254
of its draw's largest decodes to 0, so a draw whose worst scale errs 500
times more than its best loses its good reports' order.  This measures, on
``benchmarks/user37_small_federation_join.py``'s "MOCHA regressor" sites
(the federations where the rule rounds), the range within a draw and the
joins with the server deciding on the float64 values instead (the bytes
are the same: only the decision is swapped, by wrapping
``_rehearsal.quantized_reports``).

Usage: ``python benchmarks/review41_report_rounding.py --sites 8 --seeds 0 1
2 3 4 --ks 5 10 20`` (joins), ``--range --sites 4 8 20 --seeds 0 1 2``
(the reports' range).

Results (2026-11-30, main 8f18be67, review41; one BLAS thread):

- joins, 8 sites, seeds 0-4, ``k = 5, 10, 20`` (15 joins, each rounding
  one draw set): the joined R^2 is the same to 4 decimals on 14; seed 2
  ``k = 20``: 0.9938 rounded, 0.9944 on float64 (-0.0007).
- range, 4 / 8 / 20 sites, seeds 0-2, ``k = 5, 10, 20``: a draw's largest
  over its smallest report, quantiles 50 / 90 / 99 / max: 8.2 / 81.9 /
  250 / 583; 26 of 18,720 nonzero reports decoded to 0.

Conclusion: the 8-bit reports change the server's choice rarely and by
little on these families; no change proposed.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from user37_small_federation_join import run

from skfed.multitask import _rehearsal

ROW = "MOCHA regressor"


def joins(sites, seeds, ks):
    """Per seed and ``k`` the joined score with the server deciding on the
    decoded reports and on their float64 values."""
    decode = _rehearsal.quantized_reports
    out = []
    for seed in seeds:
        for k in ks:
            rounded = run(ROW, seed, k, n_sites=sites)
            _rehearsal.quantized_reports = lambda errors, bits, floats: errors
            try:
                exact = run(ROW, seed, k, n_sites=sites)
            finally:
                _rehearsal.quantized_reports = decode
            out.append((seed, k, rounded[1], exact[1], rounded[3], exact[3]))
    return out


def report_range(sites_list, seeds, ks):
    """Every rounded draw's largest over smallest report, and how many
    nonzero reports decode to 0 (of how many)."""
    decode = _rehearsal.quantized_reports
    ratios, zeros, total = [], 0, 0

    def spy(errors, bits, floats):
        nonlocal zeros, total
        decoded = decode(errors, bits, floats)
        S, D = np.concatenate(errors), np.concatenate(decoded)
        finite = np.isfinite(S).all(axis=0)
        ratios.extend((S[:, finite].max(0) / np.maximum(S[:, finite].min(0), 1e-300)).tolist())
        zeros += int(np.sum((D == 0) & (S != 0)))
        total += S.size
        return decoded

    _rehearsal.quantized_reports = spy
    try:
        for sites in sites_list:
            for seed in seeds:
                for k in ks:
                    run(ROW, seed, k, n_sites=sites)
    finally:
        _rehearsal.quantized_reports = decode
    return np.asarray(ratios), zeros, total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, nargs="+", default=[8])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--range", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.range:
        ratios, zeros, total = report_range(args.sites, args.seeds, args.ks)
        print("largest / smallest report, quantiles 50/90/99/max:",
              np.percentile(ratios, [50, 90, 99, 100]).round(1).tolist(),
              f"decoded to 0: {zeros} of {total}")
        return
    for sites in args.sites:
        for seed, k, rounded, exact, b1, b2 in joins(sites, args.seeds, args.ks):
            print(f"sites {sites} seed {seed} k {k:2d}: rounded {rounded:.4f} "
                  f"float64 {exact:.4f} diff {rounded - exact:+.4f} bytes {b1:.3f} / {b2:.3f}")


if __name__ == "__main__":
    main()
