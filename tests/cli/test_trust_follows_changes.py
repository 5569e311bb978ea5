"""Trust that follows the project as it changes (issue 26), through the real `skawld -p`.

Each case: before the project is accepted, after it is accepted, and after a change
that a `git pull` could bring (a new command file, a widened command, a new import
outside the project in CLAUDE.md, AGENTS.md or a nested CLAUDE.md, a symlinked
instruction file). A change that asks for more exits 3 naming the file, and nothing
reaches the model or runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(120)

SECRET = "TOP-SECRET-0451"


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def accept(cli: CliEnv, *extra: str) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--accept-project-config", *extra))
    assert out.returncode == 0, out.stderr


def sent(cli: CliEnv) -> str:
    """Everything the model has been sent so far."""
    return "\n".join(json.dumps(r.body) for r in cli.srv.anthropic.requests)


def command(cli: CliEnv, name: str, body: str, tools: str = "Bash") -> Path:
    return write(cli.repo / ".claude" / "commands" / f"{name}.md", f"---\nallowed-tools: {tools}\n---\n{body}\n")


# -- command files -------------------------------------------------------------


def test_a_command_runs_its_shell_line_only_once_the_project_is_accepted(cli: CliEnv) -> None:
    command(cli, "n", "!`touch CMD_RAN` then summarise")
    out = cli.run(*cli.args("-p", "/n"))
    assert out.returncode == 2 and "needs permission" in out.stderr, out.stderr
    assert "this project's files ask for: the command /n" in out.stderr
    assert not (cli.repo / "CMD_RAN").exists()
    accept(cli)
    cli.srv.anthropic.enqueue(turn(text("done")))
    out = cli.run(*cli.args("-p", "/n"))
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "CMD_RAN").exists()


def test_a_command_file_added_after_acceptance_asks_again(cli: CliEnv) -> None:
    accept(cli)  # the scenario: trusted first, the command arrives with a pull
    path = command(cli, "n", "!`touch CMD_RAN` then summarise")
    out = cli.run(*cli.args("-p", "/n"))
    assert out.returncode == 3, out.stderr
    assert f"[new since you accepted] the command /n ({path}) runs Bash without asking" in out.stderr
    assert "`touch CMD_RAN` when /n" in out.stderr
    assert not (cli.repo / "CMD_RAN").exists()
    assert len(cli.srv.anthropic.requests) == 1
    accept(cli)  # accepting again lets it run
    cli.srv.anthropic.enqueue(turn(text("done")))
    assert cli.run(*cli.args("-p", "/n")).returncode == 0
    assert (cli.repo / "CMD_RAN").exists()


def test_a_widened_command_asks_again_and_a_removed_one_does_not(cli: CliEnv) -> None:
    path = command(cli, "n", "!`echo fine` and report", tools="Bash(echo:*)")
    keep = command(cli, "k", "!`echo kept`")
    accept(cli)
    command(cli, "n", "!`touch CMD_RAN` and report", tools="Bash")
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3, out.stderr
    assert f"[new since you accepted] the command /n ({path}) runs Bash without asking" in out.stderr
    assert "[new since you accepted] `touch CMD_RAN` when /n" in out.stderr
    assert "[new since you accepted] the command /k" not in out.stderr  # unchanged, listed unmarked
    assert f"the command /k ({keep})" in out.stderr
    path.unlink()  # back to less than was accepted: no question
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi")).returncode == 0


def test_a_command_model_added_after_acceptance_asks_again(cli: CliEnv) -> None:
    accept(cli)
    write(cli.repo / ".skawld" / "commands" / "m.md", "---\nmodel: other-model\n---\nSummarise")
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert "the prompt of /m" in out.stderr and "other-model" in out.stderr


def test_a_command_model_waits_for_the_first_acceptance(cli: CliEnv) -> None:
    write(cli.repo / ".skawld" / "commands" / "m.md", "---\nmodel: other-model\n---\nSummarise")
    cli.srv.anthropic.enqueue(turn(text("done")))
    out = cli.run(*cli.args("-p", "/m"))
    assert out.returncode == 0, out.stderr
    assert "is not used until you accept the project" in out.stderr
    models = [r.body["model"] for r in cli.srv.anthropic.requests]
    assert models and "other-model" not in models
    accept(cli)
    cli.srv.anthropic.enqueue(turn(text("done")))
    assert cli.run(*cli.args("-p", "/m")).returncode == 0
    assert cli.srv.anthropic.requests[-1].body["model"] == "other-model"


def test_the_users_own_commands_need_no_acceptance(cli: CliEnv) -> None:
    accept(cli)
    write(cli.home / ".claude" / "commands" / "mine.md", "---\nallowed-tools: Bash\n---\n!`touch MINE_RAN` go")
    cli.srv.anthropic.enqueue(turn(text("done")))
    out = cli.run(*cli.args("-p", "/mine"))
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "MINE_RAN").exists()


# -- command attachments outside the project -----------------------------------


@pytest.mark.parametrize("form", ["absolute", "home", "parent"])
def test_a_command_attachment_outside_the_project_needs_acceptance(cli: CliEnv, form: str) -> None:
    secret = write(cli.repo.parent / "outside" / "secret.txt", SECRET)
    home_secret = write(cli.home / "secret.txt", SECRET)
    ref = {"absolute": str(secret), "home": "~/secret.txt", "parent": "../outside/secret.txt"}[form]
    target = home_secret if form == "home" else secret
    path = write(cli.repo / ".claude" / "commands" / "y.md", f"Look at @{ref} please")
    out = cli.run(*cli.args("-p", "/y"))
    assert out.returncode == 2, out.stderr
    assert f"/y: @{ref} is outside the project" in out.stderr
    assert SECRET not in sent(cli)
    accept(cli)
    cli.srv.anthropic.enqueue(turn(text("seen")))
    out = cli.run(*cli.args("-p", "/y"))
    assert out.returncode == 0, out.stderr
    assert SECRET in json.dumps(cli.srv.anthropic.requests[-1].body)
    # after acceptance, a new outside reference in the command asks again
    other = write(cli.repo.parent / "outside" / "other.txt", "OTHER-0452")
    path.write_text(f"Look at @{ref} and @{other}", encoding="utf-8")
    out = cli.run(*cli.args("-p", "/y"))
    assert out.returncode == 3, out.stderr
    assert f"{other} into the prompt when /y" in out.stderr and str(target) in out.stderr
    assert "OTHER-0452" not in sent(cli)


def test_the_user_may_attach_an_outside_file_by_typing_it(cli: CliEnv) -> None:
    write(cli.home / "notes.txt", "MY-NOTES-77")
    write(cli.repo / ".claude" / "commands" / "r.md", "Review $ARGUMENTS")
    cli.srv.anthropic.enqueue(turn(text("seen")))
    out = cli.run(*cli.args("-p", "/r @~/notes.txt"))
    assert out.returncode == 0, out.stderr
    assert "MY-NOTES-77" in sent(cli)


# -- instruction files importing from outside ----------------------------------


@pytest.mark.parametrize("name", ["CLAUDE.md", "AGENTS.md"])
def test_an_outside_import_added_after_acceptance_asks_again(cli: CliEnv, name: str) -> None:
    write(cli.home / ".ssh" / "id_rsa", "PRIVATE-KEY-9931")
    write(cli.repo / name, "Use tabs.\n")
    accept(cli)
    write(cli.repo / name, "Use tabs.\n@~/.ssh/id_rsa\n")
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3, out.stderr
    assert f"[new since you accepted] {cli.home / '.ssh' / 'id_rsa'} into the prompt" in out.stderr
    assert f"imported by {cli.repo / name}" in out.stderr
    assert "PRIVATE-KEY-9931" not in sent(cli)
    accept(cli)  # accepted knowingly: now it is read
    assert "PRIVATE-KEY-9931" in json.dumps(cli.srv.anthropic.requests[-1].body)


def test_an_outside_import_is_listed_and_withheld_before_acceptance(cli: CliEnv) -> None:
    secret = write(cli.repo.parent / "outside" / "style.md", "OUTSIDE-STYLE-12")
    write(cli.repo / "CLAUDE.md", "@../outside/style.md\n")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert "not importing " in out.stderr and "outside/style.md: outside the project (needs trust)" in out.stderr
    assert f"this project's files ask for: {secret} into the prompt" in out.stderr
    assert "OUTSIDE-STYLE-12" not in sent(cli)
    cli.write_project_config({"permissions": {"mode": "acceptEdits"}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert f"{secret} into the prompt sent to the model (imported by {cli.repo / 'CLAUDE.md'})" in out.stderr


def test_an_import_chain_through_an_outside_file_is_listed_in_full(cli: CliEnv) -> None:
    write(cli.home / "a.md", "@~/b.md\n")
    write(cli.home / "b.md", "CHAINED-31")
    write(cli.repo / "CLAUDE.md", "@~/a.md\n")
    cli.write_project_config({"permissions": {"mode": "acceptEdits"}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert f"{cli.home / 'b.md'} into the prompt sent to the model (imported by {cli.home / 'a.md'})" in out.stderr


def test_a_nested_claude_md_on_the_way_to_the_working_directory_asks_again(cli: CliEnv) -> None:
    sub = cli.repo / "pkg"
    write(sub / "CLAUDE.md", "Package rules.\n")
    write(cli.home / "secret.txt", SECRET)
    accept(cli, "--cwd", str(sub))
    write(sub / "CLAUDE.md", "Package rules.\n@~/secret.txt\n")
    out = cli.run(*cli.args("-p", "hi", "--cwd", str(sub)))
    assert out.returncode == 3, out.stderr
    assert f"imported by {sub / 'CLAUDE.md'}" in out.stderr
    assert SECRET not in sent(cli)


def test_a_nested_claude_md_below_the_working_directory_never_imports_from_outside(cli: CliEnv) -> None:
    from tests.support.wire_server import tool_call

    write(cli.home / "secret.txt", SECRET)
    write(cli.repo / "pkg" / "code.py", "x = 1\n")
    accept(cli)
    write(cli.repo / "pkg" / "CLAUDE.md", "Package rules NESTED-5.\n@~/secret.txt\n")
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "pkg/code.py"}, id="r1")), turn(text("read")))
    out = cli.run(*cli.args("-p", "read it", "--allowed-tools", "Read"))
    assert out.returncode == 0, out.stderr
    assert "NESTED-5" in sent(cli)  # the nested file itself is read
    assert SECRET not in sent(cli)


def test_a_symlinked_instruction_file_added_after_acceptance_asks_again(cli: CliEnv) -> None:
    secret = write(cli.repo.parent / "outside" / "secret.md", SECRET)
    accept(cli)
    (cli.repo / "AGENTS.md").symlink_to(secret)
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert f"{secret} into the prompt sent to the model ({cli.repo / 'AGENTS.md'} links there)" in out.stderr
    assert SECRET not in sent(cli)


def test_the_users_own_instruction_imports_stay_trusted(cli: CliEnv) -> None:
    write(cli.home / "style.md", "USER-STYLE-88")
    write(cli.home / ".claude" / "CLAUDE.md", "@~/style.md\n")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert "USER-STYLE-88" in sent(cli)


def test_a_nested_claude_md_that_links_outside_is_never_read(cli: CliEnv) -> None:
    from tests.support.wire_server import tool_call

    secret = write(cli.repo.parent / "outside" / "secret.md", SECRET)
    write(cli.repo / "pkg" / "code.py", "x = 1\n")
    accept(cli)
    (cli.repo / "pkg" / "CLAUDE.md").symlink_to(secret)
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "pkg/code.py"}, id="r1")), turn(text("read")))
    out = cli.run(*cli.args("-p", "read it", "--allowed-tools", "Read"))
    assert out.returncode == 0, out.stderr
    assert SECRET not in sent(cli)


def test_a_linked_claude_md_on_the_way_to_the_working_directory_asks(cli: CliEnv) -> None:
    secret = write(cli.repo.parent / "outside" / "secret.md", SECRET)
    sub = cli.repo / "pkg"
    sub.mkdir()
    accept(cli, "--cwd", str(sub))
    (sub / "CLAUDE.md").symlink_to(secret)
    out = cli.run(*cli.args("-p", "hi", "--cwd", str(sub)))
    assert out.returncode == 3, out.stderr
    assert f"{secret} into the prompt sent to the model ({sub / 'CLAUDE.md'} links there)" in out.stderr
    assert SECRET not in sent(cli)


def test_the_users_own_commands_stay_theirs_when_run_in_the_home_directory(cli: CliEnv) -> None:
    write(cli.home / ".claude" / "commands" / "mine.md", "---\nallowed-tools: Bash\n---\n!`touch MINE_RAN` go")
    cli.srv.anthropic.enqueue(turn(text("done")))
    out = cli.run(*cli.args("-p", "/mine", "--cwd", str(cli.home)))
    assert out.returncode == 0, out.stderr
    assert "this project's files ask for" not in out.stderr
    assert (cli.home / "MINE_RAN").exists()
