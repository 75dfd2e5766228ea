"""Fingerprints of fits and joins under drops, to prove a refactor of the
drop-wait rule changes nothing (drops36).

The rule "a message under the network's drops is sent in the first round,
from its step's start, in which the node it waits for is up; a step starts
once every message of the one before arrived" had three implementations
(MOCHA's ``FittedExchange`` and ``count_setup``, the gates' ``_deliver``);
drops36 made them one object, :class:`skfed._pending.DropWait`.  This script
runs the scenarios of the tests that pin the rule (mochagate34, setup34,
online34) and a sweep (MOCHA linear and ``kernel="rbf"`` with
``gamma="scale"``, Dada, Perso-lin and the online learner; Landmine and
rotated moons of 40 nodes; seeds 0-2; ``drop_rate`` 0 / 0.1 / 0.3; a fit and
a join of 10 samples a newcomer) and writes, per scenario, sha256 digests of

- ``model``: every array attribute of the fitted (and joined) estimator and
  its decision values on the fit's rows;
- ``log`` / ``join_log``: the communication logs: per-pair bytes and
  messages (sparse data, indices, pointers) and the per-round bytes and
  messages,

with the totals and round counts in the clear.  ``--compare a.json b.json``
lists every scenario whose digests differ.

Run (from the worktree; one process, about 10 minutes on one core)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 5 \\
        python benchmarks/drops36_drop_wait_identity.py --out before.json
    ... the same on the branch with --out after.json, then
    python benchmarks/drops36_drop_wait_identity.py --compare before.json after.json

Results (2026-11-29, main bcda3b7, drops36)
-------------------------------------------
``--out before.json`` on a copy of main bcda3b7, ``--out after.json`` on
branch drops36 (104a9fd), defaults (tests and sweep: 42 test scenarios, 90
sweep scenarios, each sweep one a fit and a join); ``--compare before.json
after.json``: **132 scenarios in both, 0 differ** (models, per-pair bytes
and messages, per-round bytes and messages of every fit and join log).
The drops reached the refactored code: on the test scenarios and on the
seed-0, drop-0.3 sweep, rounds in which a DropWait still waited for a node
were taken by the MOCHA join's FittedExchange (86 and 19), by count_setup
(148 and 6) and by _deliver from the Dada / Perso-lin gates and scatter
round (51) and the online join gate (17).  Conclusion: the one schedule
changes no fit, join, byte or round.

Results (2026-11-30, main c4765b6, drops37)
-------------------------------------------
drops37 moved five more loops onto DropWait (the feature-mean joins'
ask-until-answered loop of Dada / Perso-lin and of the online classifier,
the support-recovery join, Perso-lin's posterior join and the online join's
step 2, the last two with messages that wait for two nodes) and added the
``sites`` part (support on School; Dada ``join_neighbours="graph"`` and
Perso-lin ``join_neighbours="posterior"`` on Landmine and moons; seeds 0-2,
drop 0 / 0.1 / 0.3).  ``--out before.json`` on a copy of main c4765b6 with
this script (commit 336f8f2), ``--count-sites --out after.json`` on branch
drops37 (f28c324), defaults; ``--compare``: **177 scenarios in both, 0
differ**.  Rounds taken (and those after which a message still waited, so
drops hit the site): posterior_join 123 (96), mean_neighbour_join 39 (21),
online _join_features 19 (11), online _join_answers 24 (10), support
join_sparse_linear 23 (14); drops36's users: FittedExchange 292 (156),
count_setup 225 (186), _deliver 640 (302).  Conclusion: no fit, join, byte
or round changes.
"""

