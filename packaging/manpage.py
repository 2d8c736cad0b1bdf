"""Writes the vnetbench(1) man page from the command-line parser, so it lists exactly the commands and options
``vnetbench --help`` has. The .deb ships it; scripts/setup.sh installs it for the user.

    python packaging/manpage.py > vnetbench.1        (then: man ./vnetbench.1)
"""

from __future__ import annotations

import argparse
import datetime
import sys

from vnetbench import __version__
from vnetbench.cli.main import build_parser

EXIT_STATUS = [("0", "success"), ("1", "the answer is \"no\": problems found, a verdict changed, a test failed"),
               ("2", "bad input or usage, or an optional part that is not installed (the message says which "
                     "extra installs it)"),
               ("3", "a backend or environment failure")]


def roff(text: str) -> str:
    """Text safe in a roff line: backslashes doubled, a leading dot or quote escaped, dashes literal."""
    text = " ".join(str(text).split()).replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def options(parser: argparse.ArgumentParser) -> list[str]:
    lines = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            flags = ", ".join(f"\\fB{roff(o)}\\fR" for o in action.option_strings)
            if action.nargs != 0:
                flags += " \\fI" + roff(action.metavar if isinstance(action.metavar, str) else action.dest.upper()) + "\\fR"
        else:
            flags = "\\fI" + roff(action.metavar or action.dest) + "\\fR"
        lines += [".TP", flags, roff(action.help or "")]
    return lines


def page(parser: argparse.ArgumentParser) -> str:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {c.dest: c.help for c in sub._choices_actions}
    date = datetime.date.today().isoformat()
    out = [f'.TH VNETBENCH 1 "{date}" "vnetbench {__version__}" "User Commands"',
           ".SH NAME", "vnetbench, vnetbench\\-gui \\- " + roff("design, predict, deploy, measure and export virtual networks"),
           ".SH SYNOPSIS", "\\fBvnetbench\\fR [\\fB\\-\\-version\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR]",
           ".br", "\\fBvnetbench\\-gui\\fR [\\fIFILE\\fR]",
           ".SH DESCRIPTION", roff(parser.description or ""),
           ".PP", roff("vnetbench-gui opens the designer, like vnetbench gui. Where a command takes a design FILE, "
                       "the name of a bundled example works too (vnetbench demo esx-four-cases).")]
    out += [".SH COMMANDS"]
    for name, command in sub.choices.items():
        out += [".SS " + roff(name), roff(summaries.get(name) or ""), ".PP",
                "\\fBusage:\\fR " + roff(command.format_usage().removeprefix("usage: "))]
        if command.description:
            out += [".PP", roff(command.description)]
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                out += [".PP", "Sub\\-commands: " + roff(", ".join(action.choices))]
        out += options(command)
    out += [".SH OPTIONS"] + options(parser)
    out += [".SH EXIT STATUS"]
    for code, meaning in EXIT_STATUS:
        out += [".TP", f"\\fB{code}\\fR", roff(meaning)]
    out += [".SH FILES", ".TP", "\\fI~/.local/share/vnetbench/runs.sqlite\\fR", roff("stored measurements"),
            ".SH SEE ALSO", "\\fBip\\fR(8), \\fBnft\\fR(8), \\fBiperf3\\fR(1)"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(page(build_parser(full=True)))
