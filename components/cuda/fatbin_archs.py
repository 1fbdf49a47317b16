#!/usr/bin/env python3
"""fatbin_archs.py MODULE: the GPU code a module carries, from its CUDA fat
binaries (no cuobjdump needed: the toolkit here ships none). Prints one line,
"sass: 75 80 ...; ptx: 120", read from each fat binary entry's header (magic
0xba55ed50; per entry: kind 1 = PTX, 2 = ELF/SASS, and the architecture)."""
import struct
import sys

MAGIC = struct.pack('<I', 0xBA55ED50)


def archs(data):
    found = {1: set(), 2: set()}
    at = data.find(MAGIC)
    while at >= 0:
        _, _, header, size = struct.unpack_from('<IHHQ', data, at)
        entry, end = at + header, at + header + size
        while entry < end:
            kind, _, entry_header, payload = struct.unpack_from('<HHIQ', data, entry)
            arch = struct.unpack_from('<I', data, entry + 28)[0]
            if kind in found:
                found[kind].add(arch)
            if entry_header == 0:
                break
            entry += entry_header + payload
        at = data.find(MAGIC, max(end, at + 4))
    return found


if __name__ == '__main__':
    with open(sys.argv[1], 'rb') as f:
        found = archs(f.read())
    print('sass: %s; ptx: %s' % (' '.join(map(str, sorted(found[2]))), ' '.join(map(str, sorted(found[1])))))
