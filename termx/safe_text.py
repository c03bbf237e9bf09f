"""Text from a corpus made safe to show on a terminal or in a page: its control characters written visibly."""

import re

CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """Text safe to show on a terminal: control characters written visibly (`\\x1b`, `\\u202e`), so corpus
    text cannot set the window title, write the clipboard (OSC 52), move the cursor or reorder a line."""
    return CONTROL_RE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)
