"""Private support recovery: whose size decides a client's very-wide switch.

Without privacy every client runs the small-client rule of the same width,
``d > 20 median(n_i)`` (``skfed.support._rules.wide_clients``): very wide
clients keep the sphericity gate and one control per 4 samples.  Under a
finite privacy budget the clients' sizes are not sent, and reading their
median let one client's size change the test, so the randomized bits, of
the others (review32).  Since privsupport33 each client decides from ``d``
and its own size, ``d > 20 n_i`` (``own_wide_clients``).  This script
compares, under privacy, that rule (``own``) with the former one
(``median``, carried here by monkeypatching ``own_wide_clients``) and with
the two public constants (``never``: no client gated; ``always``: every
client gated), on the same data and the same flips
(``insecure_noise_seed``: a paired comparison of rules, not a guarantee).

Data: ``support_one_bit_rules.problem`` / ``clients`` (s support features
of 3 noise sd, centred clients), with sizes drawn per client.  Families
(``--family``): ``mixed`` (sizes uniform 5-15 at d = 200: the median 10 is
the switch's boundary), ``bimodal-narrow`` (40 % of 6 samples, 60 % of 14:
median 14, not wide), ``bimodal-wide`` (60 % of 6, 40 % of 14: median 6,
wide); held-out: ``many-small`` (sizes 3-7 at d = 100, 20,000 clients),
``alike`` (every client 10 samples: the rules agree by construction),
``noisy`` (d = 1000, sizes 20-80: mostly uninformative features), ``low``
(d = 20, sizes 5-15: no client is wide), ``high`` (d = 1000, sizes 8-60).

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_private_width.py \\
        --seeds 0 1 2 --epsilons 3 10

Prints, per family, design, epsilon and rule, the mean F1 of the support
and the number of exact fits over the seeds.  Measured 2026-11-29
(privsupport33): see RESULTS below.
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
