#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dpdk-rdma authors.
"""The shared library exports the public API and nothing else.

Usage: check_exports.py LIBDPDK_RDMA.so INCLUDE_DIR VERSION_MAP

The public API is every non-inline dr_* function and every extern dr_*
table declared in include/*.h (the headers' inline accessors read the
tables: an application linked to the shared library needs them). The test
fails when the version map and the headers disagree, or when the
shared library exports a function that is not public (or misses one that is).
"""
import glob
import os
import re
import subprocess
import sys


def declared(include_dir):
    names = set()
    for path in glob.glob(os.path.join(include_dir, '*.h')):
        with open(path) as f:
            text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
        for m in re.finditer(r'^(?!static)(?!#)[A-Za-z_][\w *]*?\b(dr_\w+)\s*\(', text, re.M):
            names.add(m.group(1))
        for m in re.finditer(r'^extern\s[\w *]*?\b(dr_\w+)\s*\[', text, re.M):
            names.add(m.group(1))
    return names


def in_map(path):
    with open(path) as f:
        text = f.read()
    glob_part = text.split('global:')[1].split('local:')[0]
    return set(re.findall(r'\b(dr_\w+)\s*;', glob_part))


def exported(lib):
    out = subprocess.check_output(['nm', '-D', '--defined-only', lib], text=True)
    return set(f[2].split('@')[0] for f in (l.split() for l in out.splitlines())
               if len(f) == 3 and f[1] in 'TWDBRV' and f[2].startswith('dr_'))


def main():
    lib, inc, vmap = sys.argv[1:4]
    pub, mapped, exp = declared(inc), in_map(vmap), exported(lib)
    bad = False
    for what, names in (('declared in include/ but not in the version map', pub - mapped),
                        ('in the version map but not declared in include/', mapped - pub),
                        ('exported but not public', exp - pub),
                        ('public but not exported', pub - exp)):
        if names:
            bad = True
            print('%s: %s' % (what, ' '.join(sorted(names))))
    print('%d public functions and tables, %d exported' % (len(pub), len(exp)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
