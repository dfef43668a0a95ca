# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The guest image: Debian 12's own kernel (linux-image-amd64) and an
initramfs holding the rdma_rxe and rdma_cm modules, netem and the tc
classifiers rxepeer-impair uses, busybox, rdma-core's ibv_* and rdma_cm
tools (rping, ucmatose, udaddy, rdma_server/client), perftest, iproute2
(ip, tc) and our dr-opgen, made from Debian packages fetched with
apt-get download. Nothing is taken from the build host but gcc, which
compiles dr-opgen against the packages' libibverbs headers. The kernel is
stored as the ELF inside the bzImage when it has a PVH entry (pvh_vmlinux()).

Images live under WORK/img/KVER-KEY, where KEY hashes the package files and
every input in guest/: a changed package or guest source gives a new image,
an unchanged one is reused. WORK/img/current names the newest.
"""

import fcntl
import glob
import hashlib
import json
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from . import elfmod
from .initramfs import Archive

IMAGE_FORMAT = 2
GUEST_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest")

# host packages: what runs the VMs and captures, and what builds dr-opgen
HOST_PACKAGES = ["qemu-system-x86", "iproute2", "tshark", "gcc", "libc6-dev"]

KERNEL_META = "linux-image-amd64"
GUEST_PACKAGES = [
    "busybox-static", "dash", "libc6", "libgcc-s1",
    "libibverbs1", "ibverbs-providers", "ibverbs-utils", "libibverbs-dev", "perftest",
    "librdmacm1", "rdmacm-utils", "libibumad3", "libpci3", "libudev1", "libnl-3-200",
    "libnl-route-3-200",
    "iproute2", "libxtables12", "libelf1", "libmnl0", "libbpf1", "libcap2", "libbsd0", "libmd0",
    "zlib1g",
]
# programs copied to /usr/bin, with the libraries they need
GUEST_PROGRAMS = [
    "bin/dash", "bin/ip", "sbin/tc", "usr/bin/rdma",
    "usr/bin/ibv_devices", "usr/bin/ibv_devinfo", "usr/bin/ibv_rc_pingpong",
    "usr/bin/ibv_uc_pingpong", "usr/bin/ibv_ud_pingpong", "usr/bin/ibv_srq_pingpong",
    "usr/bin/ib_send_bw", "usr/bin/ib_send_lat", "usr/bin/ib_write_bw", "usr/bin/ib_write_lat",
    "usr/bin/ib_read_bw", "usr/bin/ib_read_lat", "usr/bin/ib_atomic_bw", "usr/bin/ib_atomic_lat",
    "usr/bin/rping", "usr/bin/ucmatose", "usr/bin/udaddy", "usr/bin/rdma_server",
    "usr/bin/rdma_client",
]
LIBDIR = "usr/lib/x86_64-linux-gnu"
# dlopen()ed, so no loader lists them: the rxe verbs provider, and libgcc_s
# (glibc loads it for pthread_cancel/pthread_exit)
GUEST_DLOPEN = ["libibverbs/librxe-rdmav*.so", "libgcc_s.so.1"]   # under LIBDIR
# kernel modules, loaded in this order after their dependencies: the
# transport, the connection manager with its user interface (rdma_cm), and
# what rxepeer-impair builds from (prio + netem, ingress + u32 + mirred to ifb)
GUEST_MODULES = ["virtio_pci", "virtio_net", "virtio_console", "9pnet_virtio", "9p",
                 "crc32_generic", "ib_uverbs", "rdma_rxe", "rdma_ucm",
                 "sch_prio", "sch_netem", "sch_ingress", "cls_u32", "act_mirred", "ifb"]
GUEST_SCRIPTS = {  # guest/ file -> path in the image
    "init": "init", "inittab": "etc/inittab", "setup": "etc/rxepeer/setup",
    "agent": "etc/rxepeer/agent", "runjob": "etc/rxepeer/runjob",
    "rxepeer-gids": "usr/bin/rxepeer-gids", "rxepeer-impair": "usr/bin/rxepeer-impair",
}
OPGEN_SRC = "dr-opgen.c"
OPGEN_HEADERS = ["dr-opgen-ops.h"]   # shared with app/dpdk-rdma-opgen; in the image key


class ImageError(Exception):
    pass


def log(msg):
    print("dr-rxe-peer: " + msg, flush=True, file=sys.stderr)


def _run(argv, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 600)
    return subprocess.run(argv, check=False, **kw)


# ---------------------------------------------------------------- host

def missing_host_packages(packages=HOST_PACKAGES):
    """The packages of the list that dpkg does not show as installed."""
    out = []
    for p in packages:
        r = _run(["dpkg-query", "-W", "-f=${Status}", p])
        if r.returncode != 0 or "ok installed" not in r.stdout:
            out.append(p)
    return out


def apt_lists_fresh(max_age_s=86400):
    d = "/var/lib/apt/lists"
    try:
        now = time.time()
        return any("Packages" in f and now - os.stat(os.path.join(d, f)).st_mtime < max_age_s
                   for f in os.listdir(d))
    except OSError:
        return False


def apt_get_line(packages):
    return "apt-get install -y --no-install-recommends " + " ".join(packages)


def check_host(install=None):
    """Make sure the host packages are there. install: True installs what is
    missing (needs root), False only reports, None installs when root.
    Returns the missing packages left (empty when all is well)."""
    missing = missing_host_packages()
    if not missing:
        return []
    if install is None:
        install = os.geteuid() == 0
    log("host packages missing: " + " ".join(missing))
    if not install:
        log("install them with: " + ("" if os.geteuid() == 0 else "sudo ") + apt_get_line(missing))
        return missing
    if not apt_lists_fresh():
        _run(["apt-get", "update", "-q"])
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = _run(["apt-get", "install", "-y", "-q", "--no-install-recommends"] + missing, env=env,
             timeout=1800)
    if r.returncode != 0:
        raise ImageError("%s failed:\n%s" % (apt_get_line(missing), (r.stdout + r.stderr)[-3000:]))
    return missing_host_packages()


# ---------------------------------------------------------------- packages

def kernel_package():
    """linux-image-X the metapackage depends on now (DR_RXE_KERNEL_PKG overrides)."""
    if os.environ.get("DR_RXE_KERNEL_PKG"):
        return os.environ["DR_RXE_KERNEL_PKG"]
    for attempt in (0, 1):
        r = _run(["apt-cache", "depends", KERNEL_META])
        m = re.search(r"Depends: (linux-image-\d\S*)", r.stdout)
        if m:
            return m.group(1)
        if attempt == 0 and os.geteuid() == 0:
            log("apt-get update (no package lists)")
            _run(["apt-get", "update", "-q"])
    raise ImageError("cannot resolve %s: run apt-get update" % KERNEL_META)


def deb_files(packages):
    """{package: file name apt-get download writes} for the candidate versions."""
    r = _run(["apt-get", "download", "--print-uris"] + packages)
    if r.returncode != 0:
        raise ImageError("apt-get download --print-uris failed: %s" % r.stderr.strip())
    names = {}
    for line in r.stdout.splitlines():
        m = re.match(r"'[^']*' (\S+\.deb) ", line)
        if m:
            names[m.group(1).split("_", 1)[0]] = m.group(1)
    lost = [p for p in packages if p not in names]
    if lost:
        raise ImageError("no candidate for: " + " ".join(lost))
    return names


def download(packages, debdir):
    """Fetch the candidate .deb of each package into debdir unless there."""
    os.makedirs(debdir, exist_ok=True)
    files = deb_files(packages)
    need = [p for p, f in files.items() if not os.path.isfile(os.path.join(debdir, f))]
    if need:
        log("apt-get download " + " ".join(need))
        r = _run(["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root"] + need,
                 cwd=debdir, timeout=900)
        if r.returncode != 0:
            raise ImageError("apt-get download failed:\n" + r.stderr[-3000:])
    for p, f in files.items():
        if not os.path.isfile(os.path.join(debdir, f)):
            raise ImageError("%s: %s not downloaded" % (p, f))
    wanted = set(files.values())
    for f in os.listdir(debdir):   # older versions of these packages
        if f.endswith(".deb") and f not in wanted and f.split("_", 1)[0] in files:
            os.unlink(os.path.join(debdir, f))
    return [os.path.join(debdir, files[p]) for p in packages]


# ---------------------------------------------------------------- inputs

def guest_sources():
    """(name, bytes) of every file under guest/, sorted."""
    out = []
    for f in sorted(os.listdir(GUEST_DIR)):
        p = os.path.join(GUEST_DIR, f)
        if os.path.isfile(p):
            with open(p, "rb") as fh:
                out.append((f, fh.read()))
    return out


def image_key(kver, debs):
    h = hashlib.sha256()
    h.update(("format=%d kver=%s\n" % (IMAGE_FORMAT, kver)).encode())
    for d in sorted(os.path.basename(x) for x in debs):
        h.update((d + "\n").encode())
    for lst in (GUEST_PROGRAMS, GUEST_DLOPEN, GUEST_MODULES, sorted(GUEST_SCRIPTS.items())):
        h.update(repr(lst).encode())
    for name, data in guest_sources():
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:12]


# ---------------------------------------------------------------- assembly

def stage_path(stage, path, depth=0):
    """path (inside the stage) with every symlink resolved inside the stage:
    packages hold absolute links (lib64/ld-linux-x86-64.so.2 -> /lib/...)
    that must not lead to the build host's files."""
    stage = os.path.realpath(stage)
    rel = os.path.relpath(os.path.abspath(path), stage)
    if rel.startswith(".."):
        raise ImageError("%s is outside the stage" % path)
    cur = stage
    parts = [p for p in rel.split(os.sep) if p not in ("", ".")]
    while parts:
        part = parts.pop(0)
        if part == "..":
            cur = os.path.dirname(cur) if cur != stage else stage
            continue
        nxt = os.path.join(cur, part)
        if os.path.islink(nxt):
            if depth > 40:
                raise ImageError("symlink loop at %s" % nxt)
            depth += 1
            target = os.readlink(nxt)
            base = stage if target.startswith("/") else cur
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            cur = base
        else:
            cur = nxt
    return cur


