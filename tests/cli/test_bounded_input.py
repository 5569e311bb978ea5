"""Bounded, well-formed input (issue 26), through the real `skawld -p`: a huge instruction
file is cut with a warning naming it; a lone surrogate from the model is replaced, never fatal."""

from __future__ import annotations

import json
import sqlite3

import pytest

from skawld_core.instructions import MAX_INSTRUCTION_CHARS
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(120)


def test_a_huge_instruction_file_is_cut_with_a_warning(cli: CliEnv) -> None:
    big = cli.repo / "CLAUDE.md"
    body = "HEAD-MARK\n" + ("rule. " * 1_000_000) + "\nTAIL-MARK\n"
    big.write_text(body, encoding="utf-8")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    size = big.stat().st_size
    assert f"instruction file {big} is {size:,} bytes; only its first {MAX_INSTRUCTION_CHARS:,} characters" in (
        out.stderr
    )
    request = json.dumps(cli.srv.anthropic.requests[0].body)
    assert "HEAD-MARK" in request and "TAIL-MARK" not in request
    assert len(request) < MAX_INSTRUCTION_CHARS + 60_000  # the cut text plus tools and the rest


def test_a_lone_surrogate_in_tool_input_and_text_is_replaced(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", raw_json='{"file_path": "bad\\udcff.txt"}', id="r1")),
        turn(text("done \udcff end")),
    )
    out = cli.run(*cli.args("-p", "read it"))
    assert out.returncode == 0, out.stderr
    assert "Cannot serialize" not in out.stderr
    assert out.stdout.strip() == "done \ufffd end"
    with sqlite3.connect(cli.db) as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT message_json FROM messages ORDER BY seq")]
    inputs = [b["input"] for m in stored for b in m["content"] if b["type"] == "tool_use"]
    assert inputs == [{"file_path": "bad\ufffd.txt"}]
    # the session stays usable: the next prompt sends the cleaned history back
    cli.srv.anthropic.enqueue(turn(text("again")))
    out = cli.run(*cli.args("-p", "more", "--continue"))
    assert out.returncode == 0, out.stderr
    assert "bad\ufffd.txt" in json.dumps(cli.srv.anthropic.requests[-1].body, ensure_ascii=False)


def test_a_surrogate_pair_split_over_two_deltas_is_kept(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text(["smile \ud83d", "\ude00 end"])))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "smile \U0001f600 end"
