"""One module per sub-command; see ``vnetbench.cli.main.COMMANDS``."""
