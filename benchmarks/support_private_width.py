"""Private support recovery: which very-wide rule every client runs.

Without privacy every client runs the small-client rule of the same width,
``d > 20 median(n_i)`` (``skfed.support._rules.wide_clients``): very wide
clients keep the sphericity gate (0.5) and one control per 4 samples.
Under a finite privacy budget the clients' sizes are not sent, and reading
their median let one client's size change the test, so the randomized
bits, of the others (review32).  Since privsupport33 every private client
runs the very-wide rule (``always``, a public constant, the library's
rule).  This script compares, under privacy, that rule with the former one
(``median``), each client's own ``d > 20 n_i`` (``own``, privsupport33's
first fix) and no gate at all (``never``); the script carries those three
(``pass_with``: the clients split by their switch, each group passed with
it, monkeypatched into ``skfed.support._protocol`` for the fits).

Data: ``support_one_bit_rules.problem`` / ``clients`` (s support features
of 3 noise sd, centred clients), sizes drawn per client.  Families
(``--families``): ``mixed`` (sizes 5-15, d = 200, 6,000 clients: the median
10 is the switch's boundary), ``bimodal-narrow`` (40 % of 6 samples, 60 %
of 14: median 14, not wide), ``bimodal-wide`` (60 % of 6, 40 % of 14: median
6, wide), ``many-small`` (sizes 3-7, d = 100, 10,000 clients), ``alike``
(every client 10 samples, d = 200), ``noisy`` (d = 600, sizes 10-50, 1,500
clients: mostly uninformative features), ``low`` (d = 20, sizes 5-15, 3,000
clients), ``high`` (d = 600, s = 5, sizes 8-40, 1,500 clients).

Printed per family, design and rule: the clients' clean selection rates
(before randomized response: the weakest and mean support feature, the
mean and largest outside it), which is what the rule changes (the flips
and the server's test are the same for every rule), and the projected z
of the weakest support feature in the server's private test at each
epsilon (closed form from the rates, ``projected_z``); ``--fits`` also
runs the private fits (paired flips: ``insecure_noise_seed``).  At these
sizes the fits mostly find nothing at epsilon 3-10 except at d = 20.

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_private_width.py \\
        --seeds 0 1 2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_private_width.py \\
        --seeds 6 7 8 --rules own median always
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_private_width.py \\
        --families low --designs independent toeplitz block heterogeneous \\
        --rules own always --fits
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_private_width.py \\
        --families alike --designs block heterogeneous --rules own always

Measured 2026-11-29 (privsupport33).  Weakest support rate, seeds 0-2
(own / median / always; the largest rate outside the support in
brackets for always)::

    family          design       own    median  always
    mixed           independent  0.553  0.466   0.700 (0.331)
    mixed           toeplitz     0.493  0.464   0.524 (0.353)
    bimodal-narrow  independent  0.548  0.464   0.705 (0.332)
    bimodal-narrow  toeplitz     0.500  0.463   0.527 (0.346)
    bimodal-wide    independent  0.551  0.656   0.656 (0.333)
    bimodal-wide    toeplitz     0.480  0.500   0.500 (0.347)
    many-small      independent  0.450  0.450   0.534 (0.329)
    many-small      toeplitz     0.447  0.447   0.481 (0.360)
    alike           independent  0.431  0.431   0.706 (0.335)
    alike           toeplitz     0.426  0.426   0.493 (0.351)
    alike           block        0.426  0.426   0.464 (0.335)
    alike           heterogen.   0.430  0.430   0.626 (0.345)
    noisy           independent  0.902  0.797   0.917 (0.355)
    noisy           toeplitz     0.796  0.791   0.796 (0.371)
    low             independent  0.607  0.607   0.742 (0.315)
    low             toeplitz     0.556  0.556   0.587 (0.360)
    low             block        0.541  0.541   0.556 (0.330)
    low             heterogen.   0.589  0.589   0.674 (0.347)
    high            independent  0.744  0.778   0.778 (0.352)
    high            toeplitz     0.594  0.594   0.594 (0.357)

Private fits, ``low`` (3,000 clients, d = 20, epsilon 3, F1 own / always):
independent 0.933 / 1.000, Toeplitz 0.933 / 1.000, block 0.700 / 0.767,
heterogeneous 1.000 / 1.000; epsilon 10: 1.000 for both everywhere; no
feature outside the support in any fit.  The rates outside the support
stay below the private test's reference on this scale (0.39 at epsilon 3,
0.386 at any epsilon, with the default tolerance 0.1).  ``never`` is
never above ``median``.  Seeds 6-8 (confirmation, own / median / always):
the same order in every family and design run (mixed independent 0.553 /
0.464 / 0.700, Toeplitz 0.488 / 0.457 / 0.517; bimodal-narrow 0.545 /
0.460 / 0.707 and 0.496 / 0.458 / 0.524; bimodal-wide 0.546 / 0.656 /
0.656 and 0.482 / 0.500 / 0.500; alike 0.430 / 0.430 / 0.708 and 0.423 /
0.423 / 0.490; low 0.597 / 0.597 / 0.731 and 0.572 / 0.572 / 0.594;
many-small 0.451 / 0.451 / 0.539 and 0.436 / 0.436 / 0.471), largest
outside rate for always at most 0.363.
"""

