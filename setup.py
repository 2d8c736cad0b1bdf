"""Build-time layout of the one "vnetbench" distribution (the metadata lives in pyproject.toml).

The source tree keeps the product card's top level (app/, plugins/, resources/); the wheel needs one package
tree. This maps it: app/vnetbench and every plugin package as they are, and the top-level resources/ folder
as the package data folder ``vnetbench/resources`` (read through ``importlib.resources``), so wheels and sdists
carry the examples, calibration profiles, icons, templates, schema, docs and desktop files.
"""

from setuptools import find_namespace_packages, setup

#: folders that hold top-level packages: the application and one per backend plugin
ROOTS = ("app", "plugins/local", "plugins/vsphere", "plugins/kvm")
#: resources/ folders that only the README shows; nothing reads them at run time
DOCUMENTATION_ONLY = ["screenshots", "screenshots.*"]

# Every folder is a package (namespace packages included), so the data folders among them (vnetbench_kvm/guest,
# each resources/ folder) are packages with data, as setuptools wants them declared.
packages: list[str] = []
package_dir: dict[str, str] = {"vnetbench.resources": "resources"}
for root in ROOTS:
    for package in find_namespace_packages(root, exclude=["*__pycache__*"]):
        packages.append(package)
        if "." not in package:
            package_dir[package] = f"{root}/{package}"
resources = ["vnetbench.resources"] + [f"vnetbench.resources.{name}" for name in
                                       find_namespace_packages("resources", exclude=DOCUMENTATION_ONLY)]

setup(
    packages=packages + resources,
    package_dir=package_dir,
    package_data={"vnetbench": ["py.typed"], "vnetbench_kvm.guest": ["*"], **{name: ["*"] for name in resources},
                  # each plugin's manifest, which discovery reads without importing the plugin
                  **{plugin: ["vnetbench-plugin.toml"] for plugin in packages if plugin.startswith("vnetbench_")
                     and "." not in plugin}},
)
