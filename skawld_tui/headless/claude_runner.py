"""Headless mode in Claude Code's dialect: ``--output-format json|stream-json`` and
``--input-format stream-json`` (the protocol `claude-agent-sdk` speaks).

Output: ``stream-json`` writes ``system/init``, ``assistant``, ``user``, optional
``stream_event`` lines and one ``result`` envelope per prompt; ``json`` writes only the
envelope (the same object). See `skawld_tui.headless.claude_dialect`.

Input (``--input-format stream-json``), one JSON object per line:

- ``{"type": "user", "message": {"role": "user", "content": "..." | [blocks]}}`` — a
  prompt (text and image blocks);
- ``{"type": "control_request", "request_id", "request": {"subtype": ...}}`` with
  ``initialize`` (hook callback registrations), ``interrupt``, ``set_permission_mode``,
  ``set_model``, ``mcp_status``; each is answered by a ``control_response``;
- ``{"type": "control_response", ...}`` — the host's answers to skawld's own requests
  (``can_use_tool``, ``hook_callback``, ``mcp_message``; `skawld_tui.headless.claude_control`).

A line skawld does not understand (not JSON, not an object, an unknown ``type``, a
malformed ``user`` message) is reported on stderr and ends the process with exit 2.

Exit codes: 0 success, 1 the (last) result was an error, 2 usage error or a bad stdin
line, 130 aborted (SIGINT / broken stdout), 143 SIGTERM.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from skawld_core.claude_modes import claude_mode_name
from skawld_core.errors import ConfigError
from skawld_core.extensions import connect_extensions

from ..cli.claude_flags import skawld_mode
from ..exit_codes import EXIT_ABORT, EXIT_ERROR, EXIT_OK, EXIT_TERM, EXIT_USAGE
from .background_report import end_shells, report_ended
from .claude_control import HostChannel, host_can_use_tool, host_hooks, sdk_mcp_tools
from .claude_dialect import CLAUDE_CODE_DIALECT, ClaudeEmitter, init_message
from .claude_init import (
    InitConfig,
    LoadedLists,
    apply_settings,
    config_layer,
    drop_disallowed,
    init_lists,
    read_initialize,
    replace_system_prompt,
)
from .common import RunnerBase, deny_ask
from .control import warn

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.events import ResultEvent, SystemEvent
    from skawld_core.session import Session
    from skawld_core.settings import Settings

    from .common import HeadlessOptions

SCHEMA_INSTRUCTION = (
    "Your final answer must be only a JSON value (no prose, no code fences) that matches this JSON Schema:\n{schema}"
)
SCHEMA_RETRY = (
    "Your last answer did not match the required JSON Schema: {error}. "
    "Reply again with only a JSON value that matches the schema."
)


_CLAUDE_MCP_STATUS = {"ready": "connected", "idle": "pending", "connecting": "pending"}
"""skawld's MCP connection states in Claude Code's words (any other state is ``failed``)."""


class StdinProtocolError(Exception):
    """A stdin line skawld does not understand (exit 2)."""


_CANNOT_ASK = "use --permission-prompt-tool stdio or --canusetool, --allowedTools or --permission-mode to allow it"


@dataclass
class _Prompt:
    text: str
    images: list[dict[str, Any]]


def user_prompt(msg: dict[str, Any]) -> _Prompt:
    """A stdin ``user`` message as prompt text and images; `StdinProtocolError` when malformed."""
    message = msg.get("message")
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        raise StdinProtocolError("a 'user' line needs a 'message' object with role 'user'")
    content = message.get("content")
    if isinstance(content, str):
        if not content.strip():
            raise StdinProtocolError("a 'user' message has empty content")
        return _Prompt(content, [])
    if not isinstance(content, list) or not content:
        raise StdinProtocolError("a 'user' message's content must be a string or a non-empty list of blocks")
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "image" and isinstance(block.get("source"), dict):
            src = block["source"]
            if src.get("type") == "base64" and isinstance(src.get("data"), str):
                images.append({"data": src["data"], "media_type": src.get("media_type")})
            elif src.get("type") == "url" and isinstance(src.get("url"), str):
                images.append({"url": src["url"]})
            else:
                raise StdinProtocolError("an image block needs a base64 or url source")
        else:
            raise StdinProtocolError(f"unsupported content block in a 'user' message: {kind!r}")
    text = "\n".join(texts)
    if not text.strip() and not images:
        raise StdinProtocolError("a 'user' message has empty content")
    return _Prompt(text, images)


def _parse_answer(text: str) -> Any:
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1)
    return json.loads(body)


def check_structured(text: str | None, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """The final answer parsed and validated: (value, None) or (None, why it failed)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    try:
        value = _parse_answer(text or "")
    except ValueError as exc:
        return None, f"the answer is not JSON ({exc})"
    cls = validator_for(schema, default=Draft202012Validator)
    error = best_match(cls(schema).iter_errors(value))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path)
        return None, f"{error.message}{f' at /{where}' if where else ''}"
    return value, None


