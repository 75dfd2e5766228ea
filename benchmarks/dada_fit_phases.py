"""CPU and resident memory of a default Dada fit, phase by phase (issue 33).

One default :class:`~skfed.boosting.DecentralizedBoostingClassifier` fit
on the "noisy" moons family of ``dada_experiments.py`` at ``n_nodes``
nodes, with the fit's steps wrapped: every call prints its CPU seconds,
the resident memory before and after, and the peak so far (sampled every
50 ms by a thread, with the phase it was seen in).  The generator's dense
oracle graph and the test set are freed and the high-water mark reset
(Linux) before the fit.  The last lines give the fit's CPU, its peak and
per-phase totals.

Usage::

    python benchmarks/dada_fit_phases.py 10000
"""

import functools
import gc
import sys
import threading
import time

from dada_experiments import moons_family

import skfed.boosting._dada as dada
import skfed.graph as graph
import skfed.network as network


def _status_mb(field):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


class _Phases:
    """Wraps methods; keeps per-phase CPU totals and the sampled peak."""

    def __init__(self):
        self.peak, self.peak_phase, self.phase = 0.0, "", "start"
        self.cpu, self.calls = {}, {}
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        while True:
            rss = _status_mb("VmRSS")
            if rss > self.peak:
                self.peak, self.peak_phase = rss, self.phase
            time.sleep(0.05)

    def wrap(self, owner, name, verbose):
        function = getattr(owner, name)

        @functools.wraps(function)
        def timed(*args, **kwargs):
            outer, self.phase = self.phase, name
            start, before = time.process_time(), _status_mb("VmRSS")
            result = function(*args, **kwargs)
            spent = time.process_time() - start
            self.cpu[name] = self.cpu.get(name, 0.0) + spent
            self.calls[name] = self.calls.get(name, 0) + 1
            if verbose:
                print(f"{name:24s} cpu {spent:7.2f} s  rss {before:7.0f} -> "
                      f"{_status_mb('VmRSS'):7.0f} MB  peak {self.peak:7.0f} "
                      f"({self.peak_phase})", flush=True)
            self.phase = outer
            return result

        setattr(owner, name, timed)


def main(n_nodes=10000, seed=0):
    phases = _Phases()
    Dada = dada.DecentralizedBoostingClassifier
    once = ["_agree_on_ranges", "_vote_on_features", "_agree_on_histogram", "_base_matrix",
            "_fit_alternating"]
    for name in once:
        phases.wrap(Dada, name, True)
    for name in ["run", "sparsify_to_connected"]:
        phases.wrap(graph._GraphRunner, name, False)
    for name in ["async_steps", "local_models"]:
        phases.wrap(dada._BoostingState, name, False)
    phases.wrap(network.NetworkSimulation, "log", True)
    X, X_test, y, y_test, g, g_test, oracle, clusters = moons_family("noisy", seed, n_nodes)
    del oracle, X_test, y_test, g_test
    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    print(f"data held: {_status_mb('VmRSS'):.0f} MB", flush=True)
    phases.peak = 0.0
    start = time.process_time()
    model = Dada(200, random_state=seed).fit(X, y, groups=g)
    print(f"fit: {time.process_time() - start:.1f} s CPU, peak {_status_mb('VmHWM'):.0f} MB "
          f"(sampled {phases.peak:.0f} MB in {phases.peak_phase})")
    for name, total in sorted(phases.cpu.items(), key=lambda item: -item[1]):
        print(f"  {name:24s} {phases.calls[name]:5d} calls {total:8.2f} s CPU")
    print(f"pairs talked: {model.communication_.pair_bytes_sparse.nnz}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
