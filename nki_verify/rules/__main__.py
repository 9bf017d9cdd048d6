"""`python -m nki_verify.rules` prints docs/rules.md."""

import sys

from . import catalog_markdown

sys.stdout.write(catalog_markdown())
