"""Every refusal has one home, memories.rules.errors, below every layer that raises it."""

import importlib
import pkgutil

import memadmin
import memories
import projects
from memories.rules.errors import DomainError


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_refusal_class_is_in_the_errors_module():
    for package in (memadmin, memories, projects):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".migrations." not in module.name and not module.name.endswith("wsgi"):
                importlib.import_module(module.name)
    homes = {
        cls.__name__: cls.__module__
        for cls in _subclasses(DomainError)
        if not cls.__module__.startswith("tests.")
    }
    assert {"BadRequest", "TokenRefused", "AccountNotFound", "InvalidField"} <= set(homes)
    assert set(homes.values()) == {"memories.rules.errors"}, homes