class ClaudeRunner(RunnerBase[_Prompt]):
    """Drives the runs of one invocation and owns Claude Code's stdin/stdout protocol."""

    def __init__(self, settings: Settings, opts: HeadlessOptions, stdout: IO[str]) -> None:
        super().__init__(settings, opts, stdout)
        self.channel = HostChannel(self.write)
        self.ready = asyncio.Event()  # the first initialize / user line / EOF arrived
        self.init_request: dict[str, Any] | None = None
        self.init_config: InitConfig | None = None
        self._init_id: str | None = None
        self.mcp_status: list[dict[str, str]] = []
        self._interrupted = False
        self._default_model = settings.model

    # -- output -----------------------------------------------------------

    def write(self, obj: dict[str, Any]) -> None:
        self.writer.line(json.dumps(obj, ensure_ascii=False))

    # -- stdin ------------------------------------------------------------

    def on_stdin(self, line: str | None) -> None:
        try:
            self._on_stdin(line)
        except StdinProtocolError as exc:
            self._fail(str(exc))

    def _on_stdin(self, line: str | None) -> None:
        if line is None:
            self.eof = True
            self.channel.close()
            self.ready.set()
            self.wakeup.set()
            return
        try:
            msg = json.loads(line)
        except ValueError:
            raise StdinProtocolError(f"a stdin line is not JSON: {line[:120]!r}") from None
        if not isinstance(msg, dict):
            raise StdinProtocolError(f"a stdin line is not a JSON object: {line[:120]!r}")
        kind = msg.get("type")
        if kind == "user":
            self.prompts.append(user_prompt(msg))
            if not self.opts.await_initialize:  # with it, the configuration in initialize comes first
                self.ready.set()
            self.wakeup.set()
        elif kind == "control_request":
            self._control(msg)
        elif kind == "control_response":
            if not self.channel.on_response(msg):
                warn("a control_response answers no open request; ignored")
        elif kind == "control_cancel_request":
            warn("control_cancel_request is not supported; the request continues")
        elif kind == "keep_alive":
            pass
        else:
            raise StdinProtocolError(
                f"unknown stdin message type {kind!r} (expected user, control_request or control_response)"
            )

    def _fail(self, message: str) -> None:
        sys.stderr.write(f"skawld: error: {message}\n")
        sys.stderr.flush()
        if self.fatal is None:
            self.fatal = message
        self.abort()

    def _reply(self, request_id: object, body: dict[str, Any] | None = None, error: str | None = None) -> None:
        if error is not None:
            response: dict[str, Any] = {"subtype": "error", "request_id": request_id, "error": error}
        else:
            response = {"subtype": "success", "request_id": request_id, "response": body or {}}
        self.write({"type": "control_response", "response": response})

    def _control(self, msg: dict[str, Any]) -> None:

        request_id = msg.get("request_id")
        req = msg.get("request")
        if not isinstance(req, dict) or not isinstance(request_id, str):
            raise StdinProtocolError("a control_request needs a 'request_id' string and a 'request' object")
        subtype = req.get("subtype")
        if subtype == "initialize":
            if self.agent is not None or self.init_request is not None:
                self._reply(request_id, error="skawld was already initialized")
                return
            try:
                self.init_config = read_initialize(req)
            except ValueError as exc:
                self._reply(request_id, error=str(exc))
                return
            self.init_request = req
            self._init_id = request_id  # answered once the agent is built, with what it loaded
            self.ready.set()
        elif subtype == "interrupt":
            self._interrupted = True
            if self.session is not None:
                self.session.abort()
            self._reply(request_id)
        elif subtype == "set_permission_mode":
            try:
                mode = skawld_mode(str(req.get("mode")))
            except ValueError as exc:
                self._reply(request_id, error=str(exc))
                return
            self.settings.permission_mode = mode
            if self.agent is not None:
                self.agent.set_permission_mode(mode)  # type: ignore[arg-type]
            self._reply(request_id)
        elif subtype == "set_model":
            model = req.get("model")
            chosen = model if isinstance(model, str) and model else self._default_model
            self.settings.model = chosen
            if self.agent is not None and chosen:
                self.agent.model = chosen
            self._reply(request_id)
        elif subtype == "mcp_status":
            self._reply(request_id, {"mcpServers": self._mcp_servers()})
        else:
            warn(f"control request {subtype!r} is not supported by skawld; answered with an error")
            self._reply(request_id, error=f"skawld does not support the control request {subtype!r}")

    def _init_body(self) -> dict[str, Any]:
        model = self.settings.model or ""
        lists = self._lists()
        sent = self.init_config.sent if self.init_config is not None else set()
        return {
            "commands": lists.commands,
            "agents": lists.agents,
            "plugins": lists.plugins,
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [{"value": model, "displayName": model, "description": f"{self.settings.provider_id} model"}],
            "account": {},
            "current_permission_mode": claude_mode_name(self.settings.permission_mode),
            "claude_code_version": CLAUDE_CODE_DIALECT,
            "pid": os.getpid(),
            **{f"{what}_applied": True for what in sent},
            **({"plugins_applied": self._plugins_loaded()} if "plugins" in sent else {}),
        }

    async def _mirror_transcript(self, session: Session) -> None:
        """Claude Code's copy of the session (`claude_transcript`), for hosts that replay it."""
        from .claude_transcript import transcript_path, write_transcript  # lazy: only after a prompt

        assert self.agent is not None
        if self.opts.no_session_persistence:
            return
        try:
            stored = await self.agent.store.load_messages(session.id)
            path = transcript_path(self.settings.cwd, session.id, os.environ)
            await asyncio.to_thread(write_transcript, path, session.id, self.settings.cwd, [m.message for m in stored])
        except (OSError, ValueError) as exc:  # the copy is a convenience: the store has the session
            warn(f"could not write the Claude Code transcript copy: {exc}")

    def _plugins_loaded(self) -> bool:
        """Whether every plugin ``initialize`` named is loaded."""
        assert self.agent is not None and self.init_config is not None
        wanted = config_layer(self.init_config, self.settings.cwd).get("pluginDirs", [])
        loaded = {str(p.root.resolve()) for p in self.agent.plugins}
        return all(str(Path(w).resolve()) in loaded for w in wanted)

    def _lists(self) -> LoadedLists:
        from ..file_commands import PromptCommands  # lazy: the command files are read once the agent is built

        assert self.agent is not None
        if self.prompt_commands is None:
            trusted = bool(getattr(self.settings, "project_trusted", False))
            self.prompt_commands = PromptCommands(self.agent, home=Path.home(), trusted=trusted)
        return init_lists(self.agent, self.prompt_commands)

    def _mcp_servers(self) -> list[dict[str, str]]:
        from skawld_core.mcp.manager import mcp_status

        statuses = mcp_status(self.agent) if self.agent else []
        out = [{"name": s.name, "status": _CLAUDE_MCP_STATUS.get(s.status, "failed")} for s in statuses]
        return out + list(self.mcp_status)

    # -- signals ----------------------------------------------------------

    def abort(self) -> None:
        super().abort()
        self.ready.set()

    def without_stdin(self) -> None:
        super().without_stdin()
        self.ready.set()

    def on_sigint(self) -> None:
        if self.aborted:
            raise SystemExit(EXIT_ABORT)
        self.abort()

    # -- running ----------------------------------------------------------

    def _on_system(self, event: SystemEvent) -> None:
        assert self.agent is not None
        skills = [s.name for s in self.agent.skill_summaries()]
        lists = self._lists()
        self.write(
            init_message(
                session_id=event.session_id,
                cwd=event.cwd,
                model=event.model,
                tools=list(event.tools),
                permission_mode=event.permission_mode,
                mcp_servers=self._mcp_servers(),
                skills=skills,
                agents=[a["name"] for a in lists.agents],
                skawld_version=_version(),
                slash_commands=lists.slash_commands,
                plugins=lists.plugins,
            )
        )

    async def _run(self, emitter: ClaudeEmitter, prompt: str, images: list[dict[str, Any]]) -> ResultEvent | None:
        from skawld_core.events import SystemEvent

        assert self.session is not None
        emitter.result = None
        async with self.session.run(prompt, images=images) as run:
            async for event in run:
                if isinstance(event, SystemEvent) and emitter.stream:
                    self._on_system(event)
                emitter.event(event)
        return emitter.result

    async def run_one(self, prompt: _Prompt) -> int:
        assert self.session is not None and self.agent is not None
        session = self.session
        emitter = ClaudeEmitter(
            self.write,
            session.id,
            model=lambda: session.model,
            pricing=self.agent.pricing,
            partial=self.opts.partial,
            stream=self.opts.output_format == "stream-json",
        )
        self._interrupted = False
        text = await self.expand(prompt.text)
        if text is None:
            return EXIT_USAGE
        result = await self._run(emitter, text, prompt.images)
        structured: Any = None
        subtype: str | None = None
        extra: list[str] = []
        if self.opts.schema is not None and result is not None and result.subtype == "success":
            structured, problem = check_structured(result.final_text, self.opts.schema)
            if problem is not None and not self.aborted:
                result = await self._run(emitter, SCHEMA_RETRY.format(error=problem), [])
                if result is not None and result.subtype == "success":
                    structured, problem = check_structured(result.final_text, self.opts.schema)
            if problem is not None and (result is None or result.subtype == "success"):
                subtype = "error_max_structured_output_retries"
                extra.append(f"the final answer did not match --json-schema after one retry: {problem}")
        await end_shells(self.agent, session)
        envelope = emitter.tally.envelope(
            result, session.id, subtype=subtype, structured_output=structured, extra_errors=extra
        )
        usage_meta = session.meta.get("usage")
        if isinstance(usage_meta, dict) and isinstance(usage_meta.get("cost_usd"), int | float):
            envelope["session_cost_usd"] = usage_meta["cost_usd"]
        report_ended(session, envelope, verbose=self.opts.verbose)
        await self._mirror_transcript(session)
        if self.fatal is None:
            self.write(envelope)
        if self.terminated:
            return EXIT_TERM
        if self.aborted:
            return EXIT_ABORT
        return EXIT_OK if envelope["subtype"] == "success" else EXIT_ERROR

    async def build(self) -> Agent:
        from ..bootstrap import build_agent  # lazy: the agent loads once stdin and signals are set up

        init = self.init_config or InitConfig()
        for note in init.settings_notes:
            warn(note)
        layer = config_layer(init, self.settings.cwd)
        if layer and self.opts.resolve_again is not None:
            try:
                self.settings = self.opts.resolve_again(layer)
            except (ConfigError, ValueError) as exc:
                raise ConfigError(f"initialize: {exc}") from None
        settings = self.settings = apply_settings(init, self.settings)
        if init.json_schema is not None:
            self.opts.schema = init.json_schema
        if self.opts.schema is not None:
            note = SCHEMA_INSTRUCTION.format(schema=json.dumps(self.opts.schema))
            settings = dataclasses.replace(
                settings, system_prompt="\n\n".join(p for p in (settings.system_prompt, note) if p)
            )
        hooks = None
        if self.init_request is not None and self.init_request.get("hooks"):
            hooks = host_hooks(self.channel, self.init_request["hooks"], lambda: self.settings.permission_mode)
        extra_tools: list[Any] = []
        sdk_servers = list(dict.fromkeys([*self.opts.sdk_mcp_servers, *init.sdk_servers]))
        if sdk_servers:
            extra_tools, self.mcp_status = await sdk_mcp_tools(self.channel, sdk_servers, _version())
        can_use_tool = (
            host_can_use_tool(self.channel, lambda: self.agent, self._host_interrupt)
            if self.opts.host_permissions
            else deny_ask(_CANNOT_ASK)
        )
        agent = build_agent(
            settings,
            can_use_tool=can_use_tool,
            include_partial_messages=self.opts.partial,
            extra_hooks=hooks,
            extra_tools=extra_tools,
        )
        agent.skill_filter = init.skills
        await connect_extensions(agent, agent.extensions)  # the answer to initialize lists what loaded
        replace_system_prompt(init, agent)
        drop_disallowed(agent, [*self.opts.disallowed_tools, *init.disallowed_tools])
        self.agent = agent
        if self._init_id is not None:
            self._reply(self._init_id, self._init_body())
            self._init_id = None
        return agent

    def _host_interrupt(self) -> None:
        if self.session is not None:
            self.session.abort()

    # -- the hooks of `RunnerBase.main` ------------------------------------

    async def before_build(self) -> None:
        if self.opts.stream_input:
            await self.ready.wait()  # the host's initialize comes before the agent is built

    def prompt_of(self, text: str) -> _Prompt:
        return _Prompt(text, [])

    def text_of(self, prompt: _Prompt) -> str:
        return prompt.text


def _version() -> str:
    from skawld_core import __version__

    return __version__
