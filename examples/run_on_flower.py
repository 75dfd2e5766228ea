"""
==============================================
Running MOCHA on Flower, one process per node
==============================================

Everything in this gallery runs over skfed's *simulated* network.  For a real
deployment, :mod:`skfed.engines.flower` turns a configured estimator into a
Flower ``ServerApp`` and ``ClientApp``: every SuperNode holds its own data and
runs skfed's compiled node solver on it, the ServerApp runs the same rounds
as the simulated ``fit`` and returns a fitted estimator — the same model, with
the same ``communication_`` (skfed's byte model), plus
``flower_communication_``: the bytes Flower itself moved.

Supported: :class:`~skfed.multitask.FederatedMultiTaskClassifier` and
:class:`~skfed.multitask.FederatedMultiTaskRegressor` with
``kernel="linear"``, ``approximation="nystroem"`` or ``"rff"``, and
:class:`~skfed.support.FederatedSupportRecovery`.  See :doc:`/engines`.

.. note::

   This example starts servers, so the documentation build shows it without
   running it (its file name does not start with ``plot_``).  It needs
   ``pip install "skfed[flower]"``.
"""

# %%
# 1. One data file per node
# -------------------------
# In a deployment every node already has its own data; here we cut HAR into
# one ``.npz`` file per person.  ``save_partitions`` returns the paths, in
# the order of the sorted node labels.
import numpy as np

from skfed.datasets import load_har, train_test_split_per_node
from skfed.engines.flower import save_partitions

X, y, groups = load_har(task="sitting", return_X_y=True)
X_train, X_test, y_train, y_test, g_train, g_test = train_test_split_per_node(
    X, y, groups, random_state=0
)
paths = save_partitions(X_train, y_train, g_train, "har-nodes")
print(len(paths), "partitions, e.g.", paths[0])

# %%
# 2. The Flower app
# -----------------
# A Flower App is a small Python project: ``app.py`` builds the two
# components from one configured estimator (the ServerApp and every
# ClientApp must use the same parameters), ``pyproject.toml`` names them.
# By default the ServerApp saves the fitted estimator with
# :func:`joblib.dump` to the run-config path ``skfed-output`` and waits for
# ``skfed-min-nodes`` SuperNodes.
from pathlib import Path

APP = '''\
from skfed.engines.flower import make_client_app, make_server_app
from skfed.multitask import FederatedMultiTaskClassifier

# The Flower engine runs MOCHA's adding and coordinate ascent (the
# simulated fit's line search and exact local solver are not deployed).
estimator = FederatedMultiTaskClassifier(kernel="linear", C=1.0, max_rounds=20,
                                         aggregation="add", local_solver="coordinate",
                                         random_state=0)
server = make_server_app(estimator)
client = make_client_app(estimator)   # loads node_config["data-path"]
'''

PYPROJECT = '''\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "skfed-mocha"
version = "1.0.0"
dependencies = []

[tool.hatch.build.targets.wheel]
packages = ["."]

[tool.flwr.app]
publisher = "me"

[tool.flwr.app.components]
serverapp = "skfed_mocha.app:server"
clientapp = "skfed_mocha.app:client"

[tool.flwr.app.config]
skfed-output = ""
skfed-min-nodes = 1
'''

package = Path("skfed-mocha") / "skfed_mocha"
package.mkdir(parents=True, exist_ok=True)
(package / "__init__.py").write_text("")
(package / "app.py").write_text(APP)
(package.parent / "pyproject.toml").write_text(PYPROJECT)

# %%
# 3. Start a SuperLink, one SuperNode per person, and run the app
# ----------------------------------------------------------------
# In a shell (here everything on one machine, without TLS; in production
# every SuperNode runs where its data lives).  ``flwr`` reads the SuperLink's
# address from ``$FLWR_HOME/config.toml``:
#
# .. code-block:: bash
#
#    cat > "$FLWR_HOME/config.toml" <<'TOML'
#    [superlink]
#    default = "local"
#
#    [superlink.local]
#    address = "127.0.0.1:8000"
#    insecure = true
#    TOML
#
#    flower-superlink --insecure --host 127.0.0.1 --port 8000 &
#    port=9100
#    for path in har-nodes/node-*.npz; do
#        port=$((port + 1))
#        flower-supernode --insecure --superlink 127.0.0.1:8000 \
#            --host 127.0.0.1 --port $port \
#            --node-config "data-path=\"$PWD/$path\"" &
#    done
#
#    flwr run skfed-mocha local --stream \
#        --run-config "skfed-output='$PWD/mocha.joblib' skfed-min-nodes=21"
#
# These are the commands of Flower 1.41 (``pip install "skfed[flower]"``),
# which the test suite runs on loopback; :doc:`/engines` has the details.
# Flower starts a fresh ClientApp process for every message, so every round
# pays a Python start-up on every node: with a SuperLink and 3 SuperNodes
# sharing one busy 2-core machine a round took about 35 s, hence
# ``max_rounds=20`` here.

# %%
# 4. The deployed model is the simulated one
# ------------------------------------------
# The ServerApp draws everything the simulated fit draws, from the same
# ``random_state`` and in the same order, so the Flower run and ``fit`` on
# the pooled data give the same model.
import joblib

from skfed.multitask import FederatedMultiTaskClassifier

deployed = joblib.load("mocha.joblib")
simulated = FederatedMultiTaskClassifier(
    kernel="linear", C=1.0, max_rounds=20, aggregation="add", local_solver="coordinate",
    random_state=0,
).fit(X_train, y_train, groups=g_train)

np.testing.assert_allclose(deployed.coef_, simulated.coef_)
np.testing.assert_allclose(deployed.omega_, simulated.omega_)
print("test accuracy:", deployed.score(X_test, y_test, groups=g_test))
print("skfed's byte model:", deployed.n_bytes_sent_, "bytes")
print("what Flower moved: ", deployed.flower_communication_.total_bytes, "bytes")
