#!/usr/bin/env python3
"""Poppy's replay chunks in Python: one self-play game's training samples as numpy arrays.

A run keeps its samples in RUN/replay/chunk-NNNNNNNNN.rpl, one file per game; the layout is
written down in selfplay/replay_file.h (a header with the variant, encoder and board shape and
three XXH64 checksums, then one zstd frame holding the samples column by column). Every checksum
is checked: a damaged or foreign file raises ReplayFileError naming it, never wrong numbers.

    import poppy_replay
    chunk = poppy_replay.read("runs/micro/replay/chunk-000000042.rpl")
    chunk.planes        # float32 [samples, planes, height, width], the encoder's input
    chunk.policy        # float32 [samples, policy_size], the search's visit shares (dense)
    chunk.result        # int8 [samples]: +1 win, 0 draw, -1 loss for the side to move
                        # (four players: the winner's place clockwise from the mover, -1 a draw)
    chunk.root_value    # float32 [samples]: the search's value at the root, the mover's view
    chunk.plies_left    # uint16 [samples]: plies from the position to the game's end (0: unknown)
    chunk.reply_follows # bool [samples]: the next sample is the same game's next position
    chunk.variant, chunk.rules, chunk.encoder_version

    python3 scripts/poppy_replay.py CHUNK...   # a line per chunk: samples, shapes, result counts

Needs numpy, zstandard and xxhash (Debian: python3-numpy, python3-zstandard, python3-xxhash).
"""
import struct
import sys
from dataclasses import dataclass

MAGIC = b"POPPYRPL"
# 1: no rules fingerprint; 3: 32-bit policy indices (large boards); 4: plies left and reply
# flags, and 32-bit indices only for policies of more than 65,536 entries.
VERSIONS = (1, 2, 3, 4)


class ReplayFileError(Exception):
    """A chunk that is not one, is damaged, or is of a format this reader does not know."""


@dataclass
class Chunk:
    path: str
    variant: str
    rules: int            # the variant's rules fingerprint (0: not recorded)
    encoder_version: int
    planes: "numpy.ndarray"
    policy: "numpy.ndarray"
    result: "numpy.ndarray"
    root_value: "numpy.ndarray"
    plies_left: "numpy.ndarray"
    reply_follows: "numpy.ndarray"

    def __len__(self):
        return len(self.result)


def read(path):
    """The samples of one chunk, every checksum checked."""
    import numpy as np
    import xxhash
    import zstandard

    def fail(what):
        raise ReplayFileError(f"replay chunk {path}: {what}")

    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReplayFileError(f"replay chunk {path}: cannot read: {e.strerror}") from None
    if len(data) < 78 or not data.startswith(MAGIC):
        fail("not a replay chunk (no POPPYRPL magic)")
    version, header_size = struct.unpack_from("<II", data, 8)
    if version not in VERSIONS:
        fail(f"format version {version}, this reader knows {', '.join(map(str, VERSIONS))}")
    encoder, planes, height, width, policy_size = struct.unpack_from("<5I", data, 16)
    samples, raw_size, packed_size, raw_hash, packed_hash = struct.unpack_from("<5Q", data, 36)
    (name_length,) = struct.unpack_from("<H", data, 76)
    end = 78 + name_length
    rules = 0
    if version >= 2:
        if len(data) < end + 16:
            fail("truncated header")
        (rules,) = struct.unpack_from("<Q", data, end)
        end += 8
    if len(data) < end + 8 or header_size != end + 8:
        fail("truncated or inconsistent header")
    (header_hash,) = struct.unpack_from("<Q", data, end)
    if xxhash.xxh64_intdigest(data[:end], seed=0) != header_hash:
        fail("header checksum mismatch: the file is corrupt")
    variant = data[78:78 + name_length].decode("utf-8", "replace")
    packed = data[header_size:]
    if len(packed) != packed_size:
        fail(f"{len(packed)} bytes of payload, the header says {packed_size}")
    if xxhash.xxh64_intdigest(packed, seed=0) != packed_hash:
        fail("payload checksum mismatch: the file is corrupt")
    try:
        raw = zstandard.ZstdDecompressor().decompress(packed, max_output_size=raw_size)
    except zstandard.ZstdError as e:
        fail(f"the payload does not decompress: {e}")
    if len(raw) != raw_size or xxhash.xxh64_intdigest(raw, seed=0) != raw_hash:
        fail("decompressed payload checksum mismatch: the file is corrupt")

    # Column by column: planes (uint8, value x 24), results, root values, entries per sample,
    # (version 4: plies left, reply flags), policy indices (uint16, uint32 in version 3 and for
    # large policies in version 4), policy probabilities.
    cells = planes * height * width
    at = 0

    def take(dtype, count):
        nonlocal at
        size = np.dtype(dtype).itemsize * count
        if at + size > len(raw):
            fail("payload shorter than its sample count says (a writer bug)")
        out = np.frombuffer(raw, dtype=dtype, count=count, offset=at)
        at += size
        return out

    quantized = take(np.uint8, samples * cells)
    result = take(np.int8, samples).copy()
    root_value = take("<f4", samples).astype(np.float32)
    if version >= 4:
        plies_left = take("<u2", samples).astype(np.uint16)
        reply_follows = take(np.uint8, samples).astype(bool)
    else:
        plies_left = np.zeros(samples, dtype=np.uint16)
        reply_follows = np.zeros(samples, dtype=bool)
    entries = take("<u4", samples).astype(np.int64)
    total = int(entries.sum())
    wide = version == 3 or (version >= 4 and policy_size > 65536)
    indices = take("<u4" if wide else "<u2", total).astype(np.int64)
    probabilities = take("<f4", total).astype(np.float32)
    if at != len(raw):
        fail("payload longer than its sample count says (a writer bug)")
    if total and int(indices.max()) >= policy_size:
        fail("a policy index beyond the policy size (a writer bug)")
    policy = np.zeros((samples, policy_size), dtype=np.float32)
    rows = np.repeat(np.arange(samples), entries)
    policy[rows, indices] = probabilities
    return Chunk(path=path, variant=variant, rules=rules, encoder_version=encoder,
                 planes=(quantized.astype(np.float32) / 24.0).reshape(samples, planes, height, width),
                 policy=policy, result=result, root_value=root_value, plies_left=plies_left,
                 reply_follows=reply_follows)


def main(paths):
    if not paths:
        print(__doc__.split("\n\n")[0] + "\nusage: poppy_replay.py CHUNK...", file=sys.stderr)
        return 2
    import numpy as np
    status = 0
    for path in paths:
        try:
            c = read(path)
        except ReplayFileError as e:
            print(f"poppy_replay: error: {e}", file=sys.stderr)
            status = 2
            continue
        wins, draws, losses = (int(np.sum(c.result == 1)), int(np.sum(c.result == 0)), int(np.sum(c.result == -1)))
        print(f"{path}: {c.variant}, {len(c)} samples, planes {list(c.planes.shape[1:])}, policy "
              f"{c.policy.shape[1]}, results +{wins} ={draws} -{losses}, policy sums "
              f"{float(c.policy.sum(axis=1).min()):.4f}..{float(c.policy.sum(axis=1).max()):.4f}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
