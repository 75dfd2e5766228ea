"""Regenerate the compact dataset copies shipped in ``skfed/datasets/data``.

Developer tool, not run at install time and never by the loaders.  It reads
the original files (layout described in ``shared/data/README.md`` of the
project) and writes one compressed ``.npz`` per dataset, holding only plain
arrays (no pickled objects, so the loaders read them with
``allow_pickle=False``)::

    python -m skfed.datasets._make_shipped --source ../shared/data

What is stored, and how it maps to the originals:

``har.npz``
    ``data`` float32 (7352, 561): ``train_x`` of ``train_user1..21.npz``
    stacked in user order (the originals are float64 in [-1, 1] printed with
    8 significant digits; float32 keeps ~7, the largest difference is 3e-8);
    ``activity`` int8 (0..5); ``subject`` uint8, the UCI subject id of every
    row (user k is the k-th distinct subject of ``subject_train.txt``);
    ``feature_names`` from ``features.txt``.
``school.npz``
    ``x`` uint8 (15362, 28): ``school_b.mat``'s ``x`` transposed (samples by
    rows), unchanged; ``y`` uint8 exam scores; ``school`` uint8 school id
    1..139; ``train_<k>`` / ``test_<k>`` uint16, the 0-based row numbers of
    ``tr`` / ``tst`` of ``school_<k>_indexes.mat`` in their original order.
``computer_buyers.npz``
    ``design`` int8 (20, 14) (``designMarix``), ``ratings`` uint8 (190, 20)
    (``likeBuy``).
``landmine.npz``
    ``data`` float64 (14820, 9) (kept float64: the file is small and float32
    would round the raw features), ``label`` uint8 {0, 1}, ``field`` uint8
    mine field id 1..29.
"""

import argparse
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"

__all__ = ["make_all", "make_har", "make_school", "make_computer_buyers", "make_landmine"]


def _loadmat(path):
    from scipy.io import loadmat

    return loadmat(path)


def _har_feature_names(path):
    names = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line:
            names.append(line.split(" ", 1)[1])
    return names


def make_har(source, out_dir=DATA_DIR):
    source = Path(source) / "har_uci_21train"
    subjects = np.loadtxt(source / "subject_train.txt", dtype=np.int64)
    _, first = np.unique(subjects, return_index=True)
    order = subjects[np.sort(first)]
    blocks, labels, subject = [], [], []
    for k, sid in enumerate(order, start=1):
        with np.load(source / f"train_user{k}.npz") as user:
            x, y = user["train_x"], user["train_y"]
        if x.shape[0] != np.sum(subjects == sid):
            raise ValueError(f"train_user{k}.npz does not match subject {sid}")
        blocks.append(x)
        labels.append(y)
        subject.append(np.full(x.shape[0], sid))
    data = np.vstack(blocks)
    np.savez_compressed(
        Path(out_dir) / "har.npz",
        data=data.astype(np.float32),
        activity=np.concatenate(labels).astype(np.int8),
        subject=np.concatenate(subject).astype(np.uint8),
        feature_names=np.array(_har_feature_names(source / "features.txt")),
    )


def make_school(source, out_dir=DATA_DIR):
    source = Path(source) / "school_dada"
    mat = _loadmat(source / "school_b.mat")
    x = np.ascontiguousarray(mat["x"].T)
    starts = mat["task_indexes"].ravel().astype(np.int64) - 1
    school = np.zeros(x.shape[0], dtype=np.uint8)
    for t, start in enumerate(starts):
        school[start:] = t + 1
    arrays = dict(x=x.astype(np.uint8), y=mat["y"].ravel().astype(np.uint8), school=school)
    for k in range(1, 11):
        split = _loadmat(source / f"school_{k}_indexes.mat")
        arrays[f"train_{k}"] = (split["tr"].ravel().astype(np.int64) - 1).astype(np.uint16)
        arrays[f"test_{k}"] = (split["tst"].ravel().astype(np.int64) - 1).astype(np.uint16)
    np.savez_compressed(Path(out_dir) / "school.npz", **arrays)


def make_computer_buyers(source, out_dir=DATA_DIR):
    mat = _loadmat(Path(source) / "computer_buyers" / "conjointAnalysisComputerBuyers.mat")
    np.savez_compressed(
        Path(out_dir) / "computer_buyers.npz",
        design=mat["designMarix"].astype(np.int8),
        ratings=mat["likeBuy"].astype(np.uint8),
    )


def make_landmine(source, out_dir=DATA_DIR):
    mat = _loadmat(Path(source) / "landmine" / "LandmineData.mat")
    n_fields = mat["feature"].shape[1]
    data = np.vstack([mat["feature"][0, t] for t in range(n_fields)])
    label = np.concatenate([mat["label"][0, t].ravel() for t in range(n_fields)])
    field = np.concatenate(
        [np.full(mat["feature"][0, t].shape[0], t + 1) for t in range(n_fields)]
    )
    np.savez_compressed(
        Path(out_dir) / "landmine.npz",
        data=data.astype(np.float64),
        label=label.astype(np.uint8),
        field=field.astype(np.uint8),
    )


def make_all(source, out_dir=DATA_DIR):
    """Write every shipped copy from the originals under ``source``."""
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    for make in (make_har, make_school, make_computer_buyers, make_landmine):
        make(source, out_dir)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True, help="folder holding the original datasets")
    parser.add_argument("--out-dir", default=str(DATA_DIR), help="where to write the .npz copies")
    args = parser.parse_args(argv)
    make_all(args.source, args.out_dir)
    for path in sorted(Path(args.out_dir).glob("*.npz")):
        print(f"{path.name:24s} {path.stat().st_size / 1e6:7.2f} MB")


if __name__ == "__main__":
    main()
