"""The order of the gallery examples (read by conf.py)."""

ORDER = [
    "plot_omega_har.py",
    "plot_moons_graph.py",
    "plot_communication_budget.py",
    "plot_online_stream.py",
    "plot_phase_transition.py",
    "plot_private_support.py",
    "plot_private_personalized.py",
    "plot_grid_search_routing.py",
    "run_on_flower.py",
]


class ExampleOrder:
    """Sort key of sphinx-gallery: the examples in ORDER first, in that order."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        if filename in ORDER:
            return f"{ORDER.index(filename):03d}"
        return f"999{filename}"
