"""The package version, at the bottom of the layers so that every module that writes it (trace files, reports,
``ipu-nb --version``) reads it without importing the public face."""

__version__ = "0.1.0"
