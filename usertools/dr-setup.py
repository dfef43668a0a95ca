#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Set a machine up for dpdk-rdma: CPU layout, isolated cores, hugepages and
the EAL lcore arguments of dpdk-rdma-perf.

  usertools/dr-setup.py show                  # CPUs, NUMA, hugepages, isolcpus...
  usertools/dr-setup.py hugepages --reserve 1G --pagesize 2M --mount
  usertools/dr-setup.py hugepages --clear --unmount
  usertools/dr-setup.py eal --mode rtc --workers 2

Everything is read (and hugepages written) under --root (default /), so a
fake sysfs/procfs tree can stand in for the machine's. Exit status: 0 done,
1 the system refused or gave less than asked, 2 a bad command line.
See doc/guides/deployment.rst."""

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import textwrap

PROG = "dr-setup"
RTE_MAX_LCORE = 128          # Debian's DPDK 22.11 (rte_build_config.h)
HUGE_MOUNT = "/dev/hugepages"
SYS_CPU = "sys/devices/system/cpu"
SYS_NODE = "sys/devices/system/node"
SYS_HUGE = "sys/kernel/mm/hugepages"
ISOLCPUS_FLAGS = ("nohz", "domain", "managed_irq")
UNITS = "KMGT"


class SetupError(Exception):
    """A failure to report: the message, and the exit status (1 the system, 2 the CLI)."""

    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


# ---------------------------------------------------------------- lists and sizes

def parse_cpulist(text, last_cpu=None):
    """The CPUs of a kernel cpu list ("0-3,8", "2-15:2/4", "all", "N" the last
    CPU, "" none), sorted. ValueError when it is not one."""
    cpus = set()
    text = text.strip()
    if not text:
        return []
    for part in text.split(","):
        part = part.strip()
        if part == "all" or part == "N":
            if last_cpu is None:
                raise ValueError("'%s' needs the number of CPUs" % part)
            if part == "N":
                cpus.add(last_cpu)
            else:
                cpus.update(range(last_cpu + 1))
            continue
        m = re.fullmatch(r"(\d+|N)(?:-(\d+|N)(?::(\d+)/(\d+))?)?", part)
        if not m:
            raise ValueError("invalid CPU list '%s'" % text)
        ends = []
        for g in m.group(1, 2):
            if g == "N":
                if last_cpu is None:
                    raise ValueError("'N' needs the number of CPUs")
                g = last_cpu
            ends.append(None if g is None else int(g))
        lo, hi = ends
        if hi is None:
            cpus.add(lo)
            continue
        if hi < lo:
            raise ValueError("invalid CPU range '%s'" % part)
        used, group = (int(m.group(3)), int(m.group(4))) if m.group(3) else (1, 1)
        if group == 0 or used == 0 or used > group:
            raise ValueError("invalid CPU group '%s'" % part)
        cpus.update(c for c in range(lo, hi + 1) if (c - lo) % group < used)
    return sorted(cpus)


def format_cpulist(cpus):
    """[0, 1, 2, 3, 8] -> "0-3,8" ("" for none)."""
    cpus = sorted(set(cpus))
    parts = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


def parse_size(text):
    """"1G", "512M", "2MB", "64k", "4096" -> bytes."""
    m = re.fullmatch(r"(\d+)\s*([KMGT]?)(?:I?B)?", text.strip().upper())
    if not m:
        raise ValueError("invalid size '%s' (a number with K, M, G or T)" % text)
    unit = m.group(2)
    return int(m.group(1)) << (10 * (UNITS.index(unit) + 1) if unit else 0)


def fmt_kb(kb):
    """2048 -> "2M", 1048576 -> "1G", 64 -> "64K", 0 -> "0"."""
    if kb == 0:
        return "0"
    for shift, unit in ((30, "T"), (20, "G"), (10, "M")):
        if kb and kb % (1 << shift) == 0:
            return "%d%s" % (kb >> shift, unit)
    return "%dK" % kb


def size_arg(text):
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def cpulist_arg(text):
    try:
        cpus = parse_cpulist(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))
    if not cpus:
        raise argparse.ArgumentTypeError("empty CPU list")
    return cpus


# ---------------------------------------------------------------- reading the machine

class Machine:
    """The files of one root: the real one (/) or a fake tree."""

    def __init__(self, root="/"):
        self.root = root

    @property
    def real(self):
        return os.path.realpath(self.root) == "/"

    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    def read(self, rel, default=None):
        try:
            with open(self.path(rel)) as f:
                return f.read()
        except OSError:
            return default

    def read_int(self, rel, default=None):
        text = self.read(rel)
        try:
            return int(text.strip()) if text is not None else default
        except ValueError:
            return default

    def listdir(self, rel, pattern):
        """(name, match) of the entries of rel whose name matches pattern."""
        try:
            names = os.listdir(self.path(rel))
        except OSError:
            return []
        out = []
        for name in names:
            m = re.fullmatch(pattern, name)
            if m:
                out.append((name, m))
        return out


def parse_cmdline(text):
    """The kernel's parameters (name -> value, None for a bare flag; the last
    one wins), up to "--" (what follows goes to init)."""
    params = {}
    for word in re.findall(r'(?:[^\s"]+|"[^"]*")+', text or ""):
        if word == "--":
            break
        name, eq, value = word.partition("=")
        params[name] = value.replace('"', "") if eq else None
    return params


def parse_isolcpus(value, last_cpu=None):
    """isolcpus=[flag,...,]cpu-list -> (flags, cpus, unknown flags). With no
    flag the kernel takes "domain"."""
    tokens = value.split(",")
    flags, unknown = [], []
    while len(tokens) > 1 and re.fullmatch(r"[A-Za-z_]+", tokens[0]) and tokens[0] not in (
            "all", "N"):
        tok = tokens.pop(0)
        (flags if tok in ISOLCPUS_FLAGS else unknown).append(tok)
    cpus = parse_cpulist(",".join(tokens), last_cpu)
    return (flags or ["domain"]), cpus, unknown


def read_cpus(m):
    """Every online CPU: {cpu: {"core", "socket", "siblings", "node"}}, and the
    NUMA nodes {node: [cpus]} (empty when the tree has no node directory)."""
    online_text = m.read(SYS_CPU + "/online")
    try:
        if online_text is not None:
            online = parse_cpulist(online_text)
        else:
            online = sorted(int(mt.group(1)) for _, mt in m.listdir(SYS_CPU, r"cpu(\d+)"))
        nodes = {}
        for name, mt in m.listdir(SYS_NODE, r"node(\d+)"):
            nodes[int(mt.group(1))] = parse_cpulist(m.read(SYS_NODE + "/%s/cpulist" % name,
                                                           ""))
    except ValueError as e:
        raise SetupError("cannot read the CPUs under %s: %s" % (m.root, e))
    if not online:
        raise SetupError("no CPU found under %s" % m.path(SYS_CPU))
    node_of = {c: n for n, cs in nodes.items() for c in cs}
    cpus = {}
    for c in online:
        topo = SYS_CPU + "/cpu%d/topology/" % c
        sib = m.read(topo + "thread_siblings_list")
        try:
            siblings = parse_cpulist(sib) if sib else [c]
        except ValueError:
            siblings = [c]
        cpus[c] = {"core": m.read_int(topo + "core_id", c),
                   "socket": m.read_int(topo + "physical_package_id", 0),
                   "siblings": siblings, "node": node_of.get(c)}
    return cpus, dict(sorted(nodes.items()))


def read_isolation(m, cpus):
    """What the kernel command line and sysfs say about isolating CPUs."""
    last = max(cpus)
    possible = m.read(SYS_CPU + "/possible")
    if possible:
        try:
            last = max(parse_cpulist(possible) or [last])
        except ValueError:
            pass
    cmdline = m.read("proc/cmdline")
    params = parse_cmdline(cmdline)
    iso = {"cmdline": (cmdline or "").strip(), "errors": []}
    for name in ("isolcpus", "nohz_full", "rcu_nocbs"):
        value = params.get(name, False)
        entry = {"given": value is not False, "value": value or None, "cpus": []}
        if value:
            try:
                if name == "isolcpus":
                    entry["flags"], entry["cpus"], entry["unknown_flags"] = parse_isolcpus(
                        value, last)
                else:
                    entry["cpus"] = parse_cpulist(value, last)
            except ValueError as e:
                iso["errors"].append("%s=%s: %s" % (name, value, e))
        iso[name] = entry
    ic = iso["isolcpus"]
    from_cmdline = ic["cpus"] if "domain" in ic.get("flags", []) else []
    sys_iso = m.read(SYS_CPU + "/isolated")
    iso["isolated_sysfs"] = None
    if sys_iso is not None:
        try:
            iso["isolated_sysfs"] = parse_cpulist(sys_iso)
        except ValueError:
            pass
    # sysfs is the kernel's own view (isolcpus=domain); the command line otherwise
    iso["isolated"] = (iso["isolated_sysfs"] if iso["isolated_sysfs"] is not None
                       else from_cmdline)
    iso["isolated_cmdline"] = from_cmdline
    sys_nohz = m.read(SYS_CPU + "/nohz_full")
    iso["nohz_full_sysfs"] = None
    if sys_nohz is not None and sys_nohz.strip() not in ("", "(null)"):
        try:
            iso["nohz_full_sysfs"] = parse_cpulist(sys_nohz)
        except ValueError:
            pass
    nohz = set(iso["nohz_full"]["cpus"])
    if iso["nohz_full_sysfs"] is not None:
        nohz = set(iso["nohz_full_sysfs"])
    iso["nohz"] = sorted(nohz)
    # nohz_full implies rcu_nocbs for its CPUs
    iso["rcu_offloaded"] = sorted(nohz | set(iso["rcu_nocbs"]["cpus"]))
    return iso


def isolation_checks(iso, cpus):
    """Warnings about the isolation set-up, in words."""
    online = set(cpus)
    isolated = set(iso["isolated"])
    notes = list(iso["errors"])
    ic = iso["isolcpus"]
    if not ic["given"]:
        notes.append("no isolcpus on the kernel command line: every CPU takes ordinary "
                     "tasks (fine for tests; isolate the worker CPUs for measurements)")
    else:
        if "domain" not in ic.get("flags", []) and ic["cpus"]:
            notes.append("isolcpus has no 'domain' flag (flags %s): the scheduler still "
                         "places tasks on CPUs %s" % (",".join(ic["flags"]),
                                                      format_cpulist(ic["cpus"])))
        if ic.get("unknown_flags"):
            notes.append("isolcpus: the kernel skips the unknown flag(s) %s"
                         % ",".join(ic["unknown_flags"]))
    for name in ("isolcpus", "nohz_full", "rcu_nocbs"):
        off = set(iso[name]["cpus"]) - online
        if off:
            notes.append("%s names CPUs %s, which are not online" % (name, format_cpulist(off)))
    if isolated - set(iso["nohz"]):
        notes.append("CPUs %s are isolated but not nohz_full: the scheduler tick still "
                     "interrupts them" % format_cpulist(isolated - set(iso["nohz"])))
    if isolated - set(iso["rcu_offloaded"]):
        notes.append("RCU callbacks may still run on the isolated CPUs %s (rcu_nocbs)"
                     % format_cpulist(isolated - set(iso["rcu_offloaded"])))
    if set(iso["nohz"]) - isolated:
        notes.append("CPUs %s are nohz_full but not isolated: ordinary tasks can still run "
                     "there" % format_cpulist(set(iso["nohz"]) - isolated))
    if online and online <= isolated:
        notes.append("every online CPU is isolated: none is left for the kernel's "
                     "housekeeping, EAL's main lcore and its control threads")
    if (iso["isolated_sysfs"] is not None and ic["given"]
            and set(iso["isolated_sysfs"]) != set(iso["isolated_cmdline"])):
        notes.append("the kernel isolates CPUs %s (%s/isolated), the command line asked for "
                     "%s" % (format_cpulist(iso["isolated_sysfs"]) or "none", SYS_CPU,
                             format_cpulist(iso["isolated_cmdline"]) or "none"))
    return notes


def parse_mounts(text):
    """The hugetlbfs mounts of /proc/mounts: [{"dir", "options"}]."""
    out = []
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) >= 4 and f[2] == "hugetlbfs":
            d = re.sub(r"\\([0-7]{3})", lambda mt: chr(int(mt.group(1), 8)), f[1])
            out.append({"dir": d, "options": f[3]})
    return out


def default_pagesize_kb(m):
    mt = re.search(r"^Hugepagesize:\s+(\d+)\s*kB", m.read("proc/meminfo", ""), re.M)
    return int(mt.group(1)) if mt else None


def read_hugepages(m, nodes):
    """Page sizes (kB) with their total/free pages, globally and per node; the
    hugetlbfs mounts."""
    sizes = []
    for name, mt in sorted(m.listdir(SYS_HUGE, r"hugepages-(\d+)kB"),
                           key=lambda x: int(x[1].group(1))):
        kb = int(mt.group(1))
        d = SYS_HUGE + "/" + name + "/"
        entry = {"size_kb": kb, "size": fmt_kb(kb), "total": m.read_int(d + "nr_hugepages"),
                 "free": m.read_int(d + "free_hugepages"),
                 "surplus": m.read_int(d + "surplus_hugepages"), "nodes": {}}
        for node in nodes:
            nd = SYS_NODE + "/node%d/hugepages/%s/" % (node, name)
            if os.path.isdir(m.path(nd)):
                entry["nodes"][node] = {"total": m.read_int(nd + "nr_hugepages"),
                                        "free": m.read_int(nd + "free_hugepages")}
        sizes.append(entry)
    default_kb = default_pagesize_kb(m)
    mounts = parse_mounts(m.read("proc/mounts"))
    for mnt in mounts:
        mt = re.search(r"(?:^|,)pagesize=(\w+)", mnt["options"])
        try:
            kb = parse_size(mt.group(1)) // 1024 if mt else default_kb
        except ValueError:
            kb = default_kb
        mnt["pagesize"] = fmt_kb(kb) if kb else None
    return {"sizes": sizes, "default_size": fmt_kb(default_kb) if default_kb else None,
            "mounts": mounts}


def gather(m):
    cpus, nodes = read_cpus(m)
    iso = read_isolation(m, cpus)
    return {"root": m.root, "cpus": cpus, "nodes": nodes, "isolation": iso,
            "hugepages": read_hugepages(m, nodes), "notes": isolation_checks(iso, cpus)}


# ---------------------------------------------------------------- show

def cpu_flags(c, iso):
    flags = []
    if c in iso["isolated"]:
        flags.append("isolated")
    if c in iso["nohz"]:
        flags.append("nohz_full")
    if c in iso["rcu_offloaded"]:
        flags.append("rcu_nocbs")
    return flags


def show_text(info, out):
    cpus, nodes, iso, hp = info["cpus"], info["nodes"], info["isolation"], info["hugepages"]
    sockets = sorted({v["socket"] for v in cpus.values()})
    cores = sorted({(v["socket"], v["core"]) for v in cpus.values()})
    threads = max(len(v["siblings"]) for v in cpus.values())
    w = out.write
    w("CPUs: %d online (%s), %d socket(s), %d core(s), %d thread(s) per core\n"
      % (len(cpus), format_cpulist(cpus), len(sockets), len(cores), threads))
    if nodes:
        w("NUMA nodes: %s\n" % ", ".join("%d (CPUs %s)" % (n, format_cpulist(cs) or "none")
                                         for n, cs in nodes.items()))
    else:
        w("NUMA nodes: no information (%s is missing)\n" % SYS_NODE)
    # cpu_layout.py's table: one row per core id, one column per socket
    w("\n%-10s" % "")
    for s in sockets:
        w("%-14s" % ("Socket %d" % s))
    w("\n")
    for core in sorted({v["core"] for v in cpus.values()}):
        w("%-10s" % ("Core %d" % core))
        for s in sockets:
            on = [c for c, v in cpus.items() if v["core"] == core and v["socket"] == s]
            w("%-14s" % (str(on) if on else ""))
        w("\n")
    w("\n  cpu socket core node  siblings  flags\n")
    for c, v in cpus.items():
        w("%5d %6d %4d %4s  %-9s %s\n" % (c, v["socket"], v["core"],
                                          "-" if v["node"] is None else v["node"],
                                          format_cpulist(v["siblings"]),
                                          " ".join(cpu_flags(c, iso))))
    w("\nKernel command line\n")
    for name in ("isolcpus", "nohz_full", "rcu_nocbs"):
        e = iso[name]
        if not e["given"]:
            w("  %-10s not set\n" % name)
            continue
        extra = ""
        if name == "isolcpus" and e["value"]:
            extra = " (flags %s)" % ",".join(e.get("flags", []))
        w("  %-10s %s: CPUs %s%s\n" % (name, e["value"] or "(no value)",
                                       format_cpulist(e["cpus"]) or "none", extra))
    housekeeping = sorted(set(cpus) - set(iso["isolated"]))
    w("  isolated CPUs: %s; housekeeping CPUs: %s\n"
      % (format_cpulist(iso["isolated"]) or "none", format_cpulist(housekeeping) or "none"))
    w("\nHugepages (default size %s)\n" % (hp["default_size"] or "unknown"))
    if not hp["sizes"]:
        w("  no hugepage sizes (%s is missing)\n" % SYS_HUGE)
    for s in hp["sizes"]:
        w("  %-5s total %s, free %s\n" % (s["size"], s["total"], s["free"]))
        for node, n in s["nodes"].items():
            w("        node %d: total %s, free %s\n" % (node, n["total"], n["free"]))
    if hp["mounts"]:
        for mnt in hp["mounts"]:
            w("  hugetlbfs on %s (pagesize %s)\n" % (mnt["dir"], mnt["pagesize"] or "?"))
    else:
        w("  no hugetlbfs mounted\n")
    if not any(s["total"] for s in hp["sizes"]):
        w("  none reserved: EAL needs --no-huge (as the tests over memif use), or\n"
          "  dr-setup.py hugepages --reserve SIZE --mount\n")
    if info["notes"]:
        w("\nChecks\n")
        for n in info["notes"]:
            w(textwrap.fill(n, 96, initial_indent="  - ", subsequent_indent="    ") + "\n")


def cmd_show(args):
    info = gather(Machine(args.root))
    if args.json:
        js = dict(info)
        js["cpus"] = [dict(cpu=c, flags=cpu_flags(c, info["isolation"]), **v)
                      for c, v in info["cpus"].items()]
        js["nodes"] = {str(k): v for k, v in info["nodes"].items()}
        json.dump(js, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        show_text(info, sys.stdout)
    return 0


# ---------------------------------------------------------------- hugepages

def pages_file(size_kb, node=None):
    if node is None:
        return SYS_HUGE + "/hugepages-%dkB/nr_hugepages" % size_kb
    return SYS_NODE + "/node%d/hugepages/hugepages-%dkB/nr_hugepages" % (node, size_kb)


def set_pages(m, rel, pages, size_kb, what, dry_run):
    """Write pages to one nr_hugepages file and read back what the kernel did."""
    path = m.path(rel)
    if dry_run:
        print("would write %d to %s" % (pages, path))
        return
    try:
        with open(path, "w") as f:
            f.write("%d\n" % pages)
    except OSError as e:
        hint = " (run as root)" if isinstance(e, PermissionError) else ""
        raise SetupError("cannot set %s: writing %d to %s: %s%s"
                         % (what, pages, path, e.strerror or e, hint))
    got = m.read_int(rel)
    if got is None:
        raise SetupError("cannot read back %s" % path)
    if got < pages:
        raise SetupError("asked for %d %s, the kernel gave %d (%s of %s): memory is short or "
                         "fragmented; free some, or reserve at boot (hugepages= on the "
                         "kernel command line)" % (pages, what, got, fmt_kb(got * size_kb),
                                                   fmt_kb(pages * size_kb)))
    if got > pages:
        raise SetupError("asked for %d %s, %d remain: pages in use cannot be freed"
                         % (pages, what, got))


def hugetlbfs_mounts(m):
    return parse_mounts(m.read("proc/mounts"))


def run_cmd(cmd, m, dry_run):
    if dry_run or not m.real:
        why = "" if dry_run else " (--root is not /: nothing mounted)"
        print("would run: %s%s" % (" ".join(map(shlex.quote, cmd)), why))
        return
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise SetupError("%s failed (exit %d): %s" % (" ".join(cmd), p.returncode,
                                                       p.stderr.strip()))


def cmd_hugepages(args):
    m = Machine(args.root)
    if not (args.reserve is not None or args.clear or args.mount or args.unmount):
        raise SetupError("nothing to do: give --reserve SIZE, --clear, --mount or --unmount",
                         2)
    if args.node is not None and args.reserve is None:
        raise SetupError("--node goes with --reserve", 2)
    sizes = sorted(int(mt.group(1)) for _, mt in m.listdir(SYS_HUGE, r"hugepages-(\d+)kB"))
    size_kb = None
    if args.pagesize is not None:
        size_kb = args.pagesize // 1024
        if size_kb not in sizes:
            raise SetupError("no %s pages on this system (sizes: %s)" % (
                fmt_kb(size_kb), ", ".join(map(fmt_kb, sizes)) or "none: no hugetlb support"))
    elif args.reserve is not None:
        size_kb = default_pagesize_kb(m) or (sizes[0] if sizes else None)
        if size_kb not in sizes:
            raise SetupError("no hugepage sizes under %s: no hugetlb support"
                             % m.path(SYS_HUGE))
    if args.unmount:
        mounts = hugetlbfs_mounts(m)
        if args.unmount is not True:
            mounts = [mt for mt in mounts
                      if os.path.normpath(mt["dir"]) == os.path.normpath(args.unmount)]
            if not mounts:
                raise SetupError("no hugetlbfs is mounted on %s" % args.unmount)
        for mnt in mounts:
            run_cmd(["umount", mnt["dir"]], m, args.dry_run)
            print("unmounted %s" % mnt["dir"])
    if args.clear:
        nodes = sorted(int(mt.group(1)) for _, mt in m.listdir(SYS_NODE, r"node(\d+)"))
        for kb in sizes:
            set_pages(m, pages_file(kb), 0, kb, "%s pages" % fmt_kb(kb), args.dry_run)
            for node in nodes:
                if os.path.exists(m.path(pages_file(kb, node))):
                    set_pages(m, pages_file(kb, node), 0, kb,
                              "%s pages on node %d" % (fmt_kb(kb), node), args.dry_run)
        print("cleared: no hugepage reserved")
    if args.reserve is not None:
        pages = math.ceil(args.reserve / (size_kb * 1024))
        if args.node is not None:
            if not os.path.isdir(m.path(SYS_NODE)):
                raise SetupError("--node %d: no NUMA information (%s is missing)"
                                 % (args.node, m.path(SYS_NODE)))
            if not os.path.isdir(m.path(SYS_NODE + "/node%d" % args.node)):
                nodes = sorted(int(mt.group(1)) for _, mt in m.listdir(SYS_NODE, r"node(\d+)"))
                raise SetupError("no NUMA node %d (nodes: %s)"
                                 % (args.node, ",".join(map(str, nodes)) or "none"))
        where = "" if args.node is None else " on node %d" % args.node
        set_pages(m, pages_file(size_kb, args.node), pages, size_kb,
                  "%s pages%s" % (fmt_kb(size_kb), where), args.dry_run)
        if not args.dry_run:
            print("reserved %d %s pages (%s)%s" % (pages, fmt_kb(size_kb),
                                                   fmt_kb(pages * size_kb), where))
    if args.mount:
        d = HUGE_MOUNT if args.mount is True else args.mount
        if any(os.path.normpath(mt["dir"]) == os.path.normpath(d) for mt in hugetlbfs_mounts(m)):
            print("hugetlbfs already mounted on %s" % d)
        else:
            cmd = ["mount", "-t", "hugetlbfs"]
            if args.pagesize is not None:
                cmd += ["-o", "pagesize=%s" % fmt_kb(args.pagesize // 1024)]
            cmd += ["nodev", d]
            if m.real and not args.dry_run:
                os.makedirs(d, exist_ok=True)
            run_cmd(cmd, m, args.dry_run)
            if m.real and not args.dry_run:
                print("mounted hugetlbfs on %s" % d)
    return 0


# ---------------------------------------------------------------- eal

def worker_order(cpus, isolated, main):
    """The CPUs workers should take, best first: the isolated ones before the
    others; within each, one per physical core before a core's second thread;
    the main lcore's sibling threads last; never the main lcore's CPU."""
    def core(c):
        return (cpus[c]["socket"], cpus[c]["core"])

    main_core = core(main)
    order, siblings = [], []
    for group in ([c for c in sorted(cpus) if c in isolated],
                  [c for c in sorted(cpus) if c not in isolated]):
        seen, first, second = set(), [], []
        for c in group:
            if c == main:
                continue
            if core(c) == main_core:
                siblings.append(c)
                continue
            (second if core(c) in seen else first).append(c)
            seen.add(core(c))
        order += first + second
    return order + siblings


def lcores_arg(placement):
    """[(lcore, cpu)] -> the --lcores value: runs of lcores on one CPU as
    "(a-b)@c", a lone lcore as "a@c"."""
    parts = []
    i = 0
    while i < len(placement):
        j = i
        while (j + 1 < len(placement) and placement[j + 1][1] == placement[i][1]
               and placement[j + 1][0] == placement[j][0] + 1):
            j += 1
        lc, cpu = placement[i][0], placement[i][1]
        parts.append("%d@%d" % (lc, cpu) if i == j
                     else "(%d-%d)@%d" % (lc, placement[j][0], cpu))
        i = j + 1
    return ",".join(parts)


def plan_eal(info, mode, workers, main_core=None, only=None):
    """The lcores of one dpdk-rdma-perf process: main lcore off the isolated
    CPUs, workers on the isolated ones first; several lcores share a CPU when
    there are too few."""
    cpus = info["cpus"]
    isolated = set(info["isolation"]["isolated"])
    notes = []
    if only is not None:
        off = sorted(set(only) - set(cpus))
        if off:
            raise SetupError("--cpus: CPUs %s are not online (online: %s)"
                             % (format_cpulist(off), format_cpulist(cpus)))
        cpus = {c: v for c, v in cpus.items() if c in only}
    if main_core is not None:
        if main_core not in info["cpus"]:
            raise SetupError("--main-core %d is not an online CPU (online: %s)"
                             % (main_core, format_cpulist(info["cpus"])))
        main = main_core
    else:
        housekeeping = [c for c in sorted(cpus) if c not in isolated]
        if housekeeping:
            main = housekeeping[0]
        else:
            main = min(cpus)
            notes.append("no CPU is left outside the isolated ones: the main lcore takes "
                         "the isolated CPU %d" % main)
    pool = {c: v for c, v in cpus.items()}
    pool[main] = info["cpus"][main]
    order = worker_order(pool, isolated, main)
    count = {"inline": 0, "rtc": workers, "pipeline": 3 * workers}[mode]
    if 1 + count > RTE_MAX_LCORE:
        raise SetupError("%d lcores: DPDK takes at most %d" % (1 + count, RTE_MAX_LCORE), 2)
    roles = []
    for g in range(workers if mode != "inline" else 0):
        if mode == "rtc":
            roles.append(("worker", g))
        else:
            roles += [("rx", g), ("tx", g), ("completion", g)]
    shared = count > len(order)
    if not shared:
        cpus_of = order[:count]
        use_l = all(c < RTE_MAX_LCORE for c in [main] + cpus_of)
        ids = [main] + cpus_of if use_l else list(range(count + 1))
        placement = list(zip(ids, [main] + cpus_of))
    else:
        targets = order if order else [main]
        if not order:
            notes.append("no CPU besides the main lcore's: every lcore shares CPU %d" % main)
        base, extra = divmod(count, len(targets))
        cpus_of = []
        for i, c in enumerate(targets):
            cpus_of += [c] * (base + (1 if i < extra else 0))
        ids = list(range(count + 1))
        placement = list(zip(ids, [main] + cpus_of))
        use_l = False
        notes.append("%d worker lcore(s) on %d CPU(s): lcores share CPUs, so the workers "
                     "must give the CPU up when idle: --idle yield" % (count, len(targets)))
    main_lcore = placement[0][0]
    if use_l:
        eal = ["-l", format_cpulist(lc for lc, _ in placement), "--main-lcore", str(main_lcore)]
    else:
        eal = ["--lcores", lcores_arg(placement), "--main-lcore", str(main_lcore)]
    lcores = [{"lcore": main_lcore, "cpu": main, "role": "main",
               "isolated": main in isolated}]
    for (lc, cpu), (role, g) in zip(placement[1:], roles):
        lcores.append({"lcore": lc, "cpu": cpu, "role": role, "group": g,
                       "isolated": cpu in isolated})
    # EAL's control threads (telemetry included) take the CPUs of the process's
    # starting affinity that no lcore uses, else the main lcore's CPU
    used = {lc["cpu"] for lc in lcores}
    control = [c for c in sorted(info["cpus"]) if c not in isolated and c not in used]
    if main in isolated:
        if control:
            notes.append("the main lcore is on the isolated CPU %d: start the process under "
                         "taskset -c %s so that EAL's control threads (telemetry included) "
                         "run there, not on CPU %d" % (main, format_cpulist(control), main))
        else:
            notes.append("the main lcore is on the isolated CPU %d, and no other CPU is left "
                         "for EAL's control threads (telemetry included): they share it"
                         % main)
    perf = []
    if mode != "inline":
        perf = ["--mode", mode, "--workers", str(workers)]
        if shared:
            perf += ["--idle", "yield"]
    return {"mode": mode, "workers": workers, "main_lcore": main_lcore, "main_cpu": main,
            "lcores": lcores, "eal_args": eal, "shared_cpus": shared,
            "idle": "yield" if shared else None, "perf_args": perf, "control_cpus": control,
            "notes": notes}


def cmd_eal(args):
    if args.mode == "inline":
        if args.workers:
            raise SetupError("--mode inline has no worker lcores (leave out --workers)", 2)
        workers = 0
    else:
        if args.workers is None or args.workers < 1:
            raise SetupError("--mode %s needs --workers N (N >= 1)" % args.mode, 2)
        workers = args.workers
    info = gather(Machine(args.root))
    plan = plan_eal(info, args.mode, workers, args.main_core, args.cpus)
    if args.json:
        json.dump(plan, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(" ".join(map(shlex.quote, plan["eal_args"])))
    err = sys.stderr
    main = plan["lcores"][0]
    err.write("%s: main lcore %d on CPU %d (%s)\n" % (
        PROG, main["lcore"], main["cpu"],
        "isolated" if main["isolated"] else
        "not isolated: EAL's control threads, telemetry included, stay off the workers"))
    for lc in plan["lcores"][1:]:
        group = " (group %d)" % lc["group"] if args.mode == "pipeline" else ""
        err.write("%s: %s lcore %d%s on CPU %d%s\n" % (
            PROG, lc["role"], lc["lcore"], group, lc["cpu"],
            " (isolated)" if lc["isolated"] else ""))
    for n in plan["notes"]:
        err.write("%s: %s\n" % (PROG, n))
    err.write("%s: dpdk-rdma-perf %s <port args> -- TEST %s...\n" % (
        PROG, " ".join(map(shlex.quote, plan["eal_args"])),
        "".join(a + " " for a in plan["perf_args"])))
    return 0


# ---------------------------------------------------------------- command line

class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, "%s: %s\n" % (PROG, message))


def build_parser():
    root_opt = argparse.ArgumentParser(add_help=False)
    root_opt.add_argument("--root", default=argparse.SUPPRESS, metavar="DIR",
                          help="read sysfs/procfs under DIR (default /)")
    ap = Parser(prog="dr-setup.py", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--root", default="/", metavar="DIR",
                    help="read sysfs/procfs under DIR (default /)")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    sp = sub.add_parser("show", parents=[root_opt],
                        help="CPU layout, NUMA nodes, isolated CPUs, hugepages")
    sp.add_argument("--json", action="store_true", help="print JSON")
    sp.set_defaults(func=cmd_show)
    hp = sub.add_parser("hugepages", parents=[root_opt],
                        help="reserve or clear hugepages, mount or unmount hugetlbfs",
                        description="In order: --unmount, --clear, --reserve, --mount.")
    hp.add_argument("--reserve", type=size_arg, metavar="SIZE",
                    help="set the reservation of the page size to SIZE bytes (K, M, G "
                    "suffixes), rounded up to whole pages")
    hp.add_argument("--pagesize", type=size_arg, metavar="SIZE",
                    help="page size, 2M or 1G (default: the kernel's default size)")
    hp.add_argument("--node", type=int, metavar="N", help="reserve on NUMA node N only")
    hp.add_argument("--clear", action="store_true",
                    help="release every reserved hugepage, every size, every node")
    hp.add_argument("--mount", nargs="?", const=True, metavar="DIR",
                    help="mount hugetlbfs on DIR (default %s)" % HUGE_MOUNT)
    hp.add_argument("--unmount", nargs="?", const=True, metavar="DIR",
                    help="unmount hugetlbfs from DIR (default: every hugetlbfs mount)")
    hp.add_argument("--dry-run", action="store_true",
                    help="say what would be written and run, do nothing")
    hp.set_defaults(func=cmd_hugepages)
    ep = sub.add_parser("eal", parents=[root_opt],
                        help="the EAL lcore arguments of dpdk-rdma-perf for an engine mode",
                        description="Print the EAL lcore arguments (-l or --lcores, and "
                        "--main-lcore) of one dpdk-rdma-perf process: the main lcore on a "
                        "CPU that is not isolated, the worker lcores on isolated CPUs "
                        "first. rtc: N worker lcores; pipeline: N groups of 3 (rx, tx, "
                        "completion); inline: the main lcore only. With too few CPUs "
                        "lcores share them (--lcores '(a-b)@c'), and the workers then "
                        "need --idle yield. Explanations go to stderr.")
    ep.add_argument("--mode", required=True, choices=("inline", "rtc", "pipeline"))
    ep.add_argument("--workers", type=int, metavar="N",
                    help="worker lcores (rtc) or groups of 3 (pipeline)")
    ep.add_argument("--main-core", type=int, metavar="C",
                    help="the CPU of the main lcore (default: the first CPU not isolated; "
                    "in inline mode the main lcore is the data path: give an isolated CPU)")
    ep.add_argument("--cpus", type=cpulist_arg, metavar="LIST",
                    help="use only these CPUs (e.g. 0,2-7; the main lcore's too, unless "
                    "--main-core)")
    ep.add_argument("--json", action="store_true", help="print JSON (no stderr notes)")
    ep.set_defaults(func=cmd_eal)
    return ap


def main(argv=None):
    args = build_parser().parse_args(argv)
    if not os.path.isdir(args.root):
        print("%s: --root %s is not a directory" % (PROG, args.root), file=sys.stderr)
        return 2
    try:
        return args.func(args)
    except SetupError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return e.code


if __name__ == "__main__":
    sys.exit(main())
