"""One module per sub-command, each with ``register(subparsers)`` that sets ``func(args) -> int``.

``SUMMARIES`` is the command list ``vnetbench --help`` shows, kept here so that listing the commands imports
none of them (``vnetbench.cli.main`` loads only the module of the command being run).
"""

SUMMARIES: dict[str, str] = {
    "validate": "check a design for problems (exit 0 clean or warnings only, 1 errors, 2 unreadable)",
    "show": "summarize a design: hosts, pNICs, switches, portgroups, VMs, the physical network",
    "predict": "predict how traffic between two VMs (or physical hosts) travels",
    "matrix": "the verdict for every pair of VMs (all-pairs matrix)",
    "diff": "what-if: pairs whose verdict, path or estimate changed",
    "lab": "deploy a design as a local lab of network namespaces",
    "measure": "measure between two deployed VMs and compare with the prediction",
    "verify": "prove a deployed design against its prediction, pair by pair (exit 1 on a contradiction)",
    "runs": "list, show, export and import stored measurements",
    "export": "write a diagram, draw.io/DOT/Mermaid, the verdict matrix, results or a report",
    "demo": "headless demo: validate, describe and (if available) predict a design",
    "gui": "open the designer window",
    "deploy": "plan and apply a design on a backend",
    "teardown": "remove what vnetbench deployed",
    "import": "read a backend's inventory into a design file",
    "backends": "list the backend plugins: versions, capabilities, load errors",
    "schema": "print the JSON Schema of design files (for editors and other tools)",
    "completion": "print the shell completion script for bash, zsh or fish",
}
