# Known RustPython 0.5 gaps that change the results of benchmark code, patched to behave as
# CPython does. Each one is listed in ARCHITECTURE.md. Runs once per interpreter, after the
# sandbox modules; the Rust side installs `_dict_fromkeys` on the built-in dict type.

import codecs


def _dict_fromkeys(cls, iterable, value=None):
    # RustPython binds dict.fromkeys wrongly when called on an instance ({}.fromkeys(...)).
    result = cls()
    for key in iterable:
        result[key] = value
    return result


_dict_fromkeys = classmethod(_dict_fromkeys)


class _AsciiOnlyShiftJis(codecs.Codec):
    # The engine has no CJK codecs. Shift JIS agrees with ASCII on the ASCII range, which is
    # all benchmark code feeds it; anything else fails loudly instead of giving a wrong answer.
    def encode(self, text, errors="strict"):
        for i, ch in enumerate(text):
            if ord(ch) > 0x7F:
                raise UnicodeEncodeError("shift_jis", text, i, i + 1,
                                         "execbench's engine only has the ASCII part of shift_jis")
        return text.encode("ascii"), len(text)

    def decode(self, data, errors="strict"):
        data = bytes(data)
        for i, b in enumerate(data):
            if b > 0x7F:
                raise UnicodeDecodeError("shift_jis", data, i, i + 1,
                                         "execbench's engine only has the ASCII part of shift_jis")
        return data.decode("ascii"), len(data)


def _find_codec(name):
    if name.replace("-", "_").lower() in ("shift_jis", "sjis", "shiftjis", "s_jis"):
        codec = _AsciiOnlyShiftJis()
        return codecs.CodecInfo(codec.encode, codec.decode, name="shift_jis")
    return None


codecs.register(_find_codec)


import _thread


def _no_threads(*args, **kwargs):
    # No thread support is compiled into the engine, yet RustPython's stub returns as if a
    # thread had started: refuse instead, so a program that relies on one fails where it asks.
    raise RuntimeError("threads are not available in execbench's engine")


_thread.start_new_thread = _no_threads
_thread.start_new = _no_threads
# `threading.Thread.start` goes through `start_joinable_thread`, whose stub returned as well: the
# thread's `run` never ran and `start()` gave None. `threading` keeps its own reference to it.
_thread.start_joinable_thread = _no_threads
import sys as _sys

if "threading" in _sys.modules:
    _sys.modules["threading"]._start_joinable_thread = _no_threads
