# The `posix` module of the execbench sandbox. The engine is built without RustPython's host
# access, so there is no real `posix`; `os.py` (and through it random, dataclasses, inspect,
# contextlib, statistics, tempfile-free parts of the stdlib) needs one to import. This one gives
# harmless answers for the queries the stdlib makes at import time and refuses everything that
# would reach a host: processes, files, the environment.

import sys as _sys

F_OK, X_OK, W_OK, R_OK = 0, 1, 2, 4
O_RDONLY, O_WRONLY, O_RDWR = 0, 1, 2
O_CREAT, O_EXCL, O_NOCTTY, O_TRUNC, O_APPEND, O_NONBLOCK = 0o100, 0o200, 0o400, 0o1000, 0o2000, 0o4000
O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC = 0o200000, 0o400000, 0o2000000
WNOHANG = 1

error = OSError
environ = {}
_have_functions = []


def _refuse(name):
    def refused(*args, **kwargs):
        raise PermissionError(f"os.{name}() is not available: execbench runs Python in a sandbox "
                              "with no processes, files or network")
    refused.__name__ = name
    refused.__qualname__ = name
    return refused


for _name in ("system", "popen", "execv", "execve", "execvp", "spawnv", "kill", "killpg",
              "open", "read", "write", "close", "remove", "unlink", "rmdir", "mkdir", "makedirs",
              "rename", "replace", "listdir", "scandir", "chdir", "chmod", "chown", "link",
              "symlink", "readlink", "stat", "lstat", "fstat", "access", "truncate", "utime",
              "putenv", "unsetenv", "pipe", "dup", "dup2", "startfile", "get_terminal_size"):
    globals()[_name] = _refuse(_name)
del _name


def getcwd():
    return "/"


def getcwdb():
    return b"/"


def getpid():
    return 1


def cpu_count():
    return 1


def urandom(size):
    # No host entropy source is reachable from here; _random seeds itself from the engine's own.
    import _random
    if size < 0:
        raise ValueError("negative argument not allowed")
    return _random.Random().getrandbits(size * 8).to_bytes(size, "little") if size else b""


def _exit(code=0):
    raise SystemExit(code)


def fspath(path):
    if isinstance(path, (str, bytes)):
        return path
    method = getattr(type(path), "__fspath__", None)
    if method is None:
        raise TypeError(f"expected str, bytes or os.PathLike object, not {type(path).__name__}")
    return method(path)
