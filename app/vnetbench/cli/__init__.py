"""The headless command line over the same core the GUI uses."""
