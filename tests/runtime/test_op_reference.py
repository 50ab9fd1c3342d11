"""The committed op reference (docs/ops.md) is what the generator gives for the registry."""

import pytest

pytest.importorskip("onnx")
pytest.importorskip("jax")

from runtime.ops import reference  # noqa: E402
from runtime.ops.registry import all_ops  # noqa: E402


def test_docs_ops_md_is_up_to_date():
    assert reference.PATH.read_text() == reference.render(), (
        "docs/ops.md is out of date: run python -m runtime.ops.reference")


def test_every_op_has_a_row_and_new_public_names_map_to_their_ops():
    text = reference.render()
    for name in all_ops():
        assert f"| `{name}` |" in text
    rows = dict(reference.public_names())
    assert rows["rt.math.top_k"] == "`argsort`, `getitem`, `take_along_axis`"
    assert "`erf`" in rows["rt.math.erf"]