def _needed_libs(stage, prog):
    """(soname, stage path) of every shared library prog loads, transitively,
    resolved inside the stage by the stage's own dynamic loader."""
    ld = stage_path(stage, os.path.join(stage, "lib64", "ld-linux-x86-64.so.2"))
    path = ":".join(os.path.join(stage, d) for d in ("lib/x86_64-linux-gnu", LIBDIR))
    r = _run([ld, "--library-path", path, "--list", prog], timeout=60)
    if r.returncode != 0 and "not a dynamic executable" in (r.stdout + r.stderr):
        return []
    if r.returncode != 0:
        raise ImageError("%s --list %s: %s" % (ld, prog, (r.stdout + r.stderr).strip()))
    libs = []
    for line in r.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if not m or m.group(1).startswith("ld-linux"):
            continue   # the loader itself is copied from the stage separately
        if m.group(2) == "not":
            raise ImageError("%s needs %s, which no guest package has" % (prog, m.group(1)))
        if not os.path.abspath(m.group(2)).startswith(os.path.realpath(stage) + os.sep):
            raise ImageError("%s: %s resolved outside the stage (%s): add its package to "
                             "GUEST_PACKAGES" % (prog, m.group(1), m.group(2)))
        real = stage_path(stage, m.group(2))
        libs.append((m.group(1), real))
    return libs


