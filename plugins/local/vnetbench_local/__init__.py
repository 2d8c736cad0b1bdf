"""The local lab backend: a design deployed as Linux network namespaces on this machine."""
