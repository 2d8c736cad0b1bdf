"""PyInstaller runtime hook: child processes get the caller's library path, not the bundle's.

The bootloader puts the bundle folder on LD_LIBRARY_PATH (saving the caller's value in LD_LIBRARY_PATH_ORIG) so
that the frozen interpreter finds its libraries. The dynamic loader has read it by the time this runs, so
restoring it here changes nothing for vnetbench itself, but keeps the bundled libcrypto, glib and the like out of
ip, nft, tc, iperf3, sockperf, ssh and any browser the app starts.
"""

import os

_caller = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
if _caller is None:
    os.environ.pop("LD_LIBRARY_PATH", None)
else:
    os.environ["LD_LIBRARY_PATH"] = _caller
