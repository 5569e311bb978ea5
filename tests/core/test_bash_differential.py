"""Differential test: what real bash starts vs what the tree-sitter analyzer reports.

Each command runs under `/bin/bash -c` in its own scratch directory with a PATH
holding only shim executables: one per program name, each appending its name
to a log file. Plain shims then exit 0; wrapper shims (`env`, `nice`, `find`,
`xargs`, …) exec the real program, which looks its own command up in the same
PATH, so their option parsing is tested against the real thing.

The test fails when bash started a program the analyzer did not report and the
analyzer did not flag the command as unknown (a miss), when a denied program
ran without a deny (or an unknown-ask) verdict, or when an allow verdict
covered a program no allow rule names.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from skawld_core.permissions import BashRule
from skawld_core.permissions.bash_rules import analyze_bash

from . import test_bash_evaluation, test_bash_rules, test_bash_tree
from .bash_corpus import generate_corpus, sanitize
from .bash_shims import BASH, make_shims, run_with_shims

CORPUS_SIZE = 2000
ALLOW = ("ls", "cat", "git status", "echo", "grep", "wc", "head", "sort")
DENY = ("rm", "touch", "curl", "chmod")
RULES = [BashRule(pattern=p, decision="allow") for p in ALLOW] + [BashRule(pattern=p, decision="deny") for p in DENY]
ALLOWED_PROGRAMS = frozenset(p.split()[0] for p in ALLOW)
DENIED_PROGRAMS = frozenset(DENY)

pytestmark = pytest.mark.skipif(not os.access(BASH, os.X_OK), reason="needs /bin/bash")


def _existing_cases() -> list[str]:
    cases = [c for c, _, _ in test_bash_rules.ADVERSARIAL]
    cases += list(test_bash_tree.DENIED) + [c for c, _ in test_bash_tree.UNKNOWN]
    cases += list(test_bash_tree.ALLOWED) + list(test_bash_tree.NOT_ALLOWED)
    cases += [c for c, _ in test_bash_evaluation.EVALUATED] + list(test_bash_evaluation.ORDINARY)
    # an endless loop only floods the log; the generated corpus has bounded loops
    return [c for c in cases if "while true" not in c]


@dataclass
class _Outcome:
    command: str
    ran: set[str]
    problem: str | None


def _check(command: str, ran: set[str]) -> str | None:
    verdict = analyze_bash(command, RULES)
    analysis = verdict.analysis
    assert analysis is not None
    reported = {os.path.basename(c.name) for c in analysis.commands if c.words[0].literal}
    missed = ran - reported
    if missed and analysis.unknown is None:
        return f"miss: bash ran {sorted(missed)}, analyzer reported {sorted(reported)}"
    if ran & DENIED_PROGRAMS and verdict.decision != "deny" and not verdict.unknown:
        return f"denied program {sorted(ran & DENIED_PROGRAMS)} ran under verdict {verdict.decision}"
    if verdict.decision == "allow" and not ran <= ALLOWED_PROGRAMS:
        return f"allow covered {sorted(ran - ALLOWED_PROGRAMS)}, which no allow rule names"
    return None


def test_real_bash_starts_nothing_the_analyzer_missed(tmp_path: Path) -> None:
    shims = make_shims(tmp_path)
    commands = [sanitize(c) for c in [*_existing_cases(), *generate_corpus(CORPUS_SIZE)]]
    commands = list(dict.fromkeys(commands))
    assert len(commands) >= 2000

    # what a login shell's profile scripts start is not part of the command
    profile = run_with_shims("bash -lc true; sh -lc true", tmp_path / "profile", shims)

    def one(item: tuple[int, str]) -> _Outcome:
        index, command = item
        ran = run_with_shims(command, tmp_path / f"w{index}", shims)
        if "-l" in command or "--login" in command:
            ran -= profile
        return _Outcome(command, ran, _check(command, ran))

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(one, enumerate(commands)))

    problems = [f"{o.command!r}: {o.problem}" for o in outcomes if o.problem]
    if os.environ.get("SKAWLD_DIFF_REPORT"):
        Path(os.environ["SKAWLD_DIFF_REPORT"]).write_text("\n".join(problems))
    assert problems == [], "\n".join(problems[:40])
    # the corpus exercises what it should: programs really ran, through every wrapper kind
    ran_any = [o for o in outcomes if o.ran]
    assert len(ran_any) > len(commands) // 2
    started = set().union(*(o.ran for o in outcomes))
    assert {"rm", "touch", "git", "env", "nice", "timeout", "find", "xargs", "bash", "sh", "busybox"} <= started
    # most commands are judged on what they run, not excused as unknown (the random
    # fragments are often unparsable, hence a third)
    unknown = sum(1 for o in outcomes if analyze_bash(o.command, RULES).unknown)
    assert unknown < len(commands) // 3