def compile_opgen(stage, out):
    src = os.path.join(GUEST_DIR, OPGEN_SRC)
    inc = os.path.join(stage, "usr", "include")
    lib = os.path.join(stage, LIBDIR, "libibverbs.so.1")
    rpl = ":".join(os.path.join(stage, d) for d in ("lib/x86_64-linux-gnu", LIBDIR))
    r = _run(["gcc", "-O2", "-g0", "-std=gnu11", "-Wall", "-Wextra", "-I", GUEST_DIR,
              "-isystem", inc, "-o", out, src, lib, "-Wl,-rpath-link," + rpl], timeout=300)
    if r.returncode != 0:
        raise ImageError("building %s failed:\n%s" % (OPGEN_SRC, r.stderr))
    if r.stderr.strip():
        log("%s warnings:\n%s" % (OPGEN_SRC, r.stderr.strip()))


def assemble(stage, kver, opgen):
    """The initramfs as an Archive; returns (archive, module load order)."""
    a = Archive()
    for d in ("usr/bin", "usr/lib64", LIBDIR, "proc", "sys", "dev", "tmp", "run", "share",
              "root", "etc/rxepeer"):
        a.dir(d)
    a.chardev("dev/console", 5, 1)
    a.chardev("dev/null", 1, 3, 0o666)
    for link, target in (("bin", "usr/bin"), ("sbin", "usr/bin"), ("usr/sbin", "bin"),
                         ("lib", "usr/lib"), ("lib64", "usr/lib64")):
        a.symlink(link, target)

    # busybox applets first, real programs replace them
    bb = os.path.join(stage, "bin", "busybox")
    a.file_from("usr/bin/busybox", bb, 0o755)
    r = _run([bb, "--list"], timeout=60)
    if r.returncode != 0:
        raise ImageError("busybox --list failed")
    for applet in r.stdout.split():
        if re.fullmatch(r"[\w.+-]+", applet) and applet != "busybox":
            a.symlink("usr/bin/" + applet, "busybox")

    libs = {}
    progs = [os.path.join(stage, p) for p in GUEST_PROGRAMS] + [opgen]
    for p in progs:
        if not os.path.isfile(p):
            raise ImageError("%s is in no guest package" % os.path.relpath(p, stage))
        real = stage_path(stage, p) if p != opgen else p
        a.file_from("usr/bin/" + os.path.basename(p), real, 0o755)
        libs.update(_needed_libs(stage, real))
    a.symlink("usr/bin/sh", "dash")  # busybox sh would run its own 'ip' applet
    for pat in GUEST_DLOPEN:
        found = glob.glob(os.path.join(stage, LIBDIR, pat)) + \
            glob.glob(os.path.join(stage, "lib", "x86_64-linux-gnu", pat))
        if not found:
            raise ImageError("no %s in the guest packages" % pat)
        for f in found:
            rel = os.path.join(LIBDIR, os.path.dirname(pat), os.path.basename(f))
            a.file_from(rel, stage_path(stage, f), 0o755)
            libs.update(_needed_libs(stage, stage_path(stage, f)))
    for soname, path in sorted(libs.items()):
        a.file_from(LIBDIR + "/" + soname, path, 0o755)
    a.file_from("usr/lib64/ld-linux-x86-64.so.2",
                stage_path(stage, os.path.join(stage, "lib64", "ld-linux-x86-64.so.2")), 0o755)
    for f in os.listdir(os.path.join(stage, "etc", "libibverbs.d")):
        if f.startswith("rxe"):
            a.file_from("etc/libibverbs.d/" + f, os.path.join(stage, "etc", "libibverbs.d", f))
    if os.path.isdir(os.path.join(stage, "etc", "iproute2")):
        for root, _, files in os.walk(os.path.join(stage, "etc", "iproute2")):
            for f in files:
                p = os.path.join(root, f)
                a.file_from(os.path.relpath(p, stage), p)

    moddir = os.path.join(stage, "lib", "modules", kver)
    order = elfmod.load_order(GUEST_MODULES, elfmod.index_modules(moddir))
    rel = [os.path.relpath(p, moddir) for p in order]
    for p, r_ in zip(order, rel):
        a.file_from("usr/lib/modules/%s/%s" % (kver, r_), p, 0o644)
    a.file("etc/rxepeer/modules", "".join(r_ + "\n" for r_ in rel).encode())

    for src, dst in GUEST_SCRIPTS.items():
        mode = 0o644 if src == "inittab" else 0o755
        a.file_from(dst, os.path.join(GUEST_DIR, src), mode)
    a.file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
    a.file("etc/group", b"root:x:0:\n")
    a.file("etc/nsswitch.conf", b"hosts: files\n")
    a.file("etc/hosts", b"127.0.0.1 localhost\n::1 localhost\n")
    return a, rel


