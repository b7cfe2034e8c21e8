"""Field docstrings are read when a JSON schema is made, and give the schemas pydantic gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

MODELS = '''
from pydantic import BaseModel, ConfigDict, Field


class Leaf(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    speed: int = 0
    """Link speed."""


class Base(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    name: str
    """The name."""
    mtu: int = Field(9000, description="Explicit wins.")
    """Ignored: the explicit description stays."""
    leaves: dict[str, list[Leaf]] = {}
    """Leaves by port."""


class Child(Base):
    extra: Leaf | None = None
    """A child's own field."""
    name: str = "x"
    """The child's name, re-declared."""


class Plain(BaseModel):
    note: str = ""
    """Not documented: no use_attribute_docstrings."""
'''

SCHEMAS = """
import json, sys
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "deferred":
    import fabriclint.models
    from fabriclint.models.docs import json_schema
else:
    def json_schema(model, **kwargs):
        return model.model_json_schema(**kwargs)
import docmodels as m
before = m.Child.model_fields["extra"].description
print(json.dumps({"before": before, "schemas": [json_schema(c) for c in (m.Child, m.Base, m.Plain)]}))
"""


def _schemas(folder: Path, mode: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", SCHEMAS, str(folder), mode],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded: dict[str, object] = json.loads(out.stdout)
    return loaded


def test_deferred_docstrings_give_pydantics_schemas(tmp_path: Path) -> None:
    (tmp_path / "docmodels.py").write_text(MODELS)
    deferred = _schemas(tmp_path, "deferred")
    eager = _schemas(tmp_path, "eager")
    assert deferred["before"] is None  # not read while the class was built
    assert eager["before"] == "A child's own field."
    assert deferred["schemas"] == eager["schemas"]
    child = eager["schemas"][0]  # type: ignore[index]
    props = child["properties"]
    assert props["name"]["description"] == "The child's name, re-declared."
    assert props["mtu"]["description"] == "Explicit wins."
    assert props["leaves"]["description"] == "Leaves by port."
    assert child["$defs"]["Leaf"]["properties"]["speed"]["description"] == "Link speed."


def test_project_models_read_no_docstrings_until_a_schema_is_made() -> None:
    code = (
        "from fabriclint.models.common import Source\n"
        "from fabriclint.models.docs import json_schema\n"
        "print(Source.model_fields['file'].description)\n"
        "print(json_schema(Source)['properties']['file']['description'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["None", "Path of the file, as the user would type it."]
