"""The batch prober: one long-lived process per endpoint that sends every ICMP probe verify gives it, at once.

Starting a ``ping`` (and a shell around it) per probe cost ``vnetbench verify`` a process per pair and check:
for 2,450 pairs, tens of thousands of processes. Instead each endpoint runs ``PROBER`` once (Python's standard
library only, in the endpoint's own ``python3``, with one raw ICMP socket, and a raw ICMPv6 one from its first
IPv6 probe) and reads its probes on stdin, one line each::

    ID DELAY ADDR,SIZE,COUNT,GAP,WAIT,DF [ADDR,SIZE,COUNT,GAP,WAIT,DF ...]

The probe starts ``DELAY`` s after it is read (so a batch's echoes are spread, not sent in one instant). Each
comma group is one ``ping`` (``SIZE``-byte IP packets, ``COUNT`` echoes ``GAP`` s apart, ``WAIT`` s for the
last reply, don't-fragment when ``DF`` is 1); the groups of a probe run one after the other, the probes side by
side. For each probe it prints ``!ID`` once its last echo is sent (it is only waiting from then on) and then
``@ID CODE SUMMARY`` where the summary reads as ping's (``N packets transmitted, M received`` per group, and
``local error: message too long`` when the sender's own MTU refuses a don't-fragment echo), so the verifier
parses one format whichever way a probe ran. ``CODE`` is ping's: 0 when any echo was answered, else 1.
"""

from __future__ import annotations

import itertools
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..backends.contract import BackendError, CancelToken, Endpoint, RunningCommand

#: How long the probers may stay silent while probes are out before those probes count as not run.
STALL_S = 20.0

