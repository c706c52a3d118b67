# File access in the execbench sandbox. The engine is built without host access, so `_io` has no
# FileIO and `io.py` cannot import. Give it a FileIO that refuses, and make `open` say why it
# fails instead of failing obscurely.

import _io
import builtins


def _refuse(*args, **kwargs):
    raise PermissionError("files are not available: execbench runs Python in a sandbox "
                          "with no files, processes or network")


class FileIO(_io._RawIOBase):
    def __init__(self, *args, **kwargs):
        _refuse()


_io.FileIO = FileIO
_io.open = _refuse
_io.open_code = _refuse
builtins.open = _refuse
del FileIO
