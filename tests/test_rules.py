"""The rule catalog: every code documented, docs/rules.md generated from it, codes stable."""

from __future__ import annotations

import os
import re

from nki_verify.rules import RULES, catalog_markdown

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONTRACT = {"NKI101", "NKI102", "NKI201", "NKI202", "NKI203", "NKI204", "NKI301", "NKI302", "NKI303", "NKI304",
            "NKI401", "NKI402", "NKI403", "NKI404", "NKI501", "NKI502", "NKI503", "NKI601", "NKI602", "NKI603",
            "NKI604", "NKI605", "NKI606", "NKI607", "NKI608", "NKI609", "NKI901", "NKI902", "NKI903", "NKI999"}


def test_catalog_holds_the_contract() -> None:
    assert CONTRACT <= set(RULES), CONTRACT - set(RULES)
    names = [r.name for r in RULES.values()]
    assert len(names) == len(set(names))


def test_every_rule_is_documented() -> None:
    for code, r in RULES.items():
        assert re.fullmatch(r"NKI\d{3}", code)
        assert r.severity in ("error", "warning")
        for part in (r.summary, r.what, r.why, r.bad, r.good, r.fix):
            assert part.strip(), f"{code} lacks documentation"


def test_docs_rules_md_is_generated_from_the_catalog() -> None:
    with open(os.path.join(ROOT, "docs", "rules.md"), encoding="utf-8") as f:
        committed = f.read()
    assert committed == catalog_markdown(), "docs/rules.md is stale: run `python -m nki_verify.rules > docs/rules.md`"


def test_cli_contract_lists_every_code() -> None:
    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
        text = f.read()
    for code in CONTRACT:
        assert code[3:] in text, code


def _covered_codes() -> set:
    """Codes some file under tests/kernels/ expects (`# expect: CODE`)."""
    from .expectations import parse

    covered: set = set()
    for root, _, files in os.walk(os.path.join(ROOT, "tests", "kernels")):
        for f in files:
            if f.endswith(".py"):
                covered |= {code for items in parse(os.path.join(root, f)).values() for code, _ in items}
    return covered


def test_every_implemented_rule_has_docs_and_a_test_kernel() -> None:
    """Each code in the catalog is documented; each implemented one is exercised by a test kernel.  Rules marked
    `implemented=False` (reserved codes) are exempt until they are implemented: the flag decides, not a list."""
    covered = _covered_codes()
    missing = []
    for code, r in sorted(RULES.items()):
        assert r.text().strip() and r.markdown().strip() and r.help_uri.endswith("#" + code.lower()), code
        if r.implemented and code not in covered:
            missing.append(code)
    assert not missing, f"implemented rules without a `# expect:` kernel under tests/kernels/: {missing}"
    assert covered <= set(RULES), f"kernels expect codes the catalog lacks: {covered - set(RULES)}"