import argparse
import importlib.util
import warnings
from pathlib import Path

import numpy as np

from skfed import DifferentialPrivacy, FederatedSupportRecovery
from skfed.support import _protocol, _rules

HERE = Path(__file__).resolve().parent

# family: (d, s, number of clients, sizes(rng, n_clients))
FAMILIES = {
    "mixed": (200, 3, 6000, lambda rng, g: rng.integers(5, 16, g)),
    "bimodal-narrow": (200, 3, 6000, lambda rng, g: np.where(rng.random(g) < 0.4, 6, 14)),
    "bimodal-wide": (200, 3, 6000, lambda rng, g: np.where(rng.random(g) < 0.6, 6, 14)),
    "many-small": (100, 3, 10000, lambda rng, g: rng.integers(3, 8, g)),
    "alike": (200, 3, 6000, lambda rng, g: np.full(g, 10)),
    "noisy": (600, 3, 1500, lambda rng, g: rng.integers(10, 51, g)),
    "low": (20, 3, 3000, lambda rng, g: rng.integers(5, 16, g)),
    "high": (600, 5, 1500, lambda rng, g: rng.integers(8, 41, g)),
}

RULES = {
    # each client's own d > 20 n_i (privsupport33's first rule)
    "own": lambda n, d: int(d) > _rules.GATE_OFF_FEATURES_PER_SAMPLE * np.asarray(n),
    # the median of every client's size (before privsupport33; the rule without privacy)
    "median": lambda n, d: np.full(len(n), _rules.wide_clients(n, d)),
    "never": lambda n, d: np.zeros(len(n), dtype=bool),
    "always": None,  # the library's rule under privacy (every client very wide)
}


def pass_with(rule):
    """``_client_pass`` running each client under ``rule``'s switch: the
    clients are split by their switch and each group passes with it."""
    original = _rules._client_pass

    def client_pass(X, y, w, offsets, lam, z, auto, center, n_jobs, n_positive=None,
                    wide=None, **kwargs):
        if RULES[rule] is None:
            return original(X, y, w, offsets, lam, z, auto, center, n_jobs,
                            n_positive=n_positive, wide=wide, **kwargs)
        n_positive = np.asarray(n_positive, dtype=np.int64)
        switch = RULES[rule](n_positive, X.shape[1])
        nbytes = (X.shape[1] + 7) // 8
        packed = np.zeros((len(n_positive), nbytes), dtype=np.uint8)
        ols = np.zeros(len(n_positive), dtype=bool)
        controls = np.zeros(len(n_positive), dtype=np.intp)
        tested = np.tile(np.packbits(np.ones(X.shape[1], dtype=bool), bitorder="little"),
                         (len(n_positive), 1))
        for value in (False, True):
            nodes = np.flatnonzero(switch == value)
            if not len(nodes):
                continue
            rows = np.concatenate([np.arange(offsets[i], offsets[i + 1]) for i in nodes])
            sub = np.concatenate([[0], np.cumsum(np.diff(offsets)[nodes])]).astype(np.intp)
            p, o, c, t = original(X[rows], y[rows], w[rows], sub, lam[nodes], z, auto, center,
                                  n_jobs, n_positive=n_positive[nodes], wide=bool(value),
                                  **kwargs)
            packed[nodes], ols[nodes], controls[nodes] = p, o, c
            if t is not None:
                tested[nodes] = t
        return packed, ols, controls, tested

    return client_pass


