"""Host pNIC counters for verify on vSphere: esxcli's CSV parsed, the ssh command line, and the read through an
``ssh`` program, with the failures an admin meets (host down, key refused, no esxcli) as one clear line each.

No ESXi host is reachable here, so the reads go through a FAKE ``ssh`` put first on PATH: it runs the remote
line in a local shell whose PATH holds a FAKE ``esxcli`` that prints esxcli's CSV layout (columns as esxcli
names them, the text output's "Bytes received" without spaces, sorted, a trailing comma on every line). The
fake host names select the failures ssh would report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from vnetbench.backends.contract import BackendError
from vnetbench.model import Host, PNic, Topology
from vnetbench_vsphere import hostcounters
from vnetbench_vsphere.backend import VSphereBackend
from vnetbench_vsphere.hostcounters import HostCounters, host_argv, parse_nic_stats, remote_command

# what ``esxcli network nic stats get -n vmnic0`` prints in its text form, as the CSV formatter lays it out
COLUMNS = ["Broadcastpacketsreceived", "Broadcastpacketssent", "Bytesreceived", "Bytessent",
           "Multicastpacketsreceived", "Multicastpacketssent", "NICName", "Packetsreceived", "Packetssent",
           "ReceiveCRCerrors", "ReceiveFIFOerrors", "Receiveframeerrors", "Receivelengtherrors",
           "Receivemissederrors", "Receiveovererrors", "Receivepacketsdropped", "Totalreceiveerrors",
           "Totaltransmiterrors", "TransmitFIFOerrors", "Transmitabortederrors", "Transmitcarriererrors",
           "Transmitheartbeaterrors", "Transmitpacketsdropped", "Transmitwindowerrors"]


def esxcli_csv(nic: str, rx_bytes: int, tx_bytes: int) -> str:
    values = {c: "0" for c in COLUMNS} | {"NICName": nic, "Bytesreceived": str(rx_bytes), "Bytessent": str(tx_bytes),
                                          "Packetsreceived": "266984", "Packetssent": "89768"}
    return ",".join(COLUMNS) + ",\n" + ",".join(values[c] for c in COLUMNS) + ",\n"


def test_parse_esxcli_csv_takes_the_bytes_both_ways():
    text = (f"{hostcounters.MARK} vmnic0\n" + esxcli_csv("vmnic0", 104138734, 37651414)
            + f"{hostcounters.MARK} vmnic1\n" + esxcli_csv("vmnic1", 5, 7))
    assert parse_nic_stats(text) == {"vmnic0": 104138734 + 37651414, "vmnic1": 12}
    spaced = f"{hostcounters.MARK} vmnic2\nBytes Received,Bytes Sent,\n10,20,\n"   # a spelling that differs
    assert parse_nic_stats(spaced) == {"vmnic2": 30}
    with pytest.raises(ValueError, match="no 'Bytes received'.*vmnic3"):
        parse_nic_stats(f"{hostcounters.MARK} vmnic3\nPacketsreceived,Packetssent,\n1,2,\n")


def test_command_line_and_remote_loop(tmp_path):
    settings = {"esxi_ssh_user": "root", "esxi_ssh_identity": "/keys/esx", "ssh_known_hosts": "/k"}
    argv = host_argv("esx01.lab", settings, ["vmnic0", "vmnic1"])
    assert argv[0] == "ssh" and "BatchMode=yes" in argv and "ConnectTimeout=10" in argv
    assert argv[argv.index("-i") + 1] == "/keys/esx" and "IdentitiesOnly=yes" in argv
    assert argv[argv.index("-p") + 1] == "22" and "UserKnownHostsFile=/k" in argv
    assert argv[-3:-1] == ["root@esx01.lab", "--"]
    remote = argv[-1]
    assert remote == remote_command(["vmnic0", "vmnic1"])
    assert 'esxcli --formatter=csv network nic stats get -n "$n"' in remote and "vmnic0 vmnic1" in remote
    without_key = host_argv("esx01.lab", {"esxi_ssh_user": "admin"}, ["vmnic0"])
    assert "-i" not in without_key and without_key[-3] == "admin@esx01.lab"
    home = host_argv("esx01", {"esxi_ssh_user": "root", "esxi_ssh_identity": "~/.ssh/esx"}, ["vmnic0"])
    assert home[home.index("-i") + 1] == os.path.expanduser("~/.ssh/esx")

    # the remote loop, run in a local shell: each NIC's block after its mark; a failing esxcli ends it
    fake = tmp_path / "esxcli"
    fake.write_text('#!/bin/sh\n[ "$7" = vmnic9 ] && { echo "Unable to find NIC vmnic9" >&2; exit 1; }\n'
                    'echo "Bytesreceived,Bytessent,"; echo "1,2,"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    done = subprocess.run(["sh", "-c", remote], capture_output=True, text=True, env=env, timeout=10)
    assert done.returncode == 0 and parse_nic_stats(done.stdout) == {"vmnic0": 3, "vmnic1": 3}
    failed = subprocess.run(["sh", "-c", remote_command(["vmnic0", "vmnic9", "vmnic1"])], capture_output=True,
                            text=True, env=env, timeout=10)
    assert failed.returncode == 1 and "vmnic1" not in failed.stdout and "vmnic9" in failed.stderr


@pytest.fixture
def fake_ssh(tmp_path, monkeypatch):
    """A FAKE ssh first on PATH (and a FAKE esxcli for it): logs each argv, and plays the host named."""
    bin_dir, esx_dir = tmp_path / "bin", tmp_path / "esx"
    bin_dir.mkdir()
    esx_dir.mkdir()
    log = tmp_path / "ssh.log"
    (bin_dir / "ssh").write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, os, subprocess, sys
        argv = sys.argv[1:]
        with open({str(log)!r}, "a") as fh:
            fh.write(json.dumps(argv) + "\\n")
        target, remote = argv[argv.index("--") - 1], argv[argv.index("--") + 1]
        host = target.split("@")[1]
        if host == "esx-down":
            sys.exit(print("ssh: connect to host esx-down port 22: Connection refused", file=sys.stderr) or 255)
        if host == "esx-denied":
            sys.exit(print(target + ": Permission denied (publickey,keyboard-interactive).", file=sys.stderr)
                     or 255)
        path = "/usr/bin:/bin" if host == "linux-box" else {str(esx_dir)!r} + ":/usr/bin:/bin"
        env = dict(os.environ, PATH=path, FAKE_HOST=host)
        sys.exit(subprocess.run(["sh", "-c", remote], env=env).returncode)
        """))
    # the FAKE esxcli: counters that grow by 1000 bytes per read, per host and NIC
    (esx_dir / "esxcli").write_text(textwrap.dedent(f"""\
        #!/bin/sh
        state={str(tmp_path)!r}/"$FAKE_HOST-$7"
        n=$(cat "$state" 2>/dev/null || echo 0); n=$((n + 1000)); echo $n > "$state"
        echo "Bytesreceived,Bytessent,NICName,Packetsreceived,Packetssent,"
        echo "$n,7,$7,3,4,"
        """))
    for f in (bin_dir / "ssh", esx_dir / "esxcli"):
        f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _design(*hosts: str) -> Topology:
    return Topology(id="counters", name="counters", hosts=[
        Host(h, h, pnics=[PNic(f"{h}-vmnic0", "vmnic0"), PNic(f"{h}-vmnic1", "vmnic1")]) for h in hosts])


