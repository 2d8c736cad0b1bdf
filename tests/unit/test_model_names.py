"""The model's names are written out, so type checkers and IDEs see them: the lists must stay complete."""

from __future__ import annotations

import vnetbench.model
from vnetbench.model import objects


def test_objects_all_lists_every_class_and_constant_it_defines():
    defined = {name for name, value in vars(objects).items()
               if isinstance(value, type) and value.__module__ == objects.__name__ and not name.startswith("_")}
    assert defined <= set(objects.__all__)
    assert {"FORMAT_VERSION", "MULTI_HOST_SWITCHES", "PORTGROUP_SWITCHES"} <= set(objects.__all__)
    assert len(objects.__all__) == len(set(objects.__all__))


def test_the_model_package_exports_every_object_name():
    assert set(objects.__all__) <= set(vnetbench.model.__all__)
    assert all(getattr(vnetbench.model, name) is getattr(objects, name) for name in objects.__all__)
