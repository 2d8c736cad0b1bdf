"""Python's cycle collector paused while a large design compiles or its matrix is built.

A build allocates hundreds of thousands of objects that live on (points, segments, route tables, walks), and
none of them is garbage. Each time enough of them pile up, the collector runs, and every few runs it scans
the whole heap: the design itself, with a route object per static route, is a million objects. Measured at
10,000 VMs, two to four such full scans took 0.5-0.9 s of a 6-8 s matrix. Paused, the build's young objects
are scanned once at the end instead (``gc.collect(0)``), and the collector goes on as before afterwards.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused inside the block (nested blocks and a collector already off are left alone)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)
