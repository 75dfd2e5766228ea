"""How often the opposite-task guard fires on growing.rst's join table.

Runs ``benchmarks/new_nodes.py`` with the same arguments and counts, per
call of :func:`skfed._join_unlike.worse_than_chance` (every classifier join
of MOCHA, Dada / Perso-lin and the online learner), the newcomers tested
and the newcomers flagged.  A row with no flagged newcomer is bit-identical
to main's by construction (the guarded path returns before touching them).

Usage: ``python benchmarks/unlike36_guard_firing.py --families mocha
--datasets har,moons,landmine --seeds 0,1,2 --ks 5,10,20``.

Results: see the module's end (filled in by unlike36).
"""

import importlib
import os
import sys

import skfed._join_unlike as guard

COUNTS = {"tested": 0, "flagged": 0}
_original = guard.worse_than_chance


def _counting(pred, y, offsets, alpha=guard.ALPHA):
    out = _original(pred, y, offsets, alpha)
    COUNTS["tested"] += len(out)
    COUNTS["flagged"] += int(out.sum())
    return out


def _patch():
    guard.worse_than_chance = _counting
    for name in ("skfed.multitask._join_unlike", "skfed._graph_join_unlike",
                 "skfed.online._join_unlike"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "worse_than_chance"):
            module.worse_than_chance = _counting


if __name__ == "__main__":
    _patch()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import new_nodes

    sys.argv[0] = "new_nodes.py"
    new_nodes.main()
    print(f"guard: {COUNTS['tested']} newcomers tested, {COUNTS['flagged']} flagged")
