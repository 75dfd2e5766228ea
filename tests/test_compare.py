"""Tests of the main job, ``skfed compare``."""

import csv
import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from skfed import compare as cmp
from skfed.__main__ import main


def _printed_rows(text):
    """Rows of the printed table: {method: [cells]}."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("method"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells[1:]
    return rows


def _read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_quick_end_to_end_table_matches_files(tmp_path, capsys):
    code = main(["compare", "--quick", "--output-dir", str(tmp_path)])
    assert code == 0
    captured = capsys.readouterr()
    printed = _printed_rows(captured.out)
    # The defaults on har-sitting: every registered method for its task.
    expected = cmp.applicable_methods("binary", "har-sitting")
    assert list(printed) == expected
    assert expected[:2] == ["global-linear", "local-linear"]
    # progress went to stderr: which model, which seed
    assert "seed 0: fitting global-linear" in captured.err
    assert "seed 0: fitting local-linear" in captured.err

    table = _read_csv(tmp_path / "results.csv")
    assert [row["method"] for row in table] == list(printed)
    for row in table:
        cells = printed[row["method"]]
        assert cells[0] == f"{float(row['mean_node_score']):.4f}"
        assert cells[1] == f"{float(row['worst_node_score']):.4f}"
        assert cells[2] == f"{float(row['pooled_score']):.4f}"
        assert cells[3].rstrip(" *").replace(",", "") == row["bytes_sent"]
        assert cells[4] == f"{float(row['fit_time_s']):.3f}"

    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["info"]["dataset"] == "har-sitting"
    assert payload["info"]["n_nodes"] == 6 and payload["info"]["n_features"] == 561
    for row, json_row in zip(table, payload["table"]):
        assert float(row["mean_node_score"]) == json_row["mean_node_score"]
        assert int(row["bytes_sent"]) == json_row["bytes_sent"]
    # the summary is the mean / min of the per-node scores it stores
    for run, json_row in zip(payload["runs"], payload["table"]):
        scores = np.array(list(run["node_scores"].values()))
        assert len(scores) == 6
        assert np.isclose(scores.mean(), json_row["mean_node_score"])
        assert np.isclose(scores.min(), json_row["worst_node_score"])
    assert (tmp_path / "table.txt").read_text().startswith("skfed compare: har-sitting")
    node_rows = _read_csv(tmp_path / "node_scores.csv")
    assert len(node_rows) == 6 * len(expected)  # 6 nodes in --quick, every method


def test_byte_counts_global_and_local(capsys):
    result = cmp.compare(quick=True, verbose=0)
    info = result.info
    by_method = {row["method"]: row for row in result.table}
    # Global: every raw float32 value (4 B), every target (8 B), one 16 B
    # header per node, counted by hand.
    expected = info["n_train"] * info["n_features"] * 4 + 8 * info["n_train"] + 16 * info["n_nodes"]
    assert expected == 480 * 561 * 4 + 8 * 480 + 16 * 6
    assert by_method["global-linear"]["bytes_sent"] == expected
    assert by_method["local-linear"]["bytes_sent"] == 0
    assert "raw-data upload" in result.format()


def test_scores_match_an_independent_refit():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    result = cmp.compare("landmine", quick=True, verbose=0, seeds=[3])
    data = cmp._quick_subset(cmp.DATASETS["landmine"].load(3), 3)
    model = make_pipeline(StandardScaler(), LinearSVC(C=0.1, max_iter=10000, random_state=3))
    pred = model.fit(data.X_train, data.y_train).predict(data.X_test)
    per_node = [
        np.mean(pred[data.groups_test == g] == data.y_test[data.groups_test == g])
        for g in np.unique(data.groups_test)
    ]
    row = next(r for r in result.table if r["method"] == "global-linear")
    assert np.isclose(row["mean_node_score"], np.mean(per_node))
    assert np.isclose(row["worst_node_score"], np.min(per_node))
    assert np.isclose(row["pooled_score"], np.mean(pred == data.y_test))
    # Local: one model per node
    run = next(r for r in result.runs if r["method"] == "local-linear")
    for g in np.unique(data.groups_test):
        rows_tr, rows_te = data.groups_train == g, data.groups_test == g
        if len(np.unique(data.y_train[rows_tr])) < 2:
            continue
        local = make_pipeline(StandardScaler(), LinearSVC(C=0.1, max_iter=10000, random_state=3))
        local.fit(data.X_train[rows_tr], data.y_train[rows_tr])
        accuracy = np.mean(local.predict(data.X_test[rows_te]) == data.y_test[rows_te])
        assert np.isclose(run["node_scores"][g], accuracy)


class _AlwaysOne(ClassifierMixin, BaseEstimator):
    """A fake federated method: predicts +1, 'sends' 100 bytes per node."""

    def fit(self, X, y, groups=None):
        self.classes_ = np.unique(y)
        self.n_bytes_sent_ = 100 * len(np.unique(groups))
        return self

    def predict(self, X, groups=None):
        assert groups is not None  # per-node methods get the node ids
        return np.ones(len(X), dtype=int)


def test_registered_method_appears_in_the_table(monkeypatch):
    monkeypatch.setattr(cmp, "METHODS", dict(cmp.METHODS))
    cmp.register_method(
        cmp.MethodSpec("always-one", lambda ctx: _AlwaysOne(), tasks=("binary",))
    )
    assert "always-one" in cmp.applicable_methods("binary", "har-sitting")
    assert "always-one" not in cmp.applicable_methods("regression")
    result = cmp.compare(quick=True, verbose=0)
    row = next(r for r in result.table if r["method"] == "always-one")
    assert row["bytes_sent"] == 600
    data = cmp._quick_subset(cmp.DATASETS["har-sitting"].load(0), 0)
    assert np.isclose(row["pooled_score"], np.mean(data.y_test == 1))
    with pytest.raises(ValueError, match="already registered"):
        cmp.register_method(cmp.MethodSpec("always-one", lambda ctx: _AlwaysOne()))


def test_repeats_and_method_selection(capsys):
    code = main(["compare", "--quick", "--quiet", "--repeats", "2",
                 "--dataset", "computer-classification", "--methods", "local-linear,global-adaboost"])
    assert code == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --quiet: no progress
    printed = _printed_rows(captured.out)
    assert list(printed) == ["local-linear", "global-adaboost"]
    assert "±" in printed["local-linear"][0]
    assert "seeds: 0, 1" in captured.out


def test_errors_are_clear(capsys):
    assert main(["compare", "--dataset", "nope", "--quick"]) == 2
    assert "Unknown dataset" in capsys.readouterr().err
    assert main(["compare", "--methods", "nope", "--quick"]) == 2
    assert "Unknown method" in capsys.readouterr().err
    assert main(["compare", "--dataset", "school-regression", "--methods",
                 "global-adaboost", "--quick"]) == 2
    assert "do not apply" in capsys.readouterr().err


def test_list(capsys):
    assert main(["compare", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("har-sitting", "school-classification", "landmine", "global-linear",
                 "local-adaboost"):
        assert name in out


def test_python_dash_m_entry_point(tmp_path):
    # Run outside the repository: `python -m` puts the working directory
    # first on sys.path, where the unbuilt source tree would shadow the
    # installed package.
    proc = subprocess.run(
        [sys.executable, "-m", "skfed", "compare", "--quick", "--quiet",
         "--dataset", "school-classification", "--methods", "global-linear"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    rows = _printed_rows(proc.stdout)
    assert list(rows) == ["global-linear"]
    assert "official split 1 of 10" in proc.stdout


def test_plots_written_when_matplotlib_is_installed(tmp_path):
    pytest.importorskip("matplotlib")
    result = cmp.compare("landmine", quick=True, verbose=0)
    paths = result.save(tmp_path)
    names = {p.name for p in paths}
    assert {"node_scores.png", "score_vs_bytes.png", "results.csv"} <= names
    assert (tmp_path / "node_scores.png").stat().st_size > 1000


def test_plots_have_a_legend_for_every_mark(tmp_path, monkeypatch):
    # Issue 31: node_scores.png had no legend for its mean and median marks and
    # score_vs_bytes.png wrote labels over each other; the majority floor and
    # the raw upload the reasons refer to are drawn and named too.
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    result = cmp.compare("landmine", quick=True, verbose=0)
    result.save(tmp_path)
    monkeypatch.undo()
    legends = {fig.axes[0].get_title().split(": ")[1]:
               [t.get_text() for t in fig.axes[0].get_legend().get_texts()] for fig in figures}
    floor = result.info["majority_class"][0]
    boxes = legends["per-node scores (6 nodes)"]
    assert boxes == ["median node", "mean node (table's mean)", "middle half of the nodes",
                     "whiskers: farthest nodes within 1.5 box heights",
                     "nodes beyond the whiskers",
                     f"floor: every node predicts its majority label (mean {floor:.3f})"]
    points = legends["score against communication"]
    rows = {row["method"]: row for row in result.table}
    assert points[:len(rows)] == [
        f"{m} ({r['bytes_sent']:,} B, {r['mean_node_score']:.3f})" for m, r in rows.items()]
    assert points[len(rows):] == [
        f"floor: every node predicts its majority label (mean {floor:.3f})",
        "raw-data upload (the Global rows)"]
    # No text is written next to the points (the labels are in the legend).
    assert not figures[1].axes[0].texts
    for fig in figures:
        plt.close(fig)


def test_progress_to_given_stream():
    log = io.StringIO()
    cmp.compare("landmine", ["local-linear"], quick=True, verbose=1, log=log)
    text = log.getvalue()
    assert "[1/1] seed 0: fitting local-linear on 6 nodes" in text


class _LongWarning(_AlwaysOne):
    def fit(self, X, y, groups=None):
        import warnings

        warnings.warn("a long warning whose advice comes last " + "x " * 100 + "THE ADVICE.",
                      UserWarning)
        return super().fit(X, y, groups)


def test_output_explains_itself(monkeypatch, tmp_path, capsys):
    # Issue 20: warnings were cut mid-word, the HAR footnote cited a file users
    # do not have, --quick printed the papers' figures as if comparable, and
    # nothing said which methods were left out of a dataset, or that plots
    # were skipped without matplotlib.
    monkeypatch.setattr(cmp, "METHODS", dict(cmp.METHODS))
    cmp.register_method(cmp.MethodSpec("long-warning", lambda ctx: _LongWarning(),
                                       tasks=("binary",)))
    code = main(["compare", "--quick", "--dataset", "har-sitting",
                 "--methods", "local-linear,long-warning"])
    assert code == 0
    out = capsys.readouterr().out
    assert "shared/data/README.md" not in out
    assert "Reference (full data, not comparable with this --quick run)" in out
    assert "--quick: a smoke run on a small slice" in out
    assert "THE ADVICE." in out  # the whole warning, wrapped at word boundaries
    assert "(A ConvergenceWarning" not in out  # only said when one was raised
    assert all(len(line) <= 100 for line in out.split("Warnings raised")[1].splitlines())

    result = cmp.compare("computer-regression", quick=True, verbose=0)
    baselines = ["global-linear", "local-linear", "global-svm", "local-svm",
                 "global-lassocv", "local-lassocv"]
    assert [row["method"] for row in result.table] == baselines
    assert set(result.info["not_run_by_default"]) == (
        set(cmp.applicable_methods("regression")) - set(baselines)
    )
    text = result.format()
    note = text[text.index("Not run by default, since computer-regression is not among"):]
    note = note.replace("\n", " ")
    assert "(add them with --methods)" in note
    assert "mocha-linear" in note and "fed-sparse-linear" in note

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.warns(UserWarning, match=r"matplotlib is not installed, so node_scores.png"):
        paths = result.save(tmp_path)
    assert "node_scores.png" not in {p.name for p in paths}


def test_split_is_called_stratified_only_for_classes():
    assert cmp.DATASETS["landmine"].load(0).split == "per-node 75%/25% split (stratified)"
    assert cmp.DATASETS["sparse-regression"].load(0).split == "per-node 75%/25% split"


def _run(method, node_scores, samples, *, train, n_bytes=0, n_messages=0, seed=0):
    scores = np.array(list(node_scores.values()))
    return {
        "method": method, "seed": seed, "mean_node_score": float(scores.mean()),
        "worst_node_score": float(scores.min()), "pooled_score": float(np.mean(samples)),
        "bytes_sent": n_bytes, "fit_time_s": 0.1, "n_nodes_scored": len(scores),
        "node_scores": node_scores, "warnings": [], "train_score": train,
        "node_train_scores": dict(node_scores), "node_train_sizes": dict.fromkeys(node_scores, 20),
        "node_test_sizes": dict.fromkeys(node_scores, 100), "n_rounds": 10,
        "n_messages": n_messages, "raw_bytes": 1000, "n_features": 5,
        "_sample_scores": np.asarray(samples, dtype=float),
    }


def _result(runs):
    methods = list(dict.fromkeys(r["method"] for r in runs))
    info = {"dataset": "toy", "description": "toy", "reference": "", "task": "binary",
            "metric": "accuracy", "split": "", "n_nodes": 40, "n_train": 800, "n_test": 4000,
            "n_features": 5, "seeds": [0], "quick": False, "methods": methods,
            "not_run_by_default": [], "bytes_notes": {}}
    return cmp.CompareResult(table=cmp._summarize(runs, methods), runs=runs, info=info)


def test_every_loss_to_a_baseline_gets_a_measured_reason(monkeypatch):
    # Issue 31: rows below a baseline (or sending more than the raw upload)
    # were printed without a word.  The reasons come from the runs: paired
    # noise, training scores, and the method's documented properties.
    monkeypatch.setattr(cmp, "METHODS", dict(cmp.METHODS))
    cmp.register_method(cmp.MethodSpec("noisy", lambda ctx: None, behind_note="NOISY NOTE"))
    cmp.register_method(cmp.MethodSpec("weak", lambda ctx: None, behind_note="WEAK NOTE",
                                       bytes_why="WEAK BYTES"))
    cmp.register_method(cmp.MethodSpec("strong", lambda ctx: None))
    rng = np.random.RandomState(0)
    nodes = range(40)
    base_nodes = {k: 0.70 + 0.1 * rng.uniform() for k in nodes}
    base_samples = (rng.uniform(size=4000) < 0.75).astype(float)
    # noisy: per node +-0.05 around the baseline, a mean 0.004 lower; the
    # samples differ from the baseline's at random in a few places.
    noise = rng.choice([-0.05, 0.05], size=40) - 0.004
    noisy_nodes = {k: base_nodes[k] + noise[k] for k in nodes}
    # ...and 40 correct test samples turn wrong, 36 wrong ones right.
    noisy_samples = base_samples.copy()
    noisy_samples[np.flatnonzero(base_samples == 1)[:40]] = 0
    noisy_samples[np.flatnonzero(base_samples == 0)[:36]] = 1
    # weak: 0.2 lower on every node and sample-wise much worse.
    weak_nodes = {k: base_nodes[k] - 0.2 for k in nodes}
    weak_samples = base_samples * (rng.uniform(size=4000) < 0.7)
    strong_nodes = {k: base_nodes[k] + 0.05 for k in nodes}
    runs = [
        _run("global-linear", base_nodes, base_samples, train=0.8, n_bytes=10_000),
        _run("noisy", noisy_nodes, noisy_samples, train=0.8, n_bytes=500, n_messages=5),
        _run("weak", weak_nodes, weak_samples, train=0.6, n_bytes=35_000, n_messages=70),
        _run("strong", strong_nodes, np.ones(4000), train=0.9, n_bytes=900, n_messages=3),
    ]
    result = _result(runs)
    reasons = {line.split(":")[0]: line for line in cmp.loss_reasons(result)}
    assert set(reasons) == {"noisy", "weak"}  # the strong row and the baseline lose nothing
    noisy = reasons["noisy"]
    diff = [noisy_nodes[k] - base_nodes[k] for k in nodes]
    mean, se = np.mean(diff), np.std(diff, ddof=1) / np.sqrt(40)
    assert abs(mean) < 2 * se
    row = next(r for r in result.table if r["method"] == "noisy")
    assert (f"vs global-linear [noise: mean {row['mean_node_score']:.3f}/"
            f"{result.table[0]['mean_node_score']:.3f} ({mean:+.3f} ± {se:.3f} over nodes)"
            in noisy)
    assert "below" not in noisy and "NOISY NOTE" not in noisy  # no significant loss
    assert "bytes" not in noisy  # 500 B, under the raw upload
    weak = reasons["weak"]
    assert "below: mean" in weak and "(-0.200 ± 0.000 over nodes)" in weak
    assert "training 0.600/0.800: underfits" in weak and "why: WEAK NOTE" in weak
    assert ("bytes 3.5 x the raw upload (70 messages in 10 rounds, 500 B each): "
            "WEAK BYTES") in weak
    # The worst node: 0.2 below, 20 of its 100 test samples, beyond one
    # node's binomial noise.
    worst = min(weak_nodes, key=weak_nodes.get)
    assert f"node {worst!r}: 20 training samples" in weak
    text = result.format()
    assert "Why a row scores below a baseline" in text
    assert "pooled accuracy: accuracy over the test samples of all nodes together" in text


def test_files_hold_rounded_values(tmp_path):
    runs = [_run("global-linear", {0: 0.49819999999999987, 1: 1 / 3}, [1, 0, 1],
                 train=0.8, n_bytes=10)]
    _result(runs).save(tmp_path, plots=False)
    for name in ("results.csv", "runs.csv", "node_scores.csv", "results.json"):
        text = (tmp_path / name).read_text()
        assert "0.49819999999999987" not in text and "0.3333333333" not in text, name
    assert "0.4982" in (tmp_path / "node_scores.csv").read_text()
    assert "0.333333" in (tmp_path / "node_scores.csv").read_text()


def test_rows_below_the_majority_floor_say_by_how_much():
    # Landmine's Global row (0.9362 mean node, 0.9371 pooled) sat under the
    # all-"no mine" floor (0.9373 / 0.9381) unexplained: the gap is 4 of 3,718
    # test samples, which the floor line now says.
    runs = [_run("global-linear", {0: 0.9362, 1: 0.9362}, np.r_[np.ones(3484), np.zeros(234)],
                 train=0.94),
            _run("local-linear", {0: 0.95, 1: 0.95}, np.r_[np.ones(3500), np.zeros(218)],
                 train=0.95)]
    result = _result(runs)
    result.info.update(n_test=3718, majority_class=[0.9373, 0.9381])
    text = " ".join(cmp.format_table(result).split())
    assert ("below it: global-linear (by 0.0011 mean node, 0.0010 pooled, 4 of 3,718 test "
            "samples).") in text
    assert "local-linear (by" not in text


def test_a_floor_far_below_the_scores_is_named_not_drawn():
    # HAR: a floor of 0.826 under scores of 0.98-0.995 would squeeze the
    # points into a strip; it is then a legend entry only.
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = _result([_run("global-linear", {0: 0.98, 1: 0.99}, np.ones(10), train=1.0)])
    result.info["majority_class"] = [0.826, 0.825]
    fig, ax = plt.subplots()
    far = cmp._floor_line(ax, result, [0.98, 0.995])
    near = cmp._floor_line(ax, result, [0.83, 0.995])
    assert far[0].get_label().endswith("(mean 0.826), below the axis")
    assert near[0].get_label().endswith("(mean 0.826)")
    assert [line.get_ydata()[0] for line in ax.get_lines()] == [0.826]  # only `near` drawn
    plt.close(fig)


def test_a_replaced_registry_is_seen_by_every_function_and_restored(monkeypatch):
    # skfed.compare is a package (issue 30): its functions read METHODS and
    # DATASETS through the package namespace, so a copy put there (as the
    # tests above do) is what they all see, and nothing leaks into the
    # original registries.
    methods, datasets = cmp.METHODS, cmp.DATASETS
    monkeypatch.setattr(cmp, "METHODS", dict(methods))
    monkeypatch.setattr(cmp, "DATASETS", dict(datasets))
    cmp.register_method(cmp.MethodSpec("only-here", lambda ctx: _AlwaysOne(),
                                       tasks=("binary",)))
    cmp.register_dataset(cmp.DatasetSpec("toy-here", "binary", datasets["landmine"].load,
                                         "a copy of landmine"))
    assert "only-here" in cmp.applicable_methods("binary", "har-sitting")
    assert "only-here" in cmp.list_registry() and "toy-here" in cmp.list_registry()
    with pytest.raises(ValueError, match="Unknown method"):
        cmp.compare("landmine", ["not-here"], quick=True, verbose=0)
    result = cmp.compare("toy-here", ["only-here"], quick=True, verbose=0)
    assert [row["method"] for row in result.table] == ["only-here"]
    assert "only-here" not in methods and "toy-here" not in datasets
    monkeypatch.undo()
    assert cmp.METHODS is methods and cmp.DATASETS is datasets
    assert "only-here" not in cmp.applicable_methods("binary")
    with pytest.raises(ValueError, match="Unknown dataset"):
        cmp.compare("toy-here", quick=True, verbose=0)


def test_printed_numbers_round_the_stored_values():
    # 1.93049996 is stored as 1.9305 (6 significant digits), which prints as
    # 1.931; printing the unrounded value would show 1.930 and disagree with
    # the files (seen once in CI).
    from skfed.compare._report import _fmt_score, _rounded

    raw = 1.93049996
    stored = _rounded(raw)
    assert repr(stored) == "1.9305"
    assert f"{raw:.3f}" == "1.930" and f"{stored:.3f}" == "1.931"
    assert _fmt_score(0.98765001, 0.0, 1) == f"{_rounded(0.98765001):.4f}"
    assert _fmt_score(float("nan"), float("nan"), 3) == "nan"
