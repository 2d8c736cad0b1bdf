"""Rewrite the layout section of every bundled example with the automatic layout (what every export draws), so an
example opens in the designer exactly as it exports. Run after changing the layout room or adding an example:

    .venv/bin/python scripts/layout-examples.py

Only the ``layout:`` section (at the end of each file) is rewritten; a place's colour is kept.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from vnetbench.gui.canvas.layout import auto_places
from vnetbench.layout import arrange
from vnetbench.model import load
from vnetbench.model.fileformat import to_data

EXAMPLES = Path(__file__).resolve().parents[1] / "resources" / "examples"


def main() -> None:
    for path in sorted(EXAMPLES.glob("*.vnet.yaml")):
        topology = load(path)
        topology.layout.places = auto_places(arrange(topology), topology.layout.places)
        text = path.read_text()
        head = text[: text.index("\nlayout:\n") + 1] if "\nlayout:\n" in text else text.rstrip("\n") + "\n"
        body = yaml.safe_dump({"layout": to_data(topology)["layout"]}, sort_keys=False, allow_unicode=True,
                              default_flow_style=False, width=120)
        path.write_text(head + body)
        assert load(path).layout.places == topology.layout.places, path
        print(f"{path.name}: {len(topology.layout.places)} places")


if __name__ == "__main__":
    main()
