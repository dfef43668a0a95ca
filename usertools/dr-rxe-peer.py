#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Linux rxe (Soft-RoCE) peers in qemu for interop tests: build the guest
image, start/stop VMs on a private bridge, run commands in them, capture.
See doc/guides/interop.rst, or run with --help."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rxepeer.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
