#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Parse and summarize benchmark runs (lib/bench.sh).

  summary.py parse RUNDIR      raw guest files -> RUNDIR/run.json
  summary.py line RUNDIR       one progress line from run.json
  summary.py summary RESULTS   every RESULTS/*/run.json -> summary.md,
                               figures/*.png (gnuplot), figures/*.dat
  summary.py rows DIR...       one table per scenario comparing results
                               directories (lib/bench-rows.sh), arm C
  summary.py headline RESULTS  the short tables of docs/results.md: a few
                               metrics per workload, C/B per round, and
                               the issue's aims, met or not
  summary.py oom DIR           the OOM matrix of lib/bench-oom.sh (DIR/CELL
                               are lib/bench.sh results directories): per
                               cell and arm, OOM kills / runs and figures
  summary.py oom-pick DIR      the cells of DIR a follow-up should run (an
                               arm OOM-killed, near memory.max, or an
                               outcome unlike stock's), one a line
  summary.py shares DIR...     iocost's split of the swap disk in the
                               runs with a sibling (DIR: a results
                               directory or an OOM matrix): per workload,
                               scenario and arm, the workload's share of
                               cost.usage and of requests against its
                               weight, the sibling's IOPS against its
                               share, and the worker's paced sleeps
  summary.py image BZIMAGE VMLINUX
                               the release, version string and build ID
                               of a built kernel (lib/bench.sh keeps them
                               in each run's image.txt)

Everything is recomputed from the raw files: no rerun is needed.
"""
import glob
import json
import os
import re
import statistics
import struct
import subprocess
import sys

ARMS = ["A", "B", "C"]
WORKLOADS = ["cache", "compile", "oltp"]
SCENARIOS = ["none", "bare", "open", "mild", "heavy"]
WORKLOAD_TASKS = ("cachebench", "cc1", "gcc", "as", "mariadbd", "sysbench")
# A workload's exit statuses that still give figures (cachebench 2: data
# corruption, flagged apart; compile.sh 3: timed out, a lower bound).
WORKLOAD_OK_RC = {"cache": (0, 2), "compile": (0, 3), "oltp": (0,)}
# sysbench 1.0's fixed 30 s for its threads to connect and prepare their
# statements: missed when the server stalls in reclaim (a valid outcome)
SYSBENCH_STALLED = "Worker threads failed to initialize within 30 seconds"
ARM_NAMES = {"A": "stock, shrinker off", "B": "stock, shrinker on",
             "C": "series, shrinker on"}
OOM_ALLOWED = {"A"}             # the shrinker-off arm may be OOM-killed
# Arms other than A, B and C are design-choice rows (lib/bench-rows.sh):
# kernels of the series with the shrinker on, named by their row.
ZSWAP_COUNTERS = ["written_back_pages", "pool_limit_hit", "reject_reclaim_fail",
                  "reject_alloc_fail", "reject_kmemcache_fail",
                  "reject_compress_fail", "reject_compress_poor",
                  "decompress_fail",
                  # the series' writeback counters (absent on stock)
                  "deferred_wb_pages", "inplace_wb_throttled_pages",
                  "inplace_wb_pages", "deferred_wb_nomem",
                  "paced_wb_sleeps", "paced_wb_ms",
                  # paced_wb_sleeps' name since patch 36 (a payment may
                  # be a requeue as well as a sleep)
                  "paced_wb_delays"]
VMSTAT = ["zswpout", "zswpin", "zswpwb", "pswpout", "pswpin", "nrswpout",
          "oom_kill"]
CPU_STAT = ["usage_usec", "user_usec", "system_usec"]
# A sample's 1-minute host load above this makes a run invalid when its
# params.env predates BENCH_HOST_LOAD_MAX (lib/bench.sh: host CPUs + 1.5).
HOST_LOAD_MAX_DEFAULT = 3.5
KERNEL_TROUBLE = re.compile(r"WARNING:|BUG:|Oops|general protection fault|"
                            r"Kernel panic|blocked for more than")


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def keyvals(text):
    """'key value' lines -> dict of ints (non-numbers skipped)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            try:
                out[parts[0]] = int(parts[1])
            except ValueError:
                pass
    return out


def psi_totals(text):
    """memory.pressure -> {'some': us, 'full': us}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"(some|full) .*total=(\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def io_stat(text, dev=None):
    """io.stat -> sums over devices (only dev, "maj:min", when given) of
    every key=value field."""
    out = {}
    for line in text.splitlines():
        if dev and not line.startswith(dev + " "):
            continue
        for field in line.split()[1:]:
            k, _, v = field.partition("=")
            try:
                out[k] = out.get(k, 0) + (float(v) if "." in v else int(v))
            except ValueError:
                pass
    return out


def disk_stat(text):
    """/sys/block/X/stat: writes completed (ios) and sectors written."""
    f = [int(x) for x in text.split()]
    if len(f) < 7:
        return {}
    return {"reads": f[0], "read_sectors": f[2], "writes": f[4],
            "write_sectors": f[6]}


def delta(before, after, keys=None):
    keys = keys if keys is not None else after.keys()
    return {k: after.get(k, 0) - before.get(k, 0) for k in keys
            if k in after or k in before}


def swap_writers(text):
    """hist trigger output -> {comm: (bios, sectors)}."""
    out = {}
    for m in re.finditer(r"\{ comm:\s*(\S.*?)\s*\}\s*hitcount:\s*(\d+)\s*nr_sector:\s*(\d+)",
                         text):
        out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out


def writer_class(comm):
    if comm.startswith("kworker"):
        return "kworker"
    if comm.startswith("kswapd"):
        return "kswapd"
    if comm.startswith(WORKLOAD_TASKS):
        return "workload"
    return "other"


def samples(path):
    rows = []
    lines = read(path).splitlines()
    if not lines:
        return rows
    head = lines[0].split(",")
    for line in lines[1:]:
        vals = line.split(",")
        if len(vals) != len(head):
            continue
        try:
            rows.append({k: float(v) for k, v in zip(head, vals)})
        except ValueError:
            continue
    return rows


def interp(rows, key, t_s):
    """The cumulative sample column key at t_s seconds (linear between
    samples, clamped to the first and last)."""
    t = t_s * 1000
    if not rows or key not in rows[0]:
        return None
    if t <= rows[0]["t_ms"]:
        return rows[0][key]
    for a, b in zip(rows, rows[1:]):
        if t <= b["t_ms"]:
            if b["t_ms"] == a["t_ms"]:
                return b[key]
            return a[key] + (b[key] - a[key]) * (t - a["t_ms"]) / (b["t_ms"] - a["t_ms"])
    return rows[-1][key]


def phases(r, rows):
    """name -> (start, end) in seconds since the sampler started (just
    before the workload), clamped to the samples. cachebench populates
    from its start, then runs; oltp.sh starts its server first and says
    when its phases began (populate_at_s, run_at_s); before it did, the
    run phase is taken to end with the last sample (oltp.sh exits right
    after sysbench, so within a few seconds). compile has one phase."""
    if not rows:
        return {}
    end = rows[-1]["t_ms"] / 1000
    w = r.get("workload", {})
    out = {"interval": (0.0, end)}
    pop, dur = w.get("populate_s"), w.get("duration_s")
    if r["wl"] == "cache" and pop is not None:
        out["populate"] = (0.0, pop)
        if w.get("ops") and dur:
            out["run"] = (pop, pop + dur)
    elif r["wl"] == "oltp" and pop is not None:
        if w.get("populate_at_s") is not None:
            out["populate"] = (w["populate_at_s"], w["populate_at_s"] + pop)
            if dur and w.get("run_at_s") is not None:
                out["run"] = (w["run_at_s"], w["run_at_s"] + dur)
        elif dur:
            out["populate"] = (end - dur - pop, end - dur)
            out["run"] = (end - dur, end)
    elif r["wl"] == "compile" and w.get("build_s"):
        out["build"] = (0.0, w["build_s"])
    return {k: (max(0.0, a), min(end, b)) for k, (a, b) in out.items() if min(end, b) > max(0.0, a)}


def psi_shares(r, rows):
    """Memory PSI full as a share (%) of each phase's wall time, for the
    workload's cgroup (samples' psi_full_us) and, when sampled, the
    system (sys_psi_full_us). The interval's system share comes from the
    before/after snapshots, which every run has."""
    out = {}
    for name, (a, b) in phases(r, rows).items():
        for who, key in (("cgroup", "psi_full_us"), ("system", "sys_psi_full_us")):
            x, y = interp(rows, key, a), interp(rows, key, b)
            if x is not None and y is not None:
                out["%s %s" % (who, name)] = 100.0 * (y - x) / 1e6 / (b - a)
    if r.get("interval_s") and "full" in r.get("sys_psi_us", {}):
        out["system interval"] = 100.0 * r["sys_psi_us"]["full"] / 1e6 / r["interval_s"]
    return out


def kworkers_snap(text):
    """before/after kworkers: 'pid ticks comm' -> {pid: ticks}."""
    out = {}
    for line in text.splitlines():
        f = line.split(None, 2)
        if len(f) >= 2 and f[0].isdigit() and f[1].isdigit():
            out[f[0]] = int(f[1])
    return out


def zswap_kworker_ticks(text):
    """kworkers.csv (t_ms,pid,ticks,comm, a line when a kworker's ticks or
    comm changed) -> (ticks attributed to zswap's workqueues, all ticks
    seen). A kworker's ticks between two of its lines go to zswap when its
    comm names a zswap workqueue at the end of that span, or names one as
    running ("+") at its start (lib/bench-guest.sh, kworker_sample)."""
    last, zs, total = {}, 0, 0
    for line in text.splitlines()[1:]:
        f = line.split(",", 3)
        if len(f) != 4 or not f[2].isdigit():
            continue
        pid, ticks, comm = f[1], int(f[2]), f[3]
        if pid in last:
            t0, c0 = last[pid]
            d = ticks - t0
            if d > 0:
                total += d
                if "zswap" in comm or "+zswap" in c0:
                    zs += d
        last[pid] = (ticks, comm)
    return zs, total


def elf_build_id(notes):
    """The GNU build ID (hex) in a blob of ELF notes, or None."""
    off = 0
    while off + 12 <= len(notes):
        namesz, descsz, typ = struct.unpack_from("<III", notes, off)
        off += 12
        name = notes[off:off + namesz]
        off += (namesz + 3) & ~3
        desc = notes[off:off + descsz]
        off += (descsz + 3) & ~3
        if typ == 3 and name.rstrip(b"\0") == b"GNU":
            return desc.hex()
    return None


def vmlinux_build_id(path):
    """The build ID of an ELF64 little-endian vmlinux (its PT_NOTEs)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ph = phoff + i * phentsize
        ptype, = struct.unpack_from("<I", data, ph)
        if ptype == 4:          # PT_NOTE
            off, = struct.unpack_from("<Q", data, ph + 8)
            size, = struct.unpack_from("<Q", data, ph + 32)
            bid = elf_build_id(data[off:off + size])
            if bid:
                return bid
    return None


def image_info(bzimage, vmlinux):
    """The lines of image.txt: release, version (uname -r and -v as the
    booted kernel reports them) and build_id."""
    with open(bzimage, "rb") as f:
        head = f.read(0x10000)
    off, = struct.unpack_from("<H", head, 0x20e)      # kernel_version
    text = head[0x200 + off:0x200 + off + 256].split(b"\0")[0].decode(errors="replace")
    m = re.match(r"(\S+) \(.*?\) (#.*)$", text)
    out = ["image=%s" % bzimage]
    if m:
        out += ["release=%s" % m.group(1), "version=%s" % m.group(2)]
    bid = vmlinux_build_id(vmlinux) if os.path.exists(vmlinux) else None
    out.append("build_id=%s" % (bid or ""))
    return out


def kernel_check(rundir):
    """(True|False|None, why): whether the guest ran the image lib/bench.sh
    built for the arm: the build ID when both sides have one, else the
    release and version strings. None when the run predates the record."""
    img = dict(l.split("=", 1) for l in read(os.path.join(rundir, "image.txt")).splitlines()
               if "=" in l)
    got = dict(l.split("=", 1) for l in read(os.path.join(rundir, "kernel.txt")).splitlines()
               if "=" in l)
    if not img or not got:
        return None, "not recorded"
    try:
        with open(os.path.join(rundir, "kernel-notes"), "rb") as f:
            gid = elf_build_id(f.read())
    except OSError:
        gid = None
    if img.get("build_id") and gid:
        return img["build_id"] == gid, "build ID %s, image %s" % (gid[:12], img["build_id"][:12])
    same = (img.get("release"), img.get("version")) == (got.get("release"), got.get("version"))
    return same, "uname %s %s, image %s %s" % (got.get("release"), got.get("version"),
                                               img.get("release"), img.get("version"))


def host_load(rundir):
    """The host's 1-minute load average at the start, end and highest of
    the run (host-load.txt: 'epoch load1 load5 load15 ...' lines)."""
    vals = []
    for line in read(os.path.join(rundir, "host-load.txt")).splitlines():
        f = line.split()
        try:
            vals.append(float(f[1]))
        except (IndexError, ValueError):
            pass
    if not vals:
        return None
    return {"start": vals[0], "end": vals[-1], "max": max(vals)}


def params(rundir):
    out = {}
    for line in read(os.path.join(rundir, "params.env")).splitlines():
        k, _, v = line.partition("=")
        out[k] = v.strip('"')
    return out


def fio_sibling(path):
    """The sibling's fio report (JSON after fio's own message lines): its
    write IOPS and p99 total latency (ms) over its whole run, or {}."""
    text = read(path)
    try:
        job = json.loads(text[text.index("{"):])["jobs"][0]
        w = job["write"]
        lat = w.get("lat_ns", {}).get("percentile") or w.get("clat_ns", {}).get("percentile")
        return {"iops": w["iops"], "p99_ms": lat["99.000000"] / 1e6 if lat else None,
                "elapsed_s": job.get("elapsed")}
    except (ValueError, KeyError, IndexError, TypeError):
        return {}


def last_json(path):
    """The last line of a workload's output as JSON, or {}."""
    text = read(path).strip()
    try:
        return json.loads(text.splitlines()[-1]) if text else {}
    except (json.JSONDecodeError, IndexError):
        return {}


def merged_workload(rundir):
    """The cache workload's result: workload.json, or, when it ran in
    several memcgs (lib/bench-guest.sh: workload-N.json, one per memcg),
    the instances' results merged: values, operations and rates summed,
    the slowest populate, the worst percentiles (an upper bound of the
    merged one), deadline misses over all operations; populate_done only
    when every instance reported it. An instance killed before it
    reported has no JSON (instances_reported counts those that did)."""
    paths = glob.glob(os.path.join(rundir, "workload-*.json"))
    if not paths:
        return last_json(os.path.join(rundir, "workload.json"))
    paths.sort(key=lambda p: int(re.search(r"-(\d+)\.json$", p).group(1)))
    parts = [last_json(p) for p in paths]
    done = [w for w in parts if w]
    m = {"instances": len(parts), "instances_reported": len(done),
         "instance_rcs": [int(read(p[:-5] + ".rc", "-1").strip() or -1) for p in paths]}
    if not done:
        return m
    for k in ("size_mb", "threads", "populated", "populate_rate", "ops", "ops_per_s",
              "misses", "corrupt"):
        m[k] = sum(w.get(k, 0) for w in done)
    for k in ("populate_s", "duration_s", "p99_us", "p999_us", "max_us"):
        vals = [w[k] for w in done if k in w]
        if vals:
            m[k] = max(vals)
    m["populate_done"] = len(done) == len(parts) and all(w.get("populate_done") for w in done)
    m["miss_pct"] = 100.0 * m["misses"] / m["ops"] if m["ops"] else 0.0
    m["deadline_ms"] = done[0].get("deadline_ms")
    return m


# The kernel's OOM kill lines: a memcg's limit, or the whole system.
OOM_LOG = {"memcg": re.compile(r"Memory cgroup out of memory: Killed process"),
           "global": re.compile(r"(?<!cgroup )[Oo]ut of memory: Killed process")}


def kernel_log(rundir):
    """The guest's kernel log: dmesg.txt, or the console when the guest
    did not get that far."""
    return read(os.path.join(rundir, "dmesg.txt")) or read(os.path.join(rundir, "console.log"))


def oom_log(rundir):
    """OOM kills in the guest's kernel log (dmesg.txt, or the console
    when the guest did not get that far): {"memcg": n, "global": n}."""
    text = kernel_log(rundir)
    return {k: len(rx.findall(text)) for k, rx in OOM_LOG.items()}


def oom_memcgs(rundir):
    """The memcg of each OOM report in the guest's kernel log: its limit
    and what its pool and its folios under writeback held then, in % of
    the limit ([{"zswap %": x, "writeback %": y}, ...])."""
    text = kernel_log(rundir)
    out = []
    for block in re.split(r"invoked oom-killer", text)[1:]:
        lim = re.search(r"memory: usage \d+kB, limit (\d+)kB", block)
        if not lim or not int(lim.group(1)):
            continue
        limit = int(lim.group(1)) * 1024
        stat = {}
        for k in ("zswap", "file_writeback"):
            m = re.search(r"\] %s (\d+)\n" % k, block)
            stat[k] = int(m.group(1)) if m else 0
        out.append({"zswap %": 100.0 * stat["zswap"] / limit,
                    "writeback %": 100.0 * stat["file_writeback"] / limit})
    return out


def oom_killed_memcgs(rundir):
    """The indices N of the many-memcg cell's memcgs (bench-work/wN) that
    the guest's kernel log names as an OOM kill's memcg."""
    text = kernel_log(rundir)
    return {int(n) for n in re.findall(r"oom_memcg=/bench-work/w(\d+)", text)}


def size_bytes(text):
    """A cgroup size ("96M", "1G", bytes) in bytes, or None ("max")."""
    m = re.match(r"^(\d+)([KMG]?)$", text or "")
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def parse(rundir):
    p = params(rundir)
    arm, scen = p.get("BENCH_ARM", "?"), p.get("BENCH_SCENARIO", "?")
    b = lambda f: read(os.path.join(rundir, "before", f))
    a = lambda f: read(os.path.join(rundir, "after", f))
    r = {"run": os.path.basename(os.path.normpath(rundir)),
         "round": int(p.get("BENCH_ROUND", 0)), "scenario": scen, "arm": arm,
         "wl": p.get("BENCH_WORKLOAD", "cache"), "params": p, "invalid": []}
    r["vm_rc"] = int(read(os.path.join(rundir, "vm.rc"), "-1").strip() or -1)
    r["wall_s"] = int(read(os.path.join(rundir, "wall_s"), "0").strip() or 0)
    r["guest_done"] = os.path.exists(os.path.join(rundir, "guest-done"))
    r["guest_error"] = read(os.path.join(rundir, "guest-error")).strip()

    r["workload"] = merged_workload(rundir)
    rc = read(os.path.join(rundir, "workload.rc")).strip()
    r["workload_rc"] = int(rc) if rc else None

    have = os.path.isdir(os.path.join(rundir, "after"))
    # The swap disk (iocost runs on it): the oltp workload's data disk
    # has lines of its own in io.stat.
    dev = (read(os.path.join(rundir, "iocost.txt")).split() or [None])[0]
    if have:
        r["vmstat"] = delta(keyvals(b("vmstat")), keyvals(a("vmstat")), VMSTAT)
        r["mem_events"] = delta(keyvals(b("memory.events")), keyvals(a("memory.events")),
                                ["high", "max", "oom", "oom_kill"])
        r["oom_kill"] = r["mem_events"].get("oom_kill", 0)
        r["psi_us"] = delta(psi_totals(b("memory.pressure")), psi_totals(a("memory.pressure")))
        r["io"] = delta(io_stat(b("io.stat"), dev), io_stat(a("io.stat"), dev),
                        ["rbytes", "wbytes", "rios", "wios", "cost.usage",
                         "cost.wait", "cost.indebt", "cost.indelay"])
        r["sibling_io"] = delta(io_stat(b("sibling-io.stat"), dev),
                                io_stat(a("sibling-io.stat"), dev),
                                ["wbytes", "rios", "wios", "cost.usage", "cost.wait"])
        r["swap_part"] = delta(disk_stat(b("swap-part.stat")), disk_stat(a("swap-part.stat")))
        r["disk"] = delta(disk_stat(b("disk.stat")), disk_stat(a("disk.stat")))
        r["zswap"] = delta(keyvals(b("zswap-debugfs")), keyvals(a("zswap-debugfs")),
                           ZSWAP_COUNTERS)
        ws = swap_writers(read(os.path.join(rundir, "swap-writers.hist")))
        cls = {}
        for comm, (bios, _) in ws.items():
            c = writer_class(comm)
            cls[c] = cls.get(c, 0) + bios
        r["swap_writers"] = cls
        r["swap_writers_raw"] = {k: v[0] for k, v in ws.items()}
        s = samples(os.path.join(rundir, "samples.csv"))
        r["pool_max_bytes"] = max((x["pool_bytes"] for x in s), default=0)
        # the compressed pool charged to the workload's cgroup(s), at its
        # peak, as a share of the memory.max it counts against
        limit = size_bytes(p.get("BENCH_MEM_MAX"))
        charged = max((x.get("zswap_bytes", 0) for x in s), default=0)
        if limit:
            r["pool_share_max"] = 100.0 * charged / (limit * int(p.get("BENCH_MEMCGS") or 1))
        # the memcgs' pool plus folios under writeback at its sampled
        # peak, in % of a memcg's limit, for the memcgs that lived and
        # for those OOM-killed (memcgs.csv, many-memcg cells only)
        m = samples(os.path.join(rundir, "memcgs.csv"))
        if m and limit:
            killed = oom_killed_memcgs(rundir)
            for key, dead in (("lived", False), ("killed", True)):
                held = [x["zswap_bytes"] + x["writeback_bytes"] for x in m
                        if (int(x["memcg"]) in killed) == dead]
                if held:
                    r["memcg_pool_wb_max_" + key] = 100.0 * max(held) / limit
        r["interval_s"] = s[-1]["t_ms"] / 1000 if s else None
        try:
            r["interval_s"] = float(a("time")) - float(b("time"))
        except ValueError:
            pass                # runs before snap recorded its time
        nr = r["vmstat"].get("nrswpout", 0)
        # pages per bio (swap_write_submit() counts nrswpout) and pages per
        # device request: the swap partition's writes completed, after the
        # block layer merged bios (the plug's effect shows only here)
        r["pages_per_write"] = r["vmstat"].get("pswpout", 0) / nr if nr else None
        sp = r["swap_part"]
        r["pages_per_request"] = (sp["write_sectors"] / 8 / sp["writes"]
                                  if sp.get("writes") else None)
        r["sys_psi_us"] = delta(psi_totals(b("pressure-memory")), psi_totals(a("pressure-memory")))
        r["psi_share"] = psi_shares(r, s)
        # where the cost moved: CPU time of the cgroups (cpu.stat, in us)
        # and of the kworkers (ticks of clk_tck)
        if b("cpu.stat"):
            r["cpu"] = delta(keyvals(b("cpu.stat")), keyvals(a("cpu.stat")), CPU_STAT)
            r["sibling_cpu"] = delta(keyvals(b("sibling-cpu.stat")),
                                     keyvals(a("sibling-cpu.stat")), CPU_STAT)
            r["system_cpu"] = delta(keyvals(b("root-cpu.stat")), keyvals(a("root-cpu.stat")),
                                    CPU_STAT)
        if b("kworkers"):
            hz = 100
            for line in read(os.path.join(rundir, "kernel.txt")).splitlines():
                if line.startswith("clk_tck=") and line[8:].strip().isdigit():
                    hz = int(line[8:])
            kb, ka = kworkers_snap(b("kworkers")), kworkers_snap(a("kworkers"))
            r["kworker_cpu_s"] = sum(t - kb.get(p, 0) for p, t in ka.items()
                                     if t >= kb.get(p, 0)) / hz
            zs, _ = zswap_kworker_ticks(read(os.path.join(rundir, "kworkers.csv")))
            r["zswap_kworker_cpu_s"] = zs / hz

    r["oom_log"] = oom_log(rundir)
    r["oom_memcgs"] = oom_memcgs(rundir)
    # validity
    console = read(os.path.join(rundir, "console.log")) + read(os.path.join(rundir, "dmesg.txt"))
    if r["vm_rc"] == 124:
        r["invalid"].append("VM timeout")
    elif not r["guest_done"]:
        r["invalid"].append("guest stopped early (%s)" % (r["guest_error"] or "exit %d" % r["vm_rc"]))
    m = KERNEL_TROUBLE.search(console)
    if m:
        line = console[console.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
        r["invalid"].append("kernel: " + line.strip()[:120])
    if have:
        r["oom"] = r["oom_kill"] > 0
        if r["oom"] and arm not in OOM_ALLOWED:
            r["invalid"].append("OOM kill in arm %s" % arm)
        ok_rc = WORKLOAD_OK_RC.get(r["wl"], (0,))
        if not r["oom"] and r["workload_rc"] == 137:
            r["invalid"].append("workload killed by its timeout")
        elif not r["oom"] and r["workload_rc"] not in ok_rc:
            if r["wl"] == "oltp" and SYSBENCH_STALLED in read(os.path.join(rundir,
                                                                          "sysbench.txt")):
                # the arm's stall, not the harness: an outcome like an OOM kill
                r["workload"] = {"stalled_start": True}
            else:
                r["invalid"].append("workload exit %s" % r["workload_rc"])
        if p.get("BENCH_SHRINKER", "N" if arm == "A" else "Y") == "Y" and \
                r["zswap"].get("written_back_pages", 0) == 0:
            r["invalid"].append("no zswap writeback")
        if r["workload"].get("corrupt"):
            r["invalid"].append("data corruption (%d values)" % r["workload"]["corrupt"])
    # the kernel asked for, the sibling to the end, a quiet host (issue 16)
    r["kernel_match"], r["kernel_check"] = kernel_check(rundir)
    if r["kernel_match"] is False:
        r["invalid"].append("not the kernel built for arm %s (%s)" % (arm, r["kernel_check"]))
    alive = read(os.path.join(rundir, "sibling-alive")).strip()
    if alive == "no":
        r["invalid"].append("the IO sibling died before the end")
    r["sibling_fio"] = fio_sibling(os.path.join(rundir, "fio.json"))
    r["host_load"] = host_load(rundir)
    try:
        bound = float(p.get("BENCH_HOST_LOAD_MAX") or HOST_LOAD_MAX_DEFAULT)
    except ValueError:
        bound = HOST_LOAD_MAX_DEFAULT
    if r["host_load"] and r["host_load"]["max"] > bound:
        r["invalid"].append("host load %.2f over %.2f" % (r["host_load"]["max"], bound))
    r["valid"] = not r["invalid"]
    with open(os.path.join(rundir, "run.json"), "w") as f:
        json.dump(r, f, indent=1, sort_keys=True)
    return r


def outcome(r):
    w = r.get("workload", {})
    if r.get("oom"):
        return "OOM-killed"
    if w.get("stalled_start"):
        return "sysbench threads not started within 30 s"
    if w.get("failed"):
        return "%d compiles failed" % w["failed"]
    if w.get("timed_out"):
        return "compile timed out (%d of %d done)" % (w.get("compiled", 0), w["files"])
    if w and not w.get("populate_done", True):
        return "populate timed out"
    return "ok" if w else "no result"


def progress_line(rundir):
    r = json.load(open(os.path.join(rundir, "run.json")))
    w = r.get("workload", {})
    parts = ["VALID" if r["valid"] else "INVALID (%s)" % "; ".join(r["invalid"]),
             outcome(r)]
    if w.get("workload") == "compile":
        parts.append("build %.1fs (%d files, %d jobs)" % (w["build_s"], w["files"], w["jobs"]))
    elif w.get("workload") == "oltp":
        parts.append("populate %.1fs (%d/%d tables)" % (w["populate_s"], w["populated_tables"],
                                                      w["tables"]))
        if w.get("ops") and w.get("p999_us") is not None:
            parts.append("%.1f TPS p99.9 %.0fms miss %.1f%%" % (
                w["ops_per_s"], w["p999_us"] / 1000, w["miss_pct"]))
    elif w and not w.get("stalled_start"):
        parts.append("populate %.1fs (%.0f values/s)" % (w.get("populate_s", 0),
                                                      w.get("populate_rate", 0)))
        if w.get("ops"):
            parts.append("%.0f ops/s p99.9 %.1fms miss %.1f%%" % (
                w["ops_per_s"], w["p999_us"] / 1000, w["miss_pct"]))
    if "io" in r:
        share = r.get("psi_share", {}).get("cgroup interval")
        parts.append("indebt %.1fs wait %.1fs psi-full %.1fs (%s) wb %d pg/bio %s pg/req %s" % (
            r["io"].get("cost.indebt", 0) / 1e6, r["io"].get("cost.wait", 0) / 1e6,
            r["psi_us"].get("full", 0) / 1e6, "%.0f%%" % share if share is not None else "-",
            r["zswap"].get("written_back_pages", 0),
            "%.2f" % r["pages_per_write"] if r.get("pages_per_write") else "-",
            "%.2f" % r["pages_per_request"] if r.get("pages_per_request") else "-"))
    return ", ".join(parts)


# ---- summary -------------------------------------------------------------

def metric_rows():
    """(label, getter, format) for the per-scenario table."""
    w = lambda k: lambda r: r.get("workload", {}).get(k)
    # The same JSON field, named for what it counts: OLTP's transactions
    # and buffer pool pages in rows of their own.
    oltp = lambda k: lambda r: r["workload"][k] if r["wl"] == "oltp" else None
    not_oltp = lambda k: lambda r: None if r["wl"] == "oltp" else r["workload"][k]
    io = lambda k, s=1e6: lambda r: r.get("io", {}).get(k, 0) / s if "io" in r else None
    vm = lambda k: lambda r: r.get("vmstat", {}).get(k) if "vmstat" in r else None
    zs = lambda k: lambda r: r.get("zswap", {}).get(k) if "zswap" in r else None
    sw = lambda c: lambda r: r.get("swap_writers", {}).get(c, 0) if "swap_writers" in r else None
    us_ms = lambda k: lambda r: r["workload"][k] / 1000 if r.get("workload", {}).get(k) is not None else None
    rejects = lambda r: sum(v for k, v in r.get("zswap", {}).items()
                            if k.startswith("reject_")) if "zswap" in r else None
    share = lambda k: lambda r: r.get("psi_share", {}).get(k)
    cpu = lambda who, k: lambda r: r[who][k] / 1e6 if who in r else None
    return [
        ("build time (s; a timed-out run counts its timeout)", w("build_s"), "%.1f"),
        ("compiles failed", w("failed"), "%.0f"),
        ("slowest compile (s)", lambda r: max(r["workload"]["file_s"].values()), "%.1f"),
        ("populate (s)", w("populate_s"), "%.1f"),
        ("populate rate (values/s)", not_oltp("populate_rate"), "%.0f"),
        ("populate rate (buffer pool pages/s)", oltp("populate_rate"), "%.0f"),
        ("buffer pool pages after populate", w("populate_pages"), "%.0f"),
        ("populated (% of the set)", lambda r: 100.0 * r["workload"]["populated"] * 4096
         / (r["workload"]["size_mb"] << 20) if r.get("workload") else None, "%.0f"),
        ("populated tables", w("populated_tables"), "%.0f"),
        ("ops/s", not_oltp("ops_per_s"), "%.0f"),
        ("transactions/s", oltp("ops_per_s"), "%.1f"),
        ("p50 (ms)", us_ms("p50_us"), "%.2f"),
        ("p99 (ms)", us_ms("p99_us"), "%.1f"),
        ("p99.9 (ms)", us_ms("p999_us"), "%.1f"),
        ("deadline misses (%)", w("miss_pct"), "%.2f"),
        ("memory PSI some (s)", lambda r: r["psi_us"].get("some", 0) / 1e6 if "psi_us" in r else None, "%.1f"),
        ("memory PSI full (s)", lambda r: r["psi_us"].get("full", 0) / 1e6 if "psi_us" in r else None, "%.1f"),
        ("memory PSI full, cgroup (% of the interval)", share("cgroup interval"), "%.1f"),
        ("memory PSI full, system (% of the interval)", share("system interval"), "%.1f"),
        ("memory PSI full, cgroup (% of populate)", share("cgroup populate"), "%.1f"),
        ("memory PSI full, system (% of populate)", share("system populate"), "%.1f"),
        ("memory PSI full, cgroup (% of the run phase)", share("cgroup run"), "%.1f"),
        ("memory PSI full, system (% of the run phase)", share("system run"), "%.1f"),
        ("memory PSI full, cgroup (% of the build)", share("cgroup build"), "%.1f"),
        ("memory PSI full, system (% of the build)", share("system build"), "%.1f"),
        ("workload cgroup CPU (s)", cpu("cpu", "usage_usec"), "%.1f"),
        ("workload cgroup CPU, system (s)", cpu("cpu", "system_usec"), "%.1f"),
        ("sibling cgroup CPU (s)", cpu("sibling_cpu", "usage_usec"), "%.1f"),
        ("all CPU (s)", cpu("system_cpu", "usage_usec"), "%.1f"),
        ("kworker CPU, all (s)", lambda r: r.get("kworker_cpu_s"), "%.1f"),
        ("kworker CPU, zswap workqueues (s)", lambda r: r.get("zswap_kworker_cpu_s"), "%.1f"),
        ("cost.wait (s)", io("cost.wait"), "%.2f"),
        ("cost.indebt (s)", io("cost.indebt"), "%.2f"),
        ("cost.indelay (s)", io("cost.indelay"), "%.2f"),
        ("workload wios", io("wios", 1), "%.0f"),
        ("workload wbytes (MiB)", io("wbytes", 1 << 20), "%.1f"),
        ("zswpout", vm("zswpout"), "%.0f"),
        ("zswpin", vm("zswpin"), "%.0f"),
        ("zswpwb", vm("zswpwb"), "%.0f"),
        ("pswpout", vm("pswpout"), "%.0f"),
        ("nrswpout", vm("nrswpout"), "%.0f"),
        ("pages per write bio (pswpout / nrswpout)", lambda r: r.get("pages_per_write"), "%.2f"),
        ("pages per device write request (swap partition)",
         lambda r: r.get("pages_per_request"), "%.2f"),
        ("swap partition writes", lambda r: r.get("swap_part", {}).get("writes"), "%.0f"),
        ("swap partition sectors written", lambda r: r.get("swap_part", {}).get("write_sectors"), "%.0f"),
        ("zswap pool max (MiB)", lambda r: r["pool_max_bytes"] / (1 << 20) if "pool_max_bytes" in r else None, "%.1f"),
        ("written_back_pages", zs("written_back_pages"), "%.0f"),
        ("pool_limit_hit", zs("pool_limit_hit"), "%.0f"),
        ("written back by the worker", zs("deferred_wb_pages"), "%.0f"),
        ("written back in place, throttled", zs("inplace_wb_throttled_pages"), "%.0f"),
        ("written back in place, unthrottled", zs("inplace_wb_pages"), "%.0f"),
        ("worker runs stopped short of memory", zs("deferred_wb_nomem"), "%.0f"),
        ("reject_* (sum)", rejects, "%.0f"),
        ("swap write bios by kworkers", sw("kworker"), "%.0f"),
        ("swap write bios by kswapd", sw("kswapd"), "%.0f"),
        ("swap write bios by the workload", sw("workload"), "%.0f"),
        ("swap write bios by others", sw("other"), "%.0f"),
        ("sibling write IOPS", lambda r: r["sibling_io"].get("wios", 0) / r["interval_s"]
         if r.get("interval_s") else None, "%.0f"),
        ("sibling write IOPS (fio, its whole run)",
         lambda r: r.get("sibling_fio", {}).get("iops"), "%.0f"),
        ("sibling write p99 latency (ms, fio, its whole run)",
         lambda r: r.get("sibling_fio", {}).get("p99_ms"), "%.1f"),
    ]


def select(runs, wl, scen, arm, valid=False):
    """The runs of one workload, scenario and arm (only the valid ones)."""
    return [r for r in runs if r["wl"] == wl and r["scenario"] == scen
            and r["arm"] == arm and (r["valid"] or not valid)]


def getter(label):
    """The getter of the metric_rows() row with that label."""
    return {lb: get for lb, get, _ in metric_rows()}[label]


def metric(runs, get):
    """get(r) for each run; None where the run lacks the figure."""
    vals = []
    for r in runs:
        try:
            vals.append(get(r))
        except (KeyError, TypeError, ZeroDivisionError):
            vals.append(None)
    return vals


def cell(vals, fmt):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    if any(isinstance(v, str) for v in vals):
        return ", ".join(vals)
    med = statistics.median(vals)
    if len(vals) == 1:
        return fmt % med
    return "%s [%s-%s]" % (fmt % med, fmt % min(vals), fmt % max(vals))


def load_runs(res):
    runs = []
    for path in sorted(glob.glob(os.path.join(res, "*", "params.env"))):
        rundir = os.path.dirname(path)
        if not os.path.exists(os.path.join(rundir, "wall_s")):
            continue                   # still running, or cut off
        runs.append(parse(rundir))     # always from the raw files
    return runs


def scenario_table(runs, wl, scen, arms):
    """The table of one workload and scenario; rows without data are left out."""
    out = []
    sr = [r for r in runs if r["scenario"] == scen and r["wl"] == wl]
    out.append("### %s workload, scenario %s\n" % (wl, scen))
    out.append("| metric | " + " | ".join("%s (%s)" % (a, arm_name(a)) for a in arms) + " |")
    out.append("|---" * (len(arms) + 1) + "|")
    counts = []
    for a in arms:
        ar = [r for r in sr if r["arm"] == a]
        counts.append("%d/%d" % (sum(r["valid"] for r in ar), len(ar)))
    out.append("| valid runs | " + " | ".join(counts) + " |")
    ooms = []
    for a in arms:
        ar = [r for r in sr if r["arm"] == a]
        ooms.append("%d/%d" % (sum(bool(r.get("oom")) for r in ar), len(ar)))
    out.append("| OOM-killed (all runs) | " + " | ".join(ooms) + " |")
    timed = []
    for a in arms:
        ar = [r for r in sr if r["arm"] == a and r["valid"]]
        timed.append("%d" % sum("timed out" in outcome(r) for r in ar))
    if wl in ("cache", "oltp"):
        out.append("| populate timed out (valid runs; their run phase covers the values"
                   " written) | " + " | ".join(timed) + " |")
    else:
        out.append("| compile timed out (valid runs) | " + " | ".join(timed) + " |")
    for label, get, fmt in metric_rows():
        row = []
        for a in arms:
            row.append(cell(metric([r for r in sr if r["arm"] == a and r["valid"]], get), fmt))
        if any(c != "-" for c in row):
            out.append("| %s | %s |" % (label, " | ".join(row)))
    out.append("")
    return out


COST_RATIOS = [("PSI full share", lambda r: r["psi_share"].get("cgroup interval")),
               ("cost.indebt", lambda r: r["io"].get("cost.indebt")),
               ("cost.wait", lambda r: r["io"].get("cost.wait")),
               # what the sibling got: a ratio under 1 (IOPS) or over 1
               # (p99) is a regression the series causes the neighbour
               ("sibling IOPS", lambda r: r["sibling_io"].get("wios", 0) / r["interval_s"]
                if r.get("interval_s") else None),
               ("sibling p99", lambda r: r.get("sibling_fio", {}).get("p99_ms"))]
RATIO_METRICS = {
    "cache": [("ops/s", lambda r: r["workload"].get("ops_per_s")),
              ("p99", lambda r: r["workload"].get("p99_us")),
              ("p99.9", lambda r: r["workload"].get("p999_us")),
              ("populate rate", lambda r: r["workload"].get("populate_rate"))] + COST_RATIOS,
    "compile": [("build time", lambda r: r["workload"].get("build_s"))] + COST_RATIOS,
    "oltp": [("TPS", lambda r: r["workload"].get("ops_per_s")),
             ("p99", lambda r: r["workload"].get("p99_us")),
             ("p99.9", lambda r: r["workload"].get("p999_us")),
             ("populate rate", lambda r: r["workload"].get("populate_rate"))] + COST_RATIOS,
}


def ratio_pairs(arms):
    """The (arm, base) pairs of the ratio tables: C against B and A; without
    C, the tip row against B; a row against the tip row, or against C when
    there is none."""
    pairs = [("C", b) for b in ("B", "A") if "C" in arms and b in arms]
    if "C" not in arms and "tip" in arms and "B" in arms:
        pairs.append(("tip", "B"))
    tip = "tip" if "tip" in arms else "C" if "C" in arms else None
    return pairs + [(a, tip) for a in arms if tip and a not in ARMS and a != tip]


def ratio_table(runs, wl, scen, pairs):
    metrics = RATIO_METRICS[wl]
    runs = [r for r in runs if r["scenario"] == scen and r["wl"] == wl]
    out = ["#### %s, %s: paired ratios within a round (valid pairs only)\n" % (wl, scen),
           "| round | pair | " + " | ".join(m for m, _ in metrics) + " |",
           "|---|---|" + "---|" * len(metrics)]
    by = {(r["round"], r["arm"]): r for r in runs}
    rounds = sorted({r["round"] for r in runs})
    any_row = False
    spread = {}
    for rd in rounds:
        for arm, base in pairs:
            pair = "%s/%s" % (arm, base)
            c, o = by.get((rd, arm)), by.get((rd, base))
            if not c or not o:
                continue
            if not (c["valid"] and o["valid"]):
                why = "invalid: " + "; ".join(c["invalid"] + o["invalid"])
                out.append("| %d | %s | %s |" % (rd, pair, why) + " |" * (len(metrics) - 1))
                any_row = True
                continue
            cells = []
            for m, get in metrics:
                try:
                    x, y = get(c), get(o)
                    if x is not None and y:
                        cells.append("%.2f" % (x / y))
                        if outcome(o) == "ok" and outcome(c) == "ok":
                            spread.setdefault((pair, m), []).append(x / y)
                    else:
                        cells.append("-")
                except (KeyError, TypeError):
                    cells.append("-")
            if outcome(o) != "ok":
                cells = [x + "*" for x in cells]
            out.append("| %d | %s | %s |" % (rd, pair, " | ".join(cells)))
            any_row = True
    if not any_row:
        out.append("| - | - |" + " - |" * len(metrics))
    pairs = ["%s/%s" % p for p in pairs]
    out += spread_rows(spread, metrics, pairs)
    out.append("\n(*: the other arm was %s; its workload figures are partial.)\n"
               % "OOM-killed or timed out")
    out += noise_lines(spread, metrics, pairs)
    return out


def spread_rows(spread, metrics, pairs):
    """Per pair: the median of the rounds' ratios and their range."""
    out = []
    for pair in pairs:
        if not any((pair, m) in spread for m, _ in metrics):
            continue
        cells = []
        for m, _ in metrics:
            v = sorted(spread.get((pair, m), []))
            cells.append("%.2f [%.2f-%.2f] (%d)" % (statistics.median(v), v[0], v[-1], len(v))
                         if v else "-")
        out.append("| all | %s median [range] (rounds) | %s |" % (pair, " | ".join(cells)))
    return out


def noise_lines(spread, metrics, pairs):
    """Which ratios are inside the round-to-round noise: a range that
    holds 1.00 (or a single round) says nothing either way."""
    out = []
    for pair in pairs:
        inside, above, below = [], [], []
        for m, _ in metrics:
            v = spread.get((pair, m), [])
            if not v:
                continue
            if len(v) < 2 or min(v) <= 1.0 <= max(v):
                inside.append(m)
            elif min(v) > 1.0:
                above.append(m)
            else:
                below.append(m)
        if not any((pair, m) in spread for m, _ in metrics):
            continue
        n = max(len(spread.get((pair, m), [])) for m, _ in metrics)
        out.append("%s over %d paired round(s): above 1 in every round: %s; below 1 in every"
                   " round: %s; inside the noise (the range holds 1, or one round): %s.\n"
                   % (pair, n, ", ".join(above) or "none", ", ".join(below) or "none",
                      ", ".join(inside) or "none"))
    return out


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


# One colour per arm in every figure (colour-blind safe, Dark2); the
# rows take the colours the arms present leave free, in their order.
ARM_COLOURS = {"A": "#7570b3", "B": "#d95f02", "C": "#1b9e77"}
ROW_COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
               "#a6761d", "#666666", "#1f78b4"]


def arm_name(a):
    return ARM_NAMES.get(a, "row: series variant, shrinker on")


def arms_of(runs, res):
    """The arms of res's runs: A, B, C first, then the rows in the order of
    meta.txt's "row NAME=REV" lines (any others sorted); each row gets
    its colour."""
    listed = [line.split()[1].split("=")[0] for line in
              read(os.path.join(res, "meta.txt")).splitlines() if line.startswith("row ")]
    have = {r["arm"] for r in runs}
    rows = [a for a in listed if a in have] + sorted(have - set(ARMS) - set(listed))
    taken = {ARM_COLOURS[a] for a in ARMS if a in have}
    free = [c for c in ROW_COLOURS if c not in taken]
    for i, a in enumerate(rows):
        ARM_COLOURS.setdefault(a, free[i % len(free)])
    return [a for a in ARMS if a in have] + rows


def write_bars(path, header, runs, arms, scenarios, wl, getters):
    """One line per scenario and arm of workload wl: index, label, then the
    median, min and max over its valid runs of each getter (NaN when none;
    a getter returns None to leave a run out), then the arm's colour as
    an integer (gnuplot's lc rgb variable). Returns [(label, arm, medians
    or None)]."""
    bars = []
    with open(path, "w") as f:
        f.write(header)
        i = 0
        for s in scenarios:
            for a in arms:
                ok = [r for r in runs if r["scenario"] == s and r["arm"] == a
                      and r["wl"] == wl and r["valid"]]
                cols, meds = [], []
                for get in getters:
                    vals = [v for v in map(get, ok) if v is not None]
                    if vals:
                        cols += [statistics.median(vals), min(vals), max(vals)]
                        meds.append(statistics.median(vals))
                    else:
                        cols += [float("nan")] * 3
                        meds.append(None)
                f.write('%d "%s-%s" %s %d\n' % (i, s, a, " ".join("%g" % c for c in cols),
                                               int(ARM_COLOURS[a][1:], 16)))
                bars.append(("%s-%s" % (s, a), a, meds))
                i += 1
    return bars


def bar_panel(dat, bars, k, title, ylabel):
    """gnuplot lines for one bar chart: column 3 + 3k is the median of
    getter k; a log y axis when the medians differ by 10x or more; a bar
    without a valid run is labelled so rather than drawn at 0."""
    col = 3 + 3 * k
    meds = [m[k] for _, _, m in bars if m[k] is not None and m[k] > 0]
    log = len(meds) > 1 and max(meds) >= 10 * min(meds)
    ncol = 3 + 3 * len(bars[0][2])      # the colour column
    lines = ["unset label", "set title '%s'" % title, "set ylabel '%s'" % ylabel,
             "set xtics (%s)" % ", ".join('"%s" %d' % (lb, i) for i, (lb, _, _) in enumerate(bars))]
    if log:
        lines += ["set logscale y", "set yrange [%g:*]" % (min(meds) / 3),
                  "set ylabel '%s (log scale)'" % ylabel]
    else:
        lines += ["unset logscale y", "set yrange [0:*]"]
    for i, (_, _, m) in enumerate(bars):
        if m[k] is None:
            lines.append("set label 'no valid run' at %d, graph 0.5 center rotate by 90 front" % i)
    lines.append("plot '%s' using 1:%d:(0.6):%d with boxes lc rgb variable notitle, "
                 "'' using 1:%d:%d:%d with yerrorbars pt 0 lc rgb 'black' notitle"
                 % (dat, col, ncol, col, col + 1, col + 2))
    return "\n".join(lines)


# The throughput figures: workload -> (file, what is plotted, its unit).
THROUGHPUT_FIGURES = {"cache": ("throughput-p999.png", "cachebench", "ops/s"),
                      "oltp": ("oltp-throughput-p999.png", "OLTP",
                               "transactions/s")}

BAR_STYLE = """set style fill solid 0.7 border rgb 'black'
set grid y
set xtics rotate by -30
set xrange [-0.6:*]
set offsets 0, 0.6, 0, 0
"""


def figure_throughput(runs, fig, arms, scenarios, wl):
    """Per arm and scenario: median, min, max of ops/s and p99.9 (valid runs)."""
    name, what, unit = THROUGHPUT_FIGURES[wl]
    dat = os.path.join(fig, "arms.dat" if wl == "cache" else wl + "-arms.dat")
    ran = lambda get: lambda r: (get(r["workload"]) if r["workload"].get("ops")
                                 and r["workload"].get("p999_us") is not None else None)
    bars = write_bars(dat, "# idx label ops_med ops_min ops_max p999_med p999_min p999_max rgb\n",
                      runs, arms, scenarios, wl,
                      [ran(lambda w: w["ops_per_s"]), ran(lambda w: w["p999_us"] / 1000)])
    gnuplot("""set terminal pngcairo size 1000,420 noenhanced
set output '%s'
set multiplot layout 1,2
%s
%s
%s
unset multiplot
""" % (os.path.join(fig, name), BAR_STYLE,
       bar_panel(dat, bars, 0, "%s throughput (median, min-max over valid runs)" % what, unit),
       bar_panel(dat, bars, 1, "%s p99.9 latency" % what, "ms")))
    return "figures/" + name


def figure_compile(runs, fig, arms, scenarios):
    """Per arm and scenario: median, min, max of the build time (valid runs)."""
    dat = os.path.join(fig, "compile.dat")
    bars = write_bars(dat, "# idx label build_med build_min build_max rgb\n", runs, arms,
                      scenarios, "compile", [lambda r: None if r["workload"].get("failed")
                                             else r["workload"].get("build_s")])
    gnuplot("""set terminal pngcairo size 600,420 noenhanced
set output '%s'
%s
%s
""" % (os.path.join(fig, "compile-time.png"), BAR_STYLE,
       bar_panel(dat, bars, 0, "compile slice: build time (median, min-max)", "s")))


def figure_timeseries(runs, res, fig, wl, arms, scenarios):
    """The first round's pool size, cost.wait/indebt and PSI full over
    time, one colour per arm (cost.indebt dashed), the key outside."""
    rd = min((r["round"] for r in runs), default=1)
    made = []
    for s in scenarios:
        series = []
        for r in runs:
            csv = os.path.join(res, r["run"], "samples.csv")
            if r["round"] == rd and r["scenario"] == s and os.path.exists(csv):
                series.append((r["arm"], csv))
        series.sort(key=lambda x: arms.index(x[0]))
        if not series:
            continue
        name = "timeseries-%s%s.png" % ("" if wl == "cache" else wl + "-", s)
        made.append("figures/" + name)
        lc = lambda a: "lc rgb '%s' lw 2" % ARM_COLOURS[a]
        pool = ", ".join("'%s' using ($1/1000):($2/1048576) with lines %s title '%s'"
                         % (p, lc(a), a) for a, p in series)
        wait = ", ".join("'%s' using ($1/1000):($6/1e6) with lines %s title '%s cost.wait'"
                         % (p, lc(a), a) for a, p in series)
        debt = ", ".join("'%s' using ($1/1000):($7/1e6) with lines %s dt 2 title '%s cost.indebt'"
                         % (p, lc(a), a) for a, p in series)
        psi = ", ".join("'%s' using ($1/1000):($9/1e6) with lines %s title '%s'"
                        % (p, lc(a), a) for a, p in series)
        gnuplot("""set terminal pngcairo size 1100,900 noenhanced
set output '%s'
set datafile separator ','
set key outside right top
set lmargin 10
set rmargin 24
set multiplot layout 3,1 title '%s workload, round %d, scenario %s'
set grid
set xlabel 'seconds since the workload started'
set ylabel 'zswap pool (MiB)'
plot %s
set ylabel 'iocost, cumulative (s)'
plot %s, %s
set ylabel 'memory PSI full, cumulative (s)'
plot %s
unset multiplot
""" % (os.path.join(fig, name), wl, rd, s, pool, wait, debt, psi))
    return made


def figures(runs, res, arms, scenarios, workloads):
    """Makes the figures; returns their paths relative to res."""
    fig = os.path.join(res, "figures")
    os.makedirs(fig, exist_ok=True)
    made = []
    for wl in THROUGHPUT_FIGURES:
        if wl in workloads:
            made.append(figure_throughput(runs, fig, arms, scenarios, wl))
    if "compile" in workloads:
        figure_compile(runs, fig, arms, scenarios)
        made.append("figures/compile-time.png")
    for wl in workloads:
        made += figure_timeseries([r for r in runs if r["wl"] == wl], res, fig, wl, arms, scenarios)
    return made


def summary(res):
    runs = load_runs(res)
    if not runs:
        sys.exit("summary.py: no runs under %s" % res)
    arms = arms_of(runs, res)
    scenarios = [s for s in SCENARIOS if any(r["scenario"] == s for r in runs)]
    workloads = [w for w in WORKLOADS if any(r["wl"] == w for r in runs)]
    meta = read(os.path.join(res, "meta.txt"))
    out = ["# Benchmark summary: %s\n" % os.path.basename(res), "```", meta.strip(), "```", "",
           "Cells: median [min-max] over the valid runs of an arm. Times in seconds",
           "are totals over the measured interval (sibling warm-up excluded).", ""]
    for wl in workloads:
        for s in scenarios:
            if any(r["wl"] == wl and r["scenario"] == s for r in runs):
                out += scenario_table(runs, wl, s, arms)
                out += ratio_table(runs, wl, s, ratio_pairs(arms))
    out.append("### Runs\n")
    out.append("| run | workload | valid | outcome | wall (s) | kernel as built | host load"
               " start/end/max | reasons |")
    out.append("|---|---|---|---|---|---|---|---|")
    for r in sorted(runs, key=lambda r: (r["round"], r["wl"], r["scenario"], r["arm"])):
        hl = r.get("host_load")
        out.append("| %d-%s-%s | %s | %s | %s | %d | %s | %s | %s |" % (
            r["round"], r["scenario"], r["arm"], r["wl"], "yes" if r["valid"] else "no",
            outcome(r), r["wall_s"],
            {True: "yes", False: "no", None: "-"}[r.get("kernel_match")],
            "%.2f/%.2f/%.2f" % (hl["start"], hl["end"], hl["max"]) if hl else "-",
            "; ".join(r["invalid"]) or "-"))
    out += ["", "(kernel as built: the guest's build ID, or uname -r and -v, against the"
            " image built for the arm; host load: the host's 1-minute load average,"
            " sampled every 10 s; a run whose highest sample exceeds"
            " BENCH_HOST_LOAD_MAX, the host's CPUs + 1.5, is invalid. '-': not"
            " recorded, runs before these checks.)", ""]
    made = figures(runs, res, arms, scenarios, workloads)
    out.append("Figures: " + ", ".join(made))
    with open(os.path.join(res, "summary.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))


ROW_METRICS = [
    ("populate (s)", lambda r: r["workload"]["populate_s"], "%.1f"),
    ("ops/s", lambda r: r["workload"]["ops_per_s"], "%.0f"),
    ("p99.9 (ms)", lambda r: r["workload"]["p999_us"] / 1000, "%.1f"),
    ("PSI full (s)", lambda r: r["psi_us"]["full"] / 1e6, "%.1f"),
    ("cost.wait (s)", lambda r: r["io"]["cost.wait"] / 1e6, "%.1f"),
    ("cost.indebt (s)", lambda r: r["io"]["cost.indebt"] / 1e6, "%.2f"),
    ("pages/bio", lambda r: r["pages_per_write"], "%.2f"),
    ("write bios", lambda r: r["vmstat"]["nrswpout"], "%.0f"),
    ("by the workload (%)", lambda r: 100.0 * r["swap_writers"].get("workload", 0)
     / max(1, sum(r["swap_writers"].values())), "%.0f"),
    ("workload write IOPS", lambda r: r["io"]["wios"] / r["interval_s"], "%.0f"),
    ("sibling IOPS", lambda r: r["sibling_io"]["wios"] / r["interval_s"], "%.0f"),
]

# Issue 16's metrics: pages per device request beside pages per bio,
# PSI full as a share of each phase, and where the cost moved (the
# writeback counters of the series, the kworkers' and the cgroup's CPU).
V2_METRICS = [
    ("pages/bio", lambda r: r["pages_per_write"], "%.2f"),
    ("pages/request (device)", lambda r: r["pages_per_request"], "%.2f"),
    ("PSI full, cgroup (% of interval)", lambda r: r["psi_share"]["cgroup interval"], "%.0f"),
    ("PSI full, system (% of interval)", lambda r: r["psi_share"]["system interval"], "%.0f"),
    ("PSI full, cgroup (% of populate)", lambda r: r["psi_share"]["cgroup populate"], "%.0f"),
    ("PSI full, cgroup (% of run)", lambda r: r["psi_share"]["cgroup run"], "%.0f"),
    ("written back: deferred / in place throttled / unthrottled (pages)",
     lambda r: "%d / %d / %d" % (r["zswap"]["deferred_wb_pages"],
                                 r["zswap"]["inplace_wb_throttled_pages"],
                                 r["zswap"]["inplace_wb_pages"]), "%s"),
    ("workload CPU (s)", lambda r: r["cpu"]["usage_usec"] / 1e6, "%.1f"),
    ("zswap kworker CPU (s)", lambda r: r["zswap_kworker_cpu_s"], "%.1f"),
    ("sibling p99 (ms, fio)", lambda r: r["sibling_fio"]["p99_ms"], "%.1f"),
]

# Where the device time went: iocost's cost.usage is the device time
# (vtime at vrate 100%) charged to a cgroup, so the two add up to the
# interval when the disk is the bottleneck.
SHARE_METRICS = [
    ("interval (s)", lambda r: r["interval_s"], "%.0f"),
    ("workload cost.usage (s)", lambda r: r["io"]["cost.usage"] / 1e6, "%.1f"),
    ("sibling cost.usage (s)", lambda r: r["sibling_io"]["cost.usage"] / 1e6, "%.1f"),
    ("workload swap-in reads/s", lambda r: r["io"]["rios"] / r["interval_s"], "%.0f"),
    ("workload pages written/s", lambda r: r["vmstat"]["pswpout"] / r["interval_s"], "%.0f"),
    ("sibling writes/s", lambda r: r["sibling_io"]["wios"] / r["interval_s"], "%.0f"),
    ("4 KiB transfers/s (all)", lambda r: (r["io"]["rbytes"] + r["io"]["wbytes"]
                                           + r["sibling_io"]["wbytes"]) / 4096 / r["interval_s"], "%.0f"),
]
# What the fallback rule bounds: the compressed pool under the cgroup's
# memory.max, and the faults back from it.
POOL_METRICS = [
    ("zswap pool max (MiB)", lambda r: r["pool_max_bytes"] / (1 << 20), "%.1f"),
    ("zswpin", lambda r: r["vmstat"]["zswpin"], "%.0f"),
    ("zswpwb", lambda r: r["vmstat"]["zswpwb"], "%.0f"),
    ("sibling IOPS (fio)", lambda r: r["sibling_fio"]["iops"], "%.0f"),
]
ROW_TABLES = [("", ROW_METRICS), (", device time", SHARE_METRICS),
              (", requests, stall shares, cost", V2_METRICS), (", pool", POOL_METRICS)]


def rows(dirs):
    """The design-choice rows, per workload and scenario: medians
    [min-max]. A row is arm C of a results directory, named by the
    directory (directories of the same name are one row), or a row arm of
    one (lib/bench-rows.sh), named by the arm."""
    out = []
    loaded = {}
    for d in dirs:
        runs = load_runs(d)
        for a in arms_of(runs, d):
            if a in ("A", "B"):
                continue
            name = os.path.basename(os.path.normpath(d)) if a == "C" else a
            loaded.setdefault(name, []).extend(r for r in runs if r["arm"] == a)
    loaded = list(loaded.items())
    have = [r for _, rr in loaded for r in rr]
    for wl in [w for w in WORKLOADS if any(r["wl"] == w for r in have)]:
        for suffix, table in ROW_TABLES:
            labels = [m for m, _, _ in table]
            if wl == "oltp":
                labels = ["transactions/s" if m == "ops/s" else m for m in labels]
            for scen in [s for s in SCENARIOS if any(r["scenario"] == s and r["wl"] == wl
                                                      for r in have)]:
                title = scen if wl == "cache" else "%s, %s" % (wl, scen)
                out.append("| %s%s | runs | %s |" % (title, suffix, " | ".join(labels)))
                out.append("|---|---|" + "---|" * len(table))
                for name, runs in loaded:
                    rr = [r for r in runs if r["scenario"] == scen and r["wl"] == wl]
                    if not rr:
                        continue
                    ok = [r for r in rr if r["valid"]]
                    cells = [cell(metric(ok, get), fmt) for _, get, fmt in table]
                    oom = sum(bool(r.get("oom")) for r in rr)
                    runs_cell = "%d/%d valid%s" % (len(ok), len(rr),
                                                   ", %d OOM" % oom if oom else "")
                    out.append("| %s | %s | %s |" % (name, runs_cell, " | ".join(cells)))
                out.append("")
    print("\n".join(out))


# The metrics of the short tables, by their metric_rows() labels.
PSI_SHARES = ["memory PSI full, cgroup (% of the interval)",
              "memory PSI full, system (% of the interval)",
              "memory PSI full, cgroup (% of populate)",
              "memory PSI full, system (% of populate)",
              "memory PSI full, cgroup (% of the run phase)",
              "memory PSI full, system (% of the run phase)"]
# where the cost moved (rows without data in a results directory, e.g.
# runs recorded before these counters, are left out of its tables)
COST_MOVED = ["workload cgroup CPU (s)", "kworker CPU, zswap workqueues (s)",
              "kworker CPU, all (s)", "written back by the worker",
              "written back in place, throttled", "written back in place, unthrottled"]
WRITES = ["pages per write bio (pswpout / nrswpout)",
          "pages per device write request (swap partition)",
          "swap write bios by kworkers", "swap write bios by the workload"]
HEADLINE = {
    "cache": ["populate (s)", "ops/s", "p99.9 (ms)", "deadline misses (%)"] + PSI_SHARES
    + ["cost.indebt (s)", "cost.wait (s)", "cost.indelay (s)", "zswpwb"] + WRITES
    + COST_MOVED + ["zswap pool max (MiB)"],
    "compile": ["build time (s; a timed-out run counts its timeout)",
                "memory PSI full, cgroup (% of the build)",
                "memory PSI full, system (% of the interval)",
                "cost.indebt (s)", "cost.wait (s)", "cost.indelay (s)",
                "written_back_pages"] + WRITES + COST_MOVED + ["zswap pool max (MiB)"],
    "oltp": ["populate (s)", "populate rate (buffer pool pages/s)", "transactions/s",
             "p99 (ms)", "p99.9 (ms)", "deadline misses (%)"] + PSI_SHARES
    + ["cost.indebt (s)", "cost.wait (s)", "cost.indelay (s)", "zswpwb"] + WRITES
    + COST_MOVED + ["zswap pool max (MiB)"],
}


def paired(runs, wl, scen, get, arm="C", base="B"):
    """arm/base of get() per round, over the rounds where both runs are
    valid and have the figure."""
    by = {(r["round"], r["arm"]): r for r in runs
          if r["wl"] == wl and r["scenario"] == scen and r["valid"]}
    out = []
    for rd in sorted({k[0] for k in by}):
        c, b = by.get((rd, arm)), by.get((rd, base))
        if c is None or b is None:
            continue
        try:
            out.append(get(c) / get(b))
        except (KeyError, TypeError, ZeroDivisionError):
            pass
    return out


# ratios within this of 1 are level, whatever their side
LEVEL = 0.02


def ratios_cell(vals):
    """Per-round ratios, then whether they leave the noise: a difference is
    called real only when every round's ratio lies on the same side of 1,
    more than LEVEL away from it."""
    if not vals:
        return "-"
    text = ", ".join("%.2f" % x for x in vals)
    if len(vals) < 2:
        return text
    if min(vals) > 1 + LEVEL:
        return text + " (all > 1)"
    if max(vals) < 1 - LEVEL:
        return text + " (all < 1)"
    return text + " (noise)"


# The workloads the aims are judged on: both have a populate rate.
AIM_WORKLOADS = ["cache", "oltp"]


def aims(runs, scen, wl="cache"):
    """The issue's aims for one scenario of a workload: (aim, verdict)."""
    rr = [r for r in runs if r["wl"] == wl and r["scenario"] == scen]
    c = [r for r in rr if r["arm"] == "C"]
    cv = [r for r in c if r["valid"]]
    def judge(v, ok, f, unit=""):
        if not v:
            return "no paired round"
        said = "met" if all(map(ok, v)) else "partly" if any(map(ok, v)) else "not met"
        return "%s: %s%s" % (said, ", ".join(f % x for x in v), unit)

    oom = sum(bool(r.get("oom")) for r in c)
    ratio = dict(RATIO_METRICS[wl])
    speed = paired(rr, wl, scen, ratio["populate rate"])
    debt = metric(cv, getter("cost.indebt (s)"))
    psi = [x - 1 for x in paired(rr, wl, scen, ratio["PSI full share"])]
    ppw = metric(cv, getter("pages per write bio (pswpout / nrswpout)"))
    ppr = [x for x in metric(cv, getter("pages per device write request (swap partition)"))
           if x is not None]
    return [
        ("no OOM in arm C", "%s: %d/%d OOM-killed" % ("met" if c and not oom else "not met",
                                                    oom, len(c))),
        ("C populates >= 10x faster than B (rate, per round)",
         judge(speed, lambda x: x >= 10, "%.1fx")),
        ("iocost debt < 1 s in C", judge(debt, lambda x: x < 1, "%.2f", " s")),
        ("PSI full -90% vs B (share of the interval, per round)",
         judge([100 * x for x in psi], lambda x: x <= -90, "%+.1f%%")),
        ("pages per write bio >= 8 in C (per device request in brackets)",
         judge(ppw, lambda x: x is not None and x >= 8, "%.2f",
               " (%s)" % ", ".join("%.2f" % x for x in ppr) if ppr else "")),
    ]


def headline(res):
    runs = load_runs(res)
    fmts = {label: f for label, _, f in metric_rows()}
    arms = arms_of(runs, res)
    pairs = [("C", b) for b in arms if b == "B" or b not in ARMS] if "C" in arms else []
    out = []
    for wl in WORKLOADS:
        scens = [s for s in SCENARIOS
                 if any(r["wl"] == wl and r["scenario"] == s for r in runs)]
        if not scens:
            continue
        cols = ["%s %s" % (s, a) for s in scens for a in arms]
        out += ["%s workload: median [min-max] over the valid runs\n" % wl,
                "| metric | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        cells = ["%d/%d" % (sum(bool(r.get("oom")) for r in ar), len(ar))
                 for ar in (select(runs, wl, s, a) for s in scens for a in arms)]
        out.append("| OOM-killed | " + " | ".join(cells) + " |")
        stalled = [sum(bool(r.get("workload", {}).get("stalled_start")) for r in ar)
                   for ar in (select(runs, wl, s, a, valid=True) for s in scens for a in arms)]
        if any(stalled):
            out.append("| sysbench not started within 30 s (valid runs, no figures) | "
                       + " | ".join("%d" % n for n in stalled) + " |")
        missing = []
        for label in HEADLINE[wl]:
            cells = [cell(metric(select(runs, wl, s, a, valid=True), getter(label)), fmts[label])
                     for s in scens for a in arms]
            if all(c == "-" for c in cells):
                missing.append(label)
                continue
            out.append("| %s | %s |" % (label, " | ".join(cells)))
        if missing:
            out += ["", "Not recorded in these runs: %s." % "; ".join(missing)]
        for arm, base in pairs:
            out += ["", "%s, %s/%s paired within a round (one figure per round; \"noise\""
                    " where the rounds disagree on the side of 1 or are within %d%% of it):\n"
                    % (wl, arm, base, round(100 * LEVEL)),
                    "| scenario | " + " | ".join(m for m, _ in RATIO_METRICS[wl]) + " |",
                    "|---" * (len(RATIO_METRICS[wl]) + 1) + "|"]
            for s in scens:
                out.append("| %s | %s |" % (s, " | ".join(
                    ratios_cell(paired(runs, wl, s, get, arm, base))
                    for _, get in RATIO_METRICS[wl])))
        out.append("")
    for wl in AIM_WORKLOADS:
        if not any(r["wl"] == wl for r in runs):
            continue
        scens = [s for s in SCENARIOS if any(r["wl"] == wl and r["scenario"] == s for r in runs)]
        out += ["The issue's aims (%s workload):\n" % wl,
                "| aim | " + " | ".join(scens) + " |", "|---" * (len(scens) + 1) + "|"]
        per = {s: aims(runs, s, wl) for s in scens}
        for i, (aim, _) in enumerate(per[scens[0]]):
            out.append("| %s | %s |" % (aim, " | ".join(per[s][i][1] for s in scens)))
        out.append("")
    print("\n".join(out))


# ---- the OOM matrix (lib/bench-oom.sh) ------------------------------------

# Its arms in table order (lib/bench.sh's arm B is stock there); cells
# sort by device, sibling and shape in these orders.
OOM_ARMS = ["stock", "fallback-never", "tip", "age-only", "age-100"]
OOM_CELL_ORDER = (["normal", "slow", "vslow"], ["none", "open", "heavy"],
                  ["2x", "4x", "manymemcg"])
# The compressed pool "came near memory.max" at this peak share (%).
NEAR_MAX_PCT = 75
# A run with one of these is no outcome (nothing measured, or another
# kernel); a guest that hung shows as a VM timeout here.
NO_RESULT = ("VM timeout", "guest stopped early", "not the kernel built")


def oom_arm(a):
    return "stock" if a == "B" else a


def oom_cells(res):
    """The cells of an OOM matrix directory: its lib/bench.sh results
    directories, in device, sibling and shape order."""
    cells = [d for d in os.listdir(res) if os.path.isfile(os.path.join(res, d, "meta.txt"))]

    def key(c):
        return tuple(o.index(x) if x in o else len(o)
                     for x, o in zip(c.split("-"), OOM_CELL_ORDER)) + (c,)
    return sorted(cells, key=key)


def oom_outcome(r):
    """no result, OOM, finished, populate timed out or failed (exit N)."""
    if "oom" not in r or any(w.startswith(NO_RESULT) for w in r["invalid"]):
        return "no result"
    if r["oom"]:
        return "OOM"
    w = r.get("workload", {})
    if r.get("workload_rc") == 0 and w.get("populate_done"):
        return "finished"
    if r.get("workload_rc") == 0:
        return "populate timed out"
    return "failed (exit %s)" % r.get("workload_rc")


def oom_load(res):
    """{cell: {arm: [runs]}} of an OOM matrix directory, arms renamed."""
    out = {}
    for c in oom_cells(res):
        for r in load_runs(os.path.join(res, c)):
            out.setdefault(c, {}).setdefault(oom_arm(r["arm"]), []).append(r)
    return out


def oom_arms(data):
    have = {a for arms in data.values() for a in arms}
    return [a for a in OOM_ARMS if a in have] + sorted(have - set(OOM_ARMS))


def oom_survival(r):
    """A run's outcome with a finished workload and a bounded populate
    taken as one ("survived"): the deferring arms populate several times
    faster than stock, so that difference alone picks every cell."""
    o = oom_outcome(r)
    return "survived" if o in ("finished", "populate timed out") else o


def oom_flags(arms):
    """Why a cell needs the follow-up (every arm, 3 rounds): an arm was
    OOM-killed, its compressed pool came near memory.max, or its outcomes
    (oom_survival()) differ from stock's: e.g. a workload that failed or
    a guest that hung where stock survived."""
    why = []
    for a, runs in arms.items():
        if any(oom_outcome(r) == "OOM" for r in runs):
            why.append("%s OOM-killed" % a)
        if any((r.get("pool_share_max") or 0) >= NEAR_MAX_PCT for r in runs):
            why.append("%s pool >= %d%% of memory.max" % (a, NEAR_MAX_PCT))
    base = {oom_survival(r) for r in arms.get("stock", [])}
    for a, runs in arms.items():
        outs = {oom_survival(r) for r in runs}
        if a != "stock" and base and outs != base:
            why.append("%s %s vs stock %s" % (a, "/".join(sorted(outs)), "/".join(sorted(base))))
    return why


def oom_settings(r):
    """A cell's settings as its first run recorded them (params.env)."""
    p = r["params"]
    model = dict(f.split("=", 1) for f in p.get("BENCH_IOCOST_MODEL", "").split() if "=" in f)
    wss = re.search(r"--size-mb (\d+)", p.get("BENCH_WORKLOAD_CMD", ""))
    depth, rate = int(p.get("BENCH_SIBLING_DEPTH") or 0), int(p.get("BENCH_SIBLING_RATE") or 0)
    sib = "none" if not depth else "%d IOPS, depth %d" % (rate, depth) if rate else \
        "closed loop, depth %d" % depth
    disk = "unthrottled" if model.get("rrandiops") == "0" else \
        "%s IOPS, %.1f MiB/s" % (model.get("rrandiops", "?"), int(model.get("rbps", 0)) / (1 << 20))
    return [disk, sib, p.get("BENCH_MEM_MAX", "?"), "%sM" % wss.group(1) if wss else "?",
            p.get("BENCH_MEMCGS") or "1", p.get("BENCH_ZSWAP_MAX_POOL_PERCENT", "?")]


OOM_METRICS = [
    ("populate (s)", lambda r: r["workload"]["populate_s"], "%.1f"),
    ("ops/s", lambda r: r["workload"]["ops_per_s"] if r["workload"].get("ops") else None, "%.0f"),
    ("p99.9 (ms)", lambda r: r["workload"]["p999_us"] / 1000, "%.1f"),
    ("PSI full, cgroup (% of interval)", lambda r: r["psi_share"]["cgroup interval"], "%.0f"),
    ("pool peak (% of memory.max)", lambda r: r["pool_share_max"], "%.0f"),
    ("pool + under writeback, memcgs that lived (sampled peak, % of the limit, highest)",
     lambda r: r.get("memcg_pool_wb_max_lived"), "%.0f"),
    ("pool + under writeback, memcgs OOM-killed (sampled before the kill, highest)",
     lambda r: r.get("memcg_pool_wb_max_killed"), "%.0f"),
    ("pool at OOM reports (% of the memcg's limit, highest)",
     lambda r: max((k["zswap %"] for k in r.get("oom_memcgs") or []), default=None), "%.0f"),
    ("under writeback at OOM reports (% of the limit, highest)",
     lambda r: max((k["writeback %"] for k in r.get("oom_memcgs") or []), default=None), "%.0f"),
    ("memory.max events", lambda r: r["mem_events"]["max"], "%.0f"),
    ("sibling IOPS (fio)", lambda r: r["sibling_fio"]["iops"], "%.0f"),
    ("sibling p99 (ms, fio)", lambda r: r["sibling_fio"]["p99_ms"], "%.1f"),
]


def oom(res):
    data = oom_load(res)
    if not data:
        sys.exit("summary.py oom: no cell under %s" % res)
    arms = oom_arms(data)
    out = ["OOM matrix: OOM-killed runs / runs with an outcome per cell and arm"
           " (\"+N none\": runs without an outcome, e.g. a guest that did not finish)\n",
           "| cell | " + " | ".join(arms) + " | follow-up because |",
           "|---" * (len(arms) + 2) + "|"]
    for c, by in data.items():
        cells = []
        for a in arms:
            outs = [oom_outcome(r) for r in by.get(a, [])]
            got = [o for o in outs if o != "no result"]
            if not outs:
                cells.append("-")
                continue
            none = len(outs) - len(got)
            cells.append("%d/%d%s" % (outs.count("OOM"), len(got),
                                      " (+%d none)" % none if none else ""))
        out.append("| %s | %s | %s |" % (c, " | ".join(cells), "; ".join(oom_flags(by)) or "-"))
    out += ["", "Per cell and arm: median [min-max] over the runs with an outcome (workload"
            " figures from the runs whose workload reported; a killed instance of the"
            " many-memcg cell reports nothing)\n",
            "| cell | arm | rounds | OOM / runs | oom_kill (cgroup) | kernel log kills (memcg,"
            " global) | outcomes | " + " | ".join(m for m, _, _ in OOM_METRICS)
            + " | host load max |",
            "|---" * (len(OOM_METRICS) + 8) + "|"]
    for c, by in data.items():
        for a in arms:
            runs = sorted(by.get(a, []), key=lambda r: r["round"])
            if not runs:
                continue
            got = [r for r in runs if oom_outcome(r) != "no result"]
            outs = {}
            for r in runs:
                outs[oom_outcome(r)] = outs.get(oom_outcome(r), 0) + 1
            log = "%d, %d" % (sum(r["oom_log"]["memcg"] for r in runs if "oom_log" in r),
                              sum(r["oom_log"]["global"] for r in runs if "oom_log" in r))
            figs = [cell(metric(got, get), fmt) for _, get, fmt in OOM_METRICS]
            load = [r["host_load"]["max"] for r in runs if r.get("host_load")]
            out.append("| %s | %s | %s | %d/%d | %d | %s | %s | %s | %s |" % (
                c, a, ",".join(str(r["round"]) for r in runs),
                sum(oom_outcome(r) == "OOM" for r in got), len(got),
                sum(r.get("oom_kill", 0) for r in got), log,
                ", ".join("%s %d" % kv for kv in sorted(outs.items())),
                " | ".join(figs), "%.1f" % max(load) if load else "-"))
    out += ["", "Cells (as their runs recorded them)\n",
            "| cell | swap disk (QEMU throttle = iocost model) | sibling (io.weight 1000 vs 100)"
            " | memory.max (per memcg) | working set (per memcg) | memcgs"
            " | zswap max_pool_percent |", "|---" * 7 + "|"]
    for c, by in data.items():
        first = min((r for runs in by.values() for r in runs), key=lambda r: r["run"])
        out.append("| %s | %s |" % (c, " | ".join(oom_settings(first))))
    out.append("")
    print("\n".join(out))


def oom_pick(res):
    for c, by in oom_load(res).items():
        if oom_flags(by):
            print(c)


WORKLOAD_IO_WEIGHT = 100        # lib/bench.sh: bench-work's io.weight


def share_run(r):
    """A parsed run's iocost split of the swap disk over its whole
    interval, or None without a sibling or the before/after snapshots."""
    p, t = r["params"], r.get("interval_s")
    if r["scenario"] not in ("open", "mild", "heavy") or not t or "io" not in r:
        return None
    wl, sib, zs = r["io"], r["sibling_io"], r["zswap"]
    model = dict(f.split("=", 1) for f in p.get("BENCH_IOCOST_MODEL", "").split()
                 if "=" in f)
    iops = float(model.get("wrandiops", 0))
    weight = float(p.get("BENCH_SIBLING_WEIGHT", 0) or 0)
    wu, su = wl.get("cost.usage", 0), sib.get("cost.usage", 0)
    wreq = wl.get("rios", 0) + wl.get("wios", 0)
    sreq = sib.get("rios", 0) + sib.get("wios", 0)
    out = {
        "weight %": 100 * WORKLOAD_IO_WEIGHT / (WORKLOAD_IO_WEIGHT + weight)
        if weight else None,
        "cost.usage share %": 100 * wu / (wu + su) if wu + su else None,
        "bio share %": 100 * wreq / (wreq + sreq) if wreq + sreq else None,
        "cost.wait % of T": 100 * wl.get("cost.wait", 0) / 1e6 / t,
        "cost.indebt % of T": 100 * wl.get("cost.indebt", 0) / 1e6 / t,
        "sibling IOPS": sreq / t,
        "sibling IOPS / its share": sreq / t / (iops * weight /
                                               (weight + WORKLOAD_IO_WEIGHT))
        if iops and weight else None,
        "sibling cost.wait % of T": 100 * sib.get("cost.wait", 0) / 1e6 / t,
    }
    if "paced_wb_sleeps" in zs or "paced_wb_delays" in zs:
        n = zs.get("paced_wb_sleeps", zs.get("paced_wb_delays"))
        out["worker sleeps"] = n
        out["worker ms per sleep"] = zs.get("paced_wb_ms", 0) / n if n else None
    return out


def shares(dirs):
    groups = {}
    for d in dirs:
        src = os.path.basename(os.path.normpath(d))
        cells = oom_cells(d) or ["."]
        for c in cells:
            for r in load_runs(os.path.join(d, c)):
                sh = share_run(r)
                if sh:
                    key = (src + ("" if c == "." else "/" + c), r["wl"], r["scenario"])
                    groups.setdefault(key, {}).setdefault(r["arm"], []).append(sh)
    for (src, wl, scen), arms in sorted(groups.items()):
        names = sorted(arms, key=lambda a: (a not in ARMS, a))
        metrics = []
        for r in (r for runs in arms.values() for r in runs):
            metrics += [k for k in r if k not in metrics]
        print(f"\n{src}: {wl}, {scen}; median [min-max] over the runs\n")
        print("| metric | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        print("| runs | " + " | ".join(str(len(arms[a])) for a in names) + " |")
        for k in metrics:
            fmt = "%.2f" if k.endswith("its share") else "%.1f"
            print(f"| {k} | " + " | ".join(
                cell([r.get(k) for r in arms[a]], fmt) for a in names) + " |")

def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "rows":
        rows(sys.argv[2:])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "headline":
        headline(sys.argv[2])
        return
    if len(sys.argv) == 3 and sys.argv[1] in ("oom", "oom-pick"):
        (oom if sys.argv[1] == "oom" else oom_pick)(sys.argv[2])
        return
    if len(sys.argv) >= 3 and sys.argv[1] == "shares":
        shares(sys.argv[2:])
        return
    if len(sys.argv) == 4 and sys.argv[1] == "image":
        print("\n".join(image_info(sys.argv[2], sys.argv[3])))
        return
    if len(sys.argv) != 3 or sys.argv[1] not in ("parse", "line", "summary"):
        sys.exit(__doc__)
    cmd, path = sys.argv[1], sys.argv[2]
    if cmd == "parse":
        r = parse(path)
        print(json.dumps(r, indent=1, sort_keys=True))
    elif cmd == "line":
        print(progress_line(path))
    else:
        summary(path)


if __name__ == "__main__":
    main()