def test_counters_read_through_ssh_per_host(fake_ssh):
    reader = HostCounters({"esxi_ssh_user": "root"})
    before = reader.read(_design("esx01", "esx02"))
    assert before == {f"{h}-{n}": 1007 for h in ("esx01", "esx02") for n in ("vmnic0", "vmnic1")}
    after = reader.read(_design("esx01", "esx02"))
    assert {k: after[k] - before[k] for k in after} == dict.fromkeys(before, 1000)
    calls = fake_ssh()
    assert len(calls) == 4, "one ssh per host per read"
    assert sorted(c[c.index("--") - 1] for c in calls) == ["root@esx01", "root@esx01", "root@esx02", "root@esx02"]


@pytest.mark.parametrize("host, why", [
    ("esx-down", "ssh failed: ssh: connect to host esx-down port 22: Connection refused"),
    ("esx-denied", "ssh failed: root@esx-denied: Permission denied"),
    ("linux-box", "esxcli is not there (is this an ESXi host?)"),
])
def test_an_unreadable_host_is_one_line_naming_it_and_the_fix(fake_ssh, host, why):
    reader = HostCounters({"esxi_ssh_user": "root"})
    with pytest.raises(BackendError) as caught:
        reader.read(_design("esx01", host))
    message = caught.value.message
    assert "\n" not in message and f"ESXi host {host}: {why}" in message and "esx01" not in message
    assert "enable SSH on the host" in message and "esxi_ssh_user (root)" in message
    with pytest.raises(BackendError, match=host):
        reader.read(_design("esx01", host))
    assert [c[c.index("--") - 1] for c in fake_ssh()].count(f"root@{host}") == 1, \
        "a host that just failed is not asked again at every batch"


def test_without_an_ssh_user_no_host_is_asked(fake_ssh):
    backend = VSphereBackend({"url": "https://vc.example/sdk", "user": "u"})
    assert backend.probe_capabilities.counters is True
    with pytest.raises(BackendError, match="does not read host pNIC counters \\(of esx01\\): no esxi_ssh_user"):
        backend.pnic_counters(_design("esx01"))
    assert fake_ssh() == []
    fields = {f.name: f for f in VSphereBackend.settings_fields}
    assert not fields["esxi_ssh_user"].required and not fields["esxi_ssh_identity"].required


def test_counters_read_through_a_real_sshd(sshd):
    """The real ssh client and a real sshd (in a namespace of its own); only esxcli is a FAKE, in the PATH the
    sshd gives its sessions. A wrong key is refused by sshd itself, and reported as one line."""
    fake = sshd["bin"] / "esxcli"
    fake.write_text('#!/bin/sh\necho "Bytesreceived,Bytessent,NICName,"\necho "40${7#vmnic},2,$7,"\n')
    fake.chmod(0o755)
    settings = {"esxi_ssh_user": "root", "esxi_ssh_identity": sshd["key_file"], "esxi_ssh_port": 2222,
                "ssh_known_hosts": sshd["settings"]["ssh_known_hosts"]}
    design = Topology(id="real", name="real", hosts=[
        Host("esx", sshd["address"], pnics=[PNic("p0", "vmnic0"), PNic("p1", "vmnic1")])])
    assert HostCounters(settings).read(design) == {"p0": 400 + 2, "p1": 401 + 2}

    other = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(sshd["bin"].parent / "other")],
                           capture_output=True, timeout=30)
    assert other.returncode == 0
    wrong = {**settings, "esxi_ssh_identity": str(sshd["bin"].parent / "other")}
    with pytest.raises(BackendError, match=f"ESXi host {sshd['address']}: ssh failed: .*Permission denied"):
        HostCounters(wrong).read(design)
    fake.write_text('#!/bin/sh\necho "Error: Unable to find NIC $7"\nexit 1\n')   # as esxcli says it on stdout
    with pytest.raises(BackendError, match="esxcli failed: Error: Unable to find NIC vmnic0"):
        HostCounters(settings).read(design)
    fake.unlink()
    with pytest.raises(BackendError, match="esxcli is not there"):
        HostCounters(settings).read(design)
