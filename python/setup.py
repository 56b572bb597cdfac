"""The wheel carries an executable, not an extension module: it is built as a platform
wheel (platlib, tagged py3-none-<platform>) so `auditwheel repair` vendors the shared
libraries the binary needs. The configuration is in pyproject.toml."""

from setuptools import setup
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70
    from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


class BinaryWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        # Any Python 3 runs the binary: the tag names only the platform.
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": BinaryWheel})
