#!/usr/bin/env python3
"""Writes verify_bytecode seeds: each internal function of each given .vmfb,
prefixed with the 9-byte header that fuzz_targets/verify_bytecode.rs reads
(register counts and block count from the function's descriptor; cconv
indices 0). Usage: extract_seeds.py OUT_DIR FILE.vmfb..."""
import hashlib
import os
import struct
import sys


def u32(b, at):
    return struct.unpack_from("<I", b, at)[0]


def field(b, table, vt_offset):
    vt = table - struct.unpack_from("<i", b, table)[0]
    vt_size = struct.unpack_from("<H", b, vt)[0]
    if vt_offset >= vt_size:
        return None
    rel = struct.unpack_from("<H", b, vt + vt_offset)[0]
    return table + rel if rel else None


def vector(b, pos):
    vec = pos + u32(b, pos)
    return vec + 4, u32(b, vec)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        b = open(path, "rb").read()
        ident = b.find(b"IREE")
        if ident < 4:
            continue
        fb = ident - 4
        root = fb + u32(b, fb)
        desc_pos = field(b, root, 28)  # function_descriptors
        code_pos = field(b, root, 32)  # bytecode_data
        if desc_pos is None or code_pos is None:
            continue
        descs, count = vector(b, desc_pos)
        code, code_len = vector(b, code_pos)
        for i in range(count):
            off, length, _req, _res, blocks, i32s, refs = struct.unpack_from(
                "<iiIhhhh", b, descs + 20 * i)
            if off < 0 or length <= 0 or off + length > code_len:
                continue
            body = b[code + off:code + off + length]
            seed = struct.pack("<hh", i32s, refs) + bytes(4) + bytes([blocks & 0xFF]) + body
            name = hashlib.sha1(seed).hexdigest()[:16]
            with open(os.path.join(out, "fn-" + name), "wb") as f:
                f.write(seed)
            n += 1
    print(f"extract_seeds.py: {n} function seeds -> {out}")


if __name__ == "__main__":
    main()
