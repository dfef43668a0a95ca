# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""A cpio "newc" archive writer for Linux initramfs images
(Documentation/driver-api/early-userspace/buffer-format.rst), so the image is
made without root, without cpio(1), and with owners, times and device nodes
chosen here rather than taken from the build host."""

import os
import stat

TRAILER = "TRAILER!!!"


class Archive:
    """Collects entries (path without a leading '/'); write() emits them
    parents first, sorted, so the result is reproducible."""

    def __init__(self):
        self.entries = {}

    def _parents(self, path):
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            if p not in self.entries:
                self.entries[p] = (stat.S_IFDIR | 0o755, b"", 0)

    @staticmethod
    def _norm(path):
        p = path.strip("/")
        if not p or ".." in p.split("/"):
            raise ValueError("bad archive path %r" % path)
        return p

    def dir(self, path, mode=0o755):
        p = self._norm(path)
        self._parents(p)
        self.entries[p] = (stat.S_IFDIR | mode, b"", 0)

    def file(self, path, data, mode=0o644):
        p = self._norm(path)
        self._parents(p)
        self.entries[p] = (stat.S_IFREG | mode, bytes(data), 0)

    def file_from(self, path, src, mode=None):
        with open(src, "rb") as f:
            data = f.read()
        if mode is None:
            mode = stat.S_IMODE(os.stat(src).st_mode)
        self.file(path, data, mode)

    def symlink(self, path, target):
        p = self._norm(path)
        self._parents(p)
        self.entries[p] = (stat.S_IFLNK | 0o777, target.encode(), 0)

    def chardev(self, path, major, minor, mode=0o600):
        p = self._norm(path)
        self._parents(p)
        self.entries[p] = (stat.S_IFCHR | mode, b"", (major, minor))

    def __contains__(self, path):
        return path.strip("/") in self.entries

    def write(self, out):
        """Write the archive to the binary file object out; returns its size."""
        n = 0
        ino = 1
        for path in sorted(self.entries):
            mode, data, dev = self.entries[path]
            n += _entry(out, ino, path, mode, data, dev)
            ino += 1
        n += _entry(out, 0, TRAILER, 0, b"", 0)
        return n


def _entry(out, ino, name, mode, data, dev):
    rmaj, rmin = dev if dev else (0, 0)
    nlink = 2 if stat.S_ISDIR(mode) else 1
    namez = name.encode() + b"\0"
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmaj, rmin, len(namez), 0))
    buf = hdr.encode() + namez
    buf += b"\0" * (-len(buf) % 4)
    buf += data
    buf += b"\0" * (-len(buf) % 4)
    out.write(buf)
    return len(buf)


def read(data):
    """Parse a newc archive: [(name, mode, data, (rdevmajor, rdevminor))] (for tests)."""
    out, off = [], 0
    while True:
        if data[off:off + 6] != b"070701":
            raise ValueError("bad magic at %d" % off)
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        namesize, filesize = f[11], f[6]
        off += 110
        name = data[off:off + namesize - 1].decode()
        off += namesize
        off += -off % 4
        body = data[off:off + filesize]
        off += filesize
        off += -off % 4
        if name == TRAILER:
            return out
        out.append((name, f[1], body, (f[9], f[10])))
