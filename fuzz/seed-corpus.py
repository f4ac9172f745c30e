#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: hand-picked UTF-8 edge cases.

Usage: python3 fuzz/seed-corpus.py [CORPUS_DIR]   (default: fuzz/corpus next to this file)

For each target it writes CORPUS_DIR/<target>/<name> files; libFuzzer adds what it finds
to the same directories (git ignores them). Running it again rewrites the seeds and
leaves the fuzzer's own finds alone.

The cases: overlong forms (RFC 3629's "/../" smuggling among them), surrogates, RFC 2279's
5- and 6-byte forms, the limits U+10FFFF and U+110000, noncharacters, a BOM, every
truncation of every multi-byte sequence length, errors placed around the 16-, 32- and
64-byte boundaries of the SIMD kernels, and long ASCII or multilingual text with an error
at the end.

The `stream`, `par`, `columnar` and `lossy_reader` targets read a header before the text (see
`fuzz/src/lib.rs`): a count byte, then that many control bytes. `stream` reads each control
byte as the length of a chunk (cycled over the text); `par` reads one control byte, the
chunk length minus 1; `columnar` reads the layout and the rows (see its source);
`lossy_reader` reads the buffer length (16 plus the first control byte) and the inner
reader's lengths (the others).
"""

import pathlib
import sys

# Characters of each encoded length, with the limits of each length's range.
CHARS = {
    "u0000": "\u0000",
    "u007F": "\u007f",
    "u0080": "\u0080",
    "e-acute": "é",
    "u07FF": "\u07ff",
    "u0800": "\u0800",
    "euro": "€",
    "uD7FF": "\ud7ff",
    "uE000": "\ue000",
    "uFFFD": "\ufffd",
    "uFFFF": "\uffff",
    "u10000": "\U00010000",
    "globe": "🌍",
    "u10FFFF": "\U0010ffff",
}

# Multilingual text: 1-, 2-, 3- and 4-byte characters.
TEXT = "Grüße, Καλημέρα, Здравствуйте, 世界, 🌍🎉! "

# Named invalid sequences.
INVALID = {
    # Overlong forms; "/" (2F) and "." (2E) as in RFC 3629's security section.
    "overlong-2-slash": b"\xc0\xaf",
    "overlong-2-max": b"\xc1\xbf",
    "overlong-3-slash": b"\xe0\x80\xaf",
    "overlong-3-max": b"\xe0\x9f\xbf",
    "overlong-4-slash": b"\xf0\x80\x80\xaf",
    "overlong-4-max": b"\xf0\x8f\xbf\xbf",
    "overlong-nul-2": b"\xc0\x80",
    "dotdot-2": b"/\xc0\xae\xc0\xae/etc/passwd",
    "dotdot-3": b"/\xe0\x80\xae\xe0\x80\xae/etc/passwd",
    "dotdot-4": b"/\xf0\x80\x80\xae\xf0\x80\x80\xae/etc/passwd",
    # Encoded UTF-16 surrogates, alone and as a pair (CESU-8).
    "surrogate-first": b"\xed\xa0\x80",
    "surrogate-high-last": b"\xed\xaf\xbf",
    "surrogate-low-first": b"\xed\xb0\x80",
    "surrogate-last": b"\xed\xbf\xbf",
    "surrogate-pair": b"\xed\xa0\xbd\xed\xb8\x80",
    # RFC 2279's 5- and 6-byte forms, and the bytes that never occur.
    "rfc2279-5-first": b"\xf8\x88\x80\x80\x80",
    "rfc2279-5-last": b"\xfb\xbf\xbf\xbf\xbf",
    "rfc2279-6-first": b"\xfc\x84\x80\x80\x80\x80",
    "rfc2279-6-last": b"\xfd\xbf\xbf\xbf\xbf\xbf",
    "byte-FE": b"\xfe",
    "byte-FF": b"\xff",
    "bytes-FEFF-bom-utf16": b"\xfe\xff\x00a",
    # Code points above U+10FFFF.
    "u110000": b"\xf4\x90\x80\x80",
    "u13FFFF": b"\xf4\xbf\xbf\xbf",
    "lead-F5": b"\xf5\x80\x80\x80",
    "lead-F7-max": b"\xf7\xbf\xbf\xbf",
    # Continuation bytes where a character should start.
    "continuation-first": b"\x80",
    "continuation-last": b"\xbf",
    "continuations": b"\x80\x81\x82\x83\xbf\xbe",
    "continuation-after-2": b"\xc3\xa9\xa9",
    "continuation-after-4": b"\xf0\x9f\x8c\x8d\x80",
    # A lead byte followed by something that is not a continuation byte.
    "short-2": b"\xc3x",
    "short-3-at-2": b"\xe2\x82x",
    "short-4-at-3": b"\xf0\x9f\x8cx",
    "short-lead-lead": b"\xe2\xe2\x82\xac",
}

# Valid specials: noncharacters are valid UTF-8, and so is a BOM.
VALID = {
    "nonchar-FFFE": "\ufffe",
    "nonchar-FFFF": "\uffff",
    "nonchar-FDD0": "\ufdd0",
    "nonchar-1FFFE": "\U0001fffe",
    "nonchar-10FFFE": "\U0010fffe",
    "bom-text": "\ufeffHello",
    "empty": "",
    "ascii": "hello, world",
    "text": TEXT,
}


def seeds():
    """Yields (name, bytes) for every seed."""
    for name, text in VALID.items():
        yield f"valid-{name}", text.encode()
    for name, char in CHARS.items():
        yield f"char-{name}", char.encode()
    for name, bad in INVALID.items():
        yield f"bad-{name}", bad
        yield f"bad-{name}-in-text", TEXT.encode() + bad + TEXT.encode()

    # Every truncation of every multi-byte character: alone, followed by ASCII, by a
    # lead byte, and at the very end of a 64-byte block.
    for name, char in CHARS.items():
        encoded = char.encode()
        for cut in range(1, len(encoded)):
            part = encoded[:cut]
            yield f"cut-{name}-{cut}", part
            yield f"cut-{name}-{cut}-ascii", part + b"ab"
            yield f"cut-{name}-{cut}-lead", part + "€".encode()
            yield f"cut-{name}-{cut}-end64", b"a" * (64 - cut) + part

    # Errors, and valid characters, around the 16-, 32- and 64-byte boundaries: the
    # sequence starts 3 bytes before the boundary to 2 bytes after.
    placed = {
        "FF": b"\xff",
        "continuation": b"\x80",
        "cut3": b"\xe2\x82",
        "short3": b"\xe2\x82x",
        "surrogate": b"\xed\xa0\x80",
        "toolarge": b"\xf4\x90\x80\x80",
        "overlong4": b"\xf0\x80\x80\xaf",
        "globe": "🌍".encode(),
        "euro": "€".encode(),
    }
    for boundary in (16, 32, 64, 128):
        for at in range(boundary - 3, boundary + 3):
            for name, seq in placed.items():
                yield f"at{at}-{name}", b"a" * at + seq + b"bc"
                yield f"at{at}-{name}-end", b"a" * at + seq
    yield "at63-error-after-text", (TEXT.encode() * 2)[:63] + b"\xff"

    # Long inputs: two windows of the main loop (4 KiB each) and the blocks after them,
    # with its ASCII fast path, and an error at the very end.
    yield "long-ascii", b"a" * 10000
    yield "long-ascii-error-end", b"a" * 10000 + b"\xff"
    yield "long-ascii-cut-end", b"a" * 10000 + b"\xf0\x9f\x8c"
    yield "long-text", (TEXT * 140).encode()
    yield "long-text-error-end", (TEXT * 140).encode() + b"\xed\xa0\x80"
    yield "long-text-cut-end", (TEXT * 140).encode() + b"\xe2\x82"


def frame(control, text):
    """An input with a header: the count of control bytes, the control bytes, the text."""
    return bytes([len(control)]) + bytes(control) + text


# Per target: (file name suffix, header control bytes or None for raw text).
FRAMINGS = {
    "from_utf8": [("", None)],
    # Whole, byte by byte, in uneven chunks, and in chunks that cut the 64-byte blocks.
    "stream": [("-whole", []), ("-bytes", [1]), ("-uneven", [1, 2, 3, 5]), ("-blocks", [63, 0, 65])],
    # Chunk lengths 1, 3, 16 and 64 (the control byte is the length minus 1).
    "par": [("-chunk1", [0]), ("-chunk3", [2]), ("-chunk16", [15]), ("-chunk64", [63])],
    "chunks": [("", None)],
    "lossy": [("", None)],
    # The first control byte: buffer length 16 + n and caller's reads of 1 + n bytes; the
    # others: the inner reader's lengths (0: Interrupted).
    "lossy_reader": [("-whole", []), ("-bytes", [0, 1]), ("-uneven", [5, 1, 2, 0, 3]), ("-blocks", [47, 63, 65])],
    # Offsets (rows of 1 to 7 bytes, one malformed offset), views (inline, long, spoiled)
    # and PLAIN pages (short values, a 200-byte value); see fuzz_targets/columnar.rs.
    "columnar": [
        ("-offsets", [0] + [1, 2, 3, 4, 5, 6, 7] * 4),
        ("-offsets-bad", [48, 3, 5, 0xF1, 2, 4]),
        ("-views", [1, 3, 0, 13, 0, 5, 0, 20, 0, 16, 0, 2, 0x80, 14, 0x08]),
        ("-plain", [2, 3, 5, 0, 0xFF, 7, 1, 12]),
    ],
}


def main():
    default = pathlib.Path(__file__).resolve().parent / "corpus"
    corpus = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    count = 0
    for target, framings in FRAMINGS.items():
        directory = corpus / target
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in seeds():
            for suffix, control in framings:
                content = data if control is None else frame(control, data)
                (directory / f"seed-{name}{suffix}").write_bytes(content)
                count += 1
    print(f"wrote {count} seed files under {corpus}")


if __name__ == "__main__":
    main()
