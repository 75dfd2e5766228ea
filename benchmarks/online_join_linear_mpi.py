"""``join_function="auto"`` on the MPI engine against the simulation, on HAR (online32).

The MPI engine used to refuse ``join_function="auto"``; its root now runs
the linear solve and gates asking its ranks for their nodes' answers
(``skfed.engines._mpi_online._LinearExchange``).  This script fits HAR
sitting (``new_nodes.py``'s split: 80 % of the subjects) with the default
estimator and ``join_function="auto"`` once in the simulation and once
with ``mpiexec -n R``, and prints whether ``w``, the gate and the counted
bytes are the same, the fit's simulated bytes with ``"auto"`` over the
default's (the simulated default fit), and the MPI traffic of the linear
exchange (``mpi_traffic_["network_linear"]``, pickled questions and
answers) against the fit's whole MPI traffic.

Run (``OPENBLAS_NUM_THREADS=1``; needs the ``mpi`` extra)::

    python benchmarks/online_join_linear_mpi.py --seeds 3 --ranks 2

Measured (2026-11-29, online32 at 9b22929, load 12-15), seed 3, 2 ranks::

    evaluations 55, t -5.53, factor x30; w bit for bit (max |dw| 0), gate
    and n_bytes_sent_ equal (80,902,431 B, 1.1212 x the default fit's);
    network_linear MPI traffic 3,356,426 B in 183 messages, of 90.4 GB of
    MPI traffic in the whole fit (the rounds' pickled dictionary copies).
"""

import argparse
import json
import os
import pathlib
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir))
import new_nodes as nn  # noqa: E402

from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402


def run(seed, ranks, timeout):
    from tests._helpers import mpi as helper

    X, y, g, _ = nn.load("har", seed)[:4]
    fit_rows, _, _ = nn.split(X, y, g, seed)
    Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
    make = dict(random_state=seed)
    default = DecentralizedKernelSGDClassifier(**make).fit(Xf, yf, groups=gf)
    sim = DecentralizedKernelSGDClassifier(join_function="auto", **make).fit(Xf, yf, groups=gf)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="online32_mpi_"))
    cases = helper.saved_cases(
        [("har", DecentralizedKernelSGDClassifier(join_function="auto", **make), Xf, yf, gf,
          None)], tmp)
    # tests/_helpers/mpi.py's launch, with longer timeouts (HAR under load)
    import pickle
    work = tmp / f"n{ranks}"
    work.mkdir()
    (work / "driver.py").write_text(helper._DRIVER.replace("timeout=60", f"timeout={timeout}"))
    with open(work / "cases.pkl", "wb") as f:
        pickle.dump([(name, est, str(d)) for name, est, d, *_ in cases], f)
    proc = helper.run_ranks(ranks, [str(work / "driver.py"), str(work / "cases.pkl"),
                                    str(work / "out.pkl"), pickle.dumps(None).hex()], work,
                            timeout=4 * timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    with open(work / "out.pkl", "rb") as f:
        run_ = pickle.load(f)["har"]
    a, b = sim.network_linear_gate_, run_.network_linear_gate_
    traffic = run_.mpi_traffic_
    total = sum(v["bytes"] for v in traffic.values())
    return dict(
        seed=seed, ranks=ranks, evaluations=int(a["evaluations"][0]),
        t=float(a["t"][0]), factor=float(a["alpha_factor"][0]),
        same_w=bool(np.array_equal(sim.network_linear_coef_[0], run_.network_linear_coef_[0])),
        max_dw=float(np.abs(sim.network_linear_coef_[0] - run_.network_linear_coef_[0]).max()),
        same_gate=bool(np.array_equal(a["t"], b["t"]) and np.array_equal(a["open"], b["open"])),
        same_bytes=bool(sim.n_bytes_sent_ == run_.n_bytes_sent_),
        fit_bytes=int(sim.n_bytes_sent_),
        fit_bytes_ratio=float(sim.n_bytes_sent_ / default.n_bytes_sent_),
        mpi_linear_bytes=int(traffic["network_linear"]["bytes"]),
        mpi_linear_messages=int(traffic["network_linear"]["messages"]),
        mpi_total_bytes=int(total))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="3")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds an engine message may take (the launch: 4x)")
    args = parser.parse_args()
    for seed in (int(s) for s in args.seeds.split(",")):
        print(json.dumps(run(seed, args.ranks, args.timeout)), flush=True)


if __name__ == "__main__":
    main()
