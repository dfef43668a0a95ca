# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Kernel modules without kmod: read a .ko's .modinfo section (an ELF64
little-endian relocatable, as Debian's amd64 kernels ship them, uncompressed)
and order a set of modules so that every module comes after its
dependencies, as insmod needs them."""

import os
import struct


class ModuleError(Exception):
    pass


def modinfo(path):
    """The key=value strings of the module's .modinfo section, as a list of
    (key, value) pairs in file order (keys may repeat, e.g. alias)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ModuleError("%s: not an ELF64 little-endian file (compressed module?)" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize < 64 or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise ModuleError("%s: bad section header table" % path)

    def section(i):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size
        name, _, _, _, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        return name, off, size

    _, stroff, strsize = section(shstrndx)
    for i in range(shnum):
        name, off, size = section(i)
        end = data.find(b"\0", stroff + name, stroff + strsize)
        if data[stroff + name:end] == b".modinfo":
            out = []
            for item in data[off:off + size].split(b"\0"):
                if b"=" in item:
                    k, v = item.decode("utf-8", "replace").split("=", 1)
                    out.append((k, v))
            return out
    raise ModuleError("%s: no .modinfo section" % path)


def module_name(filename):
    """Kernel module name of a file name: 9pnet_virtio.ko -> 9pnet_virtio, dashes -> underscores."""
    base = os.path.basename(filename)
    for ext in (".ko.xz", ".ko.zst", ".ko.gz", ".ko"):
        if base.endswith(ext):
            base = base[:-len(ext)]
            break
    return base.replace("-", "_")


def index_modules(moddir):
    """{module name: path} of every .ko under moddir."""
    idx = {}
    for root, _, files in os.walk(moddir):
        for f in files:
            if ".ko" in f:
                idx[module_name(f)] = os.path.join(root, f)
    return idx


def depends(path):
    """The modules path depends on (modinfo depends=, comma separated)."""
    for k, v in modinfo(path):
        if k == "depends":
            return [d.replace("-", "_") for d in v.split(",") if d]
    return []


def load_order(wanted, index, deps=depends):
    """Paths of the wanted modules and everything they depend on, each after
    its dependencies (depth-first, stable in the order of wanted).
    index: {name: path}; deps: path -> [names] (injectable for tests)."""
    order, state = [], {}

    def visit(name, chain):
        name = name.replace("-", "_")
        if state.get(name) == "done":
            return
        if state.get(name) == "busy":
            raise ModuleError("dependency cycle: %s" % " -> ".join(chain + [name]))
        if name not in index:
            raise ModuleError("module %s not found (needed by %s)" % (
                name, " -> ".join(chain) or "request"))
        state[name] = "busy"
        for d in deps(index[name]):
            visit(d, chain + [name])
        state[name] = "done"
        order.append(index[name])

    for w in wanted:
        visit(w, [])
    return order
