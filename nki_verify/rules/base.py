"""The rule record: one source for `nki-verify rule CODE`, docs/rules.md, SARIF help and the tests."""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URL = "https://github.com/nki-verify/nki-verify/blob/main/docs/rules.md"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, named after the bad pattern
    severity: str  # default severity: error | warning
    summary: str  # one line
    what: str  # What it does
    why: str  # Why is this bad (on the hardware)
    bad: str  # an invalid kernel snippet
    good: str  # the valid twin
    fix: str  # Use instead / how to fix
    implemented: bool = True

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}"

    def markdown(self) -> str:
        status = "" if self.implemented else "\n*Reserved: checked by a later release.*\n"
        return (f"## {self.code} {self.name}\n\n{self.summary}\n{status}\n"
                f"**Default severity:** {self.severity}\n\n"
                f"### What it does\n{self.what}\n\n### Why is this bad\n{self.why}\n\n"
                f"### Example\n```python\n{self.bad.strip()}\n```\n\n"
                f"### Use instead\n{self.fix}\n\n```python\n{self.good.strip()}\n```\n")

    def text(self) -> str:
        status = "" if self.implemented else "\n(reserved: checked by a later release)\n"
        return (f"{self.code} {self.name} ({self.severity})\n{self.summary}\n{status}\n"
                f"What it does\n  {self.what}\n\nWhy is this bad\n  {self.why}\n\n"
                f"Example\n{_indent(self.bad)}\n\nUse instead\n  {self.fix}\n\n{_indent(self.good)}\n")


def _indent(code: str) -> str:
    return "\n".join("    " + line for line in code.strip().splitlines())