import argparse
import copy
import hashlib
import json
import sys
import warnings
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _digest(parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(np.ascontiguousarray(part).tobytes() if isinstance(part, np.ndarray)
                 else repr(part).encode())
    return h.hexdigest()[:20]


def _arrays(obj, seen=None, depth=0):
    """Every ndarray reachable from ``obj``'s attributes (sorted keys)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 4:
        return []
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return [obj] if obj.dtype != object else [a for x in obj for a in
                                                   _arrays(x, seen, depth + 1)]
    if isinstance(obj, (list, tuple)):
        return [a for x in obj for a in _arrays(x, seen, depth + 1)]
    if isinstance(obj, dict):
        return [a for k in sorted(obj, key=repr) for a in
                [np.frombuffer(repr(k).encode(), np.uint8)] + _arrays(obj[k], seen, depth + 1)]
    if hasattr(obj, "__dict__") and type(obj).__module__.startswith("skfed"):
        return _arrays(vars(obj), seen, depth + 1)
    return []


def _log_digest(log):
    if log is None:
        return None
    parts = [log.bytes_per_round, log.messages_per_round]
    for m in (log.pair_bytes_sparse, log.pair_messages_sparse):
        parts += [m.data, m.indices, m.indptr]
    return {"digest": _digest(parts), "total_bytes": log.total_bytes,
            "total_messages": log.total_messages, "n_rounds": log.n_rounds}


def fingerprint(est, X=None, g=None):
    parts = _arrays(vars(est))
    if X is not None:
        out = (est.decision_function(X, groups=g) if hasattr(est, "decision_function")
               else est.predict(X, groups=g))
        parts.append(np.asarray(out, dtype=np.float64))
    return {"model": _digest(parts),
            "log": _log_digest(getattr(est, "communication_", None)),
            "join_log": _log_digest(getattr(est, "join_communication_", None))}


# ------------------------------------------------------------- test scenarios
def mochagate_scenarios():
    from skfed.multitask import _join_neighbours as jn
    from tests import test_mochagate34_gate_drops as t

    with mock.patch.object(jn, "GATE_BYTE_SHARE", np.inf):
        for drop in (0.0, 0.3, 0.5):
            for regression in (False, True):
                for signal in (True, False):
                    est, new = t._fit(drop, regression=regression, signal=signal)
                    est.add_nodes(*new[:2], groups=new[2])
                    yield (f"mochagate34 drop={drop} reg={regression} signal={signal}",
                           fingerprint(est, new[0], new[2]))


def setup_scenarios():
    from tests import test_setup34_fit_setup_drops as t

    for name in t.CONFIGS:
        for drop in (0.0, 0.3, 0.6, 0.9):
            est, X, _, g, _ = t._fit(name, drop)
            yield f"setup34 {name} drop={drop}", fingerprint(est, X, g)


def online_scenarios():
    from tests import test_online34_join_means as t

    for header in (16, 200):
        est = t._fitted(header=header)
        est.add_nodes(*t._newcomers(np.array([6, 7, 9]))[:2],
                      groups=t._newcomers(np.array([6, 7, 9]))[2])
        Xn, yn, gn = t._newcomers(np.array([5, 8]), first=200, seed=12)
        est.add_nodes(Xn, yn, groups=gn)
        yield f"online34 header={header}", fingerprint(est, Xn, gn)


# ---------------------------------------------------------------------- sweep
# Families beyond new_nodes' own (its estimator with these parameters):
# drops37's join sites (Dada's candidate join, Perso-lin's posterior one).
VARIANTS = {"mocha-rbf": {"kernel": "rbf", "gamma": "scale", "max_rounds": 40},
            "dada-graph": {"join_neighbours": "graph"},
            "persolin-posterior": {"join_neighbours": "posterior"}}


def sweep_scenarios(seeds, drops, families, datasets):
    import new_nodes as nn

    from skfed.network import SimulatedNetwork

    for name in datasets:
        for seed in seeds:
            data = nn.load(name, seed, quick=True)
            X, y, groups, task = data[:4]
            fit_rows, _, order = nn.split(X, y, groups, seed, data[4] if len(data) > 4
                                            else None, quick=False)
            train, _ = nn.new_node_rows(order, 10)
            for family in families:
                base = family.split("-")[0]
                if task == ("classification" if base in nn.REGRESSION_ONLY
                            else "regression" if base in nn.CLASSIFICATION_ONLY else None):
                    continue
                for drop in drops:
                    est = nn.make_estimator(base, task, seed)
                    est.set_params(**VARIANTS.get(family, {}))
                    est.set_params(network=SimulatedNetwork(drop_rate=drop))
                    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
                    fitted = fingerprint(est, X[fit_rows], groups[fit_rows])
                    joined = copy.deepcopy(est)
                    joined.add_nodes(X[train], y[train], groups=groups[train])
                    yield (f"{family} {name} seed={seed} drop={drop}",
                           {"fit": fitted,
                            "join": fingerprint(joined, X[train], groups[train])})


def run(args):
    results = {}
    groups = []
    if "tests" in args.parts:
        groups += [mochagate_scenarios(), setup_scenarios(), online_scenarios()]
    if "sweep" in args.parts:
        groups.append(sweep_scenarios(args.seeds, args.drops, args.families, args.datasets))
    if "sites" in args.parts:  # (drops37: the joins' drop-wait loops)
        groups.append(sweep_scenarios(args.seeds, args.drops, args.site_families,
                                      args.site_datasets))
    if args.count_sites:
        count_sites()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for scenarios in groups:
            for key, value in scenarios:
                results[key] = value
                print(key, json.dumps(value), flush=True)
    Path(args.out).write_text(json.dumps(results, indent=1, sort_keys=True))
    if args.count_sites:
        for site, (n_rounds, n_waiting) in sorted(SITES.items()):
            print(f"site {site}: {n_rounds} rounds, {n_waiting} still waiting after the round")


# (site -> [rounds taken, rounds after which a message still waited])
SITES = {}


def count_sites():
    """Count, per caller of DropWait.take, the rounds and those a drop hit
    (a message left waiting): that the drops reached each site."""
    from skfed import _pending

    take = _pending.DropWait.take

    def counted(self, *args, **kwargs):
        frame = sys._getframe(1)
        code = frame.f_code
        if code.co_filename.endswith("_pending.py"):  # (a helper of _pending: its caller)
            code = frame.f_back.f_code
        site = f"{Path(code.co_filename).parent.name}/{Path(code.co_filename).name}:{code.co_name}"
        out = take(self, *args, **kwargs)
        entry = SITES.setdefault(site, [0, 0])
        entry[0] += 1
        entry[1] += int(not self.complete and bool(len(self.left)))
        return out

    _pending.DropWait.take = counted


def compare(a, b):
    a, b = json.loads(Path(a).read_text()), json.loads(Path(b).read_text())
    differ = [key for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
    for key in differ:
        print("DIFFERS:", key, "\n  ", a.get(key), "\n  ", b.get(key))
    print(f"{len(set(a) & set(b))} scenarios in both, {len(differ)} differ")
    return 1 if differ else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="drops36_fingerprints.json")
    p.add_argument("--parts", default="tests,sweep,sites")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--drops", default="0,0.1,0.3")
    p.add_argument("--families", default="mocha,mocha-rbf,dada,persolin,online")
    p.add_argument("--datasets", default="landmine,moons")
    p.add_argument("--site-families", default="support,dada-graph,persolin-posterior")
    p.add_argument("--site-datasets", default="school,landmine,moons")
    p.add_argument("--count-sites", action="store_true",
                   help="print, per caller of DropWait.take, the rounds a drop hit")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"))
    args = p.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    args.parts = args.parts.split(",")
    args.seeds = [int(s) for s in args.seeds.split(",")]
    args.drops = [float(s) for s in args.drops.split(",")]
    args.families = args.families.split(",")
    args.datasets = args.datasets.split(",")
    args.site_families = args.site_families.split(",")
    args.site_datasets = args.site_datasets.split(",")
    run(args)


if __name__ == "__main__":
    main()