PROBER = r'''
import heapq, os, select, socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
try:                                       # every echo reply of the endpoint lands here: room for a burst of bursts
    s.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)    # SO_RCVBUFFORCE (past rmem_max; needs CAP_NET_ADMIN)
except OSError:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
try:                                       # only echo replies (type 0) reach the process: not the peers' requests
    s.setsockopt(255, 1, struct.pack("I", 0xFFFFFFFE))        # SOL_RAW, ICMP_FILTER: a mask of types to drop
except OSError:
    pass
s.setblocking(False)
s6 = []                                    # the ICMPv6 socket, opened by the first probe of an IPv6 address

def sock6():
    if not s6:
        t = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)   # the kernel sums its checksum
        try:
            t.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)
        except OSError:
            t.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
        block = bytearray(b"\xff" * 32)   # ICMP6_FILTER: a bit per type to block; only echo replies (129) pass
        block[129 >> 3] &= ~(1 << (129 & 7)) & 0xFF
        t.setsockopt(58, 1, bytes(block))
        t.setblocking(False)
        s6.append(t)
    return s6[0]

base = (os.getpid() * 7919) & 0xFFFF
probes, waiting, timers, out = {}, {}, [], sys.stdout
nid = [0]

def words(b):
    if len(b) % 2:
        b += b"\0"
    return sum(struct.unpack("!%dH" % (len(b) // 2), b))

def csum(n):
    n = (n >> 16) + (n & 0xFFFF)
    n += n >> 16
    return ~n & 0xFFFF

class Step:
    def __init__(self, text):
        a, size, count, gap, wait, df = text.split(",")
        self.addr, self.size, self.count = a, int(size), int(count)
        self.gap, self.wait, self.df = float(gap), float(wait), df == "1"
        self.sent = self.got = 0
        self.seen = set()
        self.error = ""
        self.v6 = ":" in a                 # IPv6: 40 bytes of header and ICMPv6's 8, not IPv4's 20 and 8
        self.payload = b"vnetbench-verify".ljust(max(self.size - (48 if self.v6 else 28), 0), b"\0")
        self.words = words(self.payload)   # the checksum of an echo is this plus its header's words
        nid[0] += 1
        self.ident = (base + nid[0]) & 0xFFFF

def start(pid, delay=0.0):
    p = probes[pid]
    st = p["steps"][p["at"]]
    waiting[st.ident] = (pid, st)
    heapq.heappush(timers, (time.monotonic() + delay, 0, pid, st.ident))

def send(pid, st):
    if st.v6:
        return send6(st)
    pkt = struct.pack("!BBHHH", 8, 0, csum(st.words + 0x0800 + st.ident + st.sent), st.ident, st.sent) + st.payload
    s.setsockopt(socket.IPPROTO_IP, 10, 2 if st.df else 0)
    try:
        s.sendto(pkt, (st.addr, 0))
        st.sent += 1
        return True
    except OSError as e:
        st.error = "local error: message too long" if e.errno == 90 else "sendto: " + os.strerror(e.errno)
        return False

def send6(st):
    t = sock6()
    t.setsockopt(41, 23, 2 if st.df else 0)          # IPV6_MTU_DISCOVER: DO, or let the sender fragment
    try:
        t.sendto(struct.pack("!BBHHH", 128, 0, 0, st.ident, st.sent) + st.payload, (st.addr, 0, 0, 0))
        st.sent += 1
        return True
    except OSError as e:
        st.error = "local error: message too long" if e.errno == 90 else "sendto: " + os.strerror(e.errno)
        return False

def finish_step(pid, st):
    p = probes[pid]
    waiting.pop(st.ident, None)
    p["text"].append("%d packets transmitted, %d received%s" % (st.sent, st.got, (" " + st.error) if st.error else ""))
    p["any"] = p["any"] or st.got > 0
    p["at"] += 1
    if p["at"] < len(p["steps"]):
        start(pid)
        return
    out.write("@%s %d %s\n" % (pid, 0 if p["any"] else 1, " | ".join(p["text"])))
    del probes[pid]

def tick(now):
    while timers and timers[0][0] <= now:
        _, kind, pid, ident = heapq.heappop(timers)
        item = waiting.get(ident)
        if item is None:
            continue
        st = item[1]
        if kind == 1:                      # the wait after the last echo is over
            finish_step(pid, st)
        elif st.sent < st.count and send(pid, st) and st.sent < st.count:
            heapq.heappush(timers, (now + st.gap, 0, pid, ident))
        else:
            p = probes[pid]
            if p["at"] == len(p["steps"]) - 1:
                out.write("!%s\n" % pid)
            heapq.heappush(timers, (now + (st.wait if st.sent else 0), 1, pid, ident))
            if st.sent and st.got >= st.sent:
                finish_step(pid, st)

def read_replies(sock, v6=False):
    while True:
        try:
            data = sock.recv(65535)
        except (BlockingIOError, InterruptedError):
            return
        ihl = 0 if v6 else (data[0] & 15) * 4        # an ICMPv6 socket hands over the message alone
        if len(data) < ihl + 8 or data[ihl] != (129 if v6 else 0):
            continue
        ident, seq = struct.unpack("!HH", data[ihl + 4:ihl + 8])
        item = waiting.get(ident)
        if item is None:
            continue
        pid, st = item
        if seq < st.sent and seq not in st.seen:
            st.seen.add(seq)
            st.got += 1
            if st.got >= st.count and st.sent >= st.count:
                finish_step(pid, st)

inp = sys.stdin.fileno()
buf = b""
open_in = True
while open_in or probes:
    read_replies(s)                        # before the timers: a reply that waited for this process counts
    for t in s6:
        read_replies(t, True)
    tick(time.monotonic())
    out.flush()
    delay = max(0.0, timers[0][0] - time.monotonic()) if timers else 1.0
    ready = select.select([s] + s6 + ([inp] if open_in else []), [], [], delay)[0]
    if inp in ready:
        chunk = os.read(inp, 65536)
        if not chunk:
            open_in = False
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            parts = line.decode().split()
            if len(parts) >= 3:
                probes[parts[0]] = {"steps": [Step(t) for t in parts[2:]], "at": 0, "text": [], "any": False}
                start(parts[0], float(parts[1]))
    out.flush()
'''


@dataclass(frozen=True)
class Ping:
    """One ``ping``: ``count`` echoes of ``size``-byte IP packets ``gap`` s apart to ``addr``, waiting ``wait`` s
    for the last reply, with don't-fragment when ``df``."""

    addr: str
    size: int
    count: int
    gap: float
    wait: float
    df: bool

    def argv(self) -> list[str]:
        """The same probe as an ``ping`` command, for endpoints that cannot run the prober."""
        header = 48 if ":" in self.addr else 28     # ``-s`` sizes the payload: IP + ICMP header (IPv6: 40 + 8)
        argv = ["ping", "-n", "-q", "-c", str(self.count), "-i", f"{self.gap:g}", "-W", f"{self.wait:g}",
                "-s", str(max(self.size - header, 0))]
        return argv + (["-M", "do"] if self.df else []) + [self.addr]

    def field(self) -> str:
        """The prober's ``ADDR,SIZE,COUNT,GAP,WAIT,DF``."""
        return f"{self.addr},{self.size},{self.count},{self.gap:g},{self.wait:g},{int(self.df)}"