# ---------------------------------------------------------------- build

def pvh_vmlinux(bzimage):
    """The ELF vmlinux inside a bzImage, when its payload is xz (Debian's
    CONFIG_KERNEL_XZ) and it carries a PVH entry note (CONFIG_PVH); else None.
    qemu boots such an ELF directly through its PVH option ROM, so the guest
    neither runs the real-mode setup nor decompresses itself under TCG:
    ~3 s less per boot here."""
    with open(bzimage, "rb") as f:
        d = f.read()
    if len(d) < 0x250 or d[0x202:0x206] != b"HdrS":
        return None
    setup_sects = d[0x1F1] or 4
    off, length = struct.unpack_from("<II", d, 0x248)
    start = (setup_sects + 1) * 512 + off
    payload = d[start:start + length]
    if not payload.startswith(b"\xfd7zXZ\0"):
        return None
    try:
        elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
    except lzma.LZMAError:
        return None
    return elf if _has_pvh_note(elf) else None


def _has_pvh_note(elf):
    """True when an ELF64 PT_NOTE holds Xen's XEN_ELFNOTE_PHYS32_ENTRY (18)."""
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ptype, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if ptype != 4:   # PT_NOTE
            continue
        pos, end = off, off + filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, pos)
            name = elf[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == 18:
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


class Image:
    """A built image: vmlinuz, initrd.img and manifest.json in one directory."""

    def __init__(self, path):
        self.path = os.path.realpath(path)
        with open(os.path.join(self.path, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.kernel = os.path.join(self.path, "vmlinux" if self.manifest.get("boot") == "pvh-elf"
                                   else "vmlinuz")
        self.initrd = os.path.join(self.path, "initrd.img")
        self.kver = self.manifest["kernel"]

    def __repr__(self):
        return "Image(%s)" % self.path


def current_image(work):
    """The image WORK/img/current points at, or None."""
    p = os.path.join(work, "img", "current")
    try:
        return Image(p)
    except (OSError, ValueError, KeyError):
        return None


def build(work, force=False, install=None):
    """Build (or reuse) the image for the current kernel package; returns Image."""
    os.makedirs(os.path.join(work, "img"), exist_ok=True)
    with open(os.path.join(work, "img", ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        left = check_host(install)
        if left:
            raise ImageError("host packages missing: %s (%s)" % (
                " ".join(left), apt_get_line(left)))
        t0 = time.monotonic()
        kpkg = kernel_package()
        kver = kpkg[len("linux-image-"):]
        debs = download([kpkg] + GUEST_PACKAGES, os.path.join(work, "debs"))
        key = image_key(kver, debs)
        final = os.path.join(work, "img", "%s-%s" % (kver, key))
        if not force and os.path.isfile(os.path.join(final, "manifest.json")):
            _point_current(work, final)
            return Image(final)
        tmp = tempfile.mkdtemp(prefix=".build-", dir=os.path.join(work, "img"))
        try:
            stage = os.path.join(tmp, "stage")
            os.makedirs(stage)
            for d in debs:
                r = _run(["dpkg-deb", "-x", d, stage], timeout=600)
                if r.returncode != 0:
                    raise ImageError("dpkg-deb -x %s: %s" % (d, r.stderr))
            out = os.path.join(tmp, "img")
            os.makedirs(out)
            opgen = os.path.join(out, "dr-opgen")
            compile_opgen(stage, opgen)
            arch, modules = assemble(stage, kver, opgen)
            with open(os.path.join(out, "initrd.img"), "wb") as f:
                size = arch.write(f)
            bz = os.path.join(stage, "boot", "vmlinuz-" + kver)
            elf = pvh_vmlinux(bz)
            if elf:
                with open(os.path.join(out, "vmlinux"), "wb") as f:
                    f.write(elf)
            else:
                shutil.copyfile(bz, os.path.join(out, "vmlinuz"))
            manifest = {
                "format": IMAGE_FORMAT, "kernel": kver, "kernel_package": kpkg, "key": key,
                "debs": sorted(os.path.basename(d) for d in debs), "modules": modules,
                "boot": "pvh-elf" if elf else "bzImage",
                "initrd_bytes": size, "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "build_seconds": round(time.monotonic() - t0, 1),
            }
            with open(os.path.join(out, "manifest.json"), "w") as f:
                json.dump(manifest, f, indent=1)
            if os.path.isdir(final):
                shutil.rmtree(final)
            os.rename(out, final)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        _point_current(work, final)
        _prune(work, kver, final)
        log("image %s built in %.1f s (initramfs %.1f MiB)" % (
            final, time.monotonic() - t0, size / 1048576))
        return Image(final)


def _prune(work, kver, keep):
    """Remove the other images of this kernel (older packages or sources)."""
    d = os.path.join(work, "img")
    for n in os.listdir(d):
        p = os.path.join(d, n)
        if n.startswith(kver + "-") and p != keep and os.path.isdir(p):
            shutil.rmtree(p, ignore_errors=True)


def _point_current(work, final):
    link = os.path.join(work, "img", "current")
    tmp = link + ".tmp"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.path.basename(final), tmp)
    os.replace(tmp, link)
