"""Probe drivers: the command lines of iperf3 and sockperf and the parsers of what they print."""