class Probers:
    """The probers of one verification, one per endpoint, started when first needed and closed by ``close``.

    ``run`` keeps at most ``parallel`` probes sending at once across all of them: a probe's slot is free as
    soon as its last echo is out (waiting for an answer, or for silence, sends nothing)."""

    def __init__(self) -> None:
        self._sessions: dict[int, RunningCommand | None] = {}
        self._owner: dict[int, int] = {}          # probe id -> id(endpoint) of the prober it went to
        self._lines: queue.Queue[tuple[int, str | None]] = queue.Queue()
        self._ids = itertools.count(1)

    def usable(self, endpoint: Endpoint) -> bool:
        """Whether ``endpoint`` runs a prober (it has python3 and its backend keeps a helper running)."""
        key = id(endpoint)
        if key not in self._sessions:
            self._sessions[key] = None
            if type(endpoint).start_session is Endpoint.start_session:
                return False               # its backend keeps no helper running: not worth asking for python3
            try:
                if not endpoint.has_program("python3"):
                    return False
                cmd = endpoint.start_session(["python3", "-I", "-S", "-u", "-c", PROBER])
            except BackendError:
                return False               # unreachable or refused: its probes run (and fail) the ping way
            self._sessions[key] = cmd
            threading.Thread(target=self._read, args=(key, cmd), daemon=True).start()
        return self._sessions[key] is not None

    def start(self, endpoints: Sequence[Endpoint]) -> None:
        """Start the probers of ``endpoints`` side by side (each start waits until it runs inside)."""
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(self.usable, [ep for ep in endpoints if id(ep) not in self._sessions]))

    def _read(self, key: int, cmd: RunningCommand) -> None:
        for line in cmd.lines():
            self._lines.put((key, line))
        self._lines.put((key, None))

    def run(self, jobs: Sequence[tuple[Endpoint, Sequence[Ping]]], parallel: int, cancel: CancelToken,
            done: Callable[[int], None] | None = None, spread: float = 0.0) -> list[tuple[int, str] | str | None]:
        """Each job's (exit code, summary); a string where its prober failed (why); None where it was not sent
        (cancelled). The endpoints must be ``usable``. Each window of ``parallel`` probes starts over ``spread``
        seconds, evenly, so their echoes interleave instead of leaving together."""
        results: list[tuple[int, str] | str | None] = [None] * len(jobs)
        pending: dict[int, int] = {}               # probe id -> job index
        sending: set[int] = set()
        todo = iter(range(len(jobs)))
        finished = 0
        nxt = next(todo, None)
        while nxt is not None or pending:
            while nxt is not None and len(sending) < parallel and not cancel.cancelled:
                endpoint, pings = jobs[nxt]
                ident = next(self._ids)
                cmd = self._sessions.get(id(endpoint))
                try:
                    if cmd is None:
                        raise BackendError("no prober runs there", "")
                    delay = spread * (nxt % parallel) / parallel
                    cmd.send(" ".join([str(ident), f"{delay:.4f}"] + [p.field() for p in pings]) + "\n")
                    pending[ident], self._owner[ident] = nxt, id(endpoint)
                    sending.add(ident)
                except BackendError as exc:
                    results[nxt] = self._why(id(endpoint), f"the prober stopped: {exc.message}")
                nxt = next(todo, None)
            if cancel.cancelled:
                nxt = None
            if not pending:
                continue
            try:
                key, line = self._lines.get(timeout=STALL_S)
            except queue.Empty:
                for ident, i in pending.items():
                    results[i] = f"no answer from the prober in {STALL_S:g} s"
                pending.clear()
                break
            if line is None:                          # a prober ended: what it had is lost
                why = self._why(key, "the prober ended")
                self._sessions[key] = None
                for ident in [i for i in pending if self._owner.get(i) == key]:
                    results[pending.pop(ident)] = why
                    sending.discard(ident)
                continue
            head, _, rest = line.partition(" ")
            if not head[1:].isdigit():
                continue
            ident = int(head[1:])
            if head[0] == "!":
                sending.discard(ident)
            elif head[0] == "@" and ident in pending:
                code, _, text = rest.partition(" ")
                results[pending.pop(ident)] = (int(code) if code.isdigit() else 1, text)
                sending.discard(ident)
                finished += 1
                if done:
                    done(finished)
        return results

    def _why(self, key: int, fallback: str) -> str:
        """Why a prober failed: the last line it wrote to stderr (its own words), else ``fallback``."""
        cmd = self._sessions.get(key)
        if cmd is not None:
            try:
                cmd.wait(2)
            except TimeoutError:
                pass
            lines = cmd.stderr().strip().splitlines()
            if lines:
                return lines[-1]
        return fallback

    def close(self) -> None:
        """End every prober: its stdin closes, so it ends once its probes are done; stopped if it does not."""
        for cmd in self._sessions.values():
            if cmd is None:
                continue
            try:
                cmd.close_input()
                cmd.wait(2)
            except (BackendError, TimeoutError):
                cmd.terminate()
        self._sessions.clear()
