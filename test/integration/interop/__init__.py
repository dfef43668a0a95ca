# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""Interop with Linux rxe peers in qemu (a package, so its conftest does not
clash with test/integration/conftest.py)."""
