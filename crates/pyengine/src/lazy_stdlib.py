# The import system's last finder, for the standard library's modules that are not frozen into
# the engine (the browser's worker downloads them on the first import that needs one:
# lazy_stdlib.rs). `_packages` (module name -> whether it is a package) and `_code` (module name
# -> its code object, or ImportError) are put into this module's globals by the engine.
import sys as _sys
from _frozen_importlib import spec_from_loader as _spec_from_loader


class _RestOfStdlib:
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        package = _packages.get(name)
        if package is None:
            return None
        return _spec_from_loader(name, cls, origin="frozen", is_package=package)

    @staticmethod
    def create_module(spec):
        return None

    @staticmethod
    def exec_module(module):
        exec(_code(module.__spec__.name), module.__dict__)


_sys.meta_path.append(_RestOfStdlib)
