"""Which files the engine must see, decided on their bytes.

This module imports nothing heavy: a tree without block pointers never loads libcst, whose import alone
(0.2 s) costs as much as reading 600 files.
"""

from __future__ import annotations

import re

# Every block-pointer site is a call of one of these `triton.language` members, or a load or store with one
# of these keywords (a block pointer's access), in a file that imports triton; a file without them costs
# one read and a byte search, nothing more. The engine tells sites by the same names.
SITE_MEMBERS = ("make_block_ptr", "advance")
SITE_KEYWORDS = ("boundary_check", "padding_option")
_WORDS = tuple(word.encode() for word in SITE_MEMBERS + SITE_KEYWORDS)
_MARKER = re.compile(rf"\b(?:{'|'.join(SITE_MEMBERS)})\s*\(|\b(?:{'|'.join(SITE_KEYWORDS)})\s*=".encode())


def may_concern_us(data: bytes) -> bool:
    """Whether the file says `triton`, or calls something `make_block_ptr` however it binds it (which the census
    reports, analysis/census.py): any other file has no site."""
    return b"triton" in data or b"make_block_ptr" in data


def might_need_migration(data: bytes) -> bool:
    # The words first: each is a fast substring pass, while the regex's leading `\b` defeats re's scan for
    # a literal (over the 14 MB that mention triton in a site-packages tree: 0.13 s against 0.02 s).
    return may_concern_us(data) and any(word in data for word in _WORDS) and _MARKER.search(data) is not None