def _one_bit_rules():
    spec = importlib.util.spec_from_file_location(
        "support_one_bit_rules", HERE / "support_one_bit_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_data(family, design, seed, gen):
    d, s, g, sizes_of = FAMILIES[family]
    rng = np.random.default_rng([seed, 17])
    sizes = sizes_of(rng, g)
    support, w = gen.problem(design, d, s, seed)
    Xs, ys, groups = [], [], []
    for n in np.unique(sizes):
        who = np.flatnonzero(sizes == n)
        X, y = gen.clients(design, w, len(who), int(n), np.random.default_rng([seed, 11, int(n)]))
        Xs.append(X.reshape(-1, d))
        ys.append(y.reshape(-1))
        groups.append(np.repeat(who, n))
    return support, np.vstack(Xs), np.concatenate(ys), np.concatenate(groups)


def fit(rule, X, y, groups, epsilon, seed):
    own = _protocol._client_pass
    _protocol._client_pass = pass_with(rule)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FederatedSupportRecovery(
                privacy=DifferentialPrivacy(epsilon, delta=1e-6, insecure_noise_seed=seed),
                random_state=seed).fit(X, y, groups=groups)
    finally:
        _protocol._client_pass = own


def clean_rates(rule, X, y, groups, d):
    """Each feature's selection rate over the clients, before randomized
    response (the clients' pass under ``rule``, as the private fit runs it)."""
    order = np.argsort(groups, kind="stable")
    counts = np.bincount(groups)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    packed, *_ = pass_with(rule)(
        np.ascontiguousarray(X[order]), np.ascontiguousarray(y[order]), np.ones(len(y)),
        offsets, np.zeros(len(counts)), _rules.DEFAULT_AUTO_Z, True, True, None,
        n_positive=counts, wide=True)
    bits = np.unpackbits(packed, axis=1, bitorder="little")[:, :d]
    return bits.mean(axis=0)


def projected_z(rates, true, n_clients, d, epsilon):
    """The server's z score of the weakest support feature, projected in
    closed form from the clean rates: received rate ``p + (1 - 2 p) q``
    against the private reference ``(1 - beta) (p + (1 - 2 p) q0) + beta``
    (``beta`` 0.1) over ``n_clients k / d`` reports (``k``, ``p``: the
    fit's ``n_reported`` and flip probability at ``delta = 1e-6``)."""
    from skfed.privacy import calibrate_randomized_response
    from skfed.support._private import choose_n_reported
    spec = DifferentialPrivacy(epsilon, delta=1e-6)
    k = choose_n_reported("auto", d, spec)
    p = calibrate_randomized_response(epsilon, 1e-6, k).flip_probability
    q0 = _rules.null_selection_rate(_rules.DEFAULT_AUTO_Z)
    ref = 0.9 * (p + (1 - 2 * p) * q0) + 0.1
    q = p + (1 - 2 * p) * rates[true].min()
    m = n_clients * k / d
    return (q - ref) / np.sqrt(q * (1 - q) / m)


def f1(found, true):
    tp = int(np.sum(found & true))
    return 2.0 * tp / (int(found.sum()) + int(true.sum())) if found.any() else 0.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES))
    parser.add_argument("--designs", nargs="+", default=["independent", "toeplitz"])
    parser.add_argument("--epsilons", nargs="+", type=float, default=[3.0, 10.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--rules", nargs="+", default=list(RULES))
    parser.add_argument("--fits", action="store_true",
                        help="also run the private fits (F1 / exact / features outside)")
    args = parser.parse_args(argv)
    gen = _one_bit_rules()
    print("clean rates (support min / mean, outside mean / max) and the projected z of "
          "the weakest support feature at each epsilon, mean over seeds")
    for family in args.families:
        d, _, g, _ = FAMILIES[family]
        for design in args.designs:
            data = [make_data(family, design, seed, gen) for seed in args.seeds]
            for rule in args.rules:
                rows = []
                for true, X, y, groups in data:
                    r = clean_rates(rule, X, y, groups, d)
                    rows.append([r[true].min(), r[true].mean(), r[~true].mean(), r[~true].max()]
                                + [projected_z(r, true, g, d, e) for e in args.epsilons])
                m = np.mean(rows, axis=0)
                print(family, design, rule, " ".join(f"{v:.3f}" for v in m[:4]), "z:",
                      " ".join(f"{v:.2f}" for v in m[4:]), flush=True)
                if args.fits:
                    for eps in args.epsilons:
                        scores, exact, outside = [], 0, 0
                        for seed, (true, X, y, groups) in zip(args.seeds, data):
                            est = fit(rule, X, y, groups, eps, seed)
                            scores.append(f1(est.support_, true))
                            exact += int(np.array_equal(est.support_, true))
                            outside += int(est.support_[~true].sum())
                        print(f"  fits eps={eps:g}: F1 {np.mean(scores):.3f} exact {exact} "
                              f"outside {outside}", flush=True)


if __name__ == "__main__":
    main()
