"""The front end: Python AST -> kernel IR by abstract interpretation (never executes the file)."""

from .entry import EVERY_PATH_FAILS, FrontendResult, IntervalOracle, analyze
from .hostlib import MODULE_NOT_FOUND
from .interp import Options
from .modules import SourceSet

__all__ = ["EVERY_PATH_FAILS", "FrontendResult", "IntervalOracle", "MODULE_NOT_FOUND", "Options", "SourceSet",
           "analyze"]
