"""Settings for the whole suite.

Without a display (no ``xvfb-run``), Qt would abort the whole test process at its first window; the
offscreen platform runs every GUI test but the real-drag ones, which skip and say why.
"""

import os

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
