# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""rxepeer: Linux Soft-RoCE (rxe) peers in qemu for dpdk-rdma's interop tests.

    from rxepeer import Harness, build
    image = build(work)                       # cached: Debian packages -> kernel + initramfs
    h = Harness(work, session="mine")
    vm1 = h.start("vm1", "10.99.0.2/24")     # qemu TCG, rxe0 on a virtio NIC, tap on a bridge
    print(vm1.exec("ibv_devinfo").output)
    h.stop_all()

The bridge, the taps and any veth for a DPDK endpoint live in a network
namespace of the harness's own, so nothing reaches the host's network.
usertools/dr-rxe-peer.py is the command line over this API.
"""

from .harness import (DEFAULT_WORK, ExecResult, Harness, HarnessError, Job, Vm,  # noqa: F401
                      work_dir)
from .image import Image, ImageError, build, check_host, current_image  # noqa: F401
from . import rxe  # noqa: F401
