"""What the kernel shows, for before/after comparisons in the local lab tests."""

from __future__ import annotations

import subprocess


def kernel_lists() -> tuple[set[str], set[str]]:
    """(namespaces, links of the root namespace) as ``ip netns list`` and ``ip -br link`` print them."""
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    return ({line.split()[0] for line in ns.splitlines() if line.strip()},
            {line.split()[0].split("@")[0] for line in links.splitlines() if line.strip()})
