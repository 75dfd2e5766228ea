"""The missing-extra error of the engines reads as a sentence (user38).

``import skfed.engines.mpi`` without mpi4py said "peer-to-peer runs on MPI
needs the optional dependency 'mpi4py'": every engine's purpose is a
plural ("runs", "solves").  Checked for the three extras with the module
hidden, and that the message still names the pip command.
"""

import sys

import pytest

from skfed.engines import _EXTRAS, require_extra


@pytest.mark.parametrize("extra", sorted(_EXTRAS))
def test_missing_extra_message(extra, monkeypatch):
    module, purpose = _EXTRAS[extra]
    monkeypatch.setitem(sys.modules, module, None)  # import of it raises ImportError
    with pytest.raises(ImportError) as info:
        require_extra(extra)
    text = str(info.value)
    assert text.startswith(purpose[0].upper() + purpose[1:] + " need the optional dependency "
                           + repr(module) + ", which is not installed: pip install ")
    assert f"the '{extra}' extra of skfed" in text and f'pip install ".[{extra}]"' in text
